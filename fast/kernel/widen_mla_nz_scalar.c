/* widen_mla_nz (contract: kernels.h), portable: tile by tile, each tile's
 * rows through the portable widen. */
#include "../fast_internal.h"

bool fast_widen_mla_nz_scalar(fia_dtype dt, const uint16_t *src, int64_t ld,
                              int nrows, float *dst, int64_t ldd, int64_t n)
{
    bool finite = true;
    for (int64_t t = 0; t * 16 < n; t++)
        for (int r = 0; r < nrows; r++)
            finite &= fast_widen_scalar(dt, src + t * ld + r * 16,
                                        dst + r * ldd + t * 16, 16);
    return finite;
}
