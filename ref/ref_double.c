/* ref/: the first pass of the reference in binary64 (Ziv's strategy), and
 * the per-element error bound of the permitted algorithm (the tolerance).
 *
 * Both are the same analysis with different unit roundoffs (derivation in
 * docs/tolerance.md).  For one row with exact scores s_j, any shift M and
 * w_j = exp(s_j - M), S = sum w_j, p_j = w_j / S, o = sum p_j v_j:
 *
 *   computed weights  w^_j = w_j (1 + th_j),   |th_j| <= T_j = e^{L_j} - 1,
 *   L_j = (score error) + u |s_j - M| (subtraction) + exp error (+ rescales);
 *   score error  g_{Dk+r} |scale| sum |q k| (+ u |bias_j| for a bias
 *                nonzero, which makes r one more) + underflow, the dot
 *                over Dk = D + Dr columns (MLA's rope after the D: the
 *                kernel's q k plus q_rope k_rope is a sum of the same Dk
 *                products in some order, and any order of n terms errs by
 *                at most g_{n-1} sum |terms|);
 *   numerator terms   w^_j (1 + a_j) v_j,  |a_j| <= u_in + g_K (1 + u_in);
 *   denominator terms w^_j (1 + b_j),      |b_j| <= g_K.
 * Then exactly
 *   |o^ - o| <= [sum p_j T_j |v_j - o| + (1 + Tmax) (au sum p_j |v_j|
 *               + g_K |o|) + absolute terms] / (1 - E) + u |o^|
 * with E = sum p_j ((1 + T_j)(1 + g_K) - 1) >= |weighted mean of b|, and
 *   |lse^ - lse| <= -log(1 - E) + e_log |log S| + u |lse|.
 * The double pass uses u = 2^-53, g over Dk + 1 (r = 1) and nk + 1 terms,
 * exp/log within 2 ulp; the model uses the float32 pipeline (u = 2^-24,
 * r = 2: the rounding of scale, then of the product).
 *
 * Learnable sink (read_sink.c, docs/features/sink.md): the row has one
 * more term, a virtual key of exact score sink (not scaled) and value 0,
 * index nk here (x->s, x->w, x->td, x->tm).  Its exact weight w_s =
 * e^(sink - M) is in S (so in every p_j) and in the max; its numerator term
 * is an exact 0.  The kernel computes w_s in float32 like any weight:
 * fl32(sink - m^) (sink is bf16, exact in float32: no score error, e_s = 0,
 * but the subtraction's rounding u |sink - m| and m^'s own error 2 e_max),
 * expf within 2 ulp, the rescales when it enters before a larger key or a
 * larger key after it (one more possible record: R + 1), and one more term
 * of the row sum (K + 1).  So w^_s = w_s (1 + th_s), |th_s| <= T_s with L_s
 * as any key's with e_s = 0, and the same identity gives, with v_s = 0,
 *   o^ - o = sum_{j incl. s} p_j (al_j v_j - be_j o) / (1 + be-bar):
 * the sink adds p_s T_s |0 - o| = p_s T_s |o| to the first sum (the
 * sink's term) and p_s ((1 + T_s)(1 + g_K) - 1) to E; its a_s multiplies
 * v_s = 0.  Where the sink dominates (p_s near 1, o = sum p_j v_j small)
 * that term is about T_s |o|, as large as all the keys' terms together:
 * leaving it out (a sink taken as exact) gives a bound the model's own
 * worst case exceeds (tests/test_ref_sink.c).  lse: the sink is in S, so
 * in E and log S as any key.  A NaN or +inf sink makes the row NaN (NaN in
 * the max; inf - inf), a -inf sink has weight 0 and leaves the row.
 *
 * Antiquant (docs/tolerance.md "Antiquant"): the exact dequantized k and v
 * are k + klo, v + vlo; the double pass reads k, v (the nearest binary64:
 * one more relative rounding, g over Dk + 2 and nk + 2 terms when a rest is
 * nonzero).  The model rounds them to the input dtype, x(1 + d) + e with
 * |d| <= u_kv, |e| <= eta_kv: a score error gains u_kv A_j + |scale| eta_kv
 * sum |q| (and A_j grows to (1 + u_kv) A_j + that), the numerator terms
 * a_j -> (1 + a_j)(1 + u_kv) - 1 and an absolute (1 + T_max)(1 + a) eta_kv. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ref_internal.h"

#define U53 0x1p-53
#define U24 0x1p-24
#define EXP53 0x1p-51   /* exp / log in binary64: 2 ulp */
#define EXP24 0x1p-22   /* expf / logf in the kernel: 2 ulp */
#define SAFE (1.0 + 0x1p-20)

