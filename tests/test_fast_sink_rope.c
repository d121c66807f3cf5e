/* fast/ learnable_sink with MLA (the project's reading: the sink's meaning
 * does not depend on how the scores were formed; fast/check_sink.c,
 * fast/run_sink.c): the calls accepted (bf16 MLA of D 512 and 128, MLA's
 * full quantization: an int8 query with rope) and what stays refused
 * (002's full int8, an int8 query without rope: test_fast_sink.c); then
 * the arithmetic against a naive double-precision attention written here,
 * the score (q.k + q_rope.k_rope) / sqrt(D + Dr) (full quantization: q, k,
 * v the int8 values times their dequant scales), the sink a virtual key
 * of score sink[n] (not scaled) in the max and the denominator, without a
 * value:
 *     out = sum_j e^(s_j - m) v_j / (sum_j e^(s_j - m) + e^(sink - m)).
 * Every call has every kind of sink, one per head (n % 8): -inf (the row
 * of the call without a sink, bit for bit), NaN and +inf (the row NaN),
 * 40 (dominating: the output ~0, lse ~40), -30 (vanishing) and three near
 * the scores (the lse of the head's first row without a sink - 1.5, + 0,
 * + 1.5: the sink's weight ~0.18, 0.5, 0.82).  The calls: D 512 decode
 * with the keys split across threads (the merge), Q_S 4 and 16 causal (the
 * blocked loop), a 4-D cache, the NZ cache, *_NBSD outputs, a token
 * layout, D 128 TND / NTD_TND (lse), full quantization decode, Q_S 4 and
 * NZ; every kernel level this CPU has, 1..3 threads, two task orders.
 * Each call first shows that the reference without the sink falls outside
 * the tolerance (a run that ignored the sink would fail it). */
#include "mla_testlib.h"
#include "fast_expect.h"

enum { MAXN = 128 };

/* An MLA call (mla_testlib.h) with a sink, bf16/fp16 or full quantization
 * (query_quant: query, key and value int8, the ropes and the output bf16). */
typedef struct sc {
    mla m;
    bool query_quant, sinkless;
    fia_tensor skt;
    uint16_t skd[MAXN];
    mla_query_quant x; /* full quantization: its tensors, data and scales */
} sc;

/* The call's tensors and data (the sinks are set later: sinks()). */
static void sc_build(sc *c)
{
    mla *m = &c->m;
    m->nlist = 1;
    if (c->query_quant)
        m->dt = FIA_DT_BF16;
    build(m, true);
    c->skt = tn(FIA_DT_BF16, 1, (int64_t[]){m->N}, c->skd);
    if (!c->query_quant)
        return;
    c->x.sk = 0.02f, c->x.sv = 0.01f;
    mla_query_quant_make(m, &c->x, true);
}

static void sc_release(sc *c)
{
    mla_query_quant_free(&c->x);
    release(&c->m);
}

static fia_status sc_phase_one(sc *c, fast_executor **ex, uint64_t *wss)
{
    mla *m = &c->m;
    const fia_tensor *kp[1] = {&m->k}, *vp[1] = {&m->v};
    fia_tensor_list kl = {1, kp}, vl = {1, vp};
    fast_v2_extras x = {.queryRopeOptional = &m->qr,
                        .keyRopeOptional = &m->kr,
                        .dequantScaleQueryOptional =
                            c->query_quant ? &c->x.dsq : NULL,
                        .queryQuantMode = c->query_quant ? 3 : 0,
                        .learnableSinkOptional = c->sinkless ? NULL
                                                             : &c->skt};
    const bool asl = m->tnd || m->QS > 1;
    return fastFusedInferAttentionScoreV2ExtGetWorkspaceSize(
        &m->q, &kl, &vl, NULL, m->mask ? &m->am : NULL,
        asl ? &m->asl : NULL, &m->aslkv, NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, m->paged ? &m->bt : NULL, NULL, NULL,
        c->query_quant ? &c->x.dsk : NULL, NULL,
        c->query_quant ? &c->x.dsv : NULL, NULL, NULL, NULL, NULL, m->N,
        1.0 / sqrt((double)(m->D + DR)), 2147483647, 2147483647, m->layout,
        m->KVN, m->sparse, m->inner, m->bs, 0, m->lse, 0, 0, &x, &m->out,
        m->lse ? &m->lsev : NULL, wss, ex);
}

