/* The shared prefix in fuzz/ (docs/features/prefix.md): fz_prefix_case
 * moves every batch's first P key/value rows into the prefix tensors (rows
 * past P and own rows past KV_S - P NaN), shifts the own rows and the
 * lengths, keeps the mask's and pse's columns (widened to P + KV_S');
 * fz_prefix_share makes the relation's base; the geometry reads P and the
 * signature counts the prefix's keys; the reference's work counts them;
 * fuzz_numeric gains or moves prefixes (reach plans included), the
 * metamorphic target asks for prefix=, fuzz_params makes valid prefix
 * calls.  The kernels are not run: the transforms are checked on the
 * cases they build. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/check.h"
#include "fia/fast.h"
#include "fia/ref.h"
#include "fuzz/fuzz.h"
#include "fuzz/gen.h"
#include "fuzz/signature.h"
#include "fuzz_testlib.h"

static int same(double x, double y)
{
    return x == y || (isnan(x) && isnan(y));
}

/* 1 when the oracle accepts c. */
static int valid(const fia_case *c)
{
    fia_oracle_verdict v;
    return fia_oracle_evaluate(c, FIA_PROFILE_DOC, &v, NULL) == FIA_OK &&
           v.accept;
}

/* The relation's form: a BSND prefill case with GQA, ragged lengths, a
 * batched mode-0 mask with a band and a pse; the batches share their first
 * 2 rows (fz_prefix_share), which move into a prefix of 2 + 2 rows, the
 * own rows shifted into 6 - 2 + 1 rows. */
