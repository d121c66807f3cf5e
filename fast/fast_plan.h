/* fast/'s plan of one call (fast_plan) and its groups: the part of
 * fast_internal.h that phase one fills and phase two reads, kept apart
 * for its length.  Included by fast_internal.h only (after fast_layout
 * and FAST_LIST_MAX); include that one. */
#ifndef FIA_FAST_PLAN_H
#define FIA_FAST_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include "fia/fast.h"

/* ---- antiquant -------------------------------------------------------- */
/* What one scale (and offset) element covers (docs/features/antiquant.md,
 * the mode table). */
typedef enum fast_aq_form {
    FAST_AQ_TENSOR,          /* one element */
    FAST_AQ_CHANNEL,         /* [n][d] */
    FAST_AQ_TOKEN,           /* [b][s] */
    FAST_AQ_HEAD,            /* [n] (per-tensor per-head) */
    FAST_AQ_TOKEN_HEAD,      /* [b][n][s] */
    FAST_AQ_PAGE_TOKEN,      /* [block id][slot] */
    FAST_AQ_PAGE_TOKEN_HEAD  /* [block id][n][slot] */
} fast_aq_form;

/* The dequantization of one of key / value: element (b, n, s, d) is
 * (x + offset[i]) * scale[i] with i = base + the form's index, strides in
 * elements of the scale tensor (offset has the scale's shape and dtype;
 * NULL = symmetric).  s is the physical row of the key's S axis, the
 * logical key with page attention (the slot is then found through the
 * block table).  Data may be NULL in status-only runs (phase two checks). */
typedef struct fast_aq {
    fast_aq_form form;
    fia_dtype sdt;           /* fp16, bf16 or fp32 */
    const void *scale, *offset;
    int64_t base;            /* combined set: the value's half starts here */
    int64_t st_b, st_n, st_s; /* strides of b (or block id), n, s (or slot);
                                 d's is 1 */
    int64_t numel;           /* elements of the scale tensor */
} fast_aq;

/* ---- the plan --------------------------------------------------------- */
/* Page attention (check_paged.c): key and value are caches of blocks of
 * block_size rows, (blocknum, block_size, KV_N*D) or, cache4d,
 * (blocknum, KV_N, block_size, D); key j of batch b is row j %
 * block_size of block bt[b * bt_cols + j / block_size] (k_sblk elements
 * per block; k_sn and k_ss within a block, k_sb unused).  KV_S is the
 * longest batch's blocks times block_size.  Block ids are device data
 * the operator does not validate: phase two checks every id it will
 * read (executor.c) and fails with 361001 instead of reading outside
 * the cache.
 * The NZ cache of MLA (nz; 003 "当input_layout为NZ时...
 * [blockNum, N, D/16, blockSize, 16]"): element (block, n, t, d) at
 * [block][n][d / 16][t][d % 16], so a row's D elements are D / 16
 * tiles of 16 contiguous ones, k_sd apart (block_size * 16): k_ss =
 * 16 (rows within a tile), k_sn = D * block_size; key_rope alike
 * (kr_sd).  Rows are read through fast_kv_col or widened by
 * widen_mla_nz (attention.c), never as D contiguous elements.
 * nz_w: the NZ tile width of key/value: 16 for fp16/bf16, 32 for int8
 * (MLA full quantization: [blockNum, N, D/32, blockSize, 32], k_sd =
 * block_size * 32, k_ss = 32); key_rope's tiles are always 16 wide
 * (bf16), kr_sd = block_size * 16. */
typedef struct fast_paged_plan {
    bool on, cache4d;
    const int32_t *bt;
    int64_t bt_cols, block_size, blocknum, k_sblk;
    bool nz;
    int64_t k_sd, kr_sd;
    int nz_w;
} fast_paged_plan;

/* Key/value tensor lists (check_tensor_list.c): batch b's keys are
 * tensor b of the lists, [1, S_b, ...] in the query's layout, at
 * k[b] / v[b]; its head stride sn[b] (BNSD: S_b * D); KV_S is the
 * largest S_b.  B <= FAST_LIST_MAX (002). */
typedef struct fast_list_plan {
    bool on;
    const void *k[FAST_LIST_MAX], *v[FAST_LIST_MAX];
    int64_t s[FAST_LIST_MAX], sn[FAST_LIST_MAX];
} fast_list_plan;

