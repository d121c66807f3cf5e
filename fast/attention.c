/* One task of the blocked online-softmax (flash-attention style) attention:
 * the query rows of a task (one or more heads of a GQA group x a block of
 * query positions, all reading the same K/V rows: no copy of K/V) walk the
 * keys they may use in blocks of FAST_KBLOCK.  Per block: K and V rows are
 * widened to float once (kv_pre: once per run for all tasks, before they
 * start; else per block), S^T = K.Q^T (or the dot form for decode's few
 * rows), one online-softmax step, acc = acc * alpha + P.V.  The arithmetic
 * on blocks is in the micro-kernels (kernel/); which keys a row may use is
 * each feature's reading (run_sparse.c: the band of the sparse mode,
 * run_mask.c: the mask bits, the lengths of the plan), what a row without
 * a key gives is run_precise.c's, and where outputs go run_output.c's.  A decode task covers one KV split and leaves its
 * partial (m, l, acc) for fast_merge_splits (flash-decoding).  When all the
 * few rows of a task use the same keys without a mask (decode), the fused
 * decode kernel (kernel->decode) runs the whole range instead, reading the
 * fp16/bf16 K/V rows directly; if its result is not finite the task is
 * recomputed by the blocked loop, which keeps p = 0 times inf/NaN out.
 *
 * Numerics (RELEASED "Numeric pipeline"): s = (Q.K^T) * scale in float32,
 * with a pse + pse in float32 (kernels.h: bias, before the mask and max);
 * p = exp(s - m) in float32 against the running max, rounded to the input
 * dtype before P.V when round_p (fp16 high-performance, always for bf16);
 * the row sum of the unrounded p in float32; P.V accumulated in float32;
 * the division by the row sum at the end, in double, with one nearest-even
 * rounding to the output dtype; lse = m + log(sum) in double, rounded to
 * float32.  Splits merge as l = sum l_s e^(m_s - M), acc likewise. */
#include <stdlib.h>
#include "fast_internal.h"

#define ALIGN64(x) (((x) + 63u) & ~(uint64_t)63u)

/* Keys ahead whose K/V rows are prefetched (one block). */
#define FAST_PREFETCH 64

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
    const uint16_t **prow, **pblk; /* pse rows at column 0, and a block's */
} scratch;

/* The scratch of one worker, carved from base (or only measured). */
static uint64_t layout(const fast_plan *p, char *base, scratch *s)
{
    uint64_t L = (uint64_t)p->L, Dp = (uint64_t)p->Dp, KB = FAST_KBLOCK;
    uint64_t off = 0;
    scratch dummy;
    if (s == NULL)
        s = &dummy;
#define TAKE(f, type, count)                                  \
    do {                                                      \
        s->f = base ? (type *)(void *)(base + off) : NULL;    \
        off += ALIGN64((uint64_t)(count) * sizeof(type));     \
    } while (0)
    TAKE(q, float, Dp * L);
    TAKE(k, float, KB * Dp);
    TAKE(v, float, KB * Dp);
    TAKE(s, float, KB * L);
    TAKE(acc, float, L * Dp);
    TAKE(m, float, L);
    TAKE(l, float, L);
    TAKE(alpha, float, L);
    TAKE(tmp, float, Dp);
    TAKE(bmax, float, L);
    TAKE(lo, int32_t, L);
    TAKE(hi, int32_t, L);
    TAKE(alo, int64_t, L);
    TAKE(ahi, int64_t, L);
    TAKE(excl, uint8_t, KB * L);
    TAKE(prow, const uint16_t *, L);
    TAKE(pblk, const uint16_t *, L);
#undef TAKE
    return off;
}

uint64_t fast_scratch_bytes(const fast_plan *p)
{
    return layout(p, NULL, NULL);
}

int64_t fast_task_count(const fast_plan *p)
{
    return p->B * p->KV_N * p->n_hsub * p->n_qblk * p->nsplit;
}

