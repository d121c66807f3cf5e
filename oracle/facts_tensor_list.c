/* oracle/facts_tensor_list: key and value as lists of several tensors, one
 * per batch of batch 1 (002 约束说明: "非连续场景下 key、value的tensorlist中
 * 的batch只能为1，个数等于query的B"), each with its own S: batch b's default
 * kv length is its tensor's S, and KV_S (what masks and lengths are
 * checked against) the largest. */
#include "oracle_internal.h"

/* S of a key tensor read through the layout; -1 when its rank is not the
 * layout's. */
static int64_t tensor_s(const fia_oracle_facts *f, const fia_tensor *t)
{
    if (t->ndim != f->q_rank_want)
        return -1;
    return f->layout == ORC_LAYOUT_BNSD || f->layout == ORC_LAYOUT_BNSD_BSND
               ? t->shape[2] : t->shape[1];
}

void orc_facts_tensor_list(const fia_case *c, fia_oracle_facts *f)
{
    const fia_tensor_spec *k = &c->tensors[FIA_SLOT_KEY];
    f->kv_list = f->count[FIA_SLOT_KEY] > 1 || f->count[FIA_SLOT_VALUE] > 1;
    if (!f->kv_list || !f->layout_modeled || f->paged ||
        k->count > ORC_LIST_MAX)
        return;
    int64_t most = 0;
    for (int32_t i = 0; i < k->count; i++) {
        int64_t s = tensor_s(f, &k->t[i]);
        if (s < 0)
            return; /* a rank the layout rules reject */
        f->list_s[i] = s;
        most = s > most ? s : most;
    }
    f->list_ok = 1;
    f->KV_S = most;
    f->k_rank_ok = 1;
}
