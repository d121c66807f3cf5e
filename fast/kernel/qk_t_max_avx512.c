/* qk_t_max (contract: kernels.h), AVX-512: Q.K^T, transposed, with the
 * first pass of the softmax (scale, block max per row) on the registers. */
#include "qk_t_tile_avx512.h"
#ifdef FAST_HAVE_AVX512

void fast_qk_t_max_avx512(const float *qt, int64_t ldq, int mr,
                          const float *k, int64_t ldk, int nk, int64_t D,
                          float scale, float *st, int64_t lds, float *bmax)
{
    qk_t_loop(qt, ldq, mr, k, ldk, nk, D, st, lds, 1, scale, bmax);
}

#endif
