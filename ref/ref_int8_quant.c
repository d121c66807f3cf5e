/* ref/ math of full int8 quantization: one row, correctly rounded, and its
 * tolerance bound (docs/features/int8_quant.md "The computation",
 * "Tolerance").
 *
 * The row: an int8 query q, keys j (int8 k_j, v_j) with bias b_j (pse, or
 * 0), the scale and the scales ds1, qs1, ds2 as read (read_int8_quant.c):
 *
 *   dot_j = sum_d q_d k_jd              an exact integer, |dot| < 2^24
 *   s_j   = dot_j ds1 scale + b_j       exact in MPFR (products of 25, 24
 *                                       and 53 bits: 102; the sum grown)
 *   m = max s_j, e_j = exp(s_j - m)     s_j - m exact, exp rounded at p
 *   P_j = sat(rne(e_j qs1))             an integer in [-128, 127]
 *   N_d = sum_j P_j v_jd                exact (int64)
 *   l = sum_j e_j, x_d = ds2 N_d / l, lse = m + log l       at p
 *
 * Deciding at precision p (|eps| <= 2^-p per rounding):
 *   t_j = e_j qs1 has |t'_j - t_j| <= |t'_j| 2^(2-p): P_j is decided when
 *   every value of that interval rounds (to nearest) to one integer, or
 *   t_j is exact (e_j = 1: s_j = m; ties to even then), or the interval
 *   saturates.  t_j is otherwise irrational (e^r for a rational r != 0 is
 *   transcendental), so never a tie: a finite p decides it.
 *   l' = l (1 + th), |th| <= 2^(2-p); x'_d within |x'_d| 2^(4-p) of x_d
 *   (a decision of the fp16 rounding as in ref_attention.c).  l is
 *   transcendental unless every e_j is 1 (then l = nk and x_d rational:
 *   exact or off every rounding boundary at some p), so the loop ends.
 *   lse: as ref_attention.c, rational only with one key (lse = m).
 *
 * The bound (the permitted algorithm; float32, u = 2^-24): score errors
 * delta_j = g3 A_j + u |b_j| + 3 2^-149 (A_j = |dot_j ds1 scale|), the max
 * within Delta = max delta_j, weights e^_j = e_j (1 + th_j) with
 * |th_j| <= T_j = exp(delta_j + Delta + u (|s_j - m| + delta_j + Delta))
 * (1 + 2^-22) - 1; t^_j within r_j = |t_j| ((1 + T_j)(1 + u) - 1) + (|qs1|
 * + 1) 2^-126 of t_j, so P^_j in [P-_j, P+_j] (any rounding of a value of
 * that interval, saturated); |N^_d - N_d| <= F_d = sum_j max(P+_j - P_j,
 * P_j - P-_j) |v_jd|; l^ = l (1 + eta), |eta| <= E; then
 *   |x^_d - x_d| <= |ds2| / l (F_d (1 + G) + |N_d| G),
 *   G = (1 + u)^2 / (1 - E) - 1.
 * A key whose bias is -inf leaves the row; when every key does, or a
 * bias is +inf or NaN (s - max is NaN, and so is P), the row is NaN.
 * Outside the model (bound +inf): a non-finite or float32-subnormal ds1,
 * qs1, ds2 or scale, |dot ds1 scale| + |b| beyond float32.
 *
 * Ziv's strategy: the row is first evaluated in binary64 with a rigorous
 * error bound (dbl_row); only a row where some P_j or an element is not
 * decided goes through MPFR (its decided elements kept).
 *
 * Cost per row of nk keys: O(nk D) integer operations, nk exps in binary64,
 * O(nk D) for N and the bound; an escalated row nk exact score sums and
 * exps at p bits (p from precision_bits, doubling when undecided). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ref_internal.h"

#define REF_INT8_QUANT_MAX_PREC (1L << 16)
#define U24 0x1p-24
#define SAFE (1.0 + 0x1p-20)

struct ref_int8_quant {
    ref_fmt out_fmt;
    long prec0;
    int pure_mpfr;    /* no binary64 pass (cross-checks) */
    int64_t D, KV_S;
    int64_t *dot;     /* [KV_S] */
    int64_t *keys;    /* [KV_S] the row's keys whose score is not -inf */
    int32_t *P;       /* [KV_S] quantized weights */
    int32_t *plo, *phi; /* [KV_S] the permitted range of each */
    double *sd, *td;  /* [KV_S] s_j - m and t_j in binary64 (bound) */
    int64_t *N;       /* [D] */
    mpfr_t *s, *e;    /* [KV_S] exact scores (grown); e_j at p */
    mpfr_ptr *eptr;
    mpfr_t prod, diff, m, t, lo, hi, l, x, num, logl, lse, r, rlo, rhi, r32;
};

