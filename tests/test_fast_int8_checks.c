/* fast/ phase one for the int8 output (docs/features/int8_out.md, OQ-*)
 * and full int8 quantization (docs/features/int8_quant.md, Q8-*): each row
 * once broken (the status in both profiles, the row's id starting the
 * error) and once obeyed (every rule accepts: an int8 output of an
 * fp16/bf16 query is computed, and so is an int8 query (full
 * quantization), the scales an fp16/bf16 call ignores ignored).  Then
 * what the int8 paths change in other rows (the
 * D alignment, the GQA ratio, the output dtype) and absurd shapes, which
 * must give a status and never crash.  Status-only: tensors carry no data. */
#include <stdint.h>
#include <string.h>
#include "check.h"
#include "fast_expect.h"
#include "fast/validate.h"
#include "fia/fast.h"

typedef struct api {
    const char *layout;
    fia_tensor q, k, v, out, mask, opt[FAST_OPT_COUNT];
    bool has_mask, has_opt[FAST_OPT_COUNT];
    fia_int_array asl, aslkv, prefix;
    bool has_asl, has_aslkv, has_prefix;
    int64_t N, KVN, pre, next, sparse;
} api;

static fia_tensor t1(fia_dtype dt, int64_t a)
{
    return (fia_tensor){.dtype = dt, .ndim = 1, .shape = {a}};
}

static fia_tensor t2(fia_dtype dt, int64_t a, int64_t b)
{
    return (fia_tensor){.dtype = dt, .ndim = 2, .shape = {a, b}};
}

static fia_tensor t4(fia_dtype dt, int64_t a, int64_t b, int64_t c, int64_t d)
{
    return (fia_tensor){.dtype = dt, .ndim = 4, .shape = {a, b, c, d}};
}

enum { B = 2 };

/* BNSD, B = 2, N heads (KV_N = N), Q_S, KV_S = 32, D; query/key/value of
 * dtype in, attention_out of dtype out. */
static api bnsd(fia_dtype in, fia_dtype out, int64_t N, int64_t QS, int64_t D)
{
    api a;
    memset(&a, 0, sizeof a);
    a.layout = "BNSD";
    a.q = t4(in, B, N, QS, D);
    a.k = a.v = t4(in, B, N, 32, D);
    a.out = t4(out, B, N, QS, D);
    a.N = N;
    a.pre = a.next = 2147483647;
    return a;
}

static void give(api *a, fast_optional o, fia_tensor t)
{
    a->has_opt[o] = true;
    a->opt[o] = t;
}

/* An fp16 call with an int8 output that obeys every OQ row: quant_scale2
 * per-tensor, Q_S 16 (or 1), D 64. */
static api out8(int64_t QS)
{
    api a = bnsd(FIA_DT_FP16, FIA_DT_INT8, 4, QS, 64);
    give(&a, FAST_OPT_QUANT_SCALE2, t1(FIA_DT_FP32, 1));
    return a;
}

/* Full quantization that obeys every Q8 row: int8 query, key and value,
 * the three per-tensor scales, an int8 (with quant_scale2) or fp16 output,
 * Q_S 16, D 64. */
static api full8(fia_dtype out)
{
    api a = bnsd(FIA_DT_INT8, out, 4, 16, 64);
    give(&a, FAST_OPT_DEQUANT_SCALE1, t1(FIA_DT_UINT64, 1));
    give(&a, FAST_OPT_QUANT_SCALE1, t1(FIA_DT_FP32, 1));
    give(&a, FAST_OPT_DEQUANT_SCALE2, t1(FIA_DT_FP32, 1));
    if (out == FIA_DT_INT8)
        give(&a, FAST_OPT_QUANT_SCALE2, t1(FIA_DT_FP32, 1));
    return a;
}

