/* int8_quant_rowmax (contract: kernels.h), AVX-512: 16 rows per vector, the
 * keys taking part as mask registers (as softmax_avx512). */
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

void fast_int8_quant_rowmax_avx512(float *s, int64_t lds, int mr, int nk,
                                   float scale, const int32_t *lo,
                                   const int32_t *hi, const uint8_t *excl,
                                   float *m)
{
    const __m512 vs = _mm512_set1_ps(scale);
    for (int r0 = 0; r0 < mr; r0 += 16) {
        const __m512i vlo = _mm512_loadu_si512(lo + r0);
        const __m512i vhi = _mm512_loadu_si512(hi + r0);
        __m512 mx = _mm512_loadu_ps(m + r0);
        for (int c = 0; c < nk; c++) {
            float *x = s + c * lds + r0;
            const __mmask16 in = keys_in16(vlo, vhi, c,
                                           excl ? excl + c * lds + r0 : NULL);
            const __m512 v = _mm512_mul_ps(_mm512_loadu_ps(x), vs);
            _mm512_storeu_ps(x, v);
            mx = _mm512_mask_max_ps(mx, in, v, mx);
        }
        _mm512_storeu_ps(m + r0, mx);
    }
}

#endif