static void test_relation_form(void)
{
    fia_case c = ftl_parse(
        "input_layout = BSND\nnum_heads = 2\nnum_key_value_heads = 1\n"
        "query = fp16 [2,4,2,16]\nkey = fp16 [2,6,1,16]\nvalue = fp16 [2,6,1,16]\n"
        "actual_seq_lengths_kv = [5,4]\n"
        "atten_mask = bool [2,4,6]\natten_mask.gen = random(0.3)\n"
        "pse_shift = fp16 [1,2,4,6]\n"
        "pre_tokens = 1\nnext_tokens = 2\nsoftmax_lse_flag = true\nseed = 7\n");
    fz_geom g, gp;
    fia_error err;
    CHECK(fz_geom_of(&c, &g) == 0 && g.P == 0);
    CHECK(fz_prefix_applies(&c, &g, 4) && !fz_prefix_applies(&c, &g, 5));
    fia_case p;
    /* the base's rows differ: no equivalent form */
    CHECK(fia_case_copy(&p, &c) == FIA_OK);
    CHECK(fz_prefix_case(&c, &g, 2, 0, 1, &p, &err) == FIA_ERR_BAD_INPUT);
    fia_case_free(&p);
    CHECK(fz_prefix_share(&c, &g, 2) == FIA_OK);
    CHECK(fia_case_copy(&p, &c) == FIA_OK);
    /* S_p 2 more rows (bits 1-2), one own extra row (bits 3-4) */
    CHECK(fz_prefix_case(&c, &g, 2, (2 << 1) | (1 << 3), 1, &p, &err) ==
          FIA_OK);
    CHECK(fz_geom_of(&p, &gp) == 0);
    CHECK_EQ_INT(gp.P, 2);
    CHECK_EQ_INT(gp.KV_S, 5);
    const fia_tensor *kp = &p.tensors[FIA_SLOT_KEY_SHARED_PREFIX].t[0];
    CHECK(kp->ndim == 4 && kp->shape[0] == 1 && kp->shape[1] == 4 &&
          kp->shape[2] == 1 && kp->shape[3] == 16 && kp->dtype == FIA_DT_FP16);
    const fia_int_array_spec *pl = &p.arrays[FIA_ARR_ACTUAL_SHARED_PREFIX_LEN];
    CHECK(pl->presence == FIA_PRESENT && pl->count == 1 && pl->values[0] == 2);
    const fia_int_array_spec *kl = &p.arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    CHECK(kl->count == 2 && kl->values[0] == 3 && kl->values[1] == 2);
    for (int t = 0; t < 2; t++) {
        const fia_slot s = t ? FIA_SLOT_VALUE : FIA_SLOT_KEY;
        const fia_slot ps = t ? FIA_SLOT_VALUE_SHARED_PREFIX
                              : FIA_SLOT_KEY_SHARED_PREFIX;
        int64_t n0, n1, n2, wrong = 0, nan = 0;
        double *a = ftl_data_of(&c, s, &n0), *own = ftl_data_of(&p, s, &n1);
        double *pre = ftl_data_of(&p, ps, &n2);
        CHECK_EQ_INT(n1, 2 * 5 * 16);
        CHECK_EQ_INT(n2, 4 * 16);
        for (int64_t j = 0; a && pre && j < 4; j++)
            for (int64_t d = 0; d < 16; d++) {
                double y = pre[j * 16 + d];
                wrong += j < 2 ? !same(a[j * 16 + d], y) : !isnan(y);
            }
        for (int64_t b = 0; a && own && b < 2; b++)
            for (int64_t j = 0; j < 5; j++)
                for (int64_t d = 0; d < 16; d++) {
                    double y = own[(b * 5 + j) * 16 + d];
                    nan += isnan(y) != 0;
                    wrong += j < 4 ? !same(a[(b * 6 + 2 + j) * 16 + d], y)
                                   : !isnan(y);
                }
        CHECK_EQ_INT(wrong, 0);
        CHECK_EQ_INT(nan, 2 * 16); /* the own extra row only */
        free(a), free(own), free(pre);
    }
    /* the mask's and the pse's columns as they were, widened to P + 5 */
    int64_t n0, n1, wrong = 0;
    double *m0 = ftl_data_of(&c, FIA_SLOT_ATTEN_MASK, &n0);
    double *m1 = ftl_data_of(&p, FIA_SLOT_ATTEN_MASK, &n1);
    CHECK_EQ_INT(n1, 2 * 4 * 7);
    for (int64_t r = 0; m0 && m1 && r < 8; r++)
        for (int64_t j = 0; j < 7; j++)
            wrong += m1[r * 7 + j] != (j < 6 ? m0[r * 6 + j] : 1.0);
    CHECK_EQ_INT(wrong, 0);
    free(m0), free(m1);
    double *s0 = ftl_data_of(&c, FIA_SLOT_PSE_SHIFT, &n0);
    double *s1 = ftl_data_of(&p, FIA_SLOT_PSE_SHIFT, &n1);
    wrong = 0;
    for (int64_t r = 0; s0 && s1 && r < 8; r++)
        for (int64_t j = 0; j < 7; j++)
            wrong += !same(s1[r * 7 + j], j < 6 ? s0[r * 6 + j] : NAN);
    CHECK_EQ_INT(wrong, 0);
    free(s0), free(s1);
    CHECK(p.attrs.pre_tokens == 1 && p.attrs.next_tokens == 2);
    /* the outputs do not move */
    fz_geom gc;
    CHECK(fz_geom_of_call(&p, &gc) == 0 && gc.P == 2);
    CHECK_EQ_INT(fz_out_index(&p, &gc, 1, 1, 3, 12),
                 fz_out_index(&c, &g, 1, 1, 3, 12));
    CHECK(valid(&p));
    fia_case_free(&p);
    /* the transform's text */
    CHECK(fuzz_meta_transform(&c, "prefix=2,0", &p, &err) == FIA_OK);
    CHECK(p.arrays[FIA_ARR_ACTUAL_SHARED_PREFIX_LEN].presence == FIA_ABSENT);
    CHECK(p.tensors[FIA_SLOT_KEY].t[0].shape[1] == 4);
    fia_case_free(&p);
    CHECK(fuzz_meta_transform(&c, "prefix=0,0", &p, &err) == FIA_ERR_BAD_INPUT);
    CHECK(fuzz_meta_transform(&c, "prefix=5,0", &p, &err) == FIA_ERR_BAD_INPUT);
    fia_case_free(&c);
}

/* Decode, BNSD, every key in the prefix (own KV_S' 0, lengths 0: the
 * batches still read P keys); a mask, padding or a page table: none. */
