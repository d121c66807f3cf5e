/* pse_shift in fuzz/ (docs/features/pse.md): fz_pse_values puts a value
 * where a row reads it — the physical row and column under left padding,
 * a shared prefix's keys first, row 0 at Q_S = 1 — and `unread` everywhere
 * else; fz_excluded_keys reads a full mask (and mode 0's band) there; the
 * pse-zero= and pse-mask= forms are built right (shapes, dtypes, -inf and
 * 0, NaN nowhere read, the mask and tokens gone), pse-mask='s unspecified
 * rows and the base's cleaning; fuzz_numeric's pse cases and fuzz_params'
 * valid pse calls with padding, page tables and lists.  The kernels are not
 * run: the transforms are checked on the cases they build. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fuzz/fuzz.h"
#include "fuzz/gen.h"
#include "fuzz_testlib.h"

/* 1 when the oracle accepts c (a full-int8 case: or refuses it by
 * NM-004 alone, while full int8 is not computed). */
static int valid(const fia_case *c)
{
    fia_oracle_verdict v;
    return fia_oracle_evaluate(c, FIA_PROFILE_DOC, &v, NULL) == FIA_OK &&
           ftl_valid_or(&v, "NM-004");
}

/* A value naming its logical position. */
static double code_fn(void *ctx, int64_t b, int64_t n, int64_t i, int64_t j)
{
    (void)ctx;
    return (double)(1 + b * 1000000 + n * 10000 + i * 100 + j);
}

/* Checks a pse v of shape sh against the expected place of every logical
 * (b, n, i < ql[b], j < kl[b]): physical row qst[b] + i (0 at Q_S = 1),
 * column kst[b] + j, written batch after batch (a pse of batch 1 holds
 * the last batch's value); NaN elsewhere. */
static void check_places(const double *v, const int64_t sh[4], int64_t B,
                         int64_t N, int decode, const int64_t *ql,
                         const int64_t *kl, const int64_t *qst,
                         const int64_t *kst)
{
    const int64_t n = sh[0] * sh[1] * sh[2] * sh[3];
    double *want = malloc((size_t)n * sizeof *want);
    int64_t wrong = 0, placed = 0;
    for (int64_t k = 0; want && k < n; k++)
        want[k] = NAN;
    for (int64_t b = 0; want && b < B; b++)
        for (int64_t h = 0; h < N; h++)
            for (int64_t i = 0; i < ql[b]; i++)
                for (int64_t j = 0; j < kl[b]; j++) {
                    const int64_t pb = sh[0] == 1 ? 0 : b;
                    const int64_t r = decode ? 0 : qst[b] + i;
                    want[((pb * sh[1] + h) * sh[2] + r) * sh[3] + kst[b] + j] =
                        code_fn(NULL, b, h, i, j);
                }
    for (int64_t k = 0; want && k < n; k++) {
        wrong += !(v[k] == want[k] || (isnan(v[k]) && isnan(want[k])));
        placed += !isnan(want[k]);
    }
    CHECK_EQ_INT(wrong, 0);
    CHECK(placed > 0);
    free(want);
}

/* A left-padded prefill case (both scenes, ragged lengths): the pse's
 * read positions are the physical ones, the rest NaN; batch B and 1. */
