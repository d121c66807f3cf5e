/* qk_t (contract: kernels.h), portable.  The scalar kernels are the
 * reference every SIMD table is tested against (tests/test_fast_kernels.c)
 * and the fallback on any CPU: every table computes the same float32
 * operations up to summation order and the exp implementation (libm here,
 * a polynomial in the SIMD tables). */
#include "../fast_internal.h"

void fast_qk_t_scalar(const float *qt, int64_t ldq, int mr, const float *k,
                      int64_t ldk, int nk, int64_t D, float *st, int64_t lds)
{
    for (int c = 0; c < nk; c++) {
        float *sc = st + c * lds;
        for (int r = 0; r < mr; r++)
            sc[r] = 0.0f;
        for (int64_t d = 0; d < D; d++) {
            const float kd = k[c * ldk + d], *qd = qt + d * ldq;
            for (int r = 0; r < mr; r++)
                sc[r] += kd * qd[r];
        }
    }
}
