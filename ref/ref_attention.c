/* ref/: the attention rows in MPFR, correctly rounded.
 *
 * Per (b, n, i) row over the keys that take part:
 *   s_j = scale * sum_d q[d] k[j][d]         exact (see score_precision)
 *   m = max s_j, e_j = exp(s_j - m)          s_j - m exact, exp rounded at p
 *   S = sum e_j, out[d] = sum_j e_j v[j][d] / S, lse = m + log S   at p
 * Error bounds (|eps| <= 2^-p per rounding, e_j > 0):
 *   |out' - out| <= (sum_j e_j |v_j| / S) 2^(3-p) <= max_j |v_j| 2^(3-p),
 *   |lse' - lse| <= (1 + |lse'| + |log S'|) 2^(3-p).
 * An element is decided when both ends of its error interval round to the
 * same value of the output format, or when it is known exact (every
 * operation's ternary value 0).  Otherwise the row is recomputed at twice
 * the precision.  This ends: an output is either a rational number, found
 * and rounded exactly by ref_rational_mean (ref_exact.c), or irrational and
 * so never on a rounding boundary; lse is rational only with a single key
 * (then lse = m, exact).  REF_MAX_PREC is a safety stop only.
 *
 * Ziv's strategy: each row is first evaluated in binary64 with a rigorous
 * error bound (ref_double.c); only the elements whose interval does not
 * round to one value (and the rows binary64 cannot handle: non-finite
 * values, exp underflow) go through the MPFR loop above, which starts at
 * the same precision as the pure-MPFR path and so decides them identically.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ref_internal.h"

#define REF_MAX_PREC (1L << 16)

typedef struct ref_ws {
    const ref_problem *p;
    ref_fmt out_fmt;
    mpfr_prec_t ps;     /* exact score precision */
    long prec;          /* current working precision */
    int64_t D, KV_S;
    double *kbuf, *vbuf; /* [KV_S][D] for the current (b, kv head) */
    double *qrow;        /* [D] */
    double *vcol;        /* [KV_S]: one v column over the row's keys */
    int64_t *keys;       /* keys taking part in the current row */
    int64_t nk;
    mpfr_t *qm;          /* [D], 53 bits */
    mpfr_t *dterm;       /* [D], 106 bits: exact products q k */
    mpfr_ptr *dptr;
    mpfr_t *score;       /* [KV_S], ps bits */
    mpfr_t *e;           /* [KV_S], prec bits */
    mpfr_ptr *eptr;
    mpfr_t *nterm;       /* [KV_S], prec + 53 bits: exact products e v */
    mpfr_ptr *nptr;
    mpfr_t dot, m, diff, S, logS, lse, num, outv, lo, hi, rlo, rhi, r16, r32;
    int inited;
    ref_dbl dbl;         /* the binary64 first pass */
    int pure_mpfr;       /* 1: every element by MPFR (bounds still computed) */
} ref_ws;

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

static void tensor_range(const fia_tensor *t, long *emax, long *lmin,
                         int *any)
{
    int64_t n = fia_tensor_numel(t);
    for (int64_t i = 0; i < n; i++) {
        double x = fia_load_as_double(t->dtype, t->data, i);
        if (x == 0.0 || !isfinite(x))
            continue;
        long e, l;
        exp_lsb(x, &e, &l);
        if (!*any || e > *emax)
            *emax = e;
        if (!*any || l < *lmin)
            *lmin = l;
        *any = 1;
    }
}

/* Precision that holds every score and every difference of two scores
 * exactly: products q k lie in [2^(Lq+Lk), 2^(Eq+Ek)), a dot of D of them
 * needs Eq+Ek+ceil(log2 D) - (Lq+Lk) bits, times scale 53 more, a difference
 * one more. */
static mpfr_prec_t score_precision(const ref_problem *p)
{
    long eq = 0, lq = 0, ek = 0, lk = 0;
    int aq = 0, ak = 0;
    tensor_range(p->q, &eq, &lq, &aq);
    if (p->k->data)
        tensor_range(p->k, &ek, &lk, &ak);
    long lg = 0;
    while (((int64_t)1 << lg) < p->D)
        lg++;
    long bits = (aq && ak) ? (eq + ek) - (lq + lk) + lg + 2 : 2;
    bits += 53 + 2;
    return bits < 64 ? 64 : (mpfr_prec_t)bits;
}

