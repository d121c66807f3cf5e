/* widen_t (contract: kernels.h), AVX-512. */
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

/* 16 rows widened, then a 16 x 16 transpose in registers (4 rounds of
 * shuffles: pairs of floats, quads, 128-bit lanes twice), 16 floats per
 * column stored; replaced a scalar scatter down the columns of Q^T (~2 %
 * of the prefill bench). */
void fast_widen_t_avx512(fia_dtype dt, const uint16_t *const *rows,
                         int nrows, int64_t n, float *dst, int64_t ldd)
{
    const bool h = dt == FIA_DT_FP16;
    for (int64_t d0 = 0; d0 < n; d0 += 16) {
        const int64_t w = n - d0 < 16 ? n - d0 : 16;
        const __mmask16 k = (__mmask16)((1u << w) - 1);
        __m512 x[16], t[16];
        UNROLL for (int r = 0; r < 16; r++) {
            const uint16_t *src = r < nrows ? rows[r] : NULL;
            if (src == NULL) {
                x[r] = _mm512_setzero_ps();
                continue;
            }
            __m256i v = _mm256_maskz_loadu_epi16(k, src + d0);
            x[r] = h ? _mm512_cvtph_ps(v)
                     : _mm512_castsi512_ps(
                           _mm512_slli_epi32(_mm512_cvtepu16_epi32(v), 16));
        }
        /* t: pairs of rows interleaved */
        UNROLL for (int r = 0; r < 16; r += 2) {
            t[r] = _mm512_unpacklo_ps(x[r], x[r + 1]);
            t[r + 1] = _mm512_unpackhi_ps(x[r], x[r + 1]);
        }
        /* x: 4 rows per 128-bit lane */
        UNROLL for (int r = 0; r < 16; r += 4) {
            x[r] = _mm512_castpd_ps(_mm512_unpacklo_pd(
                _mm512_castps_pd(t[r]), _mm512_castps_pd(t[r + 2])));
            x[r + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(
                _mm512_castps_pd(t[r]), _mm512_castps_pd(t[r + 2])));
            x[r + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(
                _mm512_castps_pd(t[r + 1]), _mm512_castps_pd(t[r + 3])));
            x[r + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(
                _mm512_castps_pd(t[r + 1]), _mm512_castps_pd(t[r + 3])));
        }
        /* now lane l (128 bits) of x[4g + j] is column 4l + j of rows
         * 4g..4g+3; gather the four groups' lanes l of each column */
        UNROLL for (int j = 0; j < 4; j++) {
            /* t[j]: lanes 0, 2 of groups 0 and 1; t[4 + j]: lanes 1, 3 of
             * them; t[8 + j], t[12 + j]: the same of groups 2 and 3 */
            t[j] = _mm512_shuffle_f32x4(x[j], x[4 + j], 0x88);
            t[4 + j] = _mm512_shuffle_f32x4(x[j], x[4 + j], 0xdd);
            t[8 + j] = _mm512_shuffle_f32x4(x[8 + j], x[12 + j], 0x88);
            t[12 + j] = _mm512_shuffle_f32x4(x[8 + j], x[12 + j], 0xdd);
        }
        UNROLL for (int j = 0; j < 4; j++) {
            /* column 4l + j, rows 0-15 */
            x[j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0x88);
            x[4 + j] = _mm512_shuffle_f32x4(t[4 + j], t[12 + j], 0x88);
            x[8 + j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0xdd);
            x[12 + j] = _mm512_shuffle_f32x4(t[4 + j], t[12 + j], 0xdd);
        }
        UNROLL for (int c = 0; c < 16; c++)
            if (c < w)
                _mm512_storeu_ps(dst + (d0 + c) * ldd, x[c]);
    }
}

#endif