static fia_status call(const api *a)
{
    const fia_tensor *kp[1] = {&a->k}, *vp[1] = {&a->v};
    fia_tensor_list kl = {1, kp}, vl = {1, vp};
    const fia_tensor *o[FAST_OPT_COUNT];
    for (int i = 0; i < FAST_OPT_COUNT; i++)
        o[i] = a->has_opt[i] ? &a->opt[i] : NULL;
    uint64_t ws = 0;
    fast_executor *ex = NULL;
    fia_status st = fastFusedInferAttentionScoreV2GetWorkspaceSize(
        &a->q, &kl, &vl, NULL, a->has_mask ? &a->mask : NULL,
        a->has_asl ? &a->asl : NULL, a->has_aslkv ? &a->aslkv : NULL, o[0],
        o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8], o[9], o[10], o[11],
        o[12], o[13], o[14], o[15], a->has_prefix ? &a->prefix : NULL, a->N,
        0.125, a->pre, a->next, a->layout, a->KVN, a->sparse, 1, 0, 0, false,
        0, 0, &a->out, NULL, &ws, &ex);
    CHECK(st == FIA_OK ? ex != NULL : ex == NULL);
    fastExecutorDestroy(ex);
    return st;
}

#define REJ (-1) /* the semantic code of the profile: 161002 / 561002 */

/* The call's status in the profile set. */
static fia_status api_status(void *a)
{
    return call(a);
}

/* Calls a in both profiles: the status (REJ: rejected) and, when not OK,
 * the id the error starts with. */
static void expect2(const api *a, int doc, int cann, const char *id, int line)
{
    ftl_expect_profiles(api_status, (void *)a,
                        doc == REJ ? FIA_ERR_PARAM_INVALID : (fia_status)doc,
                        cann == REJ ? FIA_ERR_INNER_TILING_ERROR
                                    : (fia_status)cann,
                        id, line);
}

#define BAD(id, a) expect2(&(a), REJ, REJ, id, __LINE__)
#define NM(id, a) expect2(&(a), FIA_ERR_NOT_MODELED, FIA_ERR_NOT_MODELED, id, \
                          __LINE__)
#define OK(a) expect2(&(a), FIA_OK, FIA_OK, NULL, __LINE__)