void ref_int8_quant_free(ref_int8_quant *w)
{
    if (!w)
        return;
    if (w->s) {
        for (int64_t j = 0; j < w->KV_S; j++) {
            mpfr_clear(w->s[j]);
            mpfr_clear(w->e[j]);
        }
        mpfr_clears(w->prod, w->diff, w->m, w->t, w->lo, w->hi, w->l, w->x,
                    w->num, w->logl, w->lse, w->r, w->rlo, w->rhi, w->r32,
                    (mpfr_ptr)0);
    }
    free(w->dot), free(w->keys), free(w->P), free(w->plo), free(w->phi);
    free(w->sd), free(w->td), free(w->N);
    free(w->s), free(w->e), free(w->eptr);
    free(w);
}

fia_status ref_int8_quant_new(ref_int8_quant **out, int64_t D, int64_t max_keys,
                              ref_fmt fmt, long prec, int pure_mpfr,
                              fia_error *err)
{
    ref_int8_quant *w = calloc(1, sizeof *w);
    *out = NULL;
    if (!w)
        return fia_fail(err, FIA_ERR_NOMEM, "out of memory (reference)");
    size_t S = (size_t)(max_keys > 0 ? max_keys : 1);
    size_t Dn = (size_t)(D > 0 ? D : 1);
    w->out_fmt = fmt;
    w->prec0 = prec;
    w->pure_mpfr = pure_mpfr;
    w->D = D;
    w->KV_S = (int64_t)S;
    w->dot = malloc(S * sizeof *w->dot);
    w->keys = malloc(S * sizeof *w->keys);
    w->P = malloc(S * sizeof *w->P);
    w->plo = malloc(S * sizeof *w->plo);
    w->phi = malloc(S * sizeof *w->phi);
    w->sd = malloc(S * sizeof *w->sd);
    w->td = malloc(S * sizeof *w->td);
    w->N = malloc(Dn * sizeof *w->N);
    mpfr_t *s = malloc(S * sizeof(mpfr_t)), *e = malloc(S * sizeof(mpfr_t));
    w->eptr = malloc(S * sizeof(mpfr_ptr));
    if (!w->dot || !w->keys || !w->P || !w->plo || !w->phi || !w->sd ||
        !w->td || !w->N || !s || !e || !w->eptr) {
        free(s), free(e);
        ref_int8_quant_free(w);
        return fia_fail(err, FIA_ERR_NOMEM, "out of memory (reference)");
    }
    for (size_t j = 0; j < S; j++) {
        mpfr_init2(s[j], 128);
        mpfr_init2(e[j], prec);
    }
    w->s = s, w->e = e;
    mpfr_inits2(128, w->prod, w->diff, w->m, (mpfr_ptr)0);
    mpfr_inits2(prec, w->t, w->lo, w->hi, w->l, w->x, w->logl, w->lse,
                (mpfr_ptr)0);
    mpfr_init2(w->num, 128);
    mpfr_init2(w->r, ref_fmt_prec(fmt));
    mpfr_init2(w->rlo, ref_fmt_prec(fmt));
    mpfr_init2(w->rhi, ref_fmt_prec(fmt));
    mpfr_init2(w->r32, ref_fmt_prec(REF_FMT_FP32));
    *out = w;
    return FIA_OK;
}

