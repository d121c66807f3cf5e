/* widen (contract: kernels.h), AVX-512: fp16/bf16 to float, 16 at a
 * time, masked tail; the finite test on the exponent bits. */
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

bool fast_widen_avx512(fia_dtype dt, const uint16_t *src, float *dst,
                       int64_t n)
{
    const bool h = dt == FIA_DT_FP16;
    const __m256i em = _mm256_set1_epi16(h ? 0x7c00 : 0x7f80);
    __mmask16 bad = 0;
    for (int64_t i = 0; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m256i x = _mm256_maskz_loadu_epi16(k, src + i);
        bad |= _mm256_cmpeq_epi16_mask(_mm256_and_si256(x, em), em);
        __m512 f = h ? _mm512_cvtph_ps(x)
                     : _mm512_castsi512_ps(
                           _mm512_slli_epi32(_mm512_cvtepu16_epi32(x), 16));
        _mm512_mask_storeu_ps(dst + i, k, f);
    }
    return bad == 0;
}

#endif