/* ---- int8_out ----------------------------------------------------------- */
static void oq_scene(void)
{
    api a;
    /* OQ-001 on both paths */
    a = out8(16), a.has_opt[FAST_OPT_QUANT_SCALE2] = false;
    BAD("OQ-001", a);
    a = out8(1), a.has_opt[FAST_OPT_QUANT_SCALE2] = false;
    BAD("OQ-001", a);
    /* an offset alone is no scale */
    give(&a, FAST_OPT_QUANT_OFFSET2, t1(FIA_DT_FP32, 1));
    BAD("OQ-001", a);
    a = out8(16);
    OK(a);
    a = out8(1);
    OK(a);
    /* bf16 in, int8 out */
    a = out8(16), a.q.dtype = a.k.dtype = a.v.dtype = FIA_DT_BF16;
    OK(a);

    /* OQ-002: the output scales with an fp16 output, fp16 or int8 input */
    a = bnsd(FIA_DT_FP16, FIA_DT_FP16, 4, 16, 64);
    OK(a);
    give(&a, FAST_OPT_QUANT_SCALE2, t1(FIA_DT_FP32, 1));
    BAD("OQ-002", a);
    a = bnsd(FIA_DT_BF16, FIA_DT_BF16, 4, 1, 64);
    give(&a, FAST_OPT_QUANT_OFFSET2, t1(FIA_DT_FP32, 1));
    BAD("OQ-002", a);
    a = full8(FIA_DT_FP16);
    OK(a);
    give(&a, FAST_OPT_QUANT_OFFSET2, t1(FIA_DT_FP32, 1));
    BAD("OQ-002", a);
    a = full8(FIA_DT_FP16);
    give(&a, FAST_OPT_QUANT_SCALE2, t1(FIA_DT_FP32, 1));
    BAD("OQ-002", a);

    /* OQ-003: fp16/bf16 in, int8 out, an input-path scale (both paths,
     * both profiles: not the ignored scene Q8-N01) */
    static const fast_optional in[3] = {FAST_OPT_DEQUANT_SCALE1,
                                        FAST_OPT_QUANT_SCALE1,
                                        FAST_OPT_DEQUANT_SCALE2};
    for (int i = 0; i < 3; i++)
        for (int qs = 1; qs <= 16; qs += 15) {
            a = out8(qs);
            give(&a, in[i], t1(FIA_DT_FP32, 1));
            BAD("OQ-003", a);
        }
    a = full8(FIA_DT_INT8); /* the same scales with an int8 input */
    OK(a);

    /* OQ-004: offset of the scale's dtype and shape */
    a = out8(16);
    give(&a, FAST_OPT_QUANT_OFFSET2, t1(FIA_DT_FP32, 1));
    OK(a);
    a.opt[FAST_OPT_QUANT_OFFSET2].dtype = FIA_DT_BF16;
    BAD("OQ-004", a);
    a.opt[FAST_OPT_QUANT_OFFSET2] = t2(FIA_DT_FP32, 1, 1); /* [1,1] vs [1] */
    BAD("OQ-004", a);
    a.opt[FAST_OPT_QUANT_OFFSET2] = t1(FIA_DT_FP32, 0); /* empty */
    BAD("OQ-004", a);
    a.opt[FAST_OPT_QUANT_OFFSET2] = t1(FIA_DT_FP32, 1);
    a.opt[FAST_OPT_QUANT_OFFSET2].ndim = 9; /* no rank */
    BAD("OQ-004", a);
    a = out8(1);
    give(&a, FAST_OPT_QUANT_SCALE2, t2(FIA_DT_FP32, 4, 64));
    give(&a, FAST_OPT_QUANT_OFFSET2, t2(FIA_DT_FP32, 4, 64));
    OK(a);
    a.opt[FAST_OPT_QUANT_OFFSET2] = t1(FIA_DT_FP32, 256); /* same count */
    BAD("OQ-004", a);

    /* OQ-005: bf16 scale only with a bf16 query */
    a = out8(16), a.opt[FAST_OPT_QUANT_SCALE2].dtype = FIA_DT_BF16;
    BAD("OQ-005", a);
    a.q.dtype = a.k.dtype = a.v.dtype = FIA_DT_BF16;
    OK(a);
    give(&a, FAST_OPT_QUANT_OFFSET2, t1(FIA_DT_BF16, 1));
    OK(a);
    a = full8(FIA_DT_INT8), a.opt[FAST_OPT_QUANT_SCALE2].dtype = FIA_DT_BF16;
    BAD("OQ-005", a);
}

