/* int8_quant_rowmax (contract: kernels.h), portable: the scores scaled and the
 * row max of the keys taking part (the first pass of full int8
 * quantization, docs/features/int8_quant.md step 3). */
#include "../fast_internal.h"

void fast_int8_quant_rowmax_scalar(float *s, int64_t lds, int mr, int nk,
                                   float scale, const int32_t *lo,
                                   const int32_t *hi, const uint8_t *excl,
                                   float *m)
{
    for (int r = 0; r < mr; r++) {
        float mx = m[r];
        for (int c = 0; c < nk; c++) {
            float *x = s + c * lds + r;
            *x *= scale;
            if (c >= lo[r] && c <= hi[r] && !(excl && excl[c * lds + r]))
                mx = *x > mx ? *x : mx;
        }
        m[r] = mx;
    }
}
