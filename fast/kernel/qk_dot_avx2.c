/* qk_dot (contract: kernels.h), AVX2: Q.K^T in the dot form (few rows:
 * decode), tiles of 2 rows x 4 keys over the whole of D. */
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

#define QKD_RT 2
#define QKD_KT 4
INLINE void qkdot_tile(const float *q, int64_t ldq, const int rt,
                       const float *k, int64_t ldk, const int kt, int64_t D,
                       float *st, int64_t lds)
{
    __m256 a[2][4];
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int c = 0; c < kt; c++)
            a[r][c] = _mm256_setzero_ps();
    for (int64_t d = 0; d < D; d += 8) {
        __m256 kv[4];
        UNROLL for (int c = 0; c < kt; c++)
            kv[c] = _mm256_loadu_ps(k + c * ldk + d);
        UNROLL for (int r = 0; r < rt; r++) {
            __m256 qv = _mm256_loadu_ps(q + r * ldq + d);
            UNROLL for (int c = 0; c < kt; c++)
                a[r][c] = _mm256_fmadd_ps(qv, kv[c], a[r][c]);
        }
    }
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int c = 0; c < kt; c++)
            st[c * lds + r] = hsum8(a[r][c]);
}

#include "loop_qk_dot.h"

void fast_qk_dot_avx2(const float *q, int64_t ldq, int mr, const float *k,
                      int64_t ldk, int nk, int64_t D, float *st, int64_t lds)
{
    qk_dot_loop(q, ldq, mr, k, ldk, nk, D, st, lds);
}

#endif
