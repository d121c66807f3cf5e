/* One task of the blocked online-softmax (flash-attention style) attention:
 * the query rows of a task (one or more heads of a GQA group x a block of
 * query positions, all reading the same K/V rows: no copy of K/V) walk the
 * keys they may use in blocks of FAST_KBLOCK.  Per block: K and V rows are
 * widened to float once (kv_pre: once per run for all tasks, before they
 * start; else per block; an NZ cache's by runs: run_mla.c), S^T = K.Q^T (or the dot form for decode's few
 * rows), one online-softmax step, acc = acc * alpha + P.V.  The arithmetic
 * on blocks is in the micro-kernels (kernel/); which keys a row may use is
 * each feature's reading (run_sparse.c: the band of the sparse mode,
 * run_mask.c: the mask bits, the lengths of the plan), what a row without
 * a key gives is run_precise.c's, and where outputs go run_output.c's.
 * The keys are a batch's logical ones: a shared prefix's first
 * (fast_kv_src; prefix.md), widened once for every batch under kv_pre.  A
 * decode task covers one KV split and leaves its partial (m, l, acc) for
 * fast_merge_splits (flash-decoding); with a shared prefix and B > 1 the
 * prefix's keys are tasks of their own whose rows are every batch's
 * (schedule.c), their partials merged with the own keys'.  When all the
 * few rows of a task use the same keys without a mask (decode), the fused
 * decode kernel (kernel->decode) runs the whole range instead, reading the
 * fp16/bf16 K/V rows directly; if its result is not finite the task is
 * recomputed by the blocked loop, which keeps p = 0 times inf/NaN out.
 * int8 / int4 K/V (antiquant.md) take the same paths: their rows
 * dequantized where fp16 ones are widened (run_antiquant.c, kernel
 * widen_antiquant), decode through kernel decode_antiquant, which reads them in
 * place.  MLA's full quantization (int8 query, key and value, bf16 ropes)
 * widens its int8 rows times their dequant scales where the others widen theirs
 * (run_query_quant.c), then runs as a bf16 MLA call.
 * Full int8 quantization (an int8 query, int8_quant.md) quantizes P
 * against the row's final max: its tasks walk their keys twice
 * (attention_int8_quant.c), on the same task, scratch and kv_pre rows.
 *
 * Numerics (RELEASED "Numeric pipeline"): s = (Q.K^T) * scale in float32,
 * with a pse + pse in float32 (kernels.h: pse_bias, before the mask and max);
 * p = exp(s - m) in float32 against the running max, rounded to the input
 * dtype before P.V when round_p (fp16 high-performance, always for bf16);
 * the row sum of the unrounded p in float32; P.V accumulated in float32;
 * the division by the row sum at the end, in double, with one nearest-even
 * rounding to the output dtype; lse = m + log(sum) in double, rounded to
 * float32.  Splits merge as l = sum l_s e^(m_s - M), acc likewise.  A
 * learnable_sink joins the row's sum where the row ends, once (after the
 * merge of the splits), on every path that ends rows here (MLA's and
 * MLA's full quantization's included): run_sink.c. */
#include <stdlib.h>
#include "attention_task.h"

#define ALIGN64(x) (((x) + 63u) & ~(uint64_t)63u)

/* Keys ahead whose K/V rows are prefetched (one block). */
#define FAST_PREFETCH 64

/* The scratch of one worker, carved from base (or only measured). */
static uint64_t layout(const fast_plan *p, char *base, scratch *s)
{
    uint64_t L = (uint64_t)p->sched.L, Dp = (uint64_t)p->sched.Dp,
             KB = FAST_KBLOCK;
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
    TAKE(gk, uint16_t, p->prefix.P > 0 ? FAST_DEC_KB * Dp : 0);
    TAKE(gv, uint16_t, p->prefix.P > 0 ? FAST_DEC_KB * Dp : 0);
    TAKE(prow, const uint16_t *, L);
    TAKE(pblk, const uint16_t *, L);
    TAKE(aqv, float, p->antiquant.on ? 4 * Dp : 0);
    TAKE(aqt, float, p->antiquant.on ? 4 * 1024 : 0);
    TAKE(nacc, double, p->int8_quant.on ? L * Dp : 0);
    TAKE(keep, float, (uint64_t)fast_int8_quant_keep_keys(p) * L);
#undef TAKE
    return off;
}

uint64_t fast_scratch_bytes(const fast_plan *p)
{
    return layout(p, NULL, NULL);
}