/* ---- validation -------------------------------------------------------- */
/* Phase one's status in the profile set (the executor destroyed). */
static fia_status sc_status(void *c)
{
    fast_executor *ex = NULL;
    uint64_t ws = 0;
    fia_status got = sc_phase_one(c, &ex, &ws);
    fastExecutorDestroy(ex);
    return got;
}

static void expect(sc *c, fia_status want, const char *id, int line)
{
    ftl_expect_profiles(sc_status, c, want, ftl_cann_status(want, false), id,
                        line);
}

static void rules(void)
{
    /* (shapes only matter here; build makes data too) */
    sc c = {.m = base()};
    sc_build(&c);
    expect(&c, FIA_OK, NULL, __LINE__); /* D 512 decode, N 32 */
    c.skt.shape[0] = 1; /* [N], not KV_N */
    expect(&c, FIA_ERR_PARAM_INVALID, "S_SINK_SHAPE", __LINE__);
    c.skt.shape[0] = 32, c.skt.dtype = FIA_DT_FP16;
    expect(&c, FIA_ERR_PARAM_INVALID, "S_SINK_DTYPE", __LINE__);
    sc_release(&c);
    c = (sc){.m = base()};
    c.m.N = 128, c.m.layout = "BSH_NBSD", c.m.QS = 16, c.m.sparse = 3;
    c.m.mask = true, c.m.nz = true;
    sc_build(&c);
    expect(&c, FIA_OK, NULL, __LINE__); /* N 128, NZ, NBSD, Q_S 16 */
    c.skt.shape[0] = 64;
    expect(&c, FIA_ERR_PARAM_INVALID, "S_SINK_SHAPE", __LINE__);
    sc_release(&c);
    c = (sc){.m = base()};
    c.m.layout = "TND", c.m.D = 128, c.m.paged = false, c.m.N = 8;
    c.m.KVN = 2, c.m.ql[0] = 5, c.m.ql[1] = 3, c.m.kl[0] = 40;
    c.m.kl[1] = 9, c.m.lse = true;
    sc_build(&c);
    expect(&c, FIA_OK, NULL, __LINE__); /* D 128 TND, lse */
    c.skt.shape[0] = 2; /* KV_N */
    expect(&c, FIA_ERR_PARAM_INVALID, "S_SINK_SHAPE", __LINE__);
    sc_release(&c);
    /* MLA's full quantization (an int8 query with rope): computed */
    c = (sc){.m = base(), .query_quant = true};
    sc_build(&c);
    expect(&c, FIA_OK, NULL, __LINE__);
    c.skt.dtype = FIA_DT_FP32;
    expect(&c, FIA_ERR_PARAM_INVALID, "S_SINK_DTYPE", __LINE__);
    sc_release(&c);
}

/* ---- arithmetic ---------------------------------------------------------- */
/* Query element d of row (b, n, i), key / value element d of key j of
 * batch b (KV head h), as the formula's doubles. */
static double qel(const sc *c, int64_t b, int64_t n, int64_t i, int64_t d)
{
    const mla *m = &c->m;
    const int64_t o = q_off(m, b, n, i, m->D) + d;
    if (c->query_quant)
        return c->x.q_int8[o] * (double)c->x.dsqd[mla_dsq_index(m, b, n, i)];
    return wd(m->dt, m->qd[o]);
}

static double kvel(const sc *c, bool v, int64_t b, int64_t h, int64_t j,
                   int64_t d)
{
    const mla *m = &c->m;
    if (c->query_quant)
        return (v ? c->x.v_int8 : c->x.k_int8)[mla_k8_at(m, b, 0, j, d)] *
               (double)(v ? c->x.sv : c->x.sk);
    const int64_t o = k_el(m, k_off(m, b, h, j, m->D), d);
    return wd(m->dt, v ? m->vd[o] : m->kd[o]);
}

