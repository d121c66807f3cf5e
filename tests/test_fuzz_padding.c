/* Left padding in fuzz/ (docs/features/padding.md): fz_pad_case moves the
 * rows each batch reads to the end of longer axes, before the padding, NaN
 * everywhere else, the mask along (mode 0's pre/next band folded in, modes
 * 2-4's compressed mask kept); fz_geom_of_call / fz_out_index /
 * fz_lse_index read a padded call's outputs at those physical rows; the
 * decoders make padded cases, metamorphic pad= forms and params scenes of
 * every kind.  The kernels are not run here: the transforms are checked on
 * the cases they build. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fuzz/fuzz.h"
#include "fuzz/gen.h"
#include "fuzz/signature.h"
#include "fuzz_testlib.h"

static double value0(const fia_case *c, fia_slot s)
{
    const fia_tensor_spec *sp = &c->tensors[s];
    return sp->gen.kind == FIA_GEN_VALUES && sp->gen.n_values >= 1
               ? sp->gen.values[0] : NAN;
}

/* Query, key and value of the padded case p (geometry gp) hold the base's
 * (c, g) rows i < len at start + i (none where start < 0) and NaN in every
 * other element.  Checks the three tensors; qst/kst: the expected starts. */
static void check_rows(const fia_case *c, const fz_geom *g, const fia_case *p,
                       const fz_geom *gp, const int64_t *qst,
                       const int64_t *kst)
{
    static const fia_slot slots[3] = {FIA_SLOT_QUERY, FIA_SLOT_KEY,
                                      FIA_SLOT_VALUE};
    const fz_layout l = g->layout == FZ_BNSD_BSND ? FZ_BNSD : g->layout;
    for (int t = 0; t < 3; t++) {
        int64_t n0, n1;
        double *a = ftl_data_of(c, slots[t], &n0), *b = ftl_data_of(p, slots[t], &n1);
        const int q = t == 0;
        const int64_t H = q ? g->N : g->KV_N;
        const int64_t S = q ? g->Q_S : g->KV_S, S2 = q ? gp->Q_S : gp->KV_S;
        CHECK_EQ_INT(n1, g->B * H * S2 * g->D);
        int64_t placed = 0, nan = 0, wrong = 0;
        for (int64_t bb = 0; a && b && bb < g->B; bb++) {
            const int64_t len = q ? fz_q_len(c, g, bb) : fz_kv_len(c, g, bb);
            const int64_t st = q ? qst[bb] : kst[bb];
            for (int64_t h = 0; h < H; h++)
                for (int64_t i = 0; st >= 0 && i < len; i++)
                    for (int64_t d = 0; d < g->D; d++) {
                        double x = a[fz_index(l, g->B, H, S, g->D, bb, h, i, d)];
                        double y = b[fz_index(l, g->B, H, S2, g->D, bb, h,
                                              st + i, d)];
                        wrong += !(x == y || (isnan(x) && isnan(y)));
                        placed++;
                    }
        }
        for (int64_t k = 0; b && k < n1; k++)
            nan += isnan(b[k]) != 0;
        CHECK_EQ_INT(wrong, 0);
        /* the base's data is normal(0, 1): no NaN of its own */
        CHECK_MSG(nan == n1 - placed, "%s: %lld NaN, %lld placed of %lld",
                  fia_slot_name(slots[t]), (long long)nan, (long long)placed,
                  (long long)n1);
        free(a);
        free(b);
    }
}

/* A prefill BSND case with GQA, both lengths ragged, a batched mode-0 mask
 * and a pre/next band: both scenes, the rows and the mask moved. */
