/* int8_quant_rowmax (contract: kernels.h), AVX2: 8 rows per vector, the keys
 * taking part as lane masks (as softmax_avx2). */
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

void fast_int8_quant_rowmax_avx2(float *s, int64_t lds, int mr, int nk,
                                 float scale, const int32_t *lo,
                                 const int32_t *hi, const uint8_t *excl,
                                 float *m)
{
    const __m256 vs = _mm256_set1_ps(scale);
    for (int r0 = 0; r0 < mr; r0 += 8) {
        const __m256i vlo = _mm256_loadu_si256((const __m256i *)(lo + r0));
        const __m256i vhi = _mm256_loadu_si256((const __m256i *)(hi + r0));
        __m256 mx = _mm256_loadu_ps(m + r0);
        for (int c = 0; c < nk; c++) {
            float *x = s + c * lds + r0;
            const __m256 in =
                keys_in8(vlo, vhi, c, excl ? excl + c * lds + r0 : NULL);
            const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x), vs);
            _mm256_storeu_ps(x, v);
            mx = _mm256_blendv_ps(mx, _mm256_max_ps(v, mx), in);
        }
        _mm256_storeu_ps(m + r0, mx);
    }
}

#endif