static int64_t lse_at(const mla *m, int64_t b, int64_t n, int64_t i)
{
    return m->tnd ? (m->qtok[b] + i) * m->N + n : (b * m->N + n) * m->QS + i;
}

/* The naive attention of every row that exists, into ref (output rows at
 * o_off) and lse (lse_at); with the sink of each head (sink: NULL for
 * none; only finite sinks are read).  Each batch's keys, values and key
 * ropes, and each row's query, are read as doubles once (kv_rows, q_row):
 * the sums below take the same terms in the same order as reading every
 * element where it is used, so the result is the same, in a fraction of
 * the time (a D 512 decode reads each key once per head otherwise). */
typedef struct kv_rows {
    double *k, *v, *kr; /* [h][j][d] of batch b: D, D, DR columns */
} kv_rows;

static void kv_read(const sc *c, int64_t b, kv_rows *r)
{
    const mla *m = &c->m;
    const fia_dtype rdt = c->query_quant ? FIA_DT_BF16 : m->dt;
    const int64_t kl = m->kl[b];
    for (int64_t h = 0; h < m->KVN; h++)
        for (int64_t j = 0; j < kl; j++) {
            double *k = r->k + (h * kl + j) * m->D;
            double *v = r->v + (h * kl + j) * m->D;
            double *kr = r->kr + (h * kl + j) * DR;
            const int64_t ro = k_off(m, b, h, j, DR);
            for (int64_t d = 0; d < m->D; d++) {
                k[d] = kvel(c, false, b, h, j, d);
                v[d] = kvel(c, true, b, h, j, d);
            }
            for (int64_t d = 0; d < DR; d++)
                kr[d] = wd(rdt, m->krd[k_el(m, ro, d)]);
        }
}

static void naive_sink(const sc *c, const double *sink, double *ref, double *lse)
{
    const mla *m = &c->m;
    const double scale = 1.0 / sqrt((double)(m->D + DR));
    const int64_t g = m->N / m->KVN;
    int64_t klmax = 1;
    for (int64_t b = 0; b < m->B; b++)
        klmax = m->kl[b] > klmax ? m->kl[b] : klmax;
    const size_t nkv = (size_t)(m->KVN * klmax);
    double *s = malloc((size_t)m->KVS * sizeof(double));
    double *q = malloc((size_t)m->D * sizeof(double));
    double qr[DR];
    kv_rows r = {malloc(nkv * (size_t)m->D * sizeof(double)),
                 malloc(nkv * (size_t)m->D * sizeof(double)),
                 malloc(nkv * DR * sizeof(double))};
    const fia_dtype rdt = c->query_quant ? FIA_DT_BF16 : m->dt;
    for (int64_t b = 0; b < m->B; b++) {
        kv_read(c, b, &r);
        for (int64_t n = 0; n < m->N; n++)
            for (int64_t i = 0; i < m->ql[b]; i++) {
                const int64_t h = n / g, kl = m->kl[b];
                const int64_t last = m->sparse == 3 ? kl - m->ql[b] + i
                                                    : kl - 1;
                const uint16_t *qrd = m->qrd + q_off(m, b, n, i, DR);
                for (int64_t d = 0; d < m->D; d++)
                    q[d] = qel(c, b, n, i, d);
                for (int64_t d = 0; d < DR; d++)
                    qr[d] = wd(rdt, qrd[d]);
                const bool has = sink != NULL && isfinite(sink[n]);
                double mx = has ? sink[n] : -INFINITY;
                for (int64_t j = 0; j <= last; j++) {
                    const double *k = r.k + (h * kl + j) * m->D;
                    const double *kr = r.kr + (h * kl + j) * DR;
                    double x = 0.0;
                    for (int64_t d = 0; d < m->D; d++)
                        x += q[d] * k[d];
                    for (int64_t d = 0; d < DR; d++)
                        x += qr[d] * kr[d];
                    s[j] = x * scale;
                    mx = s[j] > mx ? s[j] : mx;
                }
                double *o = ref + o_off(m, b, n, i);
                double sum = has ? exp(sink[n] - mx) : 0.0;
                for (int64_t d = 0; d < m->D; d++)
                    o[d] = 0.0;
                for (int64_t j = 0; j <= last; j++) {
                    const double p = exp(s[j] - mx);
                    const double *v = r.v + (h * kl + j) * m->D;
                    sum += p;
                    for (int64_t d = 0; d < m->D; d++)
                        o[d] += p * v[d];
                }
                for (int64_t d = 0; d < m->D; d++)
                    o[d] /= sum;
                lse[lse_at(m, b, n, i)] = mx + log(sum);
            }
    }
    free(s), free(q), free(r.k), free(r.v), free(r.kr);
}

