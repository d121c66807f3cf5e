/* compare/compare: element-wise comparison of fast/'s output with ref/.
 *
 * Distance in ulps: every value of the output dtype is mapped to an integer
 * on a line that is monotone in the value (+0 and -0 both map to 0), so the
 * distance between two values is the number of representable steps between
 * them, across zero included.
 *
 * Default tolerances (fia_tolerance_default) — first model, to be replaced by
 * the refined error model.  What a correct kernel that accumulates in float32
 * can be off by, before the final rounding, on normal(0,1) data with D <= 128
 * and KV_S <= 2048:
 *   - scores: a float32 dot product of D terms, absolute error about
 *     sqrt(D) * 2^-24 * |q||k| ~ 1e-5 (worst ~1e-4 when scale = 1);
 *   - exp, row sum and P·V in float32: relative ~ sqrt(KV_S) * 2^-24 ~ 3e-6;
 *   - the released pipeline rounds P to the input dtype before P·V
 *     (RELEASED "Numeric pipeline"): relative 2^-11 per p for fp16 and 2^-8
 *     for bf16.  The resulting output error is a random walk of those
 *     roundings weighted by p_j·v_j, at most unit-roundoff · Σ p_j|v_j| / Σ p_j
 *     (~0.8 · u for normal v).
 * After the final correctly rounded store, an error below 1.5 ulp of the
 * output keeps the result within 2 ulps of the correctly rounded reference.
 * Where the output is small through cancellation (|out| << |v|), the error
 * above is absolute, not relative, and ulps there are tiny: atol absorbs it.
 *   fp16, high precision (inner_precise bit 0 = 0): max_ulp 2, rtol 2^-10,
 *     atol 2^-11 (~4.9e-4: covers P rounded to fp16 in case the kernel does
 *     it in this mode too, at u·Σp|v| ≲ 0.8·2^-11).
 *   fp16, high performance: max_ulp 4, rtol 2^-9, atol 2^-10.
 *   bf16 (no precision modes): max_ulp 2, rtol 2^-7, atol 2^-8 (P rounded
 *     to bf16: 0.8·2^-8 worst case).
 *   fp32 (softmax_lse, |lse| ~ 1..50): max_ulp 64, rtol 1e-5, atol 1e-5
 *     (score error ~1e-5 absolute carries into lse one for one).
 * Checked by a throwaway simulation (normal(0,1) inputs exact in the dtype,
 * D = 128, KV_S 16..2048, scale 1/sqrt(D)..3, float32 scores/exp/sums,
 * with and without P rounded to fp16/bf16): no false alarm; the worst
 * element used 0.6 of the tolerance (fp16 with P rounded, high-precision
 * tolerance; 0.3 with the high-performance tolerance; bf16 0.6).
 * Gross errors stay far outside: a missing scale or a wrong mask moves an
 * output by O(0.01..1) for such data, i.e. hundreds of ulps and well above
 * atol + rtol·|out|.  Integer outputs (int8, not modeled yet) must match. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "fia/compare.h"
#include "fia/dtype.h"

fia_tolerance fia_tolerance_default(fia_dtype dt, int high_precision)
{
    fia_tolerance t;
    switch (dt) {
    case FIA_DT_FP16:
        if (high_precision) {
            t.max_ulp = 2;
            t.rtol = 0x1p-10;
            t.atol = 0x1p-11;
        } else {
            t.max_ulp = 4;
            t.rtol = 0x1p-9;
            t.atol = 0x1p-10;
        }
        break;
    case FIA_DT_BF16:
        t.max_ulp = 2;
        t.rtol = 0x1p-7;
        t.atol = 0x1p-8;
        break;
    case FIA_DT_FP32:
        t.max_ulp = 64;
        t.rtol = 1e-5;
        t.atol = 1e-5;
        break;
    default:
        t.max_ulp = 0;
        t.rtol = 0;
        t.atol = 0;
        break;
    }
    return t;
}

/* Position of element i on the monotone integer line of its dtype; for
 * non-float dtypes the integer value itself. */
static int64_t ordinal(const fia_tensor *t, int64_t i)
{
    switch (t->dtype) {
    case FIA_DT_FP16:
    case FIA_DT_BF16: {
        uint16_t h;
        memcpy(&h, (const uint8_t *)t->data + 2 * i, 2);
        int64_t mag = h & 0x7fff;
        return (h & 0x8000) ? -mag : mag;
    }
    case FIA_DT_FP32: {
        uint32_t u;
        memcpy(&u, (const uint8_t *)t->data + 4 * i, 4);
        int64_t mag = u & 0x7fffffffu;
        return (u & 0x80000000u) ? -mag : mag;
    }
    default:
        return (int64_t)fia_load_as_double(t->dtype, t->data, i);
    }
}

