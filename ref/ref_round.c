/* ref/: correctly rounded narrowing to fp16 / bf16 / fp32 in MPFR, and the
 * bit encoding of the result.  Independent of core/'s conversions.
 *
 * MPFR writes a nonzero x as m * 2^E with 0.5 <= |m| < 1.  In that
 * convention:
 *   fp16: 11 bits, largest 65504 = (1 - 2^-11) 2^16       -> emax 16,
 *         smallest subnormal 2^-24 = 0.5 * 2^-23          -> emin -23;
 *   bf16:  8 bits, largest (1 - 2^-8) 2^128               -> emax 128,
 *         smallest subnormal 2^-133                       -> emin -132;
 *   fp32: 24 bits, largest (1 - 2^-24) 2^128              -> emax 128,
 *         smallest subnormal 2^-149                       -> emin -148.
 * Rounding: mpfr_set to the format's precision in the full exponent range,
 * then mpfr_check_range + mpfr_subnormalize in the format's range, passing
 * the ternary value along so that no double rounding occurs (the idiom of
 * the MPFR manual, "mpfr_subnormalize"). */
#include <math.h>
#include <string.h>
#include "ref_internal.h"

typedef struct fmt_info {
    int prec;
    mpfr_exp_t emin, emax;
} fmt_info;

static const fmt_info FMT[3] = {
    [REF_FMT_FP16] = {11, -23, 16},
    [REF_FMT_BF16] = {8, -132, 128},
    [REF_FMT_FP32] = {24, -148, 128},
};

int ref_fmt_prec(ref_fmt f)
{
    return FMT[f].prec;
}

int ref_round_fmt(mpfr_t y, const mpfr_t x, ref_fmt f)
{
    if (mpfr_nan_p(x)) {
        mpfr_set_nan(y);
        return 0;
    }
    mpfr_exp_t old_emin = mpfr_get_emin(), old_emax = mpfr_get_emax();
    /* Rounded to the format's precision, unbounded exponent. */
    int t = mpfr_set(y, x, MPFR_RNDN);
    mpfr_set_emin(FMT[f].emin);
    mpfr_set_emax(FMT[f].emax);
    t = mpfr_check_range(y, t, MPFR_RNDN);   /* overflow -> inf */
    t = mpfr_subnormalize(y, t, MPFR_RNDN);  /* gradual underflow */
    mpfr_set_emin(old_emin);
    mpfr_set_emax(old_emax);
    return t;
}

static uint32_t encode_fp16(const mpfr_t y)
{
    if (mpfr_nan_p(y))
        return 0x7E00u;
    uint32_t sign = mpfr_signbit(y) ? 0x8000u : 0u;
    if (mpfr_inf_p(y))
        return sign | 0x7C00u;
    if (mpfr_zero_p(y))
        return sign;
    double a = fabs(mpfr_get_d(y, MPFR_RNDN)); /* exact: 11 bits */
    int e;
    double fr = frexp(a, &e); /* a = fr * 2^e, 0.5 <= fr < 1 */
    if (e <= -14) {
        /* subnormal: a = mant * 2^-24 */
        uint32_t mant = (uint32_t)ldexp(a, 24);
        return sign | mant;
    }
    uint32_t biased = (uint32_t)(e + 14);            /* (e - 1) + 15 */
    uint32_t mant = (uint32_t)ldexp(fr, 11) - 1024u; /* drop the implicit 1 */
    return sign | (biased << 10) | mant;
}

static uint32_t float_bits(float fl)
{
    uint32_t u;
    memcpy(&u, &fl, sizeof u);
    return u;
}

static uint32_t encode_fp32(const mpfr_t y)
{
    if (mpfr_nan_p(y))
        return 0x7FC00000u;
    uint32_t sign = mpfr_signbit(y) ? 0x80000000u : 0u;
    if (mpfr_inf_p(y))
        return sign | 0x7F800000u;
    if (mpfr_zero_p(y))
        return sign;
    /* The value is representable in binary32 (and binary64): both
     * conversions are exact. */
    double a = fabs(mpfr_get_d(y, MPFR_RNDN));
    return sign | float_bits((float)a);
}

uint32_t ref_encode_fmt(const mpfr_t y, ref_fmt f)
{
    switch (f) {
    case REF_FMT_FP16:
        return encode_fp16(y);
    case REF_FMT_BF16:
        if (mpfr_nan_p(y))
            return 0x7FC0u;
        /* a bf16 value is a binary32 whose low 16 bits are zero */
        return encode_fp32(y) >> 16;
    case REF_FMT_FP32:
    default:
        return encode_fp32(y);
    }
}

uint32_t ref_round_double_bits(double x, ref_fmt f)
{
    mpfr_t xm, y;
    mpfr_init2(xm, 53);
    mpfr_init2(y, ref_fmt_prec(f));
    mpfr_set_d(xm, x, MPFR_RNDN); /* exact */
    ref_round_fmt(y, xm, f);
    uint32_t bits = ref_encode_fmt(y, f);
    mpfr_clear(xm);
    mpfr_clear(y);
    return bits;
}

/* Plain-double version of ref_round_fmt + ref_encode_fmt.  A nonzero finite
 * x = fr 2^e (0.5 <= fr < 1) is rounded to the quantum 2^q with
 * q = max(e - prec, emin - 1) (the subnormal quantum below the normal
 * range): x / 2^q and back are exact scalings, rint rounds to nearest even
 * (the default rounding mode).  A result reaching 2^emax overflows. */
double ref_round_double_value(double x, ref_fmt f)
{
    const fmt_info *fi = &FMT[f];
    if (isnan(x) || isinf(x) || x == 0.0)
        return x;
    double ax = fabs(x);
    int e;
    frexp(ax, &e);
    if (e > fi->emax)
        return copysign(INFINITY, x);
    int q = e - fi->prec;
    if (q < (int)fi->emin - 1)
        q = (int)fi->emin - 1;
    double y = ldexp(rint(ldexp(ax, -q)), q);
    frexp(y, &e);
    if (y != 0.0 && e > fi->emax)
        return copysign(INFINITY, x);
    return copysign(y, x);
}

uint32_t ref_round_double_fmt(double x, ref_fmt f)
{
    int fp16 = f == REF_FMT_FP16;
    uint32_t inf = fp16 ? 0x7C00u : f == REF_FMT_BF16 ? 0x7F80u : 0x7F800000u;
    uint32_t sbit = fp16 || f == REF_FMT_BF16 ? 0x8000u : 0x80000000u;
    if (isnan(x))
        return fp16 ? 0x7E00u : f == REF_FMT_BF16 ? 0x7FC0u : 0x7FC00000u;
    uint32_t sign = signbit(x) ? sbit : 0u;
    double y = fabs(ref_round_double_value(x, f));
    if (isinf(y))
        return sign | inf;
    if (y == 0.0)
        return sign;
    if (!fp16) {
        uint32_t b = float_bits((float)y); /* exact */
        return sign | (f == REF_FMT_BF16 ? b >> 16 : b);
    }
    int e;
    frexp(y, &e);
    if (e <= -14)
        return sign | (uint32_t)ldexp(y, 24); /* subnormal */
    double fr = frexp(y, &e);
    return sign | ((uint32_t)(e + 14) << 10) | ((uint32_t)ldexp(fr, 11) - 1024u);
}
