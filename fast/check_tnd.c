/* tnd: the 003 token layouts TND, NTD_TND, TND_NTD and the released code's
 * NTD (003 §约束说明, "TND、TND_NTD、NTD_TND场景下...的综合限制").
 *
 * No batch axis: query [T, N, D] (TND, TND_NTD) or [N, T, D] (NTD,
 * NTD_TND), key and value alike with their own T; actual_seq_lengths(_kv)
 * hold cumulative token counts and their count is B.  The plan reads batch
 * b's rows from token q_tok[b] on (the executor expands the counts); Q_S
 * and KV_S are the longest batch's lengths.  Value's head dim Dv may be
 * below the query's (003: TND 192 with 128; attention_out then has
 * value's D, 003 §返回值说明): plan_tnd.c lays the run out.  Not modeled:
 * the *_NBSD outputs without rope (the batched layouts', check_layout.c;
 * layer 6 here, the feature's NM row). */
#include "validate.h"

#define TND_T_MAX ((int64_t)1 << 20) /* "T小于等于1M" */
#define TND_B_MAX 4096               /* elements of each length array */

bool fast_token_layout(const char *layout, bool *q_ntd, bool *o_ntd)
{
    static const struct {
        const char *name;
        bool q_ntd, o_ntd;
    } tab[] = {{"TND", false, false},
               {"NTD", true, true},
               {"TND_NTD", false, true},
               {"NTD_TND", true, false}};
    for (size_t i = 0; layout && i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(layout, tab[i].name) == 0) {
            if (q_ntd)
                *q_ntd = tab[i].q_ntd;
            if (o_ntd)
                *o_ntd = tab[i].o_ntd;
            return true;
        }
    return false;
}

/* Layer 3.  What the token layouts do not support (003: "不支持tensorlist、
 * pse、page attention、伪量化、全量化、后量化"), before "not modeled". */
fia_status fast_check_tnd_exclusions(const fast_args *a, fast_plan *p,
                                     fia_error *err)
{
    (void)p;
    if (!fast_token_layout(a->layout, NULL, NULL))
        return FIA_OK;
    const fia_dtype qd = a->query->dtype, kd = a->key->tensors[0]->dtype;
    if (a->key->count != 1 || a->value->count != 1)
        return FAST_REJECT("S_TND_LIST", "%s takes no key/value tensor lists",
                           a->layout);
    if (a->pse != NULL)
        return FAST_REJECT("S_TND_PSE", "%s takes no pse_shift", a->layout);
    const bool rope = a->opt[FAST_OPT_QUERY_ROPE] || a->opt[FAST_OPT_KEY_ROPE];
    if (a->opt[FAST_OPT_BLOCK_TABLE] && !rope) /* MLA's (D = 512) */
        return FAST_REJECT("S_TND_PAGED", "%s takes no page attention without "
                           "rope", a->layout);
    /* (with an int8 query the separate set is 003's full quantization's
     * dequant_scale_key / _value: S_TND_QUANT below) */
    if (a->opt[FAST_OPT_ANTIQUANT_SCALE] || a->opt[FAST_OPT_ANTIQUANT_OFFSET] ||
        (qd != FIA_DT_INT8 &&
         (a->opt[FAST_OPT_KEY_ANTIQUANT_SCALE] ||
          a->opt[FAST_OPT_KEY_ANTIQUANT_OFFSET] ||
          a->opt[FAST_OPT_VALUE_ANTIQUANT_SCALE] ||
          a->opt[FAST_OPT_VALUE_ANTIQUANT_OFFSET] ||
          kd == FIA_DT_INT8 || kd == FIA_DT_INT4 || kd == FIA_DT_INT32)))
        return FAST_REJECT("S_TND_ANTIQUANT", "%s takes no key/value "
                           "antiquantization", a->layout);
    /* 003's dequant_scale_query is full quantization's too */
    if (qd == FIA_DT_INT8 || a->opt[FAST_OPT_DEQUANT_SCALE1] ||
        a->opt[FAST_OPT_QUANT_SCALE1] || a->opt[FAST_OPT_DEQUANT_SCALE2] ||
        a->opt[FAST_OPT_DEQUANT_SCALE_QUERY])
        return FAST_REJECT("S_TND_QUANT", "%s takes no full quantization",
                           a->layout);
    if (a->opt[FAST_OPT_QUANT_SCALE2] || a->opt[FAST_OPT_QUANT_OFFSET2])
        return FAST_REJECT("S_TND_OUT_QUANT", "%s takes no output quantization",
                           a->layout);
    return FIA_OK;
}

