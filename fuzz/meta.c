/* fuzz_metamorphic: one problem expressed two ways must give the same
 * answer.  A transform rewrites a case into an equivalent one (same data,
 * another layout; K/V heads repeated instead of GQA; a length-1 sequence-
 * length array written out per batch; a sparse mode as the equivalent
 * explicit mask under sparse mode 0 or 1; the keys behind a block table
 * or as a tensor per batch; the rows packed as a token layout; the rows
 * left-padded, moved to the end of longer axes; the batches' equal first
 * keys in a shared prefix; a pse of zeros added; the mask as a pse of
 * -inf and 0; quantized keys and values as their dequantized values; the
 * call written through another interface's names and read back; an MLA
 * call with zero ropes as the call without them).
 * Both forms are run through
 * fast/ and their outputs compared element by element in the canonical
 * BNSD order, over the rows the documents define (i < q_len). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fia/fast.h"
#include "fia/ref.h"
#include "fuzz/fuzz_internal.h"
#include "fuzz/signature.h"

/* The transforms, one per feature (meta_<feature>.c): the name, or its
 * prefix when it ends in '='; the rest of the string is the argument.  A
 * transform that does not apply returns FIA_ERR_BAD_INPUT. */
static const struct {
    const char *name;
    fz_meta_fn apply;
} transforms[] = {
    {"layout=", fz_meta_layout},
    {"mha", fz_meta_mha},
    {"seqlen-expand", fz_meta_seqlen_expand},
    {"paged=", fz_meta_paged},
    {"list=", fz_meta_tensor_list},
    {"tnd=", fz_meta_tnd},
    {"pad=", fz_meta_padding},
    {"sparse-to-mask=", fz_meta_sparse_to_mask},
    {"prefix=", fz_meta_prefix},
    {"pse-zero=", fz_meta_pse_zero},
    {"pse-mask=", fz_meta_pse_mask},
    {"antiquant=", fz_meta_antiquant},
    {"api=", fz_meta_api},
    {"mla-zero-rope", fz_meta_mla_zero_rope},
    {"mla-heads-rev", fz_meta_mla_heads_rev},
};

/* The base's canonical geometry: the four layouts' (fz_geom_of); an MLA
 * base, paged by its rules, by its call (fz_geom_of_call) and only for its
 * own relation -- the others read key and value as the layout's.  0, or
 * -1 when the transform cannot start from the case. */
static int base_geometry(const fia_case *c, const char *transform,
                         fz_geom *g)
{
    if (fz_geom_of(c, g) == 0)
        return 0;
    if (strcmp(transform, "mla-zero-rope") == 0)
        return fz_mla_zero_rope_applies(c) && fz_geom_of_call(c, g) == 0
                   ? 0 : -1;
    if (strcmp(transform, "mla-heads-rev") == 0)
        return fz_mla_heads_rev_applies(c) && fz_geom_of_call(c, g) == 0
                   ? 0 : -1;
    return -1;
}

fia_status fuzz_meta_transform(const fia_case *c, const char *transform,
                               fia_case *out, fia_error *err)
{
    fz_geom g;
    fia_case_init(out);
    if (base_geometry(c, transform, &g) != 0)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "the case does not follow "
                        "one of the four layouts");
    if (fia_case_copy(out, c) != FIA_OK)
        return fia_fail(err, FIA_ERR_NOMEM, "no memory to copy the case");
    fia_error_clear(err);
    fia_status st = FIA_ERR_BAD_INPUT;
    for (size_t k = 0; k < sizeof transforms / sizeof transforms[0]; k++) {
        const char *name = transforms[k].name;
        size_t n = strlen(name);
        int prefix = name[n - 1] == '=';
        if (prefix ? strncmp(transform, name, n) == 0
                   : strcmp(transform, name) == 0) {
            st = transforms[k].apply(c, &g, transform + (prefix ? n : 0),
                                     out, err);
            break;
        }
    }
    if (st == FIA_OK) {
        fia_error_clear(err);
        return FIA_OK;
    }
    fia_case_free(out);
    if (err == NULL || err->code == FIA_OK)
        fia_fail(err, st, "transform '%s' does not apply to the case",
                 transform);
    return st;
}

/* fast/'s outputs of one form, in canonical BNSD order. */
typedef struct form_out {
    fia_tensor out, lse;     /* out: [B,N,Q_S,D] in the output dtype */
    double *out_d, *lse_d;
    int has_lse;
} form_out;

