/* fast/ learnable_sink (004; fast/check_sink.c, fast/run_sink.c): each
 * rule broken and obeyed (status in both profiles and check id), what
 * stays refused as not modeled (002's full quantization; MLA is computed:
 * test_fast_sink_rope.c) and that a
 * documented rejection is never hidden by it, phase two without the
 * sink's data; then the arithmetic against a naive double-precision
 * attention written here, the sink a virtual key of score sink[n] (not
 * scaled) in the max and the denominator, without a value: decode (keys
 * split across 1..3 threads, a task order: the sink counted once), a
 * shared prefix's partials, prefill (tiled, causal), GQA, pse, an
 * explicit mask with a row whose keys are all masked (it ends as without
 * a sink), a row whose keys all scored -inf (out 0, lse the sink), sinks
 * that dominate and that vanish, non-finite sinks, fp16 and bf16, every
 * kernel level this CPU has. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fast_testlib.h"
#include "fast_expect.h"
#include "fia/dtype.h"
#include "fia/fast.h"

enum { MAXB = 4, MAXN = 16 };

typedef struct cs {
    const char *layout;
    fia_dtype dt;
    int64_t B, N, KVN, QS, KVS, D;
    int64_t kl[MAXB];   /* each batch's own keys */
    int sparse;         /* 0, or 3 (causal, the compressed mask) */
    bool xmask;         /* sparse 0 with a mask [B, QS, KVS]: keys masked
                           at random, every key of (b 0, row 0) masked */
    bool pse;           /* pse [B, N, QS, KVS] */
    bool drop;          /* the pse -inf on every key of (b 0, head 1, row 0) */
    int64_t P;          /* shared prefix rows (0: none) */
    int inner;
    bool sinkless;      /* the call without a sink */
    float sink[MAXN];   /* head n's, as bf16 */
    /* tensors and data */
    fia_tensor q, k, v, out, lse, mask, pset, kp, vp, sk;
    uint16_t *qd, *kd, *vd, *od, *psd, *kpd, *vpd, *skd;
    float *ld;
    uint8_t *md;
    int64_t asl_v[MAXB], aslkv_v[MAXB];
    fia_int_array asl, aslkv;
} cs;

static int64_t numel(const fia_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= t->shape[i];
    return n;
}

static double wd(fia_dtype dt, uint16_t h)
{
    return dt == FIA_DT_FP16 ? fia_fp16_to_double(h) : fia_bf16_to_double(h);
}

/* Shapes (and, data, the data: random rows, poison in the key rows beyond
 * a batch's length). */
