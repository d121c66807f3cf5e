/* The loop framework: a blocked online-softmax (flash-attention style)
 * attention over tasks (b, n, block of FAST_QBLOCK query rows), each task
 * walking key blocks of FAST_KBLOCK.  The arithmetic on blocks lives in the
 * micro-kernels (kernel_*.c); this file decides which keys take part
 * (docs/semantics.md "Scores and which keys take part"), keeps the running
 * max and sum, and writes the outputs.
 *
 * Numerics (RELEASED "Numeric pipeline"): s = (Q.K^T) * scale in float32;
 * p = exp(s - m) in float32, rounded to the input dtype before P.V when
 * round_p (fp16 high-performance, always for bf16); the row sum of the
 * unrounded p in double; P.V accumulated in float32; division by the row sum
 * at the end, one nearest-even rounding to the output dtype; lse = m +
 * log(sum) in double, rounded to float32. */
#include <stdlib.h>
#include "fast_internal.h"

#define ALIGN64(x) (((x) + 63u) & ~(uint64_t)63u)

/* RELEASED "Degenerate shapes": without row-invalid correction a fully
 * masked row sees every score as this fill, so it is the mean of V. */
#define FAST_MASK_FILL (-1e12)

typedef struct scratch {
    float *q, *k, *v, *s, *acc, *m;
    double *l;
    int64_t *lo, *hi;
} scratch;

static scratch carve(const fast_plan *p, void *base)
{
    uint64_t D = (uint64_t)p->D, f = sizeof(float);
    char *c = base;
    scratch s;
    s.q = (float *)c, c += ALIGN64(FAST_QBLOCK * D * f);
    s.k = (float *)c, c += ALIGN64(FAST_KBLOCK * D * f);
    s.v = (float *)c, c += ALIGN64(FAST_KBLOCK * D * f);
    s.s = (float *)c, c += ALIGN64(FAST_QBLOCK * FAST_KBLOCK * f);
    s.acc = (float *)c, c += ALIGN64(FAST_QBLOCK * D * f);
    s.m = (float *)c, c += ALIGN64(FAST_QBLOCK * f);
    s.l = (double *)c, c += ALIGN64(FAST_QBLOCK * sizeof(double));
    s.lo = (int64_t *)c, c += ALIGN64(FAST_QBLOCK * sizeof(int64_t));
    s.hi = (int64_t *)c;
    return s;
}

/* The keys row i of batch b may use, as [*lo, *hi] within [0, kv_len); the
 * mask bits (modes 0/1 and Q_S = 1) are applied on top.  pre/next are
 * clamped to int32 and i, off are bounded by 2^25, so no overflow. */
static void row_band(const fast_plan *p, int64_t i, int64_t q_len,
                     int64_t kv_len, int64_t *lo, int64_t *hi)
{
    int64_t off = kv_len - q_len, l = 0, h = kv_len - 1;
    switch (p->sparse_mode) {
    case 0:
        if (p->mask != NULL) { /* mode 0 without a mask ignores pre/next */
            l = i - p->pre;
            h = i + p->next;
        }
        break;
    case 2: h = i; break;
    case 3: h = i + off; break;
    case 4:
        l = i + off - p->pre;
        h = i + off + p->next;
        break;
    default: break; /* 1: the mask alone */
    }
    *lo = l < 0 ? 0 : l;
    *hi = h > kv_len - 1 ? kv_len - 1 : h;
}

static inline float load1(fia_dtype dt, const void *base, int64_t idx)
{
    uint16_t h = ((const uint16_t *)base)[idx];
    return dt == FIA_DT_FP16 ? fast_fp16_to_float(h) : fast_bf16_to_float(h);
}

