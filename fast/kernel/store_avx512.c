/* store (contract: kernels.h), AVX-512. */
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

/* acc / l in double, then to float rounding to odd (truncate, set the last
 * bit when inexact), then nearest-even to fp16/bf16: one correct rounding,
 * since float keeps more than 2 bits beyond either format. */
void fast_store_avx512(fia_dtype dt, const float *acc, double l,
                       uint16_t *dst, int64_t n)
{
    const __m512d vl = _mm512_set1_pd(l);
    const __m256i one = _mm256_set1_epi32(1);
    for (int64_t i = 0; i < n; i += 8) {
        __mmask8 k = n - i >= 8 ? 0xff : (__mmask8)((1u << (n - i)) - 1);
        __m512d x = _mm512_div_pd(
            _mm512_cvtps_pd(_mm256_maskz_loadu_ps(k, acc + i)), vl);
        __m256 f = _mm512_cvt_roundpd_ps(x, _MM_FROUND_TO_ZERO |
                                                _MM_FROUND_NO_EXC);
        __mmask8 inexact =
            _mm512_cmp_pd_mask(_mm512_cvtps_pd(f), x, _CMP_NEQ_UQ);
        __m256i fi = _mm256_castps_si256(f);
        fi = _mm256_mask_or_epi32(fi, inexact, fi, one);
        __m128i o;
        if (dt == FIA_DT_FP16) {
            o = _mm256_cvtps_ph(_mm256_castsi256_ps(fi),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        } else {
            __m256i r = _mm256_add_epi32(
                fi, _mm256_add_epi32(_mm256_set1_epi32(0x7fff),
                                     _mm256_and_si256(
                                         _mm256_srli_epi32(fi, 16), one)));
            r = _mm256_srli_epi32(r, 16);
            __mmask8 nan = _mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q);
            __m256i qn = _mm256_or_si256(
                _mm256_and_si256(_mm256_srli_epi32(fi, 16),
                                 _mm256_set1_epi32(0x8000)),
                _mm256_set1_epi32(0x7fc0));
            r = _mm256_mask_mov_epi32(r, nan, qn);
            o = _mm256_cvtepi32_epi16(r);
        }
        _mm_mask_storeu_epi16(dst + i, k, o);
    }
}

#endif