static void test_padded_places(void)
{
    fia_case c = ftl_parse(
        "input_layout = BNSD\nnum_heads = 2\nquery = fp16 [2,2,4,16]\n"
        "key = fp16 [2,2,6,16]\nvalue = fp16 [2,2,6,16]\n"
        "actual_seq_lengths = [3,4]\nactual_seq_lengths_kv = [5,2]\n"
        "seed = 4\n");
    fz_geom g, gp;
    fia_error err;
    CHECK(fz_geom_of(&c, &g) == 0);
    fia_case p;
    CHECK(fia_case_copy(&p, &c) == FIA_OK);
    CHECK(fz_pad_case(&c, &g, 1, 2, 1, 0, &p, &err) == FIA_OK);
    CHECK(fz_geom_of_call(&p, &gp) == 0 && gp.qpad && gp.kvpad);
    int64_t ql[2], kl[2], qst[2], kst[2];
    for (int64_t b = 0; b < 2; b++) {
        fz_batch_place(&p, &gp, b, &ql[b], &kl[b], &qst[b], &kst[b]);
        CHECK_EQ_INT(qst[b], gp.Q_S - 1 - ql[b]);
        CHECK_EQ_INT(kst[b], gp.KV_S - 2 - kl[b]);
    }
    CHECK(ql[0] == 3 && ql[1] == 4 && kl[0] == 5 && kl[1] == 2);
    for (int b1 = 0; b1 < 2; b1++) {
        int64_t sh[4] = {b1 ? 1 : 2, 2, gp.Q_S + 2, gp.KV_S + 3};
        double *v;
        CHECK(fz_pse_values(&p, &gp, sh, code_fn, NULL, NAN, &v) == FIA_OK);
        check_places(v, sh, 2, 2, 0, ql, kl, qst, kst);
        free(v);
    }
    /* a start below 0: nothing of that batch placed */
    p.tensors[FIA_SLOT_KV_PADDING_SIZE].gen.values[0] = 1e9;
    CHECK(fz_geom_of_call(&p, &gp) == 0);
    fz_batch_place(&p, &gp, 0, &ql[0], &kl[0], &qst[0], &kst[0]);
    CHECK(kst[0] < 0);
    fia_case_free(&p);
    fia_case_free(&c);
}

/* A shared prefix: prefix key j at column j, own key j at P + j; decode:
 * row 0. */
static void test_prefix_places(void)
{
    fia_case c = ftl_parse(
        "input_layout = BSH\nnum_heads = 1\nquery = bf16 [2,1,16]\n"
        "key = bf16 [2,4,16]\nvalue = bf16 [2,4,16]\n"
        "key_shared_prefix = bf16 [1,5,16]\n"
        "value_shared_prefix = bf16 [1,5,16]\n"
        "actual_shared_prefix_len = [3]\nactual_seq_lengths_kv = [4,1]\n");
    fz_geom g;
    CHECK(fz_geom_of_call(&c, &g) == 0 && g.P == 3);
    int64_t ql[2], kl[2], qst[2], kst[2];
    for (int64_t b = 0; b < 2; b++)
        fz_batch_place(&c, &g, b, &ql[b], &kl[b], &qst[b], &kst[b]);
    CHECK(kl[0] == 7 && kl[1] == 4 && kst[0] == 0 && ql[1] == 1);
    int64_t sh[4] = {2, 1, 1, 3 + 4 + 1};
    double *v;
    CHECK(fz_pse_values(&c, &g, sh, code_fn, NULL, NAN, &v) == FIA_OK);
    check_places(v, sh, 2, 1, 1, ql, kl, qst, kst);
    /* batch 1 reads the prefix's 3 keys and its own key 0 at column 3 */
    CHECK(v[8 + 3] == code_fn(NULL, 1, 0, 0, 3) && isnan(v[8 + 4]));
    free(v);
    fia_case_free(&c);
}

/* pse-zero=: shapes by the seed's bits, the query's dtype, const(0) or
 * zeros with NaN where nothing reads; not for a pse already given, D not
 * a multiple of 16 at Q_S = 1, an int8 query. */
