/* ref/: public entry points (include/fia/ref.h).
 *
 * fia_ref_compute reads the case (ref_problem.c), walks its rows
 * (ref_rows.c) and has the math core evaluate each computed row
 * (ref_attention.c); this file only places each row's results at its
 * elements of attention_out and softmax_lse. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ref_internal.h"

void fia_ref_options_default(fia_ref_options *o)
{
    o->precision_bits = 128;
    o->pure_mpfr = 0;
    o->released_kv_return = 0;
    o->progress = NULL;
    o->progress_ctx = NULL;
}

void fia_ref_result_free(fia_ref_result *r)
{
    if (!r)
        return;
    free(r->out.data);
    free(r->out_exact);
    free(r->out_unspecified);
    free(r->out_bound);
    free(r->lse_bound);
    free(r->lse.data);
    free(r->lse_exact);
    free(r->lse_unspecified);
    r->out.data = r->lse.data = NULL;
    r->out_exact = r->lse_exact = NULL;
    r->out_unspecified = r->lse_unspecified = NULL;
    r->out_bound = r->lse_bound = NULL;
    r->out_numel = r->lse_numel = 0;
    r->has_lse = 0;
}

/* Output buffers; unspecified starts at 1 so that nothing is compared that
 * the computation did not write. */
static fia_status alloc_result(const ref_problem *p, fia_ref_result *r,
                               fia_error *err)
{
    r->out = *p->out_t;
    r->out.data = NULL;
    r->out_numel = fia_tensor_numel(p->out_t);
    size_t n = (size_t)(r->out_numel > 0 ? r->out_numel : 0);
    if (n > 0) {
        r->out.data = calloc(n, sizeof(uint16_t));
        r->out_exact = calloc(n, sizeof(double));
        r->out_unspecified = malloc(n);
        r->out_bound = calloc(n, sizeof(double));
        if (!r->out.data || !r->out_exact || !r->out_unspecified ||
            !r->out_bound)
            return fia_fail(err, FIA_ERR_NOMEM, "out of memory (result)");
        memset(r->out_unspecified, 1, n);
    }
    if (!p->has_lse)
        return FIA_OK;
    r->has_lse = 1;
    memset(&r->lse, 0, sizeof r->lse);
    r->lse.dtype = FIA_DT_FP32;
    r->lse.ndim = p->lse_ndim;
    memcpy(r->lse.shape, p->lse_shape, sizeof r->lse.shape);
    r->lse_numel = fia_tensor_numel(&r->lse);
    size_t m = (size_t)(r->lse_numel > 0 ? r->lse_numel : 0);
    if (m > 0) {
        r->lse.data = calloc(m, sizeof(uint32_t));
        r->lse_exact = calloc(m, sizeof(double));
        r->lse_unspecified = malloc(m);
        r->lse_bound = calloc(m, sizeof(double));
        if (!r->lse.data || !r->lse_exact || !r->lse_unspecified ||
            !r->lse_bound)
            return fia_fail(err, FIA_ERR_NOMEM, "out of memory (result)");
        memset(r->lse_unspecified, 1, m);
    }
    return FIA_OK;
}

