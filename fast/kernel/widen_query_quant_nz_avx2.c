/* widen_query_quant_nz (contract: kernels.h), AVX2: tile by tile (its rows one
 * contiguous stream), each row's 32 int8 as four 8-byte loads
 * sign-extended to int32 (vpmovsxbd), converted (exactly) and multiplied
 * by the scale.  The finite answer without a test per element: with
 * |x| <= 128 and a monotone rounding every product is finite when
 * fl(128 |s|) is; otherwise (s inf or NaN, or so large that a product
 * may overflow: never a real scale) the portable kernel answers. */
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

bool fast_widen_query_quant_nz_avx2(const int8_t *src, int64_t ld, int nrows,
                                    float s, float *dst, int64_t ldd, int64_t n)
{
    if (!isfinite(fabsf(s) * 128.0f))
        return fast_widen_query_quant_nz_scalar(src, ld, nrows, s, dst, ldd, n);
    const __m256 vs = _mm256_set1_ps(s);
    for (int64_t t = 0; t * 32 < n; t++)
        for (int r = 0; r < nrows; r++) {
            const int8_t *x = src + t * ld + r * 32;
            float *d = dst + r * ldd + t * 32;
            for (int i = 0; i < 4; i++) {
                const __m256i q = _mm256_cvtepi8_epi32(
                    _mm_loadl_epi64((const __m128i *)(const void *)(x + 8 * i)));
                _mm256_storeu_ps(d + 8 * i,
                                 _mm256_mul_ps(_mm256_cvtepi32_ps(q), vs));
            }
        }
    return true;
}

#endif
