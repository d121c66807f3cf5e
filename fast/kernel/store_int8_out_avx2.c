/* store_int8_out (contract: kernels.h), AVX2: eight columns a step, the tail
 * by the scalar kernel.  Clamping before the conversion makes it
 * saturate; cvtps_epi32 rounds half to even (the default rounding mode);
 * the packs narrow the clamped values exactly. */
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

void fast_store_int8_out_avx2(const float *acc, double l, const float *qs,
                              const float *qo, int64_t qstride, int8_t *dst,
                              int64_t n)
{
    const __m256d vl = _mm256_set1_pd(l);
    const __m256 lo = _mm256_set1_ps(-128.0f), hi = _mm256_set1_ps(127.0f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 s = qstride ? _mm256_loadu_ps(qs + i) : _mm256_set1_ps(qs[0]);
        /* acc / l in double, rounded once to float */
        __m128 x0 = _mm256_cvtpd_ps(
            _mm256_div_pd(_mm256_cvtps_pd(_mm_loadu_ps(acc + i)), vl));
        __m128 x1 = _mm256_cvtpd_ps(
            _mm256_div_pd(_mm256_cvtps_pd(_mm_loadu_ps(acc + i + 4)), vl));
        __m256 y = _mm256_mul_ps(_mm256_set_m128(x1, x0), s);
        if (qo != NULL)
            y = _mm256_add_ps(y, qstride ? _mm256_loadu_ps(qo + i)
                                         : _mm256_set1_ps(qo[0]));
        __m256 num = _mm256_cmp_ps(y, y, _CMP_ORD_Q); /* NaN -> 0 */
        y = _mm256_and_ps(num, _mm256_min_ps(_mm256_max_ps(y, lo), hi));
        __m256i w = _mm256_cvtps_epi32(y);
        __m128i h = _mm_packs_epi32(_mm256_castsi256_si128(w),
                                    _mm256_extracti128_si256(w, 1));
        _mm_storel_epi64((__m128i *)(dst + i), _mm_packs_epi16(h, h));
    }
    if (i < n)
        fast_store_int8_out_scalar(acc + i, l, qs + i * qstride,
                                   qo ? qo + i * qstride : NULL, qstride,
                                   dst + i, n - i);
}

#endif
