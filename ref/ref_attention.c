/* ref/ math core: one attention row in MPFR, correctly rounded.
 *
 * A row is a query vector q[Dk], its keys (k[j] of Dk columns, v[j] of D,
 * for j in the key set, at least one), their biases (pse; none without)
 * and the scale; Dk = D + Dr, the rope columns of MLA after the D (Dr 0
 * without: the score of MLA is the dot product of [q | q_rope] with
 * [k | k_rope], read_mla.c, so it is one dot of Dk terms); nothing
 * here knows where they came from (layouts, heads, masks, sparse modes,
 * lengths, pse rows and columns: the reading, ref_rows.c, read_pse.c).
 * Over the row's keys:
 *   s_j = scale * sum_{d < Dk} q[d] k[j][d] (+ bias_j, pse)
 *                                            exact (ref_score_precision)
 *   m = max s_j, e_j = exp(s_j - m)          s_j - m exact, exp rounded at p
 *   S = sum e_j, out[d] = sum_j e_j v[j][d] / S, lse = m + log S   at p
 * With a learnable sink (read_sink.c) the row has one more term: a
 * virtual key of score sink (exact, not scaled) and value 0, kept at index
 * nk of the score and weight arrays:
 *   m = max(max s_j, sink), S = sum e_j + e^(sink - m),
 *   out[d] = sum_j e_j v[j][d] / S,  lse = m + log S.
 * Everything below holds of it as of any key (its numerator term is an
 * exact 0); sink - m is exact at ps bits (ref.c's score precision counts
 * the sink's value like a bias).
 * Error bounds (|eps| <= 2^-p per rounding, e_j > 0):
 *   |out' - out| <= (sum_j e_j |v_j| / S) 2^(3-p) <= max_j |v_j| 2^(3-p),
 *   |lse' - lse| <= (1 + |lse'| + |log S'|) 2^(3-p).
 * (out' = num' / S' with num' = (sum e'_j v_j)(1 + b), e'_j = e_j (1 + a_j),
 * S' = S (1 + g), |a_j|, |b| <= 2^-p, |g| <= 2^(1-p)(1 + 2^-p): out' - out
 * = [dN (1 + d) + N (d - g)] / (S (1 + g)) with |dN| <= 2^(1-p)(1 + 2^-p)
 * sum e_j |v_j| and |N| <= sum e_j |v_j|: at most 5.01 2^-p of A = sum e_j
 * |v_j| / S.)  The first bound is used with A computed upward from the e'_j
 * and S' (A'; A < 2 A', so A 2^(3-p) < 2^(E + 4 - p) for A' < 2^E): where
 * one key dominates and the others' weights are far below it (e^-5000),
 * out is about their share of A, and max |v| would ask for thousands of
 * bits to see its sign (a dominant v of 0: out is a tiny +-x).
 * An element is decided when both ends of its error interval round to the
 * same value of the output format, or when it is known exact (every
 * operation's ternary value 0).  lse is also decided when its interval
 * reaches down to the max score m (lse' - err <= m): lse = m + log S > m
 * strictly when two or more weights are nonzero, m is exact at ps bits, and
 * no value of fp32 where rounding changes (a midpoint, the overflow
 * threshold) lies in (m, m + 2^(E_m - ps - 30)] (they lie on the grid of
 * 2^(E_m - 25) or coarser, m on that of 2^(E_m - ps), ps >= 64), so every
 * value there rounds as m + 2^(E_m - ps - 30) does: when lse' + err rounds
 * the same, so does lse.  Without it an m on an fp32 midpoint (its exact
 * score has 25 bits) beside far keys (log S about e^-5000) took 2^14 and
 * more bits.  Otherwise the row is recomputed at twice the precision.  This ends: an output is either a rational number, found
 * and rounded exactly by ref_rational_mean (ref_exact.c), or irrational and
 * so never on a rounding boundary; lse is rational only with a single key
 * (then lse = m, exact).  With a sink both arguments take it as the key of
 * value 0 it is: the output is rational exactly when every class of equal
 * scores (the sink's class with its value 0 included) has one mean
 * (Lindemann-Weierstrass: a sum of e^(rational) over distinct exponents is
 * otherwise transcendental), which ref_rational_mean is handed; lse =
 * log(sum of at least two exponentials) is never rational.  REF_MAX_PREC
 * is a safety stop only.
 *
 * Ziv's strategy: each row is first evaluated in binary64 with a rigorous
 * error bound (ref_double.c); only the elements whose interval does not
 * round to one value (and the rows binary64 cannot handle: non-finite
 * values, exp underflow) go through the MPFR loop above, which starts at
 * the same precision as the pure-MPFR path and so decides them identically.
 *
 * Cost per row of nk keys: O(nk Dk) binary64 operations; for a row left to
 * MPFR, O(nk Dk) exact products at 106 bits and sums at ps bits for the
 * scores, then O(nk D) operations at p bits per refinement, p doubling
 * from precision_bits (almost always one evaluation).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ref_internal.h"

#define REF_MAX_PREC (1L << 16)

struct ref_core {
    ref_fmt out_fmt;
    mpfr_prec_t ps;     /* exact score precision (once MPFR is set up) */
    ref_score_prec_fn score_prec;
    void *score_prec_ctx;
    long prec0;         /* first MPFR precision of every row */
    long prec;          /* current working precision */
    int64_t D, Dk, KV_S; /* output columns, score columns (D + Dr), most
                            keys of a row */
    double *vcol;        /* [2 KV_S]: one v column over the row's keys,
                            then its rests (antiquant) */
    mpfr_t *qm;          /* [Dk], 53 bits */
    mpfr_t *dterm;       /* [2 Dk], 106 bits: exact products q k (and q
                            klo: a dequantized key is k + klo) */
    mpfr_ptr *dptr;
    mpfr_t *score;       /* [KV_S], ps bits */
    mpfr_t *e;           /* [KV_S], prec bits */
    mpfr_ptr *eptr;
    mpfr_t *nterm;       /* [2 KV_S], prec + 53 bits: exact products e v
                            (and e vlo) */
    mpfr_ptr *nptr;
    mpfr_t dot, m, diff, S, logS, lse, num, outv, lo, hi, rlo, rhi, r16, r32;
    mpfr_t spv, spt;     /* sum e_j |v_j| / S rounded upward (64 bits) */
    int inited;
    int64_t refined;     /* rows evaluated past the first MPFR precision */
    ref_dbl dbl;         /* the binary64 first pass */
    int pure_mpfr;       /* 1: every element by MPFR (bounds still computed) */
};
typedef struct ref_core ref_ws;

