/* ref/ reading, feature "tensor_list": key and value as lists of B tensors
 * of batch 1, one per batch (002 约束说明, 非连续场景), each of the layout's
 * rank with the call's KV heads and D and its own S_b: element (b, kn, j,
 * d) is element (0, kn, j, d) of tensor b,
 *
 *   BSH / BSND   (j * KV_N + kn) * D + d
 *   BNSD         (kn * S_b + j) * D + d
 *
 * Batch b's kv length defaults to S_b and may not exceed it; KV_S, what
 * masks are read against, is the largest S_b.  A list of one tensor is the
 * plain call. */
#include <stdlib.h>
#include "ref_internal.h"

fia_status ref_read_tensor_list(ref_problem *p, const fia_case *c,
                                const fia_case_data *d, fia_error *err)
{
    (void)c;
    const int32_t nk = d->n[FIA_SLOT_KEY], nv = d->n[FIA_SLOT_VALUE];
    if (nk <= 1 && nv <= 1)
        return FIA_OK;
    if (nk != nv)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "key and value lists of "
                        "%d and %d tensors", (int)nk, (int)nv);
    p->kv_list = 1;
    p->list_n = nk;
    p->klist = d->t[FIA_SLOT_KEY];
    p->vlist = d->t[FIA_SLOT_VALUE];
    return FIA_OK;
}

fia_status ref_list_key_dims(ref_problem *p, int64_t *kd, fia_error *err)
{
    const int bsx = p->layout == REF_LAYOUT_BSH || p->layout == REF_LAYOUT_BSND;
    const int rank = p->layout == REF_LAYOUT_BSH ? 3 : 4;
    if (p->list_n != p->B)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "%d key/value tensors "
                        "for B = %lld", (int)p->list_n, (long long)p->B);
    p->list_s = malloc((size_t)(p->B > 0 ? p->B : 1) * sizeof *p->list_s);
    if (p->list_s == NULL)
        return fia_fail(err, FIA_ERR_NOMEM, "out of memory");
    int64_t most = 0;
    for (int64_t b = 0; b < p->B; b++) {
        const fia_tensor *k = &p->klist[b], *v = &p->vlist[b];
        if (k->ndim != rank || !ref_shape_is(v, k->ndim, k->shape) ||
            fia_tensor_numel(k) < 0)
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "key/value[%lld] "
                            "must be rank-%d tensors of one shape",
                            (long long)b, rank);
        if (k->shape[0] != 1)
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "key[%lld] has batch "
                            "%lld (a list's tensors have batch 1)",
                            (long long)b, (long long)k->shape[0]);
        int64_t s, d;
        int heads;
        if (p->layout == REF_LAYOUT_BSH) {
            s = k->shape[1];
            heads = ref_kv_last_dim(p, k) % p->KV_N == 0;
            d = heads ? ref_kv_last_dim(p, k) / p->KV_N : -1;
        } else {
            s = bsx ? k->shape[1] : k->shape[2];
            heads = (bsx ? k->shape[2] : k->shape[1]) == p->KV_N;
            d = ref_kv_last_dim(p, k);
        }
        if (!heads || d != p->D || s >= REF_DIM_LIMIT)
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "key[%lld]'s heads or "
                            "D differ from the call's", (long long)b);
        if (fia_tensor_numel(k) > 0 && (k->data == NULL || v->data == NULL))
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "key/value[%lld] has "
                            "no data", (long long)b);
        p->list_s[b] = s;
        most = s > most ? s : most;
    }
    *kd = p->D;
    p->KV_S = most;
    return FIA_OK;
}

fia_status ref_read_tensor_list_lengths(ref_problem *p, const fia_case *c,
                                        const fia_case_data *d,
                                        fia_error *err)
{
    (void)c;
    if (!p->kv_list)
        return FIA_OK;
    const int given = d->arr_present[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    for (int64_t b = 0; b < p->B; b++) {
        if (!given)
            p->kv_len[b] = p->list_s[b];
        else if (p->kv_len[b] > p->list_s[b])
            return fia_fail(err, FIA_ERR_PARAM_INVALID,
                            "actual_seq_lengths_kv[%lld] = %lld beyond its "
                            "tensor's S %lld", (long long)b,
                            (long long)p->kv_len[b], (long long)p->list_s[b]);
    }
    return FIA_OK;
}

const fia_tensor *ref_k_tensor(const ref_problem *p, int64_t b)
{
    return p->kv_list ? &p->klist[b] : p->k;
}

const fia_tensor *ref_v_tensor(const ref_problem *p, int64_t b)
{
    return p->kv_list ? &p->vlist[b] : p->v;
}
