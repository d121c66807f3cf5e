/* Conversions between dtypes: exhaustive over fp16, sampled over bf16. */
#include <float.h>
#include <stdint.h>
#include "check.h"
#include "fia/dtype.h"
#include "fia/status.h"
#include "fia/tensor.h"
#include "test_rng.h"

static int is_nan16(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }

int main(void)
{
    int bad_rt = 0, bad_mid = 0;
    /* Every fp16 value converts back to itself; the midpoint between two
     * consecutive positive values rounds to the one with an even mantissa. */
    for (uint32_t h = 0; h < 0x10000; h++) {
        if (is_nan16((uint16_t)h)) {
            if (!is_nan16(fia_double_to_fp16(fia_fp16_to_double((uint16_t)h))))
                bad_rt++;
            continue;
        }
        if (fia_double_to_fp16(fia_fp16_to_double((uint16_t)h)) != h)
            bad_rt++;
        if ((h & 0x7fff) < 0x7bff) {
            double a = fia_fp16_to_double((uint16_t)h);
            double b = fia_fp16_to_double((uint16_t)(h + 1));
            uint16_t want = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
            if (fia_double_to_fp16((a + b) / 2) != want)
                bad_mid++;
            /* Just off the midpoint goes to the nearer side. */
            if (fia_double_to_fp16(nextafter((a + b) / 2, a)) != h)
                bad_mid++;
        }
    }
    CHECK_EQ_INT(bad_rt, 0);
    CHECK_EQ_INT(bad_mid, 0);
    /* Limits. */
    CHECK_EQ_INT(fia_double_to_fp16(65504.0), 0x7bff);
    CHECK_EQ_INT(fia_double_to_fp16(65519.99), 0x7bff);
    CHECK_EQ_INT(fia_double_to_fp16(65520.0), 0x7c00);  /* ties to even -> inf */
    CHECK_EQ_INT(fia_double_to_fp16(-1e10), 0xfc00);
    CHECK_EQ_INT(fia_double_to_fp16(ldexp(1.0, -24)), 0x0001);
    CHECK_EQ_INT(fia_double_to_fp16(ldexp(1.0, -25)), 0x0000); /* tie -> even 0 */
    CHECK_EQ_INT(fia_double_to_fp16(ldexp(1.5, -25)), 0x0001);
    CHECK_EQ_INT(fia_double_to_fp16(-0.0), 0x8000);
    /* binary64 subnormals and the least normal: signed zeros */
    CHECK_EQ_INT(fia_double_to_fp16(0x1p-1074), 0x0000);
    CHECK_EQ_INT(fia_double_to_fp16(-0x1p-1030), 0x8000);
    CHECK_EQ_INT(fia_double_to_fp16(0x1p-1022), 0x0000);
    CHECK_EQ_INT(fia_double_to_bf16(-0x1p-1074), 0x8000);
    CHECK_EQ_INT(fia_double_to_bf16(0x1p-133), 0x0001); /* least bf16 */
    CHECK_EQ_INT(fia_double_to_bf16(0x1p-134), 0x0000); /* tie -> even 0 */
    CHECK_EQ_INT(fia_double_to_fp16(1e-300), 0x0000);
    /* bf16: round trip over all patterns, midpoints on a sample. */
    int bad_bf = 0;
    for (uint32_t b = 0; b < 0x10000; b++) {
        double v = fia_bf16_to_double((uint16_t)b);
        if (isnan(v))
            continue;
        if (fia_double_to_bf16(v) != b)
            bad_bf++;
        if ((b & 0x7fff) < 0x7f7f) {
            double w = fia_bf16_to_double((uint16_t)(b + 1));
            uint16_t want = (b & 1) ? (uint16_t)(b + 1) : (uint16_t)b;
            if (fia_double_to_bf16((v + w) / 2) != want)
                bad_bf++;
        }
    }
    CHECK_EQ_INT(bad_bf, 0);
    /* every bf16 midpoint, and just off it to either side */
    for (uint32_t b = 0; b < 0x10000; b++) {
        if ((b & 0x7fff) >= 0x7f7f)
            continue;
        double v = fia_bf16_to_double((uint16_t)b);
        double w = fia_bf16_to_double((uint16_t)(b + 1));
        double mid = (v + w) / 2;
        if (fia_double_to_bf16(nextafter(mid, v)) != b ||
            fia_double_to_bf16(nextafter(mid, w)) != (uint16_t)(b + 1))
            bad_bf++;
    }
    CHECK_EQ_INT(bad_bf, 0);
    /* random doubles: the nearest value, ties to even, against gcc's own
     * double -> _Float16 (one rounding) for fp16, and against the two
     * neighbours for bf16 */
    uint64_t st = 12345;
    int bad_rand = 0;
    for (int i = 0; i < 400000; i++) {
        test_lcg64(&st);
        /* exponents around both formats' ranges, any fraction */
        uint64_t bits = (st >> 12) | ((uint64_t)(850 + (st >> 55) % 350) << 52) |
                        ((st & 1) << 63);
        double x;
        memcpy(&x, &bits, sizeof x);
#if defined(__FLT16_MAX__)
        _Float16 h = (_Float16)x;
        uint16_t hb;
        memcpy(&hb, &h, 2);
        bad_rand += fia_double_to_fp16(x) != hb;
#endif
        uint16_t b = fia_double_to_bf16(x);
        double y = fia_bf16_to_double(b);
        if (isinf(y)) {
            bad_rand += !(fabs(x) >= 0x1.ff8p127); /* past the largest + half */
            continue;
        }
        double lo = fia_bf16_to_double((uint16_t)(b - ((b & 0x7fff) ? 1 : 0)));
        double hi = fia_bf16_to_double((uint16_t)(b + 1));
        double d = fabs(x - y);
        if ((b & 0x7fff) && fabs(x - lo) < d)
            bad_rand++;
        if ((b & 0x7fff) < 0x7f7f && fabs(x - hi) < d)
            bad_rand++;
        if (signbit(x) != signbit(y))
            bad_rand++;
    }
    CHECK_EQ_INT(bad_rand, 0);
    CHECK_EQ_INT(fia_double_to_bf16(1.0), 0x3f80);
    CHECK_EQ_INT(fia_double_to_bf16(FLT_MAX), 0x7f80); /* rounds up to inf */
    /* Names and storage. */
    CHECK_EQ_INT(fia_dtype_from_name("bf16"), FIA_DT_BF16);
    CHECK_EQ_INT(fia_dtype_from_name("float"), FIA_DT_INVALID);
    CHECK_EQ_INT(fia_dtype_storage(FIA_DT_INT4, 3), 2);
    CHECK_EQ_INT(fia_dtype_storage(FIA_DT_FP16, 3), 6);
    /* int4 nibbles, saturation of integer stores. */
    uint8_t buf[2] = {0, 0};
    fia_store_from_double(FIA_DT_INT4, buf, 0, -3);
    fia_store_from_double(FIA_DT_INT4, buf, 1, 9);
    CHECK_NEAR(fia_load_as_double(FIA_DT_INT4, buf, 0), -3, 0);
    CHECK_NEAR(fia_load_as_double(FIA_DT_INT4, buf, 1), 7, 0);
    int8_t i8;
    fia_store_from_double(FIA_DT_INT8, &i8, 0, -200.0);
    CHECK_EQ_INT(i8, -128);
    /* numel overflow. */
    fia_tensor t = {FIA_DT_FP16, 4, {65537, 256, 1 << 20, 1 << 20}, NULL};
    CHECK_EQ_INT(fia_tensor_numel(&t), -1);
    t.shape[2] = 16;
    t.shape[3] = 64;
    CHECK_EQ_INT(fia_tensor_numel(&t), 65537LL * 256 * 16 * 64);
    CHECK(fia_profile_parse("cann", &(fia_profile){0}) == 0);
    CHECK(fia_profile_parse("x", &(fia_profile){0}) == -1);
    return check_summary();
}