/* ---- the exact score precision ----------------------------------------- */

/* Exponent (x = f 2^e, 0.5 <= f < 1) and position of the lowest set bit of
 * a finite nonzero double. */
static void exp_lsb(double x, long *e, long *lsb)
{
    int ex;
    double f = frexp(fabs(x), &ex);
    uint64_t mant = (uint64_t)ldexp(f, 53);
    int tz = 0;
    while (!(mant & 1u)) {
        mant >>= 1;
        tz++;
    }
    *e = ex;
    *lsb = (long)ex - 53 + tz;
}

void ref_value_range_add(ref_value_range *r, double x)
{
    if (x == 0.0 || !isfinite(x))
        return;
    long e, l;
    exp_lsb(x, &e, &l);
    if (!r->any || e > r->emax)
        r->emax = e;
    if (!r->any || l < r->lmin)
        r->lmin = l;
    r->any = 1;
}

/* Precision that holds every score and every difference of two scores
 * exactly: products q k lie in [2^(Lq+Lk), 2^(Eq+Ek)), a dot of D of them
 * needs Eq+Ek+ceil(log2 D) - (Lq+Lk) bits, times scale 53 more, a difference
 * one more.  With a bias, a score scale * dot + bias is a multiple of
 * 2^min(Lq+Lk+Ls, Lb) below 2^(max(Eq+Ek+lg+Es, Eb) + 1) in magnitude (Es,
 * Ls the scale's), a difference of two below twice that: the bits between
 * those, one more for safety.  A scale or dot of 0 leaves the bias alone; a
 * non-finite scale leaves scores that are not numbers (exact anyway). */