static void oq_shapes(void)
{
    api a;
    /* OQ-006: 1 or the output's H elements, any shape */
    a = out8(16);
    a.opt[FAST_OPT_QUANT_SCALE2] = t1(FIA_DT_FP32, 3);
    BAD("OQ-006", a);
    a.opt[FAST_OPT_QUANT_SCALE2] = t1(FIA_DT_FP32, 257);
    BAD("OQ-006", a);
    a.opt[FAST_OPT_QUANT_SCALE2] = t1(FIA_DT_FP32, 0);
    BAD("OQ-006", a);
    a.opt[FAST_OPT_QUANT_SCALE2] = t4(FIA_DT_FP32, 1, 4, 1, 64);
    OK(a);
    a.opt[FAST_OPT_QUANT_SCALE2] = t2(FIA_DT_FP32, 16, 16); /* any shape */
    OK(a);
    a.opt[FAST_OPT_QUANT_SCALE2] = (fia_tensor){.dtype = FIA_DT_FP32};
    OK(a); /* rank 0: one element */
    a = out8(1), a.opt[FAST_OPT_QUANT_SCALE2] = t1(FIA_DT_FP32, 128);
    BAD("OQ-006", a);
    /* BSH: H of the output (N * D = 4 * 64) */
    a = out8(16), a.layout = "BSH";
    a.q = (fia_tensor){.dtype = FIA_DT_FP16, .ndim = 3, .shape = {B, 16, 256}};
    a.k = a.v = (fia_tensor){.dtype = FIA_DT_FP16, .ndim = 3,
                             .shape = {B, 32, 256}};
    a.out = a.q, a.out.dtype = FIA_DT_INT8;
    a.opt[FAST_OPT_QUANT_SCALE2] = (fia_tensor){
        .dtype = FIA_DT_FP32, .ndim = 3, .shape = {1, 1, 256}};
    OK(a);
    a.opt[FAST_OPT_QUANT_SCALE2].shape[2] = 64;
    BAD("OQ-006", a);

    /* OQ-007 / OQ-010: Q_S > 1, D 32-aligned (48 passes the fp16 16) */
    a = bnsd(FIA_DT_FP16, FIA_DT_INT8, 4, 16, 48);
    give(&a, FAST_OPT_QUANT_SCALE2, t1(FIA_DT_FP32, 4 * 48));
    BAD("OQ-007", a);
    a.opt[FAST_OPT_QUANT_SCALE2] = t1(FIA_DT_FP32, 1);
    BAD("OQ-010", a);
    a = bnsd(FIA_DT_FP16, FIA_DT_INT8, 4, 1, 48); /* Q_S = 1: no rule */
    give(&a, FAST_OPT_QUANT_SCALE2, t1(FIA_DT_FP32, 4 * 48));
    OK(a);
    a.opt[FAST_OPT_QUANT_SCALE2] = t1(FIA_DT_FP32, 1);
    OK(a);
    a = bnsd(FIA_DT_FP16, FIA_DT_INT8, 4, 16, 32);
    give(&a, FAST_OPT_QUANT_SCALE2, t2(FIA_DT_FP32, 4, 32));
    OK(a);
    /* an fp16 D not 16-aligned: the fp16 rule first (LAYOUT-024) */
    a = bnsd(FIA_DT_FP16, FIA_DT_INT8, 4, 16, 40);
    give(&a, FAST_OPT_QUANT_SCALE2, t1(FIA_DT_FP32, 1));
    BAD("S_D_ALIGN", a);
}

/* A prefill call with an int8 output, quant_offset2 when off, the
 * compressed mask of sparse mode 2..4 or a full one for mode 0 (mask). */
static api band(int sparse, bool mask, bool off, int64_t pre, int64_t next)
{
    api a = out8(16);
    a.sparse = sparse;
    a.pre = pre, a.next = next;
    if (sparse >= 2)
        a.has_mask = true, a.mask = t2(FIA_DT_BOOL, 2048, 2048);
    else if (mask || sparse == 1)
        a.has_mask = true, a.mask = t2(FIA_DT_BOOL, 16, 32);
    if (off)
        give(&a, FAST_OPT_QUANT_OFFSET2, t1(FIA_DT_FP32, 1));
    return a;
}

