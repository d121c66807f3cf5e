/* widen_nz (contract: kernels.h), portable: an NZ cache row, tile by
 * tile through the portable widen. */
#include "../fast_internal.h"

bool fast_widen_nz_scalar(fia_dtype dt, const uint16_t *src, int64_t ld,
                          float *dst, int64_t n)
{
    bool finite = true;
    for (int64_t t = 0; t * 16 < n; t++)
        finite &= fast_widen_scalar(dt, src + t * ld, dst + t * 16, 16);
    return finite;
}