static void test_pse_zero(void)
{
    fia_case c = ftl_parse(
        "input_layout = BSND\nnum_heads = 2\nquery = bf16 [3,5,2,16]\n"
        "key = bf16 [3,7,2,16]\nvalue = bf16 [3,7,2,16]\n"
        "actual_seq_lengths = [5,2,4]\nactual_seq_lengths_kv = [7,3,1]\n");
    fia_case p;
    fia_error err;
    CHECK(fuzz_meta_transform(&c, "pse-zero=0", &p, &err) == FIA_OK);
    const fia_tensor *t = &p.tensors[FIA_SLOT_PSE_SHIFT].t[0];
    CHECK(t->ndim == 4 && t->shape[0] == 3 && t->shape[1] == 2 &&
          t->shape[2] == 5 && t->shape[3] == 7 && t->dtype == FIA_DT_BF16);
    CHECK(p.tensors[FIA_SLOT_PSE_SHIFT].gen.kind == FIA_GEN_CONST &&
          p.tensors[FIA_SLOT_PSE_SHIFT].gen.a == 0.0);
    CHECK(valid(&p));
    fia_case_free(&p);
    /* batch 1, 3 more rows, 2 more columns, NaN where no row reads */
    unsigned seed = 1 | (3 << 1) | (2 << 3) | (1 << 6);
    char tr[32];
    snprintf(tr, sizeof tr, "pse-zero=%u", seed);
    CHECK(fuzz_meta_transform(&c, tr, &p, &err) == FIA_OK);
    t = &p.tensors[FIA_SLOT_PSE_SHIFT].t[0];
    CHECK(t->shape[0] == 1 && t->shape[2] == 8 && t->shape[3] == 9);
    int64_t n, zeros = 0, nan = 0;
    double *v = ftl_data_of(&p, FIA_SLOT_PSE_SHIFT, &n);
    for (int64_t k = 0; v && k < n; k++)
        zeros += v[k] == 0.0, nan += isnan(v[k]) != 0;
    /* batch 0 reads the most: rows 0..4, keys 0..6; batch 1 adds none */
    CHECK_EQ_INT(zeros, 2 * 5 * 7);
    CHECK_EQ_INT(nan, n - zeros);
    free(v);
    CHECK(valid(&p));
    fia_case_free(&p);
    /* columns up to a multiple of 16 */
    CHECK(fuzz_meta_transform(&c, "pse-zero=32", &p, &err) == FIA_OK);
    CHECK(p.tensors[FIA_SLOT_PSE_SHIFT].t[0].shape[3] == 16);
    fia_case_free(&c);
    CHECK(fuzz_meta_transform(&p, "pse-zero=0", &c, &err) ==
          FIA_ERR_BAD_INPUT); /* a pse already (c left empty) */
    fia_case_free(&p);

    c = ftl_parse("input_layout = BSH\nnum_heads = 1\nquery = fp16 [2,1,24]\n"
              "key = fp16 [2,5,24]\nvalue = fp16 [2,5,24]\n");
    CHECK(fuzz_meta_transform(&c, "pse-zero=0", &p, &err) ==
          FIA_ERR_BAD_INPUT); /* Q_S = 1, D 24 */
    fia_case_free(&c);
    c = ftl_parse("input_layout = BSH\nnum_heads = 1\nquery = fp16 [2,1,32]\n"
              "key = fp16 [2,5,32]\nvalue = fp16 [2,5,32]\n");
    CHECK(fuzz_meta_transform(&c, "pse-zero=7", &p, &err) == FIA_OK);
    t = &p.tensors[FIA_SLOT_PSE_SHIFT].t[0];
    CHECK(t->shape[0] == 1 && t->shape[2] == 1 && t->shape[3] == 5);
    CHECK(valid(&p));
    fia_case_free(&p);
    fia_case_free(&c);
}

/* pse-mask= at Q_S > 1: a batched mode-0 mask with a band and a fully
 * masked row; the form has no mask, mode 0, no tokens, a pse of -inf where
 * the mask or the band excluded a key, 0 where a row reads one, NaN where
 * none reads. */
