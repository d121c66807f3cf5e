/* Phase one of fast/: imperative parameter validation, the way the kernel's
 * aclnn wrapper and tiling do it (layer 1 lives in api.c).
 *
 * Layers, checked in this order (the lowest layer wins):
 *   1. nullptr           -> 161001 (002 返回值; RELEASED "Return codes")
 *   2. dtype lists       -> 161002 in both profiles (002 REG_OP / 参数说明)
 *   3. not modeled yet   -> FIA_ERR_NOT_MODELED (docs/semantics.md)
 *   4. semantic rules    -> 161002 (DOC) or 561002 (CANN, RELEASED: every
 *                           semantic interception is a tiling error)
 * Each check has a short id that starts the fastLastError() message.
 * Validation reads shapes, dtypes and the host int arrays only, never tensor
 * data, and allocates nothing until every check has passed. */
#include <stdio.h>
#include <stdlib.h>
#include "fast_internal.h"

#define BADTYPE(id, ...) return fast_fail(FIA_ERR_PARAM_INVALID, id, __VA_ARGS__)
#define NOTMOD(id, ...) return fast_fail(FIA_ERR_NOT_MODELED, id, __VA_ARGS__)
#define REJECT(id, ...) return fast_fail(fast_semantic_code(), id, __VA_ARGS__)

/* ---- small helpers -------------------------------------------------------- */
/* Product of the dims; false when the rank is out of range, a dim is
 * negative or the product overflows int64. */
static bool shape_numel(const fia_tensor *t, int64_t *out)
{
    if (t->ndim < 0 || t->ndim > FIA_MAX_RANK)
        return false;
    int64_t n = 1;
    bool zero = false;
    for (int i = 0; i < t->ndim; i++) {
        int64_t d = t->shape[i];
        if (d < 0)
            return false;
        if (d == 0)
            zero = true;
        else if (!zero && n > INT64_MAX / d)
            return false;
        else if (!zero)
            n *= d;
    }
    *out = zero ? 0 : n;
    return true;
}

/* Empty (numel 0) optional tensors count as absent where RELEASED says so. */
static bool present(const fia_tensor *t)
{
    int64_t n;
    if (t == NULL)
        return false;
    if (!shape_numel(t, &n))
        return true; /* malformed: present, the shape check rejects it */
    return n > 0;
}

static bool dt_in(fia_dtype dt, const fia_dtype *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == dt)
            return true;
    return false;
}

static const char *dtn(fia_dtype dt)
{
    static const char *names[] = {"invalid", "fp16",  "bf16",  "fp32",
                                  "int8",    "uint8", "int4",  "int32",
                                  "int64",   "uint64", "bool"};
    return (unsigned)dt < sizeof names / sizeof names[0] ? names[dt] : "?";
}

static bool same_shape(const fia_tensor *a, const fia_tensor *b)
{
    if (a->ndim != b->ndim)
        return false;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i])
            return false;
    return true;
}

#define LIST(...) ((const fia_dtype[]){__VA_ARGS__}), \
    (sizeof((const fia_dtype[]){__VA_ARGS__}) / sizeof(fia_dtype))

/* Layer 2: registered dtypes (002 REG_OP and the 参数说明 of each input).
 * key/value: 002 参数说明 lists INT4 (INT32) besides REG_OP's INT8, FP16,
 * BF16; the aclnn-level description is the one the C API checks, so int4 /
 * int32 keys pass here and are refused as not modeled in layer 3. */
