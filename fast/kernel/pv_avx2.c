/* pv (contract: kernels.h), AVX2: P.V in tiles of 6 rows x 16 columns. */
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2


/* A tile is up to 6 rows x 16 columns: 12 accumulators, 2 vectors of V and
 * a broadcast of P in the 16 registers (4 rows measured 88 % of the FMA
 * peak in `fiacheck bench --kernels`, 6 rows 95 %). */
#define PV_RT 6
#define PV_DV 1 /* one unit of 16 columns: 2 vectors */
TILE_BODY void pv_tile(const float *pt, int64_t ldp, const int rt,
                    const float *v, int64_t ldv, int nk, const int dv,
                    const float *alpha, float *acc, int64_t ldacc)
{
    (void)dv; /* always 1 */
    __m256 a[PV_RT][2];
    acc_load(a, rt, alpha, acc, ldacc);
    for (int c = 0; c < nk; c++) {
        __m256 v0 = _mm256_loadu_ps(v + c * ldv);
        __m256 v1 = _mm256_loadu_ps(v + c * ldv + 8);
        UNROLL for (int r = 0; r < rt; r++) {
            __m256 b = _mm256_broadcast_ss(pt + c * ldp + r);
            a[r][0] = _mm256_fmadd_ps(b, v0, a[r][0]);
            a[r][1] = _mm256_fmadd_ps(b, v1, a[r][1]);
        }
    }
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int j = 0; j < 2; j++)
            _mm256_storeu_ps(acc + r * ldacc + 8 * j, a[r][j]);
}

#include "loop_pv.h"

void fast_pv_avx2(const float *pt, int64_t ldp, int mr, const float *v,
                  int64_t ldv, int nk, int64_t D, const float *alpha,
                  float *acc, int64_t ldacc)
{
    pv_loop(pt, ldp, mr, v, ldv, nk, D, alpha, acc, ldacc);
}

#endif
