/* prefix: the shared system prefix (key_shared_prefix,
 * value_shared_prefix, actual_shared_prefix_len).  The registered dtypes;
 * the combination it refuses (all-int8 at Q_S > 1); its shape rules, like
 * any semantic rule; then what fast/ does not compute, and for the rest
 * the plan's prefix (phase two reads it: fast_kv_src, attention.c,
 * schedule.c). */
#include <string.h>
#include "validate.h"

static const fast_opt_input inputs[] = {
    {FAST_OPT_KEY_SHARED_PREFIX, 3, {FIA_DT_INT8, FIA_DT_FP16, FIA_DT_BF16}},
    {FAST_OPT_VALUE_SHARED_PREFIX, 3, {FIA_DT_INT8, FIA_DT_FP16, FIA_DT_BF16}},
};
#define NINPUTS (sizeof inputs / sizeof inputs[0])

/* Layer 2.  REG_OP: int8, fp16, bf16 (as key and value). */
fia_status fast_check_prefix_dtypes(const fast_args *a, fast_plan *p,
                                    fia_error *err)
{
    (void)p;
    return fast_check_opt_dtypes(a, inputs, NINPUTS, err);
}

/* Layer 3.  002 prefix相关参数约束 (Q_S > 1): "不支持输入qkv全部为int8的
 * 情况".  (Page attention, left padding and tensor lists refuse the prefix
 * in their own checks.) */
fia_status fast_check_prefix_exclusions(const fast_args *a, fast_plan *p,
                                        fia_error *err)
{
    (void)p;
    const int64_t q_s = fast_early_q_s(a);
    if ((a->opt[FAST_OPT_KEY_SHARED_PREFIX] ||
         a->opt[FAST_OPT_VALUE_SHARED_PREFIX]) &&
        q_s >= 0 && q_s != 1 && a->query->dtype == FIA_DT_INT8 &&
        a->key->tensors[0]->dtype == FIA_DT_INT8 &&
        a->value->tensors[0]->dtype == FIA_DT_INT8)
        return FAST_REJECT("S_PREFIX_INT8", "a shared prefix with an all-int8 "
                           "query, key and value");
    return FIA_OK;
}

/* The last dim of t covers the prefix and the keys. */
static bool covers(const fia_tensor *t, int64_t need)
{
    return t->shape[t->ndim - 1] >= need;
}

/* Layer 5, after the layout, the mask and the pse.  002 prefix相关参数约束
 * (both paths): both prefix tensors or neither; one rank and one dtype with
 * key and value; batch 1; the key's N and D (H for BSH); one S; the length
 * array of shape [1], within [0, S_p]; S_p + KV_S within the key's S
 * limit; at Q_S > 1 a full mask (sparse 0 / 1) and a pse cover the prefix
 * length + KV_S. */
fia_status fast_check_prefix_shape(const fast_args *a, fast_plan *p,
                                   fia_error *err)
{
    const fia_tensor *kp = a->opt[FAST_OPT_KEY_SHARED_PREFIX];
    const fia_tensor *vp = a->opt[FAST_OPT_VALUE_SHARED_PREFIX];
    if (a->prefix_len && a->prefix_len->count != 1)
        return FAST_REJECT("S_PREFIX_LEN", "actual_shared_prefix_len has %lld "
                           "values, not one", (long long)a->prefix_len->count);
    if (kp == NULL && vp == NULL)
        return FIA_OK;
    if (kp == NULL || vp == NULL)
        return FAST_REJECT("S_PREFIX_PAIR", "only one of key_shared_prefix and "
                           "value_shared_prefix");
    if (p->page.on || p->list.on || p->tnd.on)
        return FIA_OK; /* refused elsewhere, or not modeled */
    const fia_tensor *k = a->key->tensors[0], *v = a->value->tensors[0];
    if (kp->ndim != k->ndim || vp->ndim != k->ndim || v->ndim != k->ndim ||
        kp->dtype != k->dtype || vp->dtype != k->dtype ||
        v->dtype != k->dtype)
        return FAST_REJECT("S_PREFIX_RANK", "the prefix tensors' rank or dtype is "
                           "not the key's and value's");
    const bool bsh = p->layout == FAST_LAYOUT_BSH;
    const int sa = bsh || p->layout == FAST_LAYOUT_BSND ? 1 : 2;
    if (kp->shape[0] != 1 || vp->shape[0] != 1)
        return FAST_REJECT("S_PREFIX_BATCH", "a prefix tensor's batch is not 1");
    for (int d = 1; d < kp->ndim; d++)
        if (d != sa && (kp->shape[d] != k->shape[d] ||
                        vp->shape[d] != v->shape[d]))
            return FAST_REJECT("S_PREFIX_HEADS", "a prefix tensor's dim %d is not "
                               "the key's (value's)", d);
    const int64_t s_p = kp->shape[sa];
    if (vp->shape[sa] != s_p)
        return FAST_REJECT("S_PREFIX_S", "key_shared_prefix S %lld != "
                           "value_shared_prefix S %lld", (long long)s_p,
                           (long long)vp->shape[sa]);
    int64_t len = s_p;
    if (a->prefix_len) {
        if (a->prefix_len->values == NULL)
            return FAST_REJECT("S_PREFIX_LEN", "actual_shared_prefix_len has one "
                               "element but no values");
        len = a->prefix_len->values[0];
        if ((len < 0 || len > s_p) && !p->kv_return) /* check_order.c */
            return FAST_REJECT("S_PREFIX_LEN", "actual_shared_prefix_len %lld "
                               "outside [0, %lld]", (long long)len, (long long)s_p);
    }
    const int64_t limit = p->Q_S == 1 ? 262144 : 20971520;
    if (s_p > limit - p->KV_S)
        return FAST_REJECT("S_PREFIX_S_MAX", "prefix S %lld + key S %lld beyond "
                           "%lld", (long long)s_p, (long long)p->KV_S,
                           (long long)limit);
    if (p->Q_S == 1 || p->kv_return) /* cann's early return: check_order.c */
        return FIA_OK;
    const int64_t need = len + p->KV_S;
    if (fast_present(a->mask) && p->sparse.mode <= 1 &&
        !covers(a->mask, need))
        return FAST_REJECT("S_PREFIX_MASK", "atten_mask's last dim does not cover "
                           "the prefix length + key S = %lld", (long long)need);
    if (fast_present(a->pse) && a->pse->ndim == 4 && !covers(a->pse, need))
        return FAST_REJECT("S_PREFIX_PSE", "pse_shift's last dim does not cover "
                           "the prefix length + key S = %lld", (long long)need);
    return FIA_OK;
}

