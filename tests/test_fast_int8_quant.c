/* fast/ full int8 quantization (docs/features/int8_quant.md "The
 * computation"): int8 query, key and value with dequant_scale1 /
 * quant_scale1 / dequant_scale2 through the fast API, against a
 * straightforward computation here in double: the exact integer dots, s =
 * dot * ds1 * scale + pse, the row's final max, e = exp(s - m), l the sum
 * of the unquantized e, P = sat(rint(e * qs1)), N = sum P v, x = ds2 * N /
 * l.  Outputs fp16 (within its rounding and the doc's tolerance: a P may
 * flip by one step only where e * qs1 lies next to a rounding boundary,
 * which the check finds and allows) and int8 (quant_scale2 /
 * quant_offset2, between the quantized ends of that interval).  Layouts,
 * GQA, masks with bands, causal sparse mode 3, pse, lengths, left
 * padding, tensor lists, lse, the row-invalid correction, the scores kept
 * between the passes or (many keys) computed again, uint64 scales
 * (the low 32 bits truncated to the vendor's 19-bit float) and float32
 * ones, threads 1..3.  And a row whose max comes in a late block: the
 * quantization against a running max (an online softmax) would give
 * another output, beyond the tolerance; the fast result is the two-pass
 * one.  Run once per ISA level (CMakeLists.txt: FIA_FAST_ISA). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fast_testlib.h"
#include "fia/dtype.h"
#include "fia/fast.h"

typedef struct cfg {
    const char *layout;
    int64_t B, N, KV_N, Q_S, KV_S, D;
    int sparse;            /* 0 (mask: random bits, band pre/next) or 3 */
    bool mask, pse, lse, out8, u64, list;
    int64_t pre, next;
    const int64_t *qlens, *kvlens; /* NULL: full */
    int64_t qpad, kvpad;   /* >= 0: left padding (with the lengths) */
    int precise;
    int late;              /* 1: keys rising, the max in the last block */
    int threads;
} cfg;

/* The vendor's 19-bit float of a uint64 dequant scale (step 1). */
static float trunc19(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    u &= 0xFFFFE000u;
    memcpy(&f, &u, 4);
    return f;
}

typedef struct data {
    int8_t *q, *k, *v;
    uint8_t *mask;          /* [B][Q_S][KV_S], or 2048 x 2048 for mode 3 */
    uint16_t *pse;          /* [B][N][Q_S][KV_S] fp16 */
    float ds1, qs1, ds2, qs2, qo2; /* as the run reads them */
    uint64_t u_ds1, u_ds2;  /* the uint64 tensors' elements */
} data;

static int8_t rnd8(int lo, int hi)
{
    return (int8_t)(lo + (int)(ftl_next32() % (uint32_t)(hi - lo + 1)));
}

