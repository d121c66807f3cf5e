/* fast/ internals: the plan that phase one (validate.c and its checks,
 * validate.h) builds and phase two (executor.c, schedule.c, attention.c)
 * runs, the narrow-float conversions fast/ uses in its inner loops, and
 * the micro-kernel tables (kernel/: one file per operation and level)
 * chosen at run time (kernel/dispatch.c).
 *
 * Nothing here is shared with oracle/ or ref/. */
#ifndef FIA_FAST_INTERNAL_H
#define FIA_FAST_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "fia/error.h"
#include "fia/fast.h"

/* ---- layouts ---------------------------------------------------------- */
typedef enum fast_layout {
    FAST_LAYOUT_BSH = 0,
    FAST_LAYOUT_BSND,
    FAST_LAYOUT_BNSD,
    FAST_LAYOUT_BNSD_BSND
} fast_layout;

/* ---- blocking --------------------------------------------------------- */
/* A task is (batch, KV head, a run of the query heads sharing it, a block of
 * query rows, a KV split): its M = heads x rows query rows all read the same
 * K/V rows (GQA without copying K/V), converted to float once per block. */
#define FAST_MROWS 128  /* target M (query rows of one task) */
#define FAST_KBLOCK 64  /* keys per inner step */
#define FAST_DOT_MAX 8  /* M <= this: the dot-form Q.K^T (decode) */
#define FAST_MAX_THREADS 16
#define FAST_SPLIT_MAX_BYTES ((uint64_t)64 << 20) /* decode partials cap */
/* Prefill: K/V widened to float once per run into the workspace (every
 * K/V row is read by many tasks) when it takes at most this many bytes. */
#define FAST_KVPRE_MAX_BYTES ((uint64_t)256 << 20)
#define FAST_KVPRE_ROWS 256 /* rows of one conversion chunk */

/* Key/value tensor lists hold one tensor per batch, at most this many (002
 * 约束说明: "非连续场景下B不能大于256"). */
#define FAST_LIST_MAX 256

/* The largest head dim (002: D <= 512, both paths). */
#define FAST_D_LIMIT 512

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

struct fast_executor {
    uint32_t magic;
    fast_plan plan;
    int64_t lens[]; /* 2 * B: q_len then kv_len (logical: a shared
                       prefix's P + own; token layouts 4 * B: then
                       q_tok, kv_tok; left padding 4 * B: then q_start,
                       kv_start) */
};
#define FAST_EXECUTOR_MAGIC 0xFA57E8ECu

/* The tensors batch b's key and value rows lie in: tensor b of a list, or
 * the one key / value tensor (a paged cache too). */
static inline const uint16_t *fast_k_base(const fast_plan *p, int64_t b)
{
    return (const uint16_t *)(p->list.on ? p->list.k[b] : p->k);
}
static inline const uint16_t *fast_v_base(const fast_plan *p, int64_t b)
{
    return (const uint16_t *)(p->list.on ? p->list.v[b] : p->v);
}

/* Element offset of the batch's own key/value row j of batch b, KV head
 * h, from fast_k_base / fast_v_base (contiguous, a list's tensor, or
 * paged).  Key j of a kv left-padding scene is physical row kv_start[b] +
 * j (only contiguous key/value take the scene).  The logical key j of a
 * call with a shared prefix: fast_kv_src. */
static inline int64_t fast_kv_row(const fast_plan *p, int64_t b, int64_t h,
                                  int64_t j)
{
    if (p->list.on)
        return h * p->list.sn[b] + j * p->k_ss;
    if (p->page.on) { /* any layout, a token one too (MLA) */
        const int64_t id =
            p->page.bt[b * p->page.bt_cols + j / p->page.block_size];
        return id * p->page.k_sblk + h * p->k_sn +
               (j % p->page.block_size) * p->k_ss;
    }
    if (p->tnd.on)
        return (p->tnd.kv_tok[b] + j) * p->k_ss + h * p->k_sn;
    const int64_t s = p->padding.kv_start ? p->padding.kv_start[b] + j : j;
    return b * p->k_sb + h * p->k_sn + s * p->k_ss;
}

