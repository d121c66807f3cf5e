/* The explicit pattern: an FIA call whose key set per row is not GQA's
 * right-down causal one (sparse 0 or 1 at Q_S > 1, sparse 2 with q_len !=
 * kv_len, sparse 4 with other tokens, rows that see no key) runs GQA with
 * its attribute causal = 0 (1.30: every row sees the batch's whole total
 * length) and FIA's key set as attention_bias: 0 (or pse_shift) where key
 * j takes part in row i, -inf elsewhere.  GQA itself computes it; only
 * which keys take part is written by the plug-in, from FIA's reading:
 *
 *   mode 0: all keys without a mask; with one, the mask and
 *           i - pre <= j <= i + next
 *   mode 1: the mask alone
 *   mode 2: j <= i
 *   mode 3: j <= i + off                      off = kv_len - q_len
 *   mode 4: i + off - pre <= j <= i + off + next
 *
 * (docs/features/sparse.md, mask.md; the mask's element (b, i, j) at
 * b * bstride + i * cols + j, bstride 0 for a rank-2 mask or a batch dim
 * of 1).  A row where no key takes part has every score -inf: GQA gives
 * it 0, which is FIA's row-invalid correction (0) or an unspecified row. */
#include <string.h>
#include "ort_plan.h"

#define REFUSE(...) ort_fail(FIA_ERR_NOT_MODELED, __VA_ARGS__)

/* pre / next clamped so that no sum below overflows (|i|, |j| < 2^20:
 * the plug-in refuses larger), and a clamped bound excludes no key a
 * larger one would admit */
#define TOKENS_LIMIT ((int64_t)1 << 42)

static int64_t clamp_tokens(int64_t v)
{
    return v > TOKENS_LIMIT ? TOKENS_LIMIT
                            : v < -TOKENS_LIMIT ? -TOKENS_LIMIT : v;
}

static int mask_keeps(const ort_plan *p, int64_t b, int64_t i, int64_t j)
{
    const uint8_t *m = p->pmask->data;
    return m[b * p->pmask_bstride + i * p->pmask_cols + j] == 0;
}

int ort_admits(const ort_plan *p, int64_t b, int64_t i, int64_t j)
{
    int64_t off = p->kv_len[b] - p->q_len[b];
    switch (p->mode) {
    case 0:
        return p->pmask == NULL ||
               (mask_keeps(p, b, i, j) && i - p->pre <= j && j <= i + p->next);
    case 1:
        return p->pmask == NULL || mask_keeps(p, b, i, j);
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

int ort_key_unused(const ort_plan *p, int64_t b, int64_t j)
{
    for (int64_t i = 0; i < p->q_len[b]; i++)
        if (ort_admits(p, b, i, j))
            return 0;
    return 1;
}

/* The mask's geometry for the bits sparse 0 / 1 read (Q_S > 1), and the
 * per-batch split: batch b's keys kv_len - S .. kv_len - 1 (all of them
 * when kv_len <= S) are its S new tokens, zeros after them, the rest its
 * past.  Without causality the split is free; this one keeps the past
 * shortest. */
fia_status ort_read_explicit(const fia_sut_args *a, ort_plan *p)
{
    p->explicit_pattern = 1;
    /* decode (Q_S = 1; here: a batch with no key) ignores sparse_mode and
     * the tokens: the mask alone decides, its row 0 */
    const int decode = p->S == 1;
    p->mode = decode ? 0 : a->sparse_mode;
    p->pre = decode ? TOKENS_LIMIT : clamp_tokens(a->pre_tokens);
    p->next = decode ? TOKENS_LIMIT : clamp_tokens(a->next_tokens);
    if (p->mode < 0 || p->mode > 4)
        return REFUSE("sparse_mode %lld", (long long)p->mode);
    const fia_tensor *m = p->mask;
    p->pmask = NULL;
    if (m != NULL && (p->mode == 0 || p->mode == 1)) {
        if (m->dtype != FIA_DT_BOOL && m->dtype != FIA_DT_UINT8 &&
            m->dtype != FIA_DT_INT8)
            return REFUSE("mask dtype");
        int nd = m->ndim;
        if (nd < 2 || nd > 4 || (!decode && m->shape[nd - 2] < p->S) ||
            m->shape[nd - 1] < p->KV_S)
            return REFUSE("mask shape");
        /* decode: (B, KV_S), (B, 1, KV_S), (B, 1, 1, KV_S), dim 0 the
         * batch's */
        int64_t bdim = nd == 2 && !decode ? 1 : m->shape[0], numel = 1;
        for (int d = 0; d < nd; d++)
            numel *= m->shape[d];
        if (bdim != 1 && bdim != p->B)
            return REFUSE("mask batch dim");
        if (m->data == NULL)
            return REFUSE("mask without data");
        p->pmask = m;
        p->pmask_bstride = bdim == 1 ? 0 : numel / bdim;
        p->pmask_cols = m->shape[nd - 1];
    }
    if ((double)p->B * p->S * p->KV_S > 1e8)
        return REFUSE("too large for the explicit pattern");
    /* GQA gives a row whose attention_bias is -inf at every key NaN (IEEE;
     * its guard for a row of -inf scores is not reached): covered only
     * where FIA leaves such a row unspecified, refused where it is 0 --
     * row-invalid correction (inner_precise 2/3, sparse 3 with q_len >
     * kv_len) or kv_len = 0 (corpus/sut_onnxruntime/keyless_row_nan.case) */
    for (int64_t b = 0; b < p->B; b++) {
        int zero = (a->inner_precise & 2) != 0 || p->kv_len[b] == 0 ||
                   (p->mode == 3 && p->q_len[b] > p->kv_len[b]);
        for (int64_t i = 0; zero && i < p->q_len[b]; i++) {
            int64_t j = 0;
            while (j < p->kv_len[b] && !ort_admits(p, b, i, j))
                j++;
            if (j == p->kv_len[b])
                return REFUSE("batch %lld row %lld has no key and FIA gives "
                              "it 0; GQA gives a row whose attention_bias "
                              "is -inf at every key NaN", (long long)b,
                              (long long)i);
        }
    }
    int64_t past = 0;
    for (int64_t b = 0; b < p->B; b++) {
        p->past_b[b] = p->kv_len[b] > p->S ? p->kv_len[b] - p->S : 0;
        past = p->past_b[b] > past ? p->past_b[b] : past;
    }
    p->past_len = past;
    p->total_max = past + p->S;
    p->sig.causal = 0;
    p->sig.local_window_size = -1; /* 1.30 CPU: required with causal 0 */
    return FIA_OK;
}
