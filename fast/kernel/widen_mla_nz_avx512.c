/* widen_mla_nz (contract: kernels.h), AVX-512: tile by tile (its rows one
 * contiguous stream), each row's 16 fp16/bf16 one vector of 16 floats;
 * the finite test on the exponent bits, as widen's. */
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

bool fast_widen_mla_nz_avx512(fia_dtype dt, const uint16_t *src, int64_t ld,
                              int nrows, float *dst, int64_t ldd, int64_t n)
{
    const bool h = dt == FIA_DT_FP16;
    const __m256i em = _mm256_set1_epi16(h ? 0x7c00 : 0x7f80);
    __mmask16 bad = 0;
    for (int64_t t = 0; t * 16 < n; t++)
        for (int r = 0; r < nrows; r++) {
            __m256i x = _mm256_loadu_si256(
                (const __m256i *)(src + t * ld + r * 16));
            bad |= _mm256_cmpeq_epi16_mask(_mm256_and_si256(x, em), em);
            __m512 f = h ? _mm512_cvtph_ps(x)
                         : _mm512_castsi512_ps(_mm512_slli_epi32(
                               _mm512_cvtepu16_epi32(x), 16));
            _mm512_storeu_ps(dst + r * ldd + t * 16, f);
        }
    return bad == 0;
}

#endif
