/* store_int8_out (contract: kernels.h), portable; also the tail of the SIMD
 * ones.  The int8 output of a row (docs/features/int8_out.md): x = acc / l
 * in float32, y = x * qs + qo in float32 (two roundings, or one when the
 * compiler contracts them: both within the bound), clamped to [-128, 127]
 * and rounded half to even.  A NaN has no int8 value (unspecified): 0. */
#include <math.h>
#include "../fast_internal.h"

void fast_store_int8_out_scalar(const float *acc, double l, const float *qs,
                                const float *qo, int64_t qstride, int8_t *dst,
                                int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        float y = (float)((double)acc[i] / l) * qs[i * qstride];
        if (qo != NULL)
            y += qo[i * qstride];
        if (isnan(y)) {
            dst[i] = 0;
            continue;
        }
        y = y < -128.0f ? -128.0f : y > 127.0f ? 127.0f : y;
        dst[i] = (int8_t)nearbyintf(y);
    }
}
