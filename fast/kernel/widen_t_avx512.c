/* widen_t (contract: kernels.h), AVX-512. */
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

/* 16 rows widened, then a 16 x 16 transpose in registers (simd_avx512.h),
 * 16 floats per column stored; replaced a scalar scatter down the columns
 * of Q^T (~2 % of the prefill bench). */
void fast_widen_t_avx512(fia_dtype dt, const uint16_t *const *rows,
                         int nrows, int64_t n, float *dst, int64_t ldd)
{
    for (int64_t d0 = 0; d0 < n; d0 += 16) {
        const int64_t w = n - d0 < 16 ? n - d0 : 16;
        __m512 x[16];
        widen_rows16(dt, rows, nrows, d0, w, x);
        transpose16(x);
        UNROLL for (int c = 0; c < 16; c++)
            if (c < w)
                _mm512_storeu_ps(dst + (d0 + c) * ldd, x[c]);
    }
}

#endif