static void test_decode_all_keys(void)
{
    fia_case c = ftl_parse(
        "input_layout = BNSD\nnum_heads = 2\nquery = bf16 [1,2,1,16]\n"
        "key = bf16 [1,2,5,16]\nvalue = bf16 [1,2,5,16]\nseed = 3\n");
    fz_geom g, gp;
    fia_error err;
    CHECK(fz_geom_of(&c, &g) == 0);
    fia_case p;
    CHECK(fia_case_copy(&p, &c) == FIA_OK);
    CHECK(fz_prefix_case(&c, &g, 5, 1 | (1 << 5), 1, &p, &err) == FIA_OK);
    CHECK(fz_geom_of(&p, &gp) == 0 && gp.P == 5 && gp.KV_S == 0);
    const fia_tensor *kp = &p.tensors[FIA_SLOT_KEY_SHARED_PREFIX].t[0];
    CHECK(kp->shape[0] == 1 && kp->shape[1] == 2 && kp->shape[2] == 5);
    CHECK(p.arrays[FIA_ARR_ACTUAL_SHARED_PREFIX_LEN].values[0] == 5);
    CHECK(p.arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV].values[0] == 0);
    int64_t n0, n1, wrong = 0;
    double *a = ftl_data_of(&c, FIA_SLOT_VALUE, &n0);
    double *b = ftl_data_of(&p, FIA_SLOT_VALUE_SHARED_PREFIX, &n1);
    for (int64_t k = 0; a && b && k < n0; k++)
        wrong += !same(a[k], b[k]); /* BNSD of batch 1: the same order */
    CHECK(n0 == n1 && wrong == 0);
    free(a), free(b);
    CHECK(valid(&p));
    fia_case_free(&p);

    fia_case m = ftl_parse(
        "input_layout = BSH\nnum_heads = 1\nquery = fp16 [2,1,16]\n"
        "key = fp16 [2,5,16]\nvalue = fp16 [2,5,16]\n"
        "atten_mask = bool [2,5]\n");
    CHECK(fz_geom_of(&m, &g) == 0);
    CHECK(!fz_prefix_applies(&m, &g, 1)); /* decode with a mask */
    fz_case_absent(&m, FIA_SLOT_ATTEN_MASK);
    CHECK(fz_prefix_applies(&m, &g, 1));
    int64_t one = 1;
    CHECK(fz_case_tensor(&m, FIA_SLOT_KV_PADDING_SIZE, FIA_DT_INT64, 1, &one) ==
          FIA_OK);
    CHECK(!fz_prefix_applies(&m, &g, 1));
    fz_case_absent(&m, FIA_SLOT_KV_PADDING_SIZE);
    CHECK(fz_case_tensor(&m, FIA_SLOT_BLOCK_TABLE, FIA_DT_INT32, 1, &one) ==
          FIA_OK);
    CHECK(!fz_prefix_applies(&m, &g, 1));
    fia_case_free(&m);
    fia_case_free(&c);
}

/* fuzz_numeric's moved prefix: one batch's rows (src from the seed), the
 * others' own rows shifted; the lengths written out. */
static void test_moved(void)
{
    fia_case c = ftl_parse(
        "input_layout = BSH\nnum_heads = 1\nquery = fp16 [3,2,16]\n"
        "key = fp16 [3,4,16]\nvalue = fp16 [3,4,16]\nseed = 5\n");
    fz_geom g;
    fia_error err;
    CHECK(fz_geom_of(&c, &g) == 0);
    fia_case p;
    CHECK(fia_case_copy(&p, &c) == FIA_OK);
    CHECK(fz_prefix_case(&c, &g, 1, (2u << 8) | (1 << 5), 0, &p, &err) ==
          FIA_OK);
    int64_t n0, n1;
    double *a = ftl_data_of(&c, FIA_SLOT_KEY, &n0);
    double *b = ftl_data_of(&p, FIA_SLOT_KEY_SHARED_PREFIX, &n1);
    int wrong = 0;
    for (int64_t d = 0; a && b && d < 16; d++)
        wrong += !same(b[d], a[(2 * 4 + 0) * 16 + d]); /* batch 2's row 0 */
    CHECK(n1 == 16 && wrong == 0);
    free(a), free(b);
    const fia_int_array_spec *kl = &p.arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    CHECK(kl->count == 3 && kl->values[2] == 3);
    CHECK(valid(&p));
    fia_case_free(&p);
    fia_case_free(&c);
}

