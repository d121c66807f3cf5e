/* The MLA calls the fast/ MLA tests share (test_fast_mla.c: the rules
 * and the arithmetic; test_fast_mla_nbsd_nz.c: the *_NBSD outputs and
 * the NZ cache): a call described by struct mla, its tensors and data
 * (build: random rows, NaN in every cache row no batch owns, a shuffled
 * block table), phase one through the extended entry, a naive
 * double-precision attention (scores (q.k + q_rope.k_rope) * scale, V of
 * D columns) and the run of a call at every kernel level this CPU has,
 * 1..3 threads, two task orders, against it.  Header-only; tests only. */
#ifndef FIA_TESTS_MLA_TESTLIB_H
#define FIA_TESTS_MLA_TESTLIB_H

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fast_testlib.h"
#include "fia/dtype.h"
#include "fia/fast.h"

#define DR 64
#define MAXB 4

typedef struct mla {
    const char *layout;
    fia_dtype dt;
    int64_t B, N, KVN, QS, D;
    int64_t ql[MAXB], kl[MAXB]; /* query rows (token layouts) and keys */
    bool paged, cache4d, nz;        /* nz: (blocks, KVN, D/16, bs, 16) */
    int64_t bs;
    int sparse;
    bool mask, lse;
    int inner;
    /* the tensors, from build(); a test may change them before the call */
    fia_tensor q, qr, k, kr, v, out, lsev, bt, am;
    bool no_qr, no_kr;
    int nlist;                      /* key/value list length (1) */
    const fia_tensor *pse, *qs2, *dsq, *aqs;
    int64_t asl_v[MAXB], aslkv_v[MAXB];
    fia_int_array asl, aslkv;
    bool tnd, q_ntd, o_ntd, nbsd;   /* nbsd: out [N, B, QS, D] */
    int64_t T, Tkv, KVS, nblk, bcols, qtok[MAXB], ktok[MAXB];
    /* data (numeric tests) */
    uint16_t *qd, *qrd, *kd, *krd, *vd, *od;
    float *ld;
    int32_t *btd;
    uint8_t *md;
} mla;

static inline fia_tensor tn(fia_dtype dt, int nd, const int64_t *s, void *data)
{
    fia_tensor t = {.dtype = dt, .ndim = nd, .data = data};
    for (int i = 0; i < nd; i++)
        t.shape[i] = s[i];
    return t;
}

/* The valid decode call every validation test starts from: BSND bf16,
 * N 32, one KV head, D 512 + 64, a (blocknum, 128, 512) cache. */
static inline mla base(void)
{
    mla m = {.layout = "BSND", .dt = FIA_DT_BF16, .B = 2, .N = 32, .KVN = 1,
             .QS = 1, .D = 512, .ql = {1, 1}, .kl = {200, 130}, .paged = true, .bs = 128,
             .inner = 1, .nlist = 1};
    return m;
}

static inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Element offsets (dd: D or DR) of query(_rope) row (b, n, i), key(_rope)
 * / value row (b, h, j), output row (b, n, i). */
static inline int64_t q_off(const mla *m, int64_t b, int64_t n, int64_t i,
                            int64_t dd)
{
    if (m->tnd) {
        const int64_t t = m->qtok[b] + i;
        return m->q_ntd ? (n * m->T + t) * dd : (t * m->N + n) * dd;
    }
    return ftl_at(ftl_bnsd(m->layout), m->N, m->QS, dd, b, n, i);
}

static inline int64_t k_off(const mla *m, int64_t b, int64_t h, int64_t j,
                            int64_t dd)
{
    if (m->paged) {
        const int64_t id = m->btd[b * m->bcols + j / m->bs], r = j % m->bs;
        if (m->nz) /* element d: + d / 16 tiles of bs * 16, + d % 16 */
            return (id * m->KVN + h) * dd * m->bs + r * 16;
        return m->cache4d ? ((id * m->KVN + h) * m->bs + r) * dd
                          : ((id * m->bs + r) * m->KVN + h) * dd;
    }
    if (m->tnd) {
        const int64_t t = m->ktok[b] + j;
        return m->q_ntd ? (h * m->Tkv + t) * dd : (t * m->KVN + h) * dd;
    }
    return ftl_at(ftl_bnsd(m->layout), m->KVN, m->KVS, dd, b, h, j);
}

