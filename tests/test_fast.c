/* fast/: numerics against a naive double-precision attention written here
 * (from docs/semantics.md), degenerate rows and shapes, phase-two errors,
 * and fast/'s private conversions against core's.  Validation checks are in
 * test_fast_validate.c. */
#include <stdint.h>
#include <stdlib.h>
#include "check.h"
#include "fast/fast_internal.h"
#include "fia/dtype.h"
#include "fia/fast.h"
#include "test_rng.h"

/* TC() gives defaults that the designated initializers override. */
#pragma GCC diagnostic ignored "-Woverride-init"

/* ---- data ---------------------------------------------------------------- */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double urand(void) /* [0, 1) */ { return test_lcg64_unit(&rng); }

typedef struct tc {
    const char *layout;
    fia_dtype dt;
    int64_t B, N, KVN, QS, KVS, D;
    int sparse, inner;
    int64_t pre, next;
    int mask_kind;  /* 0 none; 1 (QS,KVS); 2 (B,1,QS+3,KVS+5); 3 2048 triu;
                       4 decode (B,KVS); 5 (1,QS,KVS) all ones in row 0 */
    double density; /* fraction of masked elements for kinds 1, 2, 4 */
    int n_asl, n_aslkv;
    int64_t asl[8], aslkv[8];
    double amp;     /* q/k magnitude */
    bool lse;
} tc;

typedef struct bufs {
    fia_tensor q, k, v, out, lse, mask;
    uint16_t *qd, *kd, *vd, *od;
    float *ld;
    uint8_t *md;
    int64_t mrows, mcols, mb; /* mask rows, cols, batch stride (0 bcast) */
} bufs;

static bool is_bsx(const char *l) { return l[1] == 'S'; } /* BSH, BSND */

static int64_t idx4(const char *layout, bool kv, const tc *c, int64_t b,
                    int64_t n, int64_t s, int64_t d)
{
    int64_t NN = kv ? c->KVN : c->N, S = kv ? c->KVS : c->QS;
    if (is_bsx(layout))
        return ((b * S + s) * NN + n) * c->D + d;
    return ((b * NN + n) * S + s) * c->D + d;
}

static int64_t out_idx(const tc *c, int64_t b, int64_t n, int64_t s,
                       int64_t d)
{
    if (strcmp(c->layout, "BNSD_BSND") == 0)
        return ((b * c->QS + s) * c->N + n) * c->D + d;
    return idx4(c->layout, false, c, b, n, s, d);
}

static double ld(const tc *c, const uint16_t *p, int64_t i)
{
    return c->dt == FIA_DT_FP16 ? fia_fp16_to_double(p[i])
                                : fia_bf16_to_double(p[i]);
}

static void set_shape(fia_tensor *t, const char *layout, int64_t B,
                      int64_t N, int64_t S, int64_t D)
{
    if (strcmp(layout, "BSH") == 0) {
        t->ndim = 3;
        t->shape[0] = B, t->shape[1] = S, t->shape[2] = N * D;
    } else if (is_bsx(layout)) {
        t->ndim = 4;
        t->shape[0] = B, t->shape[1] = S, t->shape[2] = N, t->shape[3] = D;
    } else {
        t->ndim = 4;
        t->shape[0] = B, t->shape[1] = N, t->shape[2] = S, t->shape[3] = D;
    }
}

static uint16_t *rand_half(const tc *c, int64_t n, double amp)
{
    uint16_t *p = malloc((size_t)(n > 0 ? n : 1) * 2);
    for (int64_t i = 0; i < n; i++) {
        double x = (2 * urand() - 1) * amp;
        p[i] = c->dt == FIA_DT_FP16 ? fia_double_to_fp16(x)
                                    : fia_double_to_bf16(x);
    }
    return p;
}

