/* Full int8 quantization's key loop (docs/features/int8_quant.md "The
 * computation"): the task of attention.c (its rows, bands, scratch and
 * stores) with int8 query, key and value.
 *
 * P is quantized against the row's final max (step 4), so the task walks
 * its keys twice: pass 1 computes the scores and the row max (kernel
 * int8_quant_rowmax), pass 2 the same scores again (the same kernels on the
 * same data: the same floats), e = exp(s - m), the row sum of the unquantized
 * e and P = sat(rint(e * qs1)) (kernel int8_quant_pquant), then P.V.  When the
 * task's keys are few enough (fast_int8_quant_keep_keys: its scores fit a few
 * MiB of scratch) pass 1 keeps its scaled scores and pass 2 reads them instead
 * of computing them again: the same floats, a third fewer products (the
 * prefill bench: ~1.1x the fp16 call's time instead of ~1.6x).
 *
 * Exactness: the int8 values widened to float are exact, and a float dot
 * of D <= 512 int8 products is an integer below 2^24, exact whatever the
 * order: the float Q.K^T kernel gives the exact dot.  The scores are
 * fl32(dot * sc), int8_quant.sc = fl32(ds1 * scale) (with a pse the
 * pse_bias kernel's fl32(fl32(dot * sc) + b)).  P.V of a block of
 * FAST_KBLOCK keys is exact in float (|P v| <= 2^14); acc holds at most 16
 * blocks (|sum| <= 1024 * 2^14 = 2^24, every partial sum an integer it holds)
 * before it is added into the double N (exact below 2^53).  The output
 * before its division is fl32(N * ds2), the product formed in long double
 * (x86: 64 bits, exact for |N| < 2^40) and rounded once. */
#include "attention_task.h"

/* Own keys j0 .. j0 + nk - 1 of (b, kvh): K (and V unless vd is NULL)
 * widened into rows of Dp (exact: widen_antiquant at scale 1, offset 0). */
static void widen_rows(const fast_plan *p, const fast_kernels *kern,
                       int64_t b, int64_t kvh, int64_t j0, int64_t nk,
                       float *kd, float *vd)
{
    const int64_t Dp = p->sched.Dp, D = p->D;
    for (int64_t c = 0; c < nk; c++) {
        const int8_t *kr, *vr;
        fast_int8_quant_src(p, b, kvh, j0 + c, &kr, &vr);
        if (kd != NULL)
            kern->widen_antiquant(kr, 0, NULL, NULL, 1.0f, 0.0f, kd + c * Dp,
                                  D);
        if (vd != NULL)
            kern->widen_antiquant(vr, 0, NULL, NULL, 1.0f, 0.0f, vd + c * Dp,
                                  D);
        if (Dp > D && kd != NULL)
            memset(kd + c * Dp + D, 0, (size_t)(Dp - D) * sizeof(float));
        if (Dp > D) {
            if (vd != NULL)
                memset(vd + c * Dp + D, 0, (size_t)(Dp - D) * sizeof(float));
        }
    }
}

void fast_int8_quant_kvpre_rows(const fast_plan *p, const fast_kernels *kern,
                                int64_t b, int64_t kvh, int64_t s0, int64_t s1,
                                float *kf, float *vf)
{
    if (s1 > s0)
        widen_rows(p, kern, b, kvh, s0, s1 - s0, kf + s0 * p->sched.Dp,
                   vf + s0 * p->sched.Dp);
}

void fast_int8_quant_load_q(const fast_plan *p, const task *k, scratch *w)
{
    const int64_t L = p->sched.L, D = p->D;
    /* every column up to L: padding rows zero (the kernels compute them) */
    memset(w->q, 0, (size_t)(p->sched.Dp * L) * sizeof(float));
    for (int r = 0; r < k->mr; r++) {
        if (w->alo[r] > w->ahi[r])
            continue; /* uses no key */
        int64_t b, n, i;
        task_row(p, k, r, &b, &n, &i);
        const int8_t *q = (const int8_t *)p->q + fast_q_row(p, b, n, i);
        for (int64_t d = 0; d < D; d++)
            w->q[d * L + r] = (float)q[d];
    }
}

/* Each row's keys of the block j0 .. j0 + nk - 1 in lo / hi and, with a
 * mask, its bits in excl. */
static void block_bands(const fast_plan *p, const task *k, scratch *w,
                        int64_t j0, int nk)
{
    const int64_t L = p->sched.L;
    for (int64_t r = 0; r < L; r++) {
        const int64_t lo = w->alo[r] - j0, hi = w->ahi[r] - j0;
        if (w->alo[r] > w->ahi[r] || lo >= nk || hi < 0) {
            w->lo[r] = 0, w->hi[r] = -1;
        } else {
            w->lo[r] = lo < 0 ? 0 : (int32_t)lo;
            w->hi[r] = hi >= nk ? nk - 1 : (int32_t)hi;
        }
    }
    if (p->mask.data != NULL)
        fast_mask_block(p, k->b, k->i0, k->nq, k->mr, j0, nk, w->lo, w->hi,
                        w->excl, L);
}

