/* ref/: rows whose output is a rational number.
 *
 * out[d] = sum_j e^(a_j) v_j / sum_j e^(a_j) with a_j = s_j - m rational
 * (the scores are exact dyadic rationals).  If out[d] = r for a rational r,
 * then sum_c e^(a_c) W_c = 0 with W_c = sum_{j in class c} (v_j - r), the
 * classes being the keys of equal score; by Lindemann-Weierstrass the e^(a_c)
 * of distinct rationals a_c are linearly independent over the algebraic
 * numbers, so every W_c = 0: every class has the same mean of v, equal to r.
 * Conversely, if all class means are equal, out[d] is that mean.
 *
 * So the output is either that common rational mean (computed here exactly
 * and rounded once), or irrational, in which case it is never on a rounding
 * boundary and refining the precision always decides it.  This is what
 * makes ties (a mean exactly halfway between two outputs) round to even
 * even when the e_j themselves are inexact. */
#include <math.h>
#include <stdlib.h>
#include "ref_internal.h"

/* Enough for an exact sum of up to 2^62 binary64 values. */
#define REF_EXACT_SUM_PREC 2200

typedef struct keyref {
    mpfr_srcptr s;
    double v, lo; /* the value v + lo (lo: a dequantized rest, or 0) */
} keyref;

static int cmp_key(const void *a, const void *b)
{
    const keyref *x = a, *y = b;
    return mpfr_cmp(x->s, y->s);
}

fia_status ref_rational_mean(mpfr_t *scores, const double *v,
                             const double *vlo, int64_t nk,
                             ref_fmt f, long prec0, int *decided,
                             uint32_t *bits, double *exact)
{
    *decided = 0;
    if (nk <= 0)
        return FIA_OK;
    /* A key whose score is -inf has weight exactly 0 and leaves the mean
     * (a non-finite v makes the column NaN: decided elsewhere). */
    int64_t nw = 0;
    for (int64_t t = 0; t < nk; t++) {
        if (!isfinite(v[t]))
            return FIA_OK;
        if (mpfr_inf_p(scores[t]) && mpfr_sgn(scores[t]) < 0)
            continue;
        if (!mpfr_number_p(scores[t]))
            return FIA_OK;
        nw++;
    }
    if (nw == 0)
        return FIA_OK;
    keyref *kr = malloc((size_t)nk * sizeof *kr);
    mpfr_ptr *ptr = malloc((size_t)nk * sizeof *ptr);
    mpfr_t *tv = malloc((size_t)nk * sizeof *tv);
    if (!kr || !ptr || !tv) {
        free(kr), free(ptr), free(tv);
        return FIA_ERR_NOMEM;
    }
    /* v + lo exactly: two binary64 values span at most 2^1024 to 2^-1074 */
    const mpfr_prec_t vprec = vlo ? REF_EXACT_SUM_PREC : 53;
    for (int64_t t = 0, w = 0; t < nk; t++) {
        mpfr_init2(tv[t], vprec);
        if (mpfr_inf_p(scores[t]))
            continue;
        kr[w].s = scores[t];
        kr[w].v = v[t];
        kr[w].lo = vlo ? vlo[t] : 0.0;
        w++;
    }
    const int64_t nall = nk;
    nk = nw;
    qsort(kr, (size_t)nk, sizeof *kr, cmp_key);
    for (int64_t t = 0; t < nk; t++) {
        mpfr_set_d(tv[t], kr[t].v, MPFR_RNDN);
        mpfr_add_d(tv[t], tv[t], kr[t].lo, MPFR_RNDN); /* exact */
    }

    mpfr_t sum0, sum, a, b;
    mpfr_inits2(REF_EXACT_SUM_PREC, sum0, sum, (mpfr_ptr)0);
    mpfr_inits2(REF_EXACT_SUM_PREC + 64, a, b, (mpfr_ptr)0);
    int rational = 1;
    unsigned long n0 = 0;
    for (int64_t c0 = 0; c0 < nk && rational;) {
        int64_t c1 = c0 + 1;
        while (c1 < nk && mpfr_equal_p(kr[c1].s, kr[c0].s))
            c1++;
        for (int64_t t = c0; t < c1; t++)
            ptr[t - c0] = tv[t];
        unsigned long n = (unsigned long)(c1 - c0);
        mpfr_sum(sum, ptr, n, MPFR_RNDN); /* exact */
        if (c0 == 0) {
            mpfr_set(sum0, sum, MPFR_RNDN);
            n0 = n;
        } else {
            /* sum / n == sum0 / n0  <=>  sum * n0 == sum0 * n (exact) */
            mpfr_mul_ui(a, sum, n0, MPFR_RNDN);
            mpfr_mul_ui(b, sum0, n, MPFR_RNDN);
            rational = mpfr_equal_p(a, b);
        }
        c0 = c1;
    }
    if (rational) {
        /* r = sum0 / n0, rounded once: refine until the division is exact
         * or both ends of its error interval round alike (a non-dyadic
         * rational is never a midpoint, so this ends). */
        mpfr_t r, lo, hi, y, ylo, yhi;
        int fp = ref_fmt_prec(f);
        mpfr_inits2(fp, y, ylo, yhi, (mpfr_ptr)0);
        mpfr_inits2(prec0, r, lo, hi, (mpfr_ptr)0);
        for (long p = prec0;; p *= 2) {
            mpfr_set_prec(r, p);
            mpfr_set_prec(lo, p);
            mpfr_set_prec(hi, p);
            int t = mpfr_div_ui(r, sum0, n0, MPFR_RNDN);
            ref_round_fmt(y, r, f);
            if (t == 0 || p >= REF_EXACT_SUM_PREC * 8)
                break;
            mpfr_div_ui(lo, sum0, n0, MPFR_RNDD);
            mpfr_div_ui(hi, sum0, n0, MPFR_RNDU);
            ref_round_fmt(ylo, lo, f);
            ref_round_fmt(yhi, hi, f);
            if (mpfr_equal_p(ylo, yhi))
                break;
        }
        *bits = ref_encode_fmt(y, f);
        *exact = mpfr_get_d(r, MPFR_RNDN);
        mpfr_clears(r, lo, hi, y, ylo, yhi, (mpfr_ptr)0);
    }
    mpfr_clears(sum0, sum, a, b, (mpfr_ptr)0);
    for (int64_t t = 0; t < nall; t++)
        mpfr_clear(tv[t]);
    free(kr), free(ptr), free(tv);
    *decided = rational;
    return FIA_OK;
}