static void test_prefill_both(void)
{
    fia_case c = ftl_parse(
        "input_layout = BSND\nnum_heads = 2\nnum_key_value_heads = 1\n"
        "query = fp16 [2,4,2,3]\nkey = fp16 [2,6,1,3]\nvalue = fp16 [2,6,1,3]\n"
        "actual_seq_lengths = [3,4]\nactual_seq_lengths_kv = [5,2]\n"
        "atten_mask = bool [2,4,6]\natten_mask.gen = random(0.3)\n"
        "pre_tokens = 1\nnext_tokens = 2\nsoftmax_lse_flag = true\nseed = 7\n");
    fz_geom g, gp;
    CHECK(fz_geom_of(&c, &g) == 0);
    CHECK(fz_pad_applies(&c, &g));
    fia_case p;
    fia_error err;
    CHECK(fia_case_copy(&p, &c) == FIA_OK);
    /* p_q 2, p_kv 3, one extra row, one more key row (seed bits 4-5) */
    CHECK(fz_pad_case(&c, &g, 2, 3, 1, 0x10, &p, &err) == FIA_OK);
    CHECK(fz_geom_of_call(&p, &gp) == 0);
    CHECK_EQ_INT(gp.Q_S, 7);  /* max(4, 2 + 4) + 1 */
    CHECK_EQ_INT(gp.KV_S, 10); /* max(6, 3 + 5) + 1 + 1 */
    CHECK(gp.qpad && gp.kvpad);
    CHECK_EQ_INT(gp.p_q, 2);
    CHECK_EQ_INT(gp.p_kv, 3);
    CHECK(value0(&p, FIA_SLOT_QUERY_PADDING_SIZE) == 2.0);
    CHECK(value0(&p, FIA_SLOT_KV_PADDING_SIZE) == 3.0);
    CHECK(p.tensors[FIA_SLOT_QUERY_PADDING_SIZE].t[0].dtype == FIA_DT_INT64);
    CHECK_EQ_INT(p.tensors[FIA_SLOT_KV_PADDING_SIZE].t[0].shape[0], 1);
    int64_t qst[2] = {7 - 2 - 3, 7 - 2 - 4}, kst[2] = {10 - 3 - 5, 10 - 3 - 2};
    check_rows(&c, &g, &p, &gp, qst, kst);
    /* the lengths as they were; the band kept as given (ignored now) */
    CHECK(p.arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS].values[1] == 4);
    CHECK(p.attrs.pre_tokens == 1 && p.attrs.next_tokens == 2);

    /* the mask: per batch [B, 1, Q_S', KV_S'], the band folded in */
    const fia_tensor *mt = &p.tensors[FIA_SLOT_ATTEN_MASK].t[0];
    CHECK(mt->ndim == 4 && mt->shape[0] == 2 && mt->shape[1] == 1 &&
          mt->shape[2] == 7 && mt->shape[3] == 10);
    int64_t n0, n1;
    double *m0 = ftl_data_of(&c, FIA_SLOT_ATTEN_MASK, &n0);
    double *m1 = ftl_data_of(&p, FIA_SLOT_ATTEN_MASK, &n1);
    int64_t wrong = 0, open = 0, band_cut = 0;
    for (int64_t b = 0; m0 && m1 && b < 2; b++)
        for (int64_t r = 0; r < 7; r++)
            for (int64_t k = 0; k < 10; k++) {
                int64_t i = r - qst[b], j = k - kst[b];
                double want = 1.0;
                if (i >= 0 && i < (b ? 4 : 3) && j >= 0 && j < (b ? 2 : 5)) {
                    int in_band = j >= i - 1 && j <= i + 2;
                    want = m0[(b * 4 + i) * 6 + j] != 0 || !in_band;
                    band_cut += m0[(b * 4 + i) * 6 + j] == 0 && !in_band;
                }
                double got = m1[(b * 7 + r) * 10 + k];
                wrong += got != want;
                open += got == 0;
            }
    CHECK_EQ_INT(wrong, 0);
    CHECK(open > 0 && band_cut > 0); /* the case tests something */
    free(m0);
    free(m1);
    /* the outputs follow Q_S' */
    fia_tensor o;
    CHECK(fia_case_output(&p, FIA_SLOT_ATTENTION_OUT, &o) == FIA_PRESENT);
    CHECK(o.ndim == 4 && o.shape[1] == 7);
    CHECK(fia_case_output(&p, FIA_SLOT_SOFTMAX_LSE, &o) == FIA_PRESENT);
    CHECK(o.ndim == 4 && o.shape[2] == 7);

    /* fz_out_index / fz_lse_index: logical row s at q_start + s, -1 past
     * q_len; the base's unchanged */
    int64_t bad = 0, minus = 0;
    for (int64_t b = 0; b < 2; b++)
        for (int64_t n = 0; n < 2; n++)
            for (int64_t s = 0; s < 7; s++) {
                const int64_t ql = b ? 4 : 3;
                int64_t at = fz_out_index(&p, &gp, b, n, s, 1);
                int64_t want = s < ql ? fz_index(FZ_BSND, 2, 2, 7, 3, b, n,
                                                 qst[b] + s, 1)
                                      : -1;
                bad += at != want;
                int64_t la = fz_lse_index(&p, &gp, b, n, s);
                bad += la != (s < ql ? (b * 2 + n) * 7 + qst[b] + s : -1);
                minus += at < 0;
            }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(minus, 2 * (7 - 3) + 2 * (7 - 4));
    CHECK_EQ_INT(fz_out_index(&c, &g, 1, 1, 3, 2),
                 fz_index(FZ_BSND, 2, 2, 4, 3, 1, 1, 3, 2));
    fia_case_free(&p);
    fia_case_free(&c);
}

