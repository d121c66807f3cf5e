/* ref/ reading, feature "tnd": the 003 token layouts.
 *
 *   TND, TND_NTD   query [T, N, D], key [T_kv, KV_N, D], value [.., Dv]
 *   NTD, NTD_TND   query [N, T, D], key [KV_N, T_kv, D], value [.., Dv]
 *   attention_out  [T, N, Dv] (TND, NTD_TND) or [N, T, Dv] (NTD, TND_NTD)
 *   softmax_lse    [T, N, 1]
 *
 * No batch axis: actual_seq_lengths and actual_seq_lengths_kv are
 * cumulative token counts (003 §参数说明 > actual_seq_qlen), their count
 * the batch B.  Batch b owns query tokens [q_tok[b], q_tok[b] + q_len[b])
 * with q_tok[b] the element before b (0 for the first), likewise key/value;
 * its row i is token q_tok[b] + i.  So element (b, n, i, d) of the query is
 * at ((q_tok[b] + i) N + n) D + d in TND and (n T + q_tok[b] + i) D + d in
 * NTD; the MLA rope inputs (read_mla.c) alike with Dr for D (the index
 * maps' width W).  Rows exist only for i < q_len[b] (no padding rows).  Q_S and KV_S
 * are the longest batch's lengths (the per-row buffers' sizes).
 *
 * With page attention (MLA, D = 512: TND, TND_NTD) the key and value are
 * caches read through the block table (read_paged.c) and
 * actual_seq_lengths_kv holds each batch's own length, not a count.
 *
 * Sparse modes 0 (no mask) and 3 read as in the batched layouts, per batch;
 * the reading is never the decode path's (sparse_mode is honoured when
 * every batch has one query token).
 *
 * Value's head dim Dv may be below the query's (003 TND list: Q_D = K_D =
 * 192 with V_D 128; RELEASED "Layouts, head dims": 192/128).  The score is
 * still scale * q.k over the D columns of query and key, the output
 *
 *   out[d] = sum_j softmax_j * v_j[d],   d < Dv,
 *
 * and attention_out is [T, N, Dv] / [N, T, Dv] (003 §返回值说明: the
 * output's D is value's).  No documented call has Dv above D; one is
 * refused as invalid, as is a narrower value with what 003's token list
 * excludes anyway (antiquant, full int8, rope: MLA's V_D is its D). */
#include <stdlib.h>
#include "ref_internal.h"

fia_status ref_read_tnd_name(ref_problem *p, const char *layout)
{
    if (!fia_layout_token_order(layout, &p->q_ntd, &p->o_ntd))
        return FIA_ERR_PARAM_INVALID;
    p->tnd = 1;
    return FIA_OK;
}

/* T (axis ti) and the head axis of a rank-3 tensor, checked. */
static fia_status token_dims(const fia_tensor *t, int ti, int64_t heads,
                             const char *what, int64_t *T, fia_error *err)
{
    if (t->ndim != 3 || fia_tensor_numel(t) < 0)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "%s must be a rank-3 tensor for a token layout", what);
    for (int i = 0; i < 3; i++)
        if (t->shape[i] >= REF_DIM_LIMIT)
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "dim beyond 2^40");
    if (t->shape[1 - ti] != heads)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "%s head axis %lld != %lld", what,
                        (long long)t->shape[1 - ti], (long long)heads);
    *T = t->shape[ti];
    return FIA_OK;
}

/* An array of B cumulative counts ending at T into start[b], len[b]. */
static fia_status cumulative(const fia_case_data *d, fia_array a, int64_t B,
                             int64_t T, int64_t *start, int64_t *len,
                             const char *what, fia_error *err)
{
    const fia_int_array *ar = &d->arr[a];
    int64_t prev = 0;
    for (int64_t b = 0; b < B; b++) {
        int64_t v = ar->values[b];
        if (v < prev)
            return fia_fail(err, FIA_ERR_PARAM_INVALID,
                            "%s[%lld] = %lld below the count before it "
                            "(%lld): not cumulative", what, (long long)b,
                            (long long)v, (long long)prev);
        start[b] = prev;
        len[b] = v - prev;
        prev = v;
    }
    if (prev != T)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "%s ends at %lld, not at T = %lld", what,
                        (long long)prev, (long long)T);
    return FIA_OK;
}

/* A paged token layout's actual_seq_lengths_kv (MLA, D = 512): each
 * batch's own length (003 TND list, D = 512: "代表每个batch的实际长度"), the
 * keys in the cache through the block table; kv_tok unused (0). */
static fia_status per_batch(const fia_case_data *d, fia_array a, int64_t B,
                            int64_t *start, int64_t *len, fia_error *err)
{
    const fia_int_array *ar = &d->arr[a];
    for (int64_t b = 0; b < B; b++) {
        if (ar->values[b] < 0)
            return fia_fail(err, FIA_ERR_PARAM_INVALID,
                            "actual_seq_lengths_kv[%lld] = %lld is negative",
                            (long long)b, (long long)ar->values[b]);
        start[b] = 0;
        len[b] = ar->values[b];
    }
    return FIA_OK;
}