/* ---- exact arithmetic on scores ---------------------------------------- */

/* y = a + sign * b exactly (y's precision grown until the sum is exact:
 * both are finite binary numbers). */
static void exact_add(mpfr_t y, const mpfr_t a, const mpfr_t b, int sign)
{
    mpfr_prec_t pr = mpfr_get_prec(a) > mpfr_get_prec(b) ? mpfr_get_prec(a)
                                                         : mpfr_get_prec(b);
    pr += 2;
    for (;;) {
        mpfr_set_prec(y, pr);
        int t = sign > 0 ? mpfr_add(y, a, b, MPFR_RNDN)
                         : mpfr_sub(y, a, b, MPFR_RNDN);
        if (t == 0)
            return;
        pr *= 2;
    }
}

static int f32_normal_or_zero(double x)
{
    return isfinite(x) && (x == 0.0 || (fabs(x) >= 0x1p-126 &&
                                        fabs(x) <= FLT_MAX));
}

/* The row inside the model (see the header). */
static int row_modeled(const ref_row_in *in, const ref_int8_quant_scales *sc,
                       const int64_t *dot)
{
    if (!f32_normal_or_zero(sc->ds1) || !f32_normal_or_zero(sc->qs1) ||
        !f32_normal_or_zero(sc->ds2) || !f32_normal_or_zero(in->scale))
        return 0;
    for (int64_t t = 0; t < in->nk; t++) {
        double b = in->bias ? in->bias[in->keys[t]] : 0.0;
        if (!isfinite(b))
            return 0;
        double a = fabs((double)dot[t] * sc->ds1 * in->scale) + fabs(b);
        if (!(a * SAFE < FLT_MAX / 2))
            return 0;
    }
    return 1;
}

/* Scores exact into w->s[t], their max into w->m. */
static void exact_scores(ref_int8_quant *w, const ref_row_in *in,
                         const ref_int8_quant_scales *sc)
{
    for (int64_t t = 0; t < in->nk; t++) {
        mpfr_set_prec(w->prod, 128);
        mpfr_set_si(w->prod, (long)w->dot[t], MPFR_RNDN); /* < 2^24 */
        mpfr_mul_d(w->prod, w->prod, sc->ds1, MPFR_RNDN); /* 49 bits */
        mpfr_mul_d(w->prod, w->prod, in->scale, MPFR_RNDN); /* 102 */
        double b = in->bias ? in->bias[in->keys[t]] : 0.0;
        if (b == 0.0) {
            mpfr_set_prec(w->s[t], 128);
            mpfr_set(w->s[t], w->prod, MPFR_RNDN);
        } else {
            mpfr_set_prec(w->diff, 53);
            mpfr_set_d(w->diff, b, MPFR_RNDN);
            exact_add(w->s[t], w->prod, w->diff, 1);
        }
        if (t == 0 || mpfr_greater_p(w->s[t], w->m)) {
            mpfr_set_prec(w->m, mpfr_get_prec(w->s[t]));
            mpfr_set(w->m, w->s[t], MPFR_RNDN);
        }
    }
}

/* ---- one evaluation at precision p ------------------------------------- */

/* P_j of t (the value at w->t, exact or within |t| 2^(2-p)): 1 and *P
 * when decided (always at the safety stop: t's own rounding). */
