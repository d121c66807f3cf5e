/* ref/ reading, feature "prefix": the shared system prefix
 * (key_shared_prefix, value_shared_prefix, actual_shared_prefix_len;
 * docs/features/prefix.md).
 *
 * The prefix tensors are a key and a value of batch 1 in the query's
 * layout, S_p rows shared by every batch:
 *
 *   BSH        [1, S_p, KV_N*D]   element (kn, j, d) at (j KV_N + kn) D + d
 *   BSND       [1, S_p, KV_N, D]  likewise
 *   BNSD(_BSND) [1, KV_N, S_p, D] element (kn, j, d) at (kn S_p + j) D + d
 *
 * P, the length used, is actual_shared_prefix_len's one value when given,
 * else S_p (002 actualSharedPrefixLenOptional).  Batch b reads
 * kv_len'[b] = P + kv_len[b] logical keys (ref_kv_len): key j < P is row j
 * of the prefix (of the KV head's), key P + j the batch's own key j
 * (ref_load_kv_rows).  Every key rule, the walk and the degenerate rows read
 * the logical key over [0, kv_len'[b]) exactly as without a prefix: the
 * full mask at column j' (PREFIX-009 makes it P + KV_S wide; keys_mask.c),
 * the sparse band with kv_len' for kv_len (mode 3's next = kv + P - q,
 * RELEASED "Silent normalisations"), sparse 3's own correction when
 * q_len > kv_len'; a batch with kv_len 0 but P > 0 has keys, kv_len' = 0 is
 * the empty sequence.  P = 0 (an empty prefix, or a length of 0) is the call
 * without a prefix.
 *
 * Not modeled: Q_S = 1 with a prefix and a (non-empty) mask: no document
 * says which mask columns the prefix keys read.  The other refusals (the
 * length without the tensors, a token layout) are read_not_modeled.c's.
 * The documented rejections the reference cannot read through (one tensor
 * alone, shapes or dtypes not the key's, the length outside [0, S_p], page
 * attention, a tensor list, a left-padding scene; PREFIX-001..007,
 * PAGED-003, LIST-001, PAD-X02) are FIA_ERR_PARAM_INVALID here: the
 * oracle rejects them before the reference runs. */
#include "ref_internal.h"

/* S_p of prefix tensor t (rank, batch, heads and D checked) or -1. */
static int64_t prefix_s(const ref_problem *p, const fia_tensor *t)
{
    const int bsx = p->layout == REF_LAYOUT_BSH || p->layout == REF_LAYOUT_BSND;
    if (t->ndim != (p->layout == REF_LAYOUT_BSH ? 3 : 4) || t->shape[0] != 1)
        return -1;
    int heads;
    if (p->layout == REF_LAYOUT_BSH)
        heads = t->shape[2] == p->KV_N * p->D;
    else
        heads = t->shape[bsx ? 2 : 1] == p->KV_N && t->shape[3] == p->D;
    int64_t s = t->shape[bsx ? 1 : 2];
    return heads && s >= 0 && s < REF_DIM_LIMIT ? s : -1;
}

/* Both prefix tensors readable as one prefix of S_p rows (checked); the
 * call's key dtype. */
static fia_status prefix_tensors(ref_problem *p, const fia_case_data *d,
                                 fia_error *err)
{
    p->kp = fia_case_data_tensor(d, FIA_SLOT_KEY_SHARED_PREFIX);
    p->vp = fia_case_data_tensor(d, FIA_SLOT_VALUE_SHARED_PREFIX);
    if (p->kp == NULL || p->vp == NULL)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "key_shared_prefix and "
                        "value_shared_prefix are given together (PREFIX-001)");
    if (p->paged || p->kv_list || ref_pad_scene(p))
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "the shared prefix takes "
                        "no %s (002 prefix相关参数约束)",
                        p->paged ? "page attention"
                        : p->kv_list ? "key/value tensor list"
                                     : "left padding");
    if (p->kp->dtype != p->k->dtype || p->vp->dtype != p->k->dtype)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "the prefix tensors' "
                        "dtype is not the key's (PREFIX-002)");
    const int64_t ks = prefix_s(p, p->kp), vs = prefix_s(p, p->vp);
    if (ks < 0 || vs != ks)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "the prefix tensors are "
                        "not [1, S_p, ...] with the key's heads and D in the "
                        "layout, of one S (PREFIX-002..005)");
    if (ks > 0 && (p->kp->data == NULL || p->vp->data == NULL))
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "the prefix tensors have "
                        "no data");
    p->S_p = ks;
    return FIA_OK;
}

fia_status ref_read_prefix(ref_problem *p, const fia_case *c,
                           const fia_case_data *d, fia_error *err)
{
    (void)c;
    p->P = 0;
    if (!ref_slot_given(d, FIA_SLOT_KEY_SHARED_PREFIX) &&
        !ref_slot_given(d, FIA_SLOT_VALUE_SHARED_PREFIX))
        return FIA_OK; /* the length alone: read_not_modeled.c */
    /* a token layout with a prefix: refused in read_not_modeled.c */
    fia_status st = prefix_tensors(p, d, err);
    if (st != FIA_OK)
        return st;
    int64_t P = p->S_p;
    if (d->arr_present[FIA_ARR_ACTUAL_SHARED_PREFIX_LEN]) {
        const fia_int_array *a = &d->arr[FIA_ARR_ACTUAL_SHARED_PREFIX_LEN];
        if (a->count != 1 || a->values == NULL)
            return fia_fail(err, FIA_ERR_PARAM_INVALID,
                            "actual_shared_prefix_len has %lld values, not "
                            "one (PREFIX-006)", (long long)a->count);
        P = a->values[0];
        if (P < 0 || P > p->S_p)
            return fia_fail(err, FIA_ERR_PARAM_INVALID,
                            "actual_shared_prefix_len %lld outside [0, %lld] "
                            "(PREFIX-007)", (long long)P, (long long)p->S_p);
    }
    /* last, as the oracle's refusal: only a call every rule accepts */
    if (p->decode && ref_slot_given(d, FIA_SLOT_ATTEN_MASK))
        return fia_fail(err, FIA_ERR_NOT_MODELED, "not modeled yet: a shared "
                        "prefix with an atten_mask at Q_S = 1 (which mask "
                        "columns the prefix keys read)");
    p->P = P;
    return FIA_OK;
}

int64_t ref_kv_len(const ref_problem *p, int64_t b)
{
    return p->P + p->kv_len[b];
}

int64_t ref_prefix_index(const ref_problem *p, int64_t kn, int64_t j,
                         int64_t dd)
{
    if (p->layout == REF_LAYOUT_BSH || p->layout == REF_LAYOUT_BSND)
        return (j * p->KV_N + kn) * p->D + dd;
    return (kn * p->S_p + j) * p->D + dd;
}
