/* fast/ MLA (query_rope / key_rope, 003; fast/check_mla.c, fast/run_mla.c):
 * every rule of the feature with a call that breaks it (status and check
 * id, both profiles) and one that obeys it, the general rules MLA is
 * exempt from, what stays refused as not modeled; then the arithmetic
 * against a naive double-precision attention written here (scores
 * (q.k + q_rope.k_rope) * scale, V of D columns): decode (Q_S = 1, the
 * keys split across 1..3 threads, a task order), Q_S > 1 with sparse mode
 * 3, BSH / BSND / BNSD and the token layouts, paged caches of both ranks
 * with block_size 16 and 128 behind a shuffled block table (the blocks no
 * batch owns hold NaN), N 32 to 128, every kernel level this CPU has. */
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
    bool paged, cache4d;
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
    bool tnd, q_ntd, o_ntd;
    int64_t T, Tkv, KVS, nblk, bcols, qtok[MAXB], ktok[MAXB];
    /* data (numeric tests) */
    uint16_t *qd, *qrd, *kd, *krd, *vd, *od;
    float *ld;
    int32_t *btd;
    uint8_t *md;
} mla;

static fia_tensor tn(fia_dtype dt, int nd, const int64_t *s, void *data)
{
    fia_tensor t = {.dtype = dt, .ndim = nd, .data = data};
    for (int i = 0; i < nd; i++)
        t.shape[i] = s[i];
    return t;
}

/* The valid decode call every validation test starts from: BSND bf16,
 * N 32, one KV head, D 512 + 64, a (blocknum, 128, 512) cache. */