static void build(const tc *c, bufs *w)
{
    memset(w, 0, sizeof *w);
    int64_t nq = c->B * c->N * c->QS * c->D, nk = c->B * c->KVN * c->KVS * c->D;
    w->qd = rand_half(c, nq, c->amp);
    w->kd = rand_half(c, nk, c->amp);
    w->vd = rand_half(c, nk, 1.0);
    w->od = malloc((size_t)(nq > 0 ? nq : 1) * 2);
    memset(w->od, 0xcd, (size_t)(nq > 0 ? nq : 1) * 2);
    w->q = (fia_tensor){.dtype = c->dt, .data = w->qd};
    set_shape(&w->q, strcmp(c->layout, "BNSD_BSND") ? c->layout : "BNSD",
              c->B, c->N, c->QS, c->D);
    w->k = (fia_tensor){.dtype = c->dt, .data = w->kd};
    set_shape(&w->k, strcmp(c->layout, "BNSD_BSND") ? c->layout : "BNSD",
              c->B, c->KVN, c->KVS, c->D);
    w->v = w->k;
    w->v.data = w->vd;
    w->out = (fia_tensor){.dtype = c->dt, .data = w->od};
    set_shape(&w->out, strcmp(c->layout, "BNSD_BSND") ? c->layout : "BSND",
              c->B, c->N, c->QS, c->D);
    int64_t nl = c->B * c->N * c->QS;
    w->ld = malloc((size_t)(nl > 0 ? nl : 1) * 4);
    w->lse = (fia_tensor){.dtype = FIA_DT_FP32, .ndim = 4,
                          .shape = {c->B, c->N, c->QS, 1}, .data = w->ld};
    int64_t mn = 0;
    w->mask.dtype = FIA_DT_BOOL;
    switch (c->mask_kind) {
    case 1:
        w->mrows = c->QS, w->mcols = c->KVS, w->mb = 0;
        w->mask.ndim = 2;
        w->mask.shape[0] = c->QS, w->mask.shape[1] = c->KVS;
        mn = c->QS * c->KVS;
        break;
    case 2:
        w->mrows = c->QS + 3, w->mcols = c->KVS + 5;
        w->mb = w->mrows * w->mcols;
        w->mask.ndim = 4;
        w->mask.shape[0] = c->B, w->mask.shape[1] = 1;
        w->mask.shape[2] = w->mrows, w->mask.shape[3] = w->mcols;
        mn = c->B * w->mb;
        break;
    case 3:
        w->mrows = w->mcols = 2048, w->mb = 0;
        w->mask.ndim = 2;
        w->mask.shape[0] = w->mask.shape[1] = 2048;
        mn = 2048 * 2048;
        break;
    case 4:
        w->mrows = 1, w->mcols = c->KVS, w->mb = c->KVS;
        w->mask.ndim = 2;
        w->mask.shape[0] = c->B, w->mask.shape[1] = c->KVS;
        mn = c->B * c->KVS;
        break;
    case 5:
        w->mrows = c->QS, w->mcols = c->KVS, w->mb = 0;
        w->mask.ndim = 3;
        w->mask.shape[0] = 1, w->mask.shape[1] = c->QS;
        w->mask.shape[2] = c->KVS;
        mn = c->QS * c->KVS;
        break;
    default: break;
    }
    if (mn > 0) {
        w->md = malloc((size_t)mn);
        for (int64_t i = 0; i < mn; i++) {
            if (c->mask_kind == 3)
                w->md[i] = (i % 2048) > (i / 2048); /* triu(1) */
            else if (c->mask_kind == 5)
                w->md[i] = i < c->KVS ? 1 : urand() < c->density;
            else
                w->md[i] = urand() < c->density;
        }
        w->mask.data = w->md;
    }
}

static void release(bufs *w)
{
    free(w->qd), free(w->kd), free(w->vd), free(w->od), free(w->ld);
    free(w->md);
}

static fia_status call_build(const tc *c, bufs *w, uint64_t *ws,
                             fast_executor **ex)
{
    const fia_tensor *kp[1] = {&w->k}, *vp[1] = {&w->v};
    fia_tensor_list kl = {1, kp}, vl = {1, vp};
    fia_int_array asl = {c->n_asl, c->asl}, aslkv = {c->n_aslkv, c->aslkv};
    return fastFusedInferAttentionScoreV2GetWorkspaceSize(
        &w->q, &kl, &vl, NULL, c->mask_kind ? &w->mask : NULL,
        c->n_asl ? &asl : NULL, c->n_aslkv ? &aslkv : NULL, NULL, NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, c->N, 1.0 / sqrt((double)c->D), c->pre, c->next,
        c->layout, c->KVN == c->N ? 0 : c->KVN, c->sparse, c->inner, 0, 0,
        c->lse, 0, 0, &w->out, c->lse ? &w->lse : NULL, ws, ex);
}