/* Token layouts (check_tnd.c): no batch axis; query [T, N, D] or,
 * q_ntd, [N, T, D], key/value alike with T_kv, attention_out [T, N, D]
 * or, o_ntd, [N, T, D].  Batch b's row i is token q_tok[b] + i, its
 * key j token kv_tok[b] + j (the executor's storage); rows i >=
 * q_len[b] do not exist (fast_row_exists).  Q_S / KV_S are the longest
 * batch's; Dv value's head dim (and attention_out's, 003 §返回值说明):
 * in phase one D is the query's and Dv may be below it (TND 192/128);
 * the run's D is Dv (fast_plan_finish, plan_tnd.c).
 * A token layout with page attention (MLA, query D 512): the keys are
 * the cache's (the page fields), kv_len[b] actual_seq_lengths_kv[b]
 * itself, kv_tok[b] 0 and T_kv 0. */
typedef struct fast_tnd_plan {
    bool on, q_ntd, o_ntd;
    int64_t T, T_kv, Dv;
    int64_t *q_tok, *kv_tok;
} fast_tnd_plan;

/* The rope: D columns of the query and the key past the value's D, read
 * from rows of their own (0: none).  The score is (q.k + q_rope.k_rope) *
 * scale: Q and K rows are widened to Dk = D + rope D floats (the rope
 * after the D columns), V and attention_out keep D.  Element (b, n, s)
 * of the query's rope at q at q_* strides as the query's (fast_qr_row),
 * of the key's at k as the key's (fast_kr_row: the same block table,
 * k_sblk per block); each stride the query's / key's with the rope's D
 * for D (executor.c; an NZ key_rope: its own tiles, page.kr_sd).  Two
 * uses, one computation:
 * - MLA (check_mla.c; run_mla.c): query_rope and key_rope;
 * - a token layout's value narrower than the query (plan_tnd.c): Q and K
 *   rows of Dk = the query's D, V and the output of D = Dv, the Q and K
 *   columns past Dv read as a rope from the query's and key's own rows
 *   (q = the query + Dv, k = the key + Dv, their strides). */
typedef struct fast_rope_plan {
    int64_t D;
    const void *q, *k;
    int64_t q_numel, k_numel;
    int64_t q_sb, q_sn, q_ss;
    int64_t k_sb, k_sn, k_ss, k_sblk;
} fast_rope_plan;

/* Effective sparse mode (0 when Q_S = 1) and pre/next clamped to int32. */
typedef struct fast_sparse_plan {
    int mode;
    int64_t pre, next;
} fast_sparse_plan;

/* Mask (bytes, nonzero = excluded); data NULL when absent or when the
 * mode uses geometry only (2/3/4).  Element (b, i, j) is at
 * data[b * sb + i * ss + j]; sb = 0 broadcasts.  on: a non-empty mask
 * tensor was passed. */
typedef struct fast_mask_plan {
    const uint8_t *data;
    int64_t sb, ss;
    bool on;
} fast_mask_plan;

/* Left padding (check_padding.c; docs/features/padding.md).  The scenes
 * that take effect: q_scene, batch b's query rows end p_q rows before
 * Q_S (Q_S > 1); kv_scene, its key/value rows end p_kv rows before
 * KV_S (contiguous key/value only: with a list or a paged cache the
 * scene is refused or ignored); on, either (sparse mode 0 with a
 * mask then ignores pre/next, run_sparse.c).  q_pad / kv_pad: the
 * padding tensors (int64, numel >= 1) whose element 0 phase two reads
 * (run_padding.c, data may be NULL in status-only runs).  q_start[b] /
 * kv_start[b]: the physical row of batch b's row 0, in the executor's
 * storage, filled at run time; NULL without that scene. */
typedef struct fast_padding_plan {
    bool q_scene, kv_scene, on;
    const int64_t *q_pad, *kv_pad;
    int64_t q_pad_numel, kv_pad_numel;
    int64_t *q_start, *kv_start;
} fast_padding_plan;

/* Shared prefix (check_prefix.c; docs/features/prefix.md): P rows of
 * key_shared_prefix / value_shared_prefix (k, v: batch 1 in the
 * query's layout, S_p rows, head stride k_sn, row stride k_ss like
 * the key's) come before every batch's own keys.  kv_len[b] is the
 * logical length P + own (the executor's storage) and every rule reads
 * the logical key j: j < P is prefix row j, j >= P own row j - P
 * (fast_kv_src).  P = 0 without a prefix or with an empty one; only
 * contiguous key/value in a 002 layout take it (no list, cache, token
 * layout or left padding). */
typedef struct fast_prefix_plan {
    int64_t P, S_p, k_sn;
    const void *k, *v;
} fast_prefix_plan;

/* pse_shift (check_pse.c; docs/features/pse.md): the bias of query row
 * i, key j of batch b, head n is element data[b * sb + n * sn + r * ss
 * + c], r = fast_q_phys (Q_S = 1: ss = 0, row 0), c = fast_pse_col;
 * sb = 0 broadcasts a pse of batch 1.  Its dtype is dt (002 pairs it
 * with the query's).  on: a non-empty pse was passed (data may be NULL
 * in status-only runs; checked in phase two). */
