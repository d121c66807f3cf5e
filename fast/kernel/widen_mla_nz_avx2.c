/* widen_mla_nz (contract: kernels.h), AVX2: tile by tile (its rows one
 * contiguous stream), each row's 16 fp16/bf16 as two vectors of 8
 * floats; the finite test on the exponent bits, as widen's. */
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

static inline __m256 widen8(bool h, __m128i x)
{
    return h ? _mm256_cvtph_ps(x)
             : _mm256_castsi256_ps(
                   _mm256_slli_epi32(_mm256_cvtepu16_epi32(x), 16));
}

bool fast_widen_mla_nz_avx2(fia_dtype dt, const uint16_t *src, int64_t ld,
                            int nrows, float *dst, int64_t ldd, int64_t n)
{
    const bool h = dt == FIA_DT_FP16;
    const __m128i em = _mm_set1_epi16(h ? 0x7c00 : 0x7f80);
    __m128i bad = _mm_setzero_si128();
    for (int64_t t = 0; t * 16 < n; t++)
        for (int r = 0; r < nrows; r++) {
            const uint16_t *s = src + t * ld + r * 16;
            float *d = dst + r * ldd + t * 16;
            __m128i x0 = _mm_loadu_si128((const __m128i *)s);
            __m128i x1 = _mm_loadu_si128((const __m128i *)(s + 8));
            bad = _mm_or_si128(bad,
                               _mm_cmpeq_epi16(_mm_and_si128(x0, em), em));
            bad = _mm_or_si128(bad,
                               _mm_cmpeq_epi16(_mm_and_si128(x1, em), em));
            _mm256_storeu_ps(d, widen8(h, x0));
            _mm256_storeu_ps(d + 8, widen8(h, x1));
        }
    return _mm_testz_si128(bad, bad);
}

#endif