/* The reference's work counts the prefix's keys; the signature counts them
 * too (a batch of no own keys with a prefix has rows to get wrong). */
static void test_work_and_signature(void)
{
    fia_case c = ftl_parse(
        "input_layout = BNSD\nnum_heads = 2\nquery = fp16 [2,2,4,16]\n"
        "key = fp16 [2,2,6,16]\nvalue = fp16 [2,2,6,16]\n"
        "key_shared_prefix = fp16 [1,2,10,16]\n"
        "value_shared_prefix = fp16 [1,2,10,16]\n"
        "actual_seq_lengths_kv = [0]\n");
    const double out = 2.0 * 2 * 4 * 16;
    CHECK_NEAR(fia_check_reference_work(&c), 2 * out * (1 + 10), 0);
    int64_t len = 3;
    CHECK(fz_case_array(&c, FIA_ARR_ACTUAL_SHARED_PREFIX_LEN, 1, &len) == FIA_OK);
    CHECK_NEAR(fia_check_reference_work(&c), 2 * out * (1 + 3), 0);
    len = 99; /* past S_p: read as S_p */
    CHECK(fz_case_array(&c, FIA_ARR_ACTUAL_SHARED_PREFIX_LEN, 1, &len) == FIA_OK);
    CHECK_NEAR(fia_check_reference_work(&c), 2 * out * (1 + 10), 0);
    len = 3;
    CHECK(fz_case_array(&c, FIA_ARR_ACTUAL_SHARED_PREFIX_LEN, 1, &len) == FIA_OK);
    fz_geom g;
    CHECK(fz_geom_of_call(&c, &g) == 0 && g.P == 3);
    char fs[128];
    fuzz_feature_set(&c, fs, sizeof fs);
    CHECK_MSG(strstr(fs, "+prefix") != NULL, "%s", fs);
    /* batch 1's rows fail, batch 0's do not: with P counted every row has
     * keys, and the failures are confined to batch > 0 */
    static fia_check_result r;
    memset(&r, 0, sizeof r);
    r.v = FIA_V_ACCURACY;
    r.computed = 1;
    r.out_fail = calloc((size_t)(2 * 2 * 4 * 16), 1);
    if (r.out_fail != NULL)
        memset(r.out_fail + 2 * 4 * 16, FIA_FAIL_FAR, 2 * 4 * 16);
    char sig[FUZZ_SIGNATURE_LEN];
    fuzz_signature(&c, &r, FIA_PROFILE_DOC, sig, sizeof sig);
    CHECK_MSG(strstr(sig, "|batch>0") != NULL, "%s", sig);
    fia_check_result_release(&r);
    fia_case_free(&c);
}

/* 1 when every element of row j of head 0 of x ([B, H, S, D] in l) is
 * not finite: the rows the generators poison (D >= 2; one element is a
 * -inf key that takes part). */
static int poisoned(const double *x, fz_layout l, int64_t B, int64_t H,
                    int64_t S, int64_t D, int64_t b, int64_t j)
{
    int all = D >= 2;
    for (int64_t d = 0; all && d < D; d++)
        all = !isfinite(x[fz_index(l, B, H, S, D, b, 0, j, d)]);
    return all;
}

/* A prefixed numeric case keeps the status table's rules: contiguous, no
 * padding, no mask at Q_S = 1, a full mask P + KV_S wide, the prefix's
 * rows past P NaN, poisoned own keys masked in every row at column P + j,
 * poisoned prefix keys masked in every row at column j.  Returns the
 * number of broken rules. */
