/* compare/tolerance: the tolerance profiles (include/fia/compare.h,
 * docs/tolerance.md).  The bound profile judges each element against the
 * per-element bound ref/ evaluates from the data; the others are the usual
 * fixed criteria, kept for comparison with other test suites. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "fia/compare.h"
#include "fia/dtype.h"

static const char *const prof_names[FIA_TOL_COUNT] = {
    "bound", "flash-attn", "vendor", "allclose", "ulp", "cann-double"};

const char *fia_tol_profile_name(fia_tol_profile p)
{
    if ((int)p < 0 || p >= FIA_TOL_COUNT)
        return "unknown";
    return prof_names[p];
}

int fia_tol_profile_parse(const char *s, fia_tol_profile *out)
{
    for (int i = 0; i < FIA_TOL_COUNT; i++)
        if (s && strcmp(s, prof_names[i]) == 0) {
            *out = (fia_tol_profile)i;
            return 0;
        }
    return -1;
}

/* Bits of element i (8, 16 or 32 bits). */
static uint32_t bits_at(const fia_tensor *t, int64_t i)
{
    if (t->dtype == FIA_DT_INT8)
        return ((const uint8_t *)t->data)[i];
    if (t->dtype == FIA_DT_FP32) {
        uint32_t u;
        memcpy(&u, (const uint8_t *)t->data + 4 * i, 4);
        return u;
    }
    uint16_t h;
    memcpy(&h, (const uint8_t *)t->data + 2 * i, 2);
    return h;
}

/* Monotone integer line of the format (+0 and -0 both 0, inf beyond the
 * largest finite value). */
static int64_t ord_bits(fia_dtype dt, uint32_t b)
{
    if (dt == FIA_DT_INT8) /* an int8 output: the integer itself */
        return (int8_t)(uint8_t)b;
    if (dt == FIA_DT_FP32) {
        int64_t mag = b & 0x7fffffffu;
        return (b & 0x80000000u) ? -mag : mag;
    }
    int64_t mag = b & 0x7fffu;
    return (b & 0x8000u) ? -mag : mag;
}