static void build(cs *c, bool data)
{
    const char *l = c->layout;
    const bool bn = ftl_bnsd(l);
    const fia_dtype dt = c->dt;
    c->q = ftl_tensor(l, bn, dt, c->B, c->N, c->QS, c->D, NULL);
    c->k = ftl_tensor(l, bn, dt, c->B, c->KVN, c->KVS, c->D, NULL);
    c->v = c->k;
    c->out = c->q;
    c->lse = (fia_tensor){.dtype = FIA_DT_FP32, .ndim = 4,
                          .shape = {c->B, c->N, c->QS, 1}};
    c->sk = (fia_tensor){.dtype = FIA_DT_BF16, .ndim = 1, .shape = {c->N}};
    if (c->sparse == 3)
        c->mask = (fia_tensor){.dtype = FIA_DT_BOOL, .ndim = 2,
                               .shape = {2048, 2048}};
    else
        c->mask = (fia_tensor){.dtype = FIA_DT_BOOL, .ndim = 3,
                               .shape = {c->B, c->QS, c->KVS}};
    c->pset = (fia_tensor){.dtype = dt, .ndim = 4,
                           .shape = {c->B, c->N, c->QS, c->P + c->KVS}};
    if (c->P > 0) {
        c->kp = ftl_tensor(l, bn, dt, 1, c->KVN, c->P, c->D, NULL);
        c->vp = c->kp;
    }
    for (int64_t b = 0; b < c->B; b++)
        c->asl_v[b] = c->QS, c->aslkv_v[b] = c->kl[b];
    c->asl = (fia_int_array){c->B, c->asl_v};
    c->aslkv = (fia_int_array){c->B, c->aslkv_v};
    if (!data)
        return;
    c->qd = malloc((size_t)numel(&c->q) * 2);
    c->kd = malloc((size_t)numel(&c->k) * 2);
    c->vd = malloc((size_t)numel(&c->k) * 2);
    c->od = malloc((size_t)numel(&c->out) * 2);
    c->ld = malloc((size_t)numel(&c->lse) * 4);
    c->skd = malloc((size_t)c->N * 2);
    for (int64_t i = 0; i < numel(&c->q); i++) c->qd[i] = ftl_rnd(dt);
    for (int64_t b = 0; b < c->B; b++)
        for (int64_t h = 0; h < c->KVN; h++)
            for (int64_t j = 0; j < c->KVS; j++) {
                const int64_t o = ftl_at(bn, c->KVN, c->KVS, c->D, b, h, j);
                for (int64_t d = 0; d < c->D; d++) {
                    const bool in = j < c->kl[b];
                    c->kd[o + d] = in ? ftl_rnd(dt) : ftl_poison(dt);
                    c->vd[o + d] = in ? ftl_rnd(dt) : ftl_poison(dt);
                }
            }
    for (int64_t n = 0; n < c->N; n++)
        c->skd[n] = fia_float_to_bf16(c->sink[n]);
    if (c->sparse == 3 || c->xmask) {
        const int64_t nm = numel(&c->mask);
        c->md = malloc((size_t)nm);
        if (c->sparse == 3) {
            for (int64_t i = 0; i < 2048; i++)
                for (int64_t j = 0; j < 2048; j++)
                    c->md[i * 2048 + j] = j > i;
        } else {
            for (int64_t x = 0; x < nm; x++)
                c->md[x] = ftl_next32() % 4 == 0;
            for (int64_t j = 0; j < c->KVS; j++)
                c->md[j] = 1; /* (b 0, row 0): no key */
        }
        c->mask.data = c->md;
    }
    if (c->pse) {
        const int64_t np = numel(&c->pset);
        c->psd = malloc((size_t)np * 2);
        for (int64_t x = 0; x < np; x++)
            c->psd[x] = ftl_rnd(dt);
        const uint16_t ninf = dt == FIA_DT_FP16 ? 0xfc00u : 0xff80u;
        for (int64_t j = 0; c->drop && j < c->P + c->KVS; j++)
            c->psd[(1 * c->QS) * (c->P + c->KVS) + j] = ninf;
        c->pset.data = c->psd;
    }
    if (c->P > 0) {
        const int64_t np = numel(&c->kp);
        c->kpd = malloc((size_t)np * 2), c->vpd = malloc((size_t)np * 2);
        for (int64_t x = 0; x < np; x++)
            c->kpd[x] = ftl_rnd(dt), c->vpd[x] = ftl_rnd(dt);
        c->kp.data = c->kpd, c->vp.data = c->vpd;
    }
    c->q.data = c->qd, c->k.data = c->kd, c->v.data = c->vd;
    c->out.data = c->od, c->lse.data = c->ld, c->sk.data = c->skd;
}

static void release(cs *c)
{
    free(c->qd), free(c->kd), free(c->vd), free(c->od), free(c->ld);
    free(c->skd), free(c->md), free(c->psd), free(c->kpd), free(c->vpd);
}

static fia_status phase_one(cs *c, fast_executor **ex, uint64_t *wss)
{
    const fia_tensor *kk[1] = {&c->k}, *vv[1] = {&c->v};
    fia_tensor_list kl = {1, kk}, vl = {1, vv};
    fast_v2_extras x = {.learnableSinkOptional = c->sinkless ? NULL : &c->sk};
    /* the arrays are the case's own (a copied case points at its copy) */
    c->asl = (fia_int_array){c->B, c->asl_v};
    c->aslkv = (fia_int_array){c->B, c->aslkv_v};
    const bool mask = c->sparse == 3 || c->xmask;
    return fastFusedInferAttentionScoreV2ExtGetWorkspaceSize(
        &c->q, &kl, &vl, c->pse ? &c->pset : NULL, mask ? &c->mask : NULL,
        c->QS > 1 ? &c->asl : NULL, &c->aslkv, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        c->P > 0 ? &c->kp : NULL, c->P > 0 ? &c->vp : NULL, NULL, c->N,
        1.0 / sqrt((double)c->D), 2147483647, 2147483647, c->layout, c->KVN,
        c->sparse, c->inner, 0, 0, true, 0, 0, &x, &c->out, &c->lse, wss, ex);
}