static int prefix_case_ok(const fia_case *c, const fz_geom *g)
{
    int bad = 0;
    const fia_tensor_spec *ms = &c->tensors[FIA_SLOT_ATTEN_MASK];
    const int mask = ms->presence == FIA_PRESENT &&
                     fia_tensor_numel(&ms->t[0]) > 0;
    bad += g->paged || g->list || g->qpad || g->kvpad;
    bad += c->tensors[FIA_SLOT_QUERY_PADDING_SIZE].presence != FIA_ABSENT ||
           c->tensors[FIA_SLOT_KV_PADDING_SIZE].presence != FIA_ABSENT;
    bad += g->Q_S == 1 && mask;
    const int full = mask && g->Q_S > 1 && c->attrs.sparse_mode <= 1;
    const fia_tensor *mt = mask ? &ms->t[0] : NULL;
    const int64_t cols = mask ? mt->shape[mt->ndim - 1] : 0;
    const int64_t mrows = mask ? mt->shape[mt->ndim - 2] : 0;
    const int64_t bdim = mask && mt->ndim > 2 ? mt->shape[0] : 1;
    bad += full && cols < g->P + g->KV_S;
    const fz_layout l = g->layout == FZ_BNSD_BSND ? FZ_BNSD : g->layout;
    int64_t n, nk, nm = 0;
    double *kp = ftl_data_of(c, FIA_SLOT_KEY_SHARED_PREFIX, &n);
    double *k = ftl_data_of(c, FIA_SLOT_KEY, &nk);
    double *m = full ? ftl_data_of(c, FIA_SLOT_ATTEN_MASK, &nm) : NULL;
    const int64_t S_p = n / (g->KV_N * g->D);
    for (int64_t j = 0; kp && j < S_p; j++)
        for (int64_t d = 0; d < g->D; d++)
            bad += j >= g->P &&
                   !isnan(kp[fz_index(l, 1, g->KV_N, S_p, g->D, 0, 0, j, d)]);
    /* poisoned keys (prefix key j at column j, own key j at P + j) masked
     * in every row of every batch reading them */
    for (int64_t b = 0; kp && k && b < g->B; b++) {
        const int64_t kl = fz_kv_len(c, g, b);
        for (int64_t j = 0; j < g->P + kl; j++) {
            const int pz = j < g->P
                               ? poisoned(kp, l, 1, g->KV_N, S_p, g->D, 0, j)
                               : poisoned(k, l, g->B, g->KV_N, g->KV_S, g->D,
                                          b, j - g->P);
            if (pz && !full) {
                bad++;
                continue;
            }
            for (int64_t r = 0; pz && r < fz_q_len(c, g, b); r++)
                bad += m[((bdim == 1 ? 0 : b) * mrows + r) * cols + j] == 0;
        }
    }
    free(kp), free(k), free(m);
    return bad;
}

/* The decoders: fuzz_numeric's prefixes of each kind and on the reach
 * plans' paths within the budget; prefix= forms that apply; fuzz_params'
 * valid prefix calls and exclusions. */