static mla base(void)
{
    mla m = {.layout = "BSND", .dt = FIA_DT_BF16, .B = 2, .N = 32, .KVN = 1,
             .QS = 1, .D = 512, .ql = {1, 1}, .kl = {200, 130}, .paged = true, .bs = 128,
             .inner = 1, .nlist = 1};
    return m;
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Element offsets (dd: D or DR) of query(_rope) row (b, n, i), key(_rope)
 * / value row (b, h, j), output row (b, n, i). */
static int64_t q_off(const mla *m, int64_t b, int64_t n, int64_t i, int64_t dd)
{
    if (m->tnd) {
        const int64_t t = m->qtok[b] + i;
        return m->q_ntd ? (n * m->T + t) * dd : (t * m->N + n) * dd;
    }
    return ftl_at(ftl_bnsd(m->layout), m->N, m->QS, dd, b, n, i);
}

static int64_t k_off(const mla *m, int64_t b, int64_t h, int64_t j, int64_t dd)
{
    if (m->paged) {
        const int64_t id = m->btd[b * m->bcols + j / m->bs], r = j % m->bs;
        return m->cache4d ? ((id * m->KVN + h) * m->bs + r) * dd
                          : ((id * m->bs + r) * m->KVN + h) * dd;
    }
    if (m->tnd) {
        const int64_t t = m->ktok[b] + j;
        return m->q_ntd ? (h * m->Tkv + t) * dd : (t * m->KVN + h) * dd;
    }
    return ftl_at(ftl_bnsd(m->layout), m->KVN, m->KVS, dd, b, h, j);
}

static int64_t o_off(const mla *m, int64_t b, int64_t n, int64_t i)
{
    if (m->tnd) {
        const int64_t t = m->qtok[b] + i;
        return m->o_ntd ? (n * m->T + t) * m->D : (t * m->N + n) * m->D;
    }
    return ftl_at(ftl_bnsd(m->layout), m->N, m->QS, m->D, b, n, i);
}

static int64_t numel(const fia_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= t->shape[i];
    return n;
}

/* The shapes of the call (and its data when data: random rows, NaN in
 * every cache row no batch owns, a shuffled block table). */
static void build(mla *m, bool data)
{
    const char *l = m->layout;
    m->tnd = strcmp(l, "TND") == 0 || strcmp(l, "TND_NTD") == 0 ||
             strcmp(l, "NTD_TND") == 0 || strcmp(l, "NTD") == 0;
    m->q_ntd = strncmp(l, "NTD", 3) == 0;
    m->o_ntd = strcmp(l, "TND_NTD") == 0 || strcmp(l, "NTD") == 0;
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
        const bool bn = ftl_bnsd(l);
        m->q = ftl_tensor(l, bn, dt, m->B, m->N, m->QS, m->D, NULL);
        m->qr = ftl_tensor(l, bn, dt, m->B, m->N, m->QS, DR, NULL);
        m->out = m->q;
        m->lsev = tn(FIA_DT_FP32, 4, (int64_t[]){m->B, m->N, m->QS, 1}, NULL);
    }
    if (m->paged) {
        m->bcols = ceil_div(KVS, m->bs) + 1;
        m->nblk = 2;
        for (int64_t b = 0; b < m->B; b++)
            m->nblk += ceil_div(m->kl[b], m->bs);
        if (m->cache4d) {
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
                    m->kd[o + d] = ftl_rnd(dt), m->vd[o + d] = ftl_rnd(dt);
                const int64_t r = k_off(m, b, h, j, DR);
                for (int64_t d = 0; d < DR; d++)
                    m->krd[r + d] = ftl_rnd(dt);
            }
    m->q.data = m->qd, m->qr.data = m->qrd, m->k.data = m->kd;
    m->kr.data = m->krd, m->v.data = m->vd, m->out.data = m->od;
    m->lsev.data = m->ld, m->am.data = m->md;
}

static void release(mla *m)
{
    free(m->qd), free(m->qrd), free(m->kd), free(m->krd), free(m->vd);
    free(m->od), free(m->ld), free(m->btd), free(m->md);
}

static fia_status phase_one(mla *m, fast_executor **ex, uint64_t *wss)
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

/* ---- validation -------------------------------------------------------- */
/* Phase one in both profiles: want (a semantic rejection's DOC code turns
 * into 561002 under CANN) and, when not OK, the check id. */
static void expect(mla m, fia_status want_doc, const char *id, int line)
{
    for (int prof = 0; prof < 2; prof++) {
        fastSetStatusProfile(prof ? FIA_PROFILE_CANN : FIA_PROFILE_DOC);
        fia_status want = want_doc == FIA_ERR_PARAM_INVALID && prof &&
                                  strncmp(id, "T_", 2) != 0
                              ? FIA_ERR_INNER_TILING_ERROR : want_doc;
        fast_executor *ex = NULL;
        uint64_t ws = 0;
        fia_status got = phase_one(&m, &ex, &ws);
        CHECK_MSG(got == want, "line %d (%s): got %d want %d: %s", line,
                  prof ? "cann" : "doc", got, want, fastLastError());
        if (id != NULL && got != FIA_OK)
            CHECK_MSG(strncmp(fastLastError(), id, strlen(id)) == 0,
                      "line %d: \"%s\" does not name %s", line,
                      fastLastError(), id);
        fastExecutorDestroy(ex);
    }
    fastSetStatusProfile(FIA_PROFILE_DOC);
}

/* One profile (DOC unless set): a semantic rejection named id. */
static void expect_one(mla *m, const char *id)
{
    fast_executor *ex = NULL;
    uint64_t ws = 0;
    fia_status got = phase_one(m, &ex, &ws);
    CHECK_MSG(got != FIA_OK && strncmp(fastLastError(), id, strlen(id)) == 0,
              "%s: got %d: %s", id, got, fastLastError());
    fastExecutorDestroy(ex);
    fastSetStatusProfile(FIA_PROFILE_DOC);
}

/* m: a call, built; a statement may change it (M names it) first */
#define OK(m) expect((m), FIA_OK, NULL, __LINE__)
#define BAD(id, m) expect((m), FIA_ERR_PARAM_INVALID, id, __LINE__)
#define NOTMOD(id, m) expect((m), FIA_ERR_NOT_MODELED, id, __LINE__)
#define CASE(init, ...)                                                      \
    do {                                                                     \
        mla M = base();                                                      \
        init;                                                                \
        build(&M, false);                                                    \
        __VA_ARGS__;                                                         \
    } while (0)

/* Q_S > 1: sparse 3 with the compressed mask */
#define PREFILL(qs) (M.QS = (qs), M.sparse = 3, M.mask = true)
/* the D 128 scene: TND bf16, contiguous keys */
#define D128(l) (M.layout = (l), M.D = 128, M.paged = false, M.N = 8,       \
                 M.KVN = 2, M.B = 2, M.ql[0] = 5, M.ql[1] = 3,              \
                 M.kl[0] = 40, M.kl[1] = 9)