static void test_pse_mask_prefill(void)
{
    /* batch 0: row 1 fully masked; batch 1: key 2 masked in rows 0, 2 */
    fia_case c = ftl_parse(
        "input_layout = BNSD\nnum_heads = 2\nnum_key_value_heads = 1\n"
        "query = fp16 [2,2,3,16]\nkey = fp16 [2,1,4,16]\n"
        "value = fp16 [2,1,4,16]\nactual_seq_lengths_kv = [4,3]\n"
        "atten_mask = uint8 [2,1,3,5]\n"
        "atten_mask.values = 0,1,0,0,1, 1,1,1,1,1, 0,0,0,0,1,"
        " 0,0,1,0,1, 0,0,0,0,1, 0,0,1,0,1\n"
        "pre_tokens = 5\nnext_tokens = 1\ninner_precise = 2\nseed = 2\n");
    fz_geom g;
    CHECK(fz_geom_of(&c, &g) == 0);
    CHECK(fz_pse_applies(&c, &g, 1) && fz_pse_applies(&c, &g, 0));
    uint8_t *x = NULL;
    CHECK(fz_excluded_keys(&c, &g, &x) == FIA_OK && x != NULL);
    /* band: j <= i + 1 */
    static const uint8_t want[2][3][4] = {
        {{0, 1, 1, 1}, {1, 1, 1, 1}, {0, 0, 0, 0}},
        {{0, 0, 1, 1}, {0, 0, 0, 0}, {0, 0, 1, 0}}};
    int wrong = 0;
    for (int b = 0; x && b < 2; b++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < (b ? 3 : 4); j++)
                wrong += x[(b * 3 + i) * 4 + j] != want[b][i][j];
    CHECK_EQ_INT(wrong, 0);
    free(x);
    fia_case p;
    fia_error err;
    CHECK(fuzz_meta_transform(&c, "pse-mask=65", &p, &err) == FIA_OK);
    CHECK(p.tensors[FIA_SLOT_ATTEN_MASK].presence == FIA_ABSENT);
    CHECK(p.attrs.sparse_mode == 0 && !p.attr_given[FIA_ATTR_PRE_TOKENS] &&
          !p.attr_given[FIA_ATTR_NEXT_TOKENS]);
    const fia_tensor *t = &p.tensors[FIA_SLOT_PSE_SHIFT].t[0];
    /* batch B (the mask is per batch, bit 0 asks in vain) */
    CHECK(t->shape[0] == 2 && t->shape[1] == 2 && t->shape[2] == 3 &&
          t->shape[3] == 4 && t->dtype == FIA_DT_FP16);
    int64_t n;
    double *v = ftl_data_of(&p, FIA_SLOT_PSE_SHIFT, &n);
    wrong = 0;
    for (int b = 0; v && b < 2; b++)
        for (int h = 0; h < 2; h++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 4; j++) {
                    double y = v[((b * 2 + h) * 3 + i) * 4 + j];
                    if (b == 1 && j == 3)
                        wrong += !isnan(y); /* past kv_len */
                    else
                        wrong += want[b][i][j] ? y != -INFINITY : y != 0.0;
                }
    CHECK_EQ_INT(wrong, 0);
    free(v);
    CHECK(valid(&p));
    fia_case_free(&p);

    /* unspecified: batch 0's row 1 (no key); with a NaN value in key 2 of
     * batch 1 (excluded from rows 0 and 2), those rows too */
    uint8_t *un = calloc(2 * 2 * 3 * 16, 1), *lun = calloc(2 * 2 * 3, 1);
    CHECK(fz_pse_mask_unspecified(&c, &g, un, lun) == FIA_OK);
    int marked = 0;
    for (int k = 0; lun && k < 12; k++)
        marked += lun[k] ? 1 << k : 0;
    CHECK_EQ_INT(marked, (1 << 1) | (1 << 4)); /* (0, n, 1) for n = 0, 1 */
    CHECK(un[(0 * 3 + 1) * 16 + 5] == 1 && un[(1 * 3 + 1) * 16] == 1 &&
          un[0] == 0);
    int64_t nv;
    double *vv = ftl_data_of(&c, FIA_SLOT_VALUE, &nv);
    vv[(1 * 4 + 2) * 16 + 7] = NAN; /* batch 1, key 2 */
    fz_case_values(&c, FIA_SLOT_VALUE, vv, nv);
    memset(lun, 0, 12);
    CHECK(fz_pse_mask_unspecified(&c, &g, un, lun) == FIA_OK);
    marked = 0;
    for (int k = 0; k < 12; k++)
        marked += lun[k] ? 1 << k : 0;
    /* rows (b, n, i) at (b * 2 + n) * 3 + i: batch 1's rows 0 and 2 */
    CHECK_EQ_INT(marked, (1 << 1) | (1 << 4) | (1 << 6) | (1 << 8) |
                             (1 << 9) | (1 << 11));
    /* the same rows of its left-padded form (keys and mask at the physical
     * positions; mode 0's band folded into the mask) */
    fia_case pp;
    fz_geom gp;
    CHECK(fia_case_copy(&pp, &c) == FIA_OK);
    CHECK(fz_pad_case(&c, &g, 2, 3, 1, 0, &pp, &err) == FIA_OK);
    CHECK(fz_geom_of_call(&pp, &gp) == 0 && gp.qpad && gp.kvpad);
    uint8_t *un2 = calloc((size_t)(2 * 2 * gp.Q_S * 16), 1);
    uint8_t *lun2 = calloc((size_t)(2 * 2 * gp.Q_S), 1);
    CHECK(fz_pse_mask_unspecified(&pp, &gp, un2, lun2) == FIA_OK);
    int pmarked = 0;
    for (int k = 0; lun2 && k < 12; k++) /* logical row i of (b, n) */
        pmarked += lun2[(k / 3) * gp.Q_S + k % 3] ? 1 << k : 0;
    CHECK_EQ_INT(pmarked, marked);
    free(un2), free(lun2);
    fia_case_free(&pp);
    /* cleaned: the key's values 0, only the keyless rows left */
    CHECK(fz_pse_mask_clean(&c, &g) == FIA_OK);
    vv = ftl_data_of(&c, FIA_SLOT_VALUE, &nv);
    CHECK(vv && vv[(1 * 4 + 2) * 16 + 7] == 0.0 && vv[(1 * 4 + 2) * 16] == 0.0);
    free(vv);
    memset(lun, 0, 12);
    CHECK(fz_pse_mask_unspecified(&c, &g, un, lun) == FIA_OK);
    marked = 0;
    for (int k = 0; k < 12; k++)
        marked += lun[k] ? 1 << k : 0;
    CHECK_EQ_INT(marked, (1 << 1) | (1 << 4));
    free(un), free(lun);
    fia_case_free(&c);
}