static int decide_p(ref_int8_quant *w, int exact, long prec, int32_t *P)
{
    mpfr_set_prec(w->lo, prec + 8);
    mpfr_set_prec(w->hi, prec + 8);
    if (exact || prec >= REF_INT8_QUANT_MAX_PREC) {
        mpfr_rint(w->lo, w->t, MPFR_RNDN); /* ties to even */
        mpfr_set(w->hi, w->lo, MPFR_RNDN);
    } else {
        mpfr_mul_2si(w->hi, w->t, 2 - prec, MPFR_RNDU);
        mpfr_abs(w->hi, w->hi, MPFR_RNDU);
        mpfr_sub(w->lo, w->t, w->hi, MPFR_RNDD);
        mpfr_add(w->hi, w->t, w->hi, MPFR_RNDU);
        /* nearest of the ends: floor(x + 1/2), the same for every value
         * in between only when equal at both (a tie at an end is not) */
        mpfr_add_d(w->lo, w->lo, 0.5, MPFR_RNDD);
        mpfr_add_d(w->hi, w->hi, 0.5, MPFR_RNDU);
        mpfr_floor(w->lo, w->lo);
        mpfr_floor(w->hi, w->hi);
    }
    /* saturated ends decide alike */
    double a = mpfr_get_d(w->lo, MPFR_RNDD), b = mpfr_get_d(w->hi, MPFR_RNDU);
    a = a < -128.0 ? -128.0 : a > 127.0 ? 127.0 : a;
    b = b < -128.0 ? -128.0 : b > 127.0 ? 127.0 : b;
    if (a != b)
        return 0;
    *P = (int32_t)a;
    return 1;
}

/* Weights, P, N and l at w's precision.  Returns 1 when every P_j is
 * decided; *l_exact whether l is exact. */
static int weights(ref_int8_quant *w, const ref_row_in *in,
                   const ref_int8_quant_scales *sc, long prec, int *l_exact)
{
    int all_exact = 1;
    for (int64_t t = 0; t < in->nk; t++) {
        exact_add(w->diff, w->s[t], w->m, -1);
        mpfr_set_prec(w->e[t], prec);
        int ex = mpfr_exp(w->e[t], w->diff, MPFR_RNDN) == 0;
        all_exact &= ex;
        mpfr_set_prec(w->t, prec);
        ex &= mpfr_mul_d(w->t, w->e[t], sc->qs1, MPFR_RNDN) == 0;
        if (!decide_p(w, ex, prec, &w->P[t]))
            return 0;
        w->eptr[t] = w->e[t];
        w->sd[t] = mpfr_get_d(w->diff, MPFR_RNDN);
        w->td[t] = mpfr_get_d(w->t, MPFR_RNDN);
    }
    mpfr_set_prec(w->l, prec);
    int ts = mpfr_sum(w->l, w->eptr, (unsigned long)in->nk, MPFR_RNDN);
    *l_exact = all_exact && ts == 0;
    for (int64_t d = 0; d < in->D; d++) {
        int64_t n = 0;
        for (int64_t t = 0; t < in->nk; t++)
            n += (int64_t)w->P[t] *
                 (int64_t)in->vbuf[in->keys[t] * in->D + d];
        w->N[d] = n;
    }
    return 1;
}

/* Rounds val to f into w->r; 1 when every value within 2^err_exp of val
 * rounds alike (or exact / no error). */
static int decided(ref_int8_quant *w, mpfr_t rlo, mpfr_t rhi, const mpfr_t val,
                   int exact, mpfr_exp_t err_exp, ref_fmt f, mpfr_t y)
{
    ref_round_fmt(y, val, f);
    if (exact || !mpfr_number_p(val) || mpfr_zero_p(val))
        return 1;
    mpfr_set_prec(w->lo, mpfr_get_prec(val) + 8);
    mpfr_set_prec(w->hi, mpfr_get_prec(val) + 8);
    mpfr_set_ui_2exp(w->hi, 1, err_exp, MPFR_RNDN);
    mpfr_sub(w->lo, val, w->hi, MPFR_RNDD);
    mpfr_add(w->hi, val, w->hi, MPFR_RNDU);
    ref_round_fmt(rlo, w->lo, f);
    ref_round_fmt(rhi, w->hi, f);
    return mpfr_equal_p(rlo, rhi) && mpfr_equal_p(rlo, y);
}