/* x rounded to nearest even in dt (core's conversions: plain data). */
static uint32_t round_bits(fia_dtype dt, double x)
{
    switch (dt) {
    case FIA_DT_FP16:
        return fia_double_to_fp16(x);
    case FIA_DT_BF16:
        return fia_double_to_bf16(x);
    default: {
        /* binary64 -> binary32 nearest even: the C conversion, default
         * rounding mode */
        float f = (float)x;
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    }
}

/* Half an ulp of the format at |x| (for the tightness ratio). */
static double half_ulp(fia_dtype dt, double x)
{
    if (dt == FIA_DT_INT8)
        return 0.5;
    int prec = dt == FIA_DT_FP16 ? 11 : dt == FIA_DT_BF16 ? 8 : 24;
    int emin = dt == FIA_DT_FP16 ? -14 : -126;
    int e;
    frexp(fabs(x), &e);
    if (x == 0 || e - 1 < emin)
        e = emin + 1;
    return ldexp(1.0, e - 1 - prec);
}

typedef struct elem {
    int ok;       /* within */
    int leak;     /* non-finite result, finite reference */
    double ratio; /* profile measure */
} elem;

static elem judge_bound(fia_dtype dt, double exact, uint32_t refb,
                        uint32_t gotb, double g, double bound)
{
    elem e = {0, 0, 0.0};
    if (bound == 0.0) { /* documented exact value: bit for bit */
        e.ok = refb == gotb;
        e.ratio = e.ok ? 0.0 : INFINITY;
        e.leak = !e.ok && !isfinite(g);
        return e;
    }
    double w = bound * (1.0 + 0x1p-40) + fabs(exact) * 0x1p-50;
    int64_t lo, hi;
    if (dt == FIA_DT_INT8) {
        /* an int8 output (docs/features/int8_out.md): any integer a
         * rounding of a value within w gives, ties either way, saturated */
        lo = (int64_t)fmin(fmax(ceil(exact - w - 0.5), -128.0), 127.0);
        hi = (int64_t)fmin(fmax(floor(exact + w + 0.5), -128.0), 127.0);
    } else {
        lo = ord_bits(dt, round_bits(dt, exact - w));
        hi = ord_bits(dt, round_bits(dt, exact + w));
    }
    int64_t o = ord_bits(dt, gotb);
    e.ok = !isnan(g) && lo <= o && o <= hi;
    e.leak = !e.ok && !isfinite(g);
    e.ratio = isfinite(g) ? fabs(g - exact) / (bound + half_ulp(dt, exact))
                          : (e.ok ? 0.0 : INFINITY);
    return e;
}

static void vendor_tol(fia_dtype dt, double *rtol, double *atol)
{
    if (dt == FIA_DT_BF16) {
        *rtol = 0x1p-7;
        *atol = 1e-4;
    } else {
        *rtol = 0.005;
        *atol = 2.5e-5;
    }
}

/* Max |plain - exact| over the compared finite elements. */
static double plain_max_err(const fia_compare_ref *ref, int64_t n)
{
    double mx = 0.0;
    for (int64_t i = 0; i < n; i++) {
        if (ref->unspecified && ref->unspecified[i])
            continue;
        double x = ref->exact[i];
        double pl = fia_load_as_double(ref->plain->dtype, ref->plain->data, i);
        if (isfinite(x) && isfinite(pl) && fabs(pl - x) > mx)
            mx = fabs(pl - x);
    }
    return mx;
}

/* The inputs a profile needs: got like the reference (dtype, size), data,
 * the exact values, the bound (bound profile), the plain implementation
 * (flash-attn). */
static fia_status check_inputs(fia_tol_profile prof, const fia_compare_ref *ref,
                               const fia_tensor *got, int64_t n,
                               fia_error *err)
{
    const fia_tensor *rt = ref->rounded;
    if (n < 0 || rt->dtype != got->dtype || fia_tensor_numel(got) != n)
        return fia_fail(err, FIA_ERR_BAD_INPUT,
                        "compare: %s with %lld elements against a %s "
                        "reference with %lld", fia_dtype_name(got->dtype),
                        (long long)fia_tensor_numel(got),
                        fia_dtype_name(rt->dtype), (long long)n);
    if (n > 0 && (rt->data == NULL || got->data == NULL || !ref->exact))
        return fia_fail(err, FIA_ERR_BAD_INPUT,
                        "compare: a tensor or the exact values without data");
    if (n > 0 && prof == FIA_TOL_BOUND && ref->bound == NULL)
        return fia_fail(err, FIA_ERR_BAD_INPUT,
                        "compare: the bound profile without bounds");
    if (prof == FIA_TOL_FLASH_ATTN &&
        (ref->plain == NULL || ref->plain->dtype != rt->dtype ||
         fia_tensor_numel(ref->plain) != n || (n > 0 && !ref->plain->data)))
        return fia_fail(err, FIA_ERR_BAD_INPUT, "compare: the flash-attn "
                        "profile without a plain result like the reference");
    return FIA_OK;
}

/* The verdict on element i: reference rv (bits rb, exact x), result g (bits
 * gb).  flash_lim: the flash-attn limit; rtol / atol: allclose and vendor. */
static elem judge(fia_tol_profile prof, fia_dtype dt,
                  const fia_compare_ref *ref, int64_t i, double rv,
                  uint32_t rb, double x, double g, uint32_t gb, double rtol,
                  double atol, double flash_lim)
{
    elem e = {0, 0, 0.0};
    if (!isfinite(rv) && !(prof == FIA_TOL_BOUND && isinf(rv) &&
                           isfinite(x))) {
        e.ok = isnan(rv) ? isnan(g) : g == rv;
        e.ratio = e.ok ? 0.0 : INFINITY;
    } else if (prof == FIA_TOL_BOUND) {
        e = judge_bound(dt, x, rb, gb, g, ref->bound[i]);
    } else if (!isfinite(g)) {
        e.leak = 1;
        e.ratio = INFINITY;
    } else {
        double err = fabs(g - x);
        if (prof == FIA_TOL_FLASH_ATTN) {
            e.ok = err <= flash_lim;
            e.ratio = flash_lim > 0 ? err / flash_lim
                                    : (err > 0 ? INFINITY : 0.0);
        } else if (prof == FIA_TOL_VENDOR) {
            double den = fmax(fmax(fabs(g), fabs(x)), 0x1p-14 / 0.005);
            e.ok = err <= atol + rtol * fabs(x);
            e.ratio = err / den;
        } else {
            double lim = atol + rtol * fabs(x);
            e.ok = err <= lim;
            e.ratio = lim > 0 ? err / lim : (err > 0 ? INFINITY : 0.0);
        }
    }
    return e;
}

/* Adds element i's verdict to the counters and the worst element. */
static void tally(fia_compare_result *r, const elem *e, fia_dtype dt,
                  int64_t i, double rv, uint32_t rb, double x, double g,
                  uint32_t gb, double *worst)
{
    if (isfinite(rv) && isfinite(g)) {
        int64_t a = ord_bits(dt, rb), b = ord_bits(dt, gb);
        double ulp = (double)(a > b ? a - b : b - a);
        double rel = x != 0 ? fabs(g - x) / fabs(x) : fabs(g);
        r->max_ulp = ulp > r->max_ulp ? ulp : r->max_ulp;
        r->max_rel_err = rel > r->max_rel_err ? rel : r->max_rel_err;
        if (ulp > *worst) {
            *worst = ulp;
            r->worst_index = i, r->worst_ref = rv, r->worst_got = g;
        }
    } else if (!e->ok) {
        r->max_ulp = INFINITY;
        r->worst_index = i, r->worst_ref = rv, r->worst_got = g;
        *worst = INFINITY;
    }
    if (e->ratio > r->max_ratio || isnan(e->ratio))
        r->max_ratio = e->ratio;
    if (e->ok)
        r->n_within++;
    else
        r->n_fail++;
    if (e->leak)
        r->n_nan_leak++;
}

fia_status fia_compare_profile(fia_tol_profile prof, double rtol, double atol,
                               const fia_compare_ref *ref,
                               const fia_tensor *got, fia_compare_result *r,
                               fia_error *err)
{
    return fia_compare_profile_fail(prof, rtol, atol, ref, got, r, NULL, err);
}

fia_status fia_compare_profile_fail(fia_tol_profile prof, double rtol,
                                    double atol, const fia_compare_ref *ref,
                                    const fia_tensor *got,
                                    fia_compare_result *r, uint8_t *fail,
                                    fia_error *err)
{
    if (r == NULL)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "compare: no result to fill");
    if (prof == FIA_TOL_CANN_DOUBLE)
        prof = FIA_TOL_BOUND; /* its per-element verdict; the benchmark
                                 comparison is over the case (cann) */
    memset(r, 0, sizeof *r);
    r->worst_index = -1;
    r->worst_ref = r->worst_got = NAN;
    if (ref == NULL || ref->rounded == NULL || got == NULL)
        return fia_fail(err, FIA_ERR_BAD_INPUT,
                        "compare: no reference or result");
    const fia_tensor *rt = ref->rounded;
    if (prof == FIA_TOL_ULP) {
        fia_tolerance t = fia_tolerance_default(rt->dtype, 1);
        return fia_compare_tensor_fail(rt, ref->exact, ref->unspecified, got,
                                       &t, r, fail, err);
    }
    int64_t n = fia_tensor_numel(rt);
    fia_status st = check_inputs(prof, ref, got, n, err);
    if (st != FIA_OK)
        return st;
    const fia_dtype dt = rt->dtype;
    if (prof == FIA_TOL_VENDOR)
        vendor_tol(dt, &rtol, &atol);
    const double flash_lim = prof == FIA_TOL_FLASH_ATTN
                                 ? 2.0 * plain_max_err(ref, n) : 0.0;
    r->n_total = n;
    if (fail != NULL && n > 0)
        memset(fail, 0, (size_t)n);
    double worst = -1;
    for (int64_t i = 0; i < n; i++) {
        if (ref->unspecified && ref->unspecified[i]) {
            r->n_unspecified++;
            continue;
        }
        if (prof == FIA_TOL_BOUND && !(ref->bound[i] < INFINITY)) {
            r->n_unspecified++; /* outside the error model */
            continue;
        }
        r->n_compared++;
        uint32_t rb = bits_at(rt, i), gb = bits_at(got, i);
        double rv = fia_load_as_double(dt, rt->data, i);
        double g = fia_load_as_double(dt, got->data, i);
        double x = ref->exact[i];
        if (dt == FIA_DT_INT8 && isfinite(x))
            /* an int8 output saturates: the distances are to the clamped
             * value (sat(round(y)) = round(clamp(y)), clamp 1-Lipschitz) */
            x = fmin(fmax(x, -128.0), 127.0);
        elem e = judge(prof, dt, ref, i, rv, rb, x, g, gb, rtol, atol,
                       flash_lim);
        tally(r, &e, dt, i, rv, rb, x, g, gb, &worst);
        if (fail != NULL)
            fail[i] = (uint8_t)fia_fail_code_of(e.ok, g, e.ratio);
    }
    if (prof == FIA_TOL_VENDOR) {
        /* tensor criteria: 99.5 % within, largest relative error < 10 */
        int enough = r->n_compared == 0 ||
                     (double)r->n_within >= 0.995 * (double)r->n_compared;
        r->pass = enough && r->max_ratio < 10 && r->n_nan_leak == 0;
    } else {
        r->pass = r->n_fail == 0;
    }
    fia_error_clear(err);
    return FIA_OK;
}