mpfr_prec_t ref_score_precision(const ref_value_range *q,
                                const ref_value_range *k, int64_t D,
                                double scale, const ref_value_range *bias)
{
    long lg = 0;
    while (((int64_t)1 << lg) < D)
        lg++;
    long bits = (q->any && k->any)
                    ? (q->emax + k->emax) - (q->lmin + k->lmin) + lg + 2
                    : 2;
    bits += 53 + 2;
    if (bias && bias->any) {
        ref_value_range sr = {0};
        ref_value_range_add(&sr, scale);
        long top = bias->emax, bot = bias->lmin;
        if (q->any && k->any && sr.any) {
            long ptop = q->emax + k->emax + lg + sr.emax;
            long pbot = q->lmin + k->lmin + sr.lmin;
            top = ptop > top ? ptop : top;
            bot = pbot < bot ? pbot : bot;
        }
        long bb = top - bot + 3;
        bits = bb > bits ? bb : bits;
    }
    return bits < 64 ? 64 : (mpfr_prec_t)bits;
}

/* ---- the workspace ----------------------------------------------------- */

void ref_core_free(ref_ws *w)
{
    if (!w)
        return;
    if (w->inited) {
        for (int64_t d = 0; d < w->Dk; d++) {
            mpfr_clear(w->qm[d]);
            mpfr_clear(w->dterm[d]);
            mpfr_clear(w->dterm[w->Dk + d]);
        }
        for (int64_t j = 0; j < w->KV_S; j++) {
            mpfr_clear(w->score[j]);
            mpfr_clear(w->e[j]);
            mpfr_clear(w->nterm[j]);
            mpfr_clear(w->nterm[w->KV_S + j]);
        }
        mpfr_clears(w->dot, w->m, w->diff, w->S, w->logS, w->lse, w->num,
                    w->outv, w->lo, w->hi, w->rlo, w->rhi, w->r16, w->r32,
                    w->spv, w->spt, (mpfr_ptr)0);
    }
    ref_dbl_free(&w->dbl);
    free(w->vcol);
    free(w->qm);
    free(w->dterm);
    free(w->dptr);
    free(w->score);
    free(w->e);
    free(w->eptr);
    free(w->nterm);
    free(w->nptr);
    free(w);
}

/* Buffers of the binary64 pass; the MPFR part is set up by ws_mpfr() on the
 * first row that needs it. */
fia_status ref_core_new(ref_ws **out, int64_t D, int64_t Dr,
                        int64_t max_keys, ref_fmt fmt, long prec,
                        ref_score_prec_fn score_prec, void *score_prec_ctx,
                        int pure_mpfr, fia_error *err)
{
    ref_ws *w = calloc(1, sizeof *w);
    *out = NULL;
    if (!w)
        return fia_fail(err, FIA_ERR_NOMEM,
                        "out of memory (reference workspace)");
    w->out_fmt = fmt;
    w->prec0 = w->prec = prec;
    w->score_prec = score_prec;
    w->score_prec_ctx = score_prec_ctx;
    w->D = D;
    w->Dk = D + Dr;
    w->KV_S = max_keys + 1; /* + 1: a learnable sink's virtual key */
    w->pure_mpfr = pure_mpfr;
    size_t S = (size_t)w->KV_S;
    w->vcol = malloc((S ? 2 * S : 1) * sizeof(double));
    if (ref_dbl_init(&w->dbl, w->KV_S, D) != FIA_OK || !w->vcol) {
        ref_core_free(w);
        return fia_fail(err, FIA_ERR_NOMEM,
                        "out of memory (reference workspace)");
    }
    *out = w;
    return FIA_OK;
}