/* ---- the naive reference (double) ------------------------------------- */
static bool takes_part(const tc *c, const bufs *w, int64_t b, int64_t i,
                       int64_t j, int64_t ql, int64_t kl)
{
    if (j >= kl)
        return false;
    const uint8_t *m = w->md ? w->md + b * w->mb : NULL;
    if (c->QS == 1)
        return !(m && m[j]);
    int64_t off = kl - ql;
    switch (c->sparse) {
    case 0:
        if (!m)
            return true;
        return !m[i * w->mcols + j] && j >= i - c->pre && j <= i + c->next;
    case 1: return !m[i * w->mcols + j];
    case 2: return j <= i;
    case 3: return j <= i + off;
    default: return j >= i + off - c->pre && j <= i + off + c->next;
    }
}

static double ulp_of(fia_dtype dt, double x)
{
    int e;
    frexp(fabs(x), &e);
    if (dt == FIA_DT_FP16)
        return ldexp(1.0, (e - 1 < -14 ? -14 : e - 1) - 10);
    return ldexp(1.0, (e - 1 < -126 ? -126 : e - 1) - 7);
}

/* Runs case c and compares every output element and lse. */
static void run_case(const char *name, const tc *c)
{
    bufs w;
    build(c, &w);
    uint64_t wss = 0;
    fast_executor *ex = NULL;
    fia_status st = call_build(c, &w, &wss, &ex);
    CHECK_MSG(st == FIA_OK, "%s: phase one %d (%s)", name, st, fastLastError());
    if (st != FIA_OK) {
        release(&w);
        return;
    }
    void *ws = wss ? malloc(wss) : NULL;
    st = fastFusedInferAttentionScoreV2(ws, wss, ex, NULL);
    free(ws);
    CHECK_MSG(st == FIA_OK, "%s: phase two %d (%s)", name, st, fastLastError());
    bool round_p = c->dt == FIA_DT_BF16 || (c->inner & 1);
    double kabs = c->dt == FIA_DT_BF16 ? 0x1p-7 : round_p ? 0x1p-10 : 1e-5;
    int bad = 0, badl = 0;
    double *p = malloc((size_t)(c->KVS > 0 ? c->KVS : 1) * sizeof(double));
    for (int64_t b = 0; b < c->B; b++) {
        int64_t ql = c->QS == 1 ? 1 : c->n_asl ? c->asl[c->n_asl == 1 ? 0 : b]
                                               : c->QS;
        int64_t kl = c->n_aslkv ? c->aslkv[c->n_aslkv == 1 ? 0 : b] : c->KVS;
        bool correct = (c->inner & 2) || (c->QS > 1 && c->sparse == 3 && ql > kl);
        for (int64_t n = 0; n < c->N; n++) {
            int64_t h = n / (c->N / c->KVN);
            for (int64_t i = 0; i < c->QS; i++) {
                double m = -INFINITY, sum = 0, lse;
                int cnt = 0;
                for (int64_t j = 0; j < c->KVS; j++) {
                    p[j] = NAN;
                    if (i >= ql || !takes_part(c, &w, b, i, j, ql, kl))
                        continue;
                    double s = 0;
                    for (int64_t d = 0; d < c->D; d++)
                        s += ld(c, w.qd, idx4(c->layout, false, c, b, n, i, d)) *
                             ld(c, w.kd, idx4(c->layout, true, c, b, h, j, d));
                    p[j] = s * (double)(float)(1.0 / sqrt((double)c->D));
                    m = p[j] > m ? p[j] : m;
                    cnt++;
                }
                for (int64_t j = 0; j < c->KVS; j++)
                    if (!isnan(p[j]))
                        sum += p[j] = exp(p[j] - m);
                bool zero = i >= ql || kl == 0 || (cnt == 0 && correct);
                bool mean = !zero && cnt == 0;
                lse = zero ? INFINITY : mean ? -1e12 : m + log(sum);
                for (int64_t d = 0; d < c->D; d++) {
                    double want = 0;
                    for (int64_t j = 0; j < kl && !zero; j++) {
                        double vj = ld(c, w.vd, idx4(c->layout, true, c, b, h, j, d));
                        if (mean)
                            want += vj / (double)kl;
                        else if (!isnan(p[j]))
                            want += p[j] / sum * vj;
                    }
                    double got = ld(c, w.od, out_idx(c, b, n, i, d));
                    double tol = 2 * ulp_of(c->dt, want) + kabs;
                    if (zero ? got != 0.0 : !(fabs(got - want) <= tol)) {
                        if (bad++ < 5)
                            fprintf(stderr, "%s: out[%lld,%lld,%lld,%lld] = %.9g "
                                    "want %.9g\n", name, (long long)b,
                                    (long long)n, (long long)i, (long long)d,
                                    got, want);
                    }
                }
                if (c->lse) {
                    double got = w.ld[(b * c->N + n) * c->QS + i];
                    bool ok = isinf(lse) ? got == lse
                                         : fabs(got - lse) <= 1e-5 * fmax(1, fabs(lse));
                    if (!ok && badl++ < 5)
                        fprintf(stderr, "%s: lse[%lld,%lld,%lld] = %.9g want "
                                "%.9g\n", name, (long long)b, (long long)n,
                                (long long)i, got, lse);
                }
            }
        }
    }
    CHECK_MSG(bad == 0, "%s: %d output elements off", name, bad);
    CHECK_MSG(badl == 0, "%s: %d lse elements off", name, badl);
    free(p);
    release(&w);
}

