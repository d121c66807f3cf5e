/* fuzz_numeric's full-int8 cases (fuzz/gen_int8_quant_data.c,
 * docs/features/int8_quant.md): every case with an int8 query is a valid
 * full-int8 one — query, key and value int8, Q_S > 1, D a multiple of 32,
 * a GQA ratio of 64 at most, per-tensor scales of the documented dtypes,
 * an fp16 pse, an fp16 or int8 output whose scales follow int8_out's rules,
 * none of the exclusions (page table, shared prefix, token layout), within
 * the reference's budget, printing and parsing back — and the oracle
 * accepts it (or, before full int8 is computed, refuses it by NM-004
 * alone).  Over many inputs they cover both dequant dtypes, uint64 junk in
 * the high word and in the 13 dropped mantissa bits, both outputs
 * (written and inferred), per-channel scales and offsets, every
 * quant_scale1 kind (typical, saturating, 0, negative, a half), int8 data
 * at both edges and constant key tensors, the features of the other
 * fragments (mask, pse, GQA, lse, lists, left padding, an empty key row,
 * inner_precise, keys past fast/'s key block) and a late maximum: the
 * keys' largest score past the first key block, the first block's a few
 * units below it.  ref/ computes them, few outputs outside its error
 * model, int8 outputs over the whole range, some saturated.  The
 * signature puts them in their own bucket. */
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

static int has(const fia_case *c, fia_slot s)
{
    return c->tensors[s].presence == FIA_PRESENT;
}

static const fia_tensor *t0(const fia_case *c, fia_slot s)
{
    return has(c, s) && c->tensors[s].count >= 1 ? &c->tensors[s].t[0] : NULL;
}

static void show(const fia_case *c, const char *why)
{
    if (getenv("FIA_SHOW_SCENE")) {
        char *t = fia_case_to_string(c);
        fprintf(stderr, "%s:\n%.1500s\n", why, t ? t : "");
        free(t);
    } else {
        fprintf(stderr, "full int8: %s\n", why);
    }
}

/* The one value of a per-tensor scale (0 when it cannot be read). */
static double scalar_of(const fia_case *c, fia_slot s)
{
    int64_t n;
    double *v = ftl_data_of(c, s, &n), x = v != NULL && n == 1 ? v[0] : 0;
    free(v);
    return x;
}

/* A dequant scale as the vendor reads it: a uint64's low word truncated
 * to bits 31..13, an fp32 as it is. */
static double dequant_read(const fia_tensor *t, double x)
{
    if (t->dtype != FIA_DT_UINT64)
        return x;
    const uint32_t bits = (uint32_t)((uint64_t)x & 0xffffe000u);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* What a case is shaped as; NULL when valid. */
static const char *invalid(const fia_case *c, const fz_geom *g, int *o8)
{
    static const fia_slot qkv[3] = {FIA_SLOT_QUERY, FIA_SLOT_KEY,
                                    FIA_SLOT_VALUE};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < c->tensors[qkv[k]].count; i++)
            if (c->tensors[qkv[k]].t[i].dtype != FIA_DT_INT8)
                return "query, key or value not int8";
    if (g->Q_S < 2)
        return "Q_S = 1 (ANTI-027)";
    if (g->D % 32 != 0)
        return "D not a multiple of 32 (Q8-008)";
    if (g->N / g->KV_N > 64)
        return "GQA ratio past 64 (ANTI-028)";
    if (g->paged || g->tnd || g->P > 0 || has(c, FIA_SLOT_KEY_SHARED_PREFIX))
        return "an exclusion (paged, prefix, token layout)";
    static const fia_slot sc[3] = {FIA_SLOT_DEQUANT_SCALE1,
                                   FIA_SLOT_QUANT_SCALE1,
                                   FIA_SLOT_DEQUANT_SCALE2};
    for (int k = 0; k < 3; k++) {
        const fia_tensor *s = t0(c, sc[k]);
        if (s == NULL || s->ndim != 1 || s->shape[0] != 1 ||
            !(s->dtype == FIA_DT_FP32 ||
              (k != 1 && s->dtype == FIA_DT_UINT64)))
            return "a scale not per-tensor uint64 / fp32";
    }
    if (has(c, FIA_SLOT_PSE_SHIFT) &&
        t0(c, FIA_SLOT_PSE_SHIFT)->dtype != FIA_DT_FP16)
        return "pse not fp16";
    fia_tensor out;
    if (fia_case_output(c, FIA_SLOT_ATTENTION_OUT, &out) != FIA_PRESENT)
        return "no output";
    *o8 = out.dtype == FIA_DT_INT8;
    const fia_tensor *q2 = t0(c, FIA_SLOT_QUANT_SCALE2);
    const fia_tensor *o2 = t0(c, FIA_SLOT_QUANT_OFFSET2);
    if (!*o8)
        return out.dtype != FIA_DT_FP16 ? "output neither fp16 nor int8"
               : q2 || o2 ? "fp16 output with output scales" : NULL;
    if (q2 == NULL || q2->dtype != FIA_DT_FP32)
        return "int8 output without an fp32 quant_scale2";
    if (o2 && (o2->dtype != q2->dtype ||
               fia_tensor_numel(o2) != fia_tensor_numel(q2)))
        return "quant_offset2 unlike quant_scale2";
    if (fia_tensor_numel(q2) != 1 && (g->qpad || g->kvpad))
        return "per-channel quant_scale2 with left padding (PAD-X04)";
    if (fia_tensor_numel(q2) != 1 && fia_tensor_numel(q2) != g->N * g->D)
        return "quant_scale2 neither [1] nor H";
    if (fia_check_reference_work(c) > FZ_NUM_MAX_WORK)
        return "past the reference's budget";
    return NULL;
}

