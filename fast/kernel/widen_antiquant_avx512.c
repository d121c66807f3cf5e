/* widen_antiquant (contract: kernels.h), AVX-512: 16 int8 or int4 elements at a
 * time to int32, to float (exact), + offset, * scale; masked tail.  int4:
 * the 8 bytes of 16 nibbles, dword 0 into lanes 0..7 and dword 1 into
 * lanes 8..15, each lane's nibble shifted to the top and back
 * (arithmetic: the sign). */
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

bool fast_widen_antiquant_avx512(const void *src, int int4, const float *sv,
                                 const float *ov, float s, float o, float *dst,
                                 int64_t n)
{
    const __m512i idx = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1,
                                         0, 0, 0, 0, 0, 0, 0, 0);
    const __m512i sh = _mm512_set_epi32(0, 4, 8, 12, 16, 20, 24, 28,
                                        0, 4, 8, 12, 16, 20, 24, 28);
    const __m512 vs = _mm512_set1_ps(s), vo = _mm512_set1_ps(o);
    __mmask16 bad = 0;
    const int8_t *b8 = (const int8_t *)src;
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 k = n - i >= 16 ? 0xffff
                                        : (__mmask16)((1u << (n - i)) - 1);
        __m512i x;
        if (int4) {
            /* (n - i + 1) / 2 bytes: a tail's odd last element reads the
             * byte that holds it, nothing past */
            const int nb = (int)(n - i >= 16 ? 8 : (n - i + 1) / 2);
            __m128i y = _mm_maskz_loadu_epi8((__mmask16)((1u << nb) - 1),
                                             b8 + i / 2);
            x = _mm512_permutexvar_epi32(idx, _mm512_castsi128_si512(y));
            x = _mm512_srai_epi32(_mm512_sllv_epi32(x, sh), 28);
        } else {
            x = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(k, b8 + i));
        }
        const __m512 so = sv ? _mm512_maskz_loadu_ps(k, ov + i) : vo;
        const __m512 ss = sv ? _mm512_maskz_loadu_ps(k, sv + i) : vs;
        __m512 f = _mm512_mul_ps(_mm512_add_ps(_mm512_cvtepi32_ps(x), so),
                                 ss);
        bad |= _mm512_mask_fpclass_ps_mask(k, f, 0x99); /* inf, NaN */
        _mm512_mask_storeu_ps(dst + i, k, f);
    }
    return bad == 0;
}

#endif
