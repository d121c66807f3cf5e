/* softmax (contract: kernels.h), AVX-512: one online-softmax step, 16 rows
 * per vector.  A run of 16 rows where every key of the block takes part
 * (lo = 0, hi >= nk - 1, no exclusion) takes the loop without masks. */
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

void fast_softmax_avx512(float *s, int64_t lds, int mr, int nk,
                         float scale, const int32_t *lo, const int32_t *hi,
                         const uint8_t *excl, int round, float *m, float *l,
                         float *alpha)
{
    const __m512 vs = _mm512_set1_ps(scale);
    __mmask16 valid[FAST_KBLOCK];
    for (int r0 = 0; r0 < mr; r0 += 16) {
        __m512i vlo = _mm512_loadu_si512(lo + r0);
        __m512i vhi = _mm512_loadu_si512(hi + r0);
        /* every key of the block takes part in all 16 rows: no masks */
        const bool full =
            excl == NULL &&
            _mm512_cmpeq_epi32_mask(vlo, _mm512_setzero_si512()) == 0xffff &&
            _mm512_cmpge_epi32_mask(vhi, _mm512_set1_epi32(nk - 1)) == 0xffff;
        __m512 bmax = _mm512_set1_ps(-INFINITY);
        __mmask16 any = 0;
        if (full) {
            any = nk > 0 ? 0xffff : 0;
            for (int c = 0; c < nk; c++) {
                __m512 v = scaled(s + c * lds + r0, vs);
                _mm512_storeu_ps(s + c * lds + r0, v);
                /* a NaN score leaves the max alone (max returns its
                 * second operand), like the scalar kernel's v > bmax */
                bmax = _mm512_max_ps(v, bmax);
            }
        } else {
            for (int c = 0; c < nk; c++) {
                __mmask16 in = keys_in16(vlo, vhi, c,
                                         excl ? excl + c * lds + r0 : NULL);
                valid[c] = in;
                any |= in;
                __m512 v = scaled(s + c * lds + r0, vs);
                _mm512_storeu_ps(s + c * lds + r0, v);
                bmax = _mm512_mask_max_ps(bmax, in, v, bmax);
            }
        }
        softmax_finish16(s + r0, lds, nk, bmax, any, full, valid, round,
                         m + r0, l + r0, alpha + r0);
    }
}

#endif
