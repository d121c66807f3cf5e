/* pse_bias (contract: kernels.h), portable: the scores scaled, the pse added,
 * -inf clamped to -FLT_MAX, one element at a time; the reference the SIMD
 * levels match bit for bit (every step is one IEEE operation). */
#include <float.h>
#include "../fast_internal.h"

void fast_pse_bias_scalar(fia_dtype dt, const uint16_t *const *bias, int mr,
                          int nk, float scale, float *st, int64_t lds,
                          float *bmax)
{
    const int rows = (mr + 15) & ~15;
    for (int r = 0; r < rows; r++) {
        const uint16_t *b = r < mr ? bias[r] : NULL;
        float mx = -INFINITY;
        for (int c = 0; c < nk; c++) {
            float *x = st + c * lds + r;
            float s = *x * scale; /* rounded on its own: two statements */
            s += b == NULL ? 0.0f
                 : dt == FIA_DT_FP16 ? fast_fp16_to_float(b[c])
                                     : fast_bf16_to_float(b[c]);
            s = s < -FLT_MAX ? -FLT_MAX : s; /* NaN compares false */
            *x = s;
            mx = s > mx ? s : mx;            /* NaN skipped */
        }
        if (bmax != NULL)
            bmax[r] = mx;
    }
}