static fia_status run(cs *c)
{
    fast_executor *ex = NULL;
    uint64_t wss = 0;
    fia_status st = phase_one(c, &ex, &wss);
    if (st != FIA_OK) {
        fastExecutorDestroy(ex);
        return st;
    }
    return ftl_phase_two(ex, wss);
}

/* ---- validation -------------------------------------------------------- */
/* A decode call BNSD fp16 (N 8, KV_N 2, D 64, KV_S 32), status only; its
 * sink bf16 [N]. */
static cs vbase(void)
{
    cs c = {.layout = "BNSD", .dt = FIA_DT_FP16, .B = 2, .N = 8, .KVN = 2,
            .QS = 1, .KVS = 32, .D = 64, .kl = {32, 20}, .inner = 1};
    build(&c, false);
    return c;
}

/* Phase one's status in the profile set (the executor destroyed). */
static fia_status cs_status(void *c)
{
    fast_executor *ex = NULL;
    uint64_t ws = 0;
    fia_status got = phase_one(c, &ex, &ws);
    fastExecutorDestroy(ex);
    return got;
}

/* Phase one in both profiles (a semantic rejection's 161002 is 561002
 * under CANN, a registered-dtype id's, T_*, 161002 in both), the check id
 * starting the error. */
static void expect(cs c, fia_status want_doc, const char *id, int line)
{
    ftl_expect_profiles(cs_status, &c, want_doc,
                        ftl_cann_status(want_doc, ftl_dtype_layer_id(id)), id,
                        line);
}

#define OK(c) expect((c), FIA_OK, NULL, __LINE__)
#define BAD(id, c) expect((c), FIA_ERR_PARAM_INVALID, id, __LINE__)
#define NOTMOD(id, c) expect((c), FIA_ERR_NOT_MODELED, id, __LINE__)

/* The extended call with every optional tensor given by slot, status
 * only (the int8 and MLA calls). */
typedef struct xcall {
    fia_tensor q, k, v, out, ds1, qs1, ds2, bt, qr, kr, sk;
    bool full8, mla, sink;
    int64_t N, KVN, bs;
    const char *layout;
    int64_t kvl[2];
} xcall;

static fia_status xphase_one(const xcall *x)
{
    const fia_tensor *kk[1] = {&x->k}, *vv[1] = {&x->v};
    fia_tensor_list kl = {1, kk}, vl = {1, vv};
    fia_int_array aslkv = {2, x->kvl};
    fast_v2_extras e = {.queryRopeOptional = x->mla ? &x->qr : NULL,
                        .keyRopeOptional = x->mla ? &x->kr : NULL,
                        .learnableSinkOptional = x->sink ? &x->sk : NULL};
    fast_executor *ex = NULL;
    uint64_t ws = 0;
    fia_status st = fastFusedInferAttentionScoreV2ExtGetWorkspaceSize(
        &x->q, &kl, &vl, NULL, NULL, NULL, &aslkv,
        x->full8 ? &x->ds1 : NULL, x->full8 ? &x->qs1 : NULL,
        x->full8 ? &x->ds2 : NULL, NULL, NULL, NULL, NULL,
        x->mla ? &x->bt : NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, x->N, 0.125, 2147483647, 2147483647, x->layout, x->KVN,
        0, 1, x->bs, 0, false, 0, 0, &e, &x->out, NULL, &ws, &ex);
    fastExecutorDestroy(ex);
    return st;
}

static fia_status xcall_status(void *x)
{
    return xphase_one(x);
}

