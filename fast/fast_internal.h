/* fast/ internals: the plan (fast_plan.h) that phase one (validate.c and
 * its checks, validate.h) builds and phase two (executor.c, schedule.c,
 * attention.c) runs, the narrow-float conversions fast/ uses in its inner
 * loops, and the micro-kernel tables (kernel/: one file per operation and
 * level) chosen at run time (kernel/dispatch.c).
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

/* ---- antiquant and the plan (fast_plan.h) ---------------------------- */
#include "fast_plan.h"

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
