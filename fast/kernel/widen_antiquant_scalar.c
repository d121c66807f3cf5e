/* widen_antiquant (contract: kernels.h), portable; also the tail of the SIMD
 * ones.  (x + o) then * s, each rounded in float32: the offset meets each
 * element before its product (docs/features/antiquant.md). */
#include "../fast_internal.h"

/* Element i of an int8 row, or of an int4 row (two per byte, low nibble
 * first, sign-extended from 4 bits). */
static inline int aq_elem(const void *src, int int4, int64_t i)
{
    if (!int4)
        return ((const int8_t *)src)[i];
    const uint8_t b = ((const uint8_t *)src)[i >> 1];
    const int x = (i & 1) ? b >> 4 : b & 15;
    return x >= 8 ? x - 16 : x;
}

bool fast_widen_antiquant_scalar(const void *src, int int4, const float *sv,
                                 const float *ov, float s, float o, float *dst,
                                 int64_t n)
{
    bool finite = true;
    for (int64_t i = 0; i < n; i++) {
        const float t = (float)aq_elem(src, int4, i) + (sv ? ov[i] : o);
        dst[i] = t * (sv ? sv[i] : s);
        finite &= isfinite(dst[i]) != 0;
    }
    return finite;
}