/* Where a decode split leaves row (b, n): m, l, then acc at +16. */
static float *partial_rec(const fast_plan *p, float *partials, int64_t b,
                          int64_t n, int64_t split)
{
    return partials + ((b * p->N + n) * p->nsplit + split) * (p->Dp + 16);
}

/* ---- K/V widened once (kv_pre) ------------------------------------------ */
int64_t fast_kvpre_chunks(const fast_plan *p)
{
    const int64_t per = (p->KV_S + FAST_KVPRE_ROWS - 1) / FAST_KVPRE_ROWS;
    return p->B * p->KV_N * per;
}

/* Rows [s0, s1) of one (b, KV head): K and V widened to float rows of Dp
 * (padding columns zero), and whether each V row is finite.  Rows at or
 * beyond kv_len[b] are never read and stay as they are. */
void fast_kvpre_chunk(const fast_plan *p, char *ws, int64_t c)
{
    const fast_kernels *kern = fast_kernels_select();
    const int64_t per = (p->KV_S + FAST_KVPRE_ROWS - 1) / FAST_KVPRE_ROWS;
    const int64_t bh = c / per, s0 = c % per * FAST_KVPRE_ROWS;
    const int64_t b = bh / p->KV_N, kvh = bh % p->KV_N;
    int64_t s1 = s0 + FAST_KVPRE_ROWS;
    s1 = s1 > p->KV_S ? p->KV_S : s1;
    s1 = s1 > p->kv_len[b] ? p->kv_len[b] : s1;
    const int64_t D = p->D, Dp = p->Dp;
    const uint64_t row0 = (uint64_t)bh * (uint64_t)p->KV_S;
    float *kf = (float *)(void *)(ws + p->kv_offset) + row0 * Dp;
    float *vf = (float *)(void *)(ws + p->kv_offset + p->kv_bytes) + row0 * Dp;
    uint8_t *vbad = (uint8_t *)ws + p->vbad_offset + row0;
    const uint16_t *k = fast_k_base(p, b), *v = fast_v_base(p, b);
    for (int64_t j = s0; j < s1; j++) {
        const int64_t o = fast_kv_row(p, b, kvh, j);
        kern->widen(p->dt, k + o, kf + j * Dp, D);
        vbad[j] = !kern->widen(p->dt, v + o, vf + j * Dp, D);
        if (Dp > D) {
            memset(kf + j * Dp + D, 0, (size_t)(Dp - D) * sizeof(float));
            memset(vf + j * Dp + D, 0, (size_t)(Dp - D) * sizeof(float));
        }
    }
}

/* K and V rows j0 .. j0 + nk - 1 of (b, kvh) widened into w->k, w->v
 * (prefetching the rows FAST_PREFETCH keys ahead, up to jmax: decode streams
 * K/V from memory); returns whether every V row is finite. */
static bool widen_block(const fast_plan *p, const fast_kernels *kern,
                        scratch *w, int64_t b, int64_t kvh, int64_t j0,
                        int nk, int64_t jmax)
{
    const uint16_t *k = fast_k_base(p, b), *v = fast_v_base(p, b);
    const int64_t Dp = p->Dp, D = p->D;
    bool vfinite = true;
    for (int c = 0; c < nk;) {
        /* a run of rows at stride k_ss: all of them, or to a block's end */
        const int64_t o = fast_kv_row(p, b, kvh, j0 + c);
        const int run = (int)fast_kv_run(p, j0 + c, nk - c);
        const uint16_t *kr = k + o, *vr = v + o;
        for (int r = 0; r < run; r++, c++) {
            if (j0 + c + FAST_PREFETCH <= jmax) {
                const int64_t po = r + FAST_PREFETCH < run
                    ? o + (r + FAST_PREFETCH) * p->k_ss
                    : fast_kv_row(p, b, kvh, j0 + c + FAST_PREFETCH);
                const char *pk = (const char *)(k + po);
                const char *pv = (const char *)(v + po);
                for (int64_t x = 0; x < D * 2; x += 64) {
                    __builtin_prefetch(pk + x);
                    __builtin_prefetch(pv + x);
                }
            }
            kern->widen(p->dt, kr + r * p->k_ss, w->k + c * Dp, D);
            vfinite &= kern->widen(p->dt, vr + r * p->k_ss, w->v + c * Dp, D);
        }
    }
    return vfinite;
}

