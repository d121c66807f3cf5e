/* ref/: a row whose keys all have one exact score, decided in binary64.
 *
 * When every key's exact score is the same, every weight e^(s - m) is the
 * same and cancels: out_d = (sum_t v_td) / n exactly, a rational that may
 * lie on a rounding boundary of the output format (a tie: the mean of two
 * neighbours), where no error bound can decide it.  The binary64 pass then
 * sent the row to MPFR (an exp per key at 128 bits, then ref_exact.c's
 * rational settle): the commonest escalation of the fuzzers' cases.  Here,
 * in plain binary64 arithmetic, nothing being assumed that is not checked:
 *
 *  - one class: every product q_d k_td is exact (fma(q, k, -p) == 0, p a
 *    normal number or an exact 0) and every partial sum of the dot is
 *    exact (TwoSum: its rounding error is 0), so the binary64 dot is the
 *    exact one; the keys' (dot, bias) pairs are all equal, so are their
 *    exact scores scale * dot + bias.  (Keys with different pairs may
 *    still score alike: those rows are left to MPFR.)
 *  - Sigma = sum_t v_td, proved exact the same way (TwoSum);
 *  - x = Sigma / n rounded to the format: q = fl(Sigma / n) and x lies in
 *    [q-, q+], q's binary64 neighbours (x = q when fma(q, n, -Sigma) is
 *    0).  Rounding is monotone: if q- and q+ round to the same value a,
 *    so does x.  Else a < b, their roundings, are neighbours of the format
 *    with the boundary mu = (a + b) / 2 between them (exact in binary64);
 *    x - mu has the sign of Sigma - mu n = (Sigma - p) - e, where p + e =
 *    mu n exactly (p = fl(mu n), e = fma(mu, n, -p)) and Sigma - p is
 *    proved exact (TwoSum): above mu x rounds to b, below to a, on it (a
 *    tie) as mu itself rounds (to even).
 *  An exact zero mean is left to MPFR (its sign is the summation's).
 *  With one key lse is its score: decided when scale * dot + bias is
 *  proved exact (fma, TwoSum) and not 0.
 *
 * The dot runs over the score's Dk = D + Dr columns (MLA's rope columns
 * after the D; Dr 0 without).
 *
 * Cost: O(n Dk) binary64 operations for the class, O(n) per column. */
#include <math.h>
#include "ref_internal.h"

/* s = a + b and whether it is exact (Knuth's TwoSum: the error term is the
 * exact rounding error of a + b when nothing overflows). */
static int exact_add(double a, double b, double *s)
{
    const double x = a + b;
    const double bb = x - a;
    const double err = (a - (x - bb)) + (b - bb);
    *s = x;
    return isfinite(x) && err == 0.0;
}

/* The exact dot q . k into *dot, or 0 when binary64 may not hold it. */
static int exact_dot(const double *q, const double *k, int64_t D, double *dot)
{
    double s = 0.0;
    for (int64_t d = 0; d < D; d++) {
        const double p = q[d] * k[d];
        if (!isfinite(p) || fma(q[d], k[d], -p) != 0.0)
            return 0;
        /* a product in the subnormal range may have lost bits the fma
         * cannot show (its remainder underflows too) */
        if (p == 0.0 ? q[d] != 0.0 && k[d] != 0.0 : fabs(p) < 0x1p-960)
            return 0;
        if (!exact_add(s, p, &s))
            return 0;
    }
    *dot = s;
    return 1;
}

/* Sigma / n rounded to f, exactly; 0 when it cannot be proved here. */
static int round_ratio(double sigma, double n, ref_fmt f, uint32_t *bits,
                       double *value)
{
    const double q = sigma / n;
    *value = q;
    if (fma(q, n, -sigma) == 0.0) { /* q is x */
        *bits = ref_round_double_fmt(q, f);
        return 1;
    }
    const double a = ref_round_double_value(nextafter(q, -INFINITY), f);
    const double b = ref_round_double_value(nextafter(q, INFINITY), f);
    if (!isfinite(a) || !isfinite(b))
        return 0;
    if (a == b && signbit(a) == signbit(b)) {
        *bits = ref_round_double_fmt(a, f);
        return 1;
    }
    const double mu = a / 2 + b / 2; /* exact: a, b have few bits */
    if (!(a < mu && mu < b))
        return 0;                    /* a signed zero pair, or no room */
    const double p = mu * n, e = fma(mu, n, -p);
    double d1;
    if (!exact_add(sigma, -p, &d1))
        return 0;
    *bits = ref_round_double_fmt(d1 > e ? b : d1 < e ? a : mu, f);
    return 1;
}

int64_t ref_dbl_one_class(const ref_row_in *in, row_out *ro)
{
    const int64_t D = in->D, Dk = D + in->Dr, nk = in->nk;
    if (nk < 1 || in->klo != NULL || in->vlo != NULL)
        return 0;
    double dot0 = 0.0;
    const double b0 = in->bias ? in->bias[in->keys[0]] : 0.0;
    for (int64_t t = 0; t < nk; t++) {
        double dot; /* over the score's Dk = D + Dr columns (MLA's rope) */
        if (!exact_dot(in->q, in->kbuf + in->keys[t] * Dk, Dk, &dot))
            return 0;
        const double b = in->bias ? in->bias[in->keys[t]] : 0.0;
        if (t == 0)
            dot0 = dot;
        else if (dot != dot0 || b != b0)
            return 0; /* not provably one class */
    }
    int64_t decided = 0;
    /* one key: lse = its score, a binary64 when scale * dot + bias is
     * (an exact 0 is left to MPFR: its sign is the arithmetic's) */
    double sc;
    if (nk == 1 && in->want_lse && !ro->lse_done && isfinite(in->scale) &&
        (sc = in->scale * dot0, fma(in->scale, dot0, -sc) == 0.0) &&
        fabs(sc) >= 0x1p-960 && exact_add(sc, b0, &sc) && sc != 0.0) {
        ro->lse_bits = ref_round_double_fmt(sc, REF_FMT_FP32);
        ro->lse_exact = sc;
        ro->lse_done = 1;
        decided++;
    }
    for (int64_t d = 0; d < D; d++) {
        if (ro->done[d])
            continue;
        double sigma = 0.0;
        int exact = 1;
        for (int64_t t = 0; exact && t < nk; t++)
            exact = exact_add(sigma, in->vbuf[in->keys[t] * D + d], &sigma);
        if (!exact || sigma == 0.0)
            continue;
        if (round_ratio(sigma, (double)nk, in->fmt, &ro->bits[d],
                        &ro->exact[d])) {
            ro->done[d] = 1;
            decided++;
        }
    }
    return decided;
}
