/* pv (contract: kernels.h), AVX-512: P.V in tiles of 6 rows x 64 columns
 * (24 accumulators, 4 vectors of V). */
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

#define PV_RT 6
#define PV_DV 4
TILE_BODY void pv_tile(const float *pt, int64_t ldp, const int rt,
                    const float *v, int64_t ldv, int nk, const int dv,
                    const float *alpha, float *acc, int64_t ldacc)
{
    __m512 a[6][4];
    acc_load(a, rt, dv, alpha, acc, ldacc);
    for (int c = 0; c < nk; c++) {
        __m512 vv[4];
        UNROLL for (int j = 0; j < dv; j++)
            vv[j] = _mm512_loadu_ps(v + c * ldv + 16 * j);
        UNROLL for (int r = 0; r < rt; r++) {
            __m512 b = _mm512_set1_ps(pt[c * ldp + r]);
            UNROLL for (int j = 0; j < dv; j++)
                a[r][j] = _mm512_fmadd_ps(b, vv[j], a[r][j]);
        }
    }
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int j = 0; j < dv; j++)
            _mm512_storeu_ps(acc + r * ldacc + 16 * j, a[r][j]);
}

#include "loop_pv.h"

void fast_pv_avx512(const float *pt, int64_t ldp, int mr, const float *v,
                    int64_t ldv, int nk, int64_t D, const float *alpha,
                    float *acc, int64_t ldacc)
{
    pv_loop(pt, ldp, mr, v, ldv, nk, D, alpha, acc, ldacc);
}

#endif
