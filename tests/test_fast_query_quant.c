/* fast/ MLA full quantization (003 "支持全量化场景";
 * fast/check_query_quant_mla.c, fast/run_query_quant.c) and 003's
 * query_quant_mode (check_query_quant.c): every rule with a call that
 * breaks it (status and check id, both profiles) next to one that obeys it,
 * the general rules the scene is exempt from, the refusals outside the
 * scene; then the arithmetic against a double-precision computation written
 * here from the formula
 *   q = q_int8 * dsq[token, head], k = k_int8 * dsk, v = v_int8 * dsv,
 *   s = (q.k + q_rope.k_rope) / sqrt(D + Dr), out = softmax(s) . v
 * for Q_S 1 and 4, ND (rank 3 and 4) and int8 NZ caches, block_size 16
 * and 128, every kernel level this CPU has, 1..3 threads and two task
 * orders; and a call whose answer shows that dequant_scale_query is read
 * per token and head (each wrong reading of it is shown to fall outside
 * the tolerance first). */
#include "mla_testlib.h"
#include "fast_expect.h"

/* An MLA call (mla_testlib.h) made a full-quantization one: query, key
 * and value int8, the ropes and attention_out bf16 (build's with dt
 * bf16), the three scales fp32, the quantization modes. */
typedef struct query_quant_call {
    mla m;
    mla_query_quant x;                       /* tensors, data, scales */
    const fia_tensor *dsq_p, *dsk_p, *dsv_p; /* as passed (NULL: none) */
    const fia_tensor *dok, *dov, *qo2;      /* dequant_offset_*, quant_offset_out */
    int64_t qqm, kqm, vqm;
    bool keep_k;                             /* a test set m.k itself */
} query_quant_call;

static query_quant_call query_quant_base(void)
{
    query_quant_call f;
    memset(&f, 0, sizeof f);
    f.m = base();
    f.qqm = 3;
    f.x.sk = 0.02f, f.x.sv = 0.01f;
    return f;
}

/* The shapes (and with data the values) of the call. */
static void query_quant_build(query_quant_call *f, bool data)
{
    mla *m = &f->m;
    m->dt = FIA_DT_BF16;
    build(m, data);
    mla_query_quant_make(m, &f->x, data);
    f->dsq_p = &f->x.dsq, f->dsk_p = &f->x.dsk, f->dsv_p = &f->x.dsv;
}

static void query_quant_release(query_quant_call *f)
{
    mla_query_quant_free(&f->x);
    release(&f->m);
}

static fia_status query_quant_phase_one(query_quant_call *f,
                                        fast_executor **ex, uint64_t *wss)
{
    mla *m = &f->m;
    const fia_tensor *kp[2] = {&m->k, &m->k}, *vp[2] = {&m->v, &m->v};
    fia_tensor_list kl = {m->nlist, kp}, vl = {m->nlist, vp};
    fast_v2_extras x = {.queryRopeOptional = m->no_qr ? NULL : &m->qr,
                        .keyRopeOptional = m->no_kr ? NULL : &m->kr,
                        .dequantScaleQueryOptional = f->dsq_p,
                        .queryQuantMode = f->qqm};
    const bool asl = m->tnd || m->QS > 1;
    return fastFusedInferAttentionScoreV2ExtGetWorkspaceSize(
        &m->q, &kl, &vl, m->pse, m->mask ? &m->am : NULL,
        asl ? &m->asl : NULL, &m->aslkv, NULL, NULL, NULL, m->qs2, f->qo2,
        m->aqs, NULL, m->paged ? &m->bt : NULL, NULL, NULL, f->dsk_p, f->dok,
        f->dsv_p, f->dov, NULL, NULL, NULL, m->N,
        1.0 / sqrt((double)(m->D + DR)), 2147483647, 2147483647, m->layout,
        m->KVN, m->sparse, m->inner, m->bs, 0, m->lse, f->kqm, f->vqm, &x,
        &m->out, m->lse ? &m->lsev : NULL, wss, ex);
}

/* ---- validation -------------------------------------------------------- */
/* Phase one's status in the profile set (the executor destroyed). */
static fia_status query_quant_status(void *f)
{
    fast_executor *ex = NULL;
    uint64_t ws = 0;
    fia_status got = query_quant_phase_one(f, &ex, &ws);
    fastExecutorDestroy(ex);
    return got;
}