static void test_decoders(void)
{
    fast_path_thresholds th;
    fastPathThresholds(&th);
    fuzz_rng r = {91};
    uint8_t buf[512];
    int n = check_draws(6000), prefixed = 0, lens[4] = {0}, widened = 0,
        split = 0, past = 0, broken = 0, invalid = 0, zero_own = 0;
    double worst = 0;
    for (int k = 0; k < n; k++) {
        fia_case c;
        fuzz_decode_numeric(buf, ftl_random_input(&r, buf, 64, sizeof buf), &c);
        fz_geom g;
        /* the budget of its kind (an MLA case's is its own) */
        const double w = fia_check_reference_work(&c) / fz_work_limit(&c) *
                         FZ_NUM_MAX_WORK;
        worst = w > worst ? w : worst;
        if (c.tensors[FIA_SLOT_KEY_SHARED_PREFIX].presence == FIA_PRESENT &&
            fz_geom_of(&c, &g) == 0) {
            prefixed++;
            const fia_int_array_spec *pl =
                &c.arrays[FIA_ARR_ACTUAL_SHARED_PREFIX_LEN];
            const int64_t S_p = c.tensors[FIA_SLOT_KEY_SHARED_PREFIX]
                                    .t[0].shape[g.layout == FZ_BSH ||
                                                g.layout == FZ_BSND ? 1 : 2];
            lens[pl->presence != FIA_PRESENT ? 0
                 : g.P == 0                  ? 3
                 : g.P == S_p                ? 1 : 2]++;
            const fia_tensor_spec *ms = &c.tensors[FIA_SLOT_ATTEN_MASK];
            widened += g.Q_S > 1 && ms->presence == FIA_PRESENT &&
                       c.attrs.sparse_mode <= 1 && g.P > 0;
            int64_t most = 0;
            for (int64_t b = 0; b < g.B; b++) {
                int64_t kl = fz_kv_len(&c, &g, b);
                most = kl > most ? kl : most;
                zero_own += kl == 0 && g.P > 0;
            }
            split += g.Q_S == 1 && c.threads > 1 &&
                     g.P + most >= th.split_min_keys && g.P >= th.key_block;
            past += g.Q_S > 1 && g.P + most > th.key_block && g.P > 0;
            broken += prefix_case_ok(&c, &g);
            invalid += !valid(&c);
        }
        fia_case_free(&c);
    }
    printf("fuzz_numeric: %d of %d prefixed (length absent %d, S_p %d, "
           "shorter %d, 0 %d; mask widened %d; batches of no own key %d; "
           "decode split with a long prefix %d, prefill past a key block "
           "%d), max work %.3g\n", prefixed, n, lens[0], lens[1], lens[2],
           lens[3], widened, zero_own, split, past, worst);
    CHECK_COUNT(prefixed > n / 20);
    CHECK_COUNT(lens[0] > n / 300 && lens[1] > n / 300 &&
                lens[2] > n / 300 && lens[3] > n / 600);
    CHECK_COUNT(widened > n / 300 && zero_own > 5);
    CHECK_COUNT(split > 5 && past > n / 300);
    CHECK_EQ_INT(broken, 0);
    CHECK_EQ_INT(invalid, 0);
    CHECK(worst <= FZ_NUM_MAX_WORK);

    int picks = 0, applied = 0, draws = check_draws(1500);
    for (int k = 0; k < draws; k++) {
        fia_case c, p;
        char t[64];
        fuzz_decode_metamorphic(buf, ftl_random_input(&r, buf, 64, sizeof buf), &c,
                                t, sizeof t);
        if (strncmp(t, "prefix=", 7) == 0) {
            picks++;
            /* applies only when the base's batches share their rows */
            if (fuzz_meta_transform(&c, t, &p, NULL) == FIA_OK) {
                applied += valid(&p);
                fia_case_free(&p);
            }
        }
        fia_case_free(&c);
    }
    printf("metamorphic: %d prefix= of %d, %d applied\n", picks, draws, applied);
    CHECK_COUNT(picks > draws / 40);
    CHECK(applied == picks);

    /* params: valid prefix calls (with mask and pse widened), and the
     * exclusions with page tables, lists and padding */
    int given = 0, ok = 0, with_mask = 0, paged = 0, list = 0, pad = 0;
    for (int k = 0; k < check_draws(20000); k++) {
        fia_case c;
        fuzz_decode_params(buf, ftl_random_input(&r, buf, 32, sizeof buf), &c);
        if (c.tensors[FIA_SLOT_KEY_SHARED_PREFIX].presence == FIA_PRESENT) {
            given++;
            fia_oracle_verdict v;
            fia_oracle_evaluate(&c, FIA_PROFILE_DOC, &v, NULL);
            /* valid: accepted, or refused by NM-008 alone (a decode call
             * with a mask or a pse) */
            const int good = ftl_valid_or(&v, "NM-008");
            ok += good;
            with_mask += good && c.tensors[FIA_SLOT_ATTEN_MASK].presence ==
                                     FIA_PRESENT;
            paged += c.tensors[FIA_SLOT_BLOCK_TABLE].presence == FIA_PRESENT;
            list += c.tensors[FIA_SLOT_KEY].count > 1;
            pad += c.tensors[FIA_SLOT_KV_PADDING_SIZE].presence ==
                       FIA_PRESENT ||
                   c.tensors[FIA_SLOT_QUERY_PADDING_SIZE].presence ==
                       FIA_PRESENT;
        }
        fia_case_free(&c);
    }
    printf("fuzz_params: %d with a prefix, %d valid (%d with a mask), with "
           "a page table %d, a list %d, padding %d\n", given,
           ok, with_mask, paged, list, pad);
    CHECK_COUNT(ok > given / 10 && with_mask > 20);
    CHECK_COUNT(paged > 10 && list > 5 && pad > 10);
}

/* The reference's outputs of c; FIA_OK or its status. */
static fia_status ref_of(const fia_case *c, fia_ref_result *r)
{
    fia_case_data d;
    fia_ref_options o;
    fia_ref_options_default(&o);
    memset(r, 0, sizeof *r);
    fia_status st = fia_case_materialize(c, 1, &d, NULL);
    if (st != FIA_OK)
        return st;
    st = fia_ref_compute(c, &d, &o, r, NULL);
    fia_case_data_free(&d);
    return st;
}