/* Element d of the key(_rope) / value row at offset o (k_off). */
static inline int64_t k_el(const mla *m, int64_t o, int64_t d)
{
    return m->nz ? o + d / 16 * m->bs * 16 + d % 16 : o + d;
}

static inline int64_t o_off(const mla *m, int64_t b, int64_t n, int64_t i)
{
    if (m->nbsd)
        return ((n * m->B + b) * m->QS + i) * m->D;
    if (m->tnd) {
        const int64_t t = m->qtok[b] + i;
        return m->o_ntd ? (n * m->T + t) * m->D : (t * m->N + n) * m->D;
    }
    return ftl_at(ftl_bnsd(m->layout), m->N, m->QS, m->D, b, n, i);
}

static inline int64_t numel(const fia_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= t->shape[i];
    return n;
}

/* The shapes of the call (and its data when data: random rows, NaN in
 * every cache row no batch owns, a shuffled block table). */
static inline void build(mla *m, bool data)
{
    const char *l = m->layout;
    m->tnd = strcmp(l, "TND") == 0 || strcmp(l, "TND_NTD") == 0 ||
             strcmp(l, "NTD_TND") == 0 || strcmp(l, "NTD") == 0;
    m->q_ntd = strncmp(l, "NTD", 3) == 0;
    m->o_ntd = strcmp(l, "TND_NTD") == 0 || strcmp(l, "NTD") == 0;
    m->nbsd = strstr(l, "_NBSD") != NULL;
    const fia_dtype dt = m->dt;
    int64_t T = 0, Tkv = 0, KVS = 0;
    for (int64_t b = 0; b < m->B; b++) {
        if (!m->tnd)
            m->ql[b] = m->QS;
        m->qtok[b] = T, m->ktok[b] = Tkv;
        T += m->ql[b], Tkv += m->kl[b];
        KVS = m->kl[b] > KVS ? m->kl[b] : KVS;
        m->asl_v[b] = m->tnd ? T : m->ql[b];
        m->aslkv_v[b] = m->tnd && !m->paged ? Tkv : m->kl[b];
    }
    m->T = T, m->Tkv = Tkv, m->KVS = KVS;
    if (m->tnd) {
        int64_t qs = 0;
        for (int64_t b = 0; b < m->B; b++)
            qs = m->ql[b] > qs ? m->ql[b] : qs;
        m->QS = qs;
        const int64_t a = m->q_ntd ? m->N : T, c = m->q_ntd ? T : m->N;
        m->q = tn(dt, 3, (int64_t[]){a, c, m->D}, NULL);
        m->qr = tn(dt, 3, (int64_t[]){a, c, DR}, NULL);
        m->out = tn(dt, 3, (int64_t[]){m->o_ntd ? m->N : T,
                                       m->o_ntd ? T : m->N, m->D}, NULL);
        m->lsev = tn(FIA_DT_FP32, 3, (int64_t[]){T, m->N, 1}, NULL);
    } else {
        const bool bn = ftl_bnsd(l); /* (the query's layout before "_") */
        const char *ql = strncmp(l, "BSH", 3) == 0 ? "BSH" : l;
        m->q = ftl_tensor(ql, bn, dt, m->B, m->N, m->QS, m->D, NULL);
        m->qr = ftl_tensor(ql, bn, dt, m->B, m->N, m->QS, DR, NULL);
        m->out = m->nbsd ? tn(dt, 4, (int64_t[]){m->N, m->B, m->QS, m->D},
                              NULL)
                         : m->q;
        m->lsev = tn(FIA_DT_FP32, 4, (int64_t[]){m->B, m->N, m->QS, 1}, NULL);
    }
    if (m->paged) {
        m->bcols = ceil_div(KVS, m->bs) + 1;
        m->nblk = 2;
        for (int64_t b = 0; b < m->B; b++)
            m->nblk += ceil_div(m->kl[b], m->bs);
        if (m->nz) {
            m->k = tn(dt, 5, (int64_t[]){m->nblk, m->KVN, m->D / 16, m->bs,
                                         16}, NULL);
            m->kr = tn(dt, 5, (int64_t[]){m->nblk, m->KVN, DR / 16, m->bs,
                                          16}, NULL);
        } else if (m->cache4d) {
            m->k = tn(dt, 4, (int64_t[]){m->nblk, m->KVN, m->bs, m->D}, NULL);
            m->kr = tn(dt, 4, (int64_t[]){m->nblk, m->KVN, m->bs, DR}, NULL);
        } else {
            m->k = tn(dt, 3, (int64_t[]){m->nblk, m->bs, m->KVN * m->D}, NULL);
            m->kr = tn(dt, 3, (int64_t[]){m->nblk, m->bs, m->KVN * DR}, NULL);
        }
        m->bt = tn(FIA_DT_INT32, 2, (int64_t[]){m->B, m->bcols}, NULL);
    } else if (m->tnd) {
        const int64_t a = m->q_ntd ? m->KVN : Tkv, c = m->q_ntd ? Tkv : m->KVN;
        m->k = tn(dt, 3, (int64_t[]){a, c, m->D}, NULL);
        m->kr = tn(dt, 3, (int64_t[]){a, c, DR}, NULL);
    } else {
        const bool bn = ftl_bnsd(l);
        m->k = ftl_tensor(l, bn, dt, m->B, m->KVN, KVS, m->D, NULL);
        m->kr = ftl_tensor(l, bn, dt, m->B, m->KVN, KVS, DR, NULL);
    }
    m->v = m->k;
    m->am = tn(FIA_DT_BOOL, 2, (int64_t[]){2048, 2048}, NULL);
    m->asl = (fia_int_array){m->B, m->asl_v};
    m->aslkv = (fia_int_array){m->B, m->aslkv_v};
    if (!data)
        return;
    m->qd = malloc((size_t)numel(&m->q) * 2);
    m->qrd = malloc((size_t)numel(&m->qr) * 2);
    m->kd = malloc((size_t)numel(&m->k) * 2);
    m->krd = malloc((size_t)numel(&m->kr) * 2);
    m->vd = malloc((size_t)numel(&m->k) * 2);
    m->od = malloc((size_t)numel(&m->out) * 2);
    m->ld = malloc((size_t)numel(&m->lsev) * 4);
    m->md = malloc(2048 * 2048);
    for (int64_t i = 0; i < numel(&m->q); i++) m->qd[i] = ftl_rnd(dt);
    for (int64_t i = 0; i < numel(&m->qr); i++) m->qrd[i] = ftl_rnd(dt);
    for (int64_t i = 0; i < numel(&m->k); i++)
        m->kd[i] = m->vd[i] = ftl_poison(dt);
    for (int64_t i = 0; i < numel(&m->kr); i++) m->krd[i] = ftl_poison(dt);
    for (int64_t i = 0; i < numel(&m->out); i++) m->od[i] = 0x7bcd;
    for (int64_t i = 0; i < 2048; i++)
        for (int64_t j = 0; j < 2048; j++)
            m->md[i * 2048 + j] = j > i;
    if (m->paged) {
        /* block ids: a shuffled 0 .. nblk - 1, the last two owned by none */
        int32_t *perm = malloc((size_t)m->nblk * 4);
        for (int64_t i = 0; i < m->nblk; i++) perm[i] = (int32_t)i;
        for (int64_t i = m->nblk - 1; i > 0; i--) {
            const int64_t j = ftl_next32() % (uint64_t)(i + 1);
            const int32_t t = perm[i];
            perm[i] = perm[j], perm[j] = t;
        }
        m->btd = calloc((size_t)(m->B * m->bcols), 4);
        int64_t u = 0;
        for (int64_t b = 0; b < m->B; b++)
            for (int64_t c = 0; c < ceil_div(m->kl[b], m->bs); c++)
                m->btd[b * m->bcols + c] = perm[u++];
        free(perm);
        m->bt.data = m->btd;
    }
    for (int64_t b = 0; b < m->B; b++)
        for (int64_t h = 0; h < m->KVN; h++)
            for (int64_t j = 0; j < m->kl[b]; j++) {
                const int64_t o = k_off(m, b, h, j, m->D);
                for (int64_t d = 0; d < m->D; d++)
                    m->kd[k_el(m, o, d)] = ftl_rnd(dt),
                    m->vd[k_el(m, o, d)] = ftl_rnd(dt);
                const int64_t r = k_off(m, b, h, j, DR);
                for (int64_t d = 0; d < DR; d++)
                    m->krd[k_el(m, r, d)] = ftl_rnd(dt);
            }
    m->q.data = m->qd, m->qr.data = m->qrd, m->k.data = m->kd;
    m->kr.data = m->krd, m->v.data = m->vd, m->out.data = m->od;
    m->lsev.data = m->ld, m->am.data = m->md;
}