static void xexpect(const xcall *x, fia_status want_doc, const char *id,
                    int line)
{
    ftl_expect_profiles(xcall_status, (void *)x, want_doc,
                        ftl_cann_status(want_doc, false), id, line);
}

static fia_tensor t1(fia_dtype dt, int64_t a)
{
    return (fia_tensor){.dtype = dt, .ndim = 1, .shape = {a}};
}

static fia_tensor t3(fia_dtype dt, int64_t a, int64_t b, int64_t c)
{
    return (fia_tensor){.dtype = dt, .ndim = 3, .shape = {a, b, c}};
}

static fia_tensor t4(fia_dtype dt, int64_t a, int64_t b, int64_t c, int64_t d)
{
    return (fia_tensor){.dtype = dt, .ndim = 4, .shape = {a, b, c, d}};
}

/* Full quantization every Q8 rule accepts: int8 BNSD, Q_S 16, D 64, the
 * three per-tensor scales, an fp16 output. */
static xcall full8(void)
{
    xcall x = {.layout = "BNSD", .N = 4, .KVN = 4, .full8 = true,
               .kvl = {32, 32}, .sink = true};
    x.q = t4(FIA_DT_INT8, 2, 4, 16, 64);
    x.k = x.v = t4(FIA_DT_INT8, 2, 4, 32, 64);
    x.out = t4(FIA_DT_FP16, 2, 4, 16, 64);
    x.ds1 = t1(FIA_DT_UINT64, 1), x.qs1 = t1(FIA_DT_FP32, 1);
    x.ds2 = t1(FIA_DT_FP32, 1);
    x.sk = t1(FIA_DT_BF16, 4);
    return x;
}

/* MLA every rule accepts: BSND bf16 decode, N 32, one KV head, D 512 + 64,
 * a (blocknum, 128, 512) cache. */
static xcall mla(void)
{
    xcall x = {.layout = "BSND", .N = 32, .KVN = 1, .mla = true, .bs = 128,
               .kvl = {200, 130}, .sink = true};
    x.q = x.out = t4(FIA_DT_BF16, 2, 1, 32, 512);
    x.qr = t4(FIA_DT_BF16, 2, 1, 32, 64);
    x.k = x.v = t3(FIA_DT_BF16, 6, 128, 512);
    x.kr = t3(FIA_DT_BF16, 6, 128, 64);
    x.bt = (fia_tensor){.dtype = FIA_DT_INT32, .ndim = 2, .shape = {2, 3}};
    x.sk = t1(FIA_DT_BF16, 32);
    return x;
}