fia_status ref_dbl_init(ref_dbl *x, int64_t kv_s, int64_t d)
{
    size_t n = (size_t)(kv_s > 0 ? kv_s : 1), nd = (size_t)(d > 0 ? d : 1);
    memset(x, 0, sizeof *x);
    x->s = malloc(n * sizeof(double));
    x->a = malloc(n * sizeof(double));
    x->w = malloc(n * sizeof(double));
    x->td = malloc(n * sizeof(double));
    x->tm = malloc(n * sizeof(double));
    x->fk = malloc(n * sizeof(int64_t));
    /* the seven column sums in one block */
    x->num = malloc(7 * nd * sizeof(double));
    if (!x->s || !x->a || !x->w || !x->td || !x->tm || !x->fk || !x->num) {
        ref_dbl_free(x);
        return FIA_ERR_NOMEM;
    }
    x->spv = x->num + nd, x->vmax = x->spv + nd, x->small = x->vmax + nd;
    x->o = x->small + nd, x->std_ = x->o + nd, x->stm = x->std_ + nd;
    x->d_cap = (int64_t)nd;
    return FIA_OK;
}

void ref_dbl_free(ref_dbl *x)
{
    free(x->s), free(x->a), free(x->w), free(x->td), free(x->tm);
    free(x->fk), free(x->num);
    memset(x, 0, sizeof *x);
}

/* gamma_n = n u / (1 - n u) */
static double gam(double n, double u)
{
    double nu = n * u;
    return nu >= 0.5 ? INFINITY : nu / (1.0 - nu) * SAFE;
}

int ref_decide_double(double v, double b, ref_fmt f, uint32_t *bits)
{
    if (!isfinite(v) || !isfinite(b))
        return 0;
    double e = b * SAFE + fabs(v) * 0x1p-50 + 0x1p-1074;
    uint32_t lo = ref_round_double_fmt(v - e, f);
    uint32_t hi = ref_round_double_fmt(v + e, f);
    if (lo != hi)
        return 0;
    *bits = lo;
    return 1;
}

/* Unit roundoff and subnormal half-spacing of P rounded to the input
 * dtype. */
static void p_rounding(const ref_row_in *in, double *u_in, double *eta_in)
{
    *u_in = *eta_in = 0.0;
    if (!in->round_p)
        return;
    if (in->in_dtype == FIA_DT_BF16) {
        *u_in = 0x1p-8;
        *eta_in = 0x1p-134;
    } else {
        *u_in = 0x1p-11;
        *eta_in = 0x1p-25;
    }
}

static void no_model(const ref_row_in *in, row_out *ro)
{
    for (int64_t d = 0; d < in->D; d++)
        ro->bound[d] = INFINITY;
    ro->lse_bound = INFINITY;
}

/* ---- non-finite inputs (docs/semantics.md "Non-finite inputs") -------- */

/* Element d decided as the IEEE value y, compared exactly (bound 0) when
 * `exact`, else outside the model. */
static void set_ieee(const ref_row_in *in, row_out *ro, int64_t d, double y,
                     int exact)
{
    ro->bits[d] = ref_round_double_fmt(y, in->fmt);
    ro->exact[d] = y;
    ro->done[d] = 1;
    ro->bound[d] = exact ? 0.0 : INFINITY;
}

/* The largest span of scores (max - min, with their errors) over which
 * every weight e^(s - m) and every rescale factor of the float32 pipeline
 * is a normal number of the format it is kept in, so that none can be
 * flushed to 0 (which would turn inf * p into NaN): float32 (and bf16 P)
 * normals reach 2^-126 = e^-87.3, fp16 P normals 2^-14 = e^-9.7. */
static double unflushed_span(const ref_row_in *in)
{
    return in->round_p && in->in_dtype != FIA_DT_BF16 ? 9.0 : 80.0;
}

