/* int8_quant_pquant (contract: kernels.h), AVX-512: 16 rows per vector, exp16
 * (simd_avx512.h, ~1 ulp, 0 below ln(FLT_MIN)), P rounded with
 * round-to-nearest-even and clamped to [-128, 127]. */
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

void fast_int8_quant_pquant_avx512(float *s, int64_t lds, int mr, int nk,
                                   float scale, const int32_t *lo,
                                   const int32_t *hi, const uint8_t *excl,
                                   const float *m, float qs, float *l)
{
    const __m512 vs = _mm512_set1_ps(scale), vq = _mm512_set1_ps(qs);
    const __m512 top = _mm512_set1_ps(127.0f), bot = _mm512_set1_ps(-128.0f);
    for (int r0 = 0; r0 < mr; r0 += 16) {
        const __m512i vlo = _mm512_loadu_si512(lo + r0);
        const __m512i vhi = _mm512_loadu_si512(hi + r0);
        const __m512 mx = _mm512_loadu_ps(m + r0);
        __m512 sum = _mm512_setzero_ps();
        for (int c = 0; c < nk; c++) {
            float *x = s + c * lds + r0;
            const __mmask16 in = keys_in16(vlo, vhi, c,
                                           excl ? excl + c * lds + r0 : NULL);
            const __m512 v = _mm512_mul_ps(_mm512_loadu_ps(x), vs);
            /* rows without a key have m = -inf: their lanes are masked */
            const __m512 e = _mm512_maskz_mov_ps(
                in, exp16(_mm512_sub_ps(v, mx)));
            sum = _mm512_add_ps(sum, e);
            /* a NaN weight (a score of +inf or NaN) stays NaN: min / max
             * return their second operand when one is NaN */
            __m512 t = _mm512_min_ps(top, _mm512_max_ps(bot,
                                                        _mm512_mul_ps(e, vq)));
            t = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEAREST_INT |
                                            _MM_FROUND_NO_EXC);
            _mm512_storeu_ps(x, _mm512_maskz_mov_ps(in, t));
        }
        _mm512_storeu_ps(l + r0, _mm512_add_ps(_mm512_loadu_ps(l + r0), sum));
    }
}

#endif