/* A late maximum in every query row of every batch and head with keys
 * past the first block (one at least): the largest score (dot · ds1 · scale,
 * every key within the batch's length, the mask aside) at a key past the
 * first block, the first block's largest below it by less than 8 (its
 * weights count).  Random data does so in one row now and then, not in
 * all.  Single key tensors, no padding. */
static int late_max(const fia_case *c, const fz_geom *g, int64_t blk)
{
    if (g->list || g->kvpad || g->qpad || g->KV_S <= blk)
        return 0;
    const double f = dequant_read(t0(c, FIA_SLOT_DEQUANT_SCALE1),
                                  scalar_of(c, FIA_SLOT_DEQUANT_SCALE1)) *
                     c->attrs.scale;
    int64_t nq, nk;
    double *q = ftl_data_of(c, FIA_SLOT_QUERY, &nq);
    double *k = ftl_data_of(c, FIA_SLOT_KEY, &nk);
    int late = 0, early = 0;
    const int64_t grp = g->N / g->KV_N;
    for (int64_t b = 0; q && k && b < g->B && !early; b++) {
        int64_t kl = fz_kv_len(c, g, b);
        kl = kl < g->KV_S ? kl : g->KV_S;
        for (int64_t n = 0; n < g->N * g->Q_S && kl > blk && !early; n++) {
            const int64_t h = n / g->Q_S, row = n % g->Q_S;
            double m1 = -INFINITY, m2 = -INFINITY;
            for (int64_t j = 0; j < kl; j++) {
                double dot = 0;
                for (int64_t d = 0; d < g->D; d++)
                    dot += q[fz_index(g->layout, g->B, g->N, g->Q_S, g->D, b,
                                      h, row, d)] *
                           k[fz_index(g->layout, g->B, g->KV_N, g->KV_S, g->D,
                                      b, h / grp, j, d)];
                double s = dot * f;
                if (j < blk)
                    m1 = s > m1 ? s : m1;
                else
                    m2 = s > m2 ? s : m2;
            }
            if (m2 > m1 && m2 - m1 < 8)
                late = 1;
            else
                early = 1;
        }
    }
    free(q), free(k);
    return late && !early;
}

/* The key tensor holds one value throughout (equal scores). */
static int constant_keys(const fia_case *c)
{
    int64_t n;
    double *v = ftl_data_of(c, FIA_SLOT_KEY, &n);
    int same = v != NULL && n > 1;
    for (int64_t i = 1; same && i < n; i++)
        same = v[i] == v[0];
    free(v);
    return same;
}