/* Column d of a row whose keys (all of finite score) hold a non-finite
 * v: every weight is positive, so IEEE gives NaN when a v is NaN or both
 * infinities occur, else that infinity.  The float32 pipeline gives the
 * same unless a weight or rescale factor underflows (inf * 0 = NaN):
 * compared exactly only when `safe` says it cannot. */
static void nonfinite_column(const ref_row_in *in, row_out *ro, int64_t d,
                             int safe)
{
    int pos = 0, neg = 0, nan = 0;
    for (int64_t t = 0; t < in->nk; t++) {
        double v = in->vbuf[in->keys[t] * in->D + d];
        nan |= isnan(v);
        pos |= v == INFINITY;
        neg |= v == -INFINITY;
    }
    double y = nan || (pos && neg) ? NAN : pos ? INFINITY : -INFINITY;
    set_ieee(in, ro, d, y, safe);
}

/* The IEEE class of key t's score s = (q . k) * scale (+ bias): 0 finite,
 * -1 for -inf, 1 for NaN or +inf.  fp16 / bf16 products and their sums
 * are finite in binary64, so the binary64 dot is non-finite exactly when
 * the exact one is, and then with the same class (NaN, or the infinity);
 * a finite dot and scale give a finite product exactly (binary64 may
 * overflow where the exact one does not), and a finite bias keeps the
 * class of the product, an infinite or NaN one adds as IEEE says. */
static int score_class(const ref_row_in *in, int64_t t)
{
    const int64_t Dk = in->D + in->Dr;
    const double *k = in->kbuf + in->keys[t] * Dk;
    double dot = 0.0;
    for (int64_t d = 0; d < Dk; d++)
        dot += in->q[d] * k[d];
    const double b = in->bias ? in->bias[in->keys[t]] : 0.0;
    double s;
    if (isfinite(dot) && isfinite(in->scale)) {
        if (isfinite(b))
            return 0;
        s = b;
    } else {
        s = dot * in->scale + (isfinite(b) ? 0.0 : b);
    }
    return s == -INFINITY ? -1 : isfinite(s) ? 0 : 1;
}

static int64_t dbl_row_finite(ref_dbl *x, const ref_row_in *in, row_out *ro);

/* Keys with a NaN or +inf score make the row NaN (s - max is NaN for them,
 * or for all keys when the max is NaN / +inf), as does a row of -inf
 * scores only (-inf - (-inf)); a -inf score is a weight of exactly 0: the
 * key leaves the row, but 0 * v is NaN in a column where its v is not
 * finite.  The rest is the finite row of the other keys. */
int64_t ref_dbl_row(ref_dbl *x, const ref_row_in *in, row_out *ro)
{
    const int64_t D = in->D;
    int64_t nf = 0, ndrop = 0;
    /* a sink of -inf: weight exactly 0, the row as without it; NaN or
     * +inf: NaN in the max, or inf - inf */
    if (in->has_sink && in->sink == -INFINITY) {
        ref_row_in ns = *in;
        ns.has_sink = 0;
        return ref_dbl_row(x, &ns, ro);
    }
    int row_nan = in->has_sink && !isfinite(in->sink);
    for (int64_t t = 0; t < in->nk && !row_nan; t++) {
        int c = score_class(in, t);
        if (c == 0)
            x->fk[nf++] = in->keys[t];
        else if (c < 0)
            ndrop++;
        else
            row_nan = 1;
    }
    if (in->nk > 0 && nf == 0 && !row_nan && in->has_sink) {
        /* every key -inf beside a finite sink: out 0, lse = sink; left to
         * MPFR, outside the model */
        no_model(in, ro);
        return D + (in->want_lse ? 1 : 0);
    }
    if (in->nk > 0 && (row_nan || nf == 0)) {
        for (int64_t d = 0; d < D; d++)
            set_ieee(in, ro, d, NAN, 1);
        if (in->want_lse) {
            ro->lse_bits = ref_round_double_fmt(NAN, REF_FMT_FP32);
            ro->lse_exact = NAN;
            ro->lse_done = 1;
            ro->lse_bound = 0.0;
        }
        return 0;
    }
    if (ndrop == 0)
        return dbl_row_finite(x, in, ro);
    ref_row_in fin = *in;
    fin.keys = x->fk;
    fin.nk = nf;
    int64_t undecided = dbl_row_finite(x, &fin, ro);
    for (int64_t t = 0; t < in->nk; t++) {
        if (score_class(in, t) >= 0)
            continue;
        for (int64_t d = 0; d < D; d++)
            if (!isfinite(in->vbuf[in->keys[t] * D + d])) {
                undecided -= !ro->done[d];
                set_ieee(in, ro, d, NAN, 1);
            }
    }
    return undecided;
}