static void oq_band(void)
{
    static int64_t kv8[B] = {8, 32}, kv16[B] = {16, 32}, kv4[B] = {4, 32};
    static int64_t q4[B] = {4, 16}, q16[B] = {16, 16};
    static int64_t p7[1] = {7}, p8[1] = {8};
    api a;
    /* OQ-008: sparse 4 with negative pre or next, offset or not */
    a = band(4, true, false, -1, 0);
    BAD("OQ-008", a);
    a = band(4, true, false, 5, -1);
    BAD("OQ-008", a);
    a = band(4, true, false, INT64_MIN, INT64_MAX);
    BAD("OQ-008", a);
    a = band(4, true, false, 5, 0);
    OK(a);
    a = band(3, true, false, -1, -1); /* mode 3 ignores them */
    OK(a);

    /* OQ-009, sparse 0 with a mask: next < 0, or q - kv - P - pre > 0 */
    a = band(0, true, true, 2147483647, -1);
    BAD("OQ-009", a);
    a = band(0, false, true, 2147483647, -1); /* no mask: no rule */
    OK(a);
    a = band(0, true, false, 2147483647, -1); /* no offset: no rule */
    OK(a);
    a = band(0, true, true, 10, 0); /* batch 0: 16 - 4 - 10 = 2 */
    a.has_aslkv = true, a.aslkv = (fia_int_array){B, kv4};
    BAD("OQ-009", a);
    a.pre = 12; /* 16 - 4 - 12 = 0 */
    OK(a);
    a = band(0, true, true, -17, 0); /* 16 - 32 + 17 = 1 */
    BAD("OQ-009", a);
    a.pre = INT64_MIN; /* clamped, still negative */
    BAD("OQ-009", a);
    /* sparse 3: kv + P - q < 0 for some batch */
    a = band(3, true, true, 0, 0);
    a.has_aslkv = true, a.aslkv = (fia_int_array){B, kv8};
    BAD("OQ-009", a);
    a.aslkv.values = kv16;
    OK(a);
    /* with a shared prefix of P keys: 8 + 8 - 16 = 0 obeys, 8 + 7 - 16
     * does not */
    a.aslkv.values = kv8;
    give(&a, FAST_OPT_KEY_SHARED_PREFIX, t4(FIA_DT_FP16, 1, 4, 8, 64));
    give(&a, FAST_OPT_VALUE_SHARED_PREFIX, t4(FIA_DT_FP16, 1, 4, 8, 64));
    a.mask = t2(FIA_DT_BOOL, 2048, 2048);
    OK(a);
    a.has_prefix = true, a.prefix = (fia_int_array){1, p7};
    BAD("OQ-009", a);
    a.prefix.values = p8;
    OK(a);
    /* sparse 4: next + kv + P - q < 0 for some batch */
    a = band(4, true, true, 100, 0);
    a.has_aslkv = true, a.aslkv = (fia_int_array){B, kv8};
    BAD("OQ-009", a);
    a.next = 8;
    OK(a);
    /* sparse 1 and 2 never intercept */
    a = band(1, true, true, -100, -100);
    a.has_aslkv = true, a.aslkv = (fia_int_array){B, kv4};
    OK(a);
    a = band(2, true, true, -100, -100);
    a.has_aslkv = true, a.aslkv = (fia_int_array){B, kv4};
    OK(a);
    /* the query's lengths: 4 - 4 - 0 > 0 is false */
    a = band(0, true, true, 0, 0);
    a.has_asl = true, a.asl = (fia_int_array){B, q4};
    a.has_aslkv = true, a.aslkv = (fia_int_array){B, kv4};
    OK(a);
    a.asl.values = q16; /* batch 0: 16 - 4 - 0 > 0 */
    BAD("OQ-009", a);
}