/* A key that takes part with weight p = 0 (its score -inf, or its weight
 * underflowed) still multiplies its values, and 0 * inf = 0 * NaN = NaN
 * (docs/semantics.md "Non-finite inputs").  The portable P.V, run on a
 * block with non-finite values, skips p = 0 so that keys that take no part
 * (outside the row's band, masked) leave nothing; this puts the NaN of
 * the others into their rows' accumulators.  Cost: one pass over the
 * block's P, only on blocks with a non-finite value. */
static void weight0_nonfinite(const fast_plan *p, scratch *w, int mr, int nk,
                              bool masked, const float *vblk)
{
    const int64_t L = p->L, Dp = p->Dp, D = p->D;
    for (int r = 0; r < mr; r++)
        for (int c = w->lo[r]; c <= w->hi[r] && c < nk; c++) {
            if (w->s[c * L + r] != 0.0f || (masked && w->excl[c * L + r]))
                continue;
            const float *vc = vblk + c * Dp;
            for (int64_t d = 0; d < D; d++)
                if (!isfinite(vc[d]))
                    w->acc[r * Dp + d] = NAN;
        }
}

/* Blocks of keys [jmin, jmax] for the mr rows of the task, of batch b and
 * KV head kvh; kf, vf, vbad: that head's rows widened once (kv_pre), or
 * NULL. */
