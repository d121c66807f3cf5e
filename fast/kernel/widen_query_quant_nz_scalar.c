/* widen_query_quant_nz (contract: kernels.h), portable: tile by tile, each
 * tile's rows of 32 int8 converted (exactly) and multiplied by the scale, one
 * float32 rounding per element. */
#include "../fast_internal.h"

bool fast_widen_query_quant_nz_scalar(const int8_t *src, int64_t ld, int nrows,
                                      float s, float *dst, int64_t ldd,
                                      int64_t n)
{
    bool finite = true;
    for (int64_t t = 0; t * 32 < n; t++)
        for (int r = 0; r < nrows; r++) {
            const int8_t *x = src + t * ld + r * 32;
            float *d = dst + r * ldd + t * 32;
            for (int c = 0; c < 32; c++) {
                d[c] = (float)x[c] * s;
                finite &= isfinite(d[c]) != 0;
            }
        }
    return finite;
}
