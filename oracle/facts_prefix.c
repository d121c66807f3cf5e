/* oracle/facts_prefix: the shared system prefix (key_shared_prefix,
 * value_shared_prefix, actual_shared_prefix_len), read through the query's
 * layout like the key: [1, S_p, H] (BSH), [1, S_p, KV_N, D] (BSND),
 * [1, KV_N, S_p, D] (BNSD, BNSD_BSND).  prefix_s_ok: both tensors given, of
 * the key's rank, so S_p is read (the key prefix's); prefix_len is the
 * length the call uses: actual_shared_prefix_len's one value when it is
 * given as [1], else S_p (002 actualSharedPrefixLenOptional: nullptr means
 * the prefix's S).  Runs after the layout (and the key's dims). */
#include "oracle_internal.h"

/* The S axis of a tensor in the layout, -1 when it has no such axis. */
static int64_t s_of(const fia_oracle_facts *f, const fia_tensor *t)
{
    if (!f->layout_modeled || t->ndim != f->q_rank_want)
        return -1;
    return t->shape[f->layout == ORC_LAYOUT_BSH ||
                            f->layout == ORC_LAYOUT_BSND
                        ? 1
                        : 2];
}

void orc_facts_prefix(const fia_case *c, fia_oracle_facts *f)
{
    f->prefix_s = f->prefix_len = -1;
    f->prefix_s_ok = f->prefix_len_ok = 0;
    const fia_tensor *kp = f->t[FIA_SLOT_KEY_SHARED_PREFIX];
    const fia_tensor *vp = f->t[FIA_SLOT_VALUE_SHARED_PREFIX];
    if (kp == NULL || vp == NULL)
        return;
    f->prefix_s = s_of(f, kp);
    f->prefix_s_ok = f->prefix_s >= 0;
    if (!f->prefix_s_ok)
        return;
    const fia_int_array_spec *a = &c->arrays[FIA_ARR_ACTUAL_SHARED_PREFIX_LEN];
    if (a->presence != FIA_PRESENT) {
        f->prefix_len = f->prefix_s;
        f->prefix_len_ok = 1;
    } else if (a->count == 1 && a->values != NULL && a->values[0] >= 0) {
        f->prefix_len = a->values[0];
        f->prefix_len_ok = 1;
    }
}
