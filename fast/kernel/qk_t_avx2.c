/* qk_t (contract: kernels.h), AVX2: Q.K^T, transposed. */
#include "qk_t_tile_avx2.h"
#ifdef FAST_HAVE_AVX2

void fast_qk_t_avx2(const float *qt, int64_t ldq, int mr, const float *k,
                    int64_t ldk, int nk, int64_t D, float *st, int64_t lds)
{
    qk_t_loop(qt, ldq, mr, k, ldk, nk, D, st, lds, 0, 1.0f, NULL);
}

#endif
