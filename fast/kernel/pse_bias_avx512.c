/* pse_bias (contract: kernels.h), AVX-512: 16 rows x 16 keys of the pse at a
 * time, widened and transposed in registers (the pse is row-major, S^T
 * key-major: simd_avx512.h's transpose16), then per key the scaled scores
 * of the 16 rows plus their bias, clamped, stored, and folded into the
 * block max.  The key tail by masked loads. */
#include <float.h>
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

void fast_pse_bias_avx512(fia_dtype dt, const uint16_t *const *bias, int mr,
                          int nk, float scale, float *st, int64_t lds,
                          float *bmax)
{
    const int rows = (mr + 15) & ~15;
    const __m512 vs = _mm512_set1_ps(scale);
    const __m512 lowest = _mm512_set1_ps(-FLT_MAX);
    for (int r0 = 0; r0 < rows; r0 += 16) {
        __m512 mx = _mm512_set1_ps(-INFINITY);
        for (int c0 = 0; c0 < nk; c0 += 16) {
            const int w = nk - c0 < 16 ? nk - c0 : 16;
            __m512 t[16];
            widen_rows16(dt, bias + r0, mr - r0, c0, w, t);
            transpose16(t);
            UNROLL for (int c = 0; c < 16; c++) {
                if (c >= w)
                    break;
                float *x = st + (c0 + c) * lds + r0;
                /* scaled() rounds the product on its own (no FMA);
                 * max(lowest, v) returns v when v is NaN */
                __m512 v = _mm512_add_ps(scaled(x, vs), t[c]);
                v = _mm512_max_ps(lowest, v);
                _mm512_storeu_ps(x, v);
                mx = _mm512_max_ps(v, mx); /* a NaN leaves the max alone */
            }
        }
        if (bmax != NULL)
            _mm512_storeu_ps(bmax + r0, mx);
    }
}

#endif