static void store_out(fia_ref_result *r, int64_t idx, uint32_t bits,
                      double exact, int unspec, double bound)
{
    if (r->out.dtype == FIA_DT_INT8)
        ((uint8_t *)r->out.data)[idx] = (uint8_t)bits;
    else
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

/* Output element (b, n, i, d) of a row: as computed, or quantized for an
 * int8 attention_out (a documented exact 0 becomes sat(round(qo)), whose
 * tie may round either way: a bound > 0). */
static void store_row_elem(const ref_problem *p, fia_ref_result *r,
                           int64_t b, int64_t n, int64_t i, int64_t d,
                           uint32_t bits, double exact, int unspec,
                           double bound)
{
    const int64_t idx = ref_out_index(p, b, n, i, d);
    if (p->out_dtype == FIA_DT_INT8 && !unspec)
        unspec = ref_int8_out(p, n, d, exact, bound, &bits, &exact, &bound);
    store_out(r, idx, bits, exact, unspec, bound);
}

typedef struct compute_ctx {
    const ref_problem *p;
    fia_ref_result *r;
    ref_core *core;
    /* full int8 (p->int8_quant): its own row math */
    ref_int8_quant *int8_quant;
    ref_int8_quant_scales int8_quant_scales;
    ref_row_in in;      /* the constant part of every row */
    row_out ro;
    const fia_ref_options *opt;
    int64_t rows_done;
} compute_ctx;

/* One row: a degenerate row gets the documented values, exact (bound 0:
 * the comparator then checks them bit for bit, sign included): output +0,
 * lse +inf or unspecified.  A computed row is evaluated by the core. */
static fia_status compute_row(const ref_row_view *row, void *vctx,
                              fia_error *err)
{
    compute_ctx *x = vctx;
    const ref_problem *p = x->p;
    fia_ref_result *r = x->r;
    int64_t b = row->b, n = row->n, i = row->i;
    if (x->opt->progress)
        x->opt->progress(++x->rows_done, p->B * p->N * p->Q_S,
                         x->opt->progress_ctx);
    if (!row->computed) {
        for (int64_t d = 0; d < p->Dv; d++)
            store_row_elem(p, r, b, n, i, d, 0, 0.0, row->out_unspec, 0.0);
        if (p->has_lse)
            store_lse(r, ref_lse_index(p, b, n, i),
                      row->lse_inf ? 0x7F800000u : 0,
                      row->lse_inf ? INFINITY : 0.0, !row->lse_inf, 0.0);
        return FIA_OK;
    }
    x->in.q = row->q;
    x->in.kbuf = row->kbuf;
    x->in.vbuf = row->vbuf;
    x->in.klo = row->klo;
    x->in.vlo = row->vlo;
    x->in.keys = row->keys;
    x->in.bias = row->bias;
    x->in.nk = row->nk;
    x->in.has_sink = p->sink != NULL; /* query head n's virtual key */
    x->in.sink = p->sink ? ref_sink_value(p, n) : 0.0;
    if (x->int8_quant) {
        ref_int8_quant_row(x->int8_quant, &x->in, &x->int8_quant_scales, &x->ro,
                           &r->n_elements, &r->n_escalated);
    } else {
        fia_status st = ref_core_row(x->core, &x->in, &x->ro,
                                     &r->n_elements, &r->n_escalated, err);
        if (st != FIA_OK)
            return st;
    }
    for (int64_t d = 0; d < p->Dv; d++)
        store_row_elem(p, r, b, n, i, d, x->ro.bits[d], x->ro.exact[d], 0,
                       x->ro.bound[d]);
    if (p->has_lse)
        store_lse(r, ref_lse_index(p, b, n, i), x->ro.lse_bits,
                  x->ro.lse_exact, 0, x->ro.lse_bound);
    return FIA_OK;
}

/* The scores are exact at a precision set by the values the rows may read:
 * the query rows within q_len and the key rows within kv_len of each batch
 * (with MLA their rope rows too: a score is a dot of D + Dr products),
 * a shared prefix's first P rows (not the whole tensors: a case may hold
 * many GiB of rows no call reads, docs/case-format.md "data = live_rows"),
 * the scale and the pse values of those rows and keys. */
static mpfr_prec_t score_precision(void *vp)
{
    const ref_problem *p = vp;
    ref_value_range qr = {0}, kr = {0};
    for (int64_t n = 0; n < p->KV_N; n++)
        for (int64_t j = 0; j < p->P; j++)
            for (int64_t d = 0; d < p->D; d++)
                ref_value_range_add(&kr, fia_load_as_double(
                    p->kp->dtype, p->kp->data, ref_prefix_index(p, n, j, d)));
    for (int64_t b = 0; b < p->B; b++) {
        if (ref_pad_start_neg(p, b))
            continue; /* a left-padding start below 0: no row computed */
        for (int64_t n = 0; n < p->N; n++)
            for (int64_t i = 0; i < p->q_len[b]; i++) {
                /* MLA full quantization: the dequantized values */
                const double qs =
                    p->query_quant ? ref_query_quant_q_scale(p, b, n, i) : 1.0;
                for (int64_t d = 0; d < p->D; d++)
                    ref_value_range_add(&qr, qs * fia_load_as_double(
                        p->q->dtype, p->q->data, ref_q_index(p, b, n, i, d)));
                for (int64_t d = 0; d < p->Dr; d++) /* query_rope */
                    ref_value_range_add(&qr, fia_load_as_double(
                        p->qr->dtype, p->qr->data,
                        ref_q_index_w(p, b, n, i, d, p->Dr)));
            }
        for (int64_t n = 0; n < p->KV_N; n++)
            for (int64_t j = 0; j < p->kv_len[b]; j++) {
                for (int64_t d = 0; d < p->Dr; d++) /* key_rope */
                    ref_value_range_add(&kr, fia_load_as_double(
                        p->kr->dtype, p->kr->data,
                        ref_kv_index_w(p, b, n, j, d, p->Dr)));
                for (int64_t d = 0; d < p->D; d++) {
                    if (!p->aq) {
                        ref_value_range_add(
                            &kr, (p->query_quant ? p->query_quant_dsk : 1.0) *
                                     fia_load_as_double(
                                         ref_k_tensor(p, b)->dtype,
                                         ref_k_tensor(p, b)->data,
                                         ref_kv_index(p, b, n, j, d)));
                        continue;
                    }
                    double hi, lo;
                    ref_aq_load(p, 0, b, n, j, d, &hi, &lo);
                    ref_value_range_add(&kr, hi);
                    ref_value_range_add(&kr, lo);
                }
            }
    }
    ref_value_range br = {0};
    ref_pse_range(p, &br);
    /* a learnable sink is a score of its own, held and subtracted exactly
     * like a bias (read_sink.c) */
    for (int64_t n = 0; p->sink && n < p->N; n++)
        ref_value_range_add(&br, ref_sink_value(p, n));
    /* a dequantized key is two parts (read_antiquant.c): 2 D products;
     * MLA's rope adds Dr (never with antiquant: read_mla.c) */
    return ref_score_precision(&qr, &kr, p->aq ? 2 * p->D : p->D + p->Dr,
                               p->scale, &br);
}

/* The permitted algorithm rounds dequantized key and value to the query's
 * dtype (docs/tolerance.md "Antiquant"): up to three roundings of unit u_q
 * or 2^-24, |delta| <= 3 u_q, plus the dtype's subnormal half-step; no
 * model where the rounded value may overflow the dtype, or where an offset
 * leaves x_int + offset beyond it (read_antiquant.c). */
static void antiquant_model(const ref_problem *p, ref_row_in *in)
{
    if (!p->aq)
        return;
    const int bf = p->in_dtype == FIA_DT_BF16;
    const double max = bf ? 0x1.fep127 : 65504.0;
    in->u_kv = 3.0 * (bf ? 0x1p-8 : 0x1p-11);
    /* the dtype's subnormal half-step, and float32's where a float32
     * product underflowed before it */
    in->eta_kv = (bf ? 0x1p-134 : 0x1p-25) + 0x1p-149;
    in->kv_lim = p->aq_unmodeled ? -1.0
                                 : (max - in->eta_kv) / (1.0 + in->u_kv);
}

/* MLA full quantization (read_query_quant.c; docs/tolerance.md "MLA full
 * quantization").  The permitted algorithm is a float32 kernel that forms
 * the score's D part in either of two ways,
 *   (a) dequantized: q~ = fl32(q_int8 dsq), k~ = fl32(k_int8 dsk), the
 *       float32 products fl32(q~_d k~_jd) (or FMAs) summed in float32 with
 *       the rope's exact bf16 x bf16 products, in any order; or
 *   (b) integer: I_j = sum_d q_int8 k_int8 exact (|I_j| <= 512 * 128^2 =
 *       2^23: exact in int32 and float32), times the scales,
 *       fl32(fl32(I_j dsk) dsq) or fl32(I_j fl32(dsq dsk)), plus the
 *       rope's float32 sum;
 * and then runs the bf16 MLA pipeline (docs/tolerance.md "The permitted
 * algorithm" 2-7: the scale, the mask, softmax in float32, P rounded to
 * bf16 before P.V, P.V in float32 over v~ = fl32(v_int8 dsv) - or
 * v_int8 with dsv applied after, the same relative error -, the division,
 * one rounding to bf16).
 *
 * Claim: every such kernel is a kernel of the antiquant model (ref_double.c,
 * docs/tolerance.md "Antiquant") on the exact q, keys k'_jd = k_jd (1 +
 * d_jd) and values v'_jd = v_jd (1 + e_jd) with |d|, |e| <= u_kv = (1 +
 * u)^3 - 1 (u = 2^-24), and with P rounded to bf16: its bound holds with
 * u_kv, eta_kv = 2^-149 and in_dtype bf16 (read_tensors.c, round_p).
 * Proof.  With every scale 0 or in [2^-126, FLT_MAX / 2^8) (else
 * query_quant_unmodeled: no bound) and 1 <= |x_int8| <= 128 for a nonzero x, a
 * dequantized value is 0 or a normal float32 below FLT_MAX / 2: its
 * rounding is relative, |a| <= u.  (a) fl32(q~_d k~_jd) = q_d k_jd (1 +
 * a)(1 + b)(1 + c) + eta, |a|, |b|, |c| <= u (c = 0 with an FMA), |eta| <=
 * 2^-150 when the product underflows: this is q_d k'_jd + eta with k'_jd =
 * k_jd (1 + a)(1 + b)(1 + c), |d_jd| <= (1 + u)^3 - 1 = u_kv.  d_jd
 * depends on the row's q_d too, which the model allows: its bound is
 * derived row by row and asks nothing of how k' is shared between rows.
 * The float32 summation of the Dk products q_d k'_jd (+ eta) is then the
 * model's dot (eta is within its underflow term (|scale| Dk + 1) 2^-149);
 * the rope columns are exact products, d = 0.  (b) fl32(fl32(I_j dsk)
 * dsq) = dsq dsk I_j (1 + a)(1 + b) = sum_{d < D} q_d k_jd (1 + a)(1 + b):
 * the D part with one d for all its columns, |d| <= (1 + u)^2 - 1 <
 * u_kv, computed without summation error; adding the rope's float32 sum
 * (Dr - 1 roundings) is one rounding more, so the score's D + Dr products
 * are summed with at most Dk - 1 roundings, within the model's gamma
 * term; the other order (fl32(dsq dsk) first) is the same two roundings.
 * v~_jd = v_jd (1 + e), |e| <= u < u_kv.  The rest of the pipeline is the
 * model's with P rounded to bf16 (u_in = 2^-8).  So the antiquant bound
 * (score error + u_kv A_j + |scale| eta_kv sum |q|, numerator (au (1 +
 * u_kv) + u_kv) sum p |v|) covers the kernel.  kv_lim: a |k'| or |v'|
 * whose rounding could pass FLT_MAX is outside the model (never with the
 * scales above; ref_double.c also refuses scores near float32 overflow).
 * QED.  u_kv = 3u + 3u^2 + u^3 <= 3u + 2^-45.  Checked against float32
 * kernels of both forms in tests/test_ref_query_quant.c. */
static void query_quant_model(const ref_problem *p, ref_row_in *in)
{
    if (!p->query_quant)
        return;
    in->u_kv = 3.0 * 0x1p-24 + 0x1p-45;
    in->eta_kv = 0x1p-149;
    in->kv_lim = p->query_quant_unmodeled ? -1.0
                                 : (FLT_MAX - in->eta_kv) / (1.0 + in->u_kv);
}

static fia_status compute_rows(const ref_problem *p, long prec,
                               const fia_ref_options *opt, fia_ref_result *r,
                               fia_error *err)
{
    /* an int8 output quantizes the exact value (store_row_elem); the core
     * still rounds to the query's dtype */
    fia_dtype fdt = p->out_dtype == FIA_DT_INT8 ? p->in_dtype : p->out_dtype;
    ref_fmt fmt = fdt == FIA_DT_BF16 ? REF_FMT_BF16 : REF_FMT_FP16;
    compute_ctx x = {.p = p, .r = r, .opt = opt};
    /* the core's rows: Dv output (value) columns, scores over Dk = D + Dr
     * columns, the Dk - Dv past the Dv its "Dr" (MLA's rope, or the query's
     * and key's own columns past a narrower value's, read_tnd.c) */
    const int64_t Dv = p->Dv, Dx = p->D + p->Dr - p->Dv;
    fia_status st = ref_core_new(&x.core, Dv, Dx, ref_max_kv_len(p), fmt,
                                 prec, score_precision, (void *)p,
                                 opt->pure_mpfr, err);
    if (st != FIA_OK)
        return st;
    if (ref_row_out_init(&x.ro, Dv) != FIA_OK) {
        ref_row_out_free(&x.ro);
        ref_core_free(x.core);
        return fia_fail(err, FIA_ERR_NOMEM, "out of memory (reference rows)");
    }
    x.in = (ref_row_in){.D = Dv, .Dr = Dx, .scale = p->scale, .fmt = fmt,
                        .want_lse = p->has_lse, .round_p = p->round_p,
                        .in_dtype = p->in_dtype};
    antiquant_model(p, &x.in);
    query_quant_model(p, &x.in);
    if (p->int8_quant) {
        x.int8_quant_scales = (ref_int8_quant_scales){
            p->int8_quant_ds1, p->int8_quant_qs1, p->int8_quant_ds2};
        st = ref_int8_quant_new(&x.int8_quant, p->D, ref_max_kv_len(p), fmt,
                                prec, opt->pure_mpfr, err);
    }
    if (st == FIA_OK)
        st = ref_rows_walk(p, compute_row, &x, err);
    r->n_refined = ref_core_refined(x.core);
    ref_row_out_free(&x.ro);
    ref_int8_quant_free(x.int8_quant);
    ref_core_free(x.core);
    return st;
}

fia_status fia_ref_compute(const fia_case *c, const fia_case_data *d,
                           const fia_ref_options *opt, fia_ref_result *r,
                           fia_error *err)
{
    if (!r)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "no result");
    memset(r, 0, sizeof *r);
    fia_error_clear(err);
    fia_ref_options def;
    if (!opt) {
        fia_ref_options_default(&def);
        opt = &def;
    }
    long prec = opt->precision_bits < 64 ? 64 : opt->precision_bits;
    if (prec > 4096)
        prec = 4096;
    if (c && opt->released_kv_return && ref_reads_no_key(c)) {
        fia_status st = ref_kv_return_result(c, r, err);
        if (st != FIA_OK)
            fia_ref_result_free(r);
        return st;
    }
    ref_problem p;
    fia_status st = ref_problem_init(&p, c, d, err);
    if (st != FIA_OK)
        return st;
    st = alloc_result(&p, r, err);
    if (st == FIA_OK && !p.empty_query)
        st = compute_rows(&p, prec, opt, r, err);
    ref_problem_free(&p);
    if (st != FIA_OK)
        fia_ref_result_free(r);
    return st;
}
