/* q8_rowmax (contract: kernels.h), AVX2: 8 rows per vector, the keys
 * taking part as lane masks (as softmax_avx2). */
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

/* The lanes of rows r0.. where key c takes part: lo <= c <= hi, not
 * excluded. */
INLINE __m256 q8_in8(__m256i vlo, __m256i vhi, int c,
                            const uint8_t *excl)
{
    const __m256i vc = _mm256_set1_epi32(c);
    __m256i out = _mm256_or_si256(_mm256_cmpgt_epi32(vlo, vc),
                                  _mm256_cmpgt_epi32(vc, vhi));
    if (excl) {
        const __m256i e = _mm256_cvtepu8_epi32(
            _mm_loadl_epi64((const __m128i *)excl));
        out = _mm256_or_si256(out, _mm256_xor_si256(
            _mm256_cmpeq_epi32(e, _mm256_setzero_si256()),
            _mm256_set1_epi32(-1)));
    }
    return _mm256_castsi256_ps(_mm256_xor_si256(out, _mm256_set1_epi32(-1)));
}

void fast_q8_rowmax_avx2(float *s, int64_t lds, int mr, int nk, float scale,
                         const int32_t *lo, const int32_t *hi,
                         const uint8_t *excl, float *m)
{
    const __m256 vs = _mm256_set1_ps(scale);
    for (int r0 = 0; r0 < mr; r0 += 8) {
        const __m256i vlo = _mm256_loadu_si256((const __m256i *)(lo + r0));
        const __m256i vhi = _mm256_loadu_si256((const __m256i *)(hi + r0));
        __m256 mx = _mm256_loadu_ps(m + r0);
        for (int c = 0; c < nk; c++) {
            float *x = s + c * lds + r0;
            const __m256 in =
                q8_in8(vlo, vhi, c, excl ? excl + c * lds + r0 : NULL);
            const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x), vs);
            _mm256_storeu_ps(x, v);
            mx = _mm256_blendv_ps(mx, _mm256_max_ps(v, mx), in);
        }
        _mm256_storeu_ps(m + r0, mx);
    }
}

#endif
