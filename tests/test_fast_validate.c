/* fast/ phase one: every validation check once broken and once obeyed, in
 * both status profiles, plus the layer order (nullptr, dtype, not modeled,
 * semantic).  Status-only: tensors carry no data. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include "check.h"
#include "fast_expect.h"
#include "fast/validate.h"
#include "fia/fast.h"
#include "fia/feature.h"

typedef struct api {
    fia_tensor q, k, v, k2, out, lse, mask, pse, opt[16];
    bool no_q, no_k, no_v, no_out, no_ws, null_k_elem;
    bool has_mask, has_pse, has_opt[16], has_lse, has_prefix;
    int key_count;
    fia_int_array asl, aslkv, prefix;
    bool has_asl, has_aslkv;
    int64_t N, KVN, pre, next, sparse, inner;
    int64_t block_size, aq_mode, k_aq_mode, v_aq_mode;
    const char *layout;
    bool lse_flag;
    bool ext;             /* through the Ext entry, with extras: */
    const char *api_name; /* its apiName (NULL: aclnn_v2) */
    const int64_t *out_dtype; /* its outDtypeOptional (004; NULL: None) */
} api;

static fia_tensor t3(fia_dtype dt, int64_t a, int64_t b, int64_t c)
{
    return (fia_tensor){.dtype = dt, .ndim = 3, .shape = {a, b, c}};
}

static fia_tensor t4(fia_dtype dt, int64_t a, int64_t b, int64_t c, int64_t d)
{
    return (fia_tensor){.dtype = dt, .ndim = 4, .shape = {a, b, c, d}};
}

static fia_tensor t2(fia_dtype dt, int64_t a, int64_t b)
{
    return (fia_tensor){.dtype = dt, .ndim = 2, .shape = {a, b}};
}

/* BSH fp16, B=2, Q_S=16, KV_S=32, N=4, D=16. */
static api base(void)
{
    api a;
    memset(&a, 0, sizeof a);
    a.q = t3(FIA_DT_FP16, 2, 16, 64);
    a.k = a.v = a.k2 = t3(FIA_DT_FP16, 2, 32, 64);
    a.out = a.q;
    a.lse = t4(FIA_DT_FP32, 2, 4, 16, 1);
    a.key_count = 1;
    a.N = 4;
    a.pre = a.next = 2147483647;
    a.inner = 1;
    a.layout = "BSH";
    return a;
}

/* BNSD fp16 with the given dims. */
static void bnsd(api *a, int64_t B, int64_t N, int64_t KVN, int64_t QS,
                 int64_t KVS, int64_t D)
{
    a->layout = "BNSD";
    a->q = a->out = t4(FIA_DT_FP16, B, N, QS, D);
    a->k = a->v = a->k2 = t4(FIA_DT_FP16, B, KVN, KVS, D);
    a->lse = t4(FIA_DT_FP32, B, N, QS, 1);
    a->N = N;
    a->KVN = KVN == N ? 0 : KVN;
}

static void bsnd(api *a, int64_t B, int64_t N, int64_t KVN, int64_t QS,
                 int64_t KVS, int64_t D)
{
    bnsd(a, B, N, KVN, QS, KVS, D);
    a->layout = "BSND";
    a->q = a->out = t4(FIA_DT_FP16, B, QS, N, D);
    a->k = a->v = a->k2 = t4(FIA_DT_FP16, B, KVS, KVN, D);
}

static fia_status call(api *a)
{
    const fia_tensor *kp[2] = {a->null_k_elem ? NULL : &a->k, &a->k2};
    const fia_tensor *vp[2] = {&a->v, &a->k2};
    fia_tensor_list kl = {a->key_count, kp}, vl = {a->key_count, vp};
    const fia_tensor *o[16];
    for (int i = 0; i < 16; i++)
        o[i] = a->has_opt[i] ? &a->opt[i] : NULL;
    uint64_t ws = 0;
    fast_executor *ex = NULL;
    fia_status st;
    if (a->ext) {
        const fast_v2_extras x = {.apiName = a->api_name,
                                  .outDtypeOptional = a->out_dtype};
        st = fastFusedInferAttentionScoreV2ExtGetWorkspaceSize(
            a->no_q ? NULL : &a->q, a->no_k ? NULL : &kl,
            a->no_v ? NULL : &vl, a->has_pse ? &a->pse : NULL,
            a->has_mask ? &a->mask : NULL, a->has_asl ? &a->asl : NULL,
            a->has_aslkv ? &a->aslkv : NULL, o[0], o[1], o[2], o[3], o[4],
            o[5], o[6], o[7], o[8], o[9], o[10], o[11], o[12], o[13], o[14],
            o[15], a->has_prefix ? &a->prefix : NULL, a->N, 0.125, a->pre,
            a->next, a->layout, a->KVN, a->sparse, a->inner, a->block_size,
            a->aq_mode, a->lse_flag, a->k_aq_mode, a->v_aq_mode, &x,
            a->no_out ? NULL : &a->out, a->has_lse ? &a->lse : NULL,
            a->no_ws ? NULL : &ws, &ex);
    } else {
        st = fastFusedInferAttentionScoreV2GetWorkspaceSize(
            a->no_q ? NULL : &a->q, a->no_k ? NULL : &kl,
            a->no_v ? NULL : &vl, a->has_pse ? &a->pse : NULL,
            a->has_mask ? &a->mask : NULL, a->has_asl ? &a->asl : NULL,
            a->has_aslkv ? &a->aslkv : NULL, o[0], o[1], o[2], o[3], o[4],
            o[5], o[6], o[7], o[8], o[9], o[10], o[11], o[12], o[13], o[14],
            o[15], a->has_prefix ? &a->prefix : NULL, a->N, 0.125, a->pre,
            a->next, a->layout, a->KVN, a->sparse, a->inner, a->block_size,
            a->aq_mode, a->lse_flag, a->k_aq_mode, a->v_aq_mode,
            a->no_out ? NULL : &a->out, a->has_lse ? &a->lse : NULL,
            a->no_ws ? NULL : &ws, &ex);
    }
    if (st == FIA_OK) {
        CHECK(ex != NULL);
        fastExecutorDestroy(ex);
    } else {
        CHECK(ex == NULL);
    }
    return st;
}

enum { K_OK, K_NULL, K_TYPE, K_NOTMOD, K_SEM, K_SEM_DOC, K_SEM_CANN };

/* The status kind gives in profile doc (cann false) or cann. */
static fia_status kind_status(int kind, bool cann)
{
    switch (kind) {
    case K_NULL: return FIA_ERR_PARAM_NULLPTR;
    case K_TYPE: return FIA_ERR_PARAM_INVALID;
    case K_NOTMOD: return FIA_ERR_NOT_MODELED;
    case K_SEM: return cann ? 561002 : 161002;
    case K_SEM_DOC: return cann ? FIA_OK : 161002;
    case K_SEM_CANN: return cann ? 561002 : FIA_OK;
    default: return FIA_OK;
    }
}

/* Calls a in both profiles and checks the code (and the check id). */
static void expect(api *a, const char *id, int kind, int line)
{
    for (int prof = 0; prof < 2; prof++) {
        fastSetStatusProfile(prof ? FIA_PROFILE_CANN : FIA_PROFILE_DOC);
        /* the label names the check as well: many cases share a line */
        char label[160];
        snprintf(label, sizeof label, "%s, %s", id, prof ? "cann" : "doc");
        ftl_expect_status(call(a), kind_status(kind, prof), id[0] ? id : NULL,
                          label, line);
    }
    fastSetStatusProfile(FIA_PROFILE_DOC);
}

#define CASE(id, kind, ...)                                                  \
    do {                                                                     \
        api a = base();                                                      \
        __VA_ARGS__;                                                         \
        expect(&a, id, kind, __LINE__);                                      \
    } while (0)

static int64_t vals[8] = {16, 16, 16, 16, 999, 0, 0, 0};
static int64_t vals9[1] = {9}; /* one past a prefix of S 8 */

/* TND bf16: batches of 5, 0 and 12 query tokens over 9, 4 and 30 key
 * tokens (cumulative counts), N 4, KV_N 2, D = Dv. */
