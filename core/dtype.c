/* Element types: names, sizes, exact widening and nearest-even narrowing.
 *
 * Narrowing works on the binary64 bit pattern with integer arithmetic so the
 * result does not depend on the FPU's rounding mode or on double rounding
 * through float. */
#include <math.h>
#include <string.h>
#include "fia/dtype.h"

static const char *const dtype_names[FIA_DT_COUNT] = {
    [FIA_DT_INVALID] = "invalid", [FIA_DT_FP16] = "fp16",
    [FIA_DT_BF16] = "bf16",       [FIA_DT_FP32] = "fp32",
    [FIA_DT_INT8] = "int8",       [FIA_DT_UINT8] = "uint8",
    [FIA_DT_INT4] = "int4",       [FIA_DT_INT32] = "int32",
    [FIA_DT_INT64] = "int64",     [FIA_DT_UINT64] = "uint64",
    [FIA_DT_BOOL] = "bool",
};

static const int dtype_bits[FIA_DT_COUNT] = {
    [FIA_DT_FP16] = 16, [FIA_DT_BF16] = 16,  [FIA_DT_FP32] = 32,
    [FIA_DT_INT8] = 8,  [FIA_DT_UINT8] = 8,  [FIA_DT_INT4] = 4,
    [FIA_DT_INT32] = 32, [FIA_DT_INT64] = 64, [FIA_DT_UINT64] = 64,
    [FIA_DT_BOOL] = 8,
};

const char *fia_dtype_name(fia_dtype dt)
{
    if ((int)dt <= 0 || dt >= FIA_DT_COUNT)
        return "invalid";
    return dtype_names[dt];
}

fia_dtype fia_dtype_from_name(const char *name)
{
    if (name == NULL)
        return FIA_DT_INVALID;
    for (int i = 1; i < FIA_DT_COUNT; i++)
        if (strcmp(name, dtype_names[i]) == 0)
            return (fia_dtype)i;
    return FIA_DT_INVALID;
}

int fia_dtype_bits(fia_dtype dt)
{
    if ((int)dt <= 0 || dt >= FIA_DT_COUNT)
        return 0;
    return dtype_bits[dt];
}

size_t fia_dtype_storage(fia_dtype dt, int64_t n)
{
    int bits = fia_dtype_bits(dt);
    if (n <= 0 || bits == 0)
        return 0;
    if (bits == 4)
        return (size_t)((n + 1) / 2);
    return (size_t)n * (size_t)(bits / 8);
}

int fia_dtype_is_float(fia_dtype dt)
{
    return dt == FIA_DT_FP16 || dt == FIA_DT_BF16 || dt == FIA_DT_FP32;
}

/* ---- widening (exact) ---- */

double fia_fp16_to_double(uint16_t h)
{
    int sign = h >> 15;
    int e = (h >> 10) & 0x1f;
    int m = h & 0x3ff;
    double v;
    if (e == 0x1f)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = (double)m * 0x1p-24; /* exact */
    else { /* the same value as a binary64 encoding */
        uint64_t u = ((uint64_t)(e - 15 + 1023) << 52) | ((uint64_t)m << 42);
        memcpy(&v, &u, sizeof v);
    }
    return sign ? -v : v;
}

double fia_bf16_to_double(uint16_t b)
{
    return (double)fia_bf16_to_float(b);
}

float fia_fp16_to_float(uint16_t h)
{
    return (float)fia_fp16_to_double(h);
}

