/* The ggml system under test: what phase one plans and phase two runs.
 *
 * One FIA call becomes one ggml graph of a single node,
 * ggml_flash_attn_ext(q, k, v, mask, scale, 0, 0) (plus its sinks), the
 * way llama.cpp calls it:
 *
 *   q     float32 [D+Dr, Q_S, N, B]  the query widened here, exactly
 *                                     (MLA: query_rope's Dr columns after
 *                                     D, so q·k is FIA's q·k + qr·kr)
 *   k, v  f16/bf16 [D+Dr | Dv, KV_S, KV_N, B] views of the call's key
 *                                     and value (the layout is the
 *                                     views' strides), or of contiguous
 *                                     copies when the keys are not one
 *                                     strided tensor (ggml_gather.c)
 *   mask  float16 [KV_S, Q_S, 1 or N, B]  additive: 0 where a key takes
 *                                     part, -inf where it does not, pse
 *                                     where it takes part and a pse is
 *                                     given (only when float16 holds the
 *                                     pse exactly)
 *   out   float32 [Dv, N, Q_S, B]    (ggml permutes it), rounded here,
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
    /* KV_S is what ggml sees: with a shared prefix P + the keys' own S;
     * kv_len[b] likewise counts the prefix (FIA's logical key index) */
    int64_t B, N, KV_N, Q_S, KV_S, D;
    /* the keys ggml is given: up to the furthest one a batch reads,
     * max_b kv_start[b] + kv_len[b] <= KV_S (the rest would be masked
     * out, at the cost of a mask and a loop over them) */
    int64_t KV_use;
    int64_t Dr;                 /* MLA: rope columns of q and k, else 0 */
    int64_t Dv;                 /* value's and the output's head dim */
    fia_dtype dt;               /* query = key = value = output */
    float scale;
    int bnsd_in, bnsd_out;      /* BNSD (else BSND/BSH) input / output */
    int nbsd_out;               /* *_NBSD: attention_out (N, B, Q_S, Dv) */
    int pad_scene;              /* a left-padding scene (the band ignored) */
    /* per batch: the logical lengths and where they start physically
     * (left padding) */
    int64_t *q_len, *kv_len, *q_start, *kv_start;
    int64_t sparse_mode, pre_tokens, next_tokens;
    int band_ignored;           /* mode 0 with a mask under left padding */
    int has_mask;               /* any key excluded or biased */
    int mask_per_head;          /* a pse: the mask has N planes */
    /* the call's tensors (valid until phase two returns) */
    const fia_tensor *q, *k, *v, *out, *atten_mask, *pse, *sink;
    /* gather (ggml_gather.c): key and value (and key_rope) are copied,
     * exactly, into [B][KV_N][KV_S][D+Dr] / [Dv] buffers in phase two
     * when they are not one strided tensor: page attention, a tensor
     * list, a shared prefix, or MLA's rope columns beside the key */
    int gather;
    int paged, cache4d;         /* block_table: rank 3 or 4 cache */
    int64_t block_size, bt_cols, blocknum;
    const int32_t *bt;
    const fia_tensor_list *klist, *vlist;   /* a list of B tensors */
    const fia_tensor *kp, *vp;  /* key/value_shared_prefix */
    int64_t P, S_p;             /* prefix length used, prefix tensors' S */
    int64_t own_S;              /* the keys' own S (plain: the tensor's) */
    const fia_tensor *q_rope, *k_rope;
    /* the token layouts (ggml_tnd.c): no batch axis; batch b's rows are
     * tokens q_tok[b] .. + q_len[b] (key: kv_tok[b]), copied into padded
     * [B][N][Q_S] rows (Q_S, KV_S the longest batch's); q_ntd: query and
     * key N-major ([N, T, D]), o_ntd: attention_out N-major */
    int tnd, q_ntd, o_ntd;
    int64_t T, T_kv;
    int64_t *q_tok, *kv_tok;
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

/* ggml_mask.c: the float16 additive mask, [B][planes][Q_S][KV_use] with
 * planes = N when mask_per_head, else 1, as ggml_fp16_t bits. */
void ggml_build_mask(const ggml_plan *p, uint16_t *mask);
/* ggml_mask.c: 1 when every pse value that a key taking part reads is
 * finite and a float16 exactly (an fp16 pse always is; a bf16 one when it
 * fits).  A non-finite one is not: ggml reads a -inf in its mask as "skip
 * the key", where FIA's -inf pse is a score (weight 0 times the value:
 * NaN for a NaN value, and a row of -inf scores is NaN). */
int ggml_pse_representable(const ggml_plan *p);

/* ggml_mask.c: 0 when a key taking part has a score of +inf (only an
 * infinite query or key element makes one; with gathered or token-layout
 * keys any infinity counts).  ggml resolves a +inf score as the softmax's
 * limit, that key's value alone; FIA's IEEE reading is NaN (inf - inf). */
int ggml_scores_mappable(const ggml_plan *p);

/* ggml_gather.c: the key geometry of a paged, list or prefix call and
 * MLA's ropes (after the query's dims are read), refusing what is not
 * mapped; p->gather set when the keys are copied. */
fia_status ggml_read_paged(const fia_sut_args *a, ggml_plan *p);
fia_status ggml_read_list(const fia_sut_args *a, ggml_plan *p);
fia_status ggml_read_paged_lengths(const fia_sut_args *a, ggml_plan *p);
fia_status ggml_read_list_lengths(const fia_sut_args *a, ggml_plan *p);
fia_status ggml_read_prefix(const fia_sut_args *a, ggml_plan *p);
fia_status ggml_read_rope(const fia_sut_args *a, ggml_plan *p);
/* ggml_gather.c: phase two's copies: kbuf [B][KV_N][KV_S][D+Dr] and vbuf
 * [B][KV_N][KV_S][Dv] (2-byte elements), keys past a batch's length 0. */
void ggml_gather(const ggml_plan *p, uint16_t *kbuf, uint16_t *vbuf);
/* ggml_gather.c: query_rope's row (b, n, s), Dr elements, or NULL. */
const uint16_t *ggml_query_rope_row(const ggml_plan *p, int64_t b, int64_t n,
                                    int64_t s);

/* ggml_tnd.c: a token layout's dims, lengths and keys (p->tnd set), or
 * FIA_OK with p->tnd 0 for a batched layout. */
fia_status ggml_read_tnd(const fia_sut_args *a, ggml_plan *p);
/* ggml_tnd.c: element offset of row (b, n, s) of W columns in the
 * query's layout (out 0; query_rope too) or attention_out's (out 1). */
int64_t ggml_row_at(const ggml_plan *p, int64_t b, int64_t n, int64_t s,
                    int64_t W, int out);

/* ggml_run.c: phase two: build the graph, compute, write attention_out. */
fia_status ggml_execute(const ggml_plan *p);

#endif