static int64_t tnd_q[3] = {5, 5, 17}, tnd_kv[3] = {9, 13, 43};
static void tnd(api *a, int64_t D, int64_t Dv)
{
    a->layout = "TND";
    a->q = t3(FIA_DT_BF16, 17, 4, D);
    a->k = a->k2 = t3(FIA_DT_BF16, 43, 2, D);
    a->v = t3(FIA_DT_BF16, 43, 2, Dv);
    a->out = t3(FIA_DT_BF16, 17, 4, Dv);
    a->lse = t3(FIA_DT_FP32, 17, 4, 1);
    a->N = 4, a->KVN = 2;
    a->has_asl = a->has_aslkv = true;
    a->asl = (fia_int_array){3, tnd_q};
    a->aslkv = (fia_int_array){3, tnd_kv};
}

/* The token layouts' rules (003 TND list) and their order against the
 * not-modeled layers: exclusions first. */
static void token_layouts(void)
{
    static int64_t back[3] = {5, 4, 17}, short_t[3] = {5, 5, 16},
                   two[2] = {13, 43}, square[3] = {9, 9, 17};
    CASE("", K_OK, tnd(&a, 128, 128));
    CASE("", K_OK, tnd(&a, 128, 128), a.lse_flag = a.has_lse = true);
    CASE("", K_OK, tnd(&a, 128, 128), a.layout = "NTD_TND",
         a.q = t3(FIA_DT_BF16, 4, 17, 128), a.k = a.v = a.k2 =
         t3(FIA_DT_BF16, 2, 43, 128));
    CASE("S_LAYOUT", K_SEM_DOC, tnd(&a, 128, 128), a.layout = "NTD",
         a.q = a.out = t3(FIA_DT_BF16, 4, 17, 128),
         a.k = a.v = a.k2 = t3(FIA_DT_BF16, 2, 43, 128));
    CASE("S_TND_NTD", K_SEM, tnd(&a, 128, 128), a.layout = "TND_NTD",
         a.out = t3(FIA_DT_BF16, 4, 17, 128));
    CASE("S_TND_D", K_SEM_CANN, tnd(&a, 192, 192));
    CASE("S_TND_D", K_SEM_DOC, tnd(&a, 64, 64));
    CASE("S_TND_D", K_SEM, tnd(&a, 96, 96));
    /* value narrower than the query (003: TND and NTD_TND 192/128),
     * attention_out of value's D; wider, or NTD_TND's 192/192, in no list */
    CASE("", K_OK, tnd(&a, 192, 128));
    CASE("", K_OK, tnd(&a, 192, 128), a.layout = "NTD_TND",
         a.q = t3(FIA_DT_BF16, 4, 17, 192), a.k = a.k2 =
         t3(FIA_DT_BF16, 2, 43, 192), a.v = t3(FIA_DT_BF16, 2, 43, 128));
    CASE("S_TND_D", K_SEM, tnd(&a, 128, 192));
    CASE("S_TND_D", K_SEM, tnd(&a, 192, 192), a.layout = "NTD_TND",
         a.q = t3(FIA_DT_BF16, 4, 17, 192), a.k = a.k2 = a.v =
         t3(FIA_DT_BF16, 2, 43, 192));
    CASE("S_OUT_SHAPE", K_SEM, tnd(&a, 192, 128),
         a.out = t3(FIA_DT_BF16, 17, 4, 192));
    CASE("S_TND_DTYPE", K_SEM, tnd(&a, 192, 128),
         a.q.dtype = a.k.dtype = a.k2.dtype = a.v.dtype = a.out.dtype =
         FIA_DT_FP16);
    CASE("S_TND_SEQ", K_SEM, tnd(&a, 192, 128), a.asl.values = back);
    CASE("S_TND_SEQ", K_SEM, tnd(&a, 128, 128), a.asl.values = back);
    CASE("S_TND_SEQ", K_SEM, tnd(&a, 128, 128), a.asl.values = short_t);
    CASE("S_TND_SEQ", K_SEM, tnd(&a, 128, 128),
         a.aslkv = (fia_int_array){2, two});
    CASE("S_TND_SEQ", K_SEM, tnd(&a, 128, 128), a.has_asl = false);
    CASE("S_TND_SEQ", K_SEM, tnd(&a, 128, 128), a.has_aslkv = false);
    CASE("S_QUERY_SHAPE", K_SEM, tnd(&a, 128, 128),
         a.q = t4(FIA_DT_BF16, 1, 17, 4, 128));
    CASE("S_NUM_HEADS", K_SEM, tnd(&a, 128, 128),
         a.q = t3(FIA_DT_BF16, 17, 8, 128));
    CASE("S_KV_HEADS", K_SEM, tnd(&a, 128, 128),
         a.v = t3(FIA_DT_BF16, 43, 4, 128));
    CASE("S_KV_SHAPE", K_SEM, tnd(&a, 128, 128),
         a.v = t3(FIA_DT_BF16, 42, 2, 128));
    CASE("S_TND_T_MAX", K_SEM, tnd(&a, 128, 128),
         a.q = a.out = t3(FIA_DT_BF16, 1048577, 4, 128));
    CASE("S_SPARSE_MODE", K_SEM, tnd(&a, 128, 128), a.sparse = 1,
         a.has_mask = true, a.mask = t2(FIA_DT_BOOL, 17, 43));
    CASE("S_TND_MASK", K_SEM, tnd(&a, 128, 128), a.has_mask = true,
         a.mask = t2(FIA_DT_BOOL, 17, 43));
    CASE("S_MASK_REQUIRED", K_SEM, tnd(&a, 128, 128), a.sparse = 3);
    CASE("", K_OK, tnd(&a, 128, 128), a.sparse = 3, a.has_mask = true,
         a.mask = t2(FIA_DT_BOOL, 2048, 2048));
    CASE("S_MASK_SHAPE", K_SEM, tnd(&a, 128, 128), a.sparse = 3,
         a.has_mask = true, a.mask = t2(FIA_DT_BOOL, 1024, 2048));
    CASE("S_TND_CAUSAL", K_SEM, tnd(&a, 128, 128), a.sparse = 3,
         a.has_mask = true, a.mask = t2(FIA_DT_BOOL, 2048, 2048),
         a.asl.values = square);
    CASE("S_OUT_SHAPE", K_SEM, tnd(&a, 128, 128),
         a.out = t3(FIA_DT_BF16, 4, 17, 128));
    CASE("S_LSE_SHAPE", K_SEM, tnd(&a, 128, 128), a.lse_flag = true,
         a.has_lse = true, a.lse = t4(FIA_DT_FP32, 3, 4, 12, 1));
    /* inner_precise 2/3 are allowed whatever the lengths (no decode list) */
    CASE("", K_OK, tnd(&a, 128, 128), a.inner = 2, a.asl.values = tnd_kv,
         a.q = a.out = t3(FIA_DT_BF16, 43, 4, 128));
    /* exclusions: before any not-modeled layer */
    CASE("S_TND_PSE", K_SEM, tnd(&a, 128, 128), a.has_pse = true,
         a.pse = t4(FIA_DT_BF16, 1, 4, 17, 43));
    CASE("S_TND_PAGED", K_SEM, tnd(&a, 128, 128), a.has_opt[7] = true,
         a.opt[7] = t2(FIA_DT_INT32, 3, 1), a.block_size = 128);
    CASE("S_TND_ANTIQUANT", K_SEM, tnd(&a, 128, 128),
         a.k.dtype = a.k2.dtype = a.v.dtype = FIA_DT_INT8);
    CASE("S_TND_QUANT", K_SEM, tnd(&a, 128, 128),
         a.q.dtype = a.k.dtype = a.k2.dtype = a.v.dtype = FIA_DT_INT8);
    CASE("S_TND_OUT_QUANT", K_SEM, tnd(&a, 128, 128), a.has_opt[3] = true,
         a.opt[3] = t2(FIA_DT_FP32, 1, 1));
}