/* Phase one in both profiles: want (a semantic rejection's DOC code turns
 * into 561002 under CANN; a T_ dtype rejection stays 161002) and, when
 * not OK, the check id. */
static void expect(query_quant_call f, fia_status want_doc, const char *id,
                   int line)
{
    ftl_expect_profiles(query_quant_status, &f, want_doc,
                        ftl_cann_status(want_doc, ftl_dtype_layer_id(id)), id,
                        line);
}

#define OK(f) expect((f), FIA_OK, NULL, __LINE__)
#define BAD(id, f) expect((f), FIA_ERR_PARAM_INVALID, id, __LINE__)
#define NOTMOD(id, f) expect((f), FIA_ERR_NOT_MODELED, id, __LINE__)
/* F: a full-quantization call, built; a statement may change it first */
#define CASE(init, ...)                                                      \
    do {                                                                     \
        query_quant_call F = query_quant_base();                             \
        init;                                                                \
        query_quant_build(&F, false);                                        \
        __VA_ARGS__;                                                         \
    } while (0)
#define PREFILL(qs) (F.m.QS = (qs), F.m.sparse = 3, F.m.mask = true)

static void rules(void)
{
    fia_tensor f32 = {FIA_DT_FP32, 1, {1}, NULL};
    fia_tensor f16 = {FIA_DT_FP16, 1, {1}, NULL};
    fia_tensor f32x2 = {FIA_DT_FP32, 1, {2}, NULL};
    fia_tensor f32_11 = {FIA_DT_FP32, 2, {1, 1}, NULL};
    /* the scene, and the general rules it is exempt from: ANTI-027 (all
     * int8 at Q_S = 1), S_PAGED_INT8_QUERY / S_PAGED_ANTIQUANT (page
     * attention at Q_S > 1), ANTI-028 (N / KV_N = 128), Q8-* (002's int8
     * query: out fp16/int8, dequant_scale1 ...), the rope dtype = query
     * dtype rule */
    CASE(, OK(F));
    CASE(F.m.layout = "BSH", OK(F));
    CASE(F.m.layout = "BNSD"; F.m.cache4d = true, OK(F));
    CASE(F.m.N = 128, OK(F));
    CASE(F.m.N = 64; F.m.bs = 16, OK(F));
    CASE(PREFILL(4), OK(F));
    CASE(PREFILL(16); F.m.N = 128; F.m.layout = "BSH", OK(F));
    CASE(F.m.nz = true, OK(F));
    CASE(F.m.nz = true; PREFILL(3); F.m.layout = "BSND_NBSD", OK(F));
    CASE(F.m.layout = "BNSD_NBSD"; F.m.cache4d = true; PREFILL(2), OK(F));
    /* the output: bf16 */
    CASE(, F.m.out.dtype = FIA_DT_FP16, BAD("S_MLA_FQ_OUT", F));
    /* (an int8 output is output quantization's: quant_scale_out first) */
    CASE(, F.m.out.dtype = FIA_DT_INT8, BAD("OQ-001", F));
    /* the ropes: bf16 (fp16 is registered, int8 is not) */
    CASE(, F.m.qr.dtype = FIA_DT_FP16, BAD("S_MLA_FQ_ROPE", F));
    CASE(, F.m.kr.dtype = FIA_DT_FP16, BAD("S_MLA_FQ_ROPE", F));
    CASE(, F.m.kr.dtype = FIA_DT_INT8, BAD("T_OPTIONAL", F));
    /* key and value int8 with the int8 query */
    CASE(, F.m.k.dtype = F.m.v.dtype = FIA_DT_BF16, BAD("S_KV_DTYPE", F));
    /* the three scales, each present ... */
    CASE(, F.dsq_p = NULL, BAD("S_MLA_FQ_SCALES", F));
    CASE(, F.dsk_p = NULL, BAD("S_MLA_FQ_SCALES", F));
    CASE(, F.dsv_p = NULL, BAD("S_MLA_FQ_SCALES", F));
    /* ... and fp32 (dequant_scale_query registers fp32 only: layer 2) */
    CASE(, F.x.dsk.dtype = FIA_DT_BF16, BAD("S_MLA_FQ_SCALE_DTYPE", F));
    CASE(, F.x.dsv.dtype = FIA_DT_FP16, BAD("S_MLA_FQ_SCALE_DTYPE", F));
    CASE(, F.x.dsq.dtype = FIA_DT_FP16, BAD("T_OPTIONAL", F));
    /* what it refuses: the offsets, the output's quantization (layer 3,
     * every MLA call's) */
    CASE(, F.dok = &f32, BAD("S_MLA_FQ_OFFSET", F));
    CASE(, F.dov = &f32, BAD("S_MLA_FQ_OFFSET", F));
    CASE(, F.m.qs2 = &f32, BAD("S_MLA_OUT_QUANT", F));
    CASE(, F.qo2 = &f32, BAD("S_MLA_OUT_QUANT", F));
    /* the combined antiquant set is antiquant ("伪量化"), not the scene's */
    CASE(, F.m.aqs = &f16, BAD("S_MLA_ANTIQUANT", F));
    /* the modes: query 3, key and value 0 */
    CASE(, F.qqm = 0, BAD("S_MLA_FQ_QMODE", F));
    CASE(, F.qqm = 1, BAD("S_MLA_FQ_QMODE", F));
    CASE(, F.kqm = 1, BAD("S_MLA_FQ_KVMODE", F));
    CASE(, F.vqm = 2, BAD("S_MLA_FQ_KVMODE", F));
    CASE(, F.kqm = F.vqm = 1, BAD("S_MLA_FQ_KVMODE", F));
    /* dequant_scale_query: the query's shape without D ((B, S, N), BNSD
     * (B, N, S)); Q_S 4 tells the two apart */
    CASE(PREFILL(4), F.x.dsq = tn(FIA_DT_FP32, 3, (int64_t[]){2, 32, 4}, NULL),
         BAD("S_MLA_FQ_DSQ_SHAPE", F));
    CASE(PREFILL(4); F.m.layout = "BNSD"; F.m.cache4d = true,
         F.x.dsq = tn(FIA_DT_FP32, 3, (int64_t[]){2, 4, 32}, NULL),
         BAD("S_MLA_FQ_DSQ_SHAPE", F));
    CASE(PREFILL(4); F.m.layout = "BNSD"; F.m.cache4d = true, OK(F));
    CASE(F.m.layout = "BSH", F.x.dsq = tn(FIA_DT_FP32, 3,
                                        (int64_t[]){2, 1, 32 * 512}, NULL),
         BAD("S_MLA_FQ_DSQ_SHAPE", F));
    CASE(, F.x.dsq = tn(FIA_DT_FP32, 4, (int64_t[]){2, 1, 32, 1}, NULL),
         BAD("S_MLA_FQ_DSQ_SHAPE", F));
    CASE(, F.x.dsq = tn(FIA_DT_FP32, 3, (int64_t[]){1, 1, 32}, NULL),
         BAD("S_MLA_FQ_DSQ_SHAPE", F));
    /* dequant_scale_key / _value: [1] */
    CASE(, F.dsk_p = &f32x2, BAD("S_MLA_FQ_KV_SHAPE", F));
    CASE(, F.dsv_p = &f32_11, BAD("S_MLA_FQ_KV_SHAPE", F));
    /* the int8 NZ cache: [blockNum, N, D/32, blockSize, 32], its bf16
     * key_rope [.., 64/16, .., 16] */
    CASE(F.m.nz = true, F.m.k = F.m.v = tn(FIA_DT_INT8, 5, (int64_t[]){
                            F.m.nblk, 1, 32, 128, 16}, NULL),
         BAD("S_PAGED_CACHE", F));
    CASE(F.m.nz = true, F.m.kr = tn(FIA_DT_BF16, 5, (int64_t[]){
                            F.m.nblk, 1, 2, 128, 32}, NULL),
         BAD("S_MLA_KROPE_SHAPE", F));
    CASE(F.m.nz = true; F.m.bs = 16, BAD("S_MLA_NZ_BLOCK_SIZE", F));
    CASE(F.m.nz = true; F.m.layout = "BNSD", BAD("S_MLA_NZ_LAYOUT", F));
    /* the token layouts refuse full quantization (their D 512 list) */
    CASE(F.m.layout = "TND", BAD("S_TND_QUANT", F));
    CASE(F.m.layout = "TND_NTD", BAD("S_TND_QUANT", F));
    /* the D 512 scene's other rules still hold */
    /* (12: not a power of two, rejected in both profiles, MLA-011 /
     * MLA-017; the released code takes 16) */
    CASE(F.m.N = 12, BAD("S_MLA_HEADS", F));
    CASE(F.m.bs = 64, BAD("S_MLA_BLOCK_SIZE", F));
    CASE(F.m.sparse = 3, BAD("S_MLA_SPARSE", F));
    CASE(F.m.lse = true, BAD("S_MLA_LSE", F));
    CASE(PREFILL(17), BAD("S_MLA_QS", F));
    /* query_quant_mode: 0 or 3 anywhere */
    CASE(, F.qqm = 2; F.m.dt = FIA_DT_BF16; F.m.q.dtype = FIA_DT_BF16;
         F.m.k.dtype = F.m.v.dtype = FIA_DT_BF16; F.dsq_p = F.dsk_p =
         F.dsv_p = NULL, BAD("S_QQUANT_MODE", F));
    CASE(F.m.paged = false, F.qqm = -1; F.m.no_qr = F.m.no_kr = true;
         F.m.q.dtype = F.m.k.dtype = F.m.v.dtype = FIA_DT_BF16;
         F.dsq_p = F.dsk_p = F.dsv_p = NULL, BAD("S_QQUANT_MODE", F));
    CASE(F.m.paged = false, F.m.no_qr = F.m.no_kr = true;
         F.m.q.dtype = F.m.k.dtype = F.m.v.dtype = FIA_DT_BF16;
         F.dsq_p = F.dsk_p = F.dsv_p = NULL, NOTMOD("M_QQUANT_MODE", F));
    CASE(F.m.paged = false, F.m.no_qr = F.m.no_kr = true; F.qqm = 0;
         F.m.q.dtype = F.m.k.dtype = F.m.v.dtype = FIA_DT_BF16;
         F.dsk_p = F.dsv_p = NULL, NOTMOD("M_OPTIONAL", F));
    /* outside the scene (a bf16 MLA call, a call without rope) no document
     * says what dequant_scale_query or mode 3 do: not modeled, late (a
     * rejection wins) */
    CASE(, F.m.q.dtype = F.m.k.dtype = F.m.v.dtype = FIA_DT_BF16;
         F.dsk_p = F.dsv_p = NULL, NOTMOD("M_OPTIONAL", F));
    CASE(, F.m.q.dtype = F.m.k.dtype = F.m.v.dtype = FIA_DT_BF16;
         F.dsq_p = F.dsk_p = F.dsv_p = NULL, NOTMOD("M_QQUANT_MODE", F));
    CASE(, F.m.q.dtype = F.m.k.dtype = F.m.v.dtype = FIA_DT_BF16;
         F.dsq_p = F.dsk_p = F.dsv_p = NULL; F.qqm = 0, OK(F));
    CASE(F.m.N = 12, F.m.q.dtype = F.m.k.dtype = F.m.v.dtype = FIA_DT_BF16;
         F.dsk_p = F.dsv_p = NULL, BAD("S_MLA_HEADS", F));
    /* (a bf16 MLA call with the key/value scales: antiquant, refused) */
    CASE(, F.m.q.dtype = F.m.k.dtype = F.m.v.dtype = FIA_DT_BF16;
         F.dsq_p = NULL; F.qqm = 0, BAD("S_MLA_ANTIQUANT", F));
}