/* Layer 6: what is not computed (docs/features/prefix.md): the length
 * array without the prefix tensors (undocumented), a prefix with a token
 * layout (003 has no prefix), and at Q_S = 1 a prefix with a mask (the
 * decode mask rules ask only KV_S columns: no document says which the
 * prefix keys read) or with a pse narrower than P + KV_S (its rule asks
 * KV_S columns at Q_S = 1; 002 asks P + KV_S only at Q_S > 1, PREFIX-010:
 * a wider one is read at the logical column, prefix key j at j, own key j
 * at P + j, pse.md; a narrower one would be read past its end).
 * Everything else with both tensors (the rows above
 * checked them: the key's rank, dtype, heads and D, batch 1, the length
 * within [0, S_p]) is computed: fills P, S_p and the data; P = 0 (S_p = 0
 * or a length 0) is no prefix key. */
fia_status fast_check_prefix(const fast_args *a, fast_plan *p, fia_error *err)
{
    const fia_tensor *kp = a->opt[FAST_OPT_KEY_SHARED_PREFIX];
    const fia_tensor *vp = a->opt[FAST_OPT_VALUE_SHARED_PREFIX];
    if (kp == NULL && vp == NULL) {
        if (a->prefix_len)
            return FAST_NOTMOD("M_PREFIX_LEN", "actual_shared_prefix_len without "
                               "key_shared_prefix / value_shared_prefix is not "
                               "modeled");
        return FIA_OK;
    }
    if (kp == NULL || vp == NULL)
        return FIA_OK; /* S_PREFIX_PAIR (layer 5) */
    if (fast_token_layout(a->layout, NULL, NULL))
        return FAST_NOTMOD("M_PREFIX_LAYOUT", "a shared prefix with input_layout %s "
                           "is not modeled", a->layout);
    if (fast_early_q_s(a) == 1 && fast_present(a->mask))
        return FAST_NOTMOD("M_PREFIX_MASK", "a shared prefix with an atten_mask at "
                           "Q_S = 1 is not modeled (no document says which mask "
                           "columns the prefix keys read)");
    /* contiguous key/value in a 002 layout: page attention, lists and left
     * padding refused the prefix in layer 3 */
    const int sa = p->layout == FAST_LAYOUT_BSH ||
                   p->layout == FAST_LAYOUT_BSND ? 1 : 2;
    p->prefix.S_p = kp->shape[sa];
    p->prefix.P = a->prefix_len ? a->prefix_len->values[0] : p->prefix.S_p;
    /* the pse's shape passed its rules (layer 5): 4-D */
    if (p->Q_S == 1 && p->pse.on && a->pse->shape[3] < p->prefix.P + p->KV_S)
        return FAST_NOTMOD("M_PREFIX_PSE", "a shared prefix with a pse_shift of "
                           "%lld columns at Q_S = 1 is not modeled (it covers "
                           "fewer than the prefix length + key S = %lld; the "
                           "decode pse rules ask only key S)",
                           (long long)a->pse->shape[3],
                           (long long)(p->prefix.P + p->KV_S));
    p->prefix.k = kp->data;
    p->prefix.v = vp->data;
    if (p->prefix.P == 0)
        p->prefix.k = p->prefix.v = NULL; /* nothing read */
    return FIA_OK;
}
