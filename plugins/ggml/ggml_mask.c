/* The additive float16 mask that carries, for ggml_flash_attn_ext, every
 * FIA rule of which keys a row reads, and the pse.
 *
 * Key j (logical) takes part in row i (logical) of batch b when j <
 * kv_len[b] and the sparse mode keeps it (docs/features/sparse.md), with
 * off = kv_len[b] - q_len[b]:
 *   0: no mask: every key; a mask: mask[i][j] = 0 and i - pre <= j <=
 *      i + next (the band ignored under left padding);
 *   1: mask[i][j] = 0;   2: j <= i;   3: j <= i + off;
 *   4: i + off - pre <= j <= i + off + next.
 * Modes 2-4 hand FIA a compressed mask whose meaning is the pattern: the
 * pattern is built, the bits are not read.  Under left padding the mask
 * and the pse are read at the physical row and column (start + index);
 * ggml sees physical rows and keys throughout, so a physical key outside
 * [kv_start, kv_start + kv_len) is excluded, and a physical row outside
 * the batch's rows is computed over nothing (its output is unspecified).
 *
 * ggml adds the mask to scale·q·k in float32 and skips a key whose mask is
 * -inf: 0 (or the pse) keeps a key, -inf drops it. */
#include <math.h>
#include <string.h>
#include "ggml.h"
#include "ggml_plan.h"

static int64_t plane_elems(const fia_tensor *t, int from)
{
    int64_t n = 1;
    for (int i = from; i < t->ndim; i++)
        n *= t->shape[i];
    return n;
}

/* Mask element of batch b at physical (row, col): the last two dims are
 * (rows, cols); the first is the batch when the mask has more than two
 * dims, or two at Q_S = 1 ((B, KV_S)), and is B. */
static int mask_bit(const ggml_plan *p, int64_t b, int64_t row, int64_t col)
{
    const fia_tensor *m = p->atten_mask;
    const int64_t cols = m->shape[m->ndim - 1];
    const int has_batch = (m->ndim >= 3 || p->Q_S == 1) && m->shape[0] == p->B;
    const int64_t at = (has_batch ? b * plane_elems(m, 1) : 0) +
                       (p->Q_S == 1 ? 0 : row) * cols + col;
    return ((const uint8_t *)m->data)[at] != 0;
}

/* Does logical key j take part in logical row i of batch b? */
static int takes_part(const ggml_plan *p, int64_t b, int64_t i, int64_t j)
{
    if (j < 0 || j >= p->kv_len[b] || i < 0 || i >= p->q_len[b])
        return 0;
    const int64_t off = p->kv_len[b] - p->q_len[b];
    const int64_t row = p->q_start[b] + i, col = p->kv_start[b] + j;
    switch (p->sparse_mode) {
    case 0:
        if (p->atten_mask == NULL)
            return 1;
        if (mask_bit(p, b, row, col))
            return 0;
        return p->band_ignored ||
               (i - j <= p->pre_tokens && j - i <= p->next_tokens);
    case 1: return p->atten_mask == NULL || !mask_bit(p, b, row, col);
    case 2: return j <= i;
    case 3: return j <= i + off;
    default: return i + off - j <= p->pre_tokens && j - i - off <= p->next_tokens;
    }
}