/* Phase two without a scale's data: a runtime error, not a read. */
static void no_data(void)
{
    for (int which = 0; which < 3; which++) {
        query_quant_call f = query_quant_base();
        query_quant_build(&f, true);
        fia_tensor *t = which == 0   ? &f.x.dsq
                        : which == 1 ? &f.x.dsk
                                     : &f.x.dsv;
        t->data = NULL;
        fast_executor *ex = NULL;
        uint64_t wss = 0;
        CHECK_EQ_INT(query_quant_phase_one(&f, &ex, &wss), FIA_OK);
        CHECK_EQ_INT(ftl_phase_two(ex, wss), FIA_ERR_RUNTIME_ERROR);
        CHECK(strncmp(fastLastError(), "R_NO_DATA", 9) == 0);
        query_quant_release(&f);
    }
}

/* ---- arithmetic ---------------------------------------------------------- */
/* How the double computation reads dequant_scale_query: as documented
 * (RIGHT), or one of the readings a wrong index would give. */
enum { RIGHT, SWAPPED /* the other layout's (S, N) order */,
       TOKEN0 /* every token's the first one's */,
       HEAD0 /* every head's head 0's */ };

static double dsq_read(const query_quant_call *f, int64_t b, int64_t n,
                       int64_t i, int how)
{
    const mla *m = &f->m;
    const int64_t bn = ftl_bnsd(m->layout);
    int64_t x = mla_dsq_index(&f->m, b, how == HEAD0 ? 0 : n,
                              how == TOKEN0 ? 0 : i);
    if (how == SWAPPED)
        x = bn ? (b * m->QS + i) * m->N + n : (b * m->N + n) * m->QS + i;
    return f->x.dsqd[x];
}