typedef struct fast_pse_plan {
    bool on;
    const uint16_t *data;
    int64_t sb, sn, ss;
} fast_pse_plan;

/* Antiquant (plan_antiquant.c fills it, after the rules of
 * check_antiquant.c; run_antiquant.c reads it; antiquant.md):
 * key and value are int8 or int4 (kv_dt: FIA_DT_INT8 or FIA_DT_INT4,
 * an int32 input counted as int4 with D = 8 x its last dim; strides
 * k_sb.. are then in int4 elements) and each real element is
 * (x + offset) * scale.  aq[0] is the key's, aq[1] the value's. */
typedef struct fast_antiquant_plan {
    bool on;
    fast_aq aq[2];
} fast_antiquant_plan;

/* An int8 attention_out (check_int8_out.c; docs/features/int8_out.md):
 * y = sat(round(x * qs + qo)), quant_scale2 / quant_offset2 (s, o; o
 * NULL: 0) of dtype dt (fp32 or bf16), per-channel (pc: element
 * n * D + d) or per-tensor.  Data may be NULL in status-only runs
 * (phase two checks). */
typedef struct fast_int8_out_plan {
    bool on, pc, o_given;
    fia_dtype dt;
    const void *s, *o;
} fast_int8_out_plan;

/* Full int8 quantization (check_int_inputs.c and check_int8_quant.c
 * fill it, layer 6;
 * run_int8_quant.c and attention_int8_quant.c compute it; int8_quant.md):
 * query, key and value int8 (kv_dt FIA_DT_INT8), dt then FIA_DT_FP16,
 * the dtype of the pse and of a float attention_out.  s: the data of
 * dequant_scale1, quant_scale1, dequant_scale2 (one element each, of
 * dtype sdt: uint64 or fp32, fp32 for quant_scale1), device data read
 * before the run (fast_int8_quant_apply) into sc = fl32(ds1 * scale),
 * qs1 and ds2. */
typedef struct fast_int8_quant_plan {
    bool on;
    const void *s[3];
    fia_dtype sdt[3];
    float sc, qs1, ds2;
} fast_int8_quant_plan;

/* learnable_sink (check_sink.c; run_sink.c; docs/features/sink.md):
 * per query head n a virtual key of score data[n] (bf16, N elements,
 * not scaled) in the row's max and denominator, no value; folded in
 * where a row ends (fast_sink_end).  on: a sink was passed; data may be
 * NULL in status-only runs (phase two checks). */
typedef struct fast_sink_plan {
    bool on;
    const uint16_t *data;
} fast_sink_plan;

/* MLA full quantization (check_query_quant_mla.c fills it, layer 5;
 * run_query_quant.c computes it; 003 "支持全量化场景"): query, key and
 * value int8 (kv_dt FIA_DT_INT8), query_rope, key_rope and
 * attention_out bf16 (dt FIA_DT_BF16: P rounded to bf16 before P.V as
 * in a bf16 call).  In float32: query row (b, n, i) is q_int8 *
 * dsq[b * dsq_sb + n * dsq_sn + i * dsq_ss] (dequant_scale_query, per
 * token and head), key and value rows x * dsk[0] / x * dsv[0]
 * (dequant_scale_key / _value, per tensor), the ropes widened as
 * they are; then the attention of any MLA call over Dk = D + rope D.
 * Data (fp32) may be NULL in status-only runs (phase two checks). */
typedef struct fast_query_quant_plan {
    bool on;
    const void *dsq, *dsk, *dsv;
    int64_t dsq_numel, dsq_sb, dsq_sn, dsq_ss;
} fast_query_quant_plan;

/* The schedule (fast_plan_schedule) and the workspace layout: heads and
 * query rows per task, M and its padding L (multiple of 16), Dk (Q/K
 * rows: D + rope D) padded to Dp (multiple of 16; the row stride of
 * every float row of Q, K, V and acc), D padded to Dvp (the columns P.V
 * computes), threads, KV splits (decode: flash-decoding, merged at the
 * end).
 * task_order: fastSetTaskOrder's seed at plan time: 0, the threads take
 * the tasks as they come; else one thread runs them all in a permutation
 * of this seed (schedule.c), planned for nthreads all the same;
 * order_offset: the tasks' order (int64 each) in the workspace.
 * The KV splits of a (batch, KV head) start at key kv_base (0, or P
 * when the prefix runs apart), split s at kv_base + s * kv_chunk.
 * Decode with a prefix and B > 1 (shared): the prefix keys run apart,
 * once for every batch: per KV head its B x group query rows (all
 * batches, all heads of the group) in tiles of pt_rows, against the
 * prefix keys in n_psplit splits of p_chunk keys; these tasks are
 * spread among the others (attention.c), each leaves partials like a
 * KV split.  A row (b, n) then has nrec partial records: the prefix
 * splits', then the nsplit own-key splits' (nrec = nsplit without
 * shared).
 * scratch_bytes: per thread, multiple of 64; partial_offset: the decode
 * partials, after the scratches.
 * kv_pre: K and V widened once into the workspace as float rows of Dp
 * (zero padding columns): the own rows [B][KV_N][KV_S], then the
 * prefix's [KV_N][P] (once for every batch), K at kv_offset, V at
 * kv_offset + kv_bytes, and one byte per V row in the same order
 * (nonzero: the row has an inf or NaN) at vbad_offset. */