static void null_and_types(void)
{
    CASE("", K_OK, (void)0);
    CASE("N_QUERY", K_NULL, a.no_q = true);
    CASE("N_KEY", K_NULL, a.no_k = true);
    CASE("N_KEY", K_NULL, a.null_k_elem = true);
    CASE("N_VALUE", K_NULL, a.no_v = true);
    CASE("N_OUT", K_NULL, a.no_out = true);
    CASE("N_LSE", K_NULL, a.lse_flag = true);
    CASE("", K_OK, a.lse_flag = true, a.has_lse = true);
    CASE("", K_OK, a.lse_flag = false, a.has_lse = false);
    CASE("N_OUTPARAM", K_NULL, a.no_ws = true);
    /* nullptr wins over dtype and semantics */
    CASE("N_QUERY", K_NULL, a.no_q = true, a.out.dtype = FIA_DT_FP32,
         a.layout = "XX");

    CASE("T_QUERY", K_TYPE, a.q.dtype = FIA_DT_FP32);
    CASE("", K_OK, a.q.dtype = a.k.dtype = a.v.dtype = a.out.dtype =
                       FIA_DT_BF16);
    CASE("T_KEY", K_TYPE, a.k.dtype = FIA_DT_UINT8);
    CASE("T_VALUE", K_TYPE, a.v.dtype = FIA_DT_FP32);
    CASE("T_PSE", K_TYPE, a.has_pse = true,
         a.pse = t4(FIA_DT_FP32, 2, 4, 16, 32));
    CASE("T_MASK", K_TYPE, a.has_mask = true,
         a.mask = t2(FIA_DT_FP32, 16, 32));
    CASE("", K_OK, a.has_mask = true, a.mask = t2(FIA_DT_UINT8, 16, 32));
    CASE("", K_OK, a.has_mask = true, a.mask = t2(FIA_DT_INT8, 16, 32));
    CASE("T_OUT", K_TYPE, a.out.dtype = FIA_DT_FP32);
    CASE("T_OPTIONAL", K_TYPE, a.has_opt[7] = true,
         a.opt[7] = t2(FIA_DT_INT64, 2, 4));
    /* a block_table enables page attention: its rules (test_fast_paged.c) */
    CASE("S_PAGED_BLOCK_SIZE", K_SEM, a.has_opt[7] = true,
         a.opt[7] = t2(FIA_DT_INT32, 2, 4));
    CASE("T_OPTIONAL", K_TYPE, a.has_opt[0] = true,
         a.opt[0] = t2(FIA_DT_FP16, 1, 1));
    /* dtype wins over not-modeled and semantics */
    CASE("T_PSE", K_TYPE, a.q.dtype = FIA_DT_INT8, a.has_pse = true,
         a.pse = t4(FIA_DT_INT8, 2, 4, 16, 32));
    CASE("T_QUERY", K_TYPE, a.q.dtype = FIA_DT_FP32, a.layout = "XX");
}

/* Phase one in each profile: want_doc / want_cann and their check ids. */
static void expect_each(api *a, const char *doc_id, fia_status want_doc,
                        const char *cann_id, fia_status want_cann, int line)
{
    for (int prof = 0; prof < 2; prof++) {
        fastSetStatusProfile(prof ? FIA_PROFILE_CANN : FIA_PROFILE_DOC);
        const fia_status want = prof ? want_cann : want_doc;
        const char *id = prof ? cann_id : doc_id;
        fia_status got = call(a);
        CHECK_MSG(got == want && (got == FIA_OK ||
                                  strncmp(fastLastError(), id,
                                          strlen(id)) == 0),
                  "line %d (%s): got %d want %d %s: %s", line,
                  prof ? "cann" : "doc", got, want, id, fastLastError());
    }
    fastSetStatusProfile(FIA_PROFILE_DOC);
}

/* The released code's tiling tests (issue 33): BNSD_BSND at Q_S = 1
 * (tCrossover_BNSD_BSND_success) and value's D 128 beside key's 192
 * (tErr_PA_value_D_neq_vHeadDim, tMLA_RopeCombine_*,
 * tErr_value_D_neq_out_D): doc rejects, cann accepts or refuses as not
 * computed. */
static void released_shapes(void)
{
    const fia_status sem = FIA_ERR_PARAM_INVALID, nm = FIA_ERR_NOT_MODELED;
    const fia_status tiling = FIA_ERR_INNER_TILING_ERROR;
    api a = base();
    bnsd(&a, 2, 4, 4, 1, 32, 16);
    a.layout = "BNSD_BSND", a.out = t4(FIA_DT_FP16, 2, 1, 4, 16);
    expect_each(&a, "S_LAYOUT_QS1", sem, "", FIA_OK, __LINE__);
    /* BSH, Q_S 16, N 4 of D 192, value's D 128, out of value's D */
    a = base();
    a.q = t3(FIA_DT_FP16, 2, 16, 768);
    a.k = a.k2 = t3(FIA_DT_FP16, 2, 32, 768);
    a.v = t3(FIA_DT_FP16, 2, 32, 512);
    a.out = t3(FIA_DT_FP16, 2, 16, 512);
    expect_each(&a, "S_KV_SHAPE", sem, "M_VALUE_D", nm, __LINE__);
    a.out = a.q; /* the query's D at Q_S > 1: rejected in both */
    expect_each(&a, "S_KV_SHAPE", sem, "S_OUT_SHAPE", tiling, __LINE__);
    a.v = t3(FIA_DT_FP16, 2, 32, 256); /* 192 / 64: both reject */
    expect_each(&a, "S_KV_SHAPE", sem, "S_KV_SHAPE", tiling, __LINE__);
    /* BNSD decode: the query's D stays attention_out's */
    a = base();
    bnsd(&a, 2, 4, 4, 1, 32, 192);
    a.v = t4(FIA_DT_FP16, 2, 4, 32, 128);
    expect_each(&a, "S_KV_SHAPE", sem, "M_VALUE_D", nm, __LINE__);
    a.out = t4(FIA_DT_FP16, 2, 4, 1, 128);
    expect_each(&a, "S_KV_SHAPE", sem, "S_OUT_SHAPE", tiling, __LINE__);
}

/* The *_NBSD outputs without rope (003 input_layout: any call, Q_S 2..16,
 * attention_out [N, B, Q_S, D]; RELEASED: rejected without rope): doc
 * judges them by every rule, then refuses them as not computed (layer
 * 6); cann rejects them.  (With rope: test_fast_mla.c.) */
static void nbsd_without_rope(void)
{
    const fia_status sem = FIA_ERR_PARAM_INVALID, nm = FIA_ERR_NOT_MODELED;
    const fia_status tiling = FIA_ERR_INNER_TILING_ERROR;
    api a = base(); /* BSH B 2, Q_S 16, N 4, D 16 */
    a.layout = "BSH_NBSD", a.out = t4(FIA_DT_FP16, 4, 2, 16, 16);
    expect_each(&a, "M_LAYOUT", nm, "S_NBSD_ROPE", tiling, __LINE__);
    a.out = a.q; /* the query's shape, not [N, B, Q_S, D] */
    expect_each(&a, "S_OUT_SHAPE", sem, "S_NBSD_ROPE", tiling, __LINE__);
    a = base(), a.layout = "BSH_NBSD";
    a.q = t3(FIA_DT_FP16, 2, 1, 64), a.out = t4(FIA_DT_FP16, 4, 2, 1, 16);
    expect_each(&a, "S_NBSD_QS", sem, "S_NBSD_ROPE", tiling, __LINE__);
    a.q = t3(FIA_DT_FP16, 2, 17, 64), a.out = t4(FIA_DT_FP16, 4, 2, 17, 16);
    expect_each(&a, "S_NBSD_QS", sem, "S_NBSD_ROPE", tiling, __LINE__);
    a = base(), bsnd(&a, 2, 4, 4, 16, 32, 16), a.layout = "BSND_NBSD";
    a.out = t4(FIA_DT_FP16, 4, 2, 16, 16);
    expect_each(&a, "M_LAYOUT", nm, "S_NBSD_ROPE", tiling, __LINE__);
    a.q.shape[0] = 65537, a.out.shape[1] = 65537; /* the rules first */
    expect_each(&a, "S_KV_SHAPE", sem, "S_NBSD_ROPE", tiling, __LINE__);
    a = base(), bnsd(&a, 2, 4, 4, 2, 32, 16), a.layout = "BNSD_NBSD";
    a.out = t4(FIA_DT_FP16, 4, 2, 2, 16);
    expect_each(&a, "M_LAYOUT", nm, "S_NBSD_ROPE", tiling, __LINE__);
    /* an empty query (and output) returns before any layout rule */
    a.q.shape[2] = 0, a.out.shape[2] = 0;
    expect_each(&a, "", FIA_OK, "", FIA_OK, __LINE__);
}

