/* softmax_full (contract: kernels.h), AVX-512: the softmax step after
 * qk_t_max, whose output is scaled already with each row's block max in
 * bmax; every key takes part in every row (no masks). */
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

void fast_softmax_full_avx512(float *s, int64_t lds, int mr, int nk,
                              const float *bmax, int round, float *m,
                              float *l, float *alpha)
{
    for (int r0 = 0; r0 < mr; r0 += 16)
        softmax_finish16(s + r0, lds, nk, _mm512_loadu_ps(bmax + r0),
                         nk > 0 ? 0xffff : 0, true, NULL, round, m + r0,
                         l + r0, alpha + r0);
}

#endif