/* A zero written as a negative value reads as 0 (the rows at the end);
 * every negative kind of the seed. */
static void test_negative_written(void)
{
    fia_case c = ftl_parse(
        "input_layout = BNSD\nnum_heads = 1\nquery = bf16 [2,1,3,2]\n"
        "key = bf16 [2,1,5,2]\nvalue = bf16 [2,1,5,2]\n"
        "actual_seq_lengths = [2]\nseed = 3\n");
    fz_geom g, gp;
    CHECK(fz_geom_of(&c, &g) == 0);
    static const double want[4] = {-1.0, -(2.0 + 5.0), -9223372036854775808.0,
                                   0.0 /* -(S' + 1), below */};
    for (uint64_t k = 0; k < 4; k++) {
        fia_case p;
        fia_error err;
        /* bits 0-1 both, bits 2-3 the kind, bits 8.. the magnitude (5) */
        uint64_t seed = 3 | (k << 2) | (5u << 8);
        CHECK(fia_case_copy(&p, &c) == FIA_OK);
        CHECK(fz_pad_case(&c, &g, 0, 0, 0, seed, &p, &err) == FIA_OK);
        CHECK(fz_geom_of_call(&p, &gp) == 0);
        double vq = value0(&p, FIA_SLOT_QUERY_PADDING_SIZE);
        double vk = value0(&p, FIA_SLOT_KV_PADDING_SIZE);
        CHECK_MSG(vq == (k == 3 ? -(double)(gp.Q_S + 1) : want[k]), "%g", vq);
        CHECK_MSG(vk == (k == 3 ? -(double)(gp.KV_S + 1) : want[k]), "%g", vk);
        CHECK(gp.qpad && gp.kvpad && gp.p_q == 0 && gp.p_kv == 0);
        CHECK_EQ_INT(gp.Q_S, 3);
        int64_t qst[2] = {1, 1}, kst[2] = {0, 0};
        check_rows(&c, &g, &p, &gp, qst, kst);
        CHECK_EQ_INT(fz_out_index(&p, &gp, 1, 0, 0, 1),
                     fz_index(FZ_BNSD, 2, 1, 3, 2, 1, 0, 1, 1));
        fia_case_free(&p);
    }
    fia_case_free(&c);
}

/* Decode: no query padding (Q_S = 1), kv padding with the lengths added,
 * the (B, KV_S) mask as (B, 1, 1, KV_S') at the physical keys. */
