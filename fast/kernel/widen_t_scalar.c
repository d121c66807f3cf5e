/* widen_t (contract: kernels.h), portable; also the tail of the SIMD ones. */
#include "../fast_internal.h"

void fast_widen_t_scalar(fia_dtype dt, const uint16_t *const *rows,
                         int nrows, int64_t n, float *dst, int64_t ldd)
{
    for (int r = 0; r < 16; r++) {
        const uint16_t *src = r < nrows ? rows[r] : NULL;
        for (int64_t d = 0; d < n; d++)
            dst[d * ldd + r] = src == NULL ? 0.0f
                               : dt == FIA_DT_FP16 ? fast_fp16_to_float(src[d])
                                                   : fast_bf16_to_float(src[d]);
    }
}