static void ws_free(ref_ws *w)
{
    if (w->inited) {
        for (int64_t d = 0; d < w->D; d++) {
            mpfr_clear(w->qm[d]);
            mpfr_clear(w->dterm[d]);
        }
        for (int64_t j = 0; j < w->KV_S; j++) {
            mpfr_clear(w->score[j]);
            mpfr_clear(w->e[j]);
            mpfr_clear(w->nterm[j]);
        }
        mpfr_clears(w->dot, w->m, w->diff, w->S, w->logS, w->lse, w->num,
                    w->outv, w->lo, w->hi, w->rlo, w->rhi, w->r16, w->r32,
                    (mpfr_ptr)0);
    }
    ref_dbl_free(&w->dbl);
    free(w->kbuf);
    free(w->vbuf);
    free(w->qrow);
    free(w->vcol);
    free(w->keys);
    free(w->qm);
    free(w->dterm);
    free(w->dptr);
    free(w->score);
    free(w->e);
    free(w->eptr);
    free(w->nterm);
    free(w->nptr);
    memset(w, 0, sizeof *w);
}

/* Buffers of the binary64 pass; the MPFR part is set up by ws_mpfr() on the
 * first row that needs it. */
static int ws_init(ref_ws *w, const ref_problem *p, long prec)
{
    memset(w, 0, sizeof *w);
    w->p = p;
    w->out_fmt = p->out_dtype == FIA_DT_BF16 ? REF_FMT_BF16 : REF_FMT_FP16;
    w->prec = prec;
    w->D = p->D;
    w->KV_S = p->KV_S;
    size_t D = (size_t)p->D, S = (size_t)p->KV_S;
    size_t kv = S * D;
    w->kbuf = malloc((kv ? kv : 1) * sizeof(double));
    w->vbuf = malloc((kv ? kv : 1) * sizeof(double));
    w->qrow = malloc((D ? D : 1) * sizeof(double));
    w->keys = malloc((S ? S : 1) * sizeof(int64_t));
    w->vcol = malloc((S ? S : 1) * sizeof(double));
    if (ref_dbl_init(&w->dbl, p->KV_S) != 0 || !w->kbuf || !w->vbuf ||
        !w->qrow || !w->keys || !w->vcol) {
        ws_free(w);
        return -1;
    }
    return 0;
}

static int ws_mpfr(ref_ws *w)
{
    if (w->inited)
        return 0;
    const ref_problem *p = w->p;
    const long prec = w->prec;
    w->ps = score_precision(p);
    size_t D = (size_t)p->D, S = (size_t)p->KV_S;
    w->qm = malloc((D ? D : 1) * sizeof(mpfr_t));
    w->dterm = malloc((D ? D : 1) * sizeof(mpfr_t));
    w->dptr = malloc((D ? D : 1) * sizeof(mpfr_ptr));
    w->score = malloc((S ? S : 1) * sizeof(mpfr_t));
    w->e = malloc((S ? S : 1) * sizeof(mpfr_t));
    w->eptr = malloc((S ? S : 1) * sizeof(mpfr_ptr));
    w->nterm = malloc((S ? S : 1) * sizeof(mpfr_t));
    w->nptr = malloc((S ? S : 1) * sizeof(mpfr_ptr));
    if (!w->qm || !w->dterm || !w->dptr || !w->score || !w->e || !w->eptr ||
        !w->nterm || !w->nptr)
        return -1;
    for (size_t d = 0; d < D; d++) {
        mpfr_init2(w->qm[d], 53);
        mpfr_init2(w->dterm[d], 106);
        w->dptr[d] = w->dterm[d];
    }
    for (size_t j = 0; j < S; j++) {
        mpfr_init2(w->score[j], w->ps);
        mpfr_init2(w->e[j], prec);
        mpfr_init2(w->nterm[j], prec + 53);
    }
    mpfr_inits2(prec, w->S, w->logS, w->lse, w->num, w->outv, (mpfr_ptr)0);
    mpfr_init2(w->dot, w->ps);
    mpfr_init2(w->m, w->ps);
    mpfr_init2(w->diff, w->ps + 2);
    mpfr_inits2(prec + 8, w->lo, w->hi, (mpfr_ptr)0);
    mpfr_inits2(ref_fmt_prec(w->out_fmt), w->rlo, w->rhi, w->r16, (mpfr_ptr)0);
    mpfr_init2(w->r32, ref_fmt_prec(REF_FMT_FP32));
    w->inited = 1;
    return 0;
}