/* Element offset of the value row of the batch's own key j (as
 * fast_kv_row, whose offset o it is unless the value has strides of its
 * own: a token layout's narrower value, no list, cache or padding). */
static inline int64_t fast_v_row(const fast_plan *p, int64_t b, int64_t h,
                                 int64_t j, int64_t o)
{
    return p->v_own ? (p->tnd.kv_tok[b] + j) * p->v_ss + h * p->v_sn : o;
}

/* Element offset of column d within a K/V row: d, or in an NZ cache
 * (d / nz_w) tiles of k_sd on and d % nz_w into the tile. */
static inline int64_t fast_kv_col(const fast_plan *p, int64_t d)
{
    return p->page.nz ? d / p->page.nz_w * p->page.k_sd + d % p->page.nz_w : d;
}

/* MLA: element offset of key_rope's row of the batch's own key j of batch
 * b, KV head h, from p->rope.k (as fast_kv_row; MLA takes no list, prefix or
 * kv left padding). */
static inline int64_t fast_kr_row(const fast_plan *p, int64_t b, int64_t h,
                                  int64_t j)
{
    if (p->page.on) {
        const int64_t id =
            p->page.bt[b * p->page.bt_cols + j / p->page.block_size];
        return id * p->rope.k_sblk + h * p->rope.k_sn +
               (j % p->page.block_size) * p->rope.k_ss;
    }
    if (p->tnd.on)
        return (p->tnd.kv_tok[b] + j) * p->rope.k_ss + h * p->rope.k_sn;
    return b * p->rope.k_sb + h * p->rope.k_sn + j * p->rope.k_ss;
}

/* The physical row of query row i (< Q_S) of batch b in query,
 * attention_out and softmax_lse: i, or in a query left-padding scene
 * q_start[b] + i, where rows i >= q_len[b] (padding, unspecified) wrap
 * round to the rows before q_start[b]: every row of the axis once, none
 * outside it. */
static inline int64_t fast_q_phys(const fast_plan *p, int64_t b, int64_t i)
{
    if (p->padding.q_start == NULL)
        return i;
    const int64_t r = p->padding.q_start[b] + i;
    return r < p->Q_S ? r : r - p->Q_S;
}

/* Element offset of query row (b, n, i) from p->q. */
static inline int64_t fast_q_row(const fast_plan *p, int64_t b, int64_t n,
                                 int64_t i)
{
    const int64_t base = p->tnd.on ? p->tnd.q_tok[b] * p->q_ss : b * p->q_sb;
    return base + n * p->q_sn + fast_q_phys(p, b, i) * p->q_ss;
}

/* MLA: element offset of query_rope's row (b, n, i) from p->rope.q. */
static inline int64_t fast_qr_row(const fast_plan *p, int64_t b, int64_t n,
                                  int64_t i)
{
    const int64_t base =
        p->tnd.on ? p->tnd.q_tok[b] * p->rope.q_ss : b * p->rope.q_sb;
    return base + n * p->rope.q_sn + fast_q_phys(p, b, i) * p->rope.q_ss;
}

/* The pse column of key j of batch b: the key's physical column (kv_start
 * + j with kv left padding), the logical key j with a paged cache or a
 * list, and with a shared prefix (prefix key j at column j, own key j at
 * P + j: j is logical already, and left padding never comes with a
 * prefix, so the column is the same for every batch).  The pse of a block
 * of keys is read from the column of its first key on, contiguous. */
static inline int64_t fast_pse_col(const fast_plan *p, int64_t b, int64_t j)
{
    return p->padding.kv_start ? p->padding.kv_start[b] + j : j;
}