static fia_status ws_mpfr(ref_ws *w)
{
    if (w->inited)
        return FIA_OK;
    const long prec = w->prec;
    w->ps = w->score_prec(w->score_prec_ctx);
    /* the score's columns: D + Dr */
    size_t D = (size_t)w->Dk, S = (size_t)w->KV_S;
    w->qm = malloc((D ? D : 1) * sizeof(mpfr_t));
    w->dterm = malloc((D ? 2 * D : 1) * sizeof(mpfr_t));
    w->dptr = malloc((D ? 2 * D : 1) * sizeof(mpfr_ptr));
    w->score = malloc((S ? S : 1) * sizeof(mpfr_t));
    w->e = malloc((S ? S : 1) * sizeof(mpfr_t));
    w->eptr = malloc((S ? S : 1) * sizeof(mpfr_ptr));
    w->nterm = malloc((S ? 2 * S : 1) * sizeof(mpfr_t));
    w->nptr = malloc((S ? 2 * S : 1) * sizeof(mpfr_ptr));
    if (!w->qm || !w->dterm || !w->dptr || !w->score || !w->e || !w->eptr ||
        !w->nterm || !w->nptr)
        return FIA_ERR_NOMEM;
    for (size_t d = 0; d < D; d++) {
        mpfr_init2(w->qm[d], 53);
        mpfr_init2(w->dterm[d], 106);
        mpfr_init2(w->dterm[D + d], 106);
        w->dptr[d] = w->dterm[d];
        w->dptr[D + d] = w->dterm[D + d];
    }
    for (size_t j = 0; j < S; j++) {
        mpfr_init2(w->score[j], w->ps);
        mpfr_init2(w->e[j], prec);
        mpfr_init2(w->nterm[j], prec + 53);
        mpfr_init2(w->nterm[S + j], prec + 53);
    }
    mpfr_inits2(prec, w->S, w->logS, w->lse, w->num, w->outv, (mpfr_ptr)0);
    mpfr_init2(w->dot, w->ps);
    mpfr_init2(w->m, w->ps);
    mpfr_init2(w->diff, w->ps + 2);
    mpfr_inits2(prec + 8, w->lo, w->hi, (mpfr_ptr)0);
    mpfr_inits2(ref_fmt_prec(w->out_fmt), w->rlo, w->rhi, w->r16, (mpfr_ptr)0);
    mpfr_init2(w->r32, ref_fmt_prec(REF_FMT_FP32));
    mpfr_inits2(64, w->spv, w->spt, (mpfr_ptr)0);
    w->inited = 1;
    return FIA_OK;
}

static void ws_set_prec(ref_ws *w, long prec)
{
    w->prec = prec;
    for (int64_t t = 0; t < w->KV_S; t++) {
        mpfr_set_prec(w->e[t], prec);
        mpfr_set_prec(w->nterm[t], prec + 53);
        mpfr_set_prec(w->nterm[w->KV_S + t], prec + 53);
    }
    mpfr_set_prec(w->S, prec);
    mpfr_set_prec(w->logS, prec);
    mpfr_set_prec(w->lse, prec);
    mpfr_set_prec(w->num, prec);
    mpfr_set_prec(w->outv, prec);
    mpfr_set_prec(w->lo, prec + 8);
    mpfr_set_prec(w->hi, prec + 8);
}

/* ---- one row ----------------------------------------------------------- */

/* Rounds val to format f into y.  Returns 1 when the result is certain: val
 * is exact, not finite, or every value within 2^err_exp of it rounds the same
 * way.  err_exp == MPFR_EMIN_MIN means "no error". */
static int round_decided(ref_ws *w, mpfr_t y, mpfr_t rlo, mpfr_t rhi,
                         const mpfr_t val, int exact, mpfr_exp_t err_exp,
                         ref_fmt f)
{
    ref_round_fmt(y, val, f);
    if (exact || !mpfr_number_p(val) || err_exp == MPFR_EMIN_MIN)
        return 1;
    mpfr_set_ui_2exp(w->lo, 1, err_exp, MPFR_RNDN);
    mpfr_sub(w->hi, val, w->lo, MPFR_RNDD); /* hi used as lower end */
    ref_round_fmt(rlo, w->hi, f);
    mpfr_set_ui_2exp(w->lo, 1, err_exp, MPFR_RNDN);
    mpfr_add(w->lo, val, w->lo, MPFR_RNDU);
    ref_round_fmt(rhi, w->lo, f);
    return mpfr_equal_p(rlo, rhi) && mpfr_equal_p(rlo, y);
}

/* lse = m + log S with log S > 0 (two or more nonzero weights) and its
 * upper end lse' + 2^err_exp: 1 with y the fp32 value when every value in
 * (m, upper end] rounds to it (the header's argument). */
