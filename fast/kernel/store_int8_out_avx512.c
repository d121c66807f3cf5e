/* store_int8_out (contract: kernels.h), AVX-512: sixteen columns a step, the
 * tail masked.  Clamping before the conversion makes it saturate;
 * cvtps_epi32 rounds half to even (the default rounding mode). */
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

void fast_store_int8_out_avx512(const float *acc, double l, const float *qs,
                                const float *qo, int64_t qstride, int8_t *dst,
                                int64_t n)
{
    const __m512d vl = _mm512_set1_pd(l);
    const __m512 lo = _mm512_set1_ps(-128.0f), hi = _mm512_set1_ps(127.0f);
    for (int64_t i = 0; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? 0xffff
                                  : (__mmask16)((1u << (n - i)) - 1);
        __m512 s = qstride ? _mm512_maskz_loadu_ps(k, qs + i)
                           : _mm512_set1_ps(qs[0]);
        /* acc / l in double, rounded once to float */
        __m512 a = _mm512_maskz_loadu_ps(k, acc + i);
        __m256 x0 = _mm512_cvtpd_ps(_mm512_div_pd(
            _mm512_cvtps_pd(_mm512_castps512_ps256(a)), vl));
        __m256 x1 = _mm512_cvtpd_ps(_mm512_div_pd(
            _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(
                _mm512_castps_pd(a), 1))), vl));
        __m512 y = _mm512_mul_ps(
            _mm512_insertf32x8(_mm512_castps256_ps512(x0), x1, 1), s);
        if (qo != NULL)
            y = _mm512_add_ps(y, qstride ? _mm512_maskz_loadu_ps(k, qo + i)
                                         : _mm512_set1_ps(qo[0]));
        /* NaN -> 0 (unspecified), like the scalar kernel */
        __mmask16 num = _mm512_cmp_ps_mask(y, y, _CMP_ORD_Q);
        y = _mm512_maskz_mov_ps(num, _mm512_min_ps(_mm512_max_ps(y, lo), hi));
        _mm512_mask_cvtsepi32_storeu_epi8(dst + i, k, _mm512_cvtps_epi32(y));
    }
}

#endif