/* The number of elements where two results differ: the same unspecified
 * elements, the same exact values elsewhere (NaN equal to NaN). */
static int64_t results_differ(const fia_ref_result *a, const fia_ref_result *b,
                              int64_t *compared)
{
    int64_t bad = a->out_numel != b->out_numel || a->has_lse != b->has_lse;
    for (int64_t k = 0; !bad && k < a->out_numel; k++) {
        bad += a->out_unspecified[k] != b->out_unspecified[k];
        if (!a->out_unspecified[k]) {
            bad += !same(a->out_exact[k], b->out_exact[k]);
            (*compared)++;
        }
    }
    for (int64_t k = 0; !bad && a->has_lse && k < a->lse_numel; k++) {
        bad += a->lse_unspecified[k] != b->lse_unspecified[k];
        if (!a->lse_unspecified[k])
            bad += !same(a->lse_exact[k], b->lse_exact[k]);
    }
    return bad;
}

/* The relation's two forms are one problem: the reference (which computes
 * the prefix) gives both the same exact outputs, the same unspecified
 * elements.  fast/ does not compute the prefix yet: this is the relation
 * checked on the reading, independently of the kernels. */
static void test_relation_by_reference(void)
{
    fuzz_rng r = {4242};
    uint8_t buf[512];
    int forms = 0, both = 0, differ = 0;
    int64_t compared = 0;
    for (int k = 0; k < 3000 && forms < check_draws(60); k++) {
        fia_case c, p;
        char t[64];
        fuzz_decode_metamorphic(buf, ftl_random_input(&r, buf, 64, sizeof buf), &c,
                                t, sizeof t);
        if (strncmp(t, "prefix=", 7) != 0 ||
            fia_check_reference_work(&c) > 2e5 ||
            fuzz_meta_transform(&c, t, &p, NULL) != FIA_OK) {
            fia_case_free(&c);
            continue;
        }
        forms++;
        static fia_ref_result ra, rb;
        if (ref_of(&c, &ra) == FIA_OK && ref_of(&p, &rb) == FIA_OK) {
            both++;
            int64_t d = results_differ(&ra, &rb, &compared);
            differ += d != 0;
            if (d != 0 && getenv("FIA_SHOW_DIFF"))
                printf("%s differs:\n%s", t, fia_case_to_string(&c));
        }
        fia_ref_result_free(&ra);
        fia_ref_result_free(&rb);
        fia_case_free(&p);
        fia_case_free(&c);
    }
    printf("prefix= by the reference: %d forms, %d computed, %d differ, %lld "
           "elements compared\n", forms, both, differ, (long long)compared);
    CHECK_COUNT(forms >= 30 && compared > 1000);
    CHECK(both >= forms * 9 / 10);
    CHECK_EQ_INT(differ, 0);

    /* fuzz_numeric's prefixed cases (without a pse) are ones the
     * reference reads */
    int cases = 0, computed = 0;
    for (int k = 0; k < 20000 && cases < check_draws(60); k++) {
        fia_case c;
        fuzz_decode_numeric(buf, ftl_random_input(&r, buf, 64, sizeof buf), &c);
        if (c.tensors[FIA_SLOT_KEY_SHARED_PREFIX].presence == FIA_PRESENT &&
            c.tensors[FIA_SLOT_PSE_SHIFT].presence == FIA_ABSENT &&
            fia_check_reference_work(&c) <= 2e5) {
            static fia_ref_result rr;
            cases++;
            computed += ref_of(&c, &rr) == FIA_OK;
            fia_ref_result_free(&rr);
        }
        fia_case_free(&c);
    }
    printf("fuzz_numeric's prefixed cases: %d of %d computed by the "
           "reference\n", computed, cases);
    CHECK_COUNT(cases >= 30);
    CHECK(computed == cases);
}

int main(void)
{
    test_relation_form();
    test_decode_all_keys();
    test_moved();
    test_work_and_signature();
    test_decoders();
    test_relation_by_reference();
    return check_summary();
}