static void key_loop(const fast_plan *p, const fast_kernels *kern,
                     scratch *w, int mr, bool dot, int64_t b, int64_t kvh,
                     int64_t i0, int nq, int64_t jmin, int64_t jmax,
                     const float *kf, const float *vf, const uint8_t *vbad)
{
    const int64_t L = p->L, Dp = p->Dp, D = p->D;
    const uint8_t *mask = p->mask;
    const bool pse = p->pse_given;
    const int round = !p->round_p ? 0 : p->dt == FIA_DT_FP16 ? 1 : 2;
    for (int64_t j0 = jmin; j0 <= jmax; j0 += FAST_KBLOCK) {
        int nk = jmax + 1 - j0 < FAST_KBLOCK ? (int)(jmax + 1 - j0)
                                             : FAST_KBLOCK;
        bool vfinite = true;
        const float *kblk = w->k, *vblk = w->v;
        if (kf != NULL) { /* widened once for the whole run */
            kblk = kf + j0 * Dp;
            vblk = vf + j0 * Dp;
            for (int c = 0; c < nk; c++)
                vfinite &= vbad[j0 + c] == 0;
        } else {
            vfinite = widen_block(p, kern, w, b, kvh, j0, nk, jmax);
        }
        /* every key of the block in every row (and row padding), no
         * mask: Q.K^T with the softmax's first pass fused (qk_t_max; with
         * a pse the bias step gives the block max) */
        bool full = !dot && mask == NULL && kern->qk_t_max != NULL;
        for (int64_t r = 0; r < L; r++) {
            int64_t lo = w->alo[r] - j0, hi = w->ahi[r] - j0;
            if (w->alo[r] > w->ahi[r] || lo >= nk || hi < 0) {
                w->lo[r] = 0, w->hi[r] = -1;
            } else {
                w->lo[r] = lo < 0 ? 0 : (int32_t)lo;
                w->hi[r] = hi >= nk ? nk - 1 : (int32_t)hi;
            }
            full &= lo <= 0 && hi >= nk - 1 && w->alo[r] <= w->ahi[r];
        }
        if (pse) {
            /* Q.K^T, then scale + pse in float32 (kernels.h: bias); rows
             * up to round_up(mr, 16) for softmax_full */
            if (dot)
                kern->qk_dot(w->q, Dp, mr, kblk, Dp, nk, Dp, w->s, L);
            else
                kern->qk_t(w->q, L, full ? (mr + 15) & ~15 : mr, kblk, Dp,
                           nk, D, w->s, L);
            fast_pse_block(p, b, w->prow, mr, j0, w->pblk);
            /* the pse two blocks ahead into L2: two lines of each of the
             * mr rows, rows KV_S apart (no hardware stream follows that
             * many).  The bias kernel's loads still stall: ~3x its
             * in-cache time in the prefill bench, with or without this
             * (which moved the pse/plain ratio within the noise, upwards) */
            for (int r = 0; j0 + 3 * FAST_KBLOCK <= jmax && r < mr; r++)
                for (int x = 0; w->pblk[r] != NULL && x < FAST_KBLOCK; x += 32)
                    __builtin_prefetch(w->pblk[r] + 2 * FAST_KBLOCK + x, 0,
                                       2);
            kern->bias(p->dt, w->pblk, mr, nk, p->scale, w->s, L,
                       full ? w->bmax : NULL);
            if (full)
                kern->softmax_full(w->s, L, mr, nk, w->bmax, round, w->m,
                                   w->l, w->alpha);
        } else if (full) {
            kern->qk_t_max(w->q, L, mr, kblk, Dp, nk, D, p->scale, w->s, L,
                           w->bmax);
            kern->softmax_full(w->s, L, mr, nk, w->bmax, round, w->m, w->l,
                               w->alpha);
        } else if (dot) {
            kern->qk_dot(w->q, Dp, mr, kblk, Dp, nk, Dp, w->s, L);
        } else {
            kern->qk_t(w->q, L, mr, kblk, Dp, nk, D, w->s, L);
        }
        if (mask)
            fast_mask_block(p, b, i0, nq, mr, j0, nk, w->lo, w->hi, w->excl,
                            L);
        if (!full) /* with a pse the scores are scaled already */
            kern->softmax(w->s, L, mr, nk, pse ? 1.0f : p->scale, w->lo,
                          w->hi, mask ? w->excl : NULL, round, w->m, w->l,
                          w->alpha);
        /* p = 0 times inf or NaN in V must stay out: the scalar P.V skips
         * p = 0 (keys that take no part). */
        const fast_kernels *pvk = vfinite ? kern : &fast_kernels_scalar;
        pvk->pv(w->s, L, mr, vblk, Dp, nk, Dp, w->alpha, w->acc, Dp);
        if (!vfinite)
            weight0_nonfinite(p, w, mr, nk, mask != NULL, vblk);
    }
}

/* One task: which batch, KV head, query heads and rows, and which keys. */
typedef struct task {
    int64_t b, kvh, split;
    int64_t n0, i0;          /* first query head and row */
    int nq, mr;              /* rows per head; M = heads x rows */
    int64_t q_len, kv_len;   /* the batch's effective lengths */
    int64_t k0, k1;          /* the keys of the split: [k0, k1) */
    bool correct;            /* a row without a key is 0, lse +inf */
    bool dot;                /* few rows: the dot-form Q.K^T */
} task;

/* Task index t < fast_task_count(p) to its coordinates; the query blocks
 * of a (head run) are taken in reverse: long rows (causal) first. */
static void task_locate(const fast_plan *p, int64_t t, task *k)
{
    k->split = t % p->nsplit;
    t /= p->nsplit;
    const int64_t qblk = p->n_qblk - 1 - t % p->n_qblk; /* long rows first */
    t /= p->n_qblk;
    const int64_t hs = t % p->n_hsub;
    t /= p->n_hsub;
    k->kvh = t % p->KV_N, k->b = t / p->KV_N;
    k->n0 = k->kvh * p->group + hs * p->hpt;
    const int64_t nh = p->group - hs * p->hpt < p->hpt
                           ? p->group - hs * p->hpt : p->hpt;
    k->i0 = qblk * p->qb;
    k->nq = (int)(p->Q_S - k->i0 < p->qb ? p->Q_S - k->i0 : p->qb);
    k->mr = (int)nh * k->nq; /* row r: head n0 + r / nq, i0 + r % nq */
    k->q_len = p->q_len[k->b], k->kv_len = p->kv_len[k->b];
    k->k0 = k->split * p->kv_chunk, k->k1 = k->k0 + p->kv_chunk;
    k->k1 = k->k1 > k->kv_len ? k->kv_len : k->k1;
    k->correct = fast_row_corrected(p, k->q_len, k->kv_len);
    k->dot = k->mr <= FAST_DOT_MAX;
}