static void rules(void)
{
    fia_tensor f32 = {FIA_DT_FP32, 1, {1}, NULL};
    fia_tensor bf1 = {FIA_DT_BF16, 1, {1}, NULL};
    CASE(, OK(M));
    /* MLA-001 both or neither */
    CASE(M.no_qr = true, BAD("S_MLA_BOTH", M));
    CASE(M.no_kr = true, BAD("S_MLA_BOTH", M));
    /* layer 2: the registered dtypes (fp16, bf16) */
    CASE(, M.qr.dtype = FIA_DT_FP32, BAD("T_OPTIONAL", M));
    /* MLA-002 the query's / key's dtype */
    CASE(, M.qr.dtype = FIA_DT_FP16, BAD("S_MLA_DTYPE", M));
    CASE(, M.kr.dtype = FIA_DT_FP16, BAD("S_MLA_DTYPE", M));
    CASE(M.dt = FIA_DT_FP16, OK(M));
    /* MLA-003 query D 512 or 128 */
    CASE(M.D = 256, BAD("S_MLA_D", M));
    CASE(D128("TND"), OK(M));
    CASE(D128("NTD_TND"), OK(M));
    /* MLA-004 / 005 the rope shapes */
    CASE(, M.qr.shape[3] = 32, BAD("S_MLA_QROPE_SHAPE", M));
    CASE(, M.qr.shape[1] = 2, BAD("S_MLA_QROPE_SHAPE", M));
    CASE(, M.kr.shape[2] = 32, BAD("S_MLA_KROPE_SHAPE", M));
    CASE(, M.kr.shape[0] -= 1, BAD("S_MLA_KROPE_SHAPE", M));
    CASE(M.layout = "BSH", OK(M));
    CASE(M.layout = "BSH", M.qr.shape[2] = 64, BAD("S_MLA_QROPE_SHAPE", M));
    CASE(M.cache4d = true; M.layout = "BNSD", OK(M));
    CASE(M.cache4d = true; M.layout = "BNSD", M.kr.shape[3] = 512,
         BAD("S_MLA_KROPE_SHAPE", M));
    CASE(D128("TND"), M.kr.shape[2] = 128, BAD("S_MLA_KROPE_SHAPE", M));
    /* MLA-010 Q_S 1..16 (a token layout: every batch) */
    CASE(PREFILL(16), OK(M));
    CASE(PREFILL(17), BAD("S_MLA_QS", M));
    CASE(M.layout = "TND"; M.ql[0] = 16; M.ql[1] = 1, OK(M));
    CASE(M.layout = "TND"; M.ql[0] = 17; M.ql[1] = 1, BAD("S_MLA_QS", M));
    CASE(M.layout = "TND"; M.ql[0] = 0; M.ql[1] = 1, BAD("S_MLA_QS", M));
    /* MLA-011 N 32 / 64 / 128 (the GQA ratio 128 is documented: DOC too) */
    CASE(M.N = 64, OK(M));
    CASE(M.N = 128, OK(M));
    CASE(M.N = 128; PREFILL(2), OK(M));
    CASE(M.N = 128; PREFILL(2); M.layout = "BSH", OK(M)); /* N*D 65536 */
    CASE(M.N = 16, BAD("S_MLA_HEADS", M));
    CASE(M.N = 256, BAD("S_MLA_HEADS", M));
    /* MLA-012 KV_N 1, key D 512 (the latter: the cache's rule) */
    CASE(M.N = 64; M.KVN = 2, BAD("S_MLA_KV_HEADS", M));
    CASE(, M.k.shape[2] = 256; M.v = M.k, BAD("S_PAGED_CACHE", M));
    /* MLA-013 sparse: Q_S 1 mode 0 without a mask, Q_S > 1 mode 3 with */
    CASE(M.sparse = 3, BAD("S_MLA_SPARSE", M));
    CASE(M.mask = true, BAD("S_MLA_SPARSE", M));
    CASE(PREFILL(2); M.sparse = 0, BAD("S_MLA_SPARSE", M));
    CASE(PREFILL(2); M.mask = false, BAD("S_MLA_SPARSE", M));
    CASE(PREFILL(2); M.sparse = 2, BAD("S_MLA_SPARSE", M));
    CASE(PREFILL(2), OK(M));
    /* (a token layout: its own rule, 0 without a mask or 3 with one) */
    CASE(M.layout = "TND"; M.ql[0] = 2; M.ql[1] = 1; M.sparse = 3;
         M.mask = true, OK(M));
    CASE(M.layout = "TND"; M.sparse = 0; M.mask = true, BAD("S_TND_MASK", M));
    /* MLA-014 layouts (D 512) */
    CASE(M.layout = "BNSD", OK(M));
    CASE(M.layout = "TND", OK(M));
    CASE(M.layout = "TND_NTD", OK(M));
    CASE(M.layout = "TND"; M.cache4d = true, OK(M));
    CASE(M.layout = "TND"; M.dt = FIA_DT_FP16, OK(M)); /* not bf16 only */
    CASE(M.layout = "NTD_TND", BAD("S_MLA_LAYOUT", M));
    CASE(M.layout = "BNSD_BSND"; PREFILL(2), M.out.shape[1] = 2;
         M.out.shape[2] = 32, BAD("S_MLA_LAYOUT", M));
    CASE(M.layout = "BSH_NBSD", M.q = M.qr = tn(FIA_DT_BF16, 3,
         (int64_t[]){2, 1, 32 * 512}, NULL); M.qr.shape[2] = 32 * 64;
         M.out = M.q, NOTMOD("M_LAYOUT", M));
    /* MLA-015 page attention */
    CASE(M.paged = false, BAD("S_MLA_PAGED", M));
    CASE(M.paged = false; M.layout = "TND", BAD("S_MLA_PAGED", M));
    /* MLA-016 block_size 16 or 128, at any Q_S */
    CASE(M.bs = 16, OK(M));
    CASE(M.bs = 16; PREFILL(2), OK(M));
    CASE(M.bs = 64, BAD("S_MLA_BLOCK_SIZE", M));
    CASE(M.bs = 256; PREFILL(2), BAD("S_MLA_BLOCK_SIZE", M));
    CASE(M.bs = 16; M.layout = "TND", OK(M));
    /* MLA-X01 (layer 3) */
    CASE(M.lse = true, BAD("S_MLA_LSE", M));
    CASE(M.paged = false; M.nlist = 2, BAD("S_MLA_LIST", M));
    CASE(, M.pse = &bf1, BAD("S_MLA_PSE", M));
    CASE(, M.k.dtype = M.v.dtype = FIA_DT_INT8, BAD("S_MLA_ANTIQUANT", M));
    CASE(, M.aqs = &bf1, BAD("S_MLA_ANTIQUANT", M));
    CASE(, M.qs2 = &f32, BAD("S_MLA_OUT_QUANT", M));
    /* ... before the semantic rows: a lse with a bad shape is still X01 */
    CASE(M.lse = true; M.N = 16, BAD("S_MLA_LSE", M));
    /* MLA-020 (D 128) TND, NTD_TND */
    CASE(D128("TND_NTD"), BAD("S_TND_NTD", M));
    CASE(M.D = 128; M.paged = false; M.N = 8; M.KVN = 2; M.layout = "BSND",
         BAD("S_MLA_LAYOUT", M));
    /* MLA-021 (D 128, layer 3) */
    CASE(D128("TND"); M.paged = true, BAD("S_MLA_PAGED_128", M));
    /* dequant_scale_query is full quantization for the token layout's own
     * exclusion too, whose row comes first */
    CASE(D128("TND"), M.dsq = &f32, BAD("S_TND_QUANT", M));
    CASE(D128("TND"), M.pse = &bf1, BAD("S_TND_PSE", M));
    CASE(D128("TND"), M.qs2 = &f32, BAD("S_TND_OUT_QUANT", M));
    /* MLA-022 Q_D = K_D = V_D = 128 (the token layout's head dims) */
    CASE(D128("TND"), M.v.shape[2] = 64, BAD("S_TND_D", M));
    CASE(D128("TND"), M.k.shape[2] = 64, BAD("S_KV_D", M));
    /* TND's D != 512 list still holds for D 128 with rope */
    CASE(D128("TND"); M.dt = FIA_DT_FP16, BAD("S_TND_DTYPE", M));
    CASE(D128("TND"); M.lse = true, OK(M));
    /* not modeled (layer 4): full quantization, the NZ cache */
    CASE(, M.q.dtype = M.k.dtype = M.v.dtype = FIA_DT_INT8;
         M.dsq = &f32, NOTMOD("M_MLA_QUANT", M));
    CASE(, M.k = M.v = tn(FIA_DT_BF16, 5, (int64_t[]){M.nblk, 1, 32, 128, 16},
                          NULL), NOTMOD("M_MLA_NZ", M));
    /* the general rules MLA is exempt from still hold without rope */
    CASE(M.N = 32; PREFILL(2); M.bs = 16, M.no_qr = M.no_kr = true,
         BAD("S_PAGED_BLOCK_SIZE", M));
    CASE(M.N = 128; PREFILL(2); M.layout = "BSND", M.no_qr = M.no_kr = true;
         fastSetStatusProfile(FIA_PROFILE_CANN); expect_one(&M, "S_ND_MAX"));
    CASE(M.N = 128; PREFILL(2); M.layout = "BNSD", M.no_qr = M.no_kr = true;
         expect_one(&M, "S_GQA_RATIO"));
}

