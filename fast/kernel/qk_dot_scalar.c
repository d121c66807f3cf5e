/* qk_dot (contract: kernels.h), portable: 4 partial sums per dot product. */
#include "../fast_internal.h"

void fast_qk_dot_scalar(const float *q, int64_t ldq, int mr, const float *k,
                        int64_t ldk, int nk, int64_t D, float *st,
                        int64_t lds)
{
    for (int r = 0; r < mr; r++) {
        const float *qr = q + r * ldq;
        for (int c = 0; c < nk; c++) {
            const float *kc = k + c * ldk;
            float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
            for (int64_t d = 0; d + 4 <= D; d += 4) {
                a0 += qr[d] * kc[d];
                a1 += qr[d + 1] * kc[d + 1];
                a2 += qr[d + 2] * kc[d + 2];
                a3 += qr[d + 3] * kc[d + 3];
            }
            st[c * lds + r] = (a0 + a1) + (a2 + a3);
        }
    }
}