static void make_data(const cfg *c, data *d)
{
    const int64_t nq = c->B * c->N * c->Q_S * c->D;
    const int64_t nkv = c->B * c->KV_N * c->KV_S * c->D;
    d->q = malloc((size_t)nq);
    d->k = malloc((size_t)nkv);
    d->v = malloc((size_t)nkv);
    for (int64_t i = 0; i < nq; i++)
        d->q[i] = rnd8(-9, 9);
    for (int64_t i = 0; i < nkv; i++)
        d->k[i] = rnd8(-9, 9), d->v[i] = rnd8(-128, 127);
    const bool bnsd = ftl_bnsd(c->layout);
    if (c->late) /* key j's values grow with j: the max comes late */
        for (int64_t b = 0; b < c->B; b++)
            for (int64_t h = 0; h < c->KV_N; h++)
                for (int64_t j = 0; j < c->KV_S; j++) {
                    int8_t *kr = d->k + ftl_at(bnsd, c->KV_N, c->KV_S, c->D,
                                               b, h, j);
                    for (int64_t x = 0; x < c->D; x++)
                        kr[x] = (int8_t)(j * 24 / c->KV_S);
                }
    if (c->late)
        for (int64_t i = 0; i < nq; i++)
            d->q[i] = 3;
    if (c->mask && c->sparse == 0) {
        const int64_t n = c->B * c->Q_S * c->KV_S;
        d->mask = malloc((size_t)n);
        for (int64_t i = 0; i < n; i++)
            d->mask[i] = ftl_next32() % 5 == 0;
    } else if (c->sparse == 3) {
        d->mask = malloc(2048 * 2048);
        for (int64_t i = 0; i < 2048; i++)
            for (int64_t j = 0; j < 2048; j++)
                d->mask[i * 2048 + j] = j > i;
    } else {
        d->mask = NULL;
    }
    d->pse = NULL;
    if (c->pse) {
        const int64_t n = c->B * c->N * c->Q_S * c->KV_S;
        d->pse = malloc((size_t)n * 2);
        for (int64_t i = 0; i < n; i++)
            d->pse[i] = fia_float_to_fp16(
                ((float)(ftl_next32() % 512) - 256.0f) / 128.0f);
    }
    /* scales: a ds1 with bits below the 19 kept ones (a uint64 tensor
     * drops them), qs1 not an integer, ds2 small */
    const float ds1 = 0.00787353515625f + 3.0e-7f, ds2 = 0.0078125f * 1.37f;
    d->u_ds1 = 0xDEADBEEF00000000ull, d->u_ds2 = 0x1234567800000000ull;
    uint32_t u;
    memcpy(&u, &ds1, 4);
    d->u_ds1 |= u;
    memcpy(&u, &ds2, 4);
    d->u_ds2 |= u;
    d->ds1 = c->u64 ? trunc19(ds1) : ds1;
    d->ds2 = c->u64 ? trunc19(ds2) : ds2;
    d->qs1 = c->late ? 127.0f : 117.37f;
    d->qs2 = 0.75f, d->qo2 = 2.0f;
}

static void free_data(data *d)
{
    free(d->q), free(d->k), free(d->v), free(d->mask), free(d->pse);
}

/* The band and mask of the fast path, restated: key j takes part in row
 * i (lengths q_len, kv_len). */
static bool takes_part(const cfg *c, const data *d, int64_t b, int64_t i,
                       int64_t j, int64_t q_len, int64_t kv_len)
{
    if (j >= kv_len)
        return false;
    if (c->sparse == 3) /* causal, bottom right aligned */
        return j <= i + kv_len - q_len;
    if (!c->mask)
        return true;
    const bool padded = c->qpad >= 0 || c->kvpad >= 0;
    if (!padded && (j < i - c->pre || j > i + c->next))
        return false;
    /* the mask of physical rows */
    const int64_t pi = c->qpad >= 0 ? c->Q_S - c->qpad - q_len + i : i;
    const int64_t pj = c->kvpad >= 0 ? c->KV_S - c->kvpad - kv_len + j : j;
    return !d->mask[(b * c->Q_S + pi) * c->KV_S + pj];
}

/* The reference of row (b, n, i): x[d] and its tolerance, lse; returns
 * false for a row without a key.  online: P quantized against the running
 * max of blocks of 64 keys instead (another computation). */