/* ---- a row of finite scores ------------------------------------------- */

/* The constants of a row's score errors. */
typedef struct score_consts {
    double as, g53, g24, g53b, g24b;
    int aqm;      /* antiquant: k rounded to the input dtype in the model */
    double aabs;  /* antiquant: |scale| eta_kv sum |q|, a score's
                     subnormal part */
} score_consts;

/* Key t's binary64 score x->s[t], x->a[t] >= |scale| sum |q k|, and the
 * score errors of the binary64 pass (x->td[t]) and of the model
 * (x->tm[t]), over the Dk = D + Dr columns of the score (the rope term
 * included).  0 when the binary64 score is not finite; clears *model
 * where the model does not hold. */
static int key_score(ref_dbl *x, const ref_row_in *in, int64_t t,
                     const score_consts *c, int *model)
{
    const int64_t Dk = in->D + in->Dr;
    const double *k = in->kbuf + in->keys[t] * Dk;
    double dot = 0.0, a = 0.0;
    for (int64_t d = 0; d < Dk; d++) {
        double pr = in->q[d] * k[d];
        dot += pr;
        a += fabs(pr);
        if (c->aqm && !(fabs(k[d]) <= in->kv_lim))
            *model = 0; /* the dtype may not hold the rounded k */
    }
    const double b = in->bias ? in->bias[in->keys[t]] : 0.0;
    x->s[t] = in->scale * dot + b;
    x->a[t] = c->as * a * (1.0 + 2.0 * c->g53); /* >= |scale| sum |q k| */
    if (!isfinite(x->s[t]) || !isfinite(x->a[t]))
        return 0;
    /* A_j of the kernel's keys, rounded to the input dtype (antiquant) */
    const double at = c->aqm ? x->a[t] * (1.0 + in->u_kv) * SAFE + c->aabs
                             : x->a[t];
    if ((at + fabs(b)) * 2.0 > FLT_MAX / 4)
        *model = 0; /* float32 scores could overflow */
    /* the dot is taken in float32 before the scale multiplies it (RELEASED
     * "Numeric pipeline"; docs/tolerance.md step 2): its own overflow, at
     * any scale (0 included: -inf * 0 is NaN), is outside the model too */
    const double dot_abs = a * (1.0 + 2.0 * c->g53) *
                           (c->aqm ? (1.0 + in->u_kv) * SAFE : 1.0);
    if (dot_abs * 2.0 > FLT_MAX / 4)
        *model = 0;
    const double sub = (c->as * (double)Dk + 1.0) * 0x1p-149;
    if (b == 0.0) {
        x->td[t] = c->g53 * x->a[t] + ((double)Dk + 2.0) * 0x1p-1074;
        x->tm[t] = c->g24 * at + sub;
    } else {
        x->td[t] = c->g53b * x->a[t] + U53 * fabs(b) * SAFE +
                   ((double)Dk + 3.0) * 0x1p-1074;
        x->tm[t] = c->g24b * at + U24 * fabs(b) * SAFE + sub * (1.0 + U24);
    }
    if (c->aqm) /* the keys' own rounding to the input dtype */
        x->tm[t] += (in->u_kv * x->a[t] + c->aabs) * SAFE;
    return 1;
}

/* What the steps of a finite row (dbl_row_finite) pass on to the next. */
typedef struct row_bounds {
    score_consts c;
    int ok;          /* the binary64 pass is usable */
    int model;       /* the float32 model's bound holds */
    int64_t nt;      /* terms of the row: the keys, then the sink */
    double m, smin;  /* the largest and smallest binary64 score */
    double emax;     /* the largest model score error */
    double R;        /* possible running-max records (rescales) */
    double K;        /* terms of the kernel's row sum, records included */
    double gk24, gk53;  /* gamma over the row sum, model and binary64 */
    double span;     /* max - min score, with both errors */
    double far_w;    /* the weight dropped with the far keys */
    double td_max_key, tm_max_key;  /* the max key's score errors */
    int lone;        /* the max key is the only one left */
    double S;        /* sum of the binary64 weights */
    double tdmax, tmmax;   /* the largest relative weight errors */
    double ed_den, em_den; /* E of the header, binary64 and model */
    /* the columns' common terms (row_value_terms) */
    double u_in, eta_in;   /* P's rounding to the input dtype */
    double small_w;        /* a weight below it is in the subnormal term */
    double au, au_kv;      /* a weight's relative error, and v's with it */
} row_bounds;