/* Phase two without data for a rope: a runtime error, not a read. */
static void no_data(void)
{
    mla m = base();
    build(&m, true);
    fast_executor *ex = NULL;
    uint64_t wss = 0;
    m.qr.data = NULL;
    CHECK_EQ_INT(phase_one(&m, &ex, &wss), FIA_OK);
    CHECK_EQ_INT(ftl_phase_two(ex, wss), FIA_ERR_RUNTIME_ERROR);
    CHECK(strncmp(fastLastError(), "R_NO_DATA", 9) == 0);
    release(&m);
}

/* ---- arithmetic ---------------------------------------------------------- */
static double wd(fia_dtype dt, uint16_t h)
{
    return dt == FIA_DT_FP16 ? fia_fp16_to_double(h) : fia_bf16_to_double(h);
}

/* The naive attention of every row that exists, into ref (output rows at
 * o_off) and lse ([token or (b, n, i)] by row index). */
static void naive(const mla *m, double *ref, double *lse)
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
                    const uint16_t *k = m->kd + k_off(m, b, h, j, m->D);
                    const uint16_t *kr = m->krd + k_off(m, b, h, j, DR);
                    double x = 0.0;
                    for (int64_t d = 0; d < m->D; d++)
                        x += wd(m->dt, q[d]) * wd(m->dt, k[d]);
                    for (int64_t d = 0; d < DR; d++)
                        x += wd(m->dt, qr[d]) * wd(m->dt, kr[d]);
                    s[j] = x * scale;
                    mx = s[j] > mx ? s[j] : mx;
                }
                double *o = ref + o_off(m, b, n, i);
                for (int64_t d = 0; d < m->D; d++)
                    o[d] = 0.0;
                for (int64_t j = 0; j <= last; j++) {
                    const double p = exp(s[j] - mx);
                    const uint16_t *v = m->vd + k_off(m, b, h, j, m->D);
                    sum += p;
                    for (int64_t d = 0; d < m->D; d++)
                        o[d] += p * wd(m->dt, v[d]);
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
static double compare(const mla *m, const double *ref, const double *lse)
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
static void numeric(mla m, const char *what)
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
        if (!fastKernelLevelAvailable(levels[lv]))
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

static void arithmetic(void)
{
    mla m;
    /* decode: N 32, two batches of several blocks, keys split by thread */
    m = base(), m.kl[0] = 700, m.kl[1] = 333;
    numeric(m, "decode BSND bf16 N32 bs128");
    /* decode N 128, BSH, block_size 16 */
    m = base(), m.layout = "BSH", m.N = 128, m.B = 1, m.kl[0] = 1000;
    m.bs = 16;
    numeric(m, "decode BSH bf16 N128 bs16");
    /* decode fp16 (P rounded: inner_precise 1, and not: 0), 4-D cache,
     * a batch of one key */
    m = base(), m.layout = "BNSD", m.dt = FIA_DT_FP16, m.N = 64, m.B = 3;
    m.kl[0] = 513, m.kl[1] = 64, m.kl[2] = 1, m.bs = 16, m.cache4d = true;
    numeric(m, "decode BNSD fp16 N64 bs16 4-D");
    m.inner = 0;
    numeric(m, "decode BNSD fp16 N64 bs16 4-D high precision");
    /* Q_S > 1: sparse 3 (the register-tiled path, K widened once) */
    m = base(), m.QS = 4, m.sparse = 3, m.mask = true, m.kl[0] = 300;
    m.kl[1] = 150;
    numeric(m, "Q_S 4 BSND bf16 N32 bs128 causal");
    m = base(), m.layout = "BNSD", m.dt = FIA_DT_FP16, m.N = 128, m.B = 1;
    m.QS = 3, m.sparse = 3, m.mask = true, m.kl[0] = 200, m.bs = 16;
    m.cache4d = true;
    numeric(m, "Q_S 3 BNSD fp16 N128 bs16 4-D causal");
    m = base(), m.layout = "BSH", m.QS = 16, m.sparse = 3, m.mask = true;
    m.B = 1, m.kl[0] = 140;
    numeric(m, "Q_S 16 BSH bf16 N32 bs128 causal");
    /* token layouts, D 512: a paged cache, per-batch key lengths */
    m = base(), m.layout = "TND", m.B = 3, m.ql[0] = 1, m.ql[1] = 3;
    m.ql[2] = 2, m.kl[0] = 400, m.kl[1] = 200, m.kl[2] = 50;
    numeric(m, "TND bf16 N32 bs128");
    m.sparse = 3, m.mask = true;
    numeric(m, "TND bf16 N32 bs128 causal");
    m = base(), m.layout = "TND_NTD", m.dt = FIA_DT_FP16, m.N = 64;
    m.ql[0] = 2, m.ql[1] = 1, m.kl[0] = 100, m.kl[1] = 300, m.bs = 16;
    m.cache4d = true;
    numeric(m, "TND_NTD fp16 N64 bs16 4-D");
    /* D 128 (TND, NTD_TND): contiguous keys, lse */
    m = base(), m.layout = "TND", m.D = 128, m.paged = false, m.N = 8;
    m.KVN = 2, m.ql[0] = 5, m.ql[1] = 40, m.kl[0] = 60, m.kl[1] = 80;
    m.sparse = 3, m.mask = true, m.lse = true;
    numeric(m, "TND bf16 D128 causal lse");
    m.layout = "NTD_TND", m.sparse = 0, m.mask = false;
    m.ql[0] = 1, m.ql[1] = 1, m.kl[0] = 300, m.kl[1] = 129;
    numeric(m, "NTD_TND bf16 D128 decode lse");
}

int main(void)
{
    rules();
    no_data();
    arithmetic();
    return check_summary();
}