static bool reference(const cfg *c, const data *d, int64_t b, int64_t n,
                      int64_t i, bool online, double *x, double *tol,
                      double *lse)
{
    const bool bnsd = ftl_bnsd(c->layout);
    const int64_t D = c->D, h = n / (c->N / c->KV_N);
    const int64_t q_len = c->qlens ? c->qlens[b] : c->Q_S;
    const int64_t kv_len = c->kvlens ? c->kvlens[b] : c->KV_S;
    const int64_t pi = c->qpad >= 0 ? c->Q_S - c->qpad - q_len + i : i;
    const int64_t kv0 = c->kvpad >= 0 ? c->KV_S - c->kvpad - kv_len : 0;
    const int8_t *q = d->q + ftl_at(bnsd, c->N, c->Q_S, D, b, n, pi);
    const double scale = 1.0 / sqrt((double)D);
    double *s = malloc((size_t)c->KV_S * sizeof(double));
    double m = -INFINITY;
    for (int64_t j = 0; j < kv_len; j++) {
        s[j] = NAN;
        if (!takes_part(c, d, b, i, j, q_len, kv_len))
            continue;
        const int8_t *k = d->k + ftl_at(bnsd, c->KV_N, c->KV_S, D, b, h,
                                        kv0 + j);
        int64_t dot = 0;
        for (int64_t x = 0; x < D; x++)
            dot += (int64_t)q[x] * k[x];
        s[j] = (double)dot * d->ds1 * scale;
        if (c->pse)
            s[j] += fia_fp16_to_float(
                d->pse[((b * c->N + n) * c->Q_S + pi) * c->KV_S + kv0 + j]);
        m = s[j] > m ? s[j] : m;
    }
    if (m == -INFINITY) {
        free(s);
        return false;
    }
    double l = 0.0, mrun = -INFINITY;
    for (int64_t dd = 0; dd < D; dd++)
        x[dd] = 0.0, tol[dd] = 0.0;
    double *acc = calloc((size_t)D, sizeof(double));
    double *mag = calloc((size_t)D, sizeof(double)); /* sum |P v| */
    for (int64_t j0 = 0; j0 < kv_len; j0 += 64) {
        const int64_t j1 = j0 + 64 < kv_len ? j0 + 64 : kv_len;
        double mb = mrun;
        for (int64_t j = j0; j < j1; j++)
            if (!isnan(s[j]) && s[j] > mb)
                mb = s[j];
        const double mm = online ? mb : m;
        if (online && mb > mrun && mrun > -INFINITY) {
            const double a = exp(mrun - mb);
            l *= a;
            for (int64_t dd = 0; dd < D; dd++)
                acc[dd] *= a, mag[dd] *= a;
        }
        mrun = mb;
        for (int64_t j = j0; j < j1; j++) {
            if (isnan(s[j]))
                continue;
            const double e = exp(s[j] - mm), t = e * d->qs1;
            l += e;
            double pq = rint(t);
            pq = pq > 127 ? 127 : pq < -128 ? -128 : pq;
            /* next to a rounding boundary: either neighbour (the doc's
             * one-step flip) */
            const bool near = fabs(t - floor(t) - 0.5) < 1e-4 && fabs(t) < 127;
            const int8_t *v = d->v + ftl_at(bnsd, c->KV_N, c->KV_S, D, b, h,
                                            kv0 + j);
            for (int64_t dd = 0; dd < D; dd++) {
                acc[dd] += pq * v[dd];
                mag[dd] += fabs(pq * v[dd]);
                if (near)
                    tol[dd] += fabs((double)v[dd]);
            }
        }
    }
    for (int64_t dd = 0; dd < D; dd++) {
        x[dd] = d->ds2 * acc[dd] / l;
        /* the flips, then float32's share: the row sum, N * ds2 and the
         * scores' few roundings (relative 1e-5 of the largest term) */
        tol[dd] = fabs(d->ds2) / l * (tol[dd] + 1e-5 * mag[dd]);
    }
    *lse = m + log(l);
    free(acc);
    free(mag);
    free(s);
    return true;
}

static int64_t asl_count(const int64_t *lens, int64_t B)
{
    return lens ? B : 0;
}