/* Step 1, the scores: each key's binary64 score, |scale| sum |q k| and
 * score errors (key_score), their max, min and largest model error, then
 * the sink (finite here) as key nk of exact score sink, with no score
 * error in either pass (bf16 is exact in binary64 and float32).  Clears
 * rb->ok (and rb->model) when a score is not finite. */
static void row_scores(ref_dbl *x, const ref_row_in *in, row_bounds *rb)
{
    const int64_t Dk = in->D + in->Dr, nk = in->nk;
    const double as = fabs(in->scale);
    rb->ok = isfinite(in->scale) && nk > 0;
    rb->model = rb->ok && (as == 0.0 || (as <= FLT_MAX && as >= FLT_MIN));
    /* a bias adds one more rounding to the score: gamma over one more
     * term for |scale| sum |q k|, plus u |bias| (docs/tolerance.md
     * "Scores"); a bias of 0 adds nothing (x + 0 is exact); a k that is
     * the nearest binary64 of a dequantized one (klo) one more */
    const double kr = in->klo ? 1.0 : 0.0;
    /* the score is a dot of Dk = D + Dr products (MLA's rope term in it) */
    score_consts c = {.as = as, .g53 = gam((double)Dk + 1 + kr, U53),
                      .g24 = gam((double)Dk + 2, U24),
                      .g53b = gam((double)Dk + 2 + kr, U53),
                      .g24b = gam((double)Dk + 3, U24),
                      .aqm = in->u_kv > 0.0};
    double qabs = 0.0;
    for (int64_t d = 0; c.aqm && d < Dk; d++)
        qabs += fabs(in->q[d]);
    c.aabs = c.aqm ? as * in->eta_kv * qabs * SAFE : 0.0;
    rb->c = c;
    double m = -INFINITY, smin = INFINITY, emax = 0.0;
    for (int64_t t = 0; t < nk && rb->ok; t++) {
        if (!key_score(x, in, t, &rb->c, &rb->model)) {
            rb->ok = rb->model = 0;
            return;
        }
        emax = x->tm[t] > emax ? x->tm[t] : emax;
        m = x->s[t] > m ? x->s[t] : m;
        smin = x->s[t] < smin ? x->s[t] : smin;
    }
    rb->nt = nk + (in->has_sink ? 1 : 0);
    if (in->has_sink) {
        x->s[nk] = in->sink;
        x->a[nk] = x->td[nk] = x->tm[nk] = 0.0;
        m = in->sink > m ? in->sink : m;
        smin = in->sink < smin ? in->sink : smin;
    }
    rb->m = m, rb->smin = smin, rb->emax = emax;
}

/* Step 2, the records: the rescalings an online softmax in ascending key
 * order may do, one per key that may be a running-max record given the
 * float32 score errors (a key whose score plus emax exceeds every earlier
 * score minus emax); the sink, wherever the kernel takes it in (first or
 * last), is one more possible record and one more term of the row sum.
 * The row sum then has K = terms + R + 1 roundings. */
static void row_records(const ref_dbl *x, const ref_row_in *in,
                        row_bounds *rb)
{
    const int64_t nk = in->nk;
    double R = 0, prev = -INFINITY;
    for (int64_t t = 0; t < nk; t++) {
        if (x->s[t] + rb->emax > prev)
            R++;
        double lo = x->s[t] - rb->emax;
        prev = lo > prev ? lo : prev;
    }
    R += (double)(rb->nt - nk);
    rb->R = R;
    rb->K = (double)rb->nt + R + 1.0;
    rb->gk24 = gam(rb->K, U24);
    rb->gk53 = gam((double)rb->nt + (in->vlo ? 2 : 1), U53);
    rb->span = rb->m - rb->smin + 2.0 * rb->emax;
}