static int64_t longest(const int64_t *len, int64_t B)
{
    int64_t m = 0;
    for (int64_t b = 0; b < B; b++)
        m = len[b] > m ? len[b] : m;
    return m;
}

fia_status ref_read_tnd_dims(ref_problem *p, const fia_case *c,
                             const fia_case_data *d, fia_error *err)
{
    int ti = p->q_ntd ? 1 : 0;
    int64_t vt, kd = 0, vd = 0;
    if (p->kv_list)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "a token layout takes no key/value list");
    fia_status st = token_dims(p->q, ti, p->N, "query", &p->T, err);
    if (st == FIA_OK && p->paged) { /* MLA's: a cache (read_paged.c) */
        if (!ref_shape_is(p->v, p->k->ndim, p->k->shape))
            return fia_fail(err, FIA_ERR_PARAM_INVALID,
                            "value cache shape differs from key's");
        st = ref_paged_key_dims(p, &kd, err);
        vd = kd;
    } else if (st == FIA_OK) {
        st = token_dims(p->k, ti, p->KV_N, "key", &p->T_kv, err);
        if (st == FIA_OK)
            st = token_dims(p->v, ti, p->KV_N, "value", &vt, err);
        if (st == FIA_OK && vt != p->T_kv)
            return fia_fail(err, FIA_ERR_PARAM_INVALID,
                            "value has %lld tokens, key %lld", (long long)vt,
                            (long long)p->T_kv);
        kd = p->k->shape[2], vd = p->v->shape[2];
    }
    if (st != FIA_OK)
        return st;
    p->D = p->q->shape[2];
    if (kd != p->D)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "key head dim %lld != query head dim %lld",
                        (long long)kd, (long long)p->D);
    if (vd > p->D || (vd != p->D && (p->aq || p->int8_quant)))
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "value head dim %lld with a query head dim %lld "
                        "(a token layout's value may only be narrower, "
                        "without quantization)", (long long)vd,
                        (long long)p->D);
    p->Dv = vd;
    if (c->attrs.sparse_mode != 0 && c->attrs.sparse_mode != 3)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "a token layout takes sparse_mode 0 or 3, not %lld",
                        (long long)c->attrs.sparse_mode);
    if (c->attrs.sparse_mode == 0 && ref_slot_given(d, FIA_SLOT_ATTEN_MASK))
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "a token layout takes no atten_mask in sparse_mode "
                        "0");
    /* B: the arrays' count (both given, equal) */
    if (!d->arr_present[FIA_ARR_ACTUAL_SEQ_LENGTHS] ||
        !d->arr_present[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV])
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "a token layout needs actual_seq_lengths and "
                        "actual_seq_lengths_kv");
    p->B = d->arr[FIA_ARR_ACTUAL_SEQ_LENGTHS].count;
    if (p->B < 1 || d->arr[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV].count != p->B)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "the length arrays have %lld and %lld values (one "
                        "count >= 1: the batch)", (long long)p->B,
                        (long long)d->arr[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV].count);
    size_t n = (size_t)p->B * sizeof(int64_t);
    p->q_len = malloc(n), p->kv_len = malloc(n);
    p->q_tok = malloc(n), p->kv_tok = malloc(n);
    if (!p->q_len || !p->kv_len || !p->q_tok || !p->kv_tok)
        return fia_fail(err, FIA_ERR_NOMEM, "out of memory");
    st = cumulative(d, FIA_ARR_ACTUAL_SEQ_LENGTHS, p->B, p->T, p->q_tok,
                    p->q_len, "actual_seq_lengths", err);
    if (st == FIA_OK && !p->paged)
        st = cumulative(d, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, p->B, p->T_kv,
                        p->kv_tok, p->kv_len, "actual_seq_lengths_kv", err);
    else if (st == FIA_OK)
        st = per_batch(d, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, p->B, p->kv_tok,
                       p->kv_len, err);
    if (st != FIA_OK)
        return st;
    p->Q_S = longest(p->q_len, p->B);
    p->KV_S = longest(p->kv_len, p->B);
    p->decode = 0;
    return FIA_OK;
}

/* Token t, head n of a [T, N, D] / [N, T, D] tensor. */
static int64_t token_index(int ntd, int64_t T, int64_t N, int64_t t,
                           int64_t n, int64_t D, int64_t dd)
{
    return (ntd ? n * T + t : t * N + n) * D + dd;
}

int64_t ref_tnd_q_index(const ref_problem *p, int64_t b, int64_t n,
                        int64_t i, int64_t dd, int64_t W)
{
    return token_index(p->q_ntd, p->T, p->N, p->q_tok[b] + i, n, W, dd);
}

int64_t ref_tnd_kv_index(const ref_problem *p, int64_t b, int64_t kn,
                         int64_t j, int64_t dd, int64_t W)
{
    return token_index(p->q_ntd, p->T_kv, p->KV_N, p->kv_tok[b] + j, kn, W,
                       dd);
}

int64_t ref_tnd_out_index(const ref_problem *p, int64_t b, int64_t n,
                          int64_t i, int64_t dd)
{
    return token_index(p->o_ntd, p->T, p->N, p->q_tok[b] + i, n, p->Dv, dd);
}