/* The fast call; out: fp16 or int8 [layout], lse [B][N][Q_S]. */
static fia_status run_fast(const cfg *c, const data *d, void *out,
                           float *lse)
{
    const bool bnsd = ftl_bnsd(c->layout);
    fia_tensor q = ftl_tensor(c->layout, bnsd, FIA_DT_INT8, c->B, c->N,
                              c->Q_S, c->D, d->q);
    fia_tensor kt[8], vt[8];
    const fia_tensor *kp[8], *vp[8];
    int nl = 1;
    if (c->list) { /* batch b's rows in tensor b of the lists */
        nl = (int)c->B;
        for (int b = 0; b < nl; b++) {
            const int64_t off = ftl_at(bnsd, c->KV_N, c->KV_S, c->D, b, 0, 0);
            kt[b] = ftl_tensor(c->layout, bnsd, FIA_DT_INT8, 1, c->KV_N,
                               c->KV_S, c->D, d->k + off);
            vt[b] = ftl_tensor(c->layout, bnsd, FIA_DT_INT8, 1, c->KV_N,
                               c->KV_S, c->D, d->v + off);
            kp[b] = &kt[b], vp[b] = &vt[b];
        }
    } else {
        kt[0] = ftl_tensor(c->layout, bnsd, FIA_DT_INT8, c->B, c->KV_N,
                           c->KV_S, c->D, d->k);
        vt[0] = ftl_tensor(c->layout, bnsd, FIA_DT_INT8, c->B, c->KV_N,
                           c->KV_S, c->D, d->v);
        kp[0] = &kt[0], vp[0] = &vt[0];
    }
    fia_tensor_list kl = {nl, kp}, vl = {nl, vp};
    const char *ol = strcmp(c->layout, "BNSD_BSND") == 0 ? "BSND" : c->layout;
    fia_tensor o = ftl_tensor(ol, ftl_bnsd(ol), c->out8 ? FIA_DT_INT8
                                                        : FIA_DT_FP16,
                              c->B, c->N, c->Q_S, c->D, out);
    fia_tensor lt = {FIA_DT_FP32, 4, {c->B, c->N, c->Q_S, 1}, lse};
    fia_tensor mt = {FIA_DT_BOOL, 4, {c->B, 1, c->Q_S, c->KV_S}, d->mask};
    if (c->sparse == 3)
        mt = (fia_tensor){FIA_DT_BOOL, 2, {2048, 2048}, d->mask};
    fia_tensor pt = {FIA_DT_FP16, 4, {c->B, c->N, c->Q_S, c->KV_S}, d->pse};
    fia_tensor s1 = {c->u64 ? FIA_DT_UINT64 : FIA_DT_FP32, 1, {1},
                     c->u64 ? (void *)&d->u_ds1 : (void *)&d->ds1};
    fia_tensor s2 = {c->u64 ? FIA_DT_UINT64 : FIA_DT_FP32, 1, {1},
                     c->u64 ? (void *)&d->u_ds2 : (void *)&d->ds2};
    fia_tensor qs1 = {FIA_DT_FP32, 1, {1}, (void *)&d->qs1};
    fia_tensor qs2 = {FIA_DT_FP32, 1, {1}, (void *)&d->qs2};
    fia_tensor qo2 = {FIA_DT_FP32, 1, {1}, (void *)&d->qo2};
    int64_t qpad = c->qpad, kvpad = c->kvpad;
    fia_tensor qpt = {FIA_DT_INT64, 1, {1}, &qpad};
    fia_tensor kvpt = {FIA_DT_INT64, 1, {1}, &kvpad};
    fia_int_array asl = {asl_count(c->qlens, c->B), c->qlens};
    fia_int_array aslkv = {asl_count(c->kvlens, c->B), c->kvlens};
    fastSetThreadCount(c->threads);
    fast_executor *ex = NULL;
    uint64_t wss = 0;
    fia_status st = fastFusedInferAttentionScoreV2GetWorkspaceSize(
        &q, &kl, &vl, c->pse ? &pt : NULL, d->mask ? &mt : NULL,
        c->qlens ? &asl : NULL, c->kvlens ? &aslkv : NULL, &s1, &qs1, &s2,
        c->out8 ? &qs2 : NULL, c->out8 ? &qo2 : NULL, NULL, NULL, NULL,
        c->qpad >= 0 ? &qpt : NULL, c->kvpad >= 0 ? &kvpt : NULL, NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, c->N, 1.0 / sqrt((double)c->D),
        c->pre, c->next, c->layout, c->KV_N, c->sparse, c->precise, 0, 0,
        c->lse, 0, 0, &o, c->lse ? &lt : NULL, &wss, &ex);
    if (st != FIA_OK)
        return st;
    st = ftl_phase_two(ex, wss);
    return st;
}

