/* widen_antiquant (contract: kernels.h), AVX2: 8 int8 or int4 elements at a
 * time to int32, to float (exact), + offset, * scale; the tail portable.  int4:
 * the dword of 8 nibbles in every lane, each lane's nibble shifted to the
 * top and back (arithmetic: the sign). */
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

bool fast_widen_antiquant_avx2(const void *src, int int4, const float *sv,
                               const float *ov, float s, float o, float *dst,
                               int64_t n)
{
    const __m256i sh = _mm256_set_epi32(0, 4, 8, 12, 16, 20, 24, 28);
    const __m256 vs = _mm256_set1_ps(s), vo = _mm256_set1_ps(o);
    __m256 bad = _mm256_setzero_ps();
    const int8_t *b8 = (const int8_t *)src;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i x;
        if (int4) {
            int32_t w;
            memcpy(&w, b8 + i / 2, 4);
            x = _mm256_srai_epi32(_mm256_sllv_epi32(_mm256_set1_epi32(w), sh),
                                  28);
        } else {
            int64_t w;
            memcpy(&w, b8 + i, 8);
            x = _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(w));
        }
        const __m256 so = sv ? _mm256_loadu_ps(ov + i) : vo;
        const __m256 ss = sv ? _mm256_loadu_ps(sv + i) : vs;
        __m256 f = _mm256_mul_ps(_mm256_add_ps(_mm256_cvtepi32_ps(x), so),
                                 ss);
        __m256 z = _mm256_sub_ps(f, f); /* NaN where inf or NaN */
        bad = _mm256_or_ps(bad, _mm256_cmp_ps(z, z, _CMP_UNORD_Q));
        _mm256_storeu_ps(dst + i, f);
    }
    bool ok = _mm256_movemask_ps(bad) == 0;
    if (i < n) /* i is a multiple of 8: an int4 tail starts at a byte */
        ok &= fast_widen_antiquant_scalar(
            int4 ? (const void *)(b8 + i / 2) : (const void *)(b8 + i), int4,
            sv ? sv + i : NULL, sv ? ov + i : NULL, s, o, dst + i, n - i);
    return ok;
}

#endif