/* The scores of keys j0 .. j0 + nk - 1 (rows kblk) for the task's rows
 * into S^T st (stride L), with a pse scaled and biased already. */
static void block_scores(const fast_plan *p, const fast_kernels *kern,
                         const task *k, scratch *w, const float *kblk,
                         int64_t j0, int nk, float *st)
{
    const int64_t L = p->sched.L;
    const int mr = k->mr;
    kern->qk_t(w->q, L, mr, kblk, p->sched.Dp, nk, p->D, st, L);
    if (p->pse.on) {
        /* the pse is fp16 (002 pairs it with an int8 query) */
        fast_pse_block(p, k->b, w->prow, mr, j0, w->pblk);
        kern->pse_bias(FIA_DT_FP16, w->pblk, mr, nk, p->int8_quant.sc, st, L,
                       NULL);
    }
}

/* acc (exact integers) added into N, acc zeroed. */
static void flush(const fast_plan *p, int mr, scratch *w)
{
    const int64_t n = mr * p->sched.Dp;
    for (int64_t x = 0; x < n; x++)
        w->nacc[x] += (double)w->acc[x];
    memset(w->acc, 0, (size_t)n * sizeof(float));
}

void fast_int8_quant_keys(const fast_plan *p, const fast_kernels *kern,
                          const task *k, scratch *w, const float *kpre,
                          const float *vpre, int64_t jmin, int64_t jmax)
{
    const int64_t L = p->sched.L, Dp = p->sched.Dp;
    const int mr = k->mr;
    /* (with a pse, pse_bias scaled them) */
    const float sc = p->pse.on ? 1.0f : p->int8_quant.sc;
    const uint8_t *excl = p->mask.data != NULL ? w->excl : NULL;
    /* the scores kept (S^T of every key, block after block), or computed
     * again in pass 2 */
    const bool kept = jmax - jmin + 1 <= fast_int8_quant_keep_keys(p);
    /* pass 1: the row max m (step 3) */
    for (int64_t j0 = jmin; j0 <= jmax; j0 += FAST_KBLOCK) {
        const int nk = jmax + 1 - j0 < FAST_KBLOCK ? (int)(jmax + 1 - j0)
                                                   : FAST_KBLOCK;
        const float *kblk = w->k;
        float *st = kept ? w->keep + (j0 - jmin) * L : w->s;
        if (kpre != NULL)
            kblk = kpre + j0 * Dp;
        else
            widen_rows(p, kern, k->b, k->kvh, j0, nk, w->k, NULL);
        block_bands(p, k, w, j0, nk);
        block_scores(p, kern, k, w, kblk, j0, nk, st);
        /* leaves st scaled: pass 2 reads kept scores at scale 1 */
        kern->int8_quant_rowmax(st, L, mr, nk, sc, w->lo, w->hi, excl, w->m);
    }
    /* pass 2: P against m (step 4), l, and N = P.V (step 5) */
    memset(w->acc, 0, (size_t)(mr * Dp) * sizeof(float));
    memset(w->nacc, 0, (size_t)(mr * Dp) * sizeof(double));
    for (int64_t r = 0; r < L; r++)
        w->alpha[r] = 1.0f;
    int held = 0; /* blocks in acc */
    for (int64_t j0 = jmin; j0 <= jmax; j0 += FAST_KBLOCK) {
        const int nk = jmax + 1 - j0 < FAST_KBLOCK ? (int)(jmax + 1 - j0)
                                                   : FAST_KBLOCK;
        const float *kblk = w->k, *vblk = w->v;
        float *st = kept ? w->keep + (j0 - jmin) * L : w->s;
        if (kpre != NULL)
            kblk = kpre + j0 * Dp, vblk = vpre + j0 * Dp;
        else
            widen_rows(p, kern, k->b, k->kvh, j0, nk, kept ? NULL : w->k,
                       w->v);
        block_bands(p, k, w, j0, nk);
        if (!kept)
            block_scores(p, kern, k, w, kblk, j0, nk, st);
        kern->int8_quant_pquant(st, L, mr, nk, kept ? 1.0f : sc, w->lo, w->hi,
                                excl, w->m, p->int8_quant.qs1, w->l);
        kern->pv(st, L, mr, vblk, Dp, nk, Dp, w->alpha, w->acc, Dp);
        if (++held == 16) {
            flush(p, mr, w);
            held = 0;
        }
    }
    flush(p, mr, w);
    /* x_d before the division by l (step 6): fl32(N * ds2) */
    for (int64_t x = 0; x < mr * Dp; x++)
        w->acc[x] = (float)((long double)w->nacc[x] * p->int8_quant.ds2);
}