/* Outputs (and lse) not yet done; returns the number still undecided. */
static int64_t outputs(ref_int8_quant *w, const ref_row_in *in,
                       const ref_int8_quant_scales *sc, long prec, int l_exact,
                       row_out *ro)
{
    int64_t und = 0;
    for (int64_t d = 0; d < in->D; d++) {
        if (ro->done[d])
            continue;
        mpfr_set_prec(w->x, prec);
        mpfr_set_si(w->num, (long)w->N[d], MPFR_RNDN); /* < 2^39 */
        int ex = mpfr_mul_d(w->num, w->num, sc->ds2, MPFR_RNDN) == 0;
        ex &= mpfr_div(w->x, w->num, w->l, MPFR_RNDN) == 0;
        ex &= l_exact;
        mpfr_exp_t err = mpfr_regular_p(w->x)
                             ? mpfr_get_exp(w->x) + 4 - prec : 0;
        if (decided(w, w->rlo, w->rhi, w->x, ex, err, w->out_fmt, w->r) ||
            prec >= REF_INT8_QUANT_MAX_PREC) {
            ro->bits[d] = ref_encode_fmt(w->r, w->out_fmt);
            ro->exact[d] = mpfr_get_d(w->x, MPFR_RNDN);
            ro->done[d] = 1;
        } else {
            und++;
        }
    }
    if (in->want_lse && !ro->lse_done) {
        mpfr_set_prec(w->logl, prec);
        mpfr_set_prec(w->lse, prec);
        int ex = l_exact && mpfr_log(w->logl, w->l, MPFR_RNDN) == 0;
        if (!l_exact)
            mpfr_log(w->logl, w->l, MPFR_RNDN);
        ex &= mpfr_add(w->lse, w->m, w->logl, MPFR_RNDN) == 0;
        mpfr_exp_t big = 0;
        if (mpfr_regular_p(w->lse) && mpfr_get_exp(w->lse) > big)
            big = mpfr_get_exp(w->lse);
        if (mpfr_regular_p(w->logl) && mpfr_get_exp(w->logl) > big)
            big = mpfr_get_exp(w->logl);
        mpfr_t rlo, rhi;
        mpfr_inits2(ref_fmt_prec(REF_FMT_FP32), rlo, rhi, (mpfr_ptr)0);
        int ok = decided(w, rlo, rhi, w->lse, ex, big + 5 - prec,
                         REF_FMT_FP32, w->r32);
        mpfr_clears(rlo, rhi, (mpfr_ptr)0);
        if (ok || prec >= REF_INT8_QUANT_MAX_PREC) {
            ro->lse_bits = ref_encode_fmt(w->r32, REF_FMT_FP32);
            ro->lse_exact = mpfr_get_d(w->lse, MPFR_RNDN);
            ro->lse_done = 1;
        } else {
            und++;
        }
    }
    return und;
}

/* ---- the bound ----------------------------------------------------------- */

static double gam(double n)
{
    double nu = n * U24;
    return nu >= 0.5 ? INFINITY : nu / (1.0 - nu) * SAFE;
}

static int32_t sat_i8(double x)
{
    return x < -128.0 ? -128 : x > 127.0 ? 127 : (int32_t)x;
}