/* The pse row of query row i (< Q_S) of batch b, head n, at column 0. */
static inline const uint16_t *fast_pse_row(const fast_plan *p, int64_t b,
                                           int64_t n, int64_t i)
{
    return p->pse.data + b * p->pse.sb + n * p->pse.sn +
           fast_q_phys(p, b, i) * p->pse.ss;
}

/* Row i of batch b is part of attention_out: always but in a token layout,
 * where a batch has q_len[b] rows and the next batch's tokens follow. */
static inline bool fast_row_exists(const fast_plan *p, int64_t b, int64_t i)
{
    return !p->tnd.on || i < p->q_len[b];
}

/* Key and value row of logical key j of batch b, KV head h: prefix row j
 * (j < P, the same for every batch), else the batch's own row j - P. */
static inline void fast_kv_src(const fast_plan *p, int64_t b, int64_t h,
                               int64_t j, const uint16_t **k,
                               const uint16_t **v)
{
    if (j < p->prefix.P) {
        const int64_t o = h * p->prefix.k_sn + j * p->k_ss;
        *k = (const uint16_t *)p->prefix.k + o;
        *v = (const uint16_t *)p->prefix.v + o;
        return;
    }
    const int64_t o = fast_kv_row(p, b, h, j - p->prefix.P);
    *k = fast_k_base(p, b) + o;
    *v = fast_v_base(p, b) + fast_v_row(p, b, h, j - p->prefix.P, o);
}

/* How many of the n logical keys from j on lie at stride k_ss (their
 * values at v_ss) from key j:
 * all of them, up to the prefix's end, or paged up to the end of j's
 * block. */
static inline int64_t fast_kv_run(const fast_plan *p, int64_t j, int64_t n)
{
    if (j < p->prefix.P)
        return p->prefix.P - j < n ? p->prefix.P - j : n;
    if (!p->page.on)
        return n;
    j -= p->prefix.P; /* the own row (a cache takes no prefix: P = 0) */
    const int64_t left = p->page.block_size - j % p->page.block_size;
    return left < n ? left : n;
}

/* ---- errors ------------------------------------------------------------- */
/* A lower layer returns its status and fills an fia_error with
 * "<check id>: message" (the check ids start fastLastError()); only the
 * entry (api.c) records it as the thread's last error.  Fills *err (may be
 * NULL) with st and that message; returns st.  (validate.c) */
fia_status fast_fail(fia_error *err, fia_status st, const char *check,
                     const char *fmt, ...) FIA_PRINTF(4, 5);

/* ---- executor (executor.c) -------------------------------------------- */
/* Fills the layout strides and the workspace size of a validated plan. */
void fast_plan_finish(fast_plan *plan);
/* plan_tnd.c: a token layout's value narrower than the query (Dv < D, no
 * rope), after the strides: the run's D becomes Dv, the Q and K columns
 * past it a rope read from the query's and key's own rows. */
void fast_plan_narrow_value(fast_plan *p);
/* Allocates an executor for a validated, finished plan: copies the plan and
 * expands the (validated) length arrays into q_len / kv_len per batch; asl
 * NULL means Q_S for every batch, aslkv NULL means KV_S.  FIA_ERR_NOMEM
 * ("NOMEM: ...") when the allocation fails. */
fia_status fast_executor_create(const fast_plan *plan,
                                const fia_int_array *asl,
                                const fia_int_array *aslkv,
                                fast_executor **out, fia_error *err);
/* Phase two's checks of a run (RELEASED "Return codes"): the workspace and
 * the data of the tensors; "<check id>: message" in *err on failure. */
fia_status fast_executor_check_run(const fast_executor *ex,
                                   const void *workspace,
                                   uint64_t workspace_size, fia_error *err);

/* ---- attention (attention.c, schedule.c) ------------------------------- */
/* Fills the schedule fields of a validated plan (after the strides). */
void fast_plan_schedule(fast_plan *p);
/* FIA_FAST_THREADS (1..FAST_MAX_THREADS), default 2 (also when invalid:
 * fastConfigError says so). */