/* The keys of every row of the task within its split, [alo, ahi] (empty
 * for padding rows), the running max and sum reset; returns the union
 * [*jmin, *jmax] (*jmax < 0 when no row uses a key). */
static void task_bands(const fast_plan *p, const task *k, scratch *w,
                       int64_t *jmin_out, int64_t *jmax_out)
{
    int64_t jmin = INT64_MAX, jmax = -1;
    for (int64_t r = 0; r < p->L; r++) {
        int64_t i = k->i0 + r % k->nq;
        w->alo[r] = 0, w->ahi[r] = -1;
        if (r < k->mr && i < k->q_len && k->kv_len > 0) {
            fast_row_band(p, i, k->q_len, k->kv_len, &w->alo[r], &w->ahi[r]);
            w->alo[r] = w->alo[r] < k->k0 ? k->k0 : w->alo[r];
            w->ahi[r] = w->ahi[r] > k->k1 - 1 ? k->k1 - 1 : w->ahi[r];
        }
        if (w->alo[r] <= w->ahi[r]) {
            jmin = w->alo[r] < jmin ? w->alo[r] : jmin;
            jmax = w->ahi[r] > jmax ? w->ahi[r] : jmax;
        }
        w->m[r] = -INFINITY;
        w->l[r] = 0.0f;
    }
    *jmin_out = jmin;
    *jmax_out = jmax;
}

/* Q^T [d][r] for the register-tiled Q.K^T (widened and transposed 16 rows
 * at a time: every column up to L is written), or Q rows [r][d] for the
 * dot form; rows that use no key are zero. */
static void task_load_q(const fast_plan *p, const fast_kernels *kern,
                        const task *k, scratch *w)
{
    const int64_t L = p->L, Dp = p->Dp, D = p->D;
    const int mr = k->mr, nq = k->nq;
    if (k->dot)
        memset(w->q, 0, (size_t)(Dp * L) * sizeof(float));
    for (int r0 = 0; r0 < mr; r0 += 16) {
        const int rn = mr - r0 < 16 ? mr - r0 : 16;
        const uint16_t *rows[16];
        for (int r = r0; r < r0 + rn; r++)
            rows[r - r0] = w->alo[r] > w->ahi[r]
                ? NULL /* uses no key: zero */
                : (const uint16_t *)p->q +
                      fast_q_row(p, k->b, k->n0 + r / nq, k->i0 + r % nq);
        if (!k->dot) {
            kern->widen_t(p->dt, rows, rn, D, w->q + r0, L);
            continue;
        }
        for (int r = 0; r < rn; r++)
            if (rows[r] != NULL)
                kern->widen(p->dt, rows[r], w->q + (r0 + r) * Dp, D);
    }
}

/* The pse row of each row of the task at column 0 (NULL for rows that use
 * no key: padding rows are never read). */
static void task_pse_rows(const fast_plan *p, const task *k, scratch *w)
{
    for (int r = 0; r < k->mr; r++)
        w->prow[r] = w->alo[r] > w->ahi[r]
            ? NULL
            : fast_pse_row(p, k->b, k->n0 + r / k->nq, k->i0 + r % k->nq);
}

/* Keys [jmin, jmax] of the task through the fused decode kernel, in
 * calls of up to 64 blocks of FAST_DEC_KB keys, each block's K and V rows
 * read where they are (a paged cache's blocks anywhere: block_size is a
 * multiple of 16, so a block of 16 keys lies in one of them, unless a
 * range starts off the grid; such a partial block ends its call).
 * Returns false when the kernel's result is not finite. */