/* The smallest and largest int8 of query, key and value. */
static void int_range(const fia_case *c, double *lo, double *hi)
{
    static const fia_slot qkv[3] = {FIA_SLOT_QUERY, FIA_SLOT_KEY,
                                    FIA_SLOT_VALUE};
    for (int s = 0; s < 3; s++) {
        int64_t n;
        double *v = ftl_data_of(c, qkv[s], &n);
        for (int64_t i = 0; v != NULL && i < n; i++) {
            *lo = v[i] < *lo ? v[i] : *lo;
            *hi = v[i] > *hi ? v[i] : *hi;
        }
        free(v);
    }
}

/* What ref/ makes of the cases: computed or refused (and why), outputs
 * compared (a finite bound), outside the error model (an infinite one) or
 * unspecified; the int8 outputs' spread and saturation. */
typedef struct ref_tally {
    int cases, refused, nm;
    int64_t cmp, outside, unspec, o8, sat, hist[256];
} ref_tally;

static void ref_outputs(const fia_case *c, int o8, ref_tally *t)
{
    fia_case_data d;
    fia_ref_result r;
    fia_ref_options o;
    fia_error err;
    memset(&r, 0, sizeof r);
    if (fia_case_materialize(c, 1, &d, &err) != FIA_OK) {
        t->refused++;
        return;
    }
    fia_ref_options_default(&o);
    const fia_status st = fia_ref_compute(c, &d, &o, &r, &err);
    if (st == FIA_ERR_NOT_MODELED) {
        t->nm++;
    } else if (st != FIA_OK) {
        t->refused++;
        show(c, err.msg);
    } else {
        t->cases++;
        for (int64_t i = 0; i < r.out_numel; i++) {
            if (r.out_unspecified[i]) {
                t->unspec++;
                continue;
            }
            if (!isfinite(r.out_bound[i])) {
                t->outside++;
                continue;
            }
            t->cmp++;
            if (o8) {
                const int8_t y = ((const int8_t *)r.out.data)[i];
                t->hist[y + 128]++;
                t->o8++;
                t->sat += fabs(r.out_exact[i]) > 128;
            }
        }
    }
    fia_ref_result_free(&r);
    fia_case_data_free(&d);
}

enum {
    CV_DS1_U64, CV_DS1_F32, CV_DS2_U64, CV_DS2_F32, CV_JUNK_HI, CV_JUNK_LO,
    CV_OUT_FP16, CV_OUT_INT8, CV_OUT_INFERRED, CV_PER_CHANNEL, CV_OFFSET,
    CV_QS1_TYPICAL, CV_QS1_SAT, CV_QS1_ZERO, CV_QS1_NEG, CV_QS1_HALF,
    CV_CONST_KEYS, CV_MASK, CV_SPARSE_BAND, CV_PSE, CV_GQA, CV_LSE, CV_LIST,
    CV_PAD, CV_EMPTY_ROW, CV_PRECISE, CV_PAST_BLOCK, CV_LATE_MAX,
    CV_D_WIDE, CV_N
};
static const char *const CV_NAME[CV_N] = {
    "ds1 uint64", "ds1 fp32", "ds2 uint64", "ds2 fp32", "junk high word",
    "junk low bits", "out fp16", "out int8", "out inferred", "per-channel",
    "offset", "qs1 ~127", "qs1 > 127", "qs1 0", "qs1 < 0", "qs1 k+0.5",
    "constant keys", "mask", "sparse 2..4", "pse", "gqa", "lse", "list",
    "left padding", "empty key row", "inner_precise 2/3", "keys past block",
    "late max", "D >= 64"};