static void not_modeled(void)
{
    static const fia_dtype ok_dt[16] = {
        FIA_DT_FP32, FIA_DT_FP32, FIA_DT_UINT64, FIA_DT_FP32, FIA_DT_BF16,
        FIA_DT_FP16, FIA_DT_FP32, FIA_DT_INT32, FIA_DT_INT64, FIA_DT_INT64,
        FIA_DT_FP32, FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32, FIA_DT_FP16,
        FIA_DT_FP16};
    for (int i = 0; i < 16; i++)
        if (i != FAST_OPT_BLOCK_TABLE && /* modeled: test_fast_paged.c */
            i != FAST_OPT_QUERY_PADDING_SIZE && /* test_fast_padding.c */
            i != FAST_OPT_KV_PADDING_SIZE &&
            i != FAST_OPT_KEY_SHARED_PREFIX &&
            i != FAST_OPT_VALUE_SHARED_PREFIX && /* below */
            i > FAST_OPT_QUANT_OFFSET2) /* judged: test_fast_int8_checks.c */
            CASE("M_OPTIONAL", K_NOTMOD, a.has_opt[i] = true,
                 a.opt[i] = t2(ok_dt[i], 1, 1));
    /* the shared prefix: its shape rules, then computed (what is not:
     * test_fast_prefix.c) */
    enum { KP = FAST_OPT_KEY_SHARED_PREFIX, VP = FAST_OPT_VALUE_SHARED_PREFIX };
    CASE("S_PREFIX_PAIR", K_SEM, a.has_opt[KP] = true,
         a.opt[KP] = t3(FIA_DT_FP16, 1, 8, 64));
    CASE("", K_OK, a.has_opt[KP] = a.has_opt[VP] = true,
         a.opt[KP] = a.opt[VP] = t3(FIA_DT_FP16, 1, 8, 64));
    CASE("S_PREFIX_BATCH", K_SEM, a.has_opt[KP] = a.has_opt[VP] = true,
         a.opt[KP] = a.opt[VP] = t3(FIA_DT_FP16, 2, 8, 64));
    CASE("S_PREFIX_HEADS", K_SEM, a.has_opt[KP] = a.has_opt[VP] = true,
         a.opt[KP] = a.opt[VP] = t3(FIA_DT_FP16, 1, 8, 32));
    CASE("S_PREFIX_RANK", K_SEM, a.has_opt[KP] = a.has_opt[VP] = true,
         a.opt[KP] = a.opt[VP] = t3(FIA_DT_BF16, 1, 8, 64));
    CASE("S_PREFIX_LEN", K_SEM, a.has_opt[KP] = a.has_opt[VP] = true,
         a.opt[KP] = a.opt[VP] = t3(FIA_DT_FP16, 1, 8, 64),
         a.has_prefix = true, a.prefix = (fia_int_array){1, vals9});
    CASE("S_PREFIX_LEN", K_SEM, a.has_prefix = true,
         a.prefix = (fia_int_array){2, vals});
    CASE("M_PREFIX_LEN", K_NOTMOD, a.has_prefix = true,
         a.prefix = (fia_int_array){1, vals});
    /* pse is computed (test_fast_pse.c) */
    CASE("", K_OK, a.has_pse = true, a.pse = t4(FIA_DT_FP16, 2, 4, 16, 32));
    CASE("", K_OK, a.has_pse = true, a.pse = t4(FIA_DT_FP16, 0, 4, 16, 32));
    /* lists are modeled (test_fast_tensor_list.c): two tensors of batch 2 */
    CASE("S_LIST_BATCH", K_SEM, a.key_count = 2);
    /* An antiquant mode other than 0 uses the feature even without its
     * tensors (002 gives the modes their own value lists); block_size
     * alone does not enable page attention (a block_table does). */
    CASE("M_ANTIQUANT_MODE", K_NOTMOD, a.aq_mode = 1);
    CASE("M_ANTIQUANT_MODE", K_NOTMOD, a.k_aq_mode = 2);
    CASE("M_ANTIQUANT_MODE", K_NOTMOD, a.v_aq_mode = -1);
    CASE("", K_OK, a.block_size = 128);
    /* an int8 query or output is judged by its rules first, then refused
     * as not computed (test_fast_int8_checks.c); int8 / int4 key/value
     * with an fp16 query are the antiquant scene, whose rules (here D =
     * 16) test_fast_antiquant_checks.c tests */
    CASE("Q8-002", K_SEM, a.q.dtype = a.k.dtype = a.v.dtype = FIA_DT_INT8);
    CASE("ANTI-020", K_SEM, a.k.dtype = a.v.dtype = FIA_DT_INT8);
    CASE("ANTI-019", K_SEM, a.k.dtype = a.v.dtype = FIA_DT_INT4);
    CASE("OQ-001", K_SEM, a.out.dtype = FIA_DT_INT8);
    nbsd_without_rope();
    released_shapes();
}