static void rules(void)
{
    cs c = vbase();
    c.sinkless = true;
    OK(c);
    c = vbase();
    OK(c);
    /* SINK-001: bf16 only, a semantic rule (no registered dtype list) */
    static const fia_dtype other[] = {FIA_DT_FP16, FIA_DT_FP32, FIA_DT_INT8,
                                      FIA_DT_INT64, FIA_DT_BOOL};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        c = vbase(), c.sk.dtype = other[i];
        BAD("S_SINK_DTYPE", c);
    }
    c = vbase(), c.dt = FIA_DT_BF16, build(&c, false);
    OK(c); /* a bf16 sink with a bf16 query too */
    /* SINK-002: rank 1, [N] */
    c = vbase(), c.sk.shape[0] = 7;
    BAD("S_SINK_SHAPE", c);
    c = vbase(), c.sk.shape[0] = 9;
    BAD("S_SINK_SHAPE", c);
    c = vbase(), c.sk.shape[0] = 2; /* KV_N, not N */
    BAD("S_SINK_SHAPE", c);
    c = vbase(), c.sk.shape[0] = 0; /* empty: not absent */
    BAD("S_SINK_SHAPE", c);
    c = vbase(), c.sk = t3(FIA_DT_BF16, 1, 1, 8);
    BAD("S_SINK_SHAPE", c);
    c = vbase(), c.sk.ndim = 2, c.sk.shape[1] = 1;
    BAD("S_SINK_SHAPE", c);
    c = vbase(), c.sk.ndim = 0;
    BAD("S_SINK_SHAPE", c);
    /* prefill, BSH, GQA: [N] with N the query's heads */
    c = vbase(), c.layout = "BSH", c.QS = 5, build(&c, false);
    OK(c);
    c.sk.shape[0] = 4;
    BAD("S_SINK_SHAPE", c);
    /* a lower layer first: a bad dtype of another input (layer 2) */
    c = vbase(), c.sk.dtype = FIA_DT_FP32, c.lse.dtype = FIA_DT_FP16;
    BAD("T_", c);

    /* not modeled (layer 6): with 002's full quantization (an int8 query
     * without rope); MLA (its full quantization too) computes it */
    xcall x = full8();
    x.sink = false;
    xexpect(&x, FIA_OK, NULL, __LINE__);
    x = full8();
    xexpect(&x, FIA_ERR_NOT_MODELED, "M_SINK_QUANT", __LINE__);
    /* ... never hiding a rejection: the sink's own rules, the others' */
    x = full8(), x.sk.dtype = FIA_DT_FP16;
    xexpect(&x, FIA_ERR_PARAM_INVALID, "S_SINK_DTYPE", __LINE__);
    x = full8(), x.sk.shape[0] = 3;
    xexpect(&x, FIA_ERR_PARAM_INVALID, "S_SINK_SHAPE", __LINE__);
    x = full8(), x.ds1 = t1(FIA_DT_UINT64, 2); /* Q8-005 per-tensor */
    xexpect(&x, FIA_ERR_PARAM_INVALID, "Q8-005", __LINE__);
    x = mla();
    x.sink = false;
    xexpect(&x, FIA_OK, NULL, __LINE__);
    x = mla(); /* computed (test_fast_sink_rope.c: its arithmetic) */
    xexpect(&x, FIA_OK, NULL, __LINE__);
    x = mla(), x.sk.shape[0] = 1;
    xexpect(&x, FIA_ERR_PARAM_INVALID, "S_SINK_SHAPE", __LINE__);
    x = mla(), x.sk.dtype = FIA_DT_FP16;
    xexpect(&x, FIA_ERR_PARAM_INVALID, "S_SINK_DTYPE", __LINE__);
    x = mla(), x.kr.shape[2] = 32;
    xexpect(&x, FIA_ERR_PARAM_INVALID, "S_MLA_KROPE_SHAPE", __LINE__);
}

/* Phase two without the sink's data: a runtime error, not a read. */
static void no_data(void)
{
    cs c = {.layout = "BNSD", .dt = FIA_DT_FP16, .B = 2, .N = 8, .KVN = 2,
            .QS = 1, .KVS = 32, .D = 64, .kl = {32, 20}, .inner = 1};
    build(&c, true);
    c.sk.data = NULL;
    fast_executor *ex = NULL;
    uint64_t wss = 0;
    CHECK_EQ_INT(phase_one(&c, &ex, &wss), FIA_OK);
    CHECK_EQ_INT(ftl_phase_two(ex, wss), FIA_ERR_RUNTIME_ERROR);
    CHECK(strncmp(fastLastError(), "R_NO_DATA", 9) == 0);
    release(&c);
}

/* ---- arithmetic ---------------------------------------------------------- */
/* The naive attention of every row: ref (at the output's offsets), lse
 * ([b][n][i]), and nokey[b][n][i]: no key takes part (the row ends as
 * without a sink). */