/* ro->bound, ro->lse_bound for the decided P, N, l (see the header). */
static void bounds(ref_int8_quant *w, const ref_row_in *in,
                   const ref_int8_quant_scales *sc, double l, double m,
                   row_out *ro)
{
    const int64_t nk = in->nk, D = in->D;
    const double g3 = gam(3.0);
    double Delta = 0.0;
    for (int64_t t = 0; t < nk; t++) {
        double b = in->bias ? in->bias[in->keys[t]] : 0.0;
        double A = fabs((double)w->dot[t] * sc->ds1 * in->scale);
        double dl = (g3 * A + U24 * fabs(b)) * SAFE + 3 * 0x1p-149;
        Delta = dl > Delta ? dl : Delta;
    }
    double sumeT = 0.0, Tmax = 0.0;
    for (int64_t t = 0; t < nk; t++) {
        double b = in->bias ? in->bias[in->keys[t]] : 0.0;
        double A = fabs((double)w->dot[t] * sc->ds1 * in->scale);
        double dl = (g3 * A + U24 * fabs(b)) * SAFE + 3 * 0x1p-149;
        double L = dl + Delta + U24 * (fabs(w->sd[t]) + dl + Delta);
        double T = (exp(L * SAFE) * (1.0 + 0x1p-22) - 1.0) * SAFE;
        Tmax = T > Tmax ? T : Tmax;
        sumeT += exp(w->sd[t]) * T;
        double tv = w->td[t];
        double r = (fabs(tv) * ((1.0 + T) * (1.0 + U24) - 1.0) +
                    (fabs(sc->qs1) + 1.0) * 0x1p-126) * SAFE +
                   fabs(tv) * 0x1p-50;
        int32_t lo = sat_i8(ceil(tv - r - 0.5));
        int32_t hi = sat_i8(floor(tv + r + 0.5));
        w->plo[t] = lo < w->P[t] ? lo : w->P[t];
        w->phi[t] = hi > w->P[t] ? hi : w->P[t];
    }
    double E = ((sumeT + (double)nk * 0x1p-126) / l * (1.0 + gam(nk)) +
                gam((double)nk) * (1.0 + Tmax)) * SAFE;
    double G = E < 0.5 ? ((1.0 + U24) * (1.0 + U24) / (1.0 - E) - 1.0) * SAFE
                       : INFINITY;
    for (int64_t d = 0; d < D; d++) {
        double F = 0.0;
        for (int64_t t = 0; t < nk; t++) {
            int32_t up = w->phi[t] - w->P[t], dn = w->P[t] - w->plo[t];
            int32_t f = up > dn ? up : dn;
            if (f != 0)
                F += (double)f * fabs(in->vbuf[in->keys[t] * D + d]);
        }
        double bnd = fabs(sc->ds2) / l *
                     (F * (1.0 + G) + fabs((double)w->N[d]) * G) * SAFE;
        /* > 0: a zero output may come as -0 (fl32(0 * -ds2)) */
        ro->bound[d] = bnd > 0x1p-1074 ? bnd : 0x1p-1074;
    }
    double lse = ro->lse_exact;
    ro->lse_bound = E < 0.5 ? (Delta + (-log1p(-E)) +
                               0x1p-21 * (fabs(log(l)) + fabs(lse) +
                                          fabs(m))) * SAFE
                            : INFINITY;
}


/* ---- the binary64 first pass ------------------------------------------- */

#define U53 0x1p-53

/* The row in binary64 with rigorous error bounds (Ziv's first step):
 * s_j = fl(fl(dot ds1) scale) + b (dot ds1 exact: 24 + 25 bits), within
 * es_j = 2^-53 (|dot ds1 scale| + |s_j|) (2 roundings); m the computed
 * max, within the largest es; d_j = fl(s_j - m) within es_j + es_max +
 * 2^-53 |d_j|; e_j = exp(d_j) (glibc: < 1 ulp) relative T_j =
 * expm1(that) + 2^-52; t_j = fl(e_j qs1) within |t_j| (T_j + 2^-52).
 * P_j is decided when t_j's interval holds no rounding boundary (a tie,
 * even an exact one, is left to MPFR).  l = sum e_j within sum e_j T_j +
 * g_nk l; x_d = fl(fl(N_d ds2) / l) relative 2^-52 + E_l; lse = m +
 * log l.  Returns 1 when every P_j is decided (sets *l, *m); marks the
 * elements decided in ro. */