static void shapes(void)
{
    CASE("S_KV_LIST", K_SEM, a.key_count = 0);
    CASE("S_LAYOUT", K_SEM, a.layout = "BHS");
    CASE("S_LAYOUT", K_SEM, a.layout = NULL);
    CASE("", K_OK, bsnd(&a, 2, 4, 4, 16, 32, 16));
    CASE("", K_OK, bnsd(&a, 2, 4, 4, 16, 32, 16));
    CASE("S_QUERY_SHAPE", K_SEM, a.q = t4(FIA_DT_FP16, 2, 16, 4, 16));
    CASE("S_QUERY_SHAPE", K_SEM, a.q.shape[1] = -1);
    CASE("S_EMPTY_OUT", K_SEM, a.q.shape[1] = 0);
    CASE("", K_OK, a.q.shape[1] = 0, a.out.shape[1] = 0);
    CASE("S_KV_SHAPE", K_SEM, a.k = a.v = t4(FIA_DT_FP16, 2, 32, 4, 16));
    CASE("S_KV_SHAPE", K_SEM, a.v.shape[1] = 31);
    CASE("S_KV_SHAPE", K_SEM, a.k.shape[0] = a.v.shape[0] = 3);
    CASE("S_KV_DTYPE", K_SEM, a.k.dtype = a.v.dtype = FIA_DT_BF16);
    CASE("S_KV_DTYPE", K_SEM, a.v.dtype = FIA_DT_BF16);
    CASE("S_NUM_HEADS", K_SEM, a.N = 0);
    CASE("S_NUM_HEADS", K_SEM, a.N = 3);
    CASE("S_NUM_HEADS", K_SEM, bnsd(&a, 2, 4, 4, 16, 32, 16), a.N = 2);
    CASE("S_NUM_HEADS", K_SEM, bsnd(&a, 2, 4, 4, 16, 32, 16), a.N = 8);
    CASE("S_KV_HEADS", K_SEM, a.KVN = 3);
    CASE("S_KV_HEADS", K_SEM, a.KVN = -1);
    CASE("S_KV_HEADS", K_SEM, a.KVN = 8);
    CASE("S_KV_D", K_SEM, a.KVN = 2);
    CASE("", K_OK, a.KVN = 2, a.k.shape[2] = a.v.shape[2] = 32);
    CASE("S_KV_HEADS", K_SEM, bnsd(&a, 2, 4, 2, 16, 32, 16), a.KVN = 1);
    CASE("", K_OK, bnsd(&a, 2, 4, 1, 16, 32, 16));
    CASE("S_KV_D", K_SEM, bsnd(&a, 2, 4, 2, 16, 32, 16), a.k.shape[3] = 32,
         a.v.shape[3] = 32);
    /* GQA ratio: documented <= 64; RELEASED accepts more (fp16/bf16). */
    CASE("S_GQA_RATIO", K_SEM_DOC, bnsd(&a, 1, 128, 1, 16, 32, 16));
    CASE("", K_OK, bnsd(&a, 1, 64, 1, 16, 32, 16));
    CASE("S_B_MAX", K_SEM, bnsd(&a, 65537, 4, 4, 16, 32, 16));
    CASE("", K_OK, bnsd(&a, 65536, 4, 4, 16, 32, 16));
    CASE("S_N_MAX", K_SEM, bnsd(&a, 1, 257, 257, 16, 32, 16));
    CASE("", K_OK, bnsd(&a, 1, 256, 256, 16, 32, 16));
    CASE("S_D_MAX", K_SEM, bnsd(&a, 1, 2, 2, 16, 32, 528));
    CASE("S_D_MAX", K_SEM, bnsd(&a, 1, 2, 2, 1, 32, 513));
    CASE("", K_OK, bnsd(&a, 1, 2, 2, 16, 32, 512));
    CASE("S_ND_MAX", K_SEM, bsnd(&a, 1, 128, 128, 16, 32, 512));
    CASE("S_ND_MAX", K_SEM, bsnd(&a, 1, 128, 128, 16, 32, 512),
         a.layout = "BSH", a.q = a.out = t3(FIA_DT_FP16, 1, 16, 65536),
         a.k = a.v = t3(FIA_DT_FP16, 1, 32, 65536));
    CASE("", K_OK, bsnd(&a, 1, 127, 127, 16, 32, 512));
    CASE("", K_OK, bnsd(&a, 1, 128, 128, 16, 32, 512));
    CASE("", K_OK, bsnd(&a, 1, 128, 128, 1, 32, 512));
    CASE("S_D_ALIGN", K_SEM, bnsd(&a, 1, 2, 2, 16, 32, 24));
    CASE("", K_OK, bnsd(&a, 1, 2, 2, 1, 32, 24));
    CASE("", K_OK, bnsd(&a, 1, 2, 2, 1, 32, 127));
    CASE("S_S_MAX", K_SEM, bnsd(&a, 1, 2, 2, 20971521, 32, 16));
    CASE("S_S_MAX", K_SEM, bnsd(&a, 1, 2, 2, 2, 20971521, 16));
    CASE("", K_OK, bnsd(&a, 1, 2, 2, 20971520, 20971520, 16));
    /* Q_S = 1: KV_S <= 262144 (001, 003). */
    CASE("S_KV_S_MAX_QS1", K_SEM, bnsd(&a, 1, 2, 2, 1, 262145, 16));
    CASE("", K_OK, bnsd(&a, 1, 2, 2, 1, 262144, 16));
    CASE("", K_OK, bnsd(&a, 2, 4, 4, 2, 32, 16), a.layout = "BNSD_BSND",
         a.out = t4(FIA_DT_FP16, 2, 2, 4, 16));
    CASE("S_OUT_SHAPE", K_SEM, bnsd(&a, 2, 4, 4, 2, 32, 16),
         a.layout = "BNSD_BSND");
    CASE("S_OUT_DTYPE", K_SEM, a.out.dtype = FIA_DT_BF16);
    CASE("S_OUT_SHAPE", K_SEM, a.out.shape[1] = 15);
    CASE("S_OUT_SHAPE", K_SEM, a.out = t4(FIA_DT_FP16, 2, 16, 4, 16));
    /* A registered-dtype miss: 161002 in both profiles (REG_OP, RELEASED). */
    CASE("T_LSE", K_TYPE, a.lse_flag = a.has_lse = true,
         a.lse.dtype = FIA_DT_FP16);
    CASE("S_LSE_SHAPE", K_SEM, a.lse_flag = a.has_lse = true,
         a.lse = t3(FIA_DT_FP32, 2, 4, 16));
    CASE("S_LSE_SHAPE", K_SEM, a.lse_flag = a.has_lse = true,
         a.lse.shape[2] = 32);
    CASE("", K_OK, a.lse_flag = false, a.has_lse = true,
         a.lse = t2(FIA_DT_FP16, 1, 1));
}

static void modes(void)
{
    CASE("S_INNER_PRECISE", K_SEM, a.inner = 4);
    CASE("S_INNER_PRECISE", K_SEM, a.inner = -1);
    CASE("", K_OK, a.inner = 3);
    CASE("S_INNER_PRECISE", K_SEM, bnsd(&a, 2, 4, 4, 1, 32, 16), a.inner = 2);
    CASE("", K_OK, bnsd(&a, 2, 4, 4, 1, 32, 16), a.inner = 0);
    CASE("S_SPARSE_MODE", K_SEM, a.sparse = 5);
    CASE("S_SPARSE_MODE", K_SEM, a.sparse = -1);
    CASE("", K_OK, bnsd(&a, 2, 4, 4, 1, 32, 16), a.sparse = 5);
    CASE("S_MASK_REQUIRED", K_SEM, a.sparse = 1);
    CASE("S_MASK_REQUIRED", K_SEM, a.sparse = 3);
    CASE("S_MASK_REQUIRED", K_SEM, a.sparse = 1, a.has_mask = true,
         a.mask = t2(FIA_DT_BOOL, 0, 32)); /* empty mask = absent */
    CASE("", K_OK, a.sparse = 1, a.has_mask = true,
         a.mask = t4(FIA_DT_BOOL, 2, 1, 16, 32));
    CASE("S_MASK_DTYPE", K_SEM, a.has_mask = true,
         a.mask = t2(FIA_DT_FP16, 16, 32));
    for (int m = 2; m <= 4; m++) {
        CASE("S_MASK_SHAPE", K_SEM, a.sparse = m, a.has_mask = true,
             a.mask = t2(FIA_DT_BOOL, 16, 32));
        CASE("", K_OK, a.sparse = m, a.has_mask = true,
             a.mask = t2(FIA_DT_BOOL, 2048, 2048));
        CASE("", K_OK, a.sparse = m, a.has_mask = true,
             a.mask = t4(FIA_DT_INT8, 1, 1, 2048, 2048));
        CASE("S_MASK_SHAPE", K_SEM, a.sparse = m, a.has_mask = true,
             a.mask = t3(FIA_DT_BOOL, 2, 2048, 2048));
    }
    CASE("S_MASK_SHAPE", K_SEM, a.has_mask = true,
         a.mask = t2(FIA_DT_BOOL, 15, 32));
    CASE("S_MASK_SHAPE", K_SEM, a.has_mask = true,
         a.mask = t2(FIA_DT_BOOL, 16, 31));
    CASE("", K_OK, a.has_mask = true, a.mask = t2(FIA_DT_BOOL, 32, 48));
    CASE("S_MASK_SHAPE", K_SEM, a.has_mask = true,
         a.mask = t3(FIA_DT_BOOL, 3, 16, 32));
    CASE("", K_OK, a.has_mask = true, a.mask = t3(FIA_DT_BOOL, 1, 16, 32));
    CASE("S_MASK_SHAPE", K_SEM, a.has_mask = true,
         a.mask = t4(FIA_DT_BOOL, 2, 2, 16, 32));
    CASE("S_MASK_SHAPE", K_SEM, a.has_mask = true,
         a.mask = t3(FIA_DT_BOOL, 2, INT64_MAX / 4, INT64_MAX / 4));
    CASE("S_MASK_SHAPE", K_SEM, a.has_mask = true,
         a.mask = t2(FIA_DT_BOOL, -16, 32));
    CASE("S_MASK_SHAPE", K_SEM, a.has_mask = true,
         a.mask = (fia_tensor){.dtype = FIA_DT_BOOL, .ndim = 5,
                               .shape = {1, 1, 1, 16, 32}});
    /* decode masks: (B, KV_S), (B, 1, KV_S), (B, 1, 1, KV_S) */
    CASE("", K_OK, bnsd(&a, 2, 4, 4, 1, 32, 16), a.has_mask = true,
         a.mask = t2(FIA_DT_BOOL, 2, 32));
    CASE("", K_OK, bnsd(&a, 2, 4, 4, 1, 32, 16), a.has_mask = true,
         a.mask = t4(FIA_DT_BOOL, 2, 1, 1, 48));
    CASE("S_MASK_SHAPE", K_SEM, bnsd(&a, 2, 4, 4, 1, 32, 16),
         a.has_mask = true, a.mask = t2(FIA_DT_BOOL, 1, 32));
    CASE("S_MASK_SHAPE", K_SEM, bnsd(&a, 2, 4, 4, 1, 32, 16),
         a.has_mask = true, a.mask = t3(FIA_DT_BOOL, 2, 1, 31));
}

