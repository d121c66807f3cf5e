/* widen_nz8 (contract: kernels.h), AVX2: tile by tile (its rows one
 * contiguous stream), each row's 32 int8 one 32-byte load, sign-extended
 * 8 at a time to int32, converted (exactly) and multiplied by the scale;
 * the finite test as aq_widen's (x - x is NaN only for inf / NaN). */
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

bool fast_widen_nz8_avx2(const int8_t *src, int64_t ld, int nrows, float s,
                         float *dst, int64_t ldd, int64_t n)
{
    const __m256 vs = _mm256_set1_ps(s);
    __m256 bad = _mm256_setzero_ps();
    for (int64_t t = 0; t * 32 < n; t++)
        for (int r = 0; r < nrows; r++) {
            const __m256i x = _mm256_loadu_si256(
                (const __m256i *)(const void *)(src + t * ld + r * 32));
            const __m128i lo = _mm256_castsi256_si128(x);
            const __m128i hi = _mm256_extracti128_si256(x, 1);
            float *d = dst + r * ldd + t * 32;
            const __m256i q[4] = {
                _mm256_cvtepi8_epi32(lo),
                _mm256_cvtepi8_epi32(_mm_srli_si128(lo, 8)),
                _mm256_cvtepi8_epi32(hi),
                _mm256_cvtepi8_epi32(_mm_srli_si128(hi, 8))};
            for (int i = 0; i < 4; i++) {
                const __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(q[i]), vs);
                const __m256 z = _mm256_sub_ps(f, f);
                bad = _mm256_or_ps(bad, _mm256_cmp_ps(z, z, _CMP_UNORD_Q));
                _mm256_storeu_ps(d + 8 * i, f);
            }
        }
    return _mm256_movemask_ps(bad) == 0;
}

#endif