/* Tasks of a shared prefix (schedule.c), before the others. */
static int64_t prefix_tasks(const fast_plan *p)
{
    return p->sched.shared ? p->KV_N * p->sched.n_ptile * p->sched.n_psplit : 0;
}

int64_t fast_task_count(const fast_plan *p)
{
    return prefix_tasks(p) +
           p->B * p->KV_N * p->sched.n_hsub * p->sched.n_qblk * p->sched.nsplit;
}

/* Where partial record rec of row (b, n) lies (a decode split's, or a
 * shared prefix split's): m, l, then acc at +16. */
static float *partial_rec(const fast_plan *p, float *partials, int64_t b,
                          int64_t n, int64_t rec)
{
    return partials +
           ((b * p->N + n) * p->sched.nrec + rec) * (p->sched.Dp + 16);
}

/* ---- K/V widened once (kv_pre) ------------------------------------------ */
static int64_t chunks_of(int64_t rows)
{
    return (rows + FAST_KVPRE_ROWS - 1) / FAST_KVPRE_ROWS;
}

int64_t fast_kvpre_chunks(const fast_plan *p)
{
    return p->B * p->KV_N * chunks_of(p->KV_S) +
           p->KV_N * chunks_of(p->prefix.P);
}

/* Chunk c: rows [s0, s1) of one (b, KV head)'s own keys, or of one KV
 * head's prefix keys (once for every batch; the chunks after the own
 * ones): K and V widened to float rows of Dp (padding columns zero), and
 * whether each V row is finite.  Own rows at or beyond the batch's length
 * are never read and stay as they are. */
void fast_kvpre_chunk(const fast_plan *p, char *ws, int64_t c)
{
    const fast_kernels *kern = fast_kernels_select();
    const int64_t per = chunks_of(p->KV_S), own = p->B * p->KV_N * per;
    int64_t b = 0, kvh, s0, s1, first, row0;
    if (c < own) {
        const int64_t bh = c / per;
        b = bh / p->KV_N, kvh = bh % p->KV_N;
        s0 = c % per * FAST_KVPRE_ROWS;
        s1 = p->kv_len[b] - p->prefix.P < p->KV_S ? p->kv_len[b] - p->prefix.P
                                                  : p->KV_S;
        first = p->prefix.P; /* own row s is logical key P + s */
        row0 = bh * p->KV_S;
    } else {
        const int64_t pper = chunks_of(p->prefix.P);
        kvh = (c - own) / pper;
        s0 = (c - own) % pper * FAST_KVPRE_ROWS;
        s1 = p->prefix.P, first = 0;
        row0 = p->B * p->KV_N * p->KV_S + kvh * p->prefix.P;
    }
    s1 = s1 > s0 + FAST_KVPRE_ROWS ? s0 + FAST_KVPRE_ROWS : s1;
    const int64_t D = p->D, Dp = p->sched.Dp;
    float *kf =
        (float *)(void *)(ws + p->sched.kv_offset) + (uint64_t)row0 * Dp;
    float *vf = (float *)(void *)(ws + p->sched.kv_offset + p->sched.kv_bytes) +
                (uint64_t)row0 * Dp;
    uint8_t *vbad = (uint8_t *)ws + p->sched.vbad_offset + row0;
    /* full int8: the integers as float (attention_int8_quant.c) */
    if (p->int8_quant.on) {
        fast_int8_quant_kvpre_rows(p, kern, b, kvh, s0, s1, kf, vf);
        memset(vbad + s0, 0, (size_t)(s1 > s0 ? s1 - s0 : 0));
        return;
    }
    if (p->query_quant.on) { /* MLA full quantization (run_query_quant.c) */
        fast_query_quant_kvpre_rows(p, kern, b, kvh, first + s0, s1 - s0,
                                    kf + s0 * Dp, vf + s0 * Dp, vbad + s0);
        return;
    }
    if (p->antiquant.on) { /* int8/int4 dequantized (run_antiquant.c) */
        float hv[4 * 528];
        fast_aq_heads(p, kvh, hv);
        for (int64_t j = s0; j < s1; j++) {
            vbad[j] = !fast_widen_antiquant_rows(p, kern, b, kvh, j, 1, hv,
                                                 kf + j * Dp, vf + j * Dp, Dp);
            if (Dp > D) {
                memset(kf + j * Dp + D, 0, (size_t)(Dp - D) * sizeof(float));
                memset(vf + j * Dp + D, 0, (size_t)(Dp - D) * sizeof(float));
            }
        }
        return;
    }
    const int64_t Dk = p->Dk; /* MLA: K rows carry the rope after D */
    for (int64_t j = s0, run = 0; j < s1; j++, run--) {
        if (p->page.nz && run == 0) { /* a block's rows at once (no prefix) */
            run = fast_kv_run(p, first + j, s1 - j);
            fast_mla_nz_rows(p, kern, b, kvh, first + j, (int)run,
                             kf + j * Dp, vf + j * Dp, Dp, vbad + j);
        }
        if (!p->page.nz) {
            const uint16_t *k, *v;
            fast_kv_src(p, b, kvh, first + j, &k, &v);
            kern->widen(p->dt, k, kf + j * Dp, D);
            if (p->rope.D > 0)
                fast_mla_widen_k(p, kern, b, kvh, first + j, kf + j * Dp + D);
            vbad[j] = !kern->widen(p->dt, v, vf + j * Dp, D);
        }
        if (Dp > Dk)
            memset(kf + j * Dp + Dk, 0, (size_t)(Dp - Dk) * sizeof(float));
        if (Dp > D)
            memset(vf + j * Dp + D, 0, (size_t)(Dp - D) * sizeof(float));
    }
}