static inline void release(mla *m)
{
    free(m->qd), free(m->qrd), free(m->kd), free(m->krd), free(m->vd);
    free(m->od), free(m->ld), free(m->btd), free(m->md);
}

/* MLA full quantization on top of a call (003 "支持全量化场景"): query,
 * key and value int8 (the NZ cache in D/32 tiles of 32), the three fp32
 * scales -- dequant_scale_query per token and head, dequant_scale_key /
 * _value per tensor (sk, sv: set them before mla_query_quant_make). */
typedef struct mla_query_quant {
    fia_tensor dsq, dsk, dsv;
    int8_t *q_int8, *k_int8, *v_int8;
    float *dsqd, sk, sv;
} mla_query_quant;

static inline int8_t mla_rnd8(void)
{
    return (int8_t)((int)(ftl_next32() % 255) - 127);
}

/* dequant_scale_query's element of query row (b, n, i): the query's shape
 * without D, (B, N, S) for BNSD, (B, S, N) otherwise. */
static inline int64_t mla_dsq_index(const mla *m, int64_t b, int64_t n,
                                    int64_t i)
{
    return ftl_bnsd(m->layout) ? (b * m->N + n) * m->QS + i
                               : (b * m->QS + i) * m->N + n;
}

/* Element d of the int8 key / value row of key j of (b, h): the paged
 * caches (block table), ND rank 3 / 4 or NZ tiles of 32. */