/* The sinks of the call, head n's by n % 8 (the file's header), the near
 * ones from lse0 (the lse without a sink of row (0, n, 0)); as bf16 into
 * skd, their values into sink. */
static void sinks(sc *c, const double *lse0, double *sink)
{
    for (int64_t n = 0; n < c->m.N; n++) {
        const double near = lse0[lse_at(&c->m, 0, n, 0)];
        uint16_t h;
        switch (n % 8) {
        case 0: h = 0xff80u; break; /* -inf */
        case 1: h = 0x7fc0u; break; /* NaN */
        case 2: h = 0x7f80u; break; /* +inf */
        case 3: h = fia_float_to_bf16(40.0f); break;
        case 4: h = fia_float_to_bf16(-30.0f); break;
        default: h = fia_float_to_bf16((float)(near + 1.5 * (n % 8 - 6)));
        }
        c->skd[n] = h;
        sink[n] = fia_bf16_to_double(h);
    }
}

static double tol_of(const sc *c)
{
    /* P rounded to the input dtype before P.V, the output rounded once */
    return c->m.dt == FIA_DT_BF16 || c->query_quant ? 1.5e-2 : 3e-3;
}

/* The largest excess of b over a (rows of finite-sink heads that exist)
 * beyond the tolerance: > 0 when b cannot pass for a. */
static double excess(const sc *c, const double *sink, const double *a,
                     const double *b)
{
    const mla *m = &c->m;
    double worst = -1.0;
    for (int64_t bb = 0; bb < m->B; bb++)
        for (int64_t n = 0; n < m->N; n++)
            for (int64_t i = 0; isfinite(sink[n]) && i < m->ql[bb]; i++)
                for (int64_t d = 0, o = o_off(m, bb, n, i); d < m->D; d++) {
                    const double e = fabs(b[o + d] - a[o + d]) -
                                     tol_of(c) * (1.0 + fabs(a[o + d]));
                    worst = e > worst ? e : worst;
                }
    return worst;
}

/* A run against the expectations: finite sinks within the tolerance of
 * ref (and lse), -inf the sinkless run's rows bit for bit (base, blse),
 * NaN / +inf every element NaN.  Returns the rows that fail. */
static int64_t judge(const sc *c, const double *sink, const double *ref,
                     const double *lse, const uint16_t *base,
                     const float *blse)
{
    const mla *m = &c->m;
    int64_t bad = 0;
    for (int64_t b = 0; b < m->B; b++)
        for (int64_t n = 0; n < m->N; n++)
            for (int64_t i = 0; i < m->ql[b]; i++) {
                const int64_t o = o_off(m, b, n, i), li = lse_at(m, b, n, i);
                bool ok = true;
                if (sink[n] == -INFINITY) {
                    ok = memcmp(m->od + o, base + o, (size_t)m->D * 2) == 0 &&
                         (!m->lse || memcmp(m->ld + li, blse + li, 4) == 0);
                } else if (!isfinite(sink[n])) {
                    const fia_dtype odt = c->query_quant ? FIA_DT_BF16 : m->dt;
                    for (int64_t d = 0; d < m->D; d++)
                        ok &= ftl_is_nan16(odt, m->od[o + d]);
                    ok &= !m->lse || isnan(m->ld[li]);
                } else {
                    for (int64_t d = 0; d < m->D; d++) {
                        const double got =
                            wd(c->query_quant ? FIA_DT_BF16 : m->dt,
                               m->od[o + d]);
                        ok &= fabs(got - ref[o + d]) <=
                              tol_of(c) * (1.0 + fabs(ref[o + d]));
                    }
                    ok &= !m->lse ||
                          fabs(m->ld[li] - lse[li]) <=
                              2e-4 + 1e-6 * fabs(lse[li]);
                }
                bad += !ok;
            }
    return bad;
}