static fia_status check_dtypes(const fast_args *a)
{
    fia_dtype qd = a->query->dtype;
    if (!dt_in(qd, LIST(FIA_DT_INT8, FIA_DT_FP16, FIA_DT_BF16)))
        BADTYPE("T_QUERY", "query dtype %s not in {int8, fp16, bf16}", dtn(qd));
    const fia_tensor_list *lists[2] = {a->key, a->value};
    for (int l = 0; l < 2; l++)
        for (int32_t i = 0; i < lists[l]->count && i < FIA_MAX_TENSOR_LIST; i++) {
            fia_dtype d = lists[l]->tensors[i]->dtype;
            if (!dt_in(d, LIST(FIA_DT_INT8, FIA_DT_FP16, FIA_DT_BF16,
                               FIA_DT_INT4, FIA_DT_INT32)))
                BADTYPE(l ? "T_VALUE" : "T_KEY",
                        "%s[%d] dtype %s not in {int8, fp16, bf16, int4, int32}",
                        l ? "value" : "key", (int)i, dtn(d));
        }
    if (a->pse && !dt_in(a->pse->dtype, LIST(FIA_DT_FP16, FIA_DT_BF16)))
        BADTYPE("T_PSE", "pse_shift dtype %s not in {fp16, bf16}",
                dtn(a->pse->dtype));
    /* REG_OP registers FLOAT16 for atten_mask; tiling rejects it later
     * (RELEASED), see S_MASK_DTYPE. */
    if (a->mask && !dt_in(a->mask->dtype, LIST(FIA_DT_BOOL, FIA_DT_INT8,
                                               FIA_DT_UINT8, FIA_DT_FP16)))
        BADTYPE("T_MASK", "atten_mask dtype %s not in {bool, int8, uint8, fp16}",
                dtn(a->mask->dtype));
    fia_dtype od = a->out->dtype;
    if (!dt_in(od, LIST(FIA_DT_FP16, FIA_DT_INT8, FIA_DT_BF16)))
        BADTYPE("T_OUT", "attention_out dtype %s not in {fp16, int8, bf16}",
                dtn(od));
    /* REG_OP: softmax_lse is FLOAT32 only; a registered-list miss is a
     * dtype error (161002 in both profiles, RELEASED "Return codes"). */
    if (a->lse_flag && a->lse && a->lse->dtype != FIA_DT_FP32)
        BADTYPE("T_LSE", "softmax_lse dtype %s not in {fp32}",
                dtn(a->lse->dtype));
    /* The optional tensors, REG_OP order. */
    static const struct { fia_dtype d[3]; int n; } allowed[16] = {
        {{FIA_DT_UINT64, FIA_DT_FP32}, 2},              /* dequant_scale1 */
        {{FIA_DT_FP32}, 1},                             /* quant_scale1 */
        {{FIA_DT_UINT64, FIA_DT_FP32}, 2},              /* dequant_scale2 */
        {{FIA_DT_FP32, FIA_DT_BF16}, 2},                /* quant_scale2 */
        {{FIA_DT_FP32, FIA_DT_BF16}, 2},                /* quant_offset2 */
        {{FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32}, 3},   /* antiquant_scale */
        {{FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32}, 3},   /* antiquant_offset */
        {{FIA_DT_INT32}, 1},                            /* block_table */
        {{FIA_DT_INT64}, 1},                            /* query_padding_size */
        {{FIA_DT_INT64}, 1},                            /* kv_padding_size */
        {{FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32}, 3},   /* key_antiquant_scale */
        {{FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32}, 3},   /* key_antiquant_offset */
        {{FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32}, 3},   /* value_antiquant_scale */
        {{FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32}, 3},   /* value_antiquant_offset */
        {{FIA_DT_INT8, FIA_DT_FP16, FIA_DT_BF16}, 3},   /* key_shared_prefix */
        {{FIA_DT_INT8, FIA_DT_FP16, FIA_DT_BF16}, 3},   /* value_shared_prefix */
    };
    for (int i = 0; i < 16; i++)
        if (a->opt[i] && !dt_in(a->opt[i]->dtype, allowed[i].d,
                                (size_t)allowed[i].n))
            BADTYPE("T_OPTIONAL", "%s dtype %s not in its registered list",
                    a->opt_name[i], dtn(a->opt[i]->dtype));
    return FIA_OK;
}