#define TC(...) ((tc){.pre = 2147483647, .next = 2147483647, .amp = 1.0, \
                      .inner = 0, .lse = true, __VA_ARGS__})

static void numerics(void)
{
    run_case("bsh fp16", &TC(.layout = "BSH", .dt = FIA_DT_FP16, .B = 2, .N = 4,
             .KVN = 4, .QS = 37, .KVS = 100, .D = 32));
    run_case("bsh fp16 hp-perf", &TC(.layout = "BSH", .dt = FIA_DT_FP16, .B = 2,
             .N = 2, .KVN = 2, .QS = 40, .KVS = 150, .D = 64, .inner = 1));
    run_case("bnsd bf16 gqa", &TC(.layout = "BNSD", .dt = FIA_DT_BF16, .B = 2,
             .N = 8, .KVN = 2, .QS = 33, .KVS = 130, .D = 64));
    run_case("bsnd fp16 big scores", &TC(.layout = "BSND", .dt = FIA_DT_FP16,
             .B = 1, .N = 2, .KVN = 1, .QS = 70, .KVS = 200, .D = 16,
             .amp = 6.0));
    run_case("bnsd_bsnd", &TC(.layout = "BNSD_BSND", .dt = FIA_DT_FP16, .B = 2,
             .N = 3, .KVN = 3, .QS = 5, .KVS = 9, .D = 16));
    run_case("mode0 mask pre/next asl", &TC(.layout = "BSND", .dt = FIA_DT_FP16,
             .B = 3, .N = 2, .KVN = 2, .QS = 40, .KVS = 90, .D = 16,
             .mask_kind = 1, .density = 0.3, .pre = 20, .next = 5, .n_asl = 3,
             .asl = {40, 17, 0}, .n_aslkv = 3, .aslkv = {90, 33, 50}));
    run_case("mode0 mask aligned-up B1SS", &TC(.layout = "BNSD",
             .dt = FIA_DT_BF16, .B = 2, .N = 2, .KVN = 1, .QS = 20, .KVS = 70,
             .D = 32, .mask_kind = 2, .density = 0.5, .pre = -3, .next = 40,
             .inner = 2));
    run_case("mode1 mask", &TC(.layout = "BSH", .dt = FIA_DT_FP16, .B = 2,
             .N = 2, .KVN = 2, .QS = 34, .KVS = 66, .D = 16, .sparse = 1,
             .mask_kind = 2, .density = 0.6, .pre = 1, .next = 1));
    run_case("mode2", &TC(.layout = "BSH", .dt = FIA_DT_FP16, .B = 2, .N = 2,
             .KVN = 2, .QS = 50, .KVS = 80, .D = 16, .sparse = 2, .mask_kind = 3,
             .n_aslkv = 1, .aslkv = {61}));
    run_case("mode3", &TC(.layout = "BNSD", .dt = FIA_DT_BF16, .B = 2, .N = 2,
             .KVN = 1, .QS = 45, .KVS = 100, .D = 32, .sparse = 3,
             .mask_kind = 3, .n_asl = 2, .asl = {45, 30}, .n_aslkv = 2,
             .aslkv = {100, 64}));
    run_case("mode3 q>kv invalid rows", &TC(.layout = "BSND", .dt = FIA_DT_FP16,
             .B = 1, .N = 2, .KVN = 2, .QS = 64, .KVS = 40, .D = 16,
             .sparse = 3, .mask_kind = 3));
    run_case("mode4 band", &TC(.layout = "BSH", .dt = FIA_DT_FP16, .B = 2,
             .N = 1, .KVN = 1, .QS = 70, .KVS = 90, .D = 16, .sparse = 4,
             .mask_kind = 3, .pre = 10, .next = 3, .inner = 1));
    run_case("mode4 huge tokens", &TC(.layout = "BSH", .dt = FIA_DT_FP16,
             .B = 1, .N = 1, .KVN = 1, .QS = 20, .KVS = 30, .D = 16,
             .sparse = 4, .mask_kind = 3, .pre = INT64_MAX, .next = INT64_MIN));
    run_case("decode bsh D127", &TC(.layout = "BSH", .dt = FIA_DT_FP16, .B = 3,
             .N = 4, .KVN = 2, .QS = 1, .KVS = 300, .D = 127, .mask_kind = 4,
             .density = 0.2, .n_aslkv = 3, .aslkv = {300, 1, 0}, .sparse = 7,
             .n_asl = 0));
    run_case("decode bnsd bf16", &TC(.layout = "BNSD", .dt = FIA_DT_BF16,
             .B = 2, .N = 8, .KVN = 1, .QS = 1, .KVS = 129, .D = 64,
             .inner = 1));
    run_case("kv_s 0", &TC(.layout = "BSH", .dt = FIA_DT_FP16, .B = 2, .N = 2,
             .KVN = 2, .QS = 5, .KVS = 0, .D = 16));
    /* fully masked row 0 (kind 5): mean of V without correction, 0/+inf with */
    run_case("fully masked mean", &TC(.layout = "BSH", .dt = FIA_DT_FP16,
             .B = 1, .N = 2, .KVN = 2, .QS = 8, .KVS = 12, .D = 16,
             .mask_kind = 5, .density = 0.3, .inner = 1));
    run_case("fully masked corrected", &TC(.layout = "BSH", .dt = FIA_DT_BF16,
             .B = 1, .N = 2, .KVN = 2, .QS = 8, .KVS = 12, .D = 16,
             .mask_kind = 5, .density = 0.3, .inner = 3));
    /* schedule shapes: big GQA groups, several query blocks, D not a
     * multiple of 16, decode splits with a fully masked row */
    run_case("gqa group 16", &TC(.layout = "BNSD", .dt = FIA_DT_FP16, .B = 1,
             .N = 16, .KVN = 1, .QS = 9, .KVS = 140, .D = 80, .sparse = 3,
             .mask_kind = 3, .inner = 1));
    run_case("mha 3 query blocks", &TC(.layout = "BSND", .dt = FIA_DT_BF16,
             .B = 1, .N = 2, .KVN = 2, .QS = 150, .KVS = 170, .D = 48,
             .sparse = 2, .mask_kind = 3));
    run_case("decode group 8 split", &TC(.layout = "BNSD", .dt = FIA_DT_FP16,
             .B = 2, .N = 16, .KVN = 2, .QS = 1, .KVS = 1000, .D = 128,
             .mask_kind = 4, .density = 0.1, .n_aslkv = 2,
             .aslkv = {1000, 700}));
    run_case("decode all masked split", &TC(.layout = "BSH",
             .dt = FIA_DT_FP16, .B = 2, .N = 2, .KVN = 1, .QS = 1,
             .KVS = 200, .D = 32, .mask_kind = 4, .density = 1.0));
    run_case("no lse", &TC(.layout = "BSND", .dt = FIA_DT_FP16, .B = 1, .N = 1,
             .KVN = 1, .QS = 3, .KVS = 7, .D = 16, .lse = false));
}

