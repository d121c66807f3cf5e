/* pv (contract: kernels.h), portable: keys with p = 0 skipped (so an inf
 * or NaN in V under p = 0 stays out). */
#include "../fast_internal.h"

void fast_pv_scalar(const float *pt, int64_t ldp, int mr, const float *v,
                    int64_t ldv, int nk, int64_t D, const float *alpha,
                    float *acc, int64_t ldacc)
{
    for (int r = 0; r < mr; r++) {
        float *ar = acc + r * ldacc;
        if (alpha[r] != 1.0f)
            for (int64_t d = 0; d < D; d++)
                ar[d] *= alpha[r];
        for (int c = 0; c < nk; c++) {
            float pc = pt[c * ldp + r];
            if (pc == 0.0f)
                continue; /* keys that take no part, underflow */
            const float *vc = v + c * ldv;
            for (int64_t d = 0; d < D; d++)
                ar[d] += pc * vc[d];
        }
    }
}