static void test_decode(void)
{
    fia_case c = ftl_parse(
        "input_layout = BSH\nnum_heads = 2\nquery = fp16 [3,1,8]\n"
        "key = fp16 [3,9,8]\nvalue = fp16 [3,9,8]\n"
        "atten_mask = int8 [3,9]\natten_mask.gen = random(0.4)\nseed = 11\n");
    fz_geom g, gp;
    CHECK(fz_geom_of(&c, &g) == 0);
    fia_case p;
    fia_error err;
    CHECK(fia_case_copy(&p, &c) == FIA_OK);
    CHECK(fz_pad_case(&c, &g, 5, -1, 0, 0, &p, &err) == FIA_ERR_BAD_INPUT);
    fia_case_free(&p);
    CHECK(fia_case_copy(&p, &c) == FIA_OK);
    CHECK(fz_pad_case(&c, &g, 5, 4, 2, 0, &p, &err) == FIA_OK);
    CHECK(p.tensors[FIA_SLOT_QUERY_PADDING_SIZE].presence == FIA_ABSENT);
    CHECK(p.arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS].presence == FIA_ABSENT);
    const fia_int_array_spec *kl = &p.arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    CHECK(kl->presence == FIA_PRESENT && kl->count == 3 && kl->values[2] == 9);
    CHECK(fz_geom_of_call(&p, &gp) == 0);
    CHECK(!gp.qpad && gp.kvpad && gp.p_kv == 4);
    CHECK_EQ_INT(gp.KV_S, 9 + 4 + 2);
    int64_t qst[3] = {0, 0, 0}, kst[3] = {2, 2, 2};
    check_rows(&c, &g, &p, &gp, qst, kst);
    const fia_tensor *mt = &p.tensors[FIA_SLOT_ATTEN_MASK].t[0];
    CHECK(mt->ndim == 4 && mt->shape[0] == 3 && mt->shape[2] == 1 &&
          mt->shape[3] == 15 && mt->dtype == FIA_DT_INT8);
    int64_t n0, n1, wrong = 0;
    double *m0 = ftl_data_of(&c, FIA_SLOT_ATTEN_MASK, &n0);
    double *m1 = ftl_data_of(&p, FIA_SLOT_ATTEN_MASK, &n1);
    for (int64_t b = 0; m0 && m1 && b < 3; b++)
        for (int64_t k = 0; k < 15; k++) {
            double want = k >= 2 && k < 11 ? m0[b * 9 + k - 2] : 1.0;
            wrong += m1[b * 15 + k] != want;
        }
    CHECK_EQ_INT(wrong, 0);
    free(m0);
    free(m1);
    /* the output rows stay where they were */
    CHECK_EQ_INT(fz_out_index(&p, &gp, 2, 1, 0, 3), (2 * 1 + 0) * 8 + 4 + 3);
    fia_case_free(&p);
    fia_case_free(&c);
}

/* extra < 0: the longest batches start below 0, their rows not placed;
 * fz_out_index calls their rows unspecified (-1).  Then values past S
 * (every start below 0) and INT64_MIN (read as 0). */
