/* What one task of the attention (attention.c) and the full int8 key
 * loop (attention_int8_quant.c) share: a worker's scratch and a task's
 * coordinates.  Internal to those two files. */
#ifndef FIA_FAST_ATTENTION_TASK_H
#define FIA_FAST_ATTENTION_TASK_H

#include "fast_internal.h"

typedef struct scratch {
    float *q;           /* Q^T [Dp][L], or rows [L][Dp] for the dot form */
    float *k, *v;       /* [KBLOCK][Dp] */
    float *s;           /* S^T, then P^T: [KBLOCK][L] */
    float *acc;         /* [L][Dp] */
    float *m, *l, *alpha, *tmp;
    float *bmax;        /* block max per row (qk_t_max) */
    int32_t *lo, *hi;   /* keys of each row, relative to the block */
    int64_t *alo, *ahi; /* absolute */
    uint8_t *excl;      /* [KBLOCK][L]: mask bits (modes 0/1, decode) */
    uint16_t *gk, *gv;  /* [FAST_DEC_KB][D]: a decode block across the
                           prefix's end, gathered (with a prefix) */
    const uint16_t **prow, **pblk; /* pse rows at column 0, and a block's */
    float *aqv, *aqt;   /* antiquant: the head's scale / offset vectors
                           (4 x Dp, fast_aq_heads), a decode call's
                           per-token ones (4 x 1024) */
    double *nacc;       /* full int8: P.V's exact sums N [L][Dp] */
    float *keep;        /* full int8: a task's scores, [keep keys][L] */
} scratch;

/* One task: which batch, KV head, query heads and rows, and which keys;
 * or (g0 >= 0) a shared prefix's: rows g0 .. g0 + mr - 1 of its KV head's
 * B x group (row g: batch g / group, head kvh * group + g % group, query
 * row 0). */
typedef struct task {
    int64_t b, kvh, split;
    int64_t n0, i0;          /* first query head and row */
    int nq, mr;              /* rows per head; M = heads x rows */
    int64_t g0;              /* a shared prefix task's first row, or -1 */
    int64_t rec;             /* its partial record (decode) */
    int64_t q_len, kv_len;   /* the batch's effective lengths */
    int64_t k0, k1;          /* the keys of the split: [k0, k1) */
    bool correct;            /* a row without a key is 0, lse +inf */
    bool dot;                /* few rows: the dot-form Q.K^T */
} task;

/* Row r of the task: batch, query head and query row. */
static inline void task_row(const fast_plan *p, const task *k, int r,
                            int64_t *b, int64_t *n, int64_t *i)
{
    if (k->g0 >= 0) {
        const int64_t g = k->g0 + r;
        *b = g / p->group, *n = k->kvh * p->group + g % p->group, *i = 0;
        return;
    }
    *b = k->b, *n = k->n0 + r / k->nq, *i = k->i0 + r % k->nq;
}

/* MLA (run_mla.c): rows r0 .. r0 + rn - 1 of the task's query_rope
 * widened after their D columns, into Q^T's rows D .. Dk - 1 (or the dot
 * form's rows [r][D..]); qrows[r - r0] NULL: the row uses no key (zero).
 * fast_mla_widen_k: key_rope's row of own key j of (b, kvh) widened into
 * dst (rope.D floats; not an NZ key_rope's: attention.c nz_rows). */
void fast_mla_load_q(const fast_plan *p, const fast_kernels *kern,
                     const task *k, scratch *w, int r0, int rn,
                     const uint16_t *const *qrows);
/* An NZ cache's (fast_internal.h, nz) run of rows of one block, own
 * keys j .. j + run - 1 of (b, kvh), widened into the rows of kd, vd
 * (stride ldd), the key's rope after its D columns (kernels.h widen_mla_nz);
 * returns whether every V row is finite, vbad (NULL: not wanted) each V
 * row's own answer. */
bool fast_mla_nz_rows(const fast_plan *p, const fast_kernels *kern,
                      int64_t b, int64_t kvh, int64_t j, int run, float *kd,
                      float *vd, int64_t ldd, uint8_t *vbad);
