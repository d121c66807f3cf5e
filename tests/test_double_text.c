/* fia__double_text writes what snprintf "%.17g" writes (the case text of
 * every explicit value, and so the worst cases and findings stored, depend
 * on it): every fp16 and bf16 value, float32 and double bit patterns from
 * a fixed stream, integers, powers of two and ten, and the edges of its
 * own fast path (17 and 18 significant digits, the exponent-style switch
 * at 1e-5 / 1e17). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "check.h"
#include "core/case_internal.h"
#include "fia/dtype.h"
#include "test_rng.h"

static int bad;

static void same(double x)
{
    char want[64], got[64];
    snprintf(want, sizeof want, "%.17g", x);
    int n = fia__double_text(got, sizeof got, x);
    if (strcmp(want, got) != 0 || n != (int)strlen(want)) {
        if (bad++ < 10)
            fprintf(stderr, "%a: printf %s, fia__double_text %s\n", x, want,
                    got);
    }
}

static uint64_t next(uint64_t *s) { return test_splitmix64(s); }

int main(void)
{
    for (uint32_t h = 0; h < 0x10000; h++) {
        same(fia_fp16_to_double((uint16_t)h));
        same(fia_bf16_to_double((uint16_t)h));
    }
    CHECK_EQ_INT(bad, 0);
    uint64_t s = 1;
    for (int i = 0; i < 100000; i++) {
        uint32_t u = (uint32_t)next(&s);
        float f;
        memcpy(&f, &u, 4);
        same((double)f);
        uint64_t v = next(&s);
        double d;
        memcpy(&d, &v, 8);
        same(d);
        /* doubles of few significant bits at every exponent (the fast
         * path's integers and fractions) */
        same(ldexp((double)(next(&s) & 0xffff), (int)(next(&s) % 200) - 100));
        same(ldexp((double)(next(&s) >> 11), (int)(next(&s) % 200) - 100));
    }
    CHECK_EQ_INT(bad, 0);
    for (int e = -1074; e <= 1023; e++)
        same(ldexp(1.0, e)), same(-ldexp(1.0, e)), same(ldexp(3.0, e));
    double p10 = 1.0;
    for (int i = 0; i < 25; i++, p10 *= 10)
        same(p10), same(1.0 / p10), same(p10 + 1), same(p10 - 1),
            same(0.5 / p10), same(1.25 / p10);
    for (int64_t i = -100000; i <= 100000; i++)
        same((double)i), same((double)i / 64), same((double)i / 1024 * 1e-3);
    same(0.0), same(-0.0), same(1e-5), same(9.9999e-6), same(1e17), same(1e16);
    same(99999999999999999.0), same(12345678901234567.0), same(0.1),
        same(123456789012345678.0), same(DBL_MAX), same(DBL_MIN),
        same(DBL_TRUE_MIN), same(0x1p-24), same(0x1.ffcp15);
    CHECK_EQ_INT(bad, 0);
    /* the non-finite go to printf too, unchanged */
    char got[64];
    fia__double_text(got, sizeof got, INFINITY);
    CHECK(strcmp(got, "inf") == 0);
    return check_summary();
}