/* sat(rint(fl32(fl32(x * qs2) + qo2))) (int8_out.md), x in double. */
static int int8_out_value(double x, const data *d)
{
    const float y = (float)((float)x * d->qs2) + d->qo2;
    const float r = rintf(y);
    return r > 127 ? 127 : r < -128 ? -128 : (int)r;
}

static void run_case(const cfg *c, int line)
{
    data d;
    make_data(c, &d);
    const int64_t nout = c->B * c->N * c->Q_S * c->D;
    void *out = calloc((size_t)nout, 2);
    float *lse = calloc((size_t)(c->B * c->N * c->Q_S), sizeof(float));
    fia_status st = run_fast(c, &d, out, lse);
    CHECK_MSG(st == FIA_OK, "line %d: status %d: %s", line, st,
              fastLastError());
    const char *ol = strcmp(c->layout, "BNSD_BSND") == 0 ? "BSND" : c->layout;
    const bool obnsd = ftl_bnsd(ol);
    double *x = malloc((size_t)c->D * sizeof(double));
    double *tol = malloc((size_t)c->D * sizeof(double));
    int bad = 0;
    for (int64_t b = 0; st == FIA_OK && b < c->B; b++)
        for (int64_t n = 0; n < c->N; n++)
            for (int64_t i = 0; i < c->Q_S; i++) {
                const int64_t q_len = c->qlens ? c->qlens[b] : c->Q_S;
                if (i >= q_len)
                    continue; /* padding rows: unspecified */
                const int64_t pi =
                    c->qpad >= 0 ? c->Q_S - c->qpad - q_len + i : i;
                const int64_t at = ftl_at(obnsd, c->N, c->Q_S, c->D, b, n,
                                          pi);
                const float got_lse = lse[(b * c->N + n) * c->Q_S + pi];
                double ref_lse;
                if (!reference(c, &d, b, n, i, false, x, tol, &ref_lse)) {
                    if (c->precise != 2)
                        continue; /* unspecified without the correction */
                    for (int64_t dd = 0; dd < c->D; dd++)
                        if (c->out8 ? ((int8_t *)out)[at + dd] !=
                                          int8_out_value(0.0, &d)
                                    : ((uint16_t *)out)[at + dd] != 0)
                            bad++;
                    if (c->lse && !isinf(got_lse))
                        bad++;
                    continue;
                }
                for (int64_t dd = 0; dd < c->D; dd++) {
                    if (c->out8) {
                        const int y = ((int8_t *)out)[at + dd];
                        const int lo = int8_out_value(x[dd] - tol[dd], &d);
                        const int hi = int8_out_value(x[dd] + tol[dd], &d);
                        if (y < lo || y > hi) {
                            if (bad++ < 5)
                                fprintf(stderr, "line %d (%lld,%lld,%lld,"
                                        "%lld): int8 %d, want %d..%d\n",
                                        line, (long long)b, (long long)n,
                                        (long long)i, (long long)dd, y, lo,
                                        hi);
                        }
                        continue;
                    }
                    const double y =
                        fia_fp16_to_float(((uint16_t *)out)[at + dd]);
                    const double t = tol[dd] + fabs(x[dd]) * 0x1p-11 +
                                     0x1p-25;
                    if (!(fabs(y - x[dd]) <= t) && bad++ < 5)
                        fprintf(stderr, "line %d (%lld,%lld,%lld,%lld): %g, "
                                "want %g +- %g\n", line, (long long)b,
                                (long long)n, (long long)i, (long long)dd, y,
                                x[dd], t);
                }
                if (c->lse &&
                    !(fabs(got_lse - ref_lse) <= 1e-4 + 1e-5 * fabs(ref_lse))
                    && bad++ < 5)
                    fprintf(stderr, "line %d: lse %g, want %g\n", line,
                            got_lse, ref_lse);
            }
    CHECK_MSG(bad == 0, "line %d: %d outputs outside the tolerance", line,
              bad);
    free(x), free(tol), free(out), free(lse);
    free_data(&d);
}

