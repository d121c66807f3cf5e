/* int8_quant_pquant (contract: kernels.h), AVX2: 8 rows per vector, exp8
 * (simd_avx2.h, ~1 ulp, 0 below ln(FLT_MIN)), P rounded with
 * round-to-nearest-even and clamped to [-128, 127]. */
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

void fast_int8_quant_pquant_avx2(float *s, int64_t lds, int mr, int nk,
                                 float scale, const int32_t *lo,
                                 const int32_t *hi, const uint8_t *excl,
                                 const float *m, float qs, float *l)
{
    const __m256 vs = _mm256_set1_ps(scale), vq = _mm256_set1_ps(qs);
    const __m256 top = _mm256_set1_ps(127.0f), bot = _mm256_set1_ps(-128.0f);
    for (int r0 = 0; r0 < mr; r0 += 8) {
        const __m256i vlo = _mm256_loadu_si256((const __m256i *)(lo + r0));
        const __m256i vhi = _mm256_loadu_si256((const __m256i *)(hi + r0));
        const __m256 mx = _mm256_loadu_ps(m + r0);
        __m256 sum = _mm256_setzero_ps();
        for (int c = 0; c < nk; c++) {
            float *x = s + c * lds + r0;
            const __m256 in = keys_in8(vlo, vhi, c,
                                       excl ? excl + c * lds + r0 : NULL);
            const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x), vs);
            /* rows without a key have m = -inf: their lanes are masked */
            const __m256 e = _mm256_and_ps(in, exp8(_mm256_sub_ps(v, mx)));
            sum = _mm256_add_ps(sum, e);
            /* a NaN weight (a score of +inf or NaN) stays NaN: min / max
             * return their second operand when one is NaN */
            __m256 t = _mm256_min_ps(top, _mm256_max_ps(bot,
                                                        _mm256_mul_ps(e, vq)));
            t = _mm256_round_ps(t, _MM_FROUND_TO_NEAREST_INT |
                                       _MM_FROUND_NO_EXC);
            _mm256_storeu_ps(x, _mm256_and_ps(in, t));
        }
        _mm256_storeu_ps(l + r0, _mm256_add_ps(_mm256_loadu_ps(l + r0), sum));
    }
}

#endif
