/* fast/'s full int8 quantization micro-kernels (kernels.h: int8_quant_rowmax,
 * int8_quant_pquant) at every level this CPU supports, against a scalar
 * computation here: row counts with tails (1 .. 40 rows, not multiples of
 * 8 or 16), ragged key blocks, per-row key ranges (empty ones too), mask
 * bits, a scale of 1 (a pse_bias step scaled the scores) and another.
 * int8_quant_rowmax: the scaled scores bit for bit, the row max exactly.
 * int8_quant_pquant: P exactly where e * qs lies away from a rounding boundary
 * (a step either way next to one: the SIMD exp is within 2 ulp of expf), 0
 * for keys not taking part, saturation at -128 / 127 (qs large, qs < 0),
 * the row sum within float32 rounding. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "check.h"
#include "fast/fast_internal.h"
#include "test_rng.h"

static uint64_t rng = 0x9b05688c2b3e6c1full;
static uint32_t next32(void) { return test_lcg64_hi31(&rng); }
static double urand(void) { return (double)next32() * 0x1p-32; }

static bool takes_part(const int32_t *lo, const int32_t *hi,
                       const uint8_t *excl, int64_t lds, int r, int c)
{
    return c >= lo[r] && c <= hi[r] && !(excl && excl[c * lds + r]);
}

static void int8_quant_kernels(const fast_kernels *k, const char *isa)
{
    static const int mrs[] = {1, 5, 8, 16, 23, 40};
    static const int nks[] = {1, 7, 33, 64};
    static const float qss[] = {127.0f, 117.37f, -50.25f, 4000.0f};
    enum { KB = FAST_KBLOCK, LMAX = 48 };
    int bad_s = 0, bad_m = 0, bad_p = 0, bad_l = 0, exact = 0, near = 0;
    for (int it = 0; it < 6 * 4 * 4 * 2; it++) {
        const int mr = mrs[it % 6], nk = nks[it / 6 % 4];
        const float qs = qss[it / 24 % 4];
        const bool masked = it / 96 % 2;
        const float scale = it % 3 == 0 ? 1.0f : 0.0883883476f;
        const int64_t lds = (mr + 15) & ~15;
        float s0[KB * LMAX], s[KB * LMAX], m[LMAX], l[LMAX], l0[LMAX];
        int32_t lo[LMAX], hi[LMAX];
        uint8_t excl[KB * LMAX];
        for (int x = 0; x < KB * LMAX; x++) {
            s0[x] = (float)(urand() * 60.0 - 40.0);
            excl[x] = urand() < 0.25;
        }
        for (int r = 0; r < lds; r++) {
            const int a = (int)(next32() % (unsigned)nk);
            const int b = (int)(next32() % (unsigned)nk);
            lo[r] = a < b ? a : b, hi[r] = a < b ? b : a;
            if (r % 7 == 3)
                lo[r] = 0, hi[r] = nk - 1; /* every key */
            if (r % 11 == 5 || r >= mr)
                lo[r] = 0, hi[r] = -1;     /* none (padding rows too) */
            m[r] = r % 3 == 0 ? -INFINITY : (float)(urand() * 10.0 - 5.0);
            l[r] = l0[r] = (float)urand();
        }
        const uint8_t *ex = masked ? excl : NULL;
        /* int8_quant_rowmax */
        float want_m[LMAX];
        for (int r = 0; r < mr; r++) {
            want_m[r] = m[r];
            for (int c = 0; c < nk; c++) {
                const float v = s0[c * lds + r] * scale;
                if (takes_part(lo, hi, ex, lds, r, c) && v > want_m[r])
                    want_m[r] = v;
            }
        }
        memcpy(s, s0, sizeof s);
        k->int8_quant_rowmax(s, lds, mr, nk, scale, lo, hi, ex, m);
        for (int r = 0; r < mr; r++) {
            bad_m += m[r] != want_m[r];
            for (int c = 0; c < nk; c++)
                bad_s += s[c * lds + r] != s0[c * lds + r] * scale;
        }
        /* int8_quant_pquant against that max, on the unscaled scores again */
        memcpy(s, s0, sizeof s);
        k->int8_quant_pquant(s, lds, mr, nk, scale, lo, hi, ex, m, qs, l);
        for (int r = 0; r < mr; r++) {
            double sum = 0.0;
            for (int c = 0; c < nk; c++) {
                const float got = s[c * lds + r];
                if (!takes_part(lo, hi, ex, lds, r, c)) {
                    bad_p += got != 0.0f;
                    continue;
                }
                const float e = expf(s0[c * lds + r] * scale - m[r]);
                sum += e;
                const float t = e * qs;
                float want = rintf(t > 127.0f ? 127.0f
                                   : t < -128.0f ? -128.0f : t);
                /* next to a boundary: within 2 ulp of expf (4 ulp of t) */
                const float dist = fabsf(t - floorf(t) - 0.5f);
                if (dist > 4.0f * 0x1p-23f * fabsf(t) + 0x1p-126f) {
                    bad_p += got != want;
                    exact++;
                } else {
                    bad_p += fabsf(got - want) > 1.0f;
                    near++;
                }
            }
            const double want_l = l0[r] + sum;
            bad_l += !(fabs(l[r] - want_l) <=
                       1e-6 * want_l + (double)nk * 0x1p-24 * want_l);
        }
    }
    CHECK_MSG(bad_s == 0, "%s: int8_quant_rowmax: %d scaled scores differ", isa,
              bad_s);
    CHECK_MSG(bad_m == 0, "%s: int8_quant_rowmax: %d row max differ", isa,
              bad_m);
    CHECK_MSG(bad_p == 0, "%s: int8_quant_pquant: %d P differ", isa, bad_p);
    CHECK_MSG(bad_l == 0, "%s: int8_quant_pquant: %d row sums differ", isa,
              bad_l);
    CHECK_MSG(exact > 1000, "%s: only %d P checked exactly", isa, exact);
    printf("%s: %d P exact, %d next to a boundary\n", isa, exact, near);
}

int main(void)
{
    for (int i = 0; i < FAST_ISA_COUNT; i++) {
        const fast_kernels *k = fast_kernels_for((fast_isa)i);
        const char *isa = fast_isa_name((fast_isa)i);
        if (k == NULL) {
            printf("%s: not supported on this CPU, skipped\n", isa);
            continue;
        }
        CHECK_MSG(k->int8_quant_rowmax != NULL && k->int8_quant_pquant != NULL,
                  "%s: a full int8 kernel missing", isa);
        int8_quant_kernels(k, isa);
        printf("%s: tested\n", isa);
    }
    return check_summary();
}