static const int64_t QL[3] = {5, 1, 7}, KVL[3] = {70, 0, 33};
static const int64_t QL2[2] = {7, 4}, KVL2[2] = {130, 3};

static void shapes(void)
{
    /* plain, each layout, GQA, D 32..128, ragged key tails */
    run_case(&(cfg){"BNSD", 1, 2, 2, 3, 70, 32, .pre = 2147483647,
                    .next = 2147483647, .threads = 1, .qpad = -1,
                    .kvpad = -1}, __LINE__);
    run_case(&(cfg){"BSND", 2, 4, 2, 9, 130, 64, .pre = 2147483647,
                    .next = 2147483647, .threads = 2, .u64 = true,
                    .qpad = -1, .kvpad = -1}, __LINE__);
    run_case(&(cfg){"BSH", 1, 8, 1, 17, 200, 64, .pre = 2147483647,
                    .next = 2147483647, .threads = 3, .qpad = -1,
                    .kvpad = -1}, __LINE__);
    run_case(&(cfg){"BNSD_BSND", 2, 6, 3, 20, 65, 128, .pre = 2147483647,
                    .next = 2147483647, .threads = 2, .u64 = true,
                    .lse = true, .qpad = -1, .kvpad = -1}, __LINE__);
    /* many rows per task: kv_pre (K/V widened once) */
    run_case(&(cfg){"BNSD", 1, 4, 1, 40, 300, 32, .pre = 2147483647,
                    .next = 2147483647, .threads = 2, .lse = true,
                    .qpad = -1, .kvpad = -1}, __LINE__);
    /* more keys than a task keeps the scores of (128 rows: 8192 keys):
     * pass 2 computes them again */
    run_case(&(cfg){"BNSD", 1, 4, 1, 40, 8300, 32, .pre = 2147483647,
                    .next = 2147483647, .pse = true, .lse = true,
                    .threads = 2, .qpad = -1, .kvpad = -1}, __LINE__);
    /* more than 16 blocks of keys: P.V's sums leave the float acc */
    run_case(&(cfg){"BSND", 1, 2, 1, 2, 1100, 32, .pre = 2147483647,
                    .next = 2147483647, .threads = 1, .qpad = -1,
                    .kvpad = -1}, __LINE__);
}

