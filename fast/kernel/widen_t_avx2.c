/* widen_t (contract: kernels.h), AVX2. */
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

/* Two groups of 8 rows, each 8 columns at a time: 8 rows widened, an 8 x 8
 * transpose in registers (simd_avx2.h), 8 floats per column stored; the
 * last n % 8 columns by the portable code. */
void fast_widen_t_avx2(fia_dtype dt, const uint16_t *const *rows,
                       int nrows, int64_t n, float *dst, int64_t ldd)
{
    const int64_t n8 = n & ~(int64_t)7;
    for (int g = 0; g < 16; g += 8) {
        for (int64_t d0 = 0; d0 < n8; d0 += 8) {
            __m256 x[8];
            widen_rows8(dt, rows + g, nrows - g, d0, 8, x);
            transpose8(x);
            UNROLL for (int c = 0; c < 8; c++)
                _mm256_storeu_ps(dst + (d0 + c) * ldd + g, x[c]);
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