/* ---- int8_quant ---------------------------------------------------------- */
static void q8_scene(void)
{
    static const fast_optional in[3] = {FAST_OPT_DEQUANT_SCALE1,
                                        FAST_OPT_QUANT_SCALE1,
                                        FAST_OPT_DEQUANT_SCALE2};
    api a;
    /* Q8-001 / Q8-002: every scale of the scene */
    for (int i = 0; i < 3; i++) {
        a = full8(FIA_DT_INT8), a.has_opt[in[i]] = false;
        BAD("Q8-001", a);
        a = full8(FIA_DT_FP16), a.has_opt[in[i]] = false;
        BAD("Q8-002", a);
    }
    a = full8(FIA_DT_INT8), a.has_opt[FAST_OPT_QUANT_SCALE2] = false;
    BAD("Q8-001", a);
    a = full8(FIA_DT_INT8);
    OK(a);
    give(&a, FAST_OPT_QUANT_OFFSET2, t1(FIA_DT_FP32, 1));
    OK(a);
    a = full8(FIA_DT_FP16);
    OK(a);
    /* Q8-003: an fp16 or int8 output only */
    a = full8(FIA_DT_BF16);
    BAD("Q8-003", a);
    /* Q8-004: int8 key and value */
    a = full8(FIA_DT_FP16), a.k.dtype = a.v.dtype = FIA_DT_FP16;
    BAD("Q8-004", a);
    a = full8(FIA_DT_FP16), a.v.dtype = FIA_DT_INT4;
    BAD("Q8-004", a);
    /* Q8-005: per-tensor (one element, any rank) */
    for (int i = 0; i < 3; i++) {
        a = full8(FIA_DT_INT8), a.opt[in[i]] = t1(a.opt[in[i]].dtype, 2);
        BAD("Q8-005", a);
        a.opt[in[i]] = t2(a.opt[in[i]].dtype, 1, 1);
        OK(a);
        a.opt[in[i]].ndim = 0;
        OK(a);
        a.opt[in[i]] = t1(a.opt[in[i]].dtype, -1);
        BAD("Q8-005", a);
    }
    /* Q8-008: D 32-aligned at Q_S > 1; 40 is not refused by the fp16
     * 16-alignment first (LAYOUT-024 is for fp16/bf16 input) */
    a = full8(FIA_DT_INT8);
    a.q.shape[3] = a.k.shape[3] = a.v.shape[3] = a.out.shape[3] = 40;
    BAD("Q8-008", a);
    a.q.shape[3] = a.k.shape[3] = a.v.shape[3] = a.out.shape[3] = 48;
    BAD("Q8-008", a);
    a.q.shape[3] = a.k.shape[3] = a.v.shape[3] = a.out.shape[3] = 96;
    OK(a);
}

/* Q8-006 / Q8-007 / Q8-N01: the input-path scales with fp16/bf16 in and
 * out. */
static void q8_fp_scales(void)
{
    static const fast_optional in[3] = {FAST_OPT_DEQUANT_SCALE1,
                                        FAST_OPT_QUANT_SCALE1,
                                        FAST_OPT_DEQUANT_SCALE2};
    static const fia_dtype fp[2] = {FIA_DT_FP16, FIA_DT_BF16};
    for (int d = 0; d < 2; d++)
        for (int i = 0; i < 3; i++) {
            api a = bnsd(fp[d], fp[d], 4, 16, 64);
            OK(a);
            give(&a, in[i], t1(FIA_DT_FP32, 1));
            expect2(&a, REJ, FIA_OK, "Q8-006", __LINE__);
            /* ignored whole: its element count is not looked at */
            a.opt[in[i]] = t1(FIA_DT_FP32, 5);
            expect2(&a, REJ, FIA_OK, "Q8-006", __LINE__);
            a = bnsd(fp[d], fp[d], 4, 1, 64);
            OK(a);
            give(&a, in[i], t1(FIA_DT_FP32, 1));
            BAD("Q8-007", a);
        }
}