static inline void fast_mla_widen_k(const fast_plan *p,
                                    const fast_kernels *kern, int64_t b,
                                    int64_t kvh, int64_t j, float *dst)
{
    kern->widen(p->dt, (const uint16_t *)p->rope.k + fast_kr_row(p, b, kvh, j),
                dst, p->rope.D);
}

/* MLA full quantization (run_query_quant.c, p->query_quant):
 * fast_query_quant_load_q, the task's query rows as Q^T (or the dot form's
 * rows), the int8 D columns times their row's dequant_scale_query, the bf16
 * rope after them (rows that use no key zero); fast_query_quant_rows: own keys
 * j0 .. j0 + nk - 1 of (b, kvh) (across blocks) into the rows of kd, vd (stride
 * ldd): int8 K / V times dequant_scale_key / _value, the key's bf16 rope after
 * its D columns; returns whether every V row is finite, vbad (NULL: not wanted)
 * each V row's own answer; the rows of keys up to jmax (-1: none) are
 * prefetched ahead. */
void fast_query_quant_load_q(const fast_plan *p, const fast_kernels *kern,
                             const task *k, scratch *w);
bool fast_query_quant_rows(const fast_plan *p, const fast_kernels *kern,
                           int64_t b, int64_t kvh, int64_t j0, int nk,
                           float *kd, float *vd, int64_t ldd, uint8_t *vbad,
                           int64_t jmax);
/* kv_pre: own keys j0 .. j0 + n - 1 of (b, kvh) as fast_query_quant_rows into
 * the rows of Dp floats kf, vf (their padding columns zero), vbad each V
 * row's answer. */
void fast_query_quant_kvpre_rows(const fast_plan *p, const fast_kernels *kern,
                                 int64_t b, int64_t kvh, int64_t j0, int64_t n,
                                 float *kf, float *vf, uint8_t *vbad);

/* Full int8: the keys whose scores a task keeps between its two passes
 * (attention_int8_quant.c), a multiple of FAST_KBLOCK: up to
 * FAST_INT8_QUANT_KEEP_BYTES of scratch per worker, no more than the longest
 * batch needs. */
#define FAST_INT8_QUANT_KEEP_BYTES ((int64_t)4 << 20)
static inline int64_t fast_int8_quant_keep_keys(const fast_plan *p)
{
    if (!p->int8_quant.on)
        return 0;
    const int64_t most = FAST_INT8_QUANT_KEEP_BYTES /
                         (p->sched.L * (int64_t)sizeof(float)) / FAST_KBLOCK *
                         FAST_KBLOCK;
    const int64_t need = (p->KV_S + FAST_KBLOCK - 1) / FAST_KBLOCK *
                         FAST_KBLOCK;
    return need < most ? need : most;
}

/* Full int8 quantization (attention_int8_quant.c; int8_quant.md): the keys
 * [jmin, jmax] of the task in two passes, the row max then P quantized and P.V;
 * leaves m, l and acc = fl32(N * ds2) for task_store.  kpre / vpre: the
 * batch's K / V rows of KV head k->kvh widened once (kv_pre), or NULL.
 * fast_int8_quant_load_q: the task's int8 query rows as Q^T (rows that use no
 * key zero). */
void fast_int8_quant_load_q(const fast_plan *p, const task *k, scratch *w);
void fast_int8_quant_keys(const fast_plan *p, const fast_kernels *kern,
                          const task *k, scratch *w, const float *kpre,
                          const float *vpre, int64_t jmin, int64_t jmax);
/* kv_pre of an int8 K/V: own rows [s0, s1) of (b, kvh) widened into kf,
 * vf (rows of Dp floats). */
void fast_int8_quant_kvpre_rows(const fast_plan *p, const fast_kernels *kern,
                                int64_t b, int64_t kvh, int64_t s0, int64_t s1,
                                float *kf, float *vf);

#endif