static void ws_set_prec(ref_ws *w, long prec)
{
    w->prec = prec;
    for (int64_t t = 0; t < w->KV_S; t++) {
        mpfr_set_prec(w->e[t], prec);
        mpfr_set_prec(w->nterm[t], prec + 53);
    }
    mpfr_set_prec(w->S, prec);
    mpfr_set_prec(w->logS, prec);
    mpfr_set_prec(w->lse, prec);
    mpfr_set_prec(w->num, prec);
    mpfr_set_prec(w->outv, prec);
    mpfr_set_prec(w->lo, prec + 8);
    mpfr_set_prec(w->hi, prec + 8);
}

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

/* One row at the current precision; fills the elements not yet done.
 * Returns the number still undecided. */
static int64_t compute_row(ref_ws *w, row_out *ro, int want_lse)
{
    const int64_t D = w->D, nk = w->nk;
    const long prec = w->prec;
    /* scores (exact) and their max */
    int any_nan = 0;
    for (int64_t t = 0; t < nk; t++) {
        const double *krow = w->kbuf + w->keys[t] * D;
        for (int64_t d = 0; d < D; d++)
            mpfr_mul_d(w->dterm[d], w->qm[d], krow[d], MPFR_RNDN);
        mpfr_sum(w->dot, w->dptr, (unsigned long)D, MPFR_RNDN);
        mpfr_mul_d(w->score[t], w->dot, w->p->scale, MPFR_RNDN);
        if (mpfr_nan_p(w->score[t]))
            any_nan = 1;
        else if (t == 0 || mpfr_greater_p(w->score[t], w->m))
            mpfr_set(w->m, w->score[t], MPFR_RNDN);
    }
    if (any_nan)
        mpfr_set_nan(w->m);
    /* e_j, S */
    int e_exact = 1;
    for (int64_t t = 0; t < nk; t++) {
        mpfr_sub(w->diff, w->score[t], w->m, MPFR_RNDN); /* exact */
        if (mpfr_exp(w->e[t], w->diff, MPFR_RNDN) != 0)
            e_exact = 0;
        w->eptr[t] = w->e[t];
    }
    int ts = mpfr_sum(w->S, w->eptr, (unsigned long)nk, MPFR_RNDN);
    int s_exact = e_exact && ts == 0;
    int64_t undecided = 0;
    if (want_lse && !ro->lse_done && nk == 1) {
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
        for (int64_t t = 0; t < nk; t++) {
            double v = w->vbuf[w->keys[t] * D + d];
            mpfr_mul_d(w->nterm[t], w->e[t], v, MPFR_RNDN); /* exact */
            w->nptr[t] = w->nterm[t];
            if (fabs(v) > vmax || isnan(v))
                vmax = fabs(v);
        }
        int ex = s_exact;
        ex &= mpfr_sum(w->num, w->nptr, (unsigned long)nk, MPFR_RNDN) == 0;
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
static int settle_rational(ref_ws *w, row_out *ro)
{
    for (int64_t d = 0; d < w->D; d++) {
        if (ro->done[d])
            continue;
        for (int64_t t = 0; t < w->nk; t++)
            w->vcol[t] = w->vbuf[w->keys[t] * w->D + d];
        int rc = ref_rational_mean(w->score, w->vcol, w->nk, w->out_fmt,
                                   w->prec, &ro->bits[d], &ro->exact[d]);
        if (rc < 0)
            return -1;
        if (rc == 1)
            ro->done[d] = 1;
    }
    return 0;
}

static void store_out(fia_ref_result *r, int64_t idx, uint32_t bits,
                      double exact, int unspec, double bound)
{
    ((uint16_t *)r->out.data)[idx] = (uint16_t)bits;
    r->out_exact[idx] = exact;
    r->out_unspecified[idx] = (uint8_t)unspec;
    r->out_bound[idx] = bound;
}

static void store_lse(fia_ref_result *r, int64_t idx, uint32_t bits,
                      double exact, int unspec, double bound)
{
    ((uint32_t *)r->lse.data)[idx] = bits;
    r->lse_exact[idx] = exact;
    r->lse_unspecified[idx] = (uint8_t)unspec;
    r->lse_bound[idx] = bound;
}

/* A row without a computed value: zero output (unspec 0 or 1) and lse
 * +inf (lse_mode 1), unspecified (0).  The documented values are exact:
 * bound 0 (the comparator then checks them bit for bit, sign included). */
static void store_degenerate(const ref_problem *p, fia_ref_result *r,
                             int64_t b, int64_t n, int64_t i, int out_unspec,
                             int lse_inf)
{
    for (int64_t d = 0; d < p->D; d++)
        store_out(r, ref_out_index(p, b, n, i, d), 0, 0.0, out_unspec, 0.0);
    if (p->has_lse)
        store_lse(r, ref_lse_index(p, b, n, i), lse_inf ? 0x7F800000u : 0,
                  lse_inf ? INFINITY : 0.0, !lse_inf, 0.0);
}

/* Exact widening of an fp16 / bf16 element (the decoding of dtype.h, done
 * here by bits: this is the reference's inner loop). */
static inline double load_half(fia_dtype dt, const void *data, int64_t i)
{
    uint16_t h = ((const uint16_t *)data)[i];
    if (dt == FIA_DT_BF16) {
        uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, sizeof f);
        return (double)f;
    }
    uint64_t sign = (uint64_t)(h >> 15) << 63;
    unsigned e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    double v;
    if (e == 0x1f) {
        v = m ? NAN : INFINITY;
    } else if (e == 0) {
        v = (double)m * 0x1p-24;
    } else {
        uint64_t u = ((uint64_t)(e - 15 + 1023) << 52) | ((uint64_t)m << 42);
        memcpy(&v, &u, sizeof v);
    }
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    u |= sign;
    memcpy(&v, &u, sizeof v);
    return v;
}

static void load_kv(ref_ws *w, int64_t b, int64_t kn, int64_t kvl)
{
    const ref_problem *p = w->p;
    for (int64_t j = 0; j < kvl; j++)
        for (int64_t d = 0; d < p->D; d++) {
            int64_t idx = ref_kv_index(p, b, kn, j, d);
            w->kbuf[j * p->D + d] = load_half(p->k->dtype, p->k->data, idx);
            w->vbuf[j * p->D + d] = load_half(p->v->dtype, p->v->data, idx);
        }
}

static fia_status run_rows(ref_ws *w, fia_ref_result *r, long prec0)
{
    const ref_problem *p = w->p;
    const int64_t D = p->D;
    row_out ro;
    ro.bits = malloc((size_t)(D ? D : 1) * sizeof *ro.bits);
    ro.exact = malloc((size_t)(D ? D : 1) * sizeof *ro.exact);
    ro.done = malloc((size_t)(D ? D : 1));
    ro.bound = malloc((size_t)(D ? D : 1) * sizeof *ro.bound);
    if (!ro.bits || !ro.exact || !ro.done || !ro.bound) {
        free(ro.bits), free(ro.exact), free(ro.done), free(ro.bound);
        return FIA_ERR_NOMEM;
    }
    ref_row_in in = {.q = w->qrow, .kbuf = w->kbuf, .vbuf = w->vbuf,
                     .keys = w->keys, .D = D, .scale = p->scale,
                     .fmt = w->out_fmt, .want_lse = p->has_lse,
                     .round_p = p->round_p, .in_dtype = p->in_dtype};
    for (int64_t b = 0; b < p->B; b++) {
        for (int64_t kn = 0; kn < p->KV_N; kn++) {
            load_kv(w, b, kn, p->kv_len[b]);
            for (int64_t n = kn * p->group; n < (kn + 1) * p->group; n++) {
                for (int64_t i = 0; i < p->Q_S; i++) {
                    if (i >= p->q_len[b]) { /* padding row */
                        store_degenerate(p, r, b, n, i, 1, 0);
                        continue;
                    }
                    w->nk = 0;
                    for (int64_t j = 0; j < p->kv_len[b]; j++)
                        if (ref_key_takes_part(p, b, i, j))
                            w->keys[w->nk++] = j;
                    if (w->nk == 0) {
                        int corr = ref_row_corrected(p, b);
                        if (p->kv_len[b] == 0)
                            store_degenerate(p, r, b, n, i, 0,
                                             p->KV_S == 0 || corr);
                        else if (corr)
                            store_degenerate(p, r, b, n, i, 0, 1);
                        else
                            store_degenerate(p, r, b, n, i, 1, 0);
                        continue;
                    }
                    for (int64_t d = 0; d < D; d++)
                        w->qrow[d] = load_half(p->q->dtype, p->q->data,
                                               ref_q_index(p, b, n, i, d));
                    memset(ro.done, 0, (size_t)D);
                    ro.lse_done = 0;
                    ro.lse_bits = 0;
                    ro.lse_exact = 0.0;
                    in.nk = w->nk;
                    int64_t und = ref_dbl_row(&w->dbl, &in, &ro);
                    if (w->pure_mpfr) {
                        memset(ro.done, 0, (size_t)D);
                        ro.lse_done = 0;
                        und = D + (p->has_lse ? 1 : 0);
                    }
                    r->n_elements += D + (p->has_lse ? 1 : 0);
                    r->n_escalated += und;
                    long prec = prec0;
                    if (und > 0 && ws_mpfr(w) != 0) {
                        free(ro.bits), free(ro.exact), free(ro.done);
                        free(ro.bound);
                        return FIA_ERR_NOMEM;
                    }
                    if (und > 0 && w->prec != prec)
                        ws_set_prec(w, prec);
                    for (int64_t d = 0; und > 0 && d < D; d++)
                        mpfr_set_d(w->qm[d], w->qrow[d], MPFR_RNDN);
                    int first = 1;
                    while (und > 0 && compute_row(w, &ro, p->has_lse) > 0) {
                        if (first && settle_rational(w, &ro) != 0) {
                            free(ro.bits), free(ro.exact), free(ro.done);
                            free(ro.bound);
                            return FIA_ERR_NOMEM;
                        }
                        first = 0;
                        prec *= 2;
                        ws_set_prec(w, prec);
                    }
                    for (int64_t d = 0; d < D; d++)
                        store_out(r, ref_out_index(p, b, n, i, d), ro.bits[d],
                                  ro.exact[d], 0, ro.bound[d]);
                    if (p->has_lse)
                        store_lse(r, ref_lse_index(p, b, n, i), ro.lse_bits,
                                  ro.lse_exact, 0, ro.lse_bound);
                }
            }
        }
    }
    free(ro.bits);
    free(ro.exact);
    free(ro.done);
    free(ro.bound);
    return FIA_OK;
}

fia_status ref_attention_run(const ref_problem *p, long prec, int pure_mpfr,
                             fia_ref_result *r, char *err, size_t errlen)
{
    ref_ws w;
    if (ws_init(&w, p, prec) != 0) {
        snprintf(err, errlen, "out of memory (reference workspace)");
        return FIA_ERR_NOMEM;
    }
    w.pure_mpfr = pure_mpfr;
    fia_status st = run_rows(&w, r, prec);
    if (st == FIA_ERR_NOMEM)
        snprintf(err, errlen, "out of memory (reference rows)");
    ws_free(&w);
    return st;
}