/* The attention of every row from the formula, in double, into ref
 * (output rows at o_off). */
static void naive_query_quant(const query_quant_call *f, double *ref, int how)
{
    const mla *m = &f->m;
    const double scale = 1.0 / sqrt((double)(m->D + DR));
    double *s = malloc((size_t)m->KVS * sizeof(double));
    for (int64_t b = 0; b < m->B; b++)
        for (int64_t n = 0; n < m->N; n++)
            for (int64_t i = 0; i < m->QS; i++) {
                const int64_t kl = m->kl[b];
                const int64_t last = m->sparse == 3 ? kl - m->QS + i : kl - 1;
                const int8_t *q = f->x.q_int8 + q_off(m, b, n, i, m->D);
                const uint16_t *qr = m->qrd + q_off(m, b, n, i, DR);
                const double dq = dsq_read(f, b, n, i, how);
                double mx = -INFINITY, sum = 0.0;
                for (int64_t j = 0; j <= last; j++) {
                    double x = 0.0;
                    for (int64_t d = 0; d < m->D; d++)
                        x += (q[d] * dq) *
                             (f->x.k_int8[mla_k8_at(m, b, 0, j, d)] *
                              (double)f->x.sk);
                    const int64_t ro = k_off(m, b, 0, j, DR);
                    for (int64_t d = 0; d < DR; d++)
                        x += fia_bf16_to_double(qr[d]) *
                             fia_bf16_to_double(m->krd[k_el(m, ro, d)]);
                    s[j] = x * scale;
                    mx = s[j] > mx ? s[j] : mx;
                }
                double *o = ref + o_off(m, b, n, i);
                for (int64_t d = 0; d < m->D; d++)
                    o[d] = 0.0;
                for (int64_t j = 0; j <= last; j++) {
                    const double p = exp(s[j] - mx);
                    sum += p;
                    for (int64_t d = 0; d < m->D; d++)
                        o[d] += p * (f->x.v_int8[mla_k8_at(m, b, 0, j, d)] *
                                     (double)f->x.sv);
                }
                for (int64_t d = 0; d < m->D; d++)
                    o[d] /= sum;
            }
    free(s);
}