/* Step 3, the weights: w_j = e^(s_j - m) and their relative error bounds
 * T_j (x->td binary64, x->tm model: L_j = score error + u |s_j - m| + exp
 * error (+ the rescales, + u span), T_j = e^L_j - 1), their sum S, and E
 * of the header in both passes.
 *
 * A key whose exact score lies more than FAR below the max key's (diff
 * plus both score errors < -FAR) has a weight below e^-FAR against that
 * key's: binary64 exp loses its relative accuracy there (subnormals, 0),
 * so such a weight is taken as 0 and what that drops counted absolutely.
 * Against the max key's exact score (any shift gives the same o) S >= 1,
 * so o moves by at most far_w (vmax + |o|) and log S by at most far_w,
 * far_w = (keys dropped) 2^-970 >= n e^-FAR.  When the max key is the only
 * one left its weight is exactly 1 against itself: no relative error at
 * all (td 0 below), o is its v, and lse carries that key's score error
 * alone.  The model's bound takes the same weights when the kernel's own
 * (float32) weight of such a key is below float32's least subnormal
 * (e^-103.3, checked at -110): its absolute terms (2^-149 scale) cover
 * that; else no model bound for the row. */
static void row_weights(ref_dbl *x, row_bounds *rb)
{
    const double FAR = 700.0;
    const int64_t nt = rb->nt;
    const double m = rb->m;
    double far_w = 0.0, td_max_key = 0.0, tm_max_key = 0.0;
    for (int64_t t = 0; t < nt; t++)
        if (x->s[t] == m) {
            td_max_key = x->td[t] > td_max_key ? x->td[t] : td_max_key;
            tm_max_key = x->tm[t] > tm_max_key ? x->tm[t] : tm_max_key;
        }
    int64_t n_live = 0, live = -1;
    double S = 0.0, tdmax = 0.0, tmmax = 0.0;
    for (int64_t t = 0; t < nt; t++) { /* the keys, then the sink */
        double diff = x->s[t] - m;
        const int far = diff + x->td[t] + td_max_key < -FAR;
        if (far && !(diff + x->tm[t] + tm_max_key < -110.0))
            rb->model = 0;
        x->w[t] = far ? 0.0 : exp(diff);
        far_w += far ? 0x1p-970 : 0.0;
        if (!far)
            n_live++, live = t;
        S += x->w[t];
        double ld = x->td[t] + U53 * fabs(diff) * SAFE + EXP53;
        x->td[t] = far ? 0.0 : expm1(ld) * SAFE; /* far: in far_w (and */
        double lm = x->tm[t] + U24 * (fabs(diff) + 2.0 * rb->emax) * SAFE +
                    EXP24 * (1.0 + rb->R) + U24 * rb->span * SAFE;
        x->tm[t] = far ? 0.0 : expm1(lm) * SAFE; /* 0 * inf is no bound) */
        tdmax = x->td[t] > tdmax ? x->td[t] : tdmax;
        tmmax = x->tm[t] > tmmax ? x->tm[t] : tmmax;
    }
    rb->lone = n_live == 1 && far_w > 0.0;
    if (rb->lone) /* the max key alone: its weight is 1, o its v */
        x->td[live] = 0.0, tdmax = 0.0;
    /* E: the weighted denominator perturbations */
    double ed_den = 0.0, em_den = 0.0;
    for (int64_t t = 0; t < nt; t++) {
        ed_den += x->w[t] * ((1.0 + x->td[t]) * (1.0 + rb->gk53) - 1.0);
        em_den += x->w[t] * ((1.0 + x->tm[t]) * (1.0 + rb->gk24) - 1.0);
    }
    rb->ed_den = ed_den / S * SAFE;
    rb->em_den = em_den / S * SAFE;
    if (rb->em_den >= 0.5)
        rb->model = 0;
    rb->far_w = far_w, rb->td_max_key = td_max_key;
    rb->tm_max_key = tm_max_key, rb->S = S;
    rb->tdmax = tdmax, rb->tmmax = tmmax;
}