static void form_free(form_out *o)
{
    free(o->out.data);
    free(o->lse.data);
    free(o->out_d);
    free(o->lse_d);
    memset(o, 0, sizeof *o);
}

/* Runs one form through fast/ (both phases), its outputs read in the
 * canonical order of geometry canon (the first form's), its heads in
 * reverse order when heads_rev (mla-heads-rev's second form).  Its status:
 * fast/'s, with fastLastError() as the message, or the failure to make
 * the form's data or read its outputs. */
static fia_status run_form(const fia_case *c, const fz_geom *canon,
                           int heads_rev, fia_profile p, form_out *o,
                           fia_error *err)
{
    fia_case_data d;
    fz_geom f, geom, *g = &geom; /* the form's; the loops' (canonical) */
    memset(o, 0, sizeof *o);
    fia_error_clear(err);
    if (fz_geom_of_call(c, &f) != 0 ||
        ((f.tnd || f.qpad) && (f.B != canon->B || f.N != canon->N)))
        return fia_fail(err, FIA_ERR_BAD_INPUT, "the form does not follow "
                        "its layout");
    /* a token form has rows of the canonical problem, packed; a padded
     * one has them at the end of a longer axis (fz_out_index finds them) */
    *g = f.tnd || f.qpad ? *canon : f;
    fia_status st = fia_case_materialize(c, 1, &d, err);
    if (st != FIA_OK)
        return st;
    const double t0 = fia_check_cpu_seconds();
    st = fia_call_sut(c, &d, p, 1, err);
    fuzz_report_target_seconds(0.0, fia_check_cpu_seconds() - t0);
    const fia_tensor *ot = d.t[FIA_SLOT_ATTENTION_OUT];
    const fia_tensor *lt = d.t[FIA_SLOT_SOFTMAX_LSE];
    int64_t n = g->B * g->N * g->Q_S * g->D, nl = g->B * g->N * g->Q_S;
    int64_t on = f.tnd ? f.T * f.N * f.D : f.B * f.N * f.Q_S * f.D;
    int64_t onl = f.tnd ? f.T * f.N : f.B * f.N * f.Q_S;
    if (st == FIA_OK && ot != NULL && fia_tensor_numel(ot) == on) {
        o->out.dtype = ot->dtype;
        o->out.ndim = 4;
        int64_t sh[4] = {g->B, g->N, g->Q_S, g->D};
        memcpy(o->out.shape, sh, sizeof sh);
        o->out.data = calloc((size_t)(n > 0 ? n : 1), 2);
        o->out_d = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
        for (int64_t b = 0; b < g->B && o->out.data && o->out_d; b++)
            for (int64_t h = 0; h < g->N; h++)
                for (int64_t i = 0; i < g->Q_S; i++)
                    for (int64_t k = 0; k < g->D; k++) {
                        int64_t ci = ((b * g->N + h) * g->Q_S + i) * g->D + k;
                        int64_t at = fz_out_index(
                            c, &f, b, heads_rev ? g->N - 1 - h : h, i, k);
                        double x = at < 0 ? 0.0 /* no such row: unspecified */
                                          : fia_load_as_double(ot->dtype,
                                                               ot->data, at);
                        fia_store_from_double(ot->dtype, o->out.data, ci, x);
                        o->out_d[ci] = x;
                    }
        if (lt != NULL && fia_tensor_numel(lt) == onl) {
            o->has_lse = 1;
            o->lse = *lt;
            o->lse.ndim = 4; /* [B, N, Q_S, 1] in either form */
            int64_t lsh[4] = {g->B, g->N, g->Q_S, 1};
            memcpy(o->lse.shape, lsh, sizeof lsh);
            o->lse.data = calloc((size_t)(nl > 0 ? nl : 1), 4);
            o->lse_d = calloc((size_t)(nl > 0 ? nl : 1), sizeof(double));
            for (int64_t b = 0; b < g->B && o->lse.data && o->lse_d; b++)
                for (int64_t h = 0; h < g->N; h++)
                    for (int64_t i = 0; i < g->Q_S; i++) {
                        int64_t ci = (b * g->N + h) * g->Q_S + i;
                        int64_t at = fz_lse_index(
                            c, &f, b, heads_rev ? g->N - 1 - h : h, i);
                        double x = at < 0 ? 0.0 : fia_load_as_double(
                                                       FIA_DT_FP32, lt->data, at);
                        fia_store_from_double(FIA_DT_FP32, o->lse.data, ci, x);
                        o->lse_d[ci] = x;
                    }
        }
    } else if (st == FIA_OK) {
        st = fia_fail(err, FIA_ERR_RUNTIME_ERROR, "attention_out has an "
                      "unexpected size");
    }
    fia_case_data_free(&d);
    return st;
}