/* The coverage of one valid case. */
static void cover(const fia_case *c, const fz_geom *g, int o8, int64_t blk,
                  int *cv)
{
    const fia_tensor *d1 = t0(c, FIA_SLOT_DEQUANT_SCALE1);
    const fia_tensor *d2 = t0(c, FIA_SLOT_DEQUANT_SCALE2);
    cv[d1->dtype == FIA_DT_UINT64 ? CV_DS1_U64 : CV_DS1_F32]++;
    cv[d2->dtype == FIA_DT_UINT64 ? CV_DS2_U64 : CV_DS2_F32]++;
    for (int k = 0; k < 2; k++) {
        const fia_slot s = k ? FIA_SLOT_DEQUANT_SCALE2
                             : FIA_SLOT_DEQUANT_SCALE1;
        if (t0(c, s)->dtype != FIA_DT_UINT64)
            continue;
        const uint64_t w = (uint64_t)scalar_of(c, s);
        cv[CV_JUNK_HI] += w >> 32 != 0;
        cv[CV_JUNK_LO] += (w & 0x1fff) != 0;
    }
    cv[!o8 ? CV_OUT_FP16 : has(c, FIA_SLOT_ATTENTION_OUT) ? CV_OUT_INT8
                                                          : CV_OUT_INFERRED]++;
    cv[CV_PER_CHANNEL] += o8 &&
                          fia_tensor_numel(t0(c, FIA_SLOT_QUANT_SCALE2)) > 1;
    cv[CV_OFFSET] += has(c, FIA_SLOT_QUANT_OFFSET2);
    const double qs1 = scalar_of(c, FIA_SLOT_QUANT_SCALE1);
    cv[qs1 == 0 ? CV_QS1_ZERO : qs1 < 0 ? CV_QS1_NEG : qs1 > 127 ? CV_QS1_SAT
       : qs1 - floor(qs1) == 0.5 ? CV_QS1_HALF : CV_QS1_TYPICAL]++;
    cv[CV_CONST_KEYS] += constant_keys(c);
    cv[CV_MASK] += has(c, FIA_SLOT_ATTEN_MASK);
    cv[CV_SPARSE_BAND] += c->attrs.sparse_mode >= 2;
    cv[CV_PSE] += has(c, FIA_SLOT_PSE_SHIFT);
    cv[CV_GQA] += g->N != g->KV_N;
    cv[CV_LSE] += c->attrs.softmax_lse_flag != 0;
    cv[CV_LIST] += g->list;
    cv[CV_PAD] += g->qpad || g->kvpad;
    int empty = 0;
    for (int64_t b = 0; b < g->B; b++)
        empty |= fz_kv_len(c, g, b) == 0 && fz_q_len(c, g, b) > 0;
    cv[CV_EMPTY_ROW] += empty;
    cv[CV_PRECISE] += (c->attrs.inner_precise & 2) != 0;
    cv[CV_PAST_BLOCK] += g->KV_S > blk;
    cv[CV_LATE_MAX] += late_max(c, g, blk);
    cv[CV_D_WIDE] += g->D >= 64;
}