/* A cumulative count array of B values ending at T. */
static fia_status check_counts(const fast_args *a, const fia_int_array *arr,
                               int64_t T, const char *what, fia_error *err)
{
    int64_t prev = 0;
    for (int64_t i = 0; i < arr->count; i++) {
        const int64_t v = arr->values[i];
        if (v < prev)
            return FAST_REJECT("S_TND_SEQ", "%s[%lld] = %lld: not a cumulative "
                               "count (below %lld)", what, (long long)i,
                               (long long)v, (long long)prev);
        prev = v;
    }
    if (prev != T)
        return FAST_REJECT("S_TND_SEQ", "%s ends at %lld, the tensor holds %lld "
                           "tokens", what, (long long)prev, (long long)T);
    return FIA_OK;
}

/* The longest batch of a (valid) cumulative array. */
static int64_t longest(const fia_int_array *arr)
{
    int64_t m = 0, prev = 0;
    for (int64_t i = 0; i < arr->count; i++) {
        m = arr->values[i] - prev > m ? arr->values[i] - prev : m;
        prev = arr->values[i];
    }
    return m;
}

/* 003's head dims (D != 512, no rope) per profile: DOC TND 128/128,
 * 192/128, 192/192, NTD_TND 128/128, 192/128; CANN (RELEASED) 64/64,
 * 128/128, 192/128. */
static bool head_dims_ok(const fast_args *a, int64_t d, int64_t vd)
{
    if (a->profile == FIA_PROFILE_CANN)
        return (d == vd && (d == 64 || d == 128)) || (d == 192 && vd == 128);
    if (strcmp(a->layout, "NTD_TND") == 0)
        return (d == 128 || d == 192) && vd == 128;
    return (d == 128 && vd == 128) || (d == 192 && (vd == 128 || vd == 192));
}

/* A paged key/value (MLA, query D 512: the layer-3 row let no other
 * through): caches of one shape, read by check_paged.c; value's D is the
 * query's (the cache's). */
static fia_status check_paged_kv(const fast_args *a, fast_plan *p,
                                 fia_error *err)
{
    const fia_tensor *k = a->key->tensors[0], *v = a->value->tensors[0];
    int64_t kn;
    if (!fast_shape_numel(k, &kn) || !fast_same_shape(k, v))
        return FAST_REJECT("S_KV_SHAPE", "key and value caches must be valid "
                           "tensors of one shape");
    p->tnd.T_kv = 0; /* the keys are the cache's: actual_seq_lengths_kv */
    p->tnd.Dv = p->D;
    p->kv_numel = kn;
    p->k = k->data, p->v = v->data;
    return FIA_OK;
}

/* The shapes: ranks, heads, tokens and head dims.  Fills T, T_kv, D, Dv.
 * MLA with query D 512 (fast_mla512) replaces the D != 512 list: any
 * fp16/bf16 dtype, its own head dims (check_mla.c), TND_NTD, a paged
 * cache. */