typedef struct fast_schedule {
    int64_t hpt, qb, mrows, L, Dp, Dvp;
    int64_t n_hsub, n_qblk, kv_chunk;
    int nthreads, nsplit;
    uint64_t task_order;
    uint64_t order_offset;
    int64_t kv_base;
    bool shared;
    int64_t pt_rows, n_ptile, n_psplit, p_chunk;
    int nrec;
    uint64_t scratch_bytes;
    uint64_t partial_offset;
    bool kv_pre;
    uint64_t kv_offset, kv_bytes, vbad_offset;
    uint64_t workspace_size;
} fast_schedule;

/* Everything phase two needs, fixed by phase one.  Strides are in elements
 * and describe element (b, n, s, d) of query / key+value / attention_out.
 *
 * The top level is the call's geometry and data (layout, dtypes, sizes,
 * strides, tensors, lengths, scale and precision): the plan itself, read
 * by every file.  Each feature's fields are a group of their own (the
 * group's comment is at its type), named by the feature's word of
 * include/fia/feature.h where it reads well, and the schedule and the
 * workspace layout are sched.  A group's "on" flag (the feature is in the
 * call, or its tensor was passed) is the group's member `on`:
 * p->page.on, p->list.on, p->tnd.on, p->mask.on, p->padding.on,
 * p->pse.on, p->antiquant.on, p->int8_out.on, p->int8_quant.on,
 * p->sink.on, p->query_quant.on; the rope, sparse and prefix groups have
 * none (rope.D > 0, sparse.mode, prefix.P > 0 say it). */
typedef struct fast_plan {
    bool empty;              /* empty query: nothing to compute */
    bool kv_return;          /* profile cann, no batch reads a key: the
                                released code's early return (zeros, lse
                                +inf; check_order.c) */
    fast_layout layout;
    fia_dtype dt;            /* FIA_DT_FP16 or FIA_DT_BF16 (in and out) */
    fia_dtype kv_dt;         /* key/value's: dt when !antiquant.on
                                (fast_antiquant_plan) */
    int64_t B, N, KV_N, group, Q_S, KV_S, D;
    int64_t Dk;              /* Q and K rows: D + rope.D (schedule.c) */
    int64_t q_sb, q_sn, q_ss;
    int64_t k_sb, k_sn, k_ss; /* key and value share one shape... */
    /* ...but for a token layout's value narrower than the key (v_own,
     * plan_tnd.c): value's own head and row strides v_sn, v_ss (else the
     * key's, fast_plan_finish) */
    bool v_own;
    int64_t v_sn, v_ss;
    /* attention_out's strides o_* (executor.c); BSH_NBSD, BSND_NBSD,
     * BNSD_NBSD (o_nbsd; check_layout.c; 003 input_layout): the query,
     * key and value in the layout before the `_` (layout), attention_out
     * [N, B, Q_S, D]. */
    bool o_nbsd;
    int64_t o_sb, o_sn, o_ss;

    float scale;             /* applied in float32 after Q.K^T */
    int inner_precise;       /* 0..3 */
    bool round_p;            /* round P to the input dtype before P.V */
    bool row_invalid;        /* inner_precise bit 1 */

    /* Data (may be NULL in status-only runs; checked in phase two). */
    const void *q, *k, *v;
    void *out;
    float *lse;              /* NULL unless softmaxLseFlag */
    int64_t q_numel, kv_numel, out_numel, lse_numel;

    /* q_len[b], kv_len[b]: point into the executor's own storage. */
    int64_t *q_len, *kv_len;

    fast_paged_plan page;
    fast_list_plan list;
    fast_tnd_plan tnd;
    fast_rope_plan rope;
    fast_sparse_plan sparse;
    fast_mask_plan mask;
    fast_padding_plan padding;
    fast_prefix_plan prefix;
    fast_pse_plan pse;
    fast_antiquant_plan antiquant;
    fast_int8_out_plan int8_out;
    fast_int8_quant_plan int8_quant;
    fast_sink_plan sink;
    fast_query_quant_plan query_quant;
    fast_schedule sched;
} fast_plan;

#endif