static float bf16_bits_to_float(uint16_t h)
{
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

/* pse of batch b, head n at physical (row, col) as float. */
static float pse_at(const ggml_plan *p, int64_t b, int64_t n, int64_t row,
                    int64_t col)
{
    const fia_tensor *t = p->pse;
    const int64_t rows = t->shape[2], cols = t->shape[3];
    const int64_t at = (t->shape[0] == p->B ? b * plane_elems(t, 1) : 0) +
                       (n * rows + (p->Q_S == 1 ? 0 : row)) * cols + col;
    const uint16_t h = ((const uint16_t *)t->data)[at];
    return t->dtype == FIA_DT_BF16 ? bf16_bits_to_float(h)
                                   : ggml_fp16_to_fp32(h);
}

static double half_to_double(fia_dtype dt, uint16_t h)
{
    return dt == FIA_DT_BF16 ? (double)bf16_bits_to_float(h)
                             : (double)ggml_fp16_to_fp32(h);
}

/* 1 when a float16 / bfloat16 tensor holds an infinity. */
static int has_inf(const fia_tensor *t)
{
    if (t == NULL || t->data == NULL)
        return 0;
    const uint16_t exp = t->dtype == FIA_DT_BF16 ? 0x7f80u : 0x7c00u,
                   man = t->dtype == FIA_DT_BF16 ? 0x007fu : 0x03ffu;
    const uint16_t *x = t->data;
    int64_t n = plane_elems(t, 0);
    for (int64_t i = 0; i < n; i++)
        if ((x[i] & exp) == exp && (x[i] & man) == 0)
            return 1;
    return 0;
}

/* Key row s (physical) of key head kn of batch b, one strided tensor. */
static const uint16_t *key_row(const ggml_plan *p, int64_t b, int64_t kn,
                               int64_t s)
{
    return (const uint16_t *)p->k->data +
           (p->bnsd_in ? ((b * p->KV_N + kn) * p->KV_S + s) * p->D
                       : ((b * p->KV_S + s) * p->KV_N + kn) * p->D);
}

static int row_has_inf(const ggml_plan *p, const uint16_t *x)
{
    const uint16_t exp = p->dt == FIA_DT_BF16 ? 0x7f80u : 0x7c00u,
                   man = p->dt == FIA_DT_BF16 ? 0x007fu : 0x03ffu;
    for (int64_t d = 0; d < p->D; d++)
        if ((x[d] & exp) == exp && (x[d] & man) == 0)
            return 1;
    return 0;
}

/* The score scale·q·k of logical row i, key j (head n) in double: exact
 * enough to tell +inf, since only an infinite factor makes it infinite. */
static double score(const ggml_plan *p, int64_t b, int64_t n, int64_t i,
                    int64_t j)
{
    const uint16_t *q = (const uint16_t *)p->q->data +
                        ggml_row_at(p, b, n, p->q_start[b] + i, p->D, 0);
    const uint16_t *k =
        key_row(p, b, n / (p->N / p->KV_N), p->kv_start[b] + j);
    double acc = 0.0;
    for (int64_t d = 0; d < p->D; d++)
        acc += half_to_double(p->dt, q[d]) * half_to_double(p->dt, k[d]);
    return (double)p->scale * acc;
}

/* 1 when the rows of q or k that can take part hold an infinity: query
 * rows < q_len[b] and keys < KV_use of one strided tensor each (a key or
 * query tensor may be far longer than what is read: fuzz cases
 * materialize only the live rows). */
static int rows_have_inf(const ggml_plan *p)
{
    const int64_t G = p->N / p->KV_N;
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t n = 0; n < p->N; n++) {
            for (int64_t i = 0; i < p->q_len[b]; i++)
                if (row_has_inf(p, (const uint16_t *)p->q->data +
                                       ggml_row_at(p, b, n, p->q_start[b] + i,
                                                   p->D, 0)))
                    return 1;
            for (int64_t s = 0; n % G == 0 && s < p->KV_use; s++)
                if (row_has_inf(p, key_row(p, b, n / G, s)))
                    return 1;
        }
    return 0;
}

int ggml_scores_mappable(const ggml_plan *p)
{
    if (p->gather || p->tnd) /* keys not one strided tensor: any inf */
        return !has_inf(p->q) && !has_inf(p->k) && !has_inf(p->q_rope) &&
               !has_inf(p->k_rope);
    if (!rows_have_inf(p))
        return 1;
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t n = 0; n < p->N; n++)
            for (int64_t i = 0; i < p->q_len[b]; i++)
                for (int64_t j = 0; j < p->kv_len[b]; j++)
                    if (takes_part(p, b, i, j) &&
                        score(p, b, n, i, j) == INFINITY)
                        return 0;
    return 1;
}

int ggml_pse_representable(const ggml_plan *p)
{
    if (p->pse == NULL)
        return 1;
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t n = 0; n < p->N; n++)
            for (int64_t i = 0; i < p->q_len[b]; i++)
                for (int64_t j = 0; j < p->kv_len[b]; j++) {
                    float x = pse_at(p, b, n, p->q_start[b] + i,
                                     p->kv_start[b] + j);
                    if (!isfinite(x) ||
                        ggml_fp16_to_fp32(ggml_fp32_to_fp16(x)) != x)
                        return 0;
                }
    return 1;
}

void ggml_build_mask(const ggml_plan *p, uint16_t *mask)
{
    const int64_t planes = p->mask_per_head ? p->N : 1;
    const uint16_t minus_inf = ggml_fp32_to_fp16(-INFINITY), zero = 0;
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t n = 0; n < planes; n++)
            for (int64_t r = 0; r < p->Q_S; r++) {
                uint16_t *out =
                    mask + ((b * planes + n) * p->Q_S + r) * p->KV_use;
                const int64_t i = r - p->q_start[b];
                for (int64_t c = 0; c < p->KV_use; c++) {
                    const int64_t j = c - p->kv_start[b];
                    if (!takes_part(p, b, i, j))
                        out[c] = minus_inf;
                    else if (p->pse != NULL)
                        out[c] = ggml_fp32_to_fp16(pse_at(p, b, n, r, c));
                    else
                        out[c] = zero;
                }
            }
}