static void naive(const cs *c, double *ref, double *lse, bool *nokey)
{
    const bool bn = ftl_bnsd(c->layout);
    const double scale = 1.0 / sqrt((double)c->D);
    const int64_t g = c->N / c->KVN, S = c->P + c->KVS;
    double *s = malloc((size_t)S * sizeof(double));
    bool *in = malloc((size_t)S);
    for (int64_t b = 0; b < c->B; b++)
        for (int64_t n = 0; n < c->N; n++)
            for (int64_t i = 0; i < c->QS; i++) {
                const int64_t h = n / g, kl = c->P + c->kl[b];
                const int64_t r = (b * c->N + n) * c->QS + i;
                const uint16_t *q =
                    c->qd + ftl_at(bn, c->N, c->QS, c->D, b, n, i);
                const double sink = fia_bf16_to_double(c->skd[n]);
                double mx = sink;
                bool any = false;
                for (int64_t j = 0; j < kl; j++) {
                    in[j] = c->sparse == 3 ? j <= kl - c->QS + i
                            : c->xmask ? c->md[(b * c->QS + i) * c->KVS + j] == 0
                                       : true;
                    if (!in[j])
                        continue;
                    any = true;
                    const uint16_t *k =
                        j < c->P ? c->kpd + ftl_at(bn, c->KVN, c->P, c->D, 0, h, j)
                                 : c->kd + ftl_at(bn, c->KVN, c->KVS, c->D, b,
                                                  h, j - c->P);
                    double x = 0.0;
                    for (int64_t d = 0; d < c->D; d++)
                        x += wd(c->dt, q[d]) * wd(c->dt, k[d]);
                    s[j] = x * scale;
                    if (c->pse)
                        s[j] += wd(c->dt, c->psd[r * S + j]);
                    mx = s[j] > mx ? s[j] : mx;
                }
                nokey[r] = !any;
                double *o = ref + ftl_at(bn, c->N, c->QS, c->D, b, n, i);
                double sum = exp(sink - mx);
                for (int64_t d = 0; d < c->D; d++)
                    o[d] = 0.0;
                for (int64_t j = 0; j < kl; j++) {
                    if (!in[j])
                        continue;
                    const double p = exp(s[j] - mx);
                    const uint16_t *v =
                        j < c->P ? c->vpd + ftl_at(bn, c->KVN, c->P, c->D, 0, h, j)
                                 : c->vd + ftl_at(bn, c->KVN, c->KVS, c->D, b,
                                                  h, j - c->P);
                    sum += p;
                    for (int64_t d = 0; d < c->D; d++)
                        o[d] += p * wd(c->dt, v[d]);
                }
                for (int64_t d = 0; d < c->D; d++)
                    o[d] /= sum;
                lse[r] = mx + log(sum);
            }
    free(s), free(in);
}

/* The largest error of a run beyond the tolerance (<= 0: all within; NaN
 * counts as beyond); rows without a key must equal base / base_lse (the
 * call without a sink) bit for bit. */
static double compare(const cs *c, const double *ref, const double *lse,
                      const bool *nokey, const uint16_t *base,
                      const float *base_lse)
{
    const bool bn = ftl_bnsd(c->layout);
    /* P rounded to the input dtype before P.V, the output rounded once */
    const double tol = c->dt == FIA_DT_BF16 ? 1.5e-2 : 4e-3;
    double worst = -1.0;
    for (int64_t b = 0; b < c->B; b++)
        for (int64_t n = 0; n < c->N; n++)
            for (int64_t i = 0; i < c->QS; i++) {
                const int64_t o = ftl_at(bn, c->N, c->QS, c->D, b, n, i);
                const int64_t r = (b * c->N + n) * c->QS + i;
                if (nokey[r]) {
                    if (memcmp(c->od + o, base + o, (size_t)c->D * 2) != 0 ||
                        memcmp(c->ld + r, base_lse + r, 4) != 0)
                        worst = 1e9;
                    continue;
                }
                for (int64_t d = 0; d < c->D; d++) {
                    const double got = wd(c->dt, c->od[o + d]);
                    const double e = fabs(got - ref[o + d]) -
                                     tol * (1.0 + fabs(ref[o + d]));
                    worst = isnan(got) ? 1e9 : e > worst ? e : worst;
                }
                const double e = fabs(c->ld[r] - lse[r]) -
                                 (2e-4 + 1e-6 * fabs(lse[r]));
                worst = isnan(c->ld[r]) ? 1e9 : e > worst ? e : worst;
            }
    return worst;
}

static const char *const levels[] = {"scalar", "avx2", "avx512"};

/* Runs the case at every level, 1..3 threads, in the plain and a seeded
 * task order: every run within the tolerance of the naive attention. */