int fast_thread_count(void);

/* ---- settings from the environment (settings.c) ------------------------ */
/* The level FIA_FAST_ISA names (any case): a fast_isa; FAST_ISA_COUNT when
 * unset, empty or "auto"; -1 when it names no level. */
int fast_isa_setting(void);
/* FIA_FAST_THREADS: 1..FAST_MAX_THREADS; 0 when unset or empty; -1 when it
 * is not a whole number in that range. */
int fast_threads_setting(void);
/* Bytes of scratch one worker needs for this plan (multiple of 64). */
uint64_t fast_scratch_bytes(const fast_plan *p);
/* Runs the whole operator; ws is the 64-byte aligned workspace. */
void fast_attention_run(const fast_plan *p, void *ws);
/* One task (attention.c): task index t < fast_task_count(p), on the scratch
 * of one worker (ws: the aligned workspace, for the kv_pre K/V); a decode split writes its partial result for the merge. */
int64_t fast_task_count(const fast_plan *p);
void fast_run_task(const fast_plan *p, const char *ws, void *scratch,
                   float *partials, int64_t t);
/* Decode: combines the splits of every (b, n) row and writes it. */
void fast_merge_splits(const fast_plan *p, float *partials, void *scratch);
/* kv_pre: chunk index c < fast_kvpre_chunks(p) of the K/V conversion. */
int64_t fast_kvpre_chunks(const fast_plan *p);
void fast_kvpre_chunk(const fast_plan *p, char *ws, int64_t c);

/* ---- the run's reading of each feature (run_<feature>.c) --------------- */
/* run_padding.c: reads the padding values (device data) and fills q_start /
 * kv_start, a batch whose rows would start before row 0 emptied (its
 * lengths set to 0); R_NO_DATA (361001) when a scene's padding tensor has
 * no data.  Before anything runs; the executor is consumed by the run. */
fia_status fast_padding_apply(fast_plan *p, fia_error *err);
/* run_sparse.c: keys [*lo, *hi] of row i (empty when *lo > *hi). */
void fast_row_band(const fast_plan *p, int64_t i, int64_t q_len,
                   int64_t kv_len, int64_t *lo, int64_t *hi);
/* run_mask.c: the mask bits of keys j0 .. j0 + nk - 1 into excl. */
void fast_mask_block(const fast_plan *p, int64_t b, int64_t i0, int nq,
                     int mr, int64_t j0, int nk, const int32_t *lo,
                     const int32_t *hi, uint8_t *excl, int64_t ld);
/* run_mask.c: whether a key of [jlo, jhi] is open for query row i of
 * batch b (no mask: the range is not empty). */
bool fast_mask_any_open(const fast_plan *p, int64_t b, int64_t i,
                        int64_t jlo, int64_t jhi);
/* run_precise.c: whether a row without a key is corrected (0, lse +inf),
 * and the uncorrected one (the mean of V). */
bool fast_row_corrected(const fast_plan *p, int64_t q_len, int64_t kv_len);
void fast_degenerate_mean(const fast_plan *p, int64_t b, int64_t n,
                          int64_t i, int64_t kv_len, float *tmp);
/* run_output.c: where row (b, n, i)'s output and lse go; fast_store_row
 * stores acc / l there, rounded to dt or, an int8 output, quantized
 * (store / store_int8_out of kern, NULL: the portable ones). */
uint16_t *fast_out_row(const fast_plan *p, int64_t b, int64_t n, int64_t i);
struct fast_kernels;
void fast_store_row(const fast_plan *p, int64_t b, int64_t n, int64_t i,
                    const float *acc, double l,
                    const struct fast_kernels *kern);
/* An int8 output row of D copies of v. */
void fast_store_int8_out_fill(const fast_plan *p, int64_t b, int64_t n,
                              int64_t i, int8_t v);
void fast_store_lse(const fast_plan *p, int64_t b, int64_t n, int64_t i,
                    double x);
