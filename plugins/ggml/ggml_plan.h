/* The ggml system under test: what phase one plans and phase two runs.
 *
 * One FIA call becomes one ggml graph of a single node,
 * ggml_flash_attn_ext(q, k, v, mask, scale, 0, 0) (plus its sinks), the
 * way llama.cpp calls it:
 *
 *   q     float32 [D, Q_S, N, B]     the query widened here, exactly
 *   k, v  f16/bf16 [D, KV_S, KV_N, B] views of the call's key and value
 *                                     (the layout is the views' strides)
 *   mask  float16 [KV_S, Q_S, 1 or N, B]  additive: 0 where a key takes
 *                                     part, -inf where it does not, pse
 *                                     where it takes part and a pse is
 *                                     given (only when float16 holds the
 *                                     pse exactly)
 *   out   float32 [D, N, Q_S, B]     (ggml permutes it), rounded here,
 *                                     nearest-even, to the query's dtype
 *
 * GQA is ggml's head broadcast (query head n reads key head n / (N/KV_N),
 * as FIA's). Which keys a row reads, the per-batch lengths, left padding
 * and the sparse modes are all carried by the mask; ggml itself knows none
 * of them.  Rows past a batch's query length (unspecified in FIA) are
 * computed like any. */
#ifndef GGML_PLAN_H
#define GGML_PLAN_H

#include <stdint.h>
#include "fia/sut.h"

typedef struct ggml_plan {
    int64_t B, N, KV_N, Q_S, KV_S, D;
    fia_dtype dt;               /* query = key = value = output */
    float scale;
    int bnsd_in, bnsd_out;      /* BNSD (else BSND/BSH) input / output */
    /* per batch: the logical lengths and where they start physically
     * (left padding) */
    int64_t *q_len, *kv_len, *q_start, *kv_start;
    int64_t sparse_mode, pre_tokens, next_tokens;
    int band_ignored;           /* mode 0 with a mask under left padding */
    int has_mask;               /* any key excluded or biased */
    int mask_per_head;          /* a pse: the mask has N planes */
    /* the call's tensors (valid until phase two returns) */
    const fia_tensor *q, *k, *v, *out, *atten_mask, *pse, *sink;
    int threads;
    /* triage only (FIACHECK_GGML_WIDEN_KV=1, its own version "+kvf32"):
     * key and value widened to float32 before ggml sees them, which takes
     * ggml's float32 accumulation on every path */
    int widen_kv;
} ggml_plan;

/* ggml_sut.c: record why, return st */
fia_status ggml_sut_fail(fia_status st, const char *fmt, ...);

/* ggml_read.c: the call into the plan, or a refusal (FIA_ERR_NOT_MODELED
 * for what this mapping does not cover) with last_error set. */
fia_status ggml_read_call(const fia_sut_args *a, ggml_plan *p);
void ggml_plan_free(ggml_plan *p);

/* ggml_mask.c: the float16 additive mask, [B][planes][Q_S][KV_S] with
 * planes = N when mask_per_head, else 1, as ggml_fp16_t bits. */
void ggml_build_mask(const ggml_plan *p, uint16_t *mask);
/* ggml_mask.c: 1 when every pse value that a key taking part reads is
 * finite and a float16 exactly (an fp16 pse always is; a bf16 one when it
 * fits).  A non-finite one is not: ggml reads a -inf in its mask as "skip
 * the key", where FIA's -inf pse is a score (weight 0 times the value:
 * NaN for a NaN value, and a row of -inf scores is NaN). */
int ggml_pse_representable(const ggml_plan *p);

/* ggml_run.c: phase two: build the graph, compute, write attention_out. */
fia_status ggml_execute(const ggml_plan *p);

#endif