static void numeric(cs c, const char *what)
{
    build(&c, true);
    const int64_t no = numel(&c.out), nl = numel(&c.lse);
    double *ref = malloc((size_t)no * sizeof(double));
    double *lse = malloc((size_t)nl * sizeof(double));
    bool *nokey = malloc((size_t)nl);
    uint16_t *base = malloc((size_t)no * 2);
    float *base_lse = malloc((size_t)nl * 4);
    naive(&c, ref, lse, nokey);
    for (int lv = 0; lv < 3; lv++) {
        if (!ftl_level_wanted(levels[lv]))
            continue;
        fastForceKernelLevel(levels[lv]);
        c.sinkless = true;
        CHECK_EQ_INT(run(&c), FIA_OK);
        memcpy(base, c.od, (size_t)no * 2);
        memcpy(base_lse, c.ld, (size_t)nl * 4);
        c.sinkless = false;
        for (int th = 1; th <= 3; th++)
            for (int ord = 0; ord < 2; ord++) {
                fastSetThreadCount(th);
                fastSetTaskOrder(ord ? 0x5eedull + (unsigned)th : 0);
                for (int64_t i = 0; i < no; i++)
                    c.od[i] = 0x7bcd;
                const fia_status st = run(&c);
                CHECK_MSG(st == FIA_OK, "%s: %d: %s", what, st,
                          fastLastError());
                const double w = compare(&c, ref, lse, nokey, base,
                                         base_lse);
                CHECK_MSG(w <= 0.0, "%s (%s, %d threads, order %d): an "
                          "element %.3g beyond the tolerance", what,
                          levels[lv], th, ord, w);
            }
        fastSetThreadCount(0);
        fastSetTaskOrder(0);
    }
    fastForceKernelLevel("auto");
    free(ref), free(lse), free(nokey), free(base), free(base_lse);
    release(&c);
}

/* Sinks per head: near the rows' max (they matter), dominating (40: the
 * output ~e^-36 of the plain one, lse ~40), negligible (-30). */
static const float sinks[MAXN] = {3.0f, 40.0f, -30.0f, 1.5f, 5.0f, 0.5f,
                                  -2.0f, 8.0f, 2.5f, 4.0f, 6.0f, -1.0f,
                                  3.5f, 20.0f, 0.0f, -8.0f};

static cs ncase(const char *layout, fia_dtype dt, int64_t B, int64_t N,
                int64_t KVN, int64_t QS, int64_t D)
{
    cs c = {.layout = layout, .dt = dt, .B = B, .N = N, .KVN = KVN,
            .QS = QS, .D = D, .inner = 1};
    memcpy(c.sink, sinks, sizeof sinks);
    return c;
}

