/* fast/ MLA (query_rope / key_rope, 003; fast/check_mla.c, fast/run_mla.c):
 * every rule of the feature with a call that breaks it (status and check
 * id, both profiles) and one that obeys it, the general rules MLA is
 * exempt from, what stays refused as not modeled; then the arithmetic
 * against a naive double-precision attention (mla_testlib.h; scores
 * (q.k + q_rope.k_rope) * scale, V of D columns): decode (Q_S = 1, the
 * keys split across 1..3 threads, a task order), Q_S > 1 with sparse mode
 * 3, BSH / BSND / BNSD and the token layouts, paged caches of both ranks
 * with block_size 16 and 128 behind a shuffled block table (the blocks no
 * batch owns hold NaN), N 32 to 128, every kernel level this CPU has.
 * The *_NBSD outputs' and the NZ cache's arithmetic:
 * test_fast_mla_nbsd_nz.c. */
#include "mla_testlib.h"
#include "fast_expect.h"

/* ---- validation -------------------------------------------------------- */
/* Phase one's status in the profile set (the executor destroyed). */
static fia_status mla_status(void *m)
{
    fast_executor *ex = NULL;
    uint64_t ws = 0;
    fia_status got = phase_one(m, &ex, &ws);
    fastExecutorDestroy(ex);
    return got;
}

/* Phase one in both profiles: want (a semantic rejection's DOC code turns
 * into 561002 under CANN) and, when not OK, the check id. */
static void expect(mla m, fia_status want_doc, const char *id, int line)
{
    ftl_expect_profiles(mla_status, &m, want_doc,
                        ftl_cann_status(want_doc, ftl_dtype_layer_id(id)), id,
                        line);
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

/* Profile doc rejects (id), profile cann accepts: the released code's
 * reading (its tiling tests). */
static void expect_doc_only(mla m, const char *id, int line)
{
    fastSetStatusProfile(FIA_PROFILE_DOC);
    expect_one(&m, id);
    fastSetStatusProfile(FIA_PROFILE_CANN);
    fast_executor *ex = NULL;
    uint64_t ws = 0;
    fia_status got = phase_one(&m, &ex, &ws);
    CHECK_MSG(got == FIA_OK, "line %d (cann): got %d: %s", line, got,
              fastLastError());
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
    /* the released code: a power of two up to 128 (MLA-017;
     * tMLA_G16_FP16_BSH, tMLA_TND_FP16) */
    CASE(M.N = 16, expect_doc_only(M, "S_MLA_HEADS", __LINE__));
    CASE(M.N = 1, expect_doc_only(M, "S_MLA_HEADS", __LINE__));
    CASE(M.N = 12, BAD("S_MLA_HEADS", M));
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
    /* the *_NBSD outputs (003 input_layout, MLA's list): Q_S 2..16, the
     * output [N, B, Q_S, D] */
    CASE(M.layout = "BSND_NBSD"; PREFILL(2), OK(M));
    CASE(M.layout = "BSH_NBSD"; PREFILL(16), OK(M));
    CASE(M.layout = "BNSD_NBSD"; M.cache4d = true; PREFILL(4), OK(M));
    CASE(M.layout = "BSND_NBSD", BAD("S_NBSD_QS", M));
    CASE(M.layout = "BSH_NBSD"; PREFILL(17), BAD("S_NBSD_QS", M));
    CASE(M.layout = "BSND_NBSD"; PREFILL(2), M.out = M.q,
         BAD("S_OUT_SHAPE", M));
    CASE(M.layout = "BNSD_NBSD"; PREFILL(2), M.out.shape[0] = 2;
         M.out.shape[1] = 32, BAD("S_OUT_SHAPE", M));
    CASE(M.layout = "BSND_NBSD"; PREFILL(2); M.D = 128; M.paged = false;
         M.N = 8; M.KVN = 2, BAD("S_MLA_LAYOUT", M));
    /* without rope: cann rejects them (RELEASED), doc refuses them as not
     * computed once every rule has judged the call */
    CASE(M.layout = "BSND_NBSD"; PREFILL(2), M.no_qr = M.no_kr = true;
         fastSetStatusProfile(FIA_PROFILE_CANN);
         expect_one(&M, "S_NBSD_ROPE"));
    CASE(M.layout = "BSND_NBSD"; PREFILL(2), M.no_qr = M.no_kr = true;
         expect_one(&M, "M_LAYOUT"));
    CASE(M.layout = "BSND_NBSD", M.no_qr = M.no_kr = true;
         expect_one(&M, "S_NBSD_QS"));
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
    /* full quantization (an int8 query): its rules and arithmetic in
     * test_fast_query_quant.c; without its key/value scales rejected */
    CASE(, M.q.dtype = M.k.dtype = M.v.dtype = FIA_DT_INT8;
         M.dsq = &f32, BAD("S_MLA_FQ", M));
    /* the NZ cache (003: fp16/bf16 [blockNum, N, D/16, blockSize, 16],
     * key_rope alike; not with BNSD, BNSD_NBSD; block_size 128 only) */
    CASE(M.nz = true, OK(M));
    CASE(M.nz = true; M.dt = FIA_DT_FP16; M.layout = "BSH", OK(M));
    CASE(M.nz = true; M.layout = "TND", OK(M));
    CASE(M.nz = true; M.layout = "TND_NTD", OK(M));
    CASE(M.nz = true; M.layout = "BSH_NBSD"; PREFILL(3), OK(M));
    CASE(M.nz = true; M.layout = "BNSD", BAD("S_MLA_NZ_LAYOUT", M));
    CASE(M.nz = true; M.layout = "BNSD_NBSD"; PREFILL(2),
         BAD("S_MLA_NZ_LAYOUT", M));
    CASE(M.nz = true; M.bs = 16, BAD("S_MLA_NZ_BLOCK_SIZE", M));
    CASE(M.nz = true; M.bs = 64, BAD("S_MLA_BLOCK_SIZE", M));
    CASE(M.nz = true, M.k.shape[2] = 16; M.k.shape[4] = 32; M.v = M.k,
         BAD("S_PAGED_CACHE", M));
    CASE(M.nz = true, M.k.shape[3] = 64; M.v = M.k, BAD("S_PAGED_CACHE", M));
    CASE(M.nz = true, M.kr.shape[2] = 8, BAD("S_MLA_KROPE_SHAPE", M));
    CASE(M.nz = true, M.kr = tn(FIA_DT_BF16, 4, (int64_t[]){M.nblk, 1, 128,
                                DR}, NULL), BAD("S_MLA_KROPE_SHAPE", M));
    /* ... exclusions, before full quantization's (int8 NZ) refusal */
    CASE(M.nz = true; M.bs = 16, M.q.dtype = M.k.dtype = M.v.dtype =
         FIA_DT_INT8; M.dsq = &f32, BAD("S_MLA_NZ_BLOCK_SIZE", M));
    /* a rank-5 cache is MLA's (D 512) only */
    CASE(M.nz = true, M.no_qr = M.no_kr = true, BAD("S_PAGED_CACHE", M));
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
