/* store (contract: kernels.h), AVX2. */
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

/* acc / l in double, then to float rounding to odd (truncate, set the last
 * bit when inexact), then nearest-even to fp16/bf16: one correct rounding. */
static __m256 div_round_odd(const float *acc, __m256d vl)
{
    const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    __m256d x0 = _mm256_div_pd(_mm256_cvtps_pd(_mm_loadu_ps(acc)), vl);
    __m256d x1 = _mm256_div_pd(_mm256_cvtps_pd(_mm_loadu_ps(acc + 4)), vl);
    __m256 f = _mm256_set_m128(_mm256_cvtpd_ps(x1), _mm256_cvtpd_ps(x0));
    __m256d b0 = _mm256_cvtps_pd(_mm256_castps256_ps128(f));
    __m256d b1 = _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1));
    const __m256d abs = _mm256_castsi256_pd(_mm256_set1_epi64x(INT64_MAX));
    int ne = _mm256_movemask_pd(_mm256_cmp_pd(b0, x0, _CMP_NEQ_UQ)) |
             _mm256_movemask_pd(_mm256_cmp_pd(b1, x1, _CMP_NEQ_UQ)) << 4;
    int over = _mm256_movemask_pd(_mm256_cmp_pd(_mm256_and_pd(b0, abs),
                                                _mm256_and_pd(x0, abs),
                                                _CMP_GT_OQ)) |
               _mm256_movemask_pd(_mm256_cmp_pd(_mm256_and_pd(b1, abs),
                                                _mm256_and_pd(x1, abs),
                                                _CMP_GT_OQ)) << 4;
    __m256i vne = _mm256_cmpeq_epi32(
        _mm256_and_si256(_mm256_set1_epi32(ne), bit), bit);
    __m256i vover = _mm256_cmpeq_epi32(
        _mm256_and_si256(_mm256_set1_epi32(over), bit), bit);
    __m256i fi = _mm256_add_epi32(_mm256_castps_si256(f), vover); /* -1 */
    fi = _mm256_or_si256(fi, _mm256_srli_epi32(vne, 31));
    return _mm256_castsi256_ps(fi);
}

void fast_store_avx2(fia_dtype dt, const float *acc, double l,
                     uint16_t *dst, int64_t n)
{
    const __m256d vl = _mm256_set1_pd(l);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 f = div_round_odd(acc + i, vl);
        __m128i o;
        if (dt == FIA_DT_FP16) {
            o = _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT |
                                       _MM_FROUND_NO_EXC);
        } else {
            __m256i fi = _mm256_castps_si256(f);
            __m256i r = _mm256_add_epi32(
                fi, _mm256_add_epi32(_mm256_set1_epi32(0x7fff),
                                     _mm256_and_si256(_mm256_srli_epi32(fi, 16),
                                                      _mm256_set1_epi32(1))));
            r = _mm256_srli_epi32(r, 16);
            __m256i qn = _mm256_or_si256(
                _mm256_and_si256(_mm256_srli_epi32(fi, 16),
                                 _mm256_set1_epi32(0x8000)),
                _mm256_set1_epi32(0x7fc0));
            r = _mm256_castps_si256(_mm256_blendv_ps(
                _mm256_castsi256_ps(r), _mm256_castsi256_ps(qn),
                _mm256_cmp_ps(f, f, _CMP_UNORD_Q)));
            o = _mm_packus_epi32(_mm256_castsi256_si128(r),
                                 _mm256_extracti128_si256(r, 1));
        }
        _mm_storeu_si128((__m128i *)(dst + i), o);
    }
    if (i < n)
        fast_store_scalar(dt, acc + i, l, dst + i, n - i);
}

#endif