/* Both forms judged status-only: 1 when both pass and their outputs can be
 * compared; 0 when not (r->finding set when a form is a finding itself). */
static int forms_pass(const fia_case *const forms[2], fia_profile profile,
                      fuzz_meta_result *r)
{
    fia_check_options o;
    fia_check_options_default(&o);
    fuzz_report_check_options(&o); /* fast/'s profile, when set */
    o.profile = profile;
    o.status_only = 1;
    static fia_check_result cr[2];
    for (int k = 0; k < 2; k++) {
        fia_check_case(forms[k], &o, &cr[k]);
        fuzz_report_times(&cr[k]);
        if (fia_verdict_is_finding(cr[k].v)) {
            r->applicable = 1;
            r->finding = 1;
            snprintf(r->kind, sizeof r->kind, "%s", fia_verdict_name(cr[k].v));
            fuzz_signature(forms[k], &cr[k], profile, r->signature,
                           sizeof r->signature);
            snprintf(r->message, sizeof r->message, "form %c: %.480s",
                     k ? 'B' : 'A', cr[k].reason.msg);
            return 0;
        }
        if (!cr[k].evaluated || !cr[k].ov.accept || cr[k].v != FIA_V_PASS)
            return 0;
    }
    return 1;
}

/* The rows the documents leave unspecified (i >= q_len), per output
 * element (unspec) and per softmax_lse row (lunspec); 0 or NOMEM. */
static fia_status unspecified_rows(const fia_case *c, const fz_geom *g,
                                   uint8_t **unspec, uint8_t **lunspec)
{
    int64_t nrows = g->B * g->N * g->Q_S;
    *unspec = calloc((size_t)(nrows * g->D + 1), 1);
    *lunspec = calloc((size_t)(nrows + 1), 1);
    if (*unspec == NULL || *lunspec == NULL) {
        free(*unspec);
        free(*lunspec);
        *unspec = *lunspec = NULL;
        return FIA_ERR_NOMEM;
    }
    for (int64_t b = 0; b < g->B; b++)
        for (int64_t h = 0; h < g->N; h++)
            for (int64_t i = fz_q_len(c, g, b); i < g->Q_S; i++) {
                int64_t row = (b * g->N + h) * g->Q_S + i;
                (*lunspec)[row] = 1;
                memset(*unspec + row * g->D, 1, (size_t)g->D);
            }
    return FIA_OK;
}

/* The largest |v| of the case's value tensor (0 when it cannot be made). */
static double max_abs_value(const fia_case *c)
{
    double *v = NULL, m = 0;
    int64_t n = 0;
    if (fz_slot_data(c, FIA_SLOT_VALUE, &v, &n, NULL) != FIA_OK)
        return 0;
    for (int64_t i = 0; i < n; i++)
        if (isfinite(v[i]) && fabs(v[i]) > m)
            m = fabs(v[i]);
    free(v);
    return m;
}

/* The spacing of format dt's values at |x| (fp16, bf16; fp32 for lse). */
static double spacing(fia_dtype dt, double x)
{
    const int mant = dt == FIA_DT_FP16 ? 10 : dt == FIA_DT_BF16 ? 7 : 23;
    const int emin = dt == FIA_DT_FP16 ? -14 : -126;
    int e;
    frexp(fabs(x), &e); /* |x| in [2^(e-1), 2^e) */
    e = e - 1 < emin ? emin : e - 1;
    return ldexp(1.0, e - mant);
}

/* The fixed tolerance is tighter than the permitted algorithm's bound
 * where that bound is large (scores of large magnitude, docs/tolerance.md):
 * a flagged element is a disagreement only when |A - B| exceeds two
 * kernels' bound (the reference's, on the base case c) plus a rounding of
 * the output.  Clears the flags the bound explains; returns how many stay
 * (all of them when the reference cannot be computed). */