/* pse-mask= at Q_S = 1 and with a mask of batch 1 under mode 1. */
static void test_pse_mask_other(void)
{
    fia_case c = ftl_parse(
        "input_layout = BSH\nnum_heads = 1\nquery = bf16 [2,1,16]\n"
        "key = bf16 [2,3,16]\nvalue = bf16 [2,3,16]\n"
        "atten_mask = bool [2,1,1,3]\natten_mask.values = 1,0,0, 0,0,1\n");
    fia_case p;
    fia_error err;
    CHECK(fuzz_meta_transform(&c, "pse-mask=1", &p, &err) == FIA_OK);
    const fia_tensor *t = &p.tensors[FIA_SLOT_PSE_SHIFT].t[0];
    CHECK(t->shape[0] == 2 && t->shape[2] == 1 && t->shape[3] == 3);
    int64_t n;
    double *v = ftl_data_of(&p, FIA_SLOT_PSE_SHIFT, &n);
    static const double want[6] = {-INFINITY, 0, 0, 0, 0, -INFINITY};
    int wrong = 0;
    for (int k = 0; v && k < 6; k++)
        wrong += v[k] != want[k];
    CHECK(n == 6 && wrong == 0);
    free(v);
    CHECK(p.tensors[FIA_SLOT_ATTEN_MASK].presence == FIA_ABSENT);
    CHECK(valid(&p));
    fia_case_free(&p);
    fia_case_free(&c);

    c = ftl_parse("input_layout = BSND\nnum_heads = 1\nquery = fp16 [2,3,1,16]\n"
              "key = fp16 [2,2,1,16]\nvalue = fp16 [2,2,1,16]\n"
              "sparse_mode = 1\natten_mask = bool [16,32]\n"
              "atten_mask.gen = random(0.5)\n");
    CHECK(fuzz_meta_transform(&c, "pse-mask=1", &p, &err) == FIA_OK);
    t = &p.tensors[FIA_SLOT_PSE_SHIFT].t[0];
    CHECK(t->shape[0] == 1 && t->shape[2] == 3 && t->shape[3] == 2);
    CHECK(p.attrs.sparse_mode == 0 && p.attr_given[FIA_ATTR_SPARSE_MODE]);
    CHECK(valid(&p));
    fia_case_free(&p);
    /* modes 2-4 have no full mask */
    c.attrs.sparse_mode = 3;
    fz_geom g;
    CHECK(fz_geom_of(&c, &g) == 0 && !fz_pse_applies(&c, &g, 1));
    CHECK(fuzz_meta_transform(&c, "pse-mask=1", &p, &err) ==
          FIA_ERR_BAD_INPUT);
    fia_case_free(&c);
}