static bool decode_range(const fast_plan *p, const fast_kernels *kern,
                         const task *k, scratch *w, int64_t jmin,
                         int64_t jmax, int round)
{
    const uint16_t *kc = fast_k_base(p, k->b), *vc = fast_v_base(p, k->b);
    const uint16_t *kp[64], *vp[64];
    for (int64_t j = jmin; j <= jmax;) {
        const int64_t start = j;
        int n = 0;
        while (j <= jmax && n < 64) {
            const int64_t o = fast_kv_row(p, k->b, k->kvh, j);
            const int64_t run = fast_kv_run(p, j, jmax + 1 - j);
            const int64_t g = run < FAST_DEC_KB ? run : FAST_DEC_KB;
            kp[n] = kc + o, vp[n] = vc + o, n++;
            j += g;
            if (g < FAST_DEC_KB)
                break; /* only the last block of a call may be short */
        }
        const uint16_t *const *bias = NULL; /* the pse from key start on */
        if (p->pse_given) {
            fast_pse_block(p, k->b, w->prow, k->mr, start, w->pblk);
            bias = w->pblk;
        }
        if (!kern->decode(w->q, p->Dp, k->mr, kp, vp, p->k_ss, bias,
                          j - start, p->D, p->dt, p->scale, round, w->m,
                          w->l, w->acc, p->Dp))
            return false;
    }
    return true;
}

/* The keys [jmin, jmax] of the task: the fused decode kernel when every
 * row uses every key of the range (no mask), else (or when its result is
 * not finite) the blocked loop; leaves m, l and acc. */
static void task_keys(const fast_plan *p, const fast_kernels *kern,
                      const char *ws, const task *k, scratch *w,
                      int64_t jmin, int64_t jmax)
{
    const int64_t Dp = p->Dp, D = p->D;
    const int mr = k->mr;
    memset(w->acc, 0, (size_t)(mr * Dp) * sizeof(float));
    const float *kf = NULL, *vf = NULL;
    const uint8_t *vbad = NULL;
    if (p->kv_pre) {
        const uint64_t row0 = (uint64_t)(k->b * p->KV_N + k->kvh) *
                              (uint64_t)p->KV_S;
        kf = (const float *)(const void *)(ws + p->kv_offset) + row0 * Dp;
        vf = (const float *)(const void *)(ws + p->kv_offset +
                                           p->kv_bytes) + row0 * Dp;
        vbad = (const uint8_t *)ws + p->vbad_offset + row0;
    }
    /* Decode: the fused kernel when every row uses every key of the
     * range (no mask); a non-finite result is recomputed below. */
    bool uniform = k->dot && kern->decode != NULL && p->mask == NULL &&
                   D % 16 == 0;
    for (int r = 0; uniform && r < mr; r++)
        uniform = w->alo[r] == jmin && w->ahi[r] == jmax;
    bool done = false;
    if (uniform) {
        const int round = !p->round_p ? 0
                          : p->dt == FIA_DT_FP16 ? 1 : 2;
        done = decode_range(p, kern, k, w, jmin, jmax, round);
        if (!done) {
            for (int r = 0; r < mr; r++)
                w->m[r] = -INFINITY, w->l[r] = 0.0f;
            memset(w->acc, 0, (size_t)(mr * Dp) * sizeof(float));
        }
    }
    if (!done)
        key_loop(p, kern, w, mr, k->dot, k->b, k->kvh, k->i0, k->nq, jmin,
                 jmax, kf, vf, vbad);
}

/* The rows of the task: a decode split's partial (m, l, acc) for the
 * merge, or the output row and lse. */