static int64_t beyond_bound(const fia_case *c, const fz_geom *g, int lse,
                            const double *a, const double *b, uint8_t *fail,
                            int64_t n, fia_dtype dt)
{
    int64_t left = 0;
    for (int64_t e = 0; e < n; e++)
        left += fail[e] != 0;
    fia_case_data d;
    if (left == 0 || fia_case_materialize(c, 1, &d, NULL) != FIA_OK)
        return left;
    fia_ref_options o;
    fia_ref_options_default(&o);
    fia_ref_result r;
    memset(&r, 0, sizeof r);
    if (fia_ref_compute(c, &d, &o, &r, NULL) == FIA_OK &&
        (lse ? r.has_lse != 0 : 1)) {
        const double *bound = lse ? r.lse_bound : r.out_bound;
        const int64_t D = lse ? 1 : g->D;
        for (int64_t e = 0; e < n; e++) {
            if (!fail[e])
                continue;
            const int64_t row = e / D, k = e % D, i = row % g->Q_S;
            const int64_t h = row / g->Q_S % g->N, bb = row / g->Q_S / g->N;
            const int64_t at = lse ? fz_lse_index(c, g, bb, h, i)
                                   : fz_out_index(c, g, bb, h, i, k);
            if (at < 0 || !isfinite(a[e]) || !isfinite(b[e]))
                continue;
            const double x = fabs(a[e]) > fabs(b[e]) ? a[e] : b[e];
            if (fabs(a[e] - b[e]) <= 2 * bound[at] + spacing(dt, x)) {
                fail[e] = 0;
                left--;
            }
        }
    }
    fia_ref_result_free(&r);
    fia_case_data_free(&d);
    return left;
}

/* The outputs of the two forms compared element by element, with twice
 * one kernel's tolerance (both forms carry an error). */