static double one_fn(void *ctx, int64_t b, int64_t n, int64_t i, int64_t j)
{
    (void)ctx, (void)b, (void)n, (void)i, (void)j;
    return 1.0;
}

/* A numeric pse follows the status table (shape, dtype, D % 16 at Q_S =
 * 1) and holds one value wherever no row reads (0 when a read position
 * holds it too, as a constant). */
static int pse_case_ok(const fia_case *c, const fz_geom *g, int *unread_kind)
{
    const fia_tensor *t = &c->tensors[FIA_SLOT_PSE_SHIFT].t[0];
    /* the query's dtype; fp16 beside an int8 query (full int8) */
    const fia_dtype qdt = c->tensors[FIA_SLOT_QUERY].t[0].dtype ==
                                  FIA_DT_INT8
                              ? FIA_DT_FP16
                              : c->tensors[FIA_SLOT_QUERY].t[0].dtype;
    int bad = t->ndim != 4 || t->dtype != qdt ||
              (t->shape[0] != 1 && t->shape[0] != g->B) || t->shape[1] != g->N ||
              t->shape[3] < g->P + g->KV_S ||
              (g->Q_S == 1 ? t->shape[2] != 1 || g->D % 16 != 0
                           : t->shape[2] < g->Q_S);
    if (bad || c->tensors[FIA_SLOT_PSE_SHIFT].gen.kind != FIA_GEN_VALUES)
        return bad;
    double *read = NULL, *v = NULL;
    int64_t n;
    const int64_t sh[4] = {t->shape[0], t->shape[1], t->shape[2], t->shape[3]};
    if (fz_pse_values(c, g, sh, one_fn, NULL, 0.0, &read) != FIA_OK ||
        fz_slot_data(c, FIA_SLOT_PSE_SHIFT, &v, &n, NULL) != FIA_OK) {
        free(read);
        return 1;
    }
    double un = NAN;
    int first = 1;
    for (int64_t k = 0; k < n; k++) {
        if (read[k] != 0.0)
            continue;
        if (first)
            un = v[k], first = 0;
        bad += !(v[k] == un || (isnan(v[k]) && isnan(un)));
    }
    if (!first)
        *unread_kind = isnan(un) ? 1 : isinf(un) ? 2 : 3;
    free(read), free(v);
    return bad;
}

/* The decoders: fuzz_numeric's pse of each kind on every kind of case;
 * pse-zero= and pse-mask= picks that apply; fuzz_params' valid pse calls
 * with padding, page tables and lists. */
