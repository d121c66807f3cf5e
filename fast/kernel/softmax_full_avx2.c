/* softmax_full (contract: kernels.h), AVX2. */
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

/* The second pass of softmax_full for 8 rows: p = exp(s - mnew) for every
 * key, the row sums, P rounded as asked.  SM_U keys at a time, their exp
 * chains side by side (the loop is bound by their latency); the sum still
 * adds them in key order. */
#define SM_U 8
INLINE __m256 softmax_p8(float *s, int64_t lds, int nk, __m256 mnew,
                         const int round)
{
    __m256 sum = _mm256_setzero_ps();
    int c = 0;
    for (; c + SM_U <= nk; c += SM_U) {
        __m256 p[SM_U];
        UNROLL for (int u = 0; u < SM_U; u++)
            p[u] = exp8(_mm256_sub_ps(_mm256_loadu_ps(s + (c + u) * lds),
                                      mnew));
        UNROLL for (int u = 0; u < SM_U; u++) {
            sum = _mm256_add_ps(sum, p[u]);
            _mm256_storeu_ps(s + (c + u) * lds, round_p8(p[u], round));
        }
    }
    for (; c < nk; c++) {
        float *x = s + c * lds;
        __m256 p = exp8(_mm256_sub_ps(_mm256_loadu_ps(x), mnew));
        sum = _mm256_add_ps(sum, p);
        _mm256_storeu_ps(x, round_p8(p, round));
    }
    return sum;
}

/* The softmax step after qk_t_max: scores scaled, bmax[r] the block max,
 * every key in every row (the same m, l, alpha and P as softmax_avx2). */
void fast_softmax_full_avx2(float *s, int64_t lds, int mr, int nk,
                            const float *bmax, int round, float *m, float *l,
                            float *alpha)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    const int rows = (mr + 15) & ~15; /* as qk_t_max */
    for (int r0 = 0; r0 < rows; r0 += 8) {
        __m256 mold = _mm256_loadu_ps(m + r0);
        __m256 mnew = _mm256_max_ps(_mm256_loadu_ps(bmax + r0), mold);
        __m256 ch = _mm256_cmp_ps(mnew, mold, _CMP_NEQ_OQ);
        if (nk == 0)
            ch = _mm256_setzero_ps();
        __m256 a = _mm256_blendv_ps(one, exp8(_mm256_sub_ps(mold, mnew)), ch);
        const __m256 ms = softmax_shift8(mnew);
        __m256 sum = round == 1   ? softmax_p8(s + r0, lds, nk, ms, 1)
                     : round == 2 ? softmax_p8(s + r0, lds, nk, ms, 2)
                                  : softmax_p8(s + r0, lds, nk, ms, 0);
        store_rows8(m + r0, l + r0, alpha + r0, mnew, a, sum);
    }
}

#endif