static int dbl_row(ref_int8_quant *w, const ref_row_in *in,
                   const ref_int8_quant_scales *sc, row_out *ro, double *l_out,
                   double *m_out)
{
    const int64_t nk = in->nk, D = in->D;
    double m = -INFINITY, esm = 0.0;
    for (int64_t t = 0; t < nk; t++) {
        double b = in->bias ? in->bias[in->keys[t]] : 0.0;
        double s = (double)w->dot[t] * sc->ds1 * in->scale + b;
        w->sd[t] = s;
        double es = U53 * (fabs((double)w->dot[t] * sc->ds1 * in->scale) +
                           fabs(s)) * SAFE;
        esm = es > esm ? es : esm;
        m = s > m ? s : m;
    }
    double l = 0.0, leT = 0.0;
    for (int64_t t = 0; t < nk; t++) {
        double b = in->bias ? in->bias[in->keys[t]] : 0.0;
        double es = U53 * (fabs((double)w->dot[t] * sc->ds1 * in->scale) +
                           fabs(w->sd[t])) * SAFE;
        double dv = w->sd[t] - m;
        double T = expm1((es + esm + U53 * fabs(dv)) * SAFE) * SAFE + 0x1p-52;
        double e = exp(dv);
        double tv = e * sc->qs1;
        double r = fabs(tv) * (T + 0x1p-52) * SAFE + 0x1p-1074;
        double lo = floor(tv - r + 0.5), hi = floor(tv + r + 0.5);
        lo = lo < -128.0 ? -128.0 : lo > 127.0 ? 127.0 : lo;
        hi = hi < -128.0 ? -128.0 : hi > 127.0 ? 127.0 : hi;
        if (lo != hi || !isfinite(tv))
            return 0;
        w->P[t] = (int32_t)lo;
        w->sd[t] = dv;
        w->td[t] = tv;
        l += e;
        leT += e * T;
        (void)b;
    }
    for (int64_t d = 0; d < D; d++) {
        int64_t n = 0;
        for (int64_t t = 0; t < nk; t++)
            n += (int64_t)w->P[t] *
                 (int64_t)in->vbuf[in->keys[t] * in->D + d];
        w->N[d] = n;
    }
    const double El = (leT / l + (double)(nk + 1) * U53) * SAFE;
    for (int64_t d = 0; d < D; d++) {
        double x = (double)w->N[d] * sc->ds2 / l;
        if (w->N[d] == 0) { /* exactly 0 */
            ro->bits[d] = ref_round_double_fmt(0.0, w->out_fmt);
            ro->exact[d] = 0.0;
            ro->done[d] = 1;
        } else if (ref_decide_double(x, fabs(x) * (El + 0x1p-51), w->out_fmt,
                              &ro->bits[d])) {
            ro->exact[d] = x;
            ro->done[d] = 1;
        }
    }
    if (in->want_lse) {
        double ll = log(l), lse = m + ll;
        double b = esm + El + 0x1p-52 * fabs(ll) + U53 * fabs(lse);
        if (nk == 1) { /* lse = m: exact when the score is */
            b = esm;
            lse = m;
        }
        if (ref_decide_double(lse, b, REF_FMT_FP32, &ro->lse_bits)) {
            ro->lse_exact = lse;
            ro->lse_done = 1;
        }
    }
    *l_out = l;
    *m_out = m;
    return 1;
}

/* ---- one row ----------------------------------------------------------- */

/* Every score -inf: -inf - (-inf) is NaN, the row NaN, compared exactly
 * (bound 0; an int8 output of NaN is unspecified, int8_out.md). */