static void test_short_and_absurd(void)
{
    fia_case c = ftl_parse(
        "input_layout = BNSD_BSND\nnum_heads = 1\nquery = fp16 [2,1,5,4]\n"
        "key = fp16 [2,1,6,4]\nvalue = fp16 [2,1,6,4]\n"
        "actual_seq_lengths = [5,3]\nactual_seq_lengths_kv = [6,4]\n"
        "sparse_mode = 1\natten_mask = bool [5,6]\nseed = 5\n");
    fz_geom g, gp;
    CHECK(fz_geom_of(&c, &g) == 0);
    fia_case p;
    fia_error err;
    CHECK(fia_case_copy(&p, &c) == FIA_OK);
    CHECK(fz_pad_case(&c, &g, 2, 2, -1, 0, &p, &err) == FIA_OK);
    CHECK(fz_geom_of_call(&p, &gp) == 0);
    CHECK_EQ_INT(gp.Q_S, 6);  /* 2 + 5 - 1 */
    CHECK_EQ_INT(gp.KV_S, 7); /* 2 + 6 - 1 */
    int64_t qst[2] = {-1, 1}, kst[2] = {-1, 1};
    check_rows(&c, &g, &p, &gp, qst, kst);
    int64_t minus = 0, bad = 0;
    for (int64_t s = 0; s < 6; s++) {
        minus += fz_out_index(&p, &gp, 0, 0, s, 0) < 0;
        int64_t at = fz_out_index(&p, &gp, 1, 0, s, 0);
        bad += at != (s < 3 ? fz_index(FZ_BSND, 2, 1, 6, 4, 1, 0, 1 + s, 0) : -1);
    }
    CHECK_EQ_INT(minus, 6);
    CHECK_EQ_INT(bad, 0);
    /* mode 1: the mask moved, no band; batch 0 (no rows) all masked */
    int64_t n1;
    double *m1 = ftl_data_of(&p, FIA_SLOT_ATTEN_MASK, &n1);
    int64_t open0 = 0;
    for (int64_t k = 0; m1 && k < 6 * 7; k++)
        open0 += m1[k] == 0;
    CHECK_EQ_INT(open0, 0);
    free(m1);

    /* a value past S: every start below 0 */
    p.tensors[FIA_SLOT_QUERY_PADDING_SIZE].gen.values[0] = 9223372036854775807.0;
    CHECK(fz_geom_of_call(&p, &gp) == 0);
    CHECK_EQ_INT(gp.p_q, gp.Q_S + 1);
    minus = 0;
    for (int64_t b = 0; b < 2; b++)
        for (int64_t s = 0; s < 6; s++)
            minus += (fz_out_index(&p, &gp, b, 0, s, 0) < 0) +
                     (fz_lse_index(&p, &gp, b, 0, s) < 0);
    CHECK_EQ_INT(minus, 24);
    /* INT64_MIN reads as 0 */
    p.tensors[FIA_SLOT_QUERY_PADDING_SIZE].gen.values[0] = -9223372036854775808.0;
    CHECK(fz_geom_of_call(&p, &gp) == 0);
    CHECK(gp.qpad && gp.p_q == 0);
    CHECK_EQ_INT(fz_out_index(&p, &gp, 1, 0, 0, 0),
                 fz_index(FZ_BSND, 2, 1, 6, 4, 1, 0, 3, 0));
    /* without actual_seq_lengths the query padding is ignored */
    fz_case_array_absent(&p, FIA_ARR_ACTUAL_SEQ_LENGTHS);
    CHECK(fz_geom_of_call(&p, &gp) == 0);
    CHECK(!gp.qpad && gp.kvpad);
    CHECK_EQ_INT(fz_out_index(&p, &gp, 1, 0, 2, 0),
                 fz_index(FZ_BSND, 2, 1, 6, 4, 1, 0, 2, 0));
    /* an empty padding tensor is absent */
    int64_t zero = 0;
    CHECK(fz_case_tensor(&p, FIA_SLOT_KV_PADDING_SIZE, FIA_DT_INT64, 1, &zero) ==
          FIA_OK);
    CHECK(fz_geom_of_call(&p, &gp) == 0);
    CHECK(!gp.kvpad);
    fia_case_free(&p);
    fia_case_free(&c);
}

/* Modes 2-4 keep the compressed mask and their tokens; a case with an
 * input the transform does not model has no padded form. */
static void test_compressed_and_refused(void)
{
    fia_case c = ftl_parse(
        "input_layout = BSH\nnum_heads = 1\nquery = fp16 [1,4,16]\n"
        "key = fp16 [1,8,16]\nvalue = fp16 [1,8,16]\nsparse_mode = 4\n"
        "pre_tokens = 2\nnext_tokens = 0\natten_mask = bool [2048,2048]\n");
    fz_geom g;
    CHECK(fz_geom_of(&c, &g) == 0);
    fia_case p;
    fia_error err;
    CHECK(fia_case_copy(&p, &c) == FIA_OK);
    CHECK(fz_pad_case(&c, &g, 1, 1, 0, 0, &p, &err) == FIA_OK);
    const fia_tensor *mt = &p.tensors[FIA_SLOT_ATTEN_MASK].t[0];
    CHECK(mt->ndim == 2 && mt->shape[0] == 2048 && mt->shape[1] == 2048);
    CHECK(p.tensors[FIA_SLOT_ATTEN_MASK].gen.kind == FIA_GEN_DEFAULT);
    CHECK(p.attrs.sparse_mode == 4 && p.attrs.pre_tokens == 2);
    fia_case_free(&p);
    fia_case_free(&c);

    c = ftl_parse("input_layout = BSH\nnum_heads = 1\nquery = fp16 [1,4,16]\n"
              "key = fp16 [1,8,16]\nvalue = fp16 [1,8,16]\n"
              "pse_shift = fp16 [1,1,4,8]\n");
    CHECK(fz_geom_of(&c, &g) == 0);
    CHECK(!fz_pad_applies(&c, &g));
    fia_case_free(&c);
    c = ftl_parse("input_layout = BSH\nnum_heads = 1\nquery = fp16 [1,4,16]\n"
              "key = fp16 [1,8,16]\nvalue = fp16 [1,8,16]\n"
              "kv_padding_size = int64 [1]\n");
    CHECK(fz_geom_of(&c, &g) == 0);
    CHECK(!fz_pad_applies(&c, &g)); /* padded already */
    fia_case_free(&c);
}