/* Between steps 3 and 4, the terms every column's bound shares: P rounded
 * to the input dtype (u_in, eta_in), the weight below which a term counts
 * in the subnormal sum, a weight's relative error au = u_in + gamma_K (1 +
 * u_in) and, with antiquant, au_kv: each v rounded to the input dtype too
 * (relative u_kv): (1 + au)(1 + u_kv) - 1 = au (1 + u_kv) + u_kv. */
static void row_value_terms(const ref_row_in *in, row_bounds *rb)
{
    p_rounding(in, &rb->u_in, &rb->eta_in);
    rb->small_w = 0x1p-14 * (1.0 + rb->em_den);
    rb->au = rb->u_in + rb->gk24 * (1.0 + rb->u_in);
    rb->au_kv = rb->c.aqm ? (rb->au * (1.0 + in->u_kv) + in->u_kv) * SAFE
                          : rb->au;
}

/* Step 4a, the columns' sums over the keys, key by key (each row of v read
 * once, in the order of its storage): per column d, num = sum w_j v_j (from
 * -0, the sum's identity), spv = sum w_j |v_j|, vmax = max |v_j| (NaN
 * once met) and small = sum of |v_j| over the weights below small_w.
 * Each column's sums take their terms in key order, as one loop per
 * column would, so the results are those bits exactly. */
static void row_value_sums(ref_dbl *x, const ref_row_in *in,
                           const row_bounds *rb)
{
    const int64_t D = in->D, nk = in->nk;
    /* distinct arrays (restrict): the loops over d vectorize */
    double *restrict num = x->num, *restrict spv = x->spv;
    double *restrict vmax = x->vmax, *restrict small = x->small;
    for (int64_t d = 0; d < D; d++)
        num[d] = -0.0, spv[d] = vmax[d] = small[d] = 0.0;
    for (int64_t t = 0; t < nk; t++) {
        const double *restrict v = in->vbuf + in->keys[t] * D;
        const double w = x->w[t];
        for (int64_t d = 0; d < D; d++) {
            const double a = fabs(v[d]), m = vmax[d];
            num[d] += w * v[d];
            spv[d] += w * a;
            vmax[d] = a > m || a != a ? a : m;
        }
        if (w < rb->small_w)
            for (int64_t d = 0; d < D; d++)
                small[d] += fabs(v[d]);
    }
}

/* Step 4b, o = num / S and the weights' error sums about it, key by key
 * and then the sink (v_s = 0): std_ = sum td_j w_j |v_j - o| and stm, the
 * same with the model's tm_j (per column in key order, as 4a).  A column
 * whose v or o is not finite gets sums row_column does not use. */
static void row_error_sums(ref_dbl *x, const ref_row_in *in,
                           const row_bounds *rb)
{
    const int64_t D = in->D, nk = in->nk;
    double *restrict o = x->o, *restrict std_ = x->std_;
    double *restrict stm = x->stm;
    for (int64_t d = 0; d < D; d++)
        o[d] = x->num[d] / rb->S, std_[d] = stm[d] = 0.0;
    for (int64_t t = 0; t < rb->nt; t++) {
        const double w = x->w[t], td = x->td[t], tm = x->tm[t];
        if (t < nk) {
            const double *restrict v = in->vbuf + in->keys[t] * D;
            for (int64_t d = 0; d < D; d++) {
                double dv = fabs(v[d] - o[d]) * w;
                std_[d] += td * dv;
                stm[d] += tm * dv;
            }
        } else {
            for (int64_t d = 0; d < D; d++) {
                double dv = fabs(0.0 - o[d]) * w;
                std_[d] += td * dv;
                stm[d] += tm * dv;
            }
        }
    }
}

/* Step 4c, column d of the output: o = sum w_j v_j / S (4a, 4b), the
 * model's bound (ro->bound[d], the header's inequality with the float32
 * pipeline's roundings, P rounded to the input dtype, antiquant's v
 * roundings and the absolute terms of subnormals) and, unless decided
 * already, o decided in binary64 against the double pass's bound.  1 when
 * the column stays undecided. */
