/* The host side of the oneDNN composition: the additive bias that carries
 * pse_shift and the excluded keys, and softmax_lse from the scores.
 *
 * Which key j a row i of batch b reads (002 sparseMode, preTokens,
 * nextTokens, actualSeqLengths, actualSeqLengthsKv), with off = kv_len[b]
 * - q_len[b] the distance of the right-down corner from the diagonal:
 *   every mode: j < kv_len[b];
 *   0: no mask: every key; a mask: mask[i][j] = 0 and i - pre <= j <= i + next;
 *   1: mask[i][j] = 0;
 *   2 (leftUpCausal): j <= i;
 *   3 (rightDownCausal): j <= i + off;
 *   4 (band, about the right-down diagonal): i + off - pre <= j <= i + off
 *     + next.
 * Modes 2-4 pass the NPU a compressed 2048 x 2048 mask; its meaning is the
 * pattern, so the pattern is built here and the mask's bits are not read.
 * An excluded key gets -inf, the usual way to drop a key before a softmax. */
#include <math.h>
#include <string.h>
#include "onednn_plan.h"

/* IEEE binary16 / bfloat16 to float, exact. */
static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0    ? ldexpf((float)m, -24)
              : e == 31 ? (m ? NAN : INFINITY)
                        : ldexpf((float)(m | 1024), e - 25);
    return (h & 0x8000) ? -v : v;
}

static float bf16_to_float(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* Element offset of (b, row, 0) of a mask or pse whose last two dims are
 * (rows, cols) and whose first is the batch when it has B entries. */
static int64_t batch_stride(const fia_tensor *t, int64_t B, int has_batch)
{
    if (!has_batch || t->shape[0] != B || B == 1)
        return 0;
    int64_t n = 1;
    for (int i = 1; i < t->ndim; i++)
        n *= t->shape[i];
    return n;
}

static int masked_bit(const onednn_plan *p, int64_t b, int64_t i, int64_t j)
{
    const fia_tensor *m = p->mask;
    const int64_t cols = m->shape[m->ndim - 1];
    /* (Q_S, KV_S) has no batch; the decode path's (B, KV_S) has */
    const int has_batch = m->ndim >= 3 || p->Q_S == 1;
    const int64_t row = p->Q_S == 1 ? 0 : i;
    const int64_t at = b * batch_stride(m, p->B, has_batch) + row * cols + j;
    return ((const uint8_t *)m->data)[at] != 0;
}

static int excluded(const onednn_plan *p, int64_t b, int64_t i, int64_t j)
{
    if (j >= p->kv_len[b])
        return 1;
    const int64_t off = p->kv_len[b] - p->q_len[b];
    switch (p->sparse_mode) {
    case 0:
        return p->mask != NULL &&
               (masked_bit(p, b, i, j) || i - j > p->pre_tokens ||
                j - i > p->next_tokens);
    case 1: return p->mask != NULL && masked_bit(p, b, i, j);
    case 2: return j > i;
    case 3: return j > i + off;
    default:
        return i + off - j > p->pre_tokens || j - i - off > p->next_tokens;
    }
}

static float pse_at(const onednn_plan *p, int64_t b, int64_t n, int64_t i,
                    int64_t j)
{
    const fia_tensor *t = p->pse;
    const int64_t rows = t->shape[2], cols = t->shape[3];
    const int64_t at = b * batch_stride(t, p->B, 1) + (n * rows + i) * cols +
                       j;
    const uint16_t h = ((const uint16_t *)t->data)[at];
    return p->dt == FIA_DT_BF16 ? bf16_to_float(h) : half_to_float(h);
}

void onednn_build_bias(const onednn_plan *p, float *bias)
{
    const int64_t Q = p->Q_S, K = p->KV_S;
    if (Q * K == 0)
        return; /* an empty bias (and perhaps no workspace at all) */
    for (int64_t b = 0; b < p->bias_B; b++)
        for (int64_t n = 0; n < p->bias_N; n++)
            for (int64_t i = 0; i < Q; i++) {
                float *row = bias + ((b * p->bias_N + n) * Q + i) * K;
                for (int64_t j = 0; j < K; j++)
                    row[j] = excluded(p, b, i, j) ? -INFINITY
                             : p->pse != NULL
                                 ? pse_at(p, b, n, p->Q_S == 1 ? 0 : i, j)
                                 : 0.0f;
            }
}

/* lse = m + log Σ_j exp(s_j - m), m the row's largest score, in float: the
 * scores are (B, N, Q_S, KV_S) and softmax_lse is (B, N, Q_S, 1). */
void onednn_write_lse(const onednn_plan *p, const float *scores)
{
    const int64_t rows = p->B * p->N * p->Q_S, K = p->KV_S;
    float *lse = p->lse_t->data;
    for (int64_t r = 0; r < rows; r++) {
        float m = -INFINITY, sum = 0.0f;
        for (int64_t j = 0; j < K; j++)
            m = fmaxf(m, scores[r * K + j]);
        for (int64_t j = 0; j < K; j++)
            sum += expf(scores[r * K + j] - m);
        lse[r] = m + logf(sum);
    }
}
