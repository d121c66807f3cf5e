/* The oneDNN system under test: what phase one plans and phase two runs.
 *
 * Attention composed the way a user of oneDNN writes it: scores = scale ·
 * Q·Kᵀ (a matmul with an output scale), scores += bias (a binary add of a
 * float32 tensor carrying pse_shift and -inf at every excluded key),
 * P = softmax(scores) (the softmax primitive on float32 scores), out = P·V
 * (a matmul), in the query's dtype.  bfloat16 runs natively (bf16 matmuls,
 * P rounded to bf16 by the softmax's destination); float16, which this
 * oneDNN has no matmul for, is reordered to float32 first and the output
 * reordered back.  GQA is a broadcast: every tensor is viewed as 5-D
 * (B, KV_N, G, S, D) with G = N / KV_N query heads per key/value head, and
 * Kᵀ, V carry G = 1.  The layouts are strides on those views. */
#ifndef ONEDNN_PLAN_H
#define ONEDNN_PLAN_H

#include <stdint.h>
#include "fia/sut.h"

typedef struct onednn_plan {
    int64_t B, N, KV_N, G, Q_S, KV_S, D;
    fia_dtype dt;               /* query = key = value = output */
    float scale;
    /* element strides of the 5-D views (B, KV_N, G, S, D) */
    int64_t q_st[5], kv_st[5], out_st[5];
    /* the bias: present when a mask, a pse, a sparse pattern or a per-batch
     * key length excludes or shifts anything; dims (bias_B, N or 1, Q_S,
     * KV_S), built in phase two from the inputs */
    int has_bias;
    int64_t bias_B, bias_N;
    int64_t sparse_mode, pre_tokens, next_tokens;
    int lse;                    /* write softmax_lse (B, N, Q_S, 1) */
    /* per batch: the query rows and keys that exist */
    int64_t *q_len, *kv_len;
    /* the call's tensors (valid until phase two returns) */
    const fia_tensor *q, *k, *v, *out, *mask, *pse, *lse_t;
    uint64_t ws;                /* workspace bytes */
} onednn_plan;

/* onednn_sut.c */
fia_status onednn_fail(fia_status st, const char *fmt, ...);

/* onednn_bias.c: the float32 bias, (bias_B, bias_N, Q_S, KV_S): pse where
 * a key takes part, -inf where it does not. */
void onednn_build_bias(const onednn_plan *p, float *bias);
/* onednn_bias.c: softmax_lse from the biased float32 scores. */
void onednn_write_lse(const onednn_plan *p, const float *scores);

/* onednn_run.c: phase two's pipeline; ws is the workspace of p->ws bytes */
fia_status onednn_execute(const onednn_plan *p, void *ws);
/* the workspace phase two needs */
uint64_t onednn_workspace(const onednn_plan *p);

#endif