static int lse_above_max(ref_ws *w, mpfr_exp_t err_exp, mpfr_t y)
{
    mpfr_t mp, t, hi, rhi;
    mpfr_inits2(w->ps + 32, mp, t, (mpfr_ptr)0);
    mpfr_inits2(w->prec + 8, hi, (mpfr_ptr)0);
    mpfr_init2(rhi, ref_fmt_prec(REF_FMT_FP32));
    if (mpfr_zero_p(w->m)) /* no fp32 rounding boundary in (0, 2^-1000] */
        mpfr_set_ui_2exp(mp, 1, -1000, MPFR_RNDN);
    else { /* exact: both on the grid of 2^(E_m - ps - 31) */
        mpfr_set_ui_2exp(t, 1, mpfr_get_exp(w->m) - w->ps - 30, MPFR_RNDN);
        mpfr_add(mp, w->m, t, MPFR_RNDN);
    }
    ref_round_fmt(y, mp, REF_FMT_FP32);
    mpfr_set_ui_2exp(hi, 1, err_exp, MPFR_RNDN);
    mpfr_add(hi, w->lse, hi, MPFR_RNDU);
    ref_round_fmt(rhi, hi, REF_FMT_FP32);
    int ok = mpfr_equal_p(y, rhi);
    mpfr_clears(mp, t, hi, rhi, (mpfr_ptr)0);
    return ok;
}

/* One row at the current precision; fills the elements not yet done.
 * Returns the number still undecided. */