/* Layer 3: documented features fast/ does not model yet (semantics.md). */
static fia_status check_not_modeled(const fast_args *a)
{
    /* RELEASED "Silent normalisations": an empty pse is treated as absent. */
    if (present(a->pse))
        NOTMOD("M_PSE", "pse_shift is not modeled yet");
    for (int i = 0; i < 16; i++)
        if (a->opt[i])
            NOTMOD("M_OPTIONAL", "%s is not modeled yet", a->opt_name[i]);
    if (a->prefix_len)
        NOTMOD("M_OPTIONAL", "actual_shared_prefix_len is not modeled yet");
    if (a->key->count > 1 || a->value->count > 1)
        NOTMOD("M_TENSORLIST", "key/value lists with %d/%d tensors are not "
               "modeled yet", (int)a->key->count, (int)a->value->count);
    fia_dtype qd = a->query->dtype;
    if (qd == FIA_DT_INT8)
        NOTMOD("M_QUANT", "int8 query is not modeled yet");
    const fia_tensor_list *lists[2] = {a->key, a->value};
    for (int l = 0; l < 2; l++)
        if (lists[l]->count == 1 && lists[l]->tensors[0]->dtype != FIA_DT_FP16 &&
            lists[l]->tensors[0]->dtype != FIA_DT_BF16)
            NOTMOD("M_QUANT", "%s dtype %s (quantized) is not modeled yet",
                   l ? "value" : "key", dtn(lists[l]->tensors[0]->dtype));
    if (a->out->dtype == FIA_DT_INT8)
        NOTMOD("M_QUANT", "int8 attention_out is not modeled yet");
    static const char *const later[] = {"TND", "NTD_TND", "TND_NTD", "NTD",
                                        "BSH_NBSD", "BSND_NBSD", "BNSD_NBSD"};
    if (a->layout)
        for (size_t i = 0; i < sizeof later / sizeof later[0]; i++)
            if (strcmp(a->layout, later[i]) == 0)
                NOTMOD("M_LAYOUT", "input_layout %s (003) is not modeled yet",
                       a->layout);
    return FIA_OK;
}

/* Checks an actual_seq_lengths(_kv) array (002 参数说明: length 1 is
 * broadcast, length >= B takes the first B, other lengths unsupported; each
 * value not above the tensor's S).  Negative values are rejected: a length
 * cannot be negative (003 states it for TND; 002 is silent, decided here). */
static fia_status check_lengths(const fia_int_array *arr, int64_t B, int64_t S,
                                const char *what, const char *id_len,
                                const char *id_val)
{
    if (arr->count <= 0)
        REJECT(id_len, "%s has length %lld (must be 1 or >= B = %lld)", what,
               (long long)arr->count, (long long)B);
    if (arr->count != 1 && arr->count < B)
        REJECT(id_len, "%s has length %lld (must be 1 or >= B = %lld)", what,
               (long long)arr->count, (long long)B);
    if (arr->values == NULL)
        REJECT(id_len, "%s has %lld elements but no values", what,
               (long long)arr->count);
    int64_t n = arr->count == 1 ? 1 : B;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = arr->values[i];
        if (v < 0 || v > S)
            REJECT(id_val, "%s[%lld] = %lld outside [0, %lld]", what,
                   (long long)i, (long long)v, (long long)S);
    }
    return FIA_OK;
}

/* Mask shape rules (002 attenMaskOptional, 约束说明 sparseMode).  The
 * documents allow the last two dims to be aligned up ("可以向上取到对齐的S");
 * we accept any rows >= Q_S and cols >= KV_S rather than only the 16/32
 * alignments (decision: the reading of docs/semantics.md).  The batch dim
 * may be B or 1 for Q_S > 1 (the listed shapes); for Q_S = 1 the listed
 * shapes all start with B, so only B is accepted (1 when B = 1). */