static inline int64_t mla_k8_at(const mla *m, int64_t b, int64_t h,
                                int64_t j, int64_t d)
{
    const int64_t id = m->btd[b * m->bcols + j / m->bs], r = j % m->bs;
    if (m->nz)
        return (id * m->KVN + h) * m->D * m->bs + d / 32 * m->bs * 32 +
               r * 32 + d % 32;
    if (m->cache4d)
        return ((id * m->KVN + h) * m->bs + r) * m->D + d;
    return ((id * m->bs + r) * m->KVN + h) * m->D + d;
}

/* After build(m, data) with dt bf16 (the ropes' and the output's): the
 * int8 tensors and the scales; with data their values (int8 over the
 * range, dsq in [0.01, 0.07]: scores of a few units, q.k ~ 512^0.5 x 73^2
 * ~ 1.2e5, x dsq x dsk / 24). */
static inline void mla_query_quant_make(mla *m, mla_query_quant *f, bool data)
{
    m->q.dtype = FIA_DT_INT8;
    if (m->nz)
        m->k = tn(FIA_DT_INT8, 5, (int64_t[]){m->nblk, m->KVN, m->D / 32,
                                              m->bs, 32}, NULL);
    else
        m->k.dtype = FIA_DT_INT8;
    m->v = m->k;
    f->dsq = ftl_bnsd(m->layout)
                 ? tn(FIA_DT_FP32, 3, (int64_t[]){m->B, m->N, m->QS}, NULL)
                 : tn(FIA_DT_FP32, 3, (int64_t[]){m->B, m->QS, m->N}, NULL);
    f->dsk = tn(FIA_DT_FP32, 1, (int64_t[]){1}, &f->sk);
    f->dsv = tn(FIA_DT_FP32, 1, (int64_t[]){1}, &f->sv);
    if (!data)
        return;
    const int64_t nq = numel(&m->q), nk = numel(&m->k);
    f->q_int8 = malloc((size_t)nq);
    f->k_int8 = malloc((size_t)nk);
    f->v_int8 = malloc((size_t)nk);
    f->dsqd = malloc((size_t)numel(&f->dsq) * sizeof(float));
    for (int64_t i = 0; i < nq; i++) f->q_int8[i] = mla_rnd8();
    for (int64_t i = 0; i < nk; i++)
        f->k_int8[i] = mla_rnd8(), f->v_int8[i] = mla_rnd8();
    for (int64_t i = 0; i < numel(&f->dsq); i++)
        f->dsqd[i] = 0.01f + (float)(ftl_next32() % 61) * 0.001f;
    m->q.data = f->q_int8, m->k.data = f->k_int8, m->v.data = f->v_int8;
    f->dsq.data = f->dsqd;
}