static void nan_row(const ref_row_in *in, row_out *ro)
{
    for (int64_t d = 0; d < in->D; d++) {
        ro->bits[d] = ref_round_double_fmt(NAN, in->fmt);
        ro->exact[d] = NAN;
        ro->bound[d] = 0.0;
        ro->done[d] = 1;
    }
    ro->lse_bits = ref_round_double_fmt(NAN, REF_FMT_FP32);
    ro->lse_exact = NAN;
    ro->lse_bound = 0.0;
    ro->lse_done = 1;
}

static void unmodeled_row(const ref_row_in *in, row_out *ro)
{
    for (int64_t d = 0; d < in->D; d++) {
        ro->bits[d] = ref_round_double_fmt(NAN, in->fmt);
        ro->exact[d] = NAN;
        ro->bound[d] = INFINITY;
        ro->done[d] = 1;
    }
    ro->lse_bits = 0x7FC00000u;
    ro->lse_exact = NAN;
    ro->lse_bound = INFINITY;
    ro->lse_done = 1;
}

void ref_int8_quant_row(ref_int8_quant *w, const ref_row_in *in_all,
                        const ref_int8_quant_scales *sc, row_out *ro,
                        int64_t *n_elements, int64_t *n_escalated)
{
    const int64_t D = in_all->D;
    memset(ro->done, 0, (size_t)D);
    ro->lse_done = !in_all->want_lse;
    ro->lse_bits = 0;
    ro->lse_exact = 0.0;
    ro->lse_bound = 0.0;
    *n_elements += D + (in_all->want_lse ? 1 : 0);
    /* a key whose pse is -inf scores -inf: weight 0, P = 0, it leaves the
     * row; a row left without a key (every key's score -inf) is NaN
     * (docs/semantics.md "Non-finite inputs") */
    ref_row_in rin = *in_all;
    const ref_row_in *in = &rin;
    for (int64_t t = 0; in_all->bias && t < in_all->nk; t++) {
        const double b = in_all->bias[in_all->keys[t]];
        if (isnan(b) || (isinf(b) && b > 0)) { /* s - max NaN: the row NaN */
            nan_row(in_all, ro);
            return;
        }
    }
    if (in_all->bias) {
        rin.nk = 0;
        rin.keys = w->keys;
        for (int64_t t = 0; t < in_all->nk; t++) {
            const double b = in_all->bias[in_all->keys[t]];
            if (!(isinf(b) && b < 0))
                w->keys[rin.nk++] = in_all->keys[t];
        }
        if (rin.nk == 0) {
            nan_row(in_all, ro);
            return;
        }
    }
    for (int64_t t = 0; t < in->nk; t++) {
        const double *k = in->kbuf + in->keys[t] * D;
        int64_t s = 0;
        for (int64_t d = 0; d < D; d++)
            s += (int64_t)in->q[d] * (int64_t)k[d];
        w->dot[t] = s;
    }
    if (!row_modeled(in, sc, w->dot)) {
        unmodeled_row(in, ro);
        return;
    }
    double l = 1.0, m = 0.0;
    const int pdone = !w->pure_mpfr && dbl_row(w, in, sc, ro, &l, &m);
    int64_t left = 0;
    for (int64_t d = 0; d < D; d++)
        left += !ro->done[d];
    left += !ro->lse_done;
    if (pdone && left == 0) {
        bounds(w, in, sc, l, m, ro);
        return;
    }
    *n_escalated += pdone ? left : D + (in->want_lse ? 1 : 0);
    /* MPFR: P is the same at every precision that decides it; the outputs
     * not decided at one are evaluated again at twice that (the safety
     * stop takes what it has) */
    exact_scores(w, in, sc);
    long prec = w->prec0;
    int l_exact = 0;
    while (!weights(w, in, sc, prec, &l_exact) ||
           outputs(w, in, sc, prec, l_exact, ro) > 0)
        prec *= 2;
    bounds(w, in, sc, mpfr_get_d(w->l, MPFR_RNDN),
           mpfr_get_d(w->m, MPFR_RNDN), ro);
}