static void empty_query(void)
{
    tc c = TC(.layout = "BSH", .dt = FIA_DT_FP16, .B = 2, .N = 2, .KVN = 2,
              .QS = 0, .KVS = 5, .D = 16);
    bufs w;
    build(&c, &w);
    uint64_t wss = 7;
    fast_executor *ex = NULL;
    CHECK_EQ_INT(call_build(&c, &w, &wss, &ex), FIA_OK);
    CHECK_EQ_INT(wss, 0);
    CHECK_EQ_INT(fastFusedInferAttentionScoreV2(NULL, 0, ex, NULL), FIA_OK);
    release(&w);
}

static void phase_two(void)
{
    tc c = TC(.layout = "BSH", .dt = FIA_DT_FP16, .B = 1, .N = 1, .KVN = 1,
              .QS = 4, .KVS = 4, .D = 16);
    bufs w;
    build(&c, &w);
    uint64_t wss = 0;
    fast_executor *ex = NULL;
    CHECK_EQ_INT(fastFusedInferAttentionScoreV2(NULL, 0, NULL, NULL),
                 FIA_ERR_PARAM_NULLPTR);
    CHECK(strncmp(fastLastError(), "R_EXECUTOR", 10) == 0);
    CHECK_EQ_INT(call_build(&c, &w, &wss, &ex), FIA_OK);
    CHECK(wss > 0);
    CHECK_EQ_INT(fastFusedInferAttentionScoreV2(NULL, wss, ex, NULL),
                 FIA_ERR_PARAM_NULLPTR);
    CHECK_EQ_INT(call_build(&c, &w, &wss, &ex), FIA_OK);
    void *ws = malloc(wss);
    CHECK_EQ_INT(fastFusedInferAttentionScoreV2(ws, wss - 1, ex, NULL),
                 FIA_ERR_PARAM_INVALID);
    CHECK(strncmp(fastLastError(), "R_WORKSPACE_SIZE", 16) == 0);
    /* status-only executor (no data) destroyed without running */
    CHECK_EQ_INT(call_build(&c, &w, &wss, &ex), FIA_OK);
    fastExecutorDestroy(ex);
    fastExecutorDestroy(NULL);
    /* running an executor without data is a runtime error, not a crash */
    w.q.data = NULL;
    CHECK_EQ_INT(call_build(&c, &w, &wss, &ex), FIA_OK);
    CHECK_EQ_INT(fastFusedInferAttentionScoreV2(ws, wss, ex, NULL),
                 FIA_ERR_RUNTIME_ERROR);
    w.q.data = w.qd;
    CHECK_EQ_INT(call_build(&c, &w, &wss, &ex), FIA_OK);
    CHECK_EQ_INT(fastFusedInferAttentionScoreV2(ws, wss, ex, NULL), FIA_OK);
    free(ws);
    release(&w);
}