static fia_status run(sc *c)
{
    for (int64_t i = 0; i < numel(&c->m.out); i++)
        c->m.od[i] = 0x7bcd;
    fast_executor *ex = NULL;
    uint64_t wss = 0;
    fia_status st = sc_phase_one(c, &ex, &wss);
    if (st != FIA_OK) {
        fastExecutorDestroy(ex);
        return st;
    }
    return ftl_phase_two(ex, wss);
}

/* The call c (not built) with its sinks, at every level, 1..3 threads and
 * two task orders: judge() finds no row wrong.  First: the reference
 * without a sink is shown outside the tolerance of the one with (so that
 * a run ignoring the sink fails here). */
static void numeric_sink(sc c, const char *what)
{
    sc_build(&c);
    mla *m = &c.m;
    const int64_t no = numel(&m->out), nl = m->T * m->N > m->B * m->N * m->QS
                                                ? m->T * m->N
                                                : m->B * m->N * m->QS;
    double *ref0 = calloc((size_t)no, sizeof(double));
    double *ref = calloc((size_t)no, sizeof(double));
    double *lse0 = calloc((size_t)nl, sizeof(double));
    double *lse = calloc((size_t)nl, sizeof(double));
    uint16_t *base = malloc((size_t)no * 2);
    float *blse = calloc((size_t)nl, sizeof(float));
    double sink[MAXN];
    naive_sink(&c, NULL, ref0, lse0);
    sinks(&c, lse0, sink);
    naive_sink(&c, sink, ref, lse);
    CHECK_MSG(excess(&c, sink, ref, ref0) > 0.0, "%s: the attention without "
              "the sink passes for the one with it", what);
    for (int lv = 0; lv < 3; lv++) {
        if (!ftl_level_wanted(levels[lv]))
            continue;
        fastForceKernelLevel(levels[lv]);
        for (int th = 1; th <= 3; th++) {
            fastSetThreadCount(th);
            fastSetTaskOrder(0);
            c.sinkless = true;
            CHECK_EQ_INT(run(&c), FIA_OK);
            memcpy(base, m->od, (size_t)no * 2);
            if (m->lse)
                memcpy(blse, m->ld, (size_t)numel(&m->lsev) * 4);
            c.sinkless = false;
            for (int ord = 0; ord < 2; ord++) {
                fastSetTaskOrder(ord ? 0x5eedull + (unsigned)th : 0);
                const fia_status st = run(&c);
                CHECK_MSG(st == FIA_OK, "%s: %d: %s", what, st,
                          fastLastError());
                if (st != FIA_OK)
                    continue;
                const int64_t bad = judge(&c, sink, ref, lse, base, blse);
                CHECK_MSG(bad == 0, "%s (%s, %d threads, order %d): %lld "
                          "rows wrong", what, levels[lv], th, ord,
                          (long long)bad);
            }
        }
    }
    fastForceKernelLevel("auto");
    fastSetThreadCount(0);
    fastSetTaskOrder(0);
    free(ref0), free(ref), free(lse0), free(lse), free(base), free(blse);
    sc_release(&c);
}