void fast_store_zero(const fast_plan *p, int64_t b, int64_t n, int64_t i);
/* The released code's early return for a call that reads no key (profile
 * cann, p->kv_return; check_order.c): attention_out all zero bytes, every
 * softmax_lse element +inf, whatever shapes its later stage would have
 * refused (so through the element counts, not the rows). */
void fast_store_kv_return(const fast_plan *p);
/* run_sink.c, with p->sink.on: ends row (b, n, i) whose keys left the
 * running max m, sum l and acc (D floats), the sink of head n taking part:
 * output acc / (l + e^(sink - m)) and lse M + log(l e^(m - M) + e^(sink -
 * M)), M = max(m, sink).  Also for a row whose keys all scored -inf (l =
 * 0, or the pse's clamp: fast_pse_all_dropped).  Returns false, nothing
 * stored, when the sink takes no part (-inf): the row ends as without
 * one. */
bool fast_sink_end(const fast_plan *p, int64_t b, int64_t n, int64_t i,
                   float m, double l, const float *acc,
                   const struct fast_kernels *kern);
/* run_pse.c: the pse of keys j0.. of each of mr rows, out[r] = rows[r]
 * (the row at column 0, fast_pse_row; NULL: none) from key j0's column;
 * whether a row's final max m says every key it used scored -inf (the
 * pse_bias kernels clamp -inf to -FLT_MAX; docs/semantics.md: the row is NaN),
 * and that row's NaN output and lse. */
void fast_pse_block(const fast_plan *p, int64_t b,
                    const uint16_t *const *rows, int mr, int64_t j0,
                    const uint16_t **out);
bool fast_pse_all_dropped(const fast_plan *p, float m);
void fast_store_nan(const fast_plan *p, int64_t b, int64_t n, int64_t i);

/* run_antiquant.c (docs/features/antiquant.md), with p->antiquant.on:
 * fast_aq_head: key (kv 0) or value (kv 1)'s per-channel scale and offset
 * of KV head n as D floats (per-tensor, per-head: the constant); false,
 * nothing written, for a per-token form.  fast_aq_key: a per-token form's
 * scale and offset of own key j of batch b, head n (the physical row with
 * kv left padding, the block table's slot with a page-managed form).
 * fast_aq_src: the addresses of own key j's K and V rows (int4: the byte
 * of its first element).  fast_aq_heads: hv = 4 x Dp floats, the key's
 * scale and offset vectors then the value's (zeros for a per-token one).
 * fast_widen_antiquant_rows: keys j0 .. j0 + nk - 1 dequantized (kernels.h:
 * widen_antiquant) into rows kd / vd of stride ldd, hv from fast_aq_heads;
 * returns whether every V value is finite.  fast_aq_decode: keys [jmin,
 * jmax] of the mr rows q (stride Dp) through kern->decode_antiquant, m, l and
 * acc (stride Dp) carried; tok: 4 x 1024 floats of scratch; bias as
 * kern->decode's from key jmin on (NULL: none); false when the result is
 * not finite.  fast_aq_check_data: phase two's R_NO_DATA (361001) when a
 * scale has no data (a status-only run). */
bool fast_aq_head(const fast_plan *p, int kv, int64_t n, float *sv,
                  float *ov);
void fast_aq_key(const fast_plan *p, int kv, int64_t b, int64_t n, int64_t j,
                 float *s, float *o);
void fast_aq_src(const fast_plan *p, int64_t b, int64_t h, int64_t j,
                 const void **k, const void **v);
void fast_aq_heads(const fast_plan *p, int64_t h, float *hv);
struct fast_kernels;
bool fast_widen_antiquant_rows(const fast_plan *p,
                               const struct fast_kernels *kern, int64_t b,
                               int64_t h, int64_t j0, int nk, const float *hv,
                               float *kd, float *vd, int64_t ldd);