/* The rows of one (batch, KV head) widened once (kv_pre): its own keys and
 * the shared prefix's (NULL without one). */
typedef struct kv_view {
    const float *k, *v, *pk, *pv;
    const uint8_t *bad, *pbad;
} kv_view;

static kv_view view_of(const fast_plan *p, const char *ws, int64_t b,
                       int64_t kvh)
{
    const uint64_t Dp = (uint64_t)p->sched.Dp;
    const uint64_t own = (uint64_t)(b * p->KV_N + kvh) * (uint64_t)p->KV_S;
    const uint64_t pre = (uint64_t)(p->B * p->KV_N * p->KV_S) +
                         (uint64_t)(kvh * p->prefix.P);
    const float *k = (const float *)(const void *)(ws + p->sched.kv_offset);
    const float *v = (const float *)(const void *)(ws + p->sched.kv_offset +
                                                   p->sched.kv_bytes);
    const uint8_t *bad = (const uint8_t *)ws + p->sched.vbad_offset;
    kv_view x = {k + own * Dp, v + own * Dp, NULL, NULL, bad + own, NULL};
    if (p->prefix.P > 0)
        x.pk = k + pre * Dp, x.pv = v + pre * Dp, x.pbad = bad + pre;
    return x;
}

/* Logical keys j0 .. j0 + nk - 1 of a view: *kb, *vb at their widened rows
 * (a block across the prefix's end gathered into w->k, w->v, so that the
 * blocks stay those of the plain call); returns whether every V row is
 * finite. */
static bool view_block(const fast_plan *p, const kv_view *x, scratch *w,
                       int64_t j0, int nk, const float **kb,
                       const float **vb)
{
    const int64_t Dp = p->sched.Dp, P = p->prefix.P;
    bool fin = true;
    for (int c = 0; c < nk; c++)
        fin &= (j0 + c < P ? x->pbad[j0 + c] : x->bad[j0 + c - P]) == 0;
    if (j0 >= P) {
        *kb = x->k + (j0 - P) * Dp, *vb = x->v + (j0 - P) * Dp;
    } else if (j0 + nk <= P) {
        *kb = x->pk + j0 * Dp, *vb = x->pv + j0 * Dp;
    } else {
        const size_t np = (size_t)(P - j0) * (size_t)Dp * sizeof(float);
        const size_t no = (size_t)(j0 + nk - P) * (size_t)Dp * sizeof(float);
        memcpy(w->k, x->pk + j0 * Dp, np);
        memcpy(w->v, x->pv + j0 * Dp, np);
        memcpy((char *)w->k + np, x->k, no);
        memcpy((char *)w->v + np, x->v, no);
        *kb = w->k, *vb = w->v;
    }
    return fin;
}

/* K and V of logical keys j0 .. j0 + nk - 1 of (b, kvh) widened into
 * w->k, w->v (prefetching the rows FAST_PREFETCH keys ahead, up to jmax:
 * decode streams K/V from memory); returns whether every V row is
 * finite. */
