/* tensor_list: key and value as lists of B tensors of batch 1, one per
 * batch, each with its own S (002 约束说明: "非连续场景下 key、value的
 * tensorlist中的batch只能为1，个数等于query的B，N和D需要相等... B不能大于
 * 256"; key and value tensors pairwise of one shape).  A list of one
 * tensor is the plain call.  The plan's list fields (fast_internal.h) say
 * where batch b's rows are; KV_S is the largest S_b; batch b's default
 * kv length is its own S_b (executor.c). */
#include "validate.h"

static bool is_list(const fast_args *a)
{
    return a->key->count > 1 || a->value->count > 1;
}

/* Layer 3: what lists exclude, before the not-modeled layer: the shared
 * prefix (002 prefix相关参数约束: "不支持tensorlist场景") and, at Q_S > 1,
 * separate key/value antiquant (002 kv伪量化参数分离).  (Page attention
 * with lists: check_paged.c.) */
fia_status fast_check_tensor_list_exclusions(const fast_args *a, fast_plan *p,
                                             fia_error *err)
{
    (void)p;
    if (!is_list(a))
        return FIA_OK;
    if (a->opt[FAST_OPT_KEY_SHARED_PREFIX] ||
        a->opt[FAST_OPT_VALUE_SHARED_PREFIX])
        return FAST_REJECT("S_LIST_PREFIX", "key/value tensor lists with a shared "
                           "prefix");
    const int64_t qs = fast_early_q_s(a);
    if (qs >= 0 && qs != 1 &&
        (a->opt[FAST_OPT_KEY_ANTIQUANT_SCALE] ||
         a->opt[FAST_OPT_VALUE_ANTIQUANT_SCALE] ||
         a->opt[FAST_OPT_KEY_ANTIQUANT_OFFSET] ||
         a->opt[FAST_OPT_VALUE_ANTIQUANT_OFFSET]))
        return FAST_REJECT("S_LIST_ANTIQUANT", "key/value tensor lists with "
                           "key/value antiquant parameters (Q_S > 1)");
    return FIA_OK;
}

/* Tensor i of the lists: rank, batch 1, heads and D under the layout, its
 * S into *s. */
static fia_status list_tensor(const fast_args *a, const fast_plan *p, int i,
                              int64_t *s, fia_error *err)
{
    const fia_tensor *k = a->key->tensors[i], *v = a->value->tensors[i];
    const int rank = p->layout == FAST_LAYOUT_BSH ? 3 : 4;
    int64_t n;
    if (k->ndim != rank || !fast_shape_numel(k, &n) || !fast_same_shape(k, v))
        return FAST_REJECT("S_LIST_SHAPE", "key/value[%d] must be rank-%d tensors "
                           "of one shape", i, rank);
    if (k->shape[0] != 1)
        return FAST_REJECT("S_LIST_BATCH", "key[%d] has batch %lld (a list's tensors "
                           "have batch 1)", i, (long long)k->shape[0]);
    bool heads_ok;
    /* an int32 tensor's last dim is an eighth of the real one (eight int4
     * each: docs/features/antiquant.md) */
    int64_t last = k->shape[rank - 1];
    if (k->dtype == FIA_DT_INT32)
        last = last > INT64_MAX / 8 ? -1 : last * 8;
    switch (p->layout) {
    case FAST_LAYOUT_BSH:
        *s = k->shape[1];
        heads_ok = last == p->KV_N * p->D;
        break;
    case FAST_LAYOUT_BSND:
        *s = k->shape[1];
        heads_ok = k->shape[2] == p->KV_N && last == p->D;
        break;
    default:
        *s = k->shape[2];
        heads_ok = k->shape[1] == p->KV_N && last == p->D;
        break;
    }
    if (!heads_ok)
        return FAST_REJECT("S_LIST_HEADS", "key[%d]'s heads or D differ from the "
                           "call's (KV_N %lld, D %lld)", i, (long long)p->KV_N,
                           (long long)p->D);
    /* every tensor of the lists has the first key's dtype: the query's,
     * or in the antiquant scene int8 / int4 (check_tensors.c checked the
     * first pair) */
    const fia_dtype want = a->key->tensors[0]->dtype;
    if (k->dtype != want || v->dtype != want)
        return FAST_REJECT("S_KV_DTYPE", "key/value[%d] dtype %s/%s differs from "
                           "key[0]'s %s", i, fast_dtype_name(k->dtype),
                           fast_dtype_name(v->dtype), fast_dtype_name(want));
    return FIA_OK;
}

/* Layer 5, in place of the key's reading by the layout (check_layout.c
 * leaves a list to this row): the lists against B, each tensor, the
 * lengths against each tensor's S, and KV_S.  None of it waits for
 * p->kv_return (check_order.c): the released code compares a list's
 * tensors, each key with its value, before its early return for a call
 * that reads no key (ops-transformer's IFATiling::KvShapePostProcess at
 * Q_S = 1, CheckKvPFA at Q_S > 1), unlike a single key and value's
 * shapes (check_layout.c). */
fia_status fast_check_tensor_list(const fast_args *a, fast_plan *p,
                                  fia_error *err)
{
    if (!is_list(a))
        return FIA_OK;
    if (a->key->count != a->value->count)
        return FAST_REJECT("S_LIST_COUNT", "key and value lists of %d and %d "
                           "tensors", (int)a->key->count, (int)a->value->count);
    if (p->B > FAST_LIST_MAX)
        return FAST_REJECT("S_LIST_B", "B %lld > %d with key/value tensor lists",
                           (long long)p->B, FAST_LIST_MAX);
    if (a->key->count != p->B)
        return FAST_REJECT("S_LIST_COUNT", "%d key/value tensors for B = %lld",
                           (int)a->key->count, (long long)p->B);
    int64_t kvs = 0;
    const bool bnsd = p->layout == FAST_LAYOUT_BNSD ||
                      p->layout == FAST_LAYOUT_BNSD_BSND;
    for (int i = 0; i < a->key->count; i++) {
        int64_t s = 0;
        fia_status st = list_tensor(a, p, i, &s, err);
        if (st != FIA_OK)
            return st;
        p->list.k[i] = a->key->tensors[i]->data;
        p->list.v[i] = a->value->tensors[i]->data;
        p->list.s[i] = s;
        p->list.sn[i] = bnsd ? s * p->D : p->D;
        kvs = s > kvs ? s : kvs;
    }
    /* each batch's length within its own tensor (the seqlen check reads
     * only the largest S) */
    const fia_int_array *kv = a->aslkv;
    if (kv != NULL && kv->values != NULL &&
        (kv->count == 1 || kv->count >= p->B))
        for (int64_t b = 0; b < p->B; b++) {
            int64_t len = kv->values[kv->count == 1 ? 0 : b];
            if (len > p->list.s[b])
                return FAST_REJECT("S_LIST_ASLKV", "actual_seq_lengths_kv[%lld] = "
                                   "%lld beyond its tensor's S %lld", (long long)b,
                                   (long long)len, (long long)p->list.s[b]);
        }
    p->list.on = true;
    p->KV_S = kvs;
    return FIA_OK;
}