/* ---- what the int8 paths change elsewhere -------------------------------- */
static void elsewhere(void)
{
    api a;
    /* ANTI-028: the GQA ratio above 64, accepted by cann on the fp16 path
     * only */
    a = bnsd(FIA_DT_FP16, FIA_DT_FP16, 130, 16, 64);
    a.KVN = 2, a.k.shape[1] = a.v.shape[1] = 2;
    expect2(&a, REJ, FIA_OK, "S_GQA_RATIO", __LINE__);
    a = full8(FIA_DT_FP16);
    a.q = t4(FIA_DT_INT8, B, 130, 16, 64);
    a.out = t4(FIA_DT_FP16, B, 130, 16, 64);
    a.N = 130, a.KVN = 2, a.k.shape[1] = a.v.shape[1] = 2;
    BAD("ANTI-028", a);
    a.N = 128, a.q.shape[1] = a.out.shape[1] = 128;
    OK(a);
    /* the output's dtype: fp16 query with int8 output, int8 query with
     * fp16 output pass the output row; an fp16 query with a bf16 output
     * does not */
    a = bnsd(FIA_DT_FP16, FIA_DT_BF16, 4, 16, 64);
    BAD("S_OUT_DTYPE", a);
    /* page attention at Q_S > 1 excludes the int8 query before any rule
     * of its own (PAGED-007, layer 3) */
    a = full8(FIA_DT_FP16);
    give(&a, FAST_OPT_BLOCK_TABLE, t2(FIA_DT_INT32, B, 1));
    BAD("S_PAGED", a);
    /* Q_S = 1 all-int8: rejected (ANTI-027, antiquant's row), never
     * accepted */
    a = full8(FIA_DT_FP16);
    a.q.shape[2] = a.out.shape[2] = 1;
    fia_status st = call(&a);
    CHECK_MSG(st != FIA_OK, "Q_S = 1 all-int8 accepted");
}

/* ---- absurd shapes ------------------------------------------------------ */
/* Every rank 0..8, negative and huge dims, for the query and each scale:
 * a status, never a crash (run under ASan/UBSan in the sanitizer build). */
static void absurd(void)
{
    static const int64_t dims[] = {0, 1, -1, 32, INT64_MAX, INT64_MIN,
                                   (int64_t)1 << 40};
    const int nd = (int)(sizeof dims / sizeof dims[0]);
    for (int rank = 0; rank <= 8; rank++)
        for (int d = 0; d < nd; d++) {
            fia_tensor t = {.dtype = FIA_DT_INT8, .ndim = rank};
            for (int i = 0; i < rank; i++)
                t.shape[i] = i == rank - 1 ? dims[d] : 2;
            api a = full8(FIA_DT_INT8);
            a.q = t;
            (void)call(&a);
            a = full8(FIA_DT_INT8), a.out = t;
            (void)call(&a);
            for (int o = 0; o < 5; o++) {
                a = full8(FIA_DT_INT8);
                t.dtype = o == 1 || o >= 3 ? FIA_DT_FP32 : FIA_DT_UINT64;
                give(&a, (fast_optional)o, t);
                fia_status st = call(&a);
                /* accepted only with a count the scale may have: one
                 * element, or quant_scale2 / quant_offset2 per channel
                 * (N x D = 256) */
                const int64_t n = rank == 0 ? 1
                                  : dims[d] < 0 || dims[d] > 32 ? -1
                                  : ((int64_t)1 << (rank - 1)) * dims[d];
                CHECK_MSG(st != FIA_OK || n == 1 || (o >= 3 && n == 256),
                          "rank %d dim %lld of %s accepted",
                          rank, (long long)dims[d],
                          fast_optional_name((fast_optional)o));
                a = out8(16);
                give(&a, (fast_optional)o, t);
                (void)call(&a);
            }
        }
    /* huge lengths and tokens with an offset: no overflow in the band */
    static int64_t huge[B] = {INT64_MAX, INT64_MAX};
    api a = band(0, true, true, INT64_MIN, INT64_MIN);
    a.has_asl = a.has_aslkv = true;
    a.asl = a.aslkv = (fia_int_array){B, huge};
    BAD("S_ASL", a);
    a = band(4, true, true, INT64_MAX, INT64_MAX);
    a.has_aslkv = true, a.aslkv = (fia_int_array){B, huge};
    BAD("S_ASLKV", a);
}

int main(void)
{
    oq_scene();
    oq_shapes();
    oq_band();
    q8_scene();
    q8_fp_scales();
    elsewhere();
    absurd();
    return check_summary();
}