static void conversions(void)
{
    int bad = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        double x = fia_fp16_to_double((uint16_t)h);
        float f = fast_fp16_to_float((uint16_t)h);
        if (!(isnan(x) ? isnan(f) : (double)f == x))
            bad++;
        double y = fia_bf16_to_double((uint16_t)h);
        float g = fast_bf16_to_float((uint16_t)h);
        if (!(isnan(y) ? isnan(g) : (double)g == y))
            bad++;
    }
    CHECK_EQ_INT(bad, 0);
    for (int i = 0; i < 200000; i++) {
        double x = ldexp(2 * urand() - 1, (int)(urand() * 60) - 40);
        if (i % 7 == 0) /* exact fp16 midpoints */
            x = (fia_fp16_to_double(fia_double_to_fp16(x)) +
                 ldexp(1.0, (int)floor(log2(fabs(x) + 1e-300)) - 11));
        if (fast_double_to_fp16(x) != fia_double_to_fp16(x))
            bad++;
        if (fast_double_to_bf16(x) != fia_double_to_bf16(x))
            bad++;
        float f = (float)x;
        if (fast_round_fp16f(f) != (float)fia_fp16_to_double(fia_double_to_fp16(f)))
            bad++;
        if (fast_round_bf16f(f) != (float)fia_bf16_to_double(fia_double_to_bf16(f)))
            bad++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(fast_double_to_fp16(65519.99) == 0x7bff);
    CHECK(fast_double_to_fp16(65520.0) == 0x7c00);
    CHECK(fast_double_to_fp16(-0.0) == 0x8000);
    CHECK(isinf(fast_round_fp16f(70000.0f)));
}

int main(void)
{
    conversions();
    numerics();
    empty_query();
    phase_two();
    return check_summary();
}
