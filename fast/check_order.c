/* order: the released code's early return for a call that reads no key
 * (profile cann).  RELEASED "Degenerate shapes" answers a key/value of S 0
 * with zeros and an lse of +inf; the vendor's tiling tests
 * (../shared/vendor-ut, issue 33) show that it returns after the checks of
 * the inputs' existence, dtypes and shapes, the block table and block
 * size, the ropes, the shared prefix's shape and the length arrays, and
 * before those of the KV head count (S_KV_HEADS of the 4-D layouts), the
 * precision mode (S_INNER_PRECISE), MLA's D 512 limits (rows, heads, KV
 * heads, page attention, sparse mode), value's shape against the key's
 * (S_KV_SHAPE; a list's pairs are compared before it:
 * check_tensor_list.c), attention_out's shape (S_OUT_SHAPE) and the
 * prefix length against the prefix, the mask and pse_shift (S_PREFIX_LEN,
 * S_PREFIX_MASK, S_PREFIX_PSE).  Those checks read p->kv_return and let such a call pass;
 * api.c then writes the zeros and computes nothing.  The documents know no
 * such return: under profile doc every check applies. */
#include "validate.h"

/* The key's S dim under a batched layout (the part before '_' for the
 * *_NBSD and BNSD_BSND outputs), or -1. */
static int kv_s_axis(const char *layout)
{
    if (strncmp(layout, "BSH", 3) == 0 || strncmp(layout, "BSND", 4) == 0)
        return 1;
    if (strncmp(layout, "BNSD", 4) == 0)
        return 2;
    return -1;
}

/* Every used actual_seq_lengths_kv value 0 (a length-1 array broadcast,
 * else the first B); false for an array the length checks reject.  A token
 * layout's cumulative counts are all 0 exactly when every batch is. */
static bool lengths_all_zero(const fia_int_array *kv, int64_t B)
{
    const int64_t used = kv->count == 1 ? 1 : kv->count >= B ? B : 0;
    if (used == 0 || kv->values == NULL)
        return false;
    for (int64_t b = 0; b < used; b++)
        if (kv->values[b] != 0)
            return false;
    return true;
}

bool fast_no_key_read(const fast_args *a)
{
    const fia_tensor *q = a->query;
    int64_t qn;
    bool q_ntd, o_ntd;
    if (a->layout == NULL || !fast_shape_numel(q, &qn) || qn == 0)
        return false; /* no layout, or the empty query's own return */
    if (fast_token_layout(a->layout, &q_ntd, &o_ntd))
        return a->aslkv != NULL && a->aslkv->count >= 1 &&
               lengths_all_zero(a->aslkv, a->aslkv->count);
    const int s_ax = kv_s_axis(a->layout);
    if (s_ax < 0 || q->ndim < 3)
        return false;
    const int64_t B = q->shape[0];
    if (B < 1)
        return false;
    if (a->aslkv != NULL)
        return lengths_all_zero(a->aslkv, B);
    if (a->opt[FAST_OPT_BLOCK_TABLE] != NULL)
        return false; /* a cache without lengths: check_paged.c rejects */
    if (a->key->count > 1 && a->key->count != B)
        return false;
    for (int32_t i = 0; i < a->key->count; i++) {
        const fia_tensor *k = a->key->tensors[i];
        if (k->ndim <= s_ax || k->shape[s_ax] != 0)
            return false;
    }
    return a->key->count >= 1;
}