fia_fail_code fia_fail_code_of(int ok, double got, double ratio)
{
    if (ok)
        return FIA_FAIL_NONE;
    if (!isfinite(got) || isnan(ratio))
        return FIA_FAIL_NONFINITE;
    return ratio < 10 ? FIA_FAIL_NEAR : ratio <= 1e3 ? FIA_FAIL_FAR
                                                     : FIA_FAIL_GROSS;
}

fia_status fia_compare_tensor(const fia_tensor *ref_rounded,
                              const double *ref_exact,
                              const uint8_t *unspecified, const fia_tensor *got,
                              const fia_tolerance *tol, fia_compare_result *r,
                              fia_error *err)
{
    return fia_compare_tensor_fail(ref_rounded, ref_exact, unspecified, got,
                                   tol, r, NULL, err);
}

fia_status fia_compare_tensor_fail(const fia_tensor *ref_rounded,
                                   const double *ref_exact,
                                   const uint8_t *unspecified,
                                   const fia_tensor *got,
                                   const fia_tolerance *tol,
                                   fia_compare_result *r, uint8_t *fail,
                                   fia_error *err)
{
    if (r == NULL)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "compare: no result to fill");
    memset(r, 0, sizeof *r);
    r->worst_index = -1;
    r->worst_ref = r->worst_got = NAN;
    if (ref_rounded == NULL || got == NULL || tol == NULL)
        return fia_fail(err, FIA_ERR_BAD_INPUT,
                        "compare: no reference, result or tolerance");
    int64_t n = fia_tensor_numel(ref_rounded);
    if (n < 0 || ref_rounded->dtype != got->dtype ||
        fia_tensor_numel(got) != n)
        return fia_fail(err, FIA_ERR_BAD_INPUT,
                        "compare: %s with %lld elements against a %s "
                        "reference with %lld", fia_dtype_name(got->dtype),
                        (long long)fia_tensor_numel(got),
                        fia_dtype_name(ref_rounded->dtype), (long long)n);
    if (n > 0 && (ref_rounded->data == NULL || got->data == NULL))
        return fia_fail(err, FIA_ERR_BAD_INPUT, "compare: a tensor without "
                        "data");
    r->n_total = n;
    if (fail != NULL && n > 0)
        memset(fail, 0, (size_t)n);

    double worst = -1;
    for (int64_t i = 0; i < n; i++) {
        if (unspecified && unspecified[i]) {
            r->n_unspecified++;
            continue;
        }
        r->n_compared++;
        double ref = fia_load_as_double(ref_rounded->dtype, ref_rounded->data,
                                        i);
        double g = fia_load_as_double(got->dtype, got->data, i);
        double exact = ref_exact ? ref_exact[i] : ref;
        double ulp, ratio = INFINITY;
        int ok;
        if (!isfinite(ref)) {
            /* NaN must be NaN; +-inf must be the same infinity. */
            ok = isnan(ref) ? isnan(g) : (g == ref);
            ulp = ok ? 0 : INFINITY;
        } else if (!isfinite(g)) {
            ok = 0;
            ulp = INFINITY;
            r->n_nan_leak++;
        } else {
            int64_t a = ordinal(ref_rounded, i), b = ordinal(got, i);
            ulp = (double)(a > b ? a - b : b - a);
            double err = fabs(g - exact);
            double rel = exact != 0 ? err / fabs(exact) : fabs(g);
            if (rel > r->max_rel_err)
                r->max_rel_err = rel;
            double lim = tol->rtol * fabs(exact) + tol->atol;
            ok = ulp <= tol->max_ulp || err <= lim;
            /* how far outside: the nearer of the two criteria */
            double by_ulp = tol->max_ulp > 0 ? ulp / tol->max_ulp : INFINITY;
            double by_err = lim > 0 ? err / lim : INFINITY;
            ratio = by_ulp < by_err ? by_ulp : by_err;
        }
        if (fail != NULL)
            fail[i] = (uint8_t)fia_fail_code_of(ok, g, ratio);
        if (ulp > r->max_ulp)
            r->max_ulp = ulp;
        if (ulp > worst) {
            worst = ulp;
            r->worst_index = i;
            r->worst_ref = ref;
            r->worst_got = g;
        }
        if (!ok)
            r->n_fail++;
    }
    r->pass = r->n_fail == 0;
    fia_error_clear(err);
    return FIA_OK;
}
