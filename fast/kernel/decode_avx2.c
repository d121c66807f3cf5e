/* decode (contract: kernels.h), AVX2: the fused decode kernel, one
 * operation, in the loops of loop_decode.h.
 *
 * The steps of kernel->decode on blocks of DEC_KB keys,
 * K and V read as fp16/bf16 and widened in registers: Q.K^T as 4 rows x 2
 * keys of dot products, the softmax per row, P.V as 4 rows x 16 columns.
 * V of the block DEC_PFV ahead is prefetched during Q.K^T and K of the
 * block DEC_PFK ahead during P.V (decode streams K/V from memory). */
#include <float.h>
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

#define DEC_KB 16
#define DEC_PFV 16
#define DEC_PFK 32
#define DEC_RT 4 /* rows per tile */
#define DEC_KT 2 /* keys per Q.K^T tile */
#define DEC_DV 1 /* units of 16 columns per P.V tile */

#include "dec_softmax_avx2.h"

/* s[r*DEC_KB + c] = q_r . k_c for rt rows (1..4) x kt keys (1..2) */
TILE_BODY void dec_qk_tile(const float *q, int64_t ldq, const int rt,
                        const uint16_t *k, int64_t ldk, const int kt,
                        int64_t D, float *s, const int bf,
                        const uint16_t *pv)
{
    __m256 a[4][2];
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int c = 0; c < kt; c++)
            a[r][c] = _mm256_setzero_ps();
    for (int64_t d = 0; d < D; d += 8) {
        __m256 kv[2];
        UNROLL for (int c = 0; c < kt; c++)
            kv[c] = dec_ld(k + c * ldk + d, bf);
        if (pv != NULL && d % 32 == 0) /* the lines of V this block reads */
            UNROLL for (int c = 0; c < kt; c++)
                _mm_prefetch((const char *)(pv + c * ldk + d), _MM_HINT_T0);
        UNROLL for (int r = 0; r < rt; r++) {
            __m256 qv = _mm256_loadu_ps(q + r * ldq + d);
            UNROLL for (int c = 0; c < kt; c++)
                a[r][c] = _mm256_fmadd_ps(qv, kv[c], a[r][c]);
        }
    }
    if (kt == 2) { /* the two sums of a row in one tree */
        UNROLL for (int r = 0; r < rt; r++) {
            __m256 h = _mm256_hadd_ps(a[r][0], a[r][1]);
            __m128 x = _mm_add_ps(_mm256_castps256_ps128(h),
                                  _mm256_extractf128_ps(h, 1));
            /* x: k0 (0+1), k0 (2+3), k1 (0+1), k1 (2+3) */
            x = _mm_hadd_ps(x, x);
            _mm_storel_pi((__m64 *)(void *)(s + r * DEC_KB), x);
        }
        return;
    }
    UNROLL for (int r = 0; r < rt; r++)
        s[r * DEC_KB] = hsum8(a[r][0]);
}

/* acc[r][d0 + 8j] = acc * alpha[r] + sum_c p[r][c] v[c][d0 + 8j], j < 2 */
TILE_BODY void dec_pv_tile(const float *p, const int rt, const uint16_t *v,
                        int64_t ldv, int nb, const int dv,
                        const float *alpha, float *acc, int64_t ldacc,
                        const int bf, const uint16_t *pk)
{
    (void)dv; /* always 1 */
    __m256 a[4][2];
    acc_load(a, rt, alpha, acc, ldacc);
    for (int c = 0; c < nb; c++) {
        __m256 vv[2];
        UNROLL for (int j = 0; j < 2; j++)
            vv[j] = dec_ld(v + c * ldv + 8 * j, bf);
        if (pk != NULL) /* the next blocks' K, spread over this loop */
            _mm_prefetch((const char *)(pk + c * ldv), _MM_HINT_T0);
        UNROLL for (int r = 0; r < rt; r++) {
            __m256 b = _mm256_broadcast_ss(p + r * DEC_KB + c);
            UNROLL for (int j = 0; j < 2; j++)
                a[r][j] = _mm256_fmadd_ps(b, vv[j], a[r][j]);
        }
    }
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int j = 0; j < 2; j++)
            _mm256_storeu_ps(acc + r * ldacc + 8 * j, a[r][j]);
}

#include "loop_decode.h"

bool fast_decode_avx2(const float *q, int64_t ldq, int mr,
                      const uint16_t *const *k,
                      const uint16_t *const *v, int64_t ldkv,
                      const uint16_t *const *bias, int64_t nk, int64_t D,
                      fia_dtype dt, float scale, int round, float *m,
                      float *l, float *acc, int64_t ldacc)
{
    dec_run_dt(q, ldq, mr, k, v, ldkv, bias, nk, D, dt, scale, round, m, l,
               acc, ldacc);
    return dec_finite(mr, m, l, acc, ldacc, D);
}

#endif
