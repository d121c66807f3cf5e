/* softmax (contract: kernels.h), AVX2: one online-softmax step, 8 rows
 * per vector, the keys taking part as lane masks. */
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

void fast_softmax_avx2(float *s, int64_t lds, int mr, int nk, float scale,
                       const int32_t *lo, const int32_t *hi,
                       const uint8_t *excl, int round, float *m, float *l,
                       float *alpha)
{
    const __m256 vs = _mm256_set1_ps(scale), one = _mm256_set1_ps(1.0f);
    __m256 valid[FAST_KBLOCK];
    for (int r0 = 0; r0 < mr; r0 += 8) {
        __m256i vlo = _mm256_loadu_si256((const __m256i *)(lo + r0));
        __m256i vhi = _mm256_loadu_si256((const __m256i *)(hi + r0));
        __m256 bmax = _mm256_set1_ps(-INFINITY), any = _mm256_setzero_ps();
        for (int c = 0; c < nk; c++) {
            __m256 in = keys_in8(vlo, vhi, c,
                                 excl ? excl + c * lds + r0 : NULL);
            valid[c] = in;
            any = _mm256_or_ps(any, in);
            float *x = s + c * lds + r0;
            __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x), vs);
            _mm256_storeu_ps(x, v);
            bmax = _mm256_blendv_ps(bmax, _mm256_max_ps(v, bmax), in);
        }
        __m256 mold = _mm256_loadu_ps(m + r0);
        __m256 mnew = _mm256_max_ps(bmax, mold);
        __m256 ch = _mm256_and_ps(any, _mm256_cmp_ps(mnew, mold, _CMP_NEQ_OQ));
        __m256 a = _mm256_blendv_ps(one, exp8(_mm256_sub_ps(mold, mnew)), ch);
        const __m256 ms = softmax_shift8(mnew);
        __m256 sum = _mm256_setzero_ps();
        for (int c = 0; c < nk; c++) {
            float *x = s + c * lds + r0;
            __m256 p = _mm256_and_ps(
                valid[c], exp8(_mm256_sub_ps(_mm256_loadu_ps(x), ms)));
            sum = _mm256_add_ps(sum, p);
            _mm256_storeu_ps(x, round_p8(p, round));
        }
        store_rows8(m + r0, l + r0, alpha + r0, mnew, a, sum);
    }
}

#endif