static void arithmetic(void)
{
    cs c;
    /* decode, GQA: long keys split across threads (flash-decoding) */
    c = ncase("BNSD", FIA_DT_FP16, 3, 8, 2, 1, 64);
    c.KVS = 700, c.kl[0] = 700, c.kl[1] = 333, c.kl[2] = 65;
    numeric(c, "decode BNSD fp16 GQA");
    c.dt = FIA_DT_BF16, c.layout = "BSH";
    numeric(c, "decode BSH bf16 GQA");
    /* decode with an explicit mask (the blocked loop, not the fused
     * kernel), a row whose keys are all masked */
    c = ncase("BSND", FIA_DT_FP16, 2, 4, 4, 1, 128);
    c.KVS = 300, c.kl[0] = 300, c.kl[1] = 250, c.xmask = true, c.inner = 0;
    numeric(c, "decode BSND fp16 mask, a masked row");
    /* decode with a pse: head 1 of batch 0 scores -inf on every key (out
     * 0, lse the sink) */
    c = ncase("BNSD", FIA_DT_BF16, 2, 4, 2, 1, 64);
    c.KVS = 400, c.kl[0] = 400, c.kl[1] = 130, c.pse = true, c.drop = true;
    numeric(c, "decode BNSD bf16 pse, a row all -inf");
    /* decode, a shared prefix (B > 1: its partials merged with the own
     * keys', the sink once) */
    c = ncase("BNSD", FIA_DT_FP16, 3, 8, 2, 1, 64);
    c.KVS = 200, c.kl[0] = 200, c.kl[1] = 77, c.kl[2] = 1, c.P = 150;
    numeric(c, "decode BNSD fp16 shared prefix");
    /* prefill: the tiled path, causal (sparse 3), GQA */
    c = ncase("BNSD", FIA_DT_FP16, 2, 8, 2, 40, 64);
    c.KVS = 300, c.kl[0] = 300, c.kl[1] = 90, c.sparse = 3;
    numeric(c, "prefill BNSD fp16 causal GQA");
    c.dt = FIA_DT_BF16, c.layout = "BSND";
    numeric(c, "prefill BSND bf16 causal GQA");
    /* prefill with a mask of random bits, a row all masked, and a pse */
    c = ncase("BSH", FIA_DT_BF16, 2, 4, 1, 20, 128);
    c.KVS = 150, c.kl[0] = 150, c.kl[1] = 100, c.xmask = true, c.inner = 0;
    numeric(c, "prefill BSH bf16 mask, a masked row");
    c.inner = 2; /* the row-invalid correction: 0, lse +inf */
    numeric(c, "prefill BSH bf16 mask, a masked row corrected");
    c.inner = 0;
    c.pse = true, c.drop = true, c.xmask = false;
    numeric(c, "prefill BSH bf16 pse, a row all -inf");
    /* every row dominated by its sink, then every sink negligible */
    c = ncase("BNSD", FIA_DT_FP16, 1, 4, 4, 3, 64);
    c.KVS = 100, c.kl[0] = 100;
    for (int n = 0; n < 4; n++)
        c.sink[n] = 60.0f;
    numeric(c, "sinks dominating");
    for (int n = 0; n < 4; n++)
        c.sink[n] = -60.0f;
    numeric(c, "sinks negligible");
}

/* Non-finite sinks (run_sink.c): -inf takes no part (the output and lse
 * of the call without a sink, bit for bit), NaN and +inf make the row
 * NaN; decode (split) and prefill. */
static void nonfinite(void)
{
    for (int pre = 0; pre < 2; pre++)
        for (int th = 1; th <= 3; th += 2) {
            cs c = ncase("BNSD", FIA_DT_FP16, 2, 4, 2, pre ? 33 : 1, 64);
            c.KVS = 500, c.kl[0] = 500, c.kl[1] = 200, c.sparse = pre ? 3 : 0;
            build(&c, true);
            c.skd[0] = 0xff80u, c.skd[1] = 0x7fc0u, c.skd[2] = 0x7f80u;
            fastSetThreadCount(th);
            const int64_t no = numel(&c.out), nl = numel(&c.lse);
            c.sinkless = true;
            CHECK_EQ_INT(run(&c), FIA_OK);
            uint16_t *base = malloc((size_t)no * 2);
            float *bl = malloc((size_t)nl * 4);
            memcpy(base, c.od, (size_t)no * 2), memcpy(bl, c.ld, (size_t)nl * 4);
            c.sinkless = false;
            CHECK_EQ_INT(run(&c), FIA_OK);
            int bad = 0;
            for (int64_t b = 0; b < 2; b++)
                for (int64_t n = 0; n < 3; n++)
                    for (int64_t i = 0; i < c.QS; i++) {
                        const int64_t o = ftl_at(true, 4, c.QS, 64, b, n, i);
                        const int64_t r = (b * 4 + n) * c.QS + i;
                        if (n == 0) {
                            bad += memcmp(c.od + o, base + o, 128) != 0 ||
                                   memcmp(c.ld + r, bl + r, 4) != 0;
                            continue;
                        }
                        for (int64_t d = 0; d < 64; d++)
                            bad += !ftl_is_nan16(c.dt, c.od[o + d]);
                        bad += !isnan(c.ld[r]);
                    }
            CHECK_MSG(bad == 0, "non-finite sinks (Q_S %lld, %d threads): "
                      "%d wrong", (long long)c.QS, th, bad);
            free(base), free(bl);
            release(&c);
        }
    fastSetThreadCount(0);
}

int main(void)
{
    rules();
    no_data();
    arithmetic();
    nonfinite();
    return check_summary();
}