static void lengths(void)
{
    int64_t neg[2] = {-1, 3}, big[2] = {17, 3}, kvbig[2] = {33, 3};
    CASE("S_ASL_LEN", K_SEM, a.has_asl = true, a.asl = (fia_int_array){0, vals});
    CASE("", K_OK, a.has_asl = true, a.asl = (fia_int_array){1, vals});
    CASE("", K_OK, a.has_asl = true, a.asl = (fia_int_array){5, vals});
    CASE("S_ASL_LEN", K_SEM, bnsd(&a, 3, 4, 4, 16, 32, 16), a.has_asl = true,
         a.asl = (fia_int_array){2, vals});
    CASE("S_ASL_VALUE", K_SEM, a.has_asl = true,
         a.asl = (fia_int_array){2, big});
    CASE("S_ASL_VALUE", K_SEM, a.has_asl = true,
         a.asl = (fia_int_array){2, neg});
    CASE("", K_OK, bnsd(&a, 2, 4, 4, 1, 32, 16), a.has_asl = true,
         a.asl = (fia_int_array){0, vals}); /* ignored when Q_S = 1 */
    CASE("S_ASLKV_LEN", K_SEM, a.has_aslkv = true,
         a.aslkv = (fia_int_array){0, vals});
    CASE("S_ASLKV_LEN", K_SEM, bnsd(&a, 2, 4, 4, 1, 32, 16),
         a.has_aslkv = true, a.aslkv = (fia_int_array){0, vals});
    CASE("S_ASLKV_LEN", K_SEM, bnsd(&a, 3, 4, 4, 16, 32, 16),
         a.has_aslkv = true, a.aslkv = (fia_int_array){2, vals});
    CASE("", K_OK, a.has_aslkv = true, a.aslkv = (fia_int_array){4, vals});
    CASE("S_ASLKV_VALUE", K_SEM, a.has_aslkv = true,
         a.aslkv = (fia_int_array){2, kvbig});
    CASE("S_ASLKV_VALUE", K_SEM, a.has_aslkv = true,
         a.aslkv = (fia_int_array){1, neg});
    CASE("", K_OK, a.has_aslkv = true, a.aslkv = (fia_int_array){2, big});
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void cheap_rejects(void)
{
    /* absurd shapes: rejected before any allocation, instantly */
    double t0 = now();
    CASE("S_B_MAX", K_SEM, bnsd(&a, 65537, 256, 256, 20971520, 20971520, 512));
    CASE("S_QUERY_SHAPE", K_SEM, bnsd(&a, INT64_MAX, 256, 256, 20971520,
                                      20971520, 512));
    CASE("S_KV_SHAPE", K_SEM, a.k.shape[1] = a.v.shape[1] = INT64_MAX / 2);
    CASE("S_B_MAX", K_SEM, a.layout = "BNSD",
         a.q = a.out = t4(FIA_DT_FP16, 65537, 4, 16, 16),
         a.k = a.v = t4(FIA_DT_FP16, 65537, 4, 32, 16),
         a.has_aslkv = true, a.aslkv = (fia_int_array){1, vals});
    double dt = now() - t0;
    CHECK_MSG(dt < 0.05, "absurd shapes took %.3f s", dt);
}

/* The check table and the feature list cannot drift: every row names a
 * feature of include/fia/feature.h, every feature has a row, the layers
 * come in order, and each feature fast/ does not model has a refusal. */
static void check_table(void)
{
    bool has_row[FIA_FEATURE_COUNT] = {false}, refused[FIA_FEATURE_COUNT] = {false};
    CHECK(fast_check_count > 0);
    for (size_t i = 0; i < fast_check_count; i++) {
        const fast_check *c = &fast_checks[i];
        int f = fia_feature_from_name(c->feature);
        CHECK_MSG(f >= 0, "row %zu names an unknown feature \"%s\"", i,
                  c->feature ? c->feature : "(null)");
        CHECK_MSG(c->run != NULL, "row %zu (%s) has no check", i, c->feature);
        CHECK_MSG(c->layer >= FAST_LAYER_DTYPE &&
                  c->layer <= FAST_LAYER_UNDOCUMENTED,
                  "row %zu (%s): layer %d", i, c->feature, (int)c->layer);
        if (i > 0)
            CHECK_MSG(fast_checks[i - 1].layer <= c->layer,
                      "row %zu (%s): layer %d after layer %d", i, c->feature,
                      (int)c->layer, (int)fast_checks[i - 1].layer);
        if (f >= 0) {
            has_row[f] = true;
            if (c->layer == FAST_LAYER_NOT_MODELED ||
                c->layer >= FAST_LAYER_ARITHMETIC)
                refused[f] = true;
        }
    }
    for (int f = 0; f < FIA_FEATURE_COUNT; f++) {
        /* the reserved *_dtype never reach a system under test (the
         * operator does not read them: docs/features/reserved.md) */
        CHECK_MSG(has_row[f] || f == FIA_FEATURE_RESERVED,
                  "feature %s has no row in fast/'s check table",
                  fia_feature_name((fia_feature)f));
        if (strstr(fia_feature_summary((fia_feature)f), "not modeled yet"))
            CHECK_MSG(refused[f], "feature %s is not modeled but has no "
                      "refusal row", fia_feature_name((fia_feature)f));
    }
}

/* A not-modeled input is refused by its own feature's row, and only by
 * it: every refusal row (layers 4, 6 and 7) is run on arguments that are
 * valid but for that input. */
typedef struct refusal {
    const char *feature, *msg; /* the row that must refuse, its message */
} refusal;

static void expect_refusal(const fast_args *a, refusal want, int line)
{
    int fired = 0;
    for (size_t i = 0; i < fast_check_count; i++) {
        const fast_check *c = &fast_checks[i];
        if (c->layer != FAST_LAYER_NOT_MODELED &&
            c->layer < FAST_LAYER_ARITHMETIC)
            continue;
        fast_plan p;
        memset(&p, 0, sizeof p);
        fia_error err;
        fia_error_clear(&err);
        fia_status st = c->run(a, &p, &err);
        if (st == FIA_OK)
            continue;
        fired++;
        CHECK_MSG(st == FIA_ERR_NOT_MODELED, "line %d: row %s: status %d",
                  line, c->feature, st);
        CHECK_MSG(strcmp(c->feature, want.feature) == 0,
                  "line %d: refused by %s, not %s (%s)", line, c->feature,
                  want.feature, err.msg);
        CHECK_MSG(strncmp(err.msg, want.msg, strlen(want.msg)) == 0,
                  "line %d: \"%s\" does not start with \"%s\"", line, err.msg,
                  want.msg);
    }
    CHECK_MSG(fired == 1, "line %d: %d rows refused (want 1: %s)", line,
              fired, want.feature);
}

static void own_refusals(void)
{
    fia_tensor q = t3(FIA_DT_FP16, 2, 16, 64), kv = t3(FIA_DT_FP16, 2, 32, 64);
    fia_tensor out = q, t = t2(FIA_DT_FP32, 1, 1);
    const fia_tensor *kp[2] = {&kv, &kv};
    fia_tensor_list kl = {1, kp};
    fia_int_array prefix = {1, vals};
    const fast_args ok = {.profile = FIA_PROFILE_DOC, .query = &q, .key = &kl,
                          .value = &kl, .num_heads = 4, .layout = "BSH",
                          .inner_precise = 1, .out = &out};
    static const char *const feature[FAST_OPT_COUNT] = {
        [FAST_OPT_ANTIQUANT_SCALE] = "antiquant",
        [FAST_OPT_ANTIQUANT_OFFSET] = "antiquant",
        [FAST_OPT_QUERY_PADDING_SIZE] = "padding",
        [FAST_OPT_KV_PADDING_SIZE] = "padding",
        [FAST_OPT_KEY_ANTIQUANT_SCALE] = "antiquant",
        [FAST_OPT_KEY_ANTIQUANT_OFFSET] = "antiquant",
        [FAST_OPT_VALUE_ANTIQUANT_SCALE] = "antiquant",
        [FAST_OPT_VALUE_ANTIQUANT_OFFSET] = "antiquant",
        [FAST_OPT_KEY_SHARED_PREFIX] = "prefix",
        [FAST_OPT_VALUE_SHARED_PREFIX] = "prefix",
        [FAST_OPT_QUERY_ROPE] = "mla",
        [FAST_OPT_KEY_ROPE] = "mla",
        [FAST_OPT_DEQUANT_SCALE_QUERY] = "query_quant",
        [FAST_OPT_LEARNABLE_SINK] = "sink"};
    for (int o = 0; o < FAST_OPT_COUNT; o++) {
        if (o == FAST_OPT_BLOCK_TABLE)
            continue; /* page attention is modeled: test_fast_paged.c */
        if (o <= FAST_OPT_QUANT_OFFSET2)
            continue; /* the int8 scales are judged by their rules, which
                         no refusal row hides: test_fast_int8_checks.c */
        if (o == FAST_OPT_QUERY_PADDING_SIZE || o == FAST_OPT_KV_PADDING_SIZE)
            continue; /* left padding too: test_fast_padding.c */
        if (o == FAST_OPT_KEY_SHARED_PREFIX ||
            o == FAST_OPT_VALUE_SHARED_PREFIX)
            continue; /* and the prefix: test_fast_prefix.c */
        if (o == FAST_OPT_QUERY_ROPE || o == FAST_OPT_KEY_ROPE)
            continue; /* MLA is computed, its refusals (full quantization,
                         the NZ cache) in test_fast_mla.c */
        if (o == FAST_OPT_LEARNABLE_SINK)
            continue; /* the sink is computed, its rules and refusals
                         (full quantization, MLA) in test_fast_sink.c */
        fast_args a = ok;
        a.opt[o] = &t;
        char msg[64];
        snprintf(msg, sizeof msg, "M_OPTIONAL: %s ",
                 fast_optional_name((fast_optional)o));
        CHECK_MSG(feature[o] != NULL, "optional input %d has no feature", o);
        if (feature[o] != NULL)
            expect_refusal(&a, (refusal){feature[o], msg}, __LINE__);
    }
    fast_args a = ok;
    a.prefix_len = &prefix;
    expect_refusal(&a, (refusal){"prefix", "M_PREFIX_LEN: actual_shared_prefix_len"},
                   __LINE__);
    fia_tensor q_int8 = q, kv4 = kv, out8 = out;
    q_int8.dtype = FIA_DT_INT8, kv4.dtype = FIA_DT_INT4;
    out8.dtype = FIA_DT_INT8;
    /* an int8 query is computed (full quantization): with its three
     * scales of one element each the plan row takes it (dt: the pse's and
     * output's fp16), an empty scale it cannot compute with */
    fia_tensor s64 = {FIA_DT_UINT64, 1, {1}, NULL};
    fia_tensor s32 = {FIA_DT_FP32, 1, {1}, NULL};
    fia_tensor s0 = {FIA_DT_FP32, 1, {0}, NULL};
    a = ok, a.query = &q_int8;
    a.opt[FAST_OPT_DEQUANT_SCALE1] = &s64;
    a.opt[FAST_OPT_QUANT_SCALE1] = &s32;
    a.opt[FAST_OPT_DEQUANT_SCALE2] = &s64;
    {
        fast_plan p;
        memset(&p, 0, sizeof p);
        fia_error e;
        CHECK(fast_check_int_inputs_query(&a, &p, &e) == FIA_OK &&
              p.int8_quant.on && p.dt == FIA_DT_FP16 && p.kv_dt == FIA_DT_INT8);
        CHECK(fast_plan_int8_quant(&a, &p, &e) == FIA_OK &&
              p.int8_quant.s[1] == NULL && p.int8_quant.sdt[1] == FIA_DT_FP32);
        a.opt[FAST_OPT_QUANT_SCALE1] = &s0;
        CHECK(fast_plan_int8_quant(&a, &p, &e) == FIA_ERR_NOT_MODELED);
    }
    /* int4 key/value with an fp16 query are the antiquant scene, not
     * full quantization (test_fast_antiquant_checks.c) */
    const fia_tensor *kp4[1] = {&kv4};
    fia_tensor_list kl4 = {1, kp4};
    a = ok, a.key = &kl4, a.value = &kl4;
    {
        fast_plan p;
        memset(&p, 0, sizeof p);
        fia_error e;
        CHECK(fast_check_int_inputs_query(&a, &p, &e) == FIA_OK &&
              !p.int8_quant.on);
        CHECK(fast_plan_int8_quant(&a, &p, &e) == FIA_OK);
    }
    a = ok, a.out = &out8;
    expect_refusal(&a, (refusal){"int8_out", "NM-005: int8 attention_out"},
                   __LINE__);
    a = ok, a.layout = "BNSD_NBSD";
    expect_refusal(&a, (refusal){"tnd", "M_LAYOUT"}, __LINE__);
    static const int64_t odt = 1;
    a = ok, a.out_dtype = &odt;
    expect_refusal(&a, (refusal){"output", "M_OUT_DTYPE: out_dtype (004)"},
                   __LINE__);
    /* and through the entry: a not-modeled input's refusal, with its id */
    CASE("M_OPTIONAL: antiquant_scale", K_NOTMOD, a.has_opt[5] = true,
         a.opt[5] = t2(FIA_DT_FP16, 1, 1));
}

/* Left padding's exclusions come before its refusal, only in a left-
 * padding scene (the padding with its lengths; query padding at Q_S > 1). */
static void padding_exclusions(void)
{
    static int64_t lens[2] = {16, 8};
    fia_tensor pad = {.dtype = FIA_DT_INT64, .ndim = 1, .shape = {1}};
    CASE("S_PADDING_INT4", K_SEM, a.has_opt[9] = true, a.opt[9] = pad,
         a.has_aslkv = true, a.aslkv = (fia_int_array){2, lens},
         a.k.dtype = a.k2.dtype = a.v.dtype = FIA_DT_INT4);
    /* without the lengths: right padding, no scene (int4 then meets the
     * antiquant rules: D = 16 breaks ANTI-019) */
    CASE("ANTI-019", K_SEM, a.has_opt[9] = true,
         a.opt[9] = pad, a.k.dtype = a.k2.dtype = a.v.dtype = FIA_DT_INT4);
    CASE("S_PADDING_PREFIX", K_SEM, a.has_opt[8] = true, a.opt[8] = pad,
         a.has_asl = true, a.asl = (fia_int_array){2, lens},
         a.has_opt[14] = true, a.opt[14] = a.k);
    /* query padding at Q_S = 1 is ignored: no scene (the prefix is then
     * computed) */
    CASE("", K_OK,
         bnsd(&a, 2, 4, 4, 1, 32, 16), a.has_opt[8] = true, a.opt[8] = pad,
         a.has_asl = true, a.asl = (fia_int_array){2, lens},
         a.has_opt[14] = a.has_opt[15] = true,
         a.opt[14] = a.opt[15] = t4(FIA_DT_FP16, 1, 4, 8, 16));
    CASE("S_PADDING_ANTIQUANT", K_SEM, a.has_opt[9] = true, a.opt[9] = pad,
         a.has_aslkv = true, a.aslkv = (fia_int_array){2, lens},
         a.has_opt[10] = true, a.opt[10] = t2(FIA_DT_FP32, 2, 32));
    CASE("S_PADDING_OUT_QUANT", K_SEM, a.has_opt[9] = true, a.opt[9] = pad,
         a.has_aslkv = true, a.aslkv = (fia_int_array){2, lens},
         a.has_opt[3] = true, a.opt[3] = t2(FIA_DT_FP32, 4, 16));
}

/* The batch limit is the call's interface's (fast_v2_extras.apiName;
 * check_layout.c batch_max cites each document): at the limit accepted,
 * one above rejected (S_B_MAX, as the V2 call's), on the prefill
 * (Q_S 16) and the decode (Q_S 1) path.  Status-only: no data. */
static void batch_limit_per_interface(void)
{
    static const struct {
        const char *name;
        int64_t prefill, decode;
    } tab[] = {
        {NULL, 65536, 65536},                      /* 002: the C API's */
        {"aclnn_v2", 65536, 65536},                /* 002 194 / 263 */
        {"torch_npu_v2", 65536, 65536},            /* 003 241 / 342 */
        {"torchair_v2", 65536, 65536},             /* 004: 003's */
        {"mindspore", 65535, 65536},               /* 000 186 / 236 */
        {"incre_flash_attention", 65535, 65535},   /* 001 90 (A2) */
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        for (int decode = 0; decode < 2; decode++) {
            const int64_t qs = decode ? 1 : 16;
            const int64_t lim = decode ? tab[i].decode : tab[i].prefill;
            CASE("", K_OK, bnsd(&a, lim, 4, 4, qs, 32, 16), a.ext = true,
                 a.api_name = tab[i].name);
            CASE("S_B_MAX", K_SEM, bnsd(&a, lim + 1, 4, 4, qs, 32, 16),
                 a.ext = true, a.api_name = tab[i].name);
            /* the limit in the message names the interface's */
            char want[32];
            snprintf(want, sizeof want, "> %lld", (long long)lim);
            CHECK_MSG(strstr(fastLastError(), want) != NULL,
                      "%s Q_S %lld: \"%s\" does not say %s",
                      tab[i].name ? tab[i].name : "NULL", (long long)qs,
                      fastLastError(), want);
        }
    /* BSH and BSND read B from the same dim: one of each through 001 */
    CASE("S_B_MAX", K_SEM, bsnd(&a, 65536, 4, 4, 1, 32, 16), a.ext = true,
         a.api_name = "incre_flash_attention");
    CASE("S_B_MAX", K_SEM, a.layout = "BSH", a.ext = true,
         a.api_name = "incre_flash_attention",
         a.q = a.out = t3(FIA_DT_FP16, 65536, 1, 64),
         a.k = a.v = t3(FIA_DT_FP16, 65536, 32, 64));
    CASE("", K_OK, a.layout = "BSH", a.ext = true,
         a.api_name = "incre_flash_attention",
         a.q = a.out = t3(FIA_DT_FP16, 65535, 1, 64),
         a.k = a.v = t3(FIA_DT_FP16, 65535, 32, 64));
    /* an unknown name: a parameter error in both profiles, before every
     * check of the table (here the dtype layer's and the batch's) */
    CASE("P_API", K_TYPE, a.ext = true, a.api_name = "aclnn");
    CASE("P_API", K_TYPE, a.ext = true, a.api_name = "");
    CASE("P_API", K_TYPE, a.ext = true, a.api_name = "MindSpore");
    CASE("P_API", K_TYPE, bnsd(&a, 65537, 4, 4, 16, 32, 16),
         a.q.dtype = FIA_DT_FP32, a.ext = true, a.api_name = "ifa");
    CHECK(strstr(fastLastError(), "\"ifa\"") != NULL);
    /* ... but after the nullptrs */
    CASE("N_QUERY", K_NULL, a.no_q = true, a.ext = true, a.api_name = "x");
    /* the base call through each known name, and through NULL, is fine */
    CASE("", K_OK, a.ext = true, a.api_name = NULL);
    CASE("", K_OK, a.ext = true, a.api_name = "mindspore");
}

/* 004's out_dtype has no documented meaning: a given one is refused as
 * not modeled (M_OUT_DTYPE), but only once every documented rule has
 * judged the call, in both profiles; None changes nothing. */
static void out_dtype_late(void)
{
    static const int64_t code = 1, zero = 0; /* any code, 0 too */
    const fia_status nm = FIA_ERR_NOT_MODELED;
#define ODT a.ext = true, a.api_name = "torchair_v2"
    CASE("", K_OK, ODT);
    CASE("", K_OK, ODT, a.out_dtype = NULL, bnsd(&a, 2, 4, 2, 1, 32, 16));
    CASE("M_OUT_DTYPE", K_NOTMOD, ODT, a.out_dtype = &code);
    CHECK_MSG(strstr(fastLastError(), "out_dtype (004)") &&
              strstr(fastLastError(), "no documented meaning"),
              "\"%s\"", fastLastError());
    CASE("M_OUT_DTYPE", K_NOTMOD, ODT, a.out_dtype = &zero,
         bnsd(&a, 2, 4, 2, 1, 32, 16));
    CASE("M_OUT_DTYPE", K_NOTMOD, ODT, a.out_dtype = &code,
         tnd(&a, 128, 128));
    /* whatever the interface's name (the C entry has no parse to stop it) */
    CASE("M_OUT_DTYPE", K_NOTMOD, a.ext = true, a.out_dtype = &code);
    /* an empty query returns at once with success (RELEASED "Degenerate
     * shapes"), out_dtype or not */
    CASE("", K_OK, ODT, bnsd(&a, 2, 4, 4, 0, 32, 16));
    CASE("", K_OK, ODT, a.out_dtype = &code, bnsd(&a, 2, 4, 4, 0, 32, 16));
    /* never hiding a documented rejection: the dtype layer, a semantic
     * rule, a rule of one profile (the other refuses the call), an
     * exclusion */
    CASE("T_OUT", K_TYPE, ODT, a.out_dtype = &code,
         a.out.dtype = FIA_DT_FP32);
    CASE("S_OUT_SHAPE", K_SEM, ODT, a.out_dtype = &code,
         a.out = t3(FIA_DT_FP16, 2, 15, 64));
    CASE("S_OUT_DTYPE", K_SEM, ODT, a.out_dtype = &code,
         a.out.dtype = FIA_DT_BF16);
    CASE("S_B_MAX", K_SEM, ODT, a.out_dtype = &code,
         bnsd(&a, 65537, 4, 4, 16, 32, 16));
    CASE("S_TND_PSE", K_SEM, ODT, a.out_dtype = &code, tnd(&a, 128, 128),
         a.has_pse = true, a.pse = t4(FIA_DT_BF16, 1, 4, 17, 43));
    api a = base();
    a.ext = true, a.api_name = "torchair_v2", a.out_dtype = &code;
    tnd(&a, 64, 64);
    expect_each(&a, "S_TND_D", FIA_ERR_PARAM_INVALID, "M_OUT_DTYPE", nm,
                __LINE__);
    tnd(&a, 192, 192);
    expect_each(&a, "M_OUT_DTYPE", nm, "S_TND_D", FIA_ERR_INNER_TILING_ERROR,
                __LINE__);
    /* the other refusals come first (layer 4, and layer 6's rows above) */
    CASE("M_OPTIONAL: antiquant_scale", K_NOTMOD, ODT, a.out_dtype = &code,
         a.has_opt[5] = true, a.opt[5] = t2(FIA_DT_FP16, 1, 1));
    CASE("M_OUT_DTYPE", K_NOTMOD, ODT, a.out_dtype = &code, tnd(&a, 192, 128));
#undef ODT
}

static void *other_thread(void *arg)
{
    (void)arg;
    fastSetStatusProfile(FIA_PROFILE_CANN);
    return NULL;
}

int main(void)
{
    CHECK(fastGetStatusProfile() == FIA_PROFILE_DOC);
    pthread_t th;
    pthread_create(&th, NULL, other_thread, NULL);
    pthread_join(th, NULL);
    CHECK(fastGetStatusProfile() == FIA_PROFILE_DOC); /* thread-local */
    null_and_types();
    not_modeled();
    shapes();
    modes();
    lengths();
    cheap_rejects();
    token_layouts();
    padding_exclusions();
    batch_limit_per_interface();
    out_dtype_late();
    check_table();
    own_refusals();
    return check_summary();
}
