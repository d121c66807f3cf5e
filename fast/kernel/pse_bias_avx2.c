/* pse_bias (contract: kernels.h), AVX2: 8 rows x 8 keys of the pse at a time,
 * widened and transposed in registers (the pse is row-major, S^T
 * key-major: simd_avx2.h's transpose8), then per key the scaled scores of
 * the 8 rows plus their bias, clamped, stored, and folded into the block
 * max.  The last nk % 8 keys the same way from a copy of each row's run. */
#include <float.h>
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

void fast_pse_bias_avx2(fia_dtype dt, const uint16_t *const *bias, int mr,
                        int nk, float scale, float *st, int64_t lds,
                        float *bmax)
{
    const int rows = (mr + 15) & ~15;
    const __m256 vs = _mm256_set1_ps(scale);
    const __m256 lowest = _mm256_set1_ps(-FLT_MAX);
    for (int r0 = 0; r0 < rows; r0 += 8) {
        __m256 mx = _mm256_set1_ps(-INFINITY);
        for (int c0 = 0; c0 < nk; c0 += 8) {
            const int w = nk - c0 < 8 ? nk - c0 : 8;
            __m256 t[8];
            /* rows past mr (r0 >= mr: none of bias read) add 0 */
            widen_rows8(dt, r0 < mr ? bias + r0 : bias, mr - r0, c0, w, t);
            transpose8(t);
            UNROLL for (int c = 0; c < 8; c++) {
                if (c >= w)
                    break;
                float *x = st + (c0 + c) * lds + r0;
                /* the product rounded on its own: the empty asm keeps it
                 * from contracting with the addition into one FMA */
                __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x), vs);
                __asm__("" : "+x"(v));
                v = _mm256_add_ps(v, t[c]);
                v = _mm256_max_ps(lowest, v); /* NaN: v */
                _mm256_storeu_ps(x, v);
                mx = _mm256_max_ps(v, mx); /* a NaN leaves the max alone */
            }
        }
        if (bmax != NULL)
            _mm256_storeu_ps(bmax + r0, mx);
    }
}

#endif