static void store_row(const fast_plan *p, int64_t b, int64_t n, int64_t i,
                      const float *acc, double l, bool zero)
{
    uint16_t *o = (uint16_t *)p->out + b * p->o_sb + n * p->o_sn + i * p->o_ss;
    for (int64_t d = 0; d < p->D; d++) {
        double x = zero ? 0.0 : (double)acc[d] / l;
        o[d] = p->dt == FIA_DT_FP16 ? fast_double_to_fp16(x)
                                    : fast_double_to_bf16(x);
    }
}

static void store_lse(const fast_plan *p, int64_t b, int64_t n, int64_t i,
                      double x)
{
    if (p->lse != NULL)
        p->lse[(b * p->N + n) * p->Q_S + i] = (float)x;
}

/* A row where no key takes part and no row-invalid correction applies:
 * every score is the fill value, so the row is the plain mean of V over
 * [0, kv_len) and lse = fill + log(kv_len) (RELEASED "Degenerate shapes"). */
static void degenerate_mean(const fast_plan *p, int64_t b, int64_t n,
                            int64_t i, int64_t kv_len, float *tmp)
{
    const int64_t kvh = n / p->group;
    for (int64_t d = 0; d < p->D; d++) {
        double sum = 0.0;
        for (int64_t j = 0; j < kv_len; j++)
            sum += load1(p->dt, p->v,
                         b * p->k_sb + kvh * p->k_sn + j * p->k_ss + d);
        tmp[d] = (float)sum;
    }
    store_row(p, b, n, i, tmp, (double)kv_len, false);
    store_lse(p, b, n, i, FAST_MASK_FILL + log((double)kv_len));
}

static void load_rows(const fast_kernels *kern, const fast_plan *p,
                      const void *base, int64_t off, int64_t stride,
                      int64_t rows, float *dst)
{
    for (int64_t r = 0; r < rows; r++)
        kern->widen(p->dt, (const uint16_t *)base + off + r * stride,
                    dst + r * p->D, p->D);
}