static int row_column(const ref_dbl *x, const ref_row_in *in,
                      const row_bounds *rb, int64_t d, row_out *ro)
{
    const int64_t nk = in->nk;
    const double S = rb->S, au = rb->au;
    const double au_kv = rb->au_kv, eta_in = rb->eta_in;
    const double ukv1 = 1.0 + in->u_kv;
    const double vmax = x->vmax[d], o = x->o[d];
    if (!isfinite(vmax)) {
        nonfinite_column(in, ro, d, rb->model && rb->span <= unflushed_span(in));
        return 0;
    }
    if (!isfinite(o)) {
        ro->bound[d] = INFINITY;
        return 1;
    }
    const double spv = x->spv[d] / S, small = x->small[d] / S;
    const double std_ = x->std_[d] / S, stm = x->stm[d] / S;
    double ao = fabs(o);
    const double tmmax = rb->tmmax, K = rb->K;
    if (rb->model && !(rb->c.aqm && !(vmax <= in->kv_lim))) {
        double b = stm + (1.0 + tmmax) * (au_kv * spv + rb->gk24 * ao) +
                   (1.0 + tmmax) * (1.0 + au) * in->eta_kv +
                   eta_in * (1.0 + tmmax) *
                       (small * ukv1 + in->eta_kv * (double)nk) +
                   (K + 2.0) * 0x1p-149 *
                       (vmax * ukv1 + in->eta_kv + ao + 1.0);
        ro->bound[d] = (b / (1.0 - rb->em_den) + U24 * ao) * SAFE;
    } else {
        ro->bound[d] = INFINITY;
    }
    if (ro->done[d])
        return 0;
    if (vmax == 0.0) { /* all v zero: o is an exact zero, sign as summed */
        ro->bits[d] = ref_round_double_fmt(o, in->fmt);
        ro->exact[d] = o;
        ro->done[d] = 1;
        return 0;
    }
    double bd = (std_ + (1.0 + rb->tdmax) * rb->gk53 * (spv + ao)) /
                    (1.0 - rb->ed_den) + U53 * ao + rb->far_w * (vmax + ao);
    if (rb->ok && ref_decide_double(o, bd, in->fmt, &ro->bits[d])) {
        ro->exact[d] = o;
        ro->done[d] = 1;
        return 0;
    }
    return 1;
}

/* Step 5, lse = m + log S: the model's bound -log(1 - E) + the log's and
 * the additions' roundings, and lse decided in binary64 against the double
 * pass's bound (far_w for the dropped keys; the max key's own score error
 * when it is alone).  1 when it stays undecided. */
static int row_lse(const row_bounds *rb, row_out *ro)
{
    double ls = log(rb->S), lse = rb->m + ls;
    double bm = -log1p(-rb->em_den) + EXP24 * fabs(ls) +
                2.0 * U24 * (fabs(rb->m) + fabs(ls));
    ro->lse_bound = rb->model ? bm * SAFE : INFINITY;
    double bd = -log1p(-rb->ed_den) + EXP53 * fabs(ls) + U53 * fabs(lse) +
                rb->far_w + (rb->lone ? rb->td_max_key * SAFE : 0.0);
    if (ro->lse_done)
        return 0;
    if (rb->ok && ref_decide_double(lse, bd, REF_FMT_FP32, &ro->lse_bits)) {
        ro->lse_exact = lse;
        ro->lse_done = 1;
        return 0;
    }
    return 1;
}

/* A row of finite scores, in the steps of the header's derivation. */
static int64_t dbl_row_finite(ref_dbl *x, const ref_row_in *in, row_out *ro)
{
    row_bounds rb;
    memset(&rb, 0, sizeof rb);
    row_scores(x, in, &rb);
    if (!rb.ok) {
        no_model(in, ro);
        return in->D + (in->want_lse ? 1 : 0);
    }
    row_records(x, in, &rb);
    row_weights(x, &rb);
    if (in->D > x->d_cap) { /* a row wider than the workspace: MPFR's */
        no_model(in, ro);
        return in->D + (in->want_lse ? 1 : 0);
    }
    row_value_terms(in, &rb);
    row_value_sums(x, in, &rb);
    row_error_sums(x, in, &rb);
    int64_t undecided = 0;
    for (int64_t d = 0; d < in->D; d++)
        undecided += row_column(x, in, &rb, d, ro);
    if (in->want_lse)
        undecided += row_lse(&rb, ro);
    /* ties: a row of one exact score is the plain mean of v (with a sink:
     * the MPFR loop's rational means, which count the sink's class) */
    if (undecided > 0 && rb.ok && !in->has_sink)
        undecided -= ref_dbl_one_class(in, ro);
    return undecided;
}