static void arithmetic(void)
{
    sc c;
    /* D 512 decode: keys split across the threads (the merge) */
    c = (sc){.m = base()};
    c.m.kl[0] = 700, c.m.kl[1] = 333;
    numeric_sink(c, "decode BSND bf16 N32 bs128 split");
    /* fp16, a 4-D cache, block_size 16, N 64, a batch of one key */
    c = (sc){.m = base()};
    c.m.layout = "BNSD", c.m.dt = FIA_DT_FP16, c.m.N = 64, c.m.B = 3;
    c.m.kl[0] = 513, c.m.kl[1] = 64, c.m.kl[2] = 1, c.m.bs = 16;
    c.m.cache4d = true;
    numeric_sink(c, "decode BNSD fp16 N64 bs16 4-D");
    /* the NZ cache, decode split */
    c = (sc){.m = base()};
    c.m.nz = true, c.m.layout = "BSH", c.m.kl[0] = 600, c.m.kl[1] = 129;
    numeric_sink(c, "decode BSH bf16 NZ split");
    /* Q_S 4 causal (the blocked loop, K/V widened once) */
    c = (sc){.m = base()};
    c.m.QS = 4, c.m.sparse = 3, c.m.mask = true, c.m.kl[0] = 300;
    c.m.kl[1] = 150;
    numeric_sink(c, "Q_S 4 BSND bf16 causal");
    /* an NBSD output with the NZ cache, Q_S 3 */
    c = (sc){.m = base()};
    c.m.layout = "BSND_NBSD", c.m.nz = true, c.m.QS = 3, c.m.sparse = 3;
    c.m.mask = true, c.m.kl[0] = 260, c.m.kl[1] = 131;
    numeric_sink(c, "Q_S 3 BSND_NBSD NZ causal");
    /* Q_S 16, BNSD_NBSD, 4-D cache, fp16, N 64 */
    c = (sc){.m = base()};
    c.m.layout = "BNSD_NBSD", c.m.cache4d = true, c.m.dt = FIA_DT_FP16;
    c.m.N = 64, c.m.B = 1, c.m.QS = 16, c.m.sparse = 3, c.m.mask = true;
    c.m.kl[0] = 140, c.m.bs = 16;
    numeric_sink(c, "Q_S 16 BNSD_NBSD fp16 N64 4-D causal");
    /* a token layout, D 512: per-batch query rows (decode rows and not) */
    c = (sc){.m = base()};
    c.m.layout = "TND", c.m.B = 3, c.m.ql[0] = 1, c.m.ql[1] = 3;
    c.m.ql[2] = 2, c.m.kl[0] = 400, c.m.kl[1] = 200, c.m.kl[2] = 50;
    c.m.sparse = 3, c.m.mask = true;
    numeric_sink(c, "TND bf16 N32 causal");
    /* D 128 (TND, NTD_TND): contiguous keys, lse; decode splits */
    c = (sc){.m = base()};
    c.m.layout = "TND", c.m.D = 128, c.m.paged = false, c.m.N = 8;
    c.m.KVN = 2, c.m.ql[0] = 5, c.m.ql[1] = 40, c.m.kl[0] = 60;
    c.m.kl[1] = 80, c.m.sparse = 3, c.m.mask = true, c.m.lse = true;
    numeric_sink(c, "TND bf16 D128 causal lse");
    c.m.layout = "NTD_TND", c.m.sparse = 0, c.m.mask = false;
    c.m.ql[0] = 1, c.m.ql[1] = 1, c.m.kl[0] = 300, c.m.kl[1] = 129;
    numeric_sink(c, "NTD_TND bf16 D128 decode split lse");
    /* full quantization: decode split, Q_S 4, the int8 NZ cache */
    c = (sc){.m = base(), .query_quant = true};
    c.m.kl[0] = 700, c.m.kl[1] = 333;
    numeric_sink(c, "full quantization decode BSND split");
    c = (sc){.m = base(), .query_quant = true};
    c.m.QS = 4, c.m.sparse = 3, c.m.mask = true, c.m.layout = "BNSD";
    c.m.cache4d = true, c.m.bs = 16, c.m.kl[0] = 90, c.m.kl[1] = 33;
    numeric_sink(c, "full quantization Q_S 4 BNSD 4-D causal");
    c = (sc){.m = base(), .query_quant = true};
    c.m.QS = 4, c.m.sparse = 3, c.m.mask = true, c.m.nz = true;
    c.m.layout = "BSH_NBSD", c.m.kl[0] = 260, c.m.kl[1] = 131;
    numeric_sink(c, "full quantization Q_S 4 BSH_NBSD NZ causal");
    c = (sc){.m = base(), .query_quant = true};
    c.m.nz = true, c.m.kl[0] = 400, c.m.kl[1] = 129;
    numeric_sink(c, "full quantization decode NZ split");
}

int main(void)
{
    rules();
    arithmetic();
    return check_summary();
}