static void features(void)
{
    /* mask with a band, pse, lse, int8 out */
    run_case(&(cfg){"BNSD", 2, 4, 2, 12, 100, 32, .mask = true, .pre = 5,
                    .next = 40, .pse = true, .lse = true, .threads = 2,
                    .qpad = -1, .kvpad = -1}, __LINE__);
    run_case(&(cfg){"BSND", 2, 4, 4, 12, 100, 64, .mask = true, .pre = 3,
                    .next = 2, .out8 = true, .u64 = true, .threads = 1,
                    .precise = 2, .lse = true, .qpad = -1, .kvpad = -1},
             __LINE__);
    /* causal (sparse mode 3), pse, int8 out */
    run_case(&(cfg){"BSH", 1, 2, 1, 33, 90, 32, .sparse = 3, .pse = true,
                    .out8 = true, .pre = 2147483647, .next = 0,
                    .threads = 2, .qpad = -1, .kvpad = -1}, __LINE__);
    /* lengths: an empty key sequence, rows past q_len, correction */
    run_case(&(cfg){"BNSD", 3, 2, 1, 8, 80, 32, .qlens = QL, .kvlens = KVL,
                    .pre = 2147483647, .next = 2147483647, .lse = true,
                    .precise = 2, .threads = 2, .qpad = -1, .kvpad = -1},
             __LINE__);
    /* left padding of query and key/value, with a mask */
    run_case(&(cfg){"BSND", 2, 2, 2, 10, 140, 32, .qlens = QL2,
                    .kvlens = KVL2, .qpad = 2, .kvpad = 5, .mask = true,
                    .pre = 2147483647, .next = 2147483647, .pse = true,
                    .lse = true, .threads = 2}, __LINE__);
    /* tensor lists */
    run_case(&(cfg){"BNSD", 2, 4, 2, 6, 75, 64, .list = true,
                    .pre = 2147483647, .next = 2147483647, .out8 = true,
                    .threads = 2, .qpad = -1, .kvpad = -1}, __LINE__);
}

/* Keys whose scores rise to the last block: an online softmax quantizing
 * P against its running max gives another output (checked here against
 * the doc's tolerance), the fast result is the final-max one. */
static void late_max(void)
{
    const cfg c = {"BNSD", 1, 1, 1, 2, 256, 32, .pre = 2147483647,
                   .next = 2147483647, .late = 1, .threads = 1, .qpad = -1,
                   .kvpad = -1};
    data d;
    make_data(&c, &d);
    double x[32], tol[32], xo[32], tolo[32], l1, l2;
    CHECK(reference(&c, &d, 0, 0, 0, false, x, tol, &l1));
    CHECK(reference(&c, &d, 0, 0, 0, true, xo, tolo, &l2));
    int differ = 0;
    for (int dd = 0; dd < 32; dd++)
        differ += fabs(xo[dd] - x[dd]) > tol[dd] + fabs(x[dd]) * 0x1p-10;
    CHECK_MSG(differ > 16, "online quantization differs in %d of 32 only",
              differ);
    free_data(&d);
    run_case(&c, __LINE__);
}

/* A status-only run (no scale data) fails in phase two. */
static void no_data(void)
{
    int8_t q[2 * 32] = {0}, k[4 * 32] = {0};
    uint16_t o[2 * 32];
    fia_tensor qt = {FIA_DT_INT8, 4, {1, 1, 2, 32}, q};
    fia_tensor kt = {FIA_DT_INT8, 4, {1, 1, 4, 32}, k};
    fia_tensor ot = {FIA_DT_FP16, 4, {1, 1, 2, 32}, o};
    fia_tensor s = {FIA_DT_FP32, 1, {1}, NULL};
    const float one = 1.0f;
    fia_tensor s1 = {FIA_DT_FP32, 1, {1}, (void *)&one};
    const fia_tensor *kp[1] = {&kt};
    fia_tensor_list kl = {1, kp};
    fast_executor *ex = NULL;
    uint64_t wss = 0;
    fia_status st = fastFusedInferAttentionScoreV2GetWorkspaceSize(
        &qt, &kl, &kl, NULL, NULL, NULL, NULL, &s1, &s1, &s, NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, 1, 0.125, 2147483647, 2147483647, "BNSD", 1, 0, 0, 0, 0,
        false, 0, 0, &ot, NULL, &wss, &ex);
    CHECK_MSG(st == FIA_OK, "%s", fastLastError());
    st = ftl_phase_two(ex, wss);
    CHECK_EQ_INT(st, FIA_ERR_RUNTIME_ERROR);
    CHECK(strncmp(fastLastError(), "R_NO_DATA", 9) == 0);
}

int main(void)
{
    no_data();
    shapes();
    features();
    late_max();
    return check_summary();
}