float fia_bf16_to_float(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- narrowing (nearest even) ----
 * Generic: round |x| to a binary format with `mant` explicit mantissa bits,
 * minimum normal exponent emin and maximum exponent emax; returns the
 * format's bit pattern without sign.  Uses the double's bits: x = M * 2^E
 * with 53-bit M. */
static uint32_t round_to_format(double ax, int mant, int emin, int emax,
                                int ebits)
{
    uint32_t inf_bits = ((1u << ebits) - 1) << mant;
    if (isnan(ax))
        return inf_bits | (1u << (mant - 1));
    if (isinf(ax))
        return inf_bits;
    if (ax == 0.0)
        return 0;
    /* ax = 1.f * 2^exp, its significand as a 53-bit integer: ax = sig *
     * 2^(exp - 52), read from the encoding (frexp / ldexp cost more than
     * the rest: the data of every case passes here).  A subnormal double
     * lies below half the least subnormal of every format here: 0. */
    uint64_t u;
    memcpy(&u, &ax, sizeof u);
    const int efield = (int)(u >> 52) & 0x7ff;
    if (efield == 0)
        return 0;
    int exp = efield - 1023;
    uint64_t sig = (u & ((1ull << 52) - 1)) | (1ull << 52);
    /* Number of low bits to drop to keep `mant` fraction bits (normal), or
     * more for subnormals. */
    int shift = 52 - mant;
    int biased;
    if (exp < emin) {
        shift += emin - exp;
        biased = 0;
    } else {
        biased = exp - emin + 1;
    }
    /* sig < 2^53, so beyond 53 dropped bits it is below half a unit. */
    if (shift > 53)
        return 0;
    uint64_t kept = sig >> shift;
    uint64_t rem = sig & ((1ull << shift) - 1);
    uint64_t half = 1ull << (shift - 1);
    if (rem > half || (rem == half && (kept & 1)))
        kept++;
    uint32_t bits;
    if (biased == 0) {
        /* Subnormal: kept counts units of 2^(emin - mant); it may carry
         * into the smallest normal, which has the same encoding. */
        bits = (uint32_t)kept;
    } else {
        /* kept includes the hidden bit: value in [2^mant, 2^(mant+1)]. */
        if (kept >> (mant + 1)) {
            kept >>= 1;
            biased++;
        }
        if (exp > emax || biased >= (1 << ebits) - 1)
            return inf_bits;
        bits = ((uint32_t)biased << mant) | ((uint32_t)kept & ((1u << mant) - 1));
    }
    return bits;
}

/* The common case first: |x| whose binary64 exponent is one of the
 * format's normal exponents (emin..emax) rounds on its encoding alone.
 * The exponent and fraction fields, read as one integer, are rounded to
 * the format's fraction bits (nearest, ties to even: add half a unit less
 * one, plus the kept last bit, and drop); a carry out of the fraction moves
 * into the exponent as it should, up to the format's infinity (all ones,
 * fraction 0) past its largest finite value; then the exponent is rebiased.
 * This is what round_to_format computes for those inputs (one rounding of
 * the exact value); anything else (format subnormals, zeros, non-finite,
 * too large) goes to it. */
static inline uint32_t round_normal(uint64_t a, int mant, int bias)
{
    const int drop = 52 - mant;
    const uint64_t r =
        (a + ((1ull << (drop - 1)) - 1) + ((a >> drop) & 1)) >> drop;
    return (uint32_t)(r - ((uint64_t)(1023 - bias) << mant));
}

uint16_t fia_double_to_fp16(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    const uint16_t s = (uint16_t)((u >> 48) & 0x8000);
    const uint64_t a = u & 0x7fffffffffffffffull;
    const uint64_t ef = a >> 52;
    if (ef >= 1023 - 14 && ef <= 1023 + 15)
        return s | (uint16_t)round_normal(a, 10, 15);
    return s | (uint16_t)round_to_format(fabs(x), 10, -14, 15, 5);
}

uint16_t fia_double_to_bf16(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    const uint16_t s = (uint16_t)((u >> 48) & 0x8000);
    const uint64_t a = u & 0x7fffffffffffffffull;
    const uint64_t ef = a >> 52;
    if (ef >= 1023 - 126 && ef <= 1023 + 127)
        return s | (uint16_t)round_normal(a, 7, 127);
    return s | (uint16_t)round_to_format(fabs(x), 7, -126, 127, 8);
}

uint16_t fia_float_to_fp16(float x)
{
    return fia_double_to_fp16((double)x);
}

uint16_t fia_float_to_bf16(float x)
{
    return fia_double_to_bf16((double)x);
}

/* ---- element access ---- */

double fia_load_as_double(fia_dtype dt, const void *data, int64_t i)
{
    switch (dt) {
    case FIA_DT_FP16: return fia_fp16_to_double(((const uint16_t *)data)[i]);
    case FIA_DT_BF16: return fia_bf16_to_double(((const uint16_t *)data)[i]);
    case FIA_DT_FP32: return (double)((const float *)data)[i];
    case FIA_DT_INT8: return (double)((const int8_t *)data)[i];
    case FIA_DT_UINT8:
    case FIA_DT_BOOL: return (double)((const uint8_t *)data)[i];
    case FIA_DT_INT4: {
        uint8_t byte = ((const uint8_t *)data)[i / 2];
        int nib = (i & 1) ? (byte >> 4) : (byte & 0xf);
        return (double)(nib >= 8 ? nib - 16 : nib);
    }
    case FIA_DT_INT32: return (double)((const int32_t *)data)[i];
    case FIA_DT_INT64: return (double)((const int64_t *)data)[i];
    case FIA_DT_UINT64: return (double)((const uint64_t *)data)[i];
    default: return NAN;
    }
}

static double saturate_round(double x, double lo, double hi)
{
    if (isnan(x))
        return 0.0;
    x = nearbyint(x);
    return x < lo ? lo : x > hi ? hi : x;
}

void fia_store_from_double(fia_dtype dt, void *data, int64_t i, double x)
{
    switch (dt) {
    case FIA_DT_FP16: ((uint16_t *)data)[i] = fia_double_to_fp16(x); break;
    case FIA_DT_BF16: ((uint16_t *)data)[i] = fia_double_to_bf16(x); break;
    case FIA_DT_FP32: ((float *)data)[i] = (float)x; break;
    case FIA_DT_INT8:
        ((int8_t *)data)[i] = (int8_t)saturate_round(x, -128, 127);
        break;
    case FIA_DT_UINT8:
        ((uint8_t *)data)[i] = (uint8_t)saturate_round(x, 0, 255);
        break;
    case FIA_DT_BOOL: ((uint8_t *)data)[i] = (x != 0.0 && !isnan(x)); break;
    case FIA_DT_INT4: {
        int v = (int)saturate_round(x, -8, 7);
        uint8_t *p = (uint8_t *)data + i / 2;
        if (i & 1)
            *p = (uint8_t)((*p & 0x0f) | ((v & 0xf) << 4));
        else
            *p = (uint8_t)((*p & 0xf0) | (v & 0xf));
        break;
    }
    case FIA_DT_INT32:
        ((int32_t *)data)[i] = (int32_t)saturate_round(x, -2147483648.0, 2147483647.0);
        break;
    case FIA_DT_INT64:
        ((int64_t *)data)[i] = (int64_t)saturate_round(x, -9223372036854775808.0,
                                                       9223372036854774784.0);
        break;
    case FIA_DT_UINT64:
        ((uint64_t *)data)[i] = (uint64_t)saturate_round(x, 0, 18446744073709549568.0);
        break;
    default: break;
    }
}