static fia_status check_mask(const fast_args *a, fast_plan *p)
{
    const fia_tensor *m = a->mask;
    int r = m->ndim;
    const int64_t *s = m->shape;
    int64_t bdim = -1, rows, cols, mid = 1, numel;
    if (!shape_numel(m, &numel))
        REJECT("S_MASK_SHAPE", "atten_mask shape is invalid (rank %d, "
               "negative dim or int64 overflow)", r);
    if (m->dtype == FIA_DT_FP16)
        REJECT("S_MASK_DTYPE", "atten_mask fp16 is registered but not "
               "supported (002 attenMaskOptional: BOOL/INT8/UINT8)");
    if (p->Q_S > 1 && p->sparse_mode >= 2) {
        /* 002 约束说明 Q_S>1: (S,S), (1,S,S) or (1,1,S,S) with S = 2048. */
        bool ok = (r == 2) || (r == 3 && s[0] == 1) ||
                  (r == 4 && s[0] == 1 && s[1] == 1);
        if (!ok || s[r - 2] != 2048 || s[r - 1] != 2048)
            REJECT("S_MASK_SHAPE", "sparse_mode %d needs a 2048x2048 "
                   "compressed atten_mask ((S,S), (1,S,S) or (1,1,S,S))",
                   p->sparse_mode);
        p->mask = NULL; /* the mode's geometry is used, not the bits */
        return FIA_OK;
    }
    if (p->Q_S > 1) {
        if (r == 2) {
            rows = s[0], cols = s[1];
        } else if (r == 3) {
            bdim = s[0], rows = s[1], cols = s[2];
        } else if (r == 4) {
            bdim = s[0], mid = s[1], rows = s[2], cols = s[3];
        } else {
            REJECT("S_MASK_SHAPE", "atten_mask rank %d (Q_S > 1 takes "
                   "(Q_S,KV_S), (B|1,Q_S,KV_S) or (B|1,1,Q_S,KV_S))", r);
        }
        if ((bdim != -1 && bdim != 1 && bdim != p->B) || mid != 1 ||
            rows < p->Q_S || cols < p->KV_S)
            REJECT("S_MASK_SHAPE", "atten_mask shape does not cover "
                   "(B=%lld, Q_S=%lld, KV_S=%lld)", (long long)p->B,
                   (long long)p->Q_S, (long long)p->KV_S);
    } else {
        if (r == 2) {
            bdim = s[0], rows = 1, cols = s[1];
        } else if (r == 3) {
            bdim = s[0], rows = s[1], cols = s[2];
        } else if (r == 4) {
            bdim = s[0], mid = s[1], rows = s[2], cols = s[3];
        } else {
            REJECT("S_MASK_SHAPE", "atten_mask rank %d (Q_S = 1 takes "
                   "(B,KV_S), (B,1,KV_S) or (B,1,1,KV_S))", r);
        }
        /* 002 attenMaskOptional (Q_S = 1): (B,KV_S), (B,1,KV_S),
         * (B,1,1,KV_S) — one row; a taller mask was found accepted by
         * fuzz_params against MASK-007. */
        if (bdim != p->B || mid != 1 || rows != 1 || cols < p->KV_S)
            REJECT("S_MASK_SHAPE", "atten_mask shape does not cover "
                   "(B=%lld, 1, KV_S=%lld)", (long long)p->B,
                   (long long)p->KV_S);
    }
    p->mask = (const uint8_t *)m->data;
    p->mask_ss = cols;
    p->mask_sb = (bdim == -1 || (bdim == 1 && p->B != 1)) ? 0 : rows * cols;
    return FIA_OK;
}