static void test_numeric(void)
{
    fast_path_thresholds th;
    fastPathThresholds(&th);
    fuzz_rng r = {8128};
    uint8_t buf[512];
    const int n = check_draws(16000);
    int quant = 0, bad = 0, refused = 0, roundtrip = 0, bucket = 0;
    int cv[CV_N] = {0};
    double lo = 0, hi = 0;
    ref_tally rt;
    memset(&rt, 0, sizeof rt);
    for (int k = 0; k < n; k++) {
        fia_case c;
        fuzz_decode_numeric(buf, ftl_random_input(&r, buf, 64, sizeof buf), &c);
        const fia_tensor *q = t0(&c, FIA_SLOT_QUERY);
        /* an int8 query with rope is MLA's full quantization
         * (gen_mla.c, tests/test_fuzz_mla.c), not 002's */
        if (q == NULL || q->dtype != FIA_DT_INT8 ||
            t0(&c, FIA_SLOT_QUERY_ROPE) != NULL) {
            fia_case_free(&c);
            continue;
        }
        quant++;
        fz_geom g;
        int o8 = 0;
        const char *why = fz_geom_of_call(&c, &g) != 0 ? "no geometry"
                                                       : invalid(&c, &g, &o8);
        if (why != NULL) {
            bad++;
            show(&c, why);
            fia_case_free(&c);
            continue;
        }
        fia_oracle_verdict v;
        fia_oracle_evaluate(&c, FIA_PROFILE_DOC, &v, NULL);
        if (!ftl_valid_or(&v, "NM-004")) {
            refused++;
            show(&c, v.n_fired ? v.fired[0]->id : "rejected");
        }
        cover(&c, &g, o8, th.key_block, cv);
        if (quant <= 300)
            ref_outputs(&c, o8, &rt);
        int_range(&c, &lo, &hi);
        char fs[128];
        fuzz_feature_set(&c, fs, sizeof fs);
        bucket += strstr(fs, "+int8q") != NULL && !strstr(fs, "+int8kv");
        char *text = fia_case_to_string(&c);
        fia_case p = ftl_parse(text ? text : "");
        roundtrip += fia_case_equal(&c, &p);
        fia_case_free(&p);
        free(text);
        fia_case_free(&c);
    }
    printf("fuzz_numeric: %d of %d full int8 (%d invalid, %d refused other "
           "than by NM-004); int8 %g..%g\n", quant, n, bad, refused, lo, hi);
    for (int i = 0; i < CV_N; i++)
        printf("  %-18s %d\n", CV_NAME[i], cv[i]);
    CHECK_COUNT(quant > n / 40);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(refused, 0);
    CHECK_EQ_INT(roundtrip, quant - bad);
    CHECK_EQ_INT(bucket, quant - bad);
    CHECK_COUNT(lo == -128 && hi == 127);
    for (int i = 0; i < CV_N; i++)
        CHECK_COUNT_MSG(cv[i] > 3, "%s: %d", CV_NAME[i], cv[i]);
    int distinct = 0;
    for (int i = 0; i < 256; i++)
        distinct += rt.hist[i] > 0;
    printf("  ref/: %d computed, %d not modeled, %d refused; outputs "
           "compared %lld, outside the model %lld, unspecified %lld; int8 "
           "outputs %d distinct, saturated %lld\n", rt.cases, rt.nm,
           rt.refused, (long long)rt.cmp, (long long)rt.outside,
           (long long)rt.unspec, distinct, (long long)rt.sat);
    /* ref/ computes every case (not modeled: before it did); few outputs
     * lie outside its error model (the scales are sized to stay inside),
     * the int8 outputs spread over the whole range, some saturate */
    CHECK_EQ_INT(rt.refused, 0);
    if (rt.cases > 0) {
        CHECK_EQ_INT(rt.nm, 0);
        CHECK(rt.outside < rt.cmp / 20);
        CHECK_COUNT(distinct > 240 && rt.sat > 0 && rt.sat < rt.o8 / 2);
    }
    /* random data gives a late maximum in every row of a few small cases
     * (4 of these inputs without the late-max form, 35 with it) */
    CHECK_COUNT_MSG(cv[CV_LATE_MAX] > 20, "late max: %d", cv[CV_LATE_MAX]);
}

/* The signature's bucket: full int8 is its own, antiquant keeps its. */
static void test_bucket(void)
{
    fia_case c = ftl_parse(
        "input_layout = BNSD\nnum_heads = 2\nquery = int8 [1,2,2,32]\n"
        "key = int8 [1,2,3,32]\nvalue = int8 [1,2,3,32]\n"
        "attention_out = fp16 [1,2,2,32]\ndequant_scale1 = uint64 [1]\n"
        "quant_scale1 = fp32 [1]\ndequant_scale2 = fp32 [1]\n");
    char fs[128];
    fuzz_feature_set(&c, fs, sizeof fs);
    CHECK_MSG(strstr(fs, "+int8q") && !strstr(fs, "+int8kv"), "%s", fs);
    c.tensors[FIA_SLOT_QUERY].t[0].dtype = FIA_DT_FP16;
    c.tensors[FIA_SLOT_ATTENTION_OUT].t[0].dtype = FIA_DT_FP16;
    fuzz_feature_set(&c, fs, sizeof fs);
    CHECK_MSG(!strstr(fs, "+int8q") && strstr(fs, "+int8kv"), "%s", fs);
    fia_case_free(&c);
}

int main(void)
{
    test_bucket();
    test_numeric();
    return check_summary();
}