static fia_status check_shapes(const fast_args *a, fast_plan *p,
                               fia_error *err)
{
    const fia_tensor *q = a->query;
    const fia_tensor *k = a->key->tensors[0], *v = a->value->tensors[0];
    const int ti = p->tnd.q_ntd ? 1 : 0, ni = 1 - ti;
    const bool mla512 = fast_mla512(a);
    int64_t qn, kn, vn;
    if (q->ndim != 3 || !fast_shape_numel(q, &qn))
        return FAST_REJECT("S_QUERY_SHAPE", "query must be a valid rank-3 tensor "
                           "for %s", a->layout);
    if (q->shape[ni] != p->N)
        return FAST_REJECT("S_NUM_HEADS", "query N %lld != num_heads %lld",
                           (long long)q->shape[ni], (long long)p->N);
    if (a->opt[FAST_OPT_BLOCK_TABLE]) {
        p->tnd.T = q->shape[ti], p->D = q->shape[2];
        if (p->tnd.T > TND_T_MAX)
            return FAST_REJECT("S_TND_T_MAX", "T %lld above 2^20",
                               (long long)p->tnd.T);
        p->q_numel = qn, p->q = q->data;
        return check_paged_kv(a, p, err);
    }
    if (k->ndim != 3 || !fast_shape_numel(k, &kn) || v->ndim != 3 ||
        !fast_shape_numel(v, &vn))
        return FAST_REJECT("S_KV_SHAPE", "key/value must be valid rank-3 tensors "
                           "for %s", a->layout);
    if (k->shape[ni] != p->KV_N || v->shape[ni] != p->KV_N)
        return FAST_REJECT("S_KV_HEADS", "key/value N %lld/%lld != "
                           "num_key_value_heads %lld", (long long)k->shape[ni],
                           (long long)v->shape[ni], (long long)p->KV_N);
    if (k->shape[ti] != v->shape[ti])
        return FAST_REJECT("S_KV_SHAPE", "key has %lld tokens, value %lld",
                           (long long)k->shape[ti], (long long)v->shape[ti]);
    p->tnd.T = q->shape[ti], p->tnd.T_kv = k->shape[ti];
    p->D = q->shape[2], p->tnd.Dv = v->shape[2];
    if (k->shape[2] != p->D)
        return FAST_REJECT("S_KV_D", "key head dim %lld != query head dim %lld",
                           (long long)k->shape[2], (long long)p->D);
    if (p->tnd.T > TND_T_MAX || p->tnd.T_kv > TND_T_MAX)
        return FAST_REJECT("S_TND_T_MAX", "T %lld / %lld above 2^20",
                           (long long)p->tnd.T, (long long)p->tnd.T_kv);
    if (q->dtype != FIA_DT_BF16 && !mla512)
        return FAST_REJECT("S_TND_DTYPE", "%s takes bf16 only, not %s", a->layout,
                           fast_dtype_name(q->dtype));
    if (!mla512 && !head_dims_ok(a, p->D, p->tnd.Dv))
        return FAST_REJECT("S_TND_D", "%s: query/value head dims %lld/%lld not "
                           "supported", a->layout, (long long)p->D,
                           (long long)p->tnd.Dv);
    if (strcmp(a->layout, "TND_NTD") == 0 && !mla512)
        return FAST_REJECT("S_TND_NTD", "TND_NTD is a D = 512 (MLA) layout: it "
                           "needs query_rope and key_rope");
    if (strcmp(a->layout, "NTD") == 0 && a->profile == FIA_PROFILE_DOC)
        return FAST_REJECT("S_LAYOUT", "NTD is no documented input_layout");
    (void)vn; /* value = key but for D (Dv <= D: head_dims_ok) */
    p->q_numel = qn, p->kv_numel = kn;
    p->q = q->data, p->k = k->data, p->v = v->data;
    return FIA_OK;
}

/* Layer 5 (after gqa: KV_N).  The shapes, the cumulative lengths and the
 * sparse modes of a token layout; fills the plan's tnd fields, B, Q_S,
 * KV_S and the sparse fields (check_sparse.c, check_seqlen.c and the
 * layout rows leave a token layout to this row). */
