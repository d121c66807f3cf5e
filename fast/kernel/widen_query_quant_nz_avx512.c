/* widen_query_quant_nz (contract: kernels.h), AVX-512: tile by tile (its rows
 * one contiguous stream), each row's 32 int8 as two 16-byte loads
 * sign-extended to int32 (vpmovsxbd), converted (exactly) and multiplied
 * by the scale.  The finite answer without a test per element: with
 * |x| <= 128 and a monotone rounding every product is finite when
 * fl(128 |s|) is; otherwise (s inf or NaN, or so large that a product
 * may overflow: never a real scale) the portable kernel answers. */
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

bool fast_widen_query_quant_nz_avx512(const int8_t *src, int64_t ld, int nrows,
                                      float s, float *dst, int64_t ldd,
                                      int64_t n)
{
    if (!isfinite(fabsf(s) * 128.0f))
        return fast_widen_query_quant_nz_scalar(src, ld, nrows, s, dst, ldd, n);
    const __m512 vs = _mm512_set1_ps(s);
    for (int64_t t = 0; t * 32 < n; t++)
        for (int r = 0; r < nrows; r++) {
            const int8_t *x = src + t * ld + r * 32;
            float *d = dst + r * ldd + t * 32;
            for (int i = 0; i < 2; i++) {
                const __m512i q = _mm512_cvtepi8_epi32(_mm_loadu_si128(
                    (const __m128i *)(const void *)(x + 16 * i)));
                _mm512_storeu_ps(d + 16 * i,
                                 _mm512_mul_ps(_mm512_cvtepi32_ps(q), vs));
            }
        }
    return true;
}

#endif
