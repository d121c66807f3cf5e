/* store (contract: kernels.h), portable; also the tail of the SIMD ones
 * and the store of attention.c's own rows. */
#include "../fast_internal.h"

void fast_store_scalar(fia_dtype dt, const float *acc, double l,
                       uint16_t *dst, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        double x = (double)acc[i] / l;
        dst[i] = dt == FIA_DT_FP16 ? fast_double_to_fp16(x)
                                   : fast_double_to_bf16(x);
    }
}