static inline void mla_query_quant_free(mla_query_quant *f)
{
    free(f->q_int8), free(f->k_int8), free(f->v_int8), free(f->dsqd);
}

static inline fia_status phase_one(mla *m, fast_executor **ex, uint64_t *wss)
{
    const fia_tensor *kp[2] = {&m->k, &m->k}, *vp[2] = {&m->v, &m->v};
    fia_tensor_list kl = {m->nlist, kp}, vl = {m->nlist, vp};
    fast_v2_extras x = {.queryRopeOptional = m->no_qr ? NULL : &m->qr,
                        .keyRopeOptional = m->no_kr ? NULL : &m->kr,
                        .dequantScaleQueryOptional = m->dsq};
    const bool asl = m->tnd || m->QS > 1;
    return fastFusedInferAttentionScoreV2ExtGetWorkspaceSize(
        &m->q, &kl, &vl, m->pse, m->mask ? &m->am : NULL,
        asl ? &m->asl : NULL, &m->aslkv, NULL, NULL, NULL, m->qs2, NULL,
        m->aqs, NULL, m->paged ? &m->bt : NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, NULL, NULL, m->N, 1.0 / sqrt((double)(m->D + DR)),
        2147483647, 2147483647, m->layout, m->KVN, m->sparse, m->inner,
        m->bs, 0, m->lse, 0, 0, &x, &m->out, m->lse ? &m->lsev : NULL, wss,
        ex);
}

/* ---- arithmetic ---------------------------------------------------------- */
static inline double wd(fia_dtype dt, uint16_t h)
{
    return dt == FIA_DT_FP16 ? fia_fp16_to_double(h) : fia_bf16_to_double(h);
}

/* The naive attention of every row that exists, into ref (output rows at
 * o_off) and lse ([token or (b, n, i)] by row index). */
static inline void naive(const mla *m, double *ref, double *lse)
{
    const double scale = 1.0 / sqrt((double)(m->D + DR));
    const int64_t g = m->N / m->KVN;
    double *s = malloc((size_t)m->KVS * sizeof(double));
    for (int64_t b = 0; b < m->B; b++)
        for (int64_t n = 0; n < m->N; n++)
            for (int64_t i = 0; i < m->ql[b]; i++) {
                const int64_t h = n / g, kl = m->kl[b];
                const int64_t last = m->sparse == 3 ? kl - m->ql[b] + i
                                                    : kl - 1;
                const uint16_t *q = m->qd + q_off(m, b, n, i, m->D);
                const uint16_t *qr = m->qrd + q_off(m, b, n, i, DR);
                double mx = -INFINITY, sum = 0.0;
                for (int64_t j = 0; j <= last; j++) {
                    const int64_t ko = k_off(m, b, h, j, m->D);
                    const int64_t ro = k_off(m, b, h, j, DR);
                    double x = 0.0;
                    for (int64_t d = 0; d < m->D; d++)
                        x += wd(m->dt, q[d]) * wd(m->dt, m->kd[k_el(m, ko, d)]);
                    for (int64_t d = 0; d < DR; d++)
                        x += wd(m->dt, qr[d]) *
                             wd(m->dt, m->krd[k_el(m, ro, d)]);
                    s[j] = x * scale;
                    mx = s[j] > mx ? s[j] : mx;
                }
                double *o = ref + o_off(m, b, n, i);
                for (int64_t d = 0; d < m->D; d++)
                    o[d] = 0.0;
                for (int64_t j = 0; j <= last; j++) {
                    const double p = exp(s[j] - mx);
                    const int64_t vo = k_off(m, b, h, j, m->D);
                    sum += p;
                    for (int64_t d = 0; d < m->D; d++)
                        o[d] += p * wd(m->dt, m->vd[k_el(m, vo, d)]);
                }
                for (int64_t d = 0; d < m->D; d++)
                    o[d] /= sum;
                const int64_t li = m->tnd ? (m->qtok[b] + i) * m->N + n
                                          : (b * m->N + n) * m->QS + i;
                lse[li] = mx + log(sum);
            }
    free(s);
}

