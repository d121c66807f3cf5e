/* qk_dot (contract: kernels.h), AVX-512: Q.K^T in the dot form (few rows:
 * decode), tiles of 4 rows x 4 keys over the whole of D. */
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

#define QKD_RT 4
#define QKD_KT 4

INLINE void qkdot_tile(const float *q, int64_t ldq, const int rt,
                       const float *k, int64_t ldk, const int kt, int64_t D,
                       float *st, int64_t lds)
{
    __m512 a[4][4];
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int c = 0; c < kt; c++)
            a[r][c] = _mm512_setzero_ps();
    for (int64_t d = 0; d < D; d += 16) {
        __m512 kv[4];
        UNROLL for (int c = 0; c < kt; c++)
            kv[c] = _mm512_loadu_ps(k + c * ldk + d);
        UNROLL for (int r = 0; r < rt; r++) {
            __m512 qv = _mm512_loadu_ps(q + r * ldq + d);
            UNROLL for (int c = 0; c < kt; c++)
                a[r][c] = _mm512_fmadd_ps(qv, kv[c], a[r][c]);
        }
    }
    if (kt == 4) { /* the 4 sums of a row in one tree */
        UNROLL for (int r = 0; r < rt; r++) {
            float sums[4];
            _mm_storeu_ps(sums, hsum4x16(a[r]));
            UNROLL for (int c = 0; c < 4; c++)
                st[c * lds + r] = sums[c];
        }
        return;
    }
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int c = 0; c < kt; c++)
            st[c * lds + r] = _mm512_reduce_add_ps(a[r][c]);
}

#include "loop_qk_dot.h"

void fast_qk_dot_avx512(const float *q, int64_t ldq, int mr, const float *k,
                        int64_t ldk, int nk, int64_t D, float *st,
                        int64_t lds)
{
    qk_dot_loop(q, ldq, mr, k, ldk, nk, D, st, lds);
}

#endif