static void test_decoders(void)
{
    fuzz_rng r = {313};
    uint8_t buf[512];
    int n = check_draws(6000), with = 0, b1 = 0, padded_dims = 0, padding = 0, prefix = 0,
        paged = 0, list = 0, decode = 0, neginf = 0, row_neginf = 0,
        constant = 0, unread[4] = {0}, broken = 0, invalid = 0, masked_nan = 0;
    for (int k = 0; k < n; k++) {
        fia_case c;
        fuzz_decode_numeric(buf, ftl_random_input(&r, buf, 64, sizeof buf), &c);
        const fia_tensor_spec *ps = &c.tensors[FIA_SLOT_PSE_SHIFT];
        fz_geom g;
        if (ps->presence == FIA_PRESENT && fz_geom_of_call(&c, &g) == 0) {
            const fia_tensor *t = &ps->t[0];
            with++;
            b1 += t->shape[0] == 1 && g.B > 1;
            padded_dims += t->shape[3] > g.P + g.KV_S ||
                           (g.Q_S > 1 && t->shape[2] > g.Q_S);
            padding += g.qpad || g.kvpad;
            prefix += g.P > 0;
            paged += g.paged;
            list += g.list;
            decode += g.Q_S == 1;
            constant += ps->gen.kind == FIA_GEN_CONST;
            int kind = 0;
            broken += pse_case_ok(&c, &g, &kind);
            unread[kind]++;
            invalid += !valid(&c);
            int64_t m;
            double *v = ps->gen.kind == FIA_GEN_VALUES
                            ? ftl_data_of(&c, FIA_SLOT_PSE_SHIFT, &m) : NULL;
            const int64_t cols = t->shape[3];
            int ninf = 0, full_row = 0, nan = 0;
            for (int64_t row = 0; v && row < m / cols; row++) {
                int64_t inf = 0;
                for (int64_t j = 0; j < cols; j++) {
                    inf += v[row * cols + j] == -INFINITY;
                    nan += isnan(v[row * cols + j]) != 0;
                }
                ninf |= inf > 0;
                full_row |= inf > 0 && inf >= g.P + fz_kv_len(&c, &g, 0) &&
                            inf < cols;
            }
            neginf += ninf;
            row_neginf += full_row;
            masked_nan += nan > 0 && kind != 1;
            free(v);
        }
        fia_case_free(&c);
    }
    printf("fuzz_numeric: %d of %d with pse (batch 1 %d, padded dims %d; with "
           "left padding %d, a prefix %d, a page table %d, a list %d, decode "
           "%d; -inf %d, a row of -inf %d, constant %d; unread NaN %d, inf "
           "%d, other %d; NaN at masked keys %d)\n", with, n, b1, padded_dims,
           padding, prefix, paged, list, decode, neginf, row_neginf, constant,
           unread[1], unread[2], unread[3], masked_nan);
    CHECK_COUNT(with > n / 15);
    CHECK_COUNT(b1 > n / 100 && padded_dims > n / 100 && decode > n / 100);
    CHECK_COUNT(padding > 10 && prefix > 5 && paged > 10 && list > 5);
    CHECK_COUNT(neginf > n / 100 && row_neginf > 10 && constant > 10);
    CHECK_COUNT(unread[1] > 10 && unread[2] > 10 && masked_nan > 3);
    CHECK_EQ_INT(broken, 0);
    CHECK_EQ_INT(invalid, 0);

    int zero = 0, mask = 0, applied = 0, draws = check_draws(1500);
    for (int k = 0; k < draws; k++) {
        fia_case c, p;
        char t[64];
        fuzz_decode_metamorphic(buf, ftl_random_input(&r, buf, 64, sizeof buf), &c,
                                t, sizeof t);
        const int z = strncmp(t, "pse-zero=", 9) == 0;
        const int m = strncmp(t, "pse-mask=", 9) == 0;
        zero += z, mask += m;
        if ((z || m) && fuzz_meta_transform(&c, t, &p, NULL) == FIA_OK) {
            applied += valid(&p);
            fia_case_free(&p);
        }
        fia_case_free(&c);
    }
    printf("metamorphic: %d pse-zero=, %d pse-mask= of %d, %d applied\n",
           zero, mask, draws, applied);
    CHECK_COUNT(zero > draws / 60 && mask > draws / 60);
    CHECK(applied == zero + mask);

    int given = 0, ok = 0, pad = 0, pg = 0, ls = 0, pre = 0;
    for (int k = 0; k < check_draws(20000); k++) {
        fia_case c;
        fuzz_decode_params(buf, ftl_random_input(&r, buf, 32, sizeof buf), &c);
        if (c.tensors[FIA_SLOT_PSE_SHIFT].presence == FIA_PRESENT) {
            given++;
            fia_oracle_verdict v;
            fia_oracle_evaluate(&c, FIA_PROFILE_DOC, &v, NULL);
            /* valid: accepted, or refused by NM-008 alone (a decode call
             * with a prefix) */
            const int nm = ftl_valid_or(&v, "NM-008");
            if (nm) {
                fz_geom g;
                const int geo = fz_geom_of_call(&c, &g) == 0;
                ok++;
                pad += geo && (g.qpad || g.kvpad);
                pg += geo && g.paged;
                ls += geo && g.list;
                pre += c.tensors[FIA_SLOT_KEY_SHARED_PREFIX].presence ==
                       FIA_PRESENT;
            }
        }
        fia_case_free(&c);
    }
    printf("fuzz_params: %d with pse, %d valid (left padding "
           "%d, page table %d, list %d, prefix %d)\n", given, ok, pad, pg, ls,
           pre);
    CHECK_COUNT(ok > given / 5 && pad > 10 && pg > 10 && ls > 3 && pre > 3);
}

int main(void)
{
    test_padded_places();
    test_prefix_places();
    test_pse_zero();
    test_pse_mask_prefill();
    test_pse_mask_other();
    test_decoders();
    return check_summary();
}
