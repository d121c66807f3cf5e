/* widen_nz8 (contract: kernels.h), AVX-512: tile by tile (its rows one
 * contiguous stream), each row's 32 int8 one 32-byte load, sign-extended
 * 16 at a time to int32, converted (exactly) and multiplied by the scale;
 * the finite test by fpclass (inf, NaN). */
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

bool fast_widen_nz8_avx512(const int8_t *src, int64_t ld, int nrows, float s,
                           float *dst, int64_t ldd, int64_t n)
{
    const __m512 vs = _mm512_set1_ps(s);
    __mmask16 bad = 0;
    for (int64_t t = 0; t * 32 < n; t++)
        for (int r = 0; r < nrows; r++) {
            const __m256i x = _mm256_loadu_si256(
                (const __m256i *)(const void *)(src + t * ld + r * 32));
            const __m512 f0 = _mm512_mul_ps(
                _mm512_cvtepi32_ps(
                    _mm512_cvtepi8_epi32(_mm256_castsi256_si128(x))),
                vs);
            const __m512 f1 = _mm512_mul_ps(
                _mm512_cvtepi32_ps(
                    _mm512_cvtepi8_epi32(_mm256_extracti128_si256(x, 1))),
                vs);
            bad |= _mm512_fpclass_ps_mask(f0, 0x99); /* inf, NaN */
            bad |= _mm512_fpclass_ps_mask(f1, 0x99);
            float *d = dst + r * ldd + t * 32;
            _mm512_storeu_ps(d, f0);
            _mm512_storeu_ps(d + 16, f1);
        }
    return bad == 0;
}

#endif
