/* int8_quant_pquant (contract: kernels.h), portable: e = exp(s - m) against the
 * row's final max, its sum, and P = e * qs quantized to an int8 value
 * (docs/features/int8_quant.md steps 3 and 4); exp from libm. */
#include "../fast_internal.h"

void fast_int8_quant_pquant_scalar(float *s, int64_t lds, int mr, int nk,
                                   float scale, const int32_t *lo,
                                   const int32_t *hi, const uint8_t *excl,
                                   const float *m, float qs, float *l)
{
    for (int r = 0; r < mr; r++) {
        float sum = 0.0f;
        for (int c = 0; c < nk; c++) {
            float *x = s + c * lds + r;
            const bool in = c >= lo[r] && c <= hi[r] &&
                            !(excl && excl[c * lds + r]);
            if (!in) {
                *x = 0.0f;
                continue;
            }
            const float e = expf(*x * scale - m[r]);
            sum += e;
            /* saturate first: rintf of a float is exact and the bounds are
             * integers, so the order does not change the result */
            float t = e * qs;
            t = t > 127.0f ? 127.0f : t < -128.0f ? -128.0f : t;
            *x = rintf(t);
        }
        l[r] += sum;
    }
}