bool fast_aq_decode(const fast_plan *p, const struct fast_kernels *kern,
                    int64_t b, int64_t h, const float *q, int mr,
                    int64_t jmin, int64_t jmax, int round,
                    const uint16_t *const *bias, const float *hv, float *tok,
                    float *m, float *l, float *acc);
fia_status fast_aq_check_data(const fast_plan *p, fia_error *err);

/* run_int8_quant.c (docs/features/int8_quant.md), with p->int8_quant.on:
 * fast_int8_quant_check_data: phase two's R_NO_DATA (361001) when a scale has
 * no data (a status-only run).  fast_int8_quant_apply: reads the three scales
 * (a uint64 dequant scale: the float32 of its low 32 bits with bits 12..0
 * cleared, the vendor's 19-bit float) into int8_quant.sc, .qs1,
 * .ds2, before anything runs.  fast_int8_quant_src: the int8 K and V
 * rows of own key j of batch b, KV head h. */
fia_status fast_int8_quant_check_data(const fast_plan *p, fia_error *err);
void fast_int8_quant_apply(fast_plan *p);
void fast_int8_quant_src(const fast_plan *p, int64_t b, int64_t h, int64_t j,
                         const int8_t **k, const int8_t **v);

/* run_query_quant.c (MLA full quantization), with p->query_quant.on:
 * fast_query_quant_check_data: phase two's R_NO_DATA (361001) when a dequant
 * scale has no data (a status-only run).  fast_query_quant_src: the int8 K and
 * V rows of own key j of batch b, KV head h (an NZ cache: the row's first
 * tile).  fast_query_quant_scale: dequant_scale_key (kv 0) / _value (kv 1). */
fia_status fast_query_quant_check_data(const fast_plan *p, fia_error *err);
void fast_query_quant_src(const fast_plan *p, int64_t b, int64_t h, int64_t j,
                          const int8_t **k, const int8_t **v);
float fast_query_quant_scale(const fast_plan *p, int kv);

/* ---- micro-kernels (kernel/) ------------------------------------------ */
/* The table contract, the instruction-set levels and the portable helpers
 * the SIMD tables use for tails. */
#include "kernel/kernels.h"

/* ---- narrow floats ------------------------------------------------------ */
static inline float fast_bits_to_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint32_t fast_float_to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Exact widening of an IEEE binary16. */
static inline float fast_fp16_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) {
        float f = (float)m * 5.9604644775390625e-8f; /* m * 2^-24, exact */
        return sign ? -f : f;
    }
    if (e == 31)
        return fast_bits_to_float(sign | 0x7f800000u | (m << 13));
    return fast_bits_to_float(sign | ((e + 112u) << 23) | (m << 13));
}

static inline float fast_bf16_to_float(uint16_t b)
{
    return fast_bits_to_float((uint32_t)b << 16);
}

/* Round a float to the nearest fp16 value (ties to even), returned as a
 * float.  Used for P before P.V. */
static inline float fast_round_fp16f(float x)
{
    float a = fabsf(x);
    if (!(a < 65520.0f)) /* overflow or NaN */
        return isnan(x) ? x : copysignf(INFINITY, x);
    if (a < 6.103515625e-05f) { /* below 2^-14: spacing 2^-24 */
        float r = rintf(a * 16777216.0f) * 5.9604644775390625e-8f;
        return copysignf(r, x);
    }
    uint32_t u = fast_float_to_bits(x);
    u += 0x0fffu + ((u >> 13) & 1u);
    u &= ~0x1fffu;
    return fast_bits_to_float(u);
}

static inline float fast_round_bf16f(float x)
{
    if (isnan(x))
        return x;
    uint32_t u = fast_float_to_bits(x);
    u += 0x7fffu + ((u >> 16) & 1u);
    u &= 0xffff0000u;
    return fast_bits_to_float(u);
}

/* Round a double once, nearest-even, to fp16 / bf16 bits. */
uint16_t fast_double_to_fp16(double x);
uint16_t fast_double_to_bf16(double x);

#endif