static void task_store(const fast_plan *p, const fast_kernels *kern,
                       const task *k, scratch *w, float *partials)
{
    const int64_t Dp = p->Dp, D = p->D;
    for (int r = 0; r < k->mr; r++) {
        int64_t n = k->n0 + r / k->nq, i = k->i0 + r % k->nq;
        if (p->nsplit <= 1 && !fast_row_exists(p, k->b, i))
            continue; /* a token layout's batch ends before the block */
        if (p->nsplit > 1) {
            float *rec = partial_rec(p, partials, k->b, n, k->split);
            rec[0] = w->m[r];
            rec[1] = w->l[r];
            if (w->l[r] != 0.0f)
                memcpy(rec + 16, w->acc + r * Dp, (size_t)D * sizeof(float));
        } else if (i >= k->q_len || k->kv_len == 0) {
            /* padding rows (unspecified) and empty key sequences (002
             * 入参为空的处理; RELEASED): zeros, lse +inf. */
            fast_store_zero(p, k->b, n, i);
        } else if (w->l[r] == 0.0f) {
            if (k->correct) /* row-invalid correction: 0, lse +inf */
                fast_store_zero(p, k->b, n, i);
            else
                fast_degenerate_mean(p, k->b, n, i, k->kv_len, w->tmp);
        } else if (fast_pse_all_dropped(p, w->m[r])) {
            fast_store_nan(p, k->b, n, i); /* every key's score -inf */
        } else {
            kern->store(p->dt, w->acc + r * Dp, (double)w->l[r],
                        fast_out_row(p, k->b, n, i), D);
            fast_store_lse(p, k->b, n, i, (double)w->m[r] + log((double)w->l[r]));
        }
    }
}

void fast_run_task(const fast_plan *p, const char *ws, void *scr,
                   float *partials, int64_t t)
{
    const fast_kernels *kern = fast_kernels_select();
    scratch w;
    layout(p, scr, &w);
    task k;
    task_locate(p, t, &k);
    int64_t jmin, jmax;
    task_bands(p, &k, &w, &jmin, &jmax);
    if (jmax >= 0) {
        task_load_q(p, kern, &k, &w);
        if (p->pse_given)
            task_pse_rows(p, &k, &w);
        task_keys(p, kern, ws, &k, &w, jmin, jmax);
    }
    task_store(p, kern, &k, &w, partials);
}

void fast_merge_splits(const fast_plan *p, float *partials, void *scr)
{
    const fast_kernels *kern = fast_kernels_select();
    scratch w;
    layout(p, scr, &w);
    for (int64_t b = 0; b < p->B; b++) {
        const int64_t kv_len = p->kv_len[b];
        if (!fast_row_exists(p, b, 0))
            continue; /* a token layout's batch without query tokens */
        for (int64_t n = 0; n < p->N; n++) {
            if (kv_len == 0) {
                fast_store_zero(p, b, n, 0);
                continue;
            }
            float mx = -INFINITY;
            for (int64_t s = 0; s < p->nsplit; s++) {
                const float *rec = partial_rec(p, partials, b, n, s);
                if (rec[1] != 0.0f && rec[0] > mx)
                    mx = rec[0];
            }
            double l = 0.0;
            bool first = true;
            for (int64_t s = 0; s < p->nsplit; s++) {
                const float *rec = partial_rec(p, partials, b, n, s);
                if (rec[1] == 0.0f)
                    continue; /* no key of this split takes part */
                float wt = rec[0] == mx ? 1.0f : expf(rec[0] - mx);
                l += (double)(rec[1] * wt);
                for (int64_t d = 0; d < p->D; d++)
                    w.tmp[d] = (first ? 0.0f : w.tmp[d]) + rec[16 + d] * wt;
                first = false;
            }
            if (first) { /* no key at all */
                if (fast_row_corrected(p, 1, kv_len))
                    fast_store_zero(p, b, n, 0);
                else
                    fast_degenerate_mean(p, b, n, 0, kv_len, w.tmp);
                continue;
            }
            if (fast_pse_all_dropped(p, mx)) { /* every key's score -inf */
                fast_store_nan(p, b, n, 0);
                continue;
            }
            kern->store(p->dt, w.tmp, l, fast_out_row(p, b, n, 0), p->D);
            fast_store_lse(p, b, n, 0, (double)mx + log(l));
        }
    }
}