static int64_t compute_row(ref_ws *w, const ref_row_in *in, row_out *ro)
{
    const int64_t D = w->D, Dk = w->Dk, nk = in->nk;
    const int want_lse = in->want_lse;
    const long prec = w->prec;
    /* scores (exact) and their max: Dk = D + Dr products (MLA: the rope
     * columns' q_rope k_rope too), each exact at 106 bits, summed exactly
     * at ps bits (ref_score_precision over Dk terms) */
    int any_nan = 0;
    for (int64_t t = 0; t < nk; t++) {
        const double *krow = in->kbuf + in->keys[t] * Dk;
        for (int64_t d = 0; d < Dk; d++)
            mpfr_mul_d(w->dterm[d], w->qm[d], krow[d], MPFR_RNDN);
        if (in->klo) { /* the rests of dequantized keys, exact alike */
            const double *lrow = in->klo + in->keys[t] * Dk;
            for (int64_t d = 0; d < Dk; d++)
                mpfr_mul_d(w->dterm[Dk + d], w->qm[d], lrow[d], MPFR_RNDN);
        }
        mpfr_sum(w->dot, w->dptr, (unsigned long)(in->klo ? 2 * Dk : Dk),
                 MPFR_RNDN);
        mpfr_mul_d(w->score[t], w->dot, in->scale, MPFR_RNDN);
        if (in->bias) /* exact: the precision covers the bias */
            mpfr_add_d(w->score[t], w->score[t], in->bias[in->keys[t]],
                       MPFR_RNDN);
        if (mpfr_nan_p(w->score[t]))
            any_nan = 1;
        else if (t == 0 || mpfr_greater_p(w->score[t], w->m))
            mpfr_set(w->m, w->score[t], MPFR_RNDN);
    }
    /* the sink: one more score, sink exactly (53 <= ps bits hold a bf16),
     * in the max, not scaled */
    const int64_t nt = nk + (in->has_sink ? 1 : 0);
    if (in->has_sink) {
        mpfr_set_d(w->score[nk], in->sink, MPFR_RNDN);
        if (mpfr_nan_p(w->score[nk]))
            any_nan = 1;
        else if (mpfr_greater_p(w->score[nk], w->m))
            mpfr_set(w->m, w->score[nk], MPFR_RNDN);
    }
    if (any_nan)
        mpfr_set_nan(w->m);
    /* e_j, S (the sink's e^(sink - m) in S: index nk) */
    int e_exact = 1, n_live = 0;
    for (int64_t t = 0; t < nt; t++) {
        mpfr_sub(w->diff, w->score[t], w->m, MPFR_RNDN); /* exact */
        if (mpfr_exp(w->e[t], w->diff, MPFR_RNDN) != 0)
            e_exact = 0;
        /* nonzero: the exact weight is (an underflow to 0 only undercounts) */
        n_live += !mpfr_zero_p(w->e[t]);
        w->eptr[t] = w->e[t];
    }
    int ts = mpfr_sum(w->S, w->eptr, (unsigned long)nt, MPFR_RNDN);
    int s_exact = e_exact && ts == 0;
    int64_t undecided = 0;
    if (want_lse && !ro->lse_done && nt == 1 && mpfr_number_p(w->m)) {
        ref_round_fmt(w->r32, w->m, REF_FMT_FP32); /* lse = m, exact */
        ro->lse_bits = ref_encode_fmt(w->r32, REF_FMT_FP32);
        ro->lse_exact = mpfr_get_d(w->m, MPFR_RNDN);
        ro->lse_done = 1;
    }
    if (want_lse && !ro->lse_done) {
        int ex = s_exact;
        ex &= mpfr_log(w->logS, w->S, MPFR_RNDN) == 0;
        ex &= mpfr_add(w->lse, w->m, w->logS, MPFR_RNDN) == 0;
        mpfr_exp_t big = 0;
        if (mpfr_regular_p(w->lse) && mpfr_get_exp(w->lse) > big)
            big = mpfr_get_exp(w->lse);
        if (mpfr_regular_p(w->logS) && mpfr_get_exp(w->logS) > big)
            big = mpfr_get_exp(w->logS);
        /* (1 + |lse| + |log S|) 2^(3-p) <= 3 * 2^big * 2^(3-p) */
        mpfr_exp_t err = big + 5 - prec;
        mpfr_t rlo, rhi;
        mpfr_inits2(ref_fmt_prec(REF_FMT_FP32), rlo, rhi, (mpfr_ptr)0);
        int ok = round_decided(w, w->r32, rlo, rhi, w->lse, ex, err,
                               REF_FMT_FP32);
        if (!ok && n_live >= 2 && mpfr_number_p(w->m) &&
            mpfr_number_p(w->lse)) {
            /* the interval's lower end at or below m: lse > m cuts it */
            mpfr_set_ui_2exp(w->lo, 1, err, MPFR_RNDN);
            mpfr_sub(w->hi, w->lse, w->lo, MPFR_RNDD);
            if (mpfr_lessequal_p(w->hi, w->m))
                ok = lse_above_max(w, err, w->r32);
        }
        mpfr_clears(rlo, rhi, (mpfr_ptr)0);
        if (ok || prec >= REF_MAX_PREC) {
            ro->lse_bits = ref_encode_fmt(w->r32, REF_FMT_FP32);
            ro->lse_exact = mpfr_get_d(w->lse, MPFR_RNDN);
            ro->lse_done = 1;
        } else {
            undecided++;
        }
    }
    for (int64_t d = 0; d < D; d++) {
        if (ro->done[d])
            continue;
        double vmax = 0.0;
        mpfr_set_zero(w->spv, 1);
        for (int64_t t = 0; t < nk; t++) {
            double v = in->vbuf[in->keys[t] * D + d];
            mpfr_mul_d(w->nterm[t], w->e[t], v, MPFR_RNDN); /* exact */
            /* A' upward: |vlo| <= 2^-53 |v| is in the factor 2 of A < 2 A' */
            mpfr_mul_d(w->spt, w->e[t], fabs(v), MPFR_RNDU);
            mpfr_add(w->spv, w->spv, w->spt, MPFR_RNDU);
            w->nptr[t] = w->nterm[t];
            if (in->vlo) { /* |vlo| <= 2^-53 |v|: vmax still bounds */
                mpfr_mul_d(w->nterm[nk + t], w->e[t],
                           in->vlo[in->keys[t] * D + d], MPFR_RNDN);
                w->nptr[nk + t] = w->nterm[nk + t];
            }
            if (fabs(v) > vmax || isnan(v))
                vmax = fabs(v);
        }
        int ex = s_exact;
        ex &= mpfr_sum(w->num, w->nptr,
                       (unsigned long)(in->vlo ? 2 * nk : nk),
                       MPFR_RNDN) == 0;
        ex &= mpfr_div(w->outv, w->num, w->S, MPFR_RNDN) == 0;
        mpfr_exp_t err;
        if (vmax == 0.0) {
            ex = 1; /* all v zero: the sum is exactly zero */
            err = MPFR_EMIN_MIN;
        } else if (!isfinite(vmax)) {
            err = MPFR_EMIN_MIN; /* inf / nan propagate, no rounding issue */
        } else {
            int ev;
            frexp(vmax, &ev); /* vmax < 2^ev */
            err = (mpfr_exp_t)ev + 3 - prec;
            /* A' = sum e'_j |v_j| / S' upward: A 2^(3-p) < 2^(E(A') + 4 - p) */
            mpfr_div(w->spv, w->spv, w->S, MPFR_RNDU);
            if (mpfr_regular_p(w->spv) &&
                mpfr_get_exp(w->spv) + 4 - prec < err)
                err = mpfr_get_exp(w->spv) + 4 - prec;
        }
        int ok = round_decided(w, w->r16, w->rlo, w->rhi, w->outv, ex, err,
                               w->out_fmt);
        if (ok || prec >= REF_MAX_PREC) {
            ro->bits[d] = ref_encode_fmt(w->r16, w->out_fmt);
            ro->exact[d] = mpfr_get_d(w->outv, MPFR_RNDN);
            ro->done[d] = 1;
        } else {
            undecided++;
        }
    }
    return undecided;
}