/* The largest excess of b over a beyond compare()'s tolerance (bf16:
 * 1.5e-2 (1 + |a|)). */
static double excess(const mla *m, const double *a, const double *b)
{
    double worst = -1.0;
    for (int64_t i = 0; i < numel(&m->out); i++) {
        const double e = fabs(b[i] - a[i]) - 1.5e-2 * (1.0 + fabs(a[i]));
        worst = e > worst ? e : worst;
    }
    return worst;
}

/* The call run at every level, 1..3 threads, two task orders: within the
 * tolerance of the formula (compare(): P rounded to bf16, the output
 * rounded once).  wrong: also the readings of dequant_scale_query that
 * an index error would give must each fall outside the tolerance of the
 * right one (so that this call would catch them). */
static void numeric_query_quant(query_quant_call f, const char *what,
                                bool wrong)
{
    f.m.nlist = 1;
    query_quant_build(&f, true);
    mla *m = &f.m;
    const int64_t no = numel(&m->out);
    double *ref = calloc((size_t)no, sizeof(double));
    double *lse = calloc((size_t)(m->B * m->N * m->QS), sizeof(double));
    naive_query_quant(&f, ref, RIGHT);
    for (int how = SWAPPED; wrong && how <= HEAD0; how++) {
        double *alt = calloc((size_t)no, sizeof(double));
        naive_query_quant(&f, alt, how);
        CHECK_MSG(excess(m, ref, alt) > 0.0, "%s: the wrong reading %d of "
                  "dequant_scale_query is within the tolerance: the call "
                  "cannot tell it", what, how);
        free(alt);
    }
    for (int lv = 0; lv < 3; lv++) {
        if (!ftl_level_wanted(levels[lv]))
            continue;
        fastForceKernelLevel(levels[lv]);
        for (int th = 1; th <= 3; th++)
            for (int ord = 0; ord < 2; ord++) {
                fastSetThreadCount(th);
                fastSetTaskOrder(ord ? 0x5eedull + (unsigned)th : 0);
                for (int64_t i = 0; i < no; i++)
                    m->od[i] = 0x7bcd;
                fast_executor *ex = NULL;
                uint64_t wss = 0;
                fia_status st = query_quant_phase_one(&f, &ex, &wss);
                CHECK_MSG(st == FIA_OK, "%s: phase one %d: %s", what, st,
                          fastLastError());
                if (st != FIA_OK)
                    continue;
                st = ftl_phase_two(ex, wss);
                CHECK_MSG(st == FIA_OK, "%s: phase two %d: %s", what, st,
                          fastLastError());
                const double w = compare(m, ref, lse);
                CHECK_MSG(w <= 0.0, "%s (%s, %d threads, order %d): an "
                          "element %.3g beyond the tolerance", what,
                          levels[lv], th, ord, w);
            }
    }
    fastForceKernelLevel("auto");
    fastSetThreadCount(0);
    fastSetTaskOrder(0);
    free(ref), free(lse);
    query_quant_release(&f);
}

