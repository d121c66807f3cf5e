/* Portable scalar micro-kernels and the runtime dispatch point.
 *
 * A SIMD kernel set (AVX2, NEON, ...) is another `fast_kernels` table in its
 * own kernel_<isa>.c, compiled with the matching target attribute, and
 * chosen in fast_kernels_select() after a CPU feature check.  Every table
 * must compute the same float32 operations up to summation order. */
#include "fast_internal.h"

static void qk_block_scalar(const float *q, int64_t ldq, int mr,
                            const float *k, int64_t ldk, int nr, int64_t D,
                            float *s, int64_t lds)
{
    for (int r = 0; r < mr; r++) {
        const float *qr = q + r * ldq;
        for (int c = 0; c < nr; c++) {
            const float *kc = k + c * ldk;
            /* four partial sums: vectorizable and a little more accurate */
            float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
            int64_t d = 0;
            for (; d + 4 <= D; d += 4) {
                a0 += qr[d] * kc[d];
                a1 += qr[d + 1] * kc[d + 1];
                a2 += qr[d + 2] * kc[d + 2];
                a3 += qr[d + 3] * kc[d + 3];
            }
            for (; d < D; d++)
                a0 += qr[d] * kc[d];
            s[r * lds + c] = (a0 + a1) + (a2 + a3);
        }
    }
}

static void pv_block_scalar(const float *p, int64_t ldp, int mr,
                            const float *v, int64_t ldv, int nr, int64_t D,
                            float *acc, int64_t ldacc)
{
    for (int r = 0; r < mr; r++) {
        float *ar = acc + r * ldacc;
        const float *pr = p + r * ldp;
        for (int c = 0; c < nr; c++) {
            float pc = pr[c];
            if (pc == 0.0f)
                continue; /* masked keys and underflow */
            const float *vc = v + c * ldv;
            for (int64_t d = 0; d < D; d++)
                ar[d] += pc * vc[d];
        }
    }
}

static void widen_scalar(fia_dtype dt, const uint16_t *src, float *dst,
                         int64_t n)
{
    if (dt == FIA_DT_FP16) {
        for (int64_t i = 0; i < n; i++)
            dst[i] = fast_fp16_to_float(src[i]);
    } else {
        for (int64_t i = 0; i < n; i++)
            dst[i] = fast_bf16_to_float(src[i]);
    }
}

const fast_kernels fast_kernels_scalar = {
    .name = "scalar",
    .qk_block = qk_block_scalar,
    .pv_block = pv_block_scalar,
    .widen = widen_scalar,
};

const fast_kernels *fast_kernels_select(void)
{
    return &fast_kernels_scalar;
}