fia_status fast_check_tnd_shapes(const fast_args *a, fast_plan *p,
                                 fia_error *err)
{
    if (!p->tnd.on)
        return FIA_OK;
    fia_status st = check_shapes(a, p, err);
    if (st != FIA_OK)
        return st;
    if (a->asl == NULL || a->aslkv == NULL)
        return FAST_REJECT("S_TND_SEQ", "%s needs actual_seq_lengths and "
                           "actual_seq_lengths_kv", a->layout);
    if (a->asl->count < 1 || a->asl->count != a->aslkv->count ||
        a->asl->values == NULL || a->aslkv->values == NULL)
        return FAST_REJECT("S_TND_SEQ", "the length arrays have %lld and %lld "
                           "values (one count >= 1: the batch)",
                           (long long)a->asl->count, (long long)a->aslkv->count);
    if (a->asl->count > TND_B_MAX)
        return FAST_REJECT("S_TND_SEQ", "%lld batches, more than %d",
                           (long long)a->asl->count, TND_B_MAX);
    /* with page attention (MLA, D 512) actual_seq_lengths_kv holds each
     * batch's own length (003: "代表每个batch的实际长度"), not counts */
    const bool paged = a->opt[FAST_OPT_BLOCK_TABLE] != NULL;
    st = check_counts(a, a->asl, p->tnd.T, "actual_seq_lengths", err);
    if (st == FIA_OK && !paged)
        st = check_counts(a, a->aslkv, p->tnd.T_kv, "actual_seq_lengths_kv",
                          err);
    if (st != FIA_OK)
        return st;
    p->B = a->asl->count;
    p->Q_S = longest(a->asl);
    p->KV_S = 0;
    for (int64_t b = 0; paged && b < p->B; b++) {
        if (a->aslkv->values[b] < 0)
            return FAST_REJECT("S_TND_SEQ", "actual_seq_lengths_kv[%lld] = %lld is "
                               "negative", (long long)b,
                               (long long)a->aslkv->values[b]);
        p->KV_S = a->aslkv->values[b] > p->KV_S ? a->aslkv->values[b]
                                                : p->KV_S;
    }
    if (!paged)
        p->KV_S = longest(a->aslkv);
    /* sparse_mode 0 without a mask or 3 with one, whatever Q_S; mode 3
     * only where each batch's query is shorter than its key/value */
    const bool mask = fast_present(a->mask);
    if (a->sparse_mode != 0 && a->sparse_mode != 3)
        return FAST_REJECT("S_SPARSE_MODE", "%s takes sparse_mode 0 or 3, not "
                           "%lld", a->layout, (long long)a->sparse_mode);
    if (a->sparse_mode == 0 && mask)
        return FAST_REJECT("S_TND_MASK", "sparse_mode 0 with %s takes no "
                           "atten_mask", a->layout);
    if (a->sparse_mode == 3) {
        if (!mask)
            return FAST_REJECT("S_MASK_REQUIRED", "sparse_mode 3 needs an "
                               "atten_mask");
        int64_t prev_q = 0, prev_kv = 0;
        for (int64_t b = 0; b < p->B; b++) {
            const int64_t ql = a->asl->values[b] - prev_q;
            const int64_t kl = a->aslkv->values[b] - (paged ? 0 : prev_kv);
            if (ql >= kl)
                return FAST_REJECT("S_TND_CAUSAL", "sparse_mode 3: batch %lld's "
                                   "query length %lld is not below its key/value "
                                   "length %lld", (long long)b, (long long)ql,
                                   (long long)kl);
            prev_q = a->asl->values[b], prev_kv = a->aslkv->values[b];
        }
    }
    p->sparse.mode = (int)a->sparse_mode;
    /* mode 0: all; 3: from the lengths */
    p->sparse.pre = p->sparse.next = INT32_MAX;
    return FIA_OK;
}

/* Layer 6: an *_NBSD output without rope (profile doc: 003 lists them
 * for every call; profile cann rejects it, check_layout.c) after every
 * rule has judged the call: its output is the plan's NBSD strides, but
 * which rules of the other features (output quantization's scale shapes,
 * the paged cache's ranks, ...) follow the query's layout and which the
 * output's is read for MLA only, whose calls exclude those features. */
fia_status fast_check_tnd_nbsd(const fast_args *a, fast_plan *p,
                               fia_error *err)
{
    (void)p;
    if (fast_nbsd_layout(a->layout, NULL) && !fast_mla_call(a))
        return FAST_NOTMOD("M_LAYOUT", "input_layout %s without rope is not "
                           "modeled yet", a->layout);
    return FIA_OK;
}
