/* widen_t (contract: kernels.h), AVX2. */
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

/* Two groups of 8 rows, each 8 columns at a time: 8 rows widened, an 8 x 8
 * transpose in registers (pairs of floats, quads, then 128-bit halves), 8
 * floats per column stored; the last n % 8 columns by the portable code. */
void fast_widen_t_avx2(fia_dtype dt, const uint16_t *const *rows,
                       int nrows, int64_t n, float *dst, int64_t ldd)
{
    const bool h = dt == FIA_DT_FP16;
    const int64_t n8 = n & ~(int64_t)7;
    for (int g = 0; g < 16; g += 8) {
        for (int64_t d0 = 0; d0 < n8; d0 += 8) {
            __m256 x[8], t[8];
            UNROLL for (int r = 0; r < 8; r++) {
                const uint16_t *src = g + r < nrows ? rows[g + r] : NULL;
                if (src == NULL) {
                    x[r] = _mm256_setzero_ps();
                    continue;
                }
                __m128i v = _mm_loadu_si128((const __m128i *)(src + d0));
                x[r] = h ? _mm256_cvtph_ps(v)
                         : _mm256_castsi256_ps(_mm256_slli_epi32(
                               _mm256_cvtepu16_epi32(v), 16));
            }
            UNROLL for (int r = 0; r < 8; r += 2) {
                t[r] = _mm256_unpacklo_ps(x[r], x[r + 1]);
                t[r + 1] = _mm256_unpackhi_ps(x[r], x[r + 1]);
            }
            /* x[4q + j]: in half l, column 4l + j of rows 4q..4q+3 */
            UNROLL for (int r = 0; r < 8; r += 4) {
                x[r] = _mm256_shuffle_ps(t[r], t[r + 2], 0x44);
                x[r + 1] = _mm256_shuffle_ps(t[r], t[r + 2], 0xee);
                x[r + 2] = _mm256_shuffle_ps(t[r + 1], t[r + 3], 0x44);
                x[r + 3] = _mm256_shuffle_ps(t[r + 1], t[r + 3], 0xee);
            }
            UNROLL for (int j = 0; j < 4; j++) {
                t[j] = _mm256_permute2f128_ps(x[j], x[4 + j], 0x20);
                t[4 + j] = _mm256_permute2f128_ps(x[j], x[4 + j], 0x31);
            }
            UNROLL for (int c = 0; c < 8; c++)
                _mm256_storeu_ps(dst + (d0 + c) * ldd + g, t[c]);
        }
    }
    if (n8 < n) { /* the tail columns: rows offset by n8 */
        const uint16_t *tail[16];
        for (int r = 0; r < nrows; r++)
            tail[r] = rows[r] == NULL ? NULL : rows[r] + n8;
        fast_widen_t_scalar(dt, tail, nrows, n - n8, dst + n8 * ldd, ldd);
    }
}

#endif