static void arithmetic(void)
{
    query_quant_call f;
    /* decode, ND (blocknum, 128, 512), keys split by thread */
    f = query_quant_base(), f.m.kl[0] = 700, f.m.kl[1] = 333;
    numeric_query_quant(f, "decode BSND ND bs128", false);
    /* decode, ND block_size 16, BSH, N 128 */
    f = query_quant_base(), f.m.layout = "BSH", f.m.N = 128, f.m.B = 1;
    f.m.kl[0] = 300, f.m.bs = 16;
    numeric_query_quant(f, "decode BSH ND bs16 N128", false);
    /* decode, rank-4 cache, BNSD, block_size 16, a batch of one key */
    f = query_quant_base(), f.m.layout = "BNSD", f.m.cache4d = true;
    f.m.bs = 16, f.m.N = 64, f.m.kl[0] = 77, f.m.kl[1] = 1;
    numeric_query_quant(f, "decode BNSD 4-D bs16 N64", false);
    /* decode, int8 NZ (block_size 128: NZ takes no 16) */
    f = query_quant_base(), f.m.nz = true, f.m.kl[0] = 400, f.m.kl[1] = 129;
    numeric_query_quant(f, "decode BSND NZ bs128", false);
    /* Q_S 4 (sparse 3 with the mask): the register-tiled path, K/V
     * widened once */
    f = query_quant_base(), f.m.QS = 4, f.m.sparse = 3, f.m.mask = true;
    f.m.kl[0] = 300, f.m.kl[1] = 150;
    numeric_query_quant(f, "Q_S 4 BSND ND bs128", false);
    f = query_quant_base(), f.m.QS = 4, f.m.sparse = 3, f.m.mask = true;
    f.m.bs = 16, f.m.layout = "BNSD", f.m.cache4d = true;
    f.m.kl[0] = 90, f.m.kl[1] = 33;
    numeric_query_quant(f, "Q_S 4 BNSD 4-D bs16", false);
    f = query_quant_base(), f.m.QS = 4, f.m.sparse = 3, f.m.mask = true;
    f.m.nz = true, f.m.layout = "BSH_NBSD", f.m.kl[0] = 260, f.m.kl[1] = 131;
    numeric_query_quant(f, "Q_S 4 BSH_NBSD NZ bs128", false);
    /* dequant_scale_query per token and head: Q_S 4, N 32, each wrong
     * reading shown to fall outside the tolerance, then the run */
    f = query_quant_base(), f.m.QS = 4, f.m.sparse = 3, f.m.mask = true;
    f.m.B = 1, f.m.kl[0] = 64;
    numeric_query_quant(f, "dequant_scale_query per token and head (BSND)",
                        true);
    f.m.layout = "BNSD", f.m.cache4d = true;
    numeric_query_quant(f, "dequant_scale_query per token and head (BNSD)",
                        true);
}

int main(void)
{
    rules();
    no_data();
    arithmetic();
    return check_summary();
}