/* Layer 4.  Fills the shape part of the plan. */
static fia_status check_semantics(const fast_args *a, fast_plan *p)
{
    const fia_tensor *q = a->query, *out = a->out;
    /* 002 约束说明: key/value tensor lists hold the tensors. */
    if (a->key->count < 1 || a->value->count < 1)
        REJECT("S_KV_LIST", "key/value lists must hold one tensor (have %d/%d)",
               (int)a->key->count, (int)a->value->count);
    const fia_tensor *k = a->key->tensors[0], *v = a->value->tensors[0];
    int64_t qn, kn, vn, on;

    /* 002 约束说明 入参为空的处理: an empty query returns at once, before
     * any tiling check (layout, ranks) runs; RELEASED "Degenerate shapes":
     * query empty with attention_out not empty is rejected.  Found by
     * fuzz_params against the rule table (OUT-N01). */
    if (shape_numel(q, &qn) && qn == 0) {
        if (!shape_numel(out, &on) || on != 0)
            REJECT("S_EMPTY_OUT", "query is empty but attention_out is not");
        p->empty = true;
        return FIA_OK;
    }

    /* 002 inputLayout: BSH, BSND, BNSD, BNSD_BSND. */
    if (a->layout == NULL)
        REJECT("S_LAYOUT", "input_layout is a nullptr");
    if (strcmp(a->layout, "BSH") == 0) p->layout = FAST_LAYOUT_BSH;
    else if (strcmp(a->layout, "BSND") == 0) p->layout = FAST_LAYOUT_BSND;
    else if (strcmp(a->layout, "BNSD") == 0) p->layout = FAST_LAYOUT_BNSD;
    else if (strcmp(a->layout, "BNSD_BSND") == 0) p->layout = FAST_LAYOUT_BNSD_BSND;
    else REJECT("S_LAYOUT", "input_layout \"%.32s\" not in {BSH, BSND, BNSD, "
                "BNSD_BSND}", a->layout);
    int rank = p->layout == FAST_LAYOUT_BSH ? 3 : 4;
    if (q->ndim != rank || !shape_numel(q, &qn))
        REJECT("S_QUERY_SHAPE", "query must be a valid rank-%d tensor for %s",
               rank, a->layout);
    p->B = q->shape[0];
    p->Q_S = p->layout == FAST_LAYOUT_BSH || p->layout == FAST_LAYOUT_BSND
                 ? q->shape[1] : q->shape[2];
    if (k->ndim != rank || !shape_numel(k, &kn) || v->ndim != rank ||
        !shape_numel(v, &vn))
        REJECT("S_KV_SHAPE", "key/value must be valid rank-%d tensors for %s",
               rank, a->layout);
    /* 002 约束说明: key and value shapes identical. */
    if (!same_shape(k, v))
        REJECT("S_KV_SHAPE", "key and value shapes differ");
    /* Q and KV dtypes consistent (002 数据类型推导; non-quantized path). */
    if (k->dtype != q->dtype || v->dtype != q->dtype)
        REJECT("S_KV_DTYPE", "key/value dtype %s/%s differs from query %s",
               dtn(k->dtype), dtn(v->dtype), dtn(q->dtype));
    p->dt = q->dtype;

    /* 002 numHeads / numKeyValueHeads. */
    if (a->num_heads <= 0)
        REJECT("S_NUM_HEADS", "num_heads %lld must be positive",
               (long long)a->num_heads);
    p->N = a->num_heads;
    switch (p->layout) {
    case FAST_LAYOUT_BSH:
        if (q->shape[2] % p->N != 0)
            REJECT("S_NUM_HEADS", "query H %lld not divisible by num_heads %lld",
                   (long long)q->shape[2], (long long)p->N);
        p->D = q->shape[2] / p->N;
        break;
    case FAST_LAYOUT_BSND:
        if (q->shape[2] != p->N)
            REJECT("S_NUM_HEADS", "query N %lld != num_heads %lld",
                   (long long)q->shape[2], (long long)p->N);
        p->D = q->shape[3];
        break;
    default:
        if (q->shape[1] != p->N)
            REJECT("S_NUM_HEADS", "query N %lld != num_heads %lld",
                   (long long)q->shape[1], (long long)p->N);
        p->D = q->shape[3];
        break;
    }
    if (a->num_kv_heads < 0)
        REJECT("S_KV_HEADS", "num_key_value_heads %lld is negative",
               (long long)a->num_kv_heads);
    /* RELEASED: 0 means num_heads. */
    p->KV_N = a->num_kv_heads == 0 ? p->N : a->num_kv_heads;
    if (p->KV_N > p->N || p->N % p->KV_N != 0)
        REJECT("S_KV_HEADS", "num_heads %lld not a multiple of "
               "num_key_value_heads %lld", (long long)p->N, (long long)p->KV_N);
    p->group = p->N / p->KV_N;
    /* 002: ratio <= 64.  RELEASED: accepted on the fp16/bf16 non-quantized
     * path (the only path fast/ models), so only the DOC profile rejects. */
    if (p->group > 64 && fastGetStatusProfile() == FIA_PROFILE_DOC)
        REJECT("S_GQA_RATIO", "num_heads / num_key_value_heads = %lld > 64",
               (long long)p->group);
    if (k->shape[0] != p->B)
        REJECT("S_KV_SHAPE", "key batch %lld != query batch %lld",
               (long long)k->shape[0], (long long)p->B);
    int64_t kv_d;
    switch (p->layout) {
    case FAST_LAYOUT_BSH:
        if (k->shape[2] % p->KV_N != 0)
            REJECT("S_KV_HEADS", "key H %lld not divisible by "
                   "num_key_value_heads %lld", (long long)k->shape[2],
                   (long long)p->KV_N);
        p->KV_S = k->shape[1];
        kv_d = k->shape[2] / p->KV_N;
        break;
    case FAST_LAYOUT_BSND:
        if (k->shape[2] != p->KV_N)
            REJECT("S_KV_HEADS", "key N %lld != num_key_value_heads %lld",
                   (long long)k->shape[2], (long long)p->KV_N);
        p->KV_S = k->shape[1];
        kv_d = k->shape[3];
        break;
    default:
        if (k->shape[1] != p->KV_N)
            REJECT("S_KV_HEADS", "key N %lld != num_key_value_heads %lld",
                   (long long)k->shape[1], (long long)p->KV_N);
        p->KV_S = k->shape[2];
        kv_d = k->shape[3];
        break;
    }
    if (kv_d != p->D)
        REJECT("S_KV_D", "key/value head dim %lld != query head dim %lld",
               (long long)kv_d, (long long)p->D);

    /* 002 约束说明 (Q_S>1 and Q_S=1): B <= 65536, N <= 256, D <= 512.
     * (000 says B <= 65535 for Q_S > 1; 002, the C API, wins.) */
    if (p->B > 65536)
        REJECT("S_B_MAX", "batch %lld > 65536", (long long)p->B);
    if (p->N > 256)
        REJECT("S_N_MAX", "num_heads %lld > 256", (long long)p->N);
    if (p->D > 512)
        REJECT("S_D_MAX", "head dim %lld > 512", (long long)p->D);
    bool prefill = p->Q_S > 1;
    if (prefill) {
        /* 002 约束说明 Q_S>1: N*D < 65535 for BSH/BSND. */
        if ((p->layout == FAST_LAYOUT_BSH || p->layout == FAST_LAYOUT_BSND) &&
            p->N * p->D >= 65535)
            REJECT("S_ND_MAX", "N*D = %lld must be < 65535 for %s",
                   (long long)(p->N * p->D), a->layout);
        /* 002 约束说明 Q_S>1: fp16/bf16 need D % 16 == 0 (RELEASED: Q_S = 1
         * accepts any D).  This also makes the "B <= 128 when D is not
         * aligned" rule unreachable. */
        if (p->D % 16 != 0)
            REJECT("S_D_ALIGN", "head dim %lld not 16-aligned (Q_S > 1)",
                   (long long)p->D);
        /* 002 约束说明 Q_S>1: S <= 20971520. */
        if (p->Q_S > 20971520 || p->KV_S > 20971520)
            REJECT("S_S_MAX", "Q_S %lld / KV_S %lld above 20971520",
                   (long long)p->Q_S, (long long)p->KV_S);
    } else if (p->layout == FAST_LAYOUT_BNSD_BSND) {
        /* 002 inputLayout: BNSD_BSND only with Q_S > 1. */
        REJECT("S_LAYOUT_QS1", "BNSD_BSND needs Q_S > 1");
    } else if (p->KV_S > 262144) {
        /* 001 and 003 (Q_S = 1 constraints): KV_S <= 262144; 002 is
         * silent.  Found by fiacheck's corpus against the rule table. */
        REJECT("S_KV_S_MAX_QS1", "KV_S %lld above 262144 (Q_S = 1)",
               (long long)p->KV_S);
    }

    /* 002 attentionOut: dtype (int8 refused in layer 3) and shape. */
    if (out->dtype != q->dtype)
        REJECT("S_OUT_DTYPE", "attention_out dtype %s != query dtype %s",
               dtn(out->dtype), dtn(q->dtype));
    bool shape_ok;
    if (p->layout == FAST_LAYOUT_BNSD_BSND)
        shape_ok = out->ndim == 4 && out->shape[0] == p->B &&
                   out->shape[1] == p->Q_S && out->shape[2] == p->N &&
                   out->shape[3] == p->D;
    else
        shape_ok = same_shape(out, q);
    if (!shape_ok)
        REJECT("S_OUT_SHAPE", "attention_out shape does not match %s",
               p->layout == FAST_LAYOUT_BNSD_BSND ? "[B, Q_S, N, D]"
                                                  : "the query shape");
    if (!shape_numel(out, &on))
        REJECT("S_OUT_SHAPE", "attention_out shape is invalid");
    /* 002 softmaxLse: with the flag, fp32 [B, N, Q_S, 1]. */
    if (a->lse_flag) {
        const fia_tensor *l = a->lse;
        if (l->dtype != FIA_DT_FP32)
            REJECT("S_LSE_DTYPE", "softmax_lse dtype %s != fp32", dtn(l->dtype));
        if (l->ndim != 4 || l->shape[0] != p->B || l->shape[1] != p->N ||
            l->shape[2] != p->Q_S || l->shape[3] != 1)
            REJECT("S_LSE_SHAPE", "softmax_lse shape must be [B, N, Q_S, 1]");
        p->lse = (float *)l->data;
        p->lse_numel = p->B * p->N * p->Q_S; /* <= numel(query) */
    }

    /* 002 innerPrecise: 0..3; Q_S = 1 only 0 and 1. */
    if (a->inner_precise < 0 || a->inner_precise > 3)
        REJECT("S_INNER_PRECISE", "inner_precise %lld not in 0..3",
               (long long)a->inner_precise);
    if (!prefill && a->inner_precise > 1)
        REJECT("S_INNER_PRECISE", "inner_precise %lld not in 0..1 (Q_S = 1)",
               (long long)a->inner_precise);
    p->inner_precise = (int)a->inner_precise;

    /* 002 sparseMode: Q_S > 1 supports 0..4; ignored when Q_S = 1. */
    if (prefill && (a->sparse_mode < 0 || a->sparse_mode > 4))
        REJECT("S_SPARSE_MODE", "sparse_mode %lld not in 0..4",
               (long long)a->sparse_mode);
    p->sparse_mode = prefill ? (int)a->sparse_mode : 0;
    /* RELEASED: a float16 mask passes the registered list and tiling
     * rejects it — by its dtype, so even an empty one (MASK-002). */
    if (a->mask != NULL && a->mask->dtype == FIA_DT_FP16)
        REJECT("S_MASK_DTYPE", "atten_mask fp16 is registered but not "
               "supported (002 attenMaskOptional: BOOL/INT8/UINT8)");
    p->mask_given = present(a->mask); /* RELEASED: empty mask = absent */
    /* 002 sparseMode: mode 1 needs the full mask, 2/3/4 the compressed one
     * (约束说明: "不传入attenMask...报错"). */
    if (prefill && p->sparse_mode >= 1 && !p->mask_given)
        REJECT("S_MASK_REQUIRED", "sparse_mode %d needs an atten_mask",
               p->sparse_mode);
    if (p->mask_given) {
        fia_status st = check_mask(a, p);
        if (st != FIA_OK)
            return st;
    }

    /* 002 actualSeqLengths (ignored when Q_S = 1) and actualSeqLengthsKv. */
    if (prefill && a->asl) {
        fia_status st = check_lengths(a->asl, p->B, p->Q_S,
                                      "actual_seq_lengths", "S_ASL_LEN",
                                      "S_ASL_VALUE");
        if (st != FIA_OK)
            return st;
    }
    if (a->aslkv) {
        fia_status st = check_lengths(a->aslkv, p->B, p->KV_S,
                                      "actual_seq_lengths_kv", "S_ASLKV_LEN",
                                      "S_ASLKV_VALUE");
        if (st != FIA_OK)
            return st;
    }
    p->q_numel = qn;
    p->kv_numel = kn;
    p->out_numel = on;
    return FIA_OK;
}

/* Layers 2 to 4; fills the shape part of the plan. */
fia_status fast_validate(const fast_args *a, fast_plan *p)
{
    fia_status st = check_dtypes(a);
    if (st == FIA_OK)
        st = check_not_modeled(a);
    if (st == FIA_OK)
        st = check_semantics(a, p);
    return st;
}
