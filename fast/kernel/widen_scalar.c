/* widen (contract: kernels.h), portable; also the tail of the SIMD ones. */
#include "../fast_internal.h"

bool fast_widen_scalar(fia_dtype dt, const uint16_t *src, float *dst,
                       int64_t n)
{
    uint16_t em = dt == FIA_DT_FP16 ? 0x7c00u : 0x7f80u;
    bool finite = true;
    for (int64_t i = 0; i < n; i++) {
        dst[i] = dt == FIA_DT_FP16 ? fast_fp16_to_float(src[i])
                                   : fast_bf16_to_float(src[i]);
        finite &= (src[i] & em) != em;
    }
    return finite;
}