/* One run of fast/ against ref: the largest error beyond the tolerance
 * (<= 0: every element within), NaN counted as beyond. */
static inline double compare(const mla *m, const double *ref, const double *lse)
{
    /* P rounded to the input dtype before P.V, the output rounded once */
    const double tol = m->dt == FIA_DT_BF16 ? 1.5e-2 : 3e-3;
    double worst = -1.0;
    for (int64_t b = 0; b < m->B; b++)
        for (int64_t n = 0; n < m->N; n++)
            for (int64_t i = 0; i < m->ql[b]; i++) {
                const int64_t o = o_off(m, b, n, i);
                for (int64_t d = 0; d < m->D; d++) {
                    const double got = wd(m->dt, m->od[o + d]);
                    const double e = fabs(got - ref[o + d]) -
                                     tol * (1.0 + fabs(ref[o + d]));
                    worst = e > worst || isnan(got) ? (isnan(got) ? 1e9 : e)
                                                    : worst;
                }
                if (m->lse) {
                    const int64_t li = m->tnd ? (m->qtok[b] + i) * m->N + n
                                              : (b * m->N + n) * m->QS + i;
                    const double e = fabs(m->ld[li] - lse[li]) - 1e-4;
                    worst = isnan(m->ld[li]) ? 1e9 : e > worst ? e : worst;
                }
            }
    return worst;
}

static const char *const levels[] = {"scalar", "avx2", "avx512"};

/* Builds the case and runs it at every level, 1..3 threads, in the plain
 * and a seeded task order: every run within the tolerance of the naive
 * attention. */
static inline void numeric(mla m, const char *what)
{
    m.nlist = 1;
    build(&m, true);
    const int64_t no = numel(&m.out);
    double *ref = malloc((size_t)no * sizeof(double));
    double *lse = calloc((size_t)(m.T * m.N > m.B * m.N * m.QS
                                      ? m.T * m.N : m.B * m.N * m.QS),
                         sizeof(double));
    naive(&m, ref, lse);
    for (int lv = 0; lv < 3; lv++) {
        if (!ftl_level_wanted(levels[lv]))
            continue;
        fastForceKernelLevel(levels[lv]);
        for (int th = 1; th <= 3; th++)
            for (int ord = 0; ord < 2; ord++) {
                fastSetThreadCount(th);
                fastSetTaskOrder(ord ? 0x5eedull + (unsigned)th : 0);
                for (int64_t i = 0; i < no; i++)
                    m.od[i] = 0x7bcd;
                fast_executor *ex = NULL;
                uint64_t wss = 0;
                fia_status st = phase_one(&m, &ex, &wss);
                CHECK_MSG(st == FIA_OK, "%s: phase one %d: %s", what, st,
                          fastLastError());
                if (st != FIA_OK)
                    continue;
                st = ftl_phase_two(ex, wss);
                CHECK_MSG(st == FIA_OK, "%s: phase two %d: %s", what, st,
                          fastLastError());
                const double w = compare(&m, ref, lse);
                CHECK_MSG(w <= 0.0, "%s (%s, %d threads, order %d): an "
                          "element %.3g beyond the tolerance", what,
                          levels[lv], th, ord, w);
            }
    }
    fastForceKernelLevel("auto");
    fastSetThreadCount(0);
    fastSetTaskOrder(0);
    free(ref), free(lse);
    release(&m);
}

#endif
