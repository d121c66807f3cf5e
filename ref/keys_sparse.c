/* ref/ reading, feature "sparse": sparse_mode 0-4 with pre_tokens and
 * next_tokens, which keys of a row they let take part (docs/features/sparse.md).
 *
 * With off = kv_len'[b] - q_len[b] (kv_len' = P + kv_len: a shared
 * prefix's keys count, read_prefix.c; RELEASED "Silent normalisations":
 * mode 3's next = kv + prefix - q), logical key j takes part in row i when
 *   mode 0: all keys without a mask; with a mask, i - pre <= j <= i + next
 *           (and the mask, keys_mask.c), but all keys the mask admits in
 *           a left-padding scene (002 sparseMode: "在左padding场景传入
 *           attenMask，则忽略入参preTokens、nextTokens"; read_padding.c)
 *   mode 1: all keys (the mask alone decides)
 *   mode 2: j <= i                      (top-left causal)
 *   mode 3: j <= i + off                (bottom-right causal)
 *   mode 4: i + off - pre <= j <= i + off + next   (band)
 * i and j are logical rows (left padding moves only where they live).
 * Modes 2-4 ignore the mask's bits (it encodes this geometry).  Decode
 * (Q_S = 1) forces mode 0 with tokens INT_MAX: the mask alone decides.
 * pre / next are clamped to +-2^42: every |i| < 2^40 and |j|, |off| < 2^41
 * (a prefix's S_p and KV_S each below 2^40), so no sum above overflows
 * int64, and a clamped bound excludes no key a larger one would admit.  Mode 3
 * with q_len > kv_len' gets row-invalid correction from the operator
 * itself (002 innerPrecise). */
#include "ref_internal.h"

#define TOKENS_LIMIT (4 * REF_DIM_LIMIT)

static int64_t clamp_tokens(int64_t v)
{
    if (v > TOKENS_LIMIT)
        return TOKENS_LIMIT;
    if (v < -TOKENS_LIMIT)
        return -TOKENS_LIMIT;
    return v;
}

fia_status ref_read_sparse(ref_problem *p, const fia_case *c,
                           const fia_case_data *d, fia_error *err)
{
    (void)d;
    p->sparse_mode = c->attrs.sparse_mode;
    if (!p->decode && (p->sparse_mode < 0 || p->sparse_mode > 4))
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "sparse_mode %lld (expected 0..4)",
                        (long long)p->sparse_mode);
    p->pre = clamp_tokens(c->attrs.pre_tokens);
    p->next = clamp_tokens(c->attrs.next_tokens);
    return FIA_OK;
}

int ref_sparse_admits(const ref_problem *p, int64_t b, int64_t i, int64_t j)
{
    if (p->decode)
        return 1;
    int64_t off = ref_kv_len(p, b) - p->q_len[b]; /* prefix included */
    switch (p->sparse_mode) {
    case 0: /* a left-padding scene ignores pre/next (PAD-N04) */
        return !p->mask || ref_pad_scene(p) ||
               (i - p->pre <= j && j <= i + p->next);
    case 1:
        return 1;
    case 2:
        return j <= i;
    case 3:
        return j <= i + off;
    case 4:
        return i + off - p->pre <= j && j <= i + off + p->next;
    default:
        return 0;
    }
}

int ref_sparse_corrects(const ref_problem *p, int64_t b)
{
    return !p->decode && p->sparse_mode == 3 &&
           p->q_len[b] > ref_kv_len(p, b);
}