static void compare_forms(const fia_case *c, const fia_case *c2,
                          const fz_geom *g,
                          const char *transform, const form_out *fa,
                          const form_out *fb, fuzz_meta_result *r)
{
    uint8_t *unspec, *lunspec;
    int64_t nrows = g->B * g->N * g->Q_S;
    /* which elements differ: the signature's pattern */
    uint8_t *fail = calloc((size_t)(nrows * g->D + 1), 1);
    uint8_t *lfail = calloc((size_t)(nrows + 1), 1);
    if (fail == NULL || lfail == NULL ||
        unspecified_rows(c, g, &unspec, &lunspec) != FIA_OK) {
        free(fail);
        free(lfail);
        r->applicable = 0;
        return;
    }
    /* the mask as a pse: rows where masked (never read) and -inf (read
     * with weight 0) differ by the documents */
    if (strncmp(transform, "pse-mask=", 9) == 0 &&
        fz_pse_mask_unspecified(c, g, unspec, lunspec) != FIA_OK) {
        free(fail), free(lfail), free(unspec), free(lunspec);
        r->applicable = 0;
        return;
    }
    fia_tolerance tol = fia_tolerance_default(fa->out.dtype,
                                              (c->attrs.inner_precise & 1) == 0);
    tol.max_ulp *= 2, tol.rtol *= 2, tol.atol *= 2; /* two kernels' errors */
    /* When the permitted algorithm rounds P to the input dtype before P.V
     * (bf16; fp16 with inner_precise bit 0), each weight moves by up to u
     * of that dtype relative, so an output moves by up to u * sum p|v| / l
     * <= u * max|v| in absolute terms: an output that cancels (small
     * beside its values) differs between two paths by far more than its
     * own ulp, within the bound (docs/tolerance.md).  The largest |v| of
     * either form: a quantized base holds integers, not its values. */
    const int rounds_p = fa->out.dtype == FIA_DT_BF16 ||
                         (c->attrs.inner_precise & 1);
    if (rounds_p)
        tol.atol += 2 * (fa->out.dtype == FIA_DT_BF16 ? 0x1p-8 : 0x1p-11) *
                    fmax(max_abs_value(c), max_abs_value(c2));
    fia_compare_result m;
    int bad = fia_compare_tensor_fail(&fa->out, fa->out_d, unspec, &fb->out,
                                      &tol, &m, fail, NULL) != 0 ||
              !m.pass || m.n_nan_leak > 0;
    if (bad && m.n_nan_leak == 0 &&
        beyond_bound(c, g, 0, fa->out_d, fb->out_d, fail, nrows * g->D,
                     fa->out.dtype) == 0)
        bad = 0;
    r->max_ulp = m.max_ulp;
    if (bad) {
        r->finding = 1;
        r->worst_index = m.worst_index;
        r->worst_a = m.worst_ref, r->worst_b = m.worst_got;
        snprintf(r->message, sizeof r->message, "%s: attention_out differs in "
                 "%lld of %lld elements (max %.3g ulp; worst at BNSD index %lld: "
                 "A %.9g, B %.9g)", transform, (long long)(m.n_fail + m.n_nan_leak),
                 (long long)m.n_compared, m.max_ulp, (long long)m.worst_index,
                 m.worst_ref, m.worst_got);
    } else if (fa->has_lse && fb->has_lse && fa->lse_d && fb->lse_d) {
        fia_tolerance lt = fia_tolerance_default(FIA_DT_FP32, 1);
        lt.max_ulp *= 2, lt.rtol *= 2, lt.atol *= 2;
        /* When the permitted algorithm rounds P to the input dtype before
         * summing it (bf16; fp16 with inner_precise bit 0: docs/tolerance.md),
         * lse = m + log(sum p) may move by log(1 + u) ~ u of that dtype in
         * absolute terms, and two paths of one kernel may round differently:
         * an fp32-sized tolerance would call that a disagreement. */
        if (fa->out.dtype == FIA_DT_BF16 || (c->attrs.inner_precise & 1))
            lt.atol += 2 * (fa->out.dtype == FIA_DT_BF16 ? 0x1p-8 : 0x1p-11);
        memset(fail, 0, (size_t)(nrows * g->D));
        int lbad = fia_compare_tensor_fail(&fa->lse, fa->lse_d, lunspec,
                                           &fb->lse, &lt, &m, lfail,
                                           NULL) != 0 ||
                   !m.pass || m.n_nan_leak > 0;
        if (lbad && m.n_nan_leak == 0 &&
            beyond_bound(c, g, 1, fa->lse_d, fb->lse_d, lfail, nrows,
                         FIA_DT_FP32) == 0)
            lbad = 0;
        if (lbad) {
            r->finding = 1;
            r->worst_index = m.worst_index;
            r->worst_a = m.worst_ref, r->worst_b = m.worst_got;
            snprintf(r->message, sizeof r->message, "%s: softmax_lse differs in "
                     "%lld of %lld elements (worst at %lld: A %.9g, B %.9g)",
                     transform, (long long)(m.n_fail + m.n_nan_leak),
                     (long long)m.n_compared, (long long)m.worst_index,
                     m.worst_ref, m.worst_got);
        }
    }
    if (r->finding)
        fuzz_meta_signature(c, transform, fail, lfail, r->signature,
                            sizeof r->signature);
    free(unspec);
    free(lunspec);
    free(fail);
    free(lfail);
}

void fuzz_meta_check(const fia_case *c, const char *transform,
                     fia_profile profile, fuzz_meta_result *r)
{
    memset(r, 0, sizeof *r);
    r->worst_index = -1;
    fz_geom g;
    fia_case c2;
    if (base_geometry(c, transform, &g) != 0 ||
        fuzz_meta_transform(c, transform, &c2, NULL) != FIA_OK)
        return;
    const fia_case *forms[2] = {c, &c2};
    if (!forms_pass(forms, profile, r)) {
        fia_case_free(&c2);
        return;
    }
    r->applicable = 1;
    form_out fa, fb;
    fia_error ea, eb;
    /* mla-heads-rev: the second form's head h is the first's N - 1 - h */
    const int rev = strcmp(transform, "mla-heads-rev") == 0;
    fia_status sa = run_form(c, &g, 0, profile, &fa, &ea);
    fia_status sb = run_form(&c2, &g, rev, profile, &fb, &eb);
    snprintf(r->kind, sizeof r->kind, "metamorphic");
    fuzz_meta_signature(c, transform, NULL, NULL, r->signature,
                        sizeof r->signature);
    if (sa != FIA_OK || sb != FIA_OK || !fa.out_d || !fb.out_d) {
        r->finding = 1;
        snprintf(r->message, sizeof r->message, "phase two failed: A %d %.200s; "
                 "B %d %.200s", sa, ea.msg, sb, eb.msg);
    } else {
        fuzz_report_computed(c);
        compare_forms(c, &c2, &g, transform, &fa, &fb, r);
    }
    form_free(&fa);
    form_free(&fb);
    fia_case_free(&c2);
}