/* One task: rows [i0, i0 + nr) of head n in batch b. */
static void run_task(const fast_plan *p, const fast_kernels *kern,
                     scratch *w, int64_t b, int64_t n, int64_t i0, int nr)
{
    const int64_t D = p->D, q_len = p->q_len[b], kv_len = p->kv_len[b];
    const int64_t kvh = n / p->group; /* GQA: no copy, just an index */
    /* 002 innerPrecise: the operator corrects invalid rows by itself in
     * sparse mode 3 with q_len > kv_len. */
    const bool correct = p->row_invalid ||
                         (p->sparse_mode == 3 && q_len > kv_len);
    int active = 0; /* rows i < q_len */
    if (i0 < q_len)
        active = q_len - i0 < nr ? (int)(q_len - i0) : nr;
    int64_t jmin = INT64_MAX, jmax = -1;
    for (int r = 0; r < active; r++) {
        if (kv_len > 0) {
            row_band(p, i0 + r, q_len, kv_len, &w->lo[r], &w->hi[r]);
        } else {
            w->lo[r] = 0;
            w->hi[r] = -1;
        }
        if (w->lo[r] <= w->hi[r]) {
            jmin = w->lo[r] < jmin ? w->lo[r] : jmin;
            jmax = w->hi[r] > jmax ? w->hi[r] : jmax;
        }
        w->m[r] = -INFINITY;
        w->l[r] = 0.0;
    }
    memset(w->acc, 0, (size_t)active * (size_t)D * sizeof(float));
    if (jmax >= 0)
        load_rows(kern, p, p->q, b * p->q_sb + n * p->q_sn + i0 * p->q_ss,
                  p->q_ss, active, w->q);

    const int64_t kv_base = b * p->k_sb + kvh * p->k_sn;
    const uint8_t *mask = p->mask ? p->mask + b * p->mask_sb : NULL;
    const bool q1 = p->Q_S == 1; /* decode: mask row 0 */
    for (int64_t j0 = jmin; j0 <= jmax; j0 += FAST_KBLOCK) {
        int nk = jmax + 1 - j0 < FAST_KBLOCK ? (int)(jmax + 1 - j0)
                                             : FAST_KBLOCK;
        load_rows(kern, p, p->k, kv_base + j0 * p->k_ss, p->k_ss, nk, w->k);
        load_rows(kern, p, p->v, kv_base + j0 * p->k_ss, p->k_ss, nk, w->v);
        kern->qk_block(w->q, D, active, w->k, D, nk, D, w->s, FAST_KBLOCK);
        for (int r = 0; r < active; r++) {
            float *s = w->s + (int64_t)r * FAST_KBLOCK;
            int64_t a = w->lo[r] > j0 ? w->lo[r] - j0 : 0;
            int64_t e = w->hi[r] - j0 + 1 < nk ? w->hi[r] - j0 + 1 : nk;
            const uint8_t *mrow =
                mask ? mask + (q1 ? 0 : (i0 + r) * p->mask_ss) + j0 : NULL;
            float bmax = -INFINITY;
            bool any = false; /* NaN scores take part (and propagate) */
            for (int64_t c = 0; c < nk; c++) {
                if (c < a || c >= e || (mrow && mrow[c])) {
                    s[c] = -INFINITY; /* does not take part */
                } else {
                    s[c] *= p->scale;
                    bmax = s[c] > bmax ? s[c] : bmax;
                    any = true;
                }
            }
            if (!any) {
                memset(s, 0, (size_t)nk * sizeof(float));
                continue;
            }
            float mnew = bmax > w->m[r] ? bmax : w->m[r];
            if (mnew != w->m[r]) {
                float alpha = expf(w->m[r] - mnew); /* 0 on the first block */
                float *acc = w->acc + (int64_t)r * D;
                for (int64_t d = 0; d < D; d++)
                    acc[d] *= alpha;
                w->l[r] *= alpha;
                w->m[r] = mnew;
            }
            double sum = 0.0;
            for (int64_t c = 0; c < nk; c++) {
                float pc = c < a || c >= e || (mrow && mrow[c])
                               ? 0.0f : expf(s[c] - mnew);
                sum += pc;
                if (p->round_p)
                    pc = p->dt == FIA_DT_FP16 ? fast_round_fp16f(pc)
                                              : fast_round_bf16f(pc);
                s[c] = pc;
            }
            w->l[r] += sum;
        }
        kern->pv_block(w->s, FAST_KBLOCK, active, w->v, D, nk, D, w->acc, D);
    }

    for (int r = 0; r < nr; r++) {
        int64_t i = i0 + r;
        if (r >= active || kv_len == 0) {
            /* padding rows (unspecified) and empty key sequences (002
             * 入参为空的处理; RELEASED): zeros, lse +inf. */
            store_row(p, b, n, i, NULL, 1.0, true);
            store_lse(p, b, n, i, INFINITY);
        } else if (w->l[r] == 0.0) {
            if (correct) { /* row-invalid correction: 0, lse +inf */
                store_row(p, b, n, i, NULL, 1.0, true);
                store_lse(p, b, n, i, INFINITY);
            } else {
                degenerate_mean(p, b, n, i, kv_len, w->acc + (int64_t)r * D);
            }
        } else {
            store_row(p, b, n, i, w->acc + (int64_t)r * D, w->l[r], false);
            store_lse(p, b, n, i, (double)w->m[r] + log(w->l[r]));
        }
    }
}

void fast_attention_run(const fast_plan *p, void *scratch_base)
{
    const fast_kernels *kern = fast_kernels_select();
    scratch w = carve(p, scratch_base);
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t n = 0; n < p->N; n++)
            for (int64_t i0 = 0; i0 < p->Q_S; i0 += FAST_QBLOCK) {
                int nr = p->Q_S - i0 < FAST_QBLOCK ? (int)(p->Q_S - i0)
                                                   : FAST_QBLOCK;
                run_task(p, kern, &w, b, n, i0, nr);
            }
}
