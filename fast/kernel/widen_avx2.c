/* widen (contract: kernels.h), AVX2: fp16/bf16 to float, 8 at a time,
 * the tail by the portable code; the finite test on the exponent bits. */
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

bool fast_widen_avx2(fia_dtype dt, const uint16_t *src, float *dst,
                     int64_t n)
{
    const bool h = dt == FIA_DT_FP16;
    const __m128i em = _mm_set1_epi16(h ? 0x7c00 : 0x7f80);
    __m128i bad = _mm_setzero_si128();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i x = _mm_loadu_si128((const __m128i *)(src + i));
        bad = _mm_or_si128(bad, _mm_cmpeq_epi16(_mm_and_si128(x, em), em));
        __m256 f = h ? _mm256_cvtph_ps(x)
                     : _mm256_castsi256_ps(
                           _mm256_slli_epi32(_mm256_cvtepu16_epi32(x), 16));
        _mm256_storeu_ps(dst + i, f);
    }
    bool finite = _mm_testz_si128(bad, bad);
    if (i < n)
        finite &= fast_widen_scalar(dt, src + i, dst + i, n - i);
    return finite;
}

#endif