/* The relation's transform: "pad=<p_q>,<p_kv>,<seed>", -1 for none. */
static void test_relation(void)
{
    fia_case c = ftl_parse(
        "input_layout = BSND\nnum_heads = 2\nquery = bf16 [2,3,2,16]\n"
        "key = bf16 [2,5,2,16]\nvalue = bf16 [2,5,2,16]\nseed = 9\n");
    fia_case p;
    fia_error err;
    CHECK(fuzz_meta_transform(&c, "pad=1,-1,64", &p, &err) == FIA_OK);
    fz_geom gp;
    CHECK(fz_geom_of_call(&p, &gp) == 0);
    CHECK(gp.qpad && !gp.kvpad && gp.Q_S == 3 + 1 + 1 /* bits 6-7: 1 */);
    CHECK(p.tensors[FIA_SLOT_KV_PADDING_SIZE].presence == FIA_ABSENT);
    CHECK(p.arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS].count == 2);
    fia_case_free(&p);
    CHECK(fuzz_meta_transform(&c, "pad=-1,-1,0", &p, &err) ==
          FIA_ERR_BAD_INPUT);
    CHECK(fuzz_meta_transform(&c, "pad=x", &p, &err) == FIA_ERR_BAD_INPUT);
    fia_case_free(&c);
}

/* An accuracy signature of a padded case reads the failing elements at
 * the physical rows: failures in padding rows only are no failure, in the
 * rows of batch 1 they are (fuzz/signature.c). */
static void test_signature(void)
{
    fia_case c = ftl_parse(
        "input_layout = BSH\nnum_heads = 1\nquery = fp16 [2,3,16]\n"
        "key = fp16 [2,70,16]\nvalue = fp16 [2,70,16]\nseed = 2\n"
        "actual_seq_lengths = [3,2]\n");
    fz_geom g, gp;
    CHECK(fz_geom_of(&c, &g) == 0);
    fia_case p;
    fia_error err;
    CHECK(fia_case_copy(&p, &c) == FIA_OK);
    CHECK(fz_pad_case(&c, &g, 2, -1, 0, 0, &p, &err) == FIA_OK);
    CHECK(fz_geom_of_call(&p, &gp) == 0 && gp.Q_S == 5);
    static fia_check_result r;
    for (int k = 0; k < 2; k++) {
        memset(&r, 0, sizeof r);
        r.v = FIA_V_ACCURACY;
        r.computed = 1;
        r.out_fail = calloc((size_t)(2 * 5 * 16), 1);
        for (int64_t b = 0; b < 2; b++)
            for (int64_t row = 0; row < 5; row++) {
                /* batch b's rows: 5 - 2 - q_len .. 5 - 2 */
                const int64_t st = 3 - (b ? 2 : 3);
                const int real = row >= st && row < 3;
                if (k == 0 ? !real : real && b == 1)
                    memset(r.out_fail + (b * 5 + row) * 16, FIA_FAIL_FAR, 16);
            }
        char sig[FUZZ_SIGNATURE_LEN];
        fuzz_signature(&p, &r, FIA_PROFILE_DOC, sig, sizeof sig);
        const char *end = strrchr(sig, '|');
        CHECK_MSG(end != NULL && (k == 0) == (strcmp(end, "|none") == 0),
                  "%s", sig);
        fia_check_result_release(&r);
    }
    char fs[128];
    fuzz_feature_set(&p, fs, sizeof fs);
    CHECK_MSG(strstr(fs, "+padq") != NULL && strstr(fs, "+padkv") == NULL,
              "%s", fs);
    fia_case_free(&p);
    fia_case_free(&c);
}

/* The decoders: fuzz_numeric pads now and then in each variant, the
 * metamorphic target asks for pad= forms that apply, fuzz_params makes
 * scenes of every kind. */