static bool widen_block(const fast_plan *p, const fast_kernels *kern,
                        scratch *w, int64_t b, int64_t kvh, int64_t j0,
                        int nk, int64_t jmax)
{
    const int64_t Dp = p->sched.Dp, D = p->D;
    if (p->antiquant.on) /* int8/int4 dequantized (run_antiquant.c) */
        return fast_widen_antiquant_rows(p, kern, b, kvh, j0, nk, w->aqv, w->k,
                                         w->v, Dp);
    if (p->query_quant.on) /* MLA full quantization (run_query_quant.c) */
        return fast_query_quant_rows(p, kern, b, kvh, j0, nk, w->k, w->v, Dp,
                                     NULL, jmax);
    bool vfinite = true;
    for (int c = 0; c < nk;) {
        /* a run of rows at stride k_ss: all of them, or to a block's (or
         * the prefix's) end */
        const uint16_t *kr, *vr;
        fast_kv_src(p, b, kvh, j0 + c, &kr, &vr);
        const int run = (int)fast_kv_run(p, j0 + c, nk - c);
        if (p->page.nz) { /* the run's tiles, each one contiguous stream */
            vfinite &= fast_mla_nz_rows(p, kern, b, kvh, j0 + c, run,
                                        w->k + c * Dp, w->v + c * Dp, Dp,
                                        NULL);
            c += run;
            continue;
        }
        for (int r = 0; r < run; r++, c++) {
            if (j0 + c + FAST_PREFETCH <= jmax) {
                const uint16_t *fk, *fv;
                if (r + FAST_PREFETCH < run)
                    fk = kr + (r + FAST_PREFETCH) * p->k_ss,
                    fv = vr + (r + FAST_PREFETCH) * p->v_ss;
                else
                    fast_kv_src(p, b, kvh, j0 + c + FAST_PREFETCH, &fk, &fv);
                const char *pk = (const char *)fk, *pv = (const char *)fv;
                for (int64_t x = 0; x < D * 2; x += 64) {
                    __builtin_prefetch(pk + x);
                    __builtin_prefetch(pv + x);
                }
            }
            kern->widen(p->dt, kr + r * p->k_ss, w->k + c * Dp, D);
            if (p->rope.D > 0) /* MLA: the key's rope after its D columns */
                fast_mla_widen_k(p, kern, b, kvh, j0 + c, w->k + c * Dp + D);
            vfinite &= kern->widen(p->dt, vr + r * p->v_ss, w->v + c * Dp, D);
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
    const int64_t L = p->sched.L, Dp = p->sched.Dp, D = p->D;
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

/* Blocks of logical keys [jmin, jmax] for the mr rows of the task, of
 * batch b and KV head kvh; pre: that head's rows widened once (kv_pre), or
 * NULL. */
static void key_loop(const fast_plan *p, const fast_kernels *kern,
                     scratch *w, int mr, bool dot, int64_t b, int64_t kvh,
                     int64_t i0, int nq, int64_t jmin, int64_t jmax,
                     const kv_view *pre)
{
    /* Q.K^T reduces over Dk (MLA: D + rope.D), P.V writes Dvp */
    const int64_t L = p->sched.L, Dp = p->sched.Dp, D = p->Dk;
    const uint8_t *mask = p->mask.data; /* never with a shared prefix's task */
    const bool pse = p->pse.on;
    const int round = !p->round_p ? 0 : p->dt == FIA_DT_FP16 ? 1 : 2;
    for (int64_t j0 = jmin; j0 <= jmax; j0 += FAST_KBLOCK) {
        int nk = jmax + 1 - j0 < FAST_KBLOCK ? (int)(jmax + 1 - j0)
                                             : FAST_KBLOCK;
        bool vfinite = true;
        const float *kblk = w->k, *vblk = w->v;
        if (pre != NULL) /* widened once for the whole run */
            vfinite = view_block(p, pre, w, j0, nk, &kblk, &vblk);
        else
            vfinite = widen_block(p, kern, w, b, kvh, j0, nk, jmax);
        /* every key of the block in every row (and row padding), no
         * mask: Q.K^T with the softmax's first pass fused (qk_t_max; with
         * a pse the pse_bias step gives the block max) */
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
            /* Q.K^T, then scale + pse in float32 (kernels.h: pse_bias); rows
             * up to round_up(mr, 16) for softmax_full */
            if (dot)
                kern->qk_dot(w->q, Dp, mr, kblk, Dp, nk, Dp, w->s, L);
            else
                kern->qk_t(w->q, L, full ? (mr + 15) & ~15 : mr, kblk, Dp,
                           nk, D, w->s, L);
            fast_pse_block(p, b, w->prow, mr, j0, w->pblk);
            /* the pse two blocks ahead into L2: two lines of each of the
             * mr rows, rows KV_S apart (no hardware stream follows that
             * many).  The pse_bias kernel's loads still stall: ~3x its
             * in-cache time in the prefill bench, with or without this
             * (which moved the pse/plain ratio within the noise, upwards) */
            for (int r = 0; j0 + 3 * FAST_KBLOCK <= jmax && r < mr; r++)
                for (int x = 0; w->pblk[r] != NULL && x < FAST_KBLOCK; x += 32)
                    __builtin_prefetch(w->pblk[r] + 2 * FAST_KBLOCK + x, 0,
                                       2);
            kern->pse_bias(p->dt, w->pblk, mr, nk, p->scale, w->s, L,
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
        pvk->pv(w->s, L, mr, vblk, Dp, nk, p->sched.Dvp, w->alpha, w->acc, Dp);
        if (!vfinite)
            weight0_nonfinite(p, w, mr, nk, mask != NULL, vblk);
    }
}

/* A shared prefix's task t < prefix_tasks(p): (KV head, prefix split,
 * tile of rows), the tiles of a split one after the other. */
static void prefix_locate(const fast_plan *p, int64_t t, task *k)
{
    const int64_t tile = t % p->sched.n_ptile;
    t /= p->sched.n_ptile;
    k->split = k->rec = t % p->sched.n_psplit;
    k->kvh = t / p->sched.n_psplit;
    k->b = 0; /* prefix rows are every batch's */
    k->g0 = tile * p->sched.pt_rows;
    const int64_t left = p->B * p->group - k->g0;
    k->mr = (int)(left < p->sched.pt_rows ? left : p->sched.pt_rows);
    k->n0 = k->i0 = 0, k->nq = 1;
    k->q_len = 1, k->kv_len = p->prefix.P;
    k->k0 = k->split * p->sched.p_chunk, k->k1 = k->k0 + p->sched.p_chunk;
    k->k1 = k->k1 > p->prefix.P ? p->prefix.P : k->k1;
    k->correct = false; /* partials: the merge decides */
    k->dot = k->mr <= FAST_DOT_MAX;
}

/* Task index t < fast_task_count(p) to its coordinates; the query blocks
 * of a (head run) are taken in reverse: long rows (causal) first.  A
 * shared prefix's tasks (matrix products, bound by the arithmetic) are
 * spread evenly among the own keys' (streams, bound by memory), task k at
 * k * stride: the threads then run both kinds at once. */
static void task_locate(const fast_plan *p, int64_t t, task *k)
{
    const int64_t npt = prefix_tasks(p);
    if (npt > 0) {
        const int64_t stride = fast_task_count(p) / npt, kk = t / stride;
        if (t % stride == 0 && kk < npt) {
            prefix_locate(p, kk, k);
            return;
        }
        t -= kk + 1 < npt ? kk + 1 : npt;
    }
    k->split = t % p->sched.nsplit;
    k->rec = p->sched.n_psplit + k->split;
    k->g0 = -1;
    t /= p->sched.nsplit;
    /* long rows first */
    const int64_t qblk = p->sched.n_qblk - 1 - t % p->sched.n_qblk;
    t /= p->sched.n_qblk;
    const int64_t hs = t % p->sched.n_hsub;
    t /= p->sched.n_hsub;
    k->kvh = t % p->KV_N, k->b = t / p->KV_N;
    k->n0 = k->kvh * p->group + hs * p->sched.hpt;
    const int64_t nh = p->group - hs * p->sched.hpt < p->sched.hpt
                           ? p->group - hs * p->sched.hpt : p->sched.hpt;
    k->i0 = qblk * p->sched.qb;
    k->nq = (int)(p->Q_S - k->i0 < p->sched.qb ? p->Q_S - k->i0 : p->sched.qb);
    k->mr = (int)nh * k->nq; /* row r: head n0 + r / nq, i0 + r % nq */
    k->q_len = p->q_len[k->b], k->kv_len = p->kv_len[k->b];
    k->k0 = p->sched.kv_base + k->split * p->sched.kv_chunk;
    k->k1 = k->k0 + p->sched.kv_chunk;
    k->k1 = k->k1 > k->kv_len ? k->kv_len : k->k1;
    k->correct = fast_row_corrected(p, k->q_len, k->kv_len);
    k->dot = k->mr <= FAST_DOT_MAX;
}

/* The keys of every row of the task within its split, [alo, ahi] (empty
 * for padding rows), the running max and sum reset; returns the union
 * [*jmin, *jmax] (*jmax < 0 when no row uses a key).  A row's band is over
 * its batch's logical keys (a shared prefix's task: every prefix key of
 * the split, the decode band being every key). */
static void task_bands(const fast_plan *p, const task *k, scratch *w,
                       int64_t *jmin_out, int64_t *jmax_out)
{
    int64_t jmin = INT64_MAX, jmax = -1;
    for (int64_t r = 0; r < p->sched.L; r++) {
        w->alo[r] = 0, w->ahi[r] = -1;
        int64_t b = 0, n, i = 0;
        if (r < k->mr)
            task_row(p, k, (int)r, &b, &n, &i);
        const int64_t q_len = p->q_len[b], kv_len = p->kv_len[b];
        if (r < k->mr && i < q_len && kv_len > 0) {
            fast_row_band(p, i, q_len, kv_len, &w->alo[r], &w->ahi[r]);
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
    const int64_t L = p->sched.L, Dp = p->sched.Dp, D = p->D;
    const int mr = k->mr;
    if (p->query_quant.on) { /* int8 rows dequantized (run_query_quant.c) */
        fast_query_quant_load_q(p, kern, k, w);
        return;
    }
    if (k->dot)
        memset(w->q, 0, (size_t)(Dp * L) * sizeof(float));
    for (int r0 = 0; r0 < mr; r0 += 16) {
        const int rn = mr - r0 < 16 ? mr - r0 : 16;
        const uint16_t *rows[16];
        for (int r = r0; r < r0 + rn; r++) {
            int64_t b, n, i;
            task_row(p, k, r, &b, &n, &i);
            rows[r - r0] = w->alo[r] > w->ahi[r]
                ? NULL /* uses no key: zero */
                : (const uint16_t *)p->q + fast_q_row(p, b, n, i);
        }
        if (p->rope.D > 0) /* MLA: query_rope after the D columns */
            fast_mla_load_q(p, kern, k, w, r0, rn, rows);
        if (!k->dot) {
            kern->widen_t(p->dt, rows, rn, D, w->q + r0, L);
            continue;
        }
        for (int r = 0; r < rn; r++)
            if (rows[r] != NULL)
                kern->widen(p->dt, rows[r], w->q + (r0 + r) * Dp, D);
    }
}

/* The pse row of each row of the task at column 0, the row's own (batch,
 * head, physical row): a shared prefix's task holds rows of every batch
 * (task_row).  NULL for rows that use no key: padding rows are never
 * read. */
static void task_pse_rows(const fast_plan *p, const task *k, scratch *w)
{
    for (int r = 0; r < k->mr; r++) {
        int64_t b, n, i;
        task_row(p, k, r, &b, &n, &i);
        w->prow[r] = w->alo[r] > w->ahi[r] ? NULL : fast_pse_row(p, b, n, i);
    }
}

/* The block of logical keys from j (up to jmax) runs across a shared
 * prefix's end. */
static bool across_prefix(const fast_plan *p, int64_t j, int64_t jmax)
{
    return j < p->prefix.P && p->prefix.P - j < FAST_DEC_KB &&
           p->prefix.P <= jmax;
}

/* The pse of a decode call from logical key j on (its column j, or the
 * physical one under kv left padding: fast_pse_col), NULL without one.
 * The rows are the task rows' own (task_pse_rows); only a kv left
 * padding's column depends on k->b, and a shared prefix's task (rows of
 * every batch, k->b 0) never comes with one. */
static const uint16_t *const *decode_bias(const fast_plan *p, const task *k,
                                          scratch *w, int64_t j)
{
    if (!p->pse.on)
        return NULL;
    fast_pse_block(p, k->b, w->prow, k->mr, j, w->pblk);
    return w->pblk;
}

/* Keys [jmin, jmax] of the task through the fused decode kernel, in
 * calls of up to 64 blocks of FAST_DEC_KB keys, each block's K and V rows
 * read where they are (a paged cache's blocks anywhere: block_size is a
 * multiple of 16, so a block of 16 keys lies in one of them, unless a
 * range starts off the grid; such a partial block ends its call; a block
 * across a shared prefix's end is gathered).  Returns false when the
 * kernel's result is not finite. */
static bool decode_range(const fast_plan *p, const fast_kernels *kern,
                         const task *k, scratch *w, int64_t jmin,
                         int64_t jmax, int round)
{
    const uint16_t *kp[64], *vp[64];
    for (int64_t j = jmin; j <= jmax;) {
        if (across_prefix(p, j, jmax)) {
            /* its rows gathered, a call of its own: the blocks (and so the
             * arithmetic) stay those of the plain call */
            const int nb = jmax + 1 - j < FAST_DEC_KB ? (int)(jmax + 1 - j)
                                                      : FAST_DEC_KB;
            for (int c = 0; c < nb; c++) {
                const uint16_t *kr, *vr;
                fast_kv_src(p, k->b, k->kvh, j + c, &kr, &vr);
                memcpy(w->gk + c * p->D, kr, (size_t)p->D * 2);
                memcpy(w->gv + c * p->D, vr, (size_t)p->D * 2);
            }
            const uint16_t *gk = w->gk, *gv = w->gv;
            if (!kern->decode(w->q, p->sched.Dp, k->mr, &gk, &gv, p->D,
                              decode_bias(p, k, w, j), nb, p->D, p->dt,
                              p->scale, round, w->m, w->l, w->acc, p->sched.Dp))
                return false;
            j += nb;
            continue;
        }
        const int64_t start = j;
        int n = 0;
        while (j <= jmax && n < 64 && (n == 0 || !across_prefix(p, j, jmax))) {
            const int64_t run = fast_kv_run(p, j, jmax + 1 - j);
            const int64_t g = run < FAST_DEC_KB ? run : FAST_DEC_KB;
            fast_kv_src(p, k->b, k->kvh, j, &kp[n], &vp[n]);
            n++;
            j += g;
            if (g < FAST_DEC_KB)
                break; /* only the last block of a call may be short */
        }
        if (!kern->decode(w->q, p->sched.Dp, k->mr, kp, vp, p->k_ss,
                          decode_bias(p, k, w, start), j - start, p->D, p->dt, p->scale, round, w->m,
                          w->l, w->acc, p->sched.Dp))
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
    const int64_t Dp = p->sched.Dp, D = p->D;
    const int mr = k->mr;
    memset(w->acc, 0, (size_t)(mr * Dp) * sizeof(float));
    kv_view pre;
    if (p->sched.kv_pre)
        pre = view_of(p, ws, k->b, k->kvh);
    /* Decode: the fused kernel when every row uses every key of the
     * range (no mask); a non-finite result is recomputed below. */
    if (p->antiquant.on)
        fast_aq_heads(p, k->kvh, w->aqv);
    /* (MLA: the fused kernel reads K's D columns only, no rope) */
    bool uniform = k->dot && p->mask.data == NULL && D % 16 == 0 &&
                   p->rope.D == 0 && !p->page.nz &&
                   (p->antiquant.on ? kern->decode_antiquant != NULL
                                    : kern->decode != NULL);
    for (int r = 0; uniform && r < mr; r++)
        uniform = w->alo[r] == jmin && w->ahi[r] == jmax;
    bool done = false;
    if (uniform) {
        const int round = !p->round_p ? 0
                          : p->dt == FIA_DT_FP16 ? 1 : 2;
        done = p->antiquant.on
                   ? fast_aq_decode(p, kern, k->b, k->kvh, w->q, mr, jmin,
                                    jmax, round, decode_bias(p, k, w, jmin),
                                    w->aqv, w->aqt, w->m, w->l, w->acc)
                   : decode_range(p, kern, k, w, jmin, jmax, round);
        if (!done) {
            for (int r = 0; r < mr; r++)
                w->m[r] = -INFINITY, w->l[r] = 0.0f;
            memset(w->acc, 0, (size_t)(mr * Dp) * sizeof(float));
        }
    }
    if (!done)
        key_loop(p, kern, w, mr, k->dot, k->b, k->kvh, k->i0, k->nq, jmin,
                 jmax, p->sched.kv_pre ? &pre : NULL);
}

/* The rows of the task: a decode split's (or a shared prefix split's)
 * partial (m, l, acc) for the merge, or the output row and lse. */
static void task_store(const fast_plan *p, const fast_kernels *kern,
                       const task *k, scratch *w, float *partials)
{
    const int64_t Dp = p->sched.Dp, D = p->D;
    for (int r = 0; r < k->mr; r++) {
        int64_t b, n, i;
        task_row(p, k, r, &b, &n, &i);
        if (p->sched.nrec <= 1 && !fast_row_exists(p, b, i))
            continue; /* a token layout's batch ends before the block */
        if (p->sched.nrec > 1) {
            float *rec = partial_rec(p, partials, b, n, k->rec);
            rec[0] = w->m[r];
            rec[1] = w->l[r];
            /* rec[2]: keys of this split all scored -inf and some of them
             * hold a non-finite v: weight 0 times that v is NaN in its
             * columns (weight0_nonfinite put it in acc), kept for the
             * merge.  A row without a key in the split has no acc of its
             * own (a task without keys leaves the previous task's). */
            bool nan0 = false;
            const bool keyed = w->alo[r] <= w->ahi[r];
            for (int64_t d = 0; keyed && w->l[r] == 0.0f && d < D; d++)
                nan0 |= isnan(w->acc[r * Dp + d]);
            rec[2] = nan0 ? 1.0f : 0.0f;
            if (w->l[r] != 0.0f || nan0)
                memcpy(rec + 16, w->acc + r * Dp, (size_t)D * sizeof(float));
        } else if (i >= k->q_len || k->kv_len == 0) {
            /* padding rows (unspecified) and empty key sequences (002
             * 入参为空的处理; RELEASED): zeros, lse +inf. */
            fast_store_zero(p, b, n, i);
        } else if (w->l[r] == 0.0f &&
                   !fast_mask_any_open(p, b, i, w->alo[r], w->ahi[r])) {
            /* no key takes part (a sink does not change it) */
            if (k->correct) /* row-invalid correction: 0, lse +inf */
                fast_store_zero(p, b, n, i);
            else
                fast_degenerate_mean(p, b, n, i, k->kv_len, w->tmp);
        } else if (p->sink.on &&
                   fast_sink_end(p, b, n, i, w->m[r], (double)w->l[r],
                                 w->acc + r * Dp, kern)) {
            /* its keys and the sink (run_sink.c) */
        } else if (w->l[r] == 0.0f || fast_pse_all_dropped(p, w->m[r])) {
            fast_store_nan(p, b, n, i); /* every key's score -inf */
        } else {
            fast_store_row(p, b, n, i, w->acc + r * Dp, (double)w->l[r],
                           kern);
            fast_store_lse(p, b, n, i, (double)w->m[r] + log((double)w->l[r]));
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
    /* full int8: two passes (attention_int8_quant.c) */
    if (jmax >= 0 && p->int8_quant.on) {
        fast_int8_quant_load_q(p, &k, &w);
        if (p->pse.on)
            task_pse_rows(p, &k, &w);
        const kv_view x = p->sched.kv_pre ? view_of(p, ws, k.b, k.kvh)
                                    : (kv_view){NULL, NULL, NULL, NULL,
                                                NULL, NULL};
        fast_int8_quant_keys(p, kern, &k, &w, x.k, x.v, jmin, jmax);
    } else if (jmax >= 0) {
        task_load_q(p, kern, &k, &w);
        if (p->pse.on)
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
            for (int64_t s = 0; s < p->sched.nrec; s++) {
                const float *rec = partial_rec(p, partials, b, n, s);
                if (rec[1] != 0.0f && rec[0] > mx)
                    mx = rec[0];
            }
            double l = 0.0;
            bool first = true;
            for (int64_t d = 0; d < p->D; d++)
                w.tmp[d] = 0.0f;
            for (int64_t s = 0; s < p->sched.nrec; s++) {
                const float *rec = partial_rec(p, partials, b, n, s);
                if (rec[1] == 0.0f) {
                    /* no key of this split takes part, or all scored -inf:
                     * weight 0, NaN only where 0 met a non-finite v */
                    for (int64_t d = 0; rec[2] != 0.0f && d < p->D; d++)
                        w.tmp[d] += rec[16 + d] * 0.0f;
                    continue;
                }
                float wt = rec[0] == mx ? 1.0f : expf(rec[0] - mx);
                l += (double)(rec[1] * wt);
                for (int64_t d = 0; d < p->D; d++)
                    w.tmp[d] += rec[16 + d] * wt;
                first = false;
            }
            if (first && !fast_mask_any_open(p, b, 0, 0, kv_len - 1)) {
                /* no key takes part (a sink does not change it) */
                if (fast_row_corrected(p, 1, kv_len))
                    fast_store_zero(p, b, n, 0);
                else
                    fast_degenerate_mean(p, b, n, 0, kv_len, w.tmp);
                continue;
            }
            /* the sink once per row, after every split (first: its keys
             * all scored -inf, mx -inf and l 0) */
            if (p->sink.on &&
                fast_sink_end(p, b, n, 0, mx, l, w.tmp, kern))
                continue;
            if (first || fast_pse_all_dropped(p, mx)) {
                fast_store_nan(p, b, n, 0); /* every key's score -inf */
                continue;
            }
            fast_store_row(p, b, n, 0, w.tmp, l, kern);
            fast_store_lse(p, b, n, 0, (double)mx + log(l));
        }
    }
}