/* Undecided outputs that are exactly a rational mean: decide them now. */
static fia_status settle_rational(ref_ws *w, const ref_row_in *in,
                                  row_out *ro)
{
    /* the sink is the key of value 0 at index nk (w->score[nk]) */
    const int64_t nt = in->nk + (in->has_sink ? 1 : 0);
    for (int64_t d = 0; d < w->D; d++) {
        if (ro->done[d])
            continue;
        for (int64_t t = 0; t < in->nk; t++) {
            w->vcol[t] = in->vbuf[in->keys[t] * w->D + d];
            if (in->vlo)
                w->vcol[nt + t] = in->vlo[in->keys[t] * w->D + d];
        }
        if (in->has_sink)
            w->vcol[in->nk] = 0.0, w->vcol[nt + in->nk] = 0.0;
        int decided;
        if (ref_rational_mean(w->score, w->vcol,
                              in->vlo ? w->vcol + nt : NULL, nt,
                              w->out_fmt, w->prec,
                              &decided, &ro->bits[d], &ro->exact[d]) != FIA_OK)
            return FIA_ERR_NOMEM;
        if (decided)
            ro->done[d] = 1;
    }
    return FIA_OK;
}

fia_status ref_row_out_init(row_out *ro, int64_t D)
{
    size_t n = (size_t)(D ? D : 1);
    ro->bits = malloc(n * sizeof *ro->bits);
    ro->exact = malloc(n * sizeof *ro->exact);
    ro->done = malloc(n);
    ro->bound = malloc(n * sizeof *ro->bound);
    return ro->bits && ro->exact && ro->done && ro->bound ? FIA_OK
                                                          : FIA_ERR_NOMEM;
}

void ref_row_out_free(row_out *ro)
{
    free(ro->bits), free(ro->exact), free(ro->done), free(ro->bound);
    ro->bits = NULL, ro->exact = NULL, ro->done = NULL, ro->bound = NULL;
}

/* The binary64 pass decides what it can; the rest goes through the MPFR
 * loop from the first precision, doubling until decided (after the first
 * MPFR evaluation the rational outputs are settled exactly, once). */
int64_t ref_core_refined(const ref_ws *w) { return w->refined; }

fia_status ref_core_row(ref_ws *w, const ref_row_in *in, row_out *ro,
                        int64_t *n_elements, int64_t *n_escalated,
                        fia_error *err)
{
    const int64_t D = w->D;
    memset(ro->done, 0, (size_t)D);
    ro->lse_done = 0;
    ro->lse_bits = 0;
    ro->lse_exact = 0.0;
    int64_t und = ref_dbl_row(&w->dbl, in, ro);
    if (w->pure_mpfr) {
        memset(ro->done, 0, (size_t)D);
        ro->lse_done = 0;
        und = D + (in->want_lse ? 1 : 0);
    }
    *n_elements += D + (in->want_lse ? 1 : 0);
    *n_escalated += und;
    if (und == 0)
        return FIA_OK;
    long prec = w->prec0;
    if (ws_mpfr(w) != FIA_OK)
        return fia_fail(err, FIA_ERR_NOMEM, "out of memory (reference rows)");
    if (w->prec != prec)
        ws_set_prec(w, prec);
    for (int64_t d = 0; d < w->Dk; d++)
        mpfr_set_d(w->qm[d], in->q[d], MPFR_RNDN);
    int first = 1;
    while (compute_row(w, in, ro) > 0) {
        if (first && settle_rational(w, in, ro) != FIA_OK)
            return fia_fail(err, FIA_ERR_NOMEM,
                            "out of memory (reference rows)");
        w->refined += first;
        first = 0;
        prec *= 2;
        ws_set_prec(w, prec);
    }
    return FIA_OK;
}