static void test_decoders(void)
{
    fuzz_rng r = {77};
    uint8_t buf[512];
    int padded = 0, qscene = 0, kvdec = 0, neg = 0, past = 0, ign = 0, n = check_draws(3000);
    for (int k = 0; k < n; k++) {
        fia_case c;
        fuzz_decode_numeric(buf, ftl_random_input(&r, buf, 64, sizeof buf), &c);
        fz_geom g;
        const int given = c.tensors[FIA_SLOT_QUERY_PADDING_SIZE].presence ==
                              FIA_PRESENT ||
                          c.tensors[FIA_SLOT_KV_PADDING_SIZE].presence ==
                              FIA_PRESENT;
        if (given && fz_geom_of_call(&c, &g) == 0) {
            padded++;
            qscene += g.qpad;
            kvdec += g.kvpad && g.Q_S == 1;
            ign += !g.qpad && !g.kvpad;
            for (int t = 0; t < 2; t++) {
                fia_slot ps = t ? FIA_SLOT_KV_PADDING_SIZE
                                : FIA_SLOT_QUERY_PADDING_SIZE;
                double v = c.tensors[ps].presence == FIA_PRESENT
                               ? value0(&c, ps) : 0;
                neg += v < 0;
                past += v > 1e9;
            }
        }
        fia_case_free(&c);
    }
    printf("fuzz_numeric: %d of %d padded (query scene %d, decode kv scene "
           "%d, ignored %d, negative %d, past S %d)\n", padded, n, qscene,
           kvdec, ign, neg, past);
    CHECK_COUNT(padded > n / 20 && qscene > n / 100 && kvdec > n / 100);
    CHECK_COUNT(ign > n / 200 && neg > n / 200 && past > n / 200);

    int pads = 0, applied = 0;
    const int draws = check_draws(600);
    for (int k = 0; k < draws; k++) {
        fia_case c, p;
        char t[64];
        fuzz_decode_metamorphic(buf, ftl_random_input(&r, buf, 64, sizeof buf), &c,
                                t, sizeof t);
        if (strncmp(t, "pad=", 4) == 0) {
            pads++;
            if (fuzz_meta_transform(&c, t, &p, NULL) == FIA_OK) {
                applied++;
                fia_case_free(&p);
            }
        }
        fia_case_free(&c);
    }
    printf("metamorphic: %d pad= of %d, %d applied\n", pads, draws, applied);
    CHECK_COUNT(pads > draws / 12);
    CHECK(applied == pads);

    /* params: the scenes of the status table and their neighbours */
    int q = 0, kv = 0, dec_kv = 0, qs1_q = 0, empty = 0, tnd = 0, list = 0,
        paged = 0;
    for (int k = 0; k < check_draws(20000); k++) {
        fia_case c;
        fuzz_decode_params(buf, ftl_random_input(&r, buf, 32, sizeof buf), &c);
        const fia_tensor_spec *qp = &c.tensors[FIA_SLOT_QUERY_PADDING_SIZE];
        const fia_tensor_spec *kp = &c.tensors[FIA_SLOT_KV_PADDING_SIZE];
        const int qg = qp->presence == FIA_PRESENT, kg = kp->presence == FIA_PRESENT;
        fz_geom g;
        if ((qg || kg) && fz_geom_of_call(&c, &g) == 0) {
            q += g.qpad;
            kv += g.kvpad && g.Q_S > 1;
            dec_kv += g.kvpad && g.Q_S == 1;
            qs1_q += qg && g.Q_S == 1;
            list += g.list && kg;
            paged += g.paged && kg;
        }
        empty += (qg && fia_tensor_numel(&qp->t[0]) == 0) ||
                 (kg && fia_tensor_numel(&kp->t[0]) == 0);
        tnd += (qg || kg) && fia_layout_is_tnd(c.attrs.input_layout);
        fia_case_free(&c);
    }
    printf("fuzz_params: query scenes %d, prefill kv %d, decode kv %d, query "
           "padding at Q_S = 1 %d, empty %d, token layout %d, list %d, paged "
           "%d\n", q, kv, dec_kv, qs1_q, empty, tnd, list, paged);
    CHECK_COUNT(q > 200 && kv > 200 && dec_kv > 100 && qs1_q > 100 &&
                empty > 100);
    CHECK_COUNT(tnd > 20 && list > 10 && paged > 20);
}

int main(void)
{
    test_prefill_both();
    test_negative_written();
    test_decode();
    test_short_and_absurd();
    test_compressed_and_refused();
    test_relation();
    test_signature();
    test_decoders();
    return check_summary();
}
