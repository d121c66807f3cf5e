/* pse: at run time, where a block of keys reads its bias and what a row
 * whose every key scored -inf gives (docs/features/pse.md).  Query row i
 * of batch b, head n reads pse row fast_pse_row (the physical row under
 * query left padding, row 0 at Q_S = 1; batch 0 for a pse of batch 1) and
 * key j column fast_pse_col (fast_internal.h); the kernels add it after the
 * scale (kernels.h: pse_bias, decode). */
#include <float.h>
#include "fast_internal.h"

void fast_pse_block(const fast_plan *p, int64_t b,
                    const uint16_t *const *rows, int mr, int64_t j0,
                    const uint16_t **out)
{
    const int64_t c = fast_pse_col(p, b, j0);
    for (int r = 0; r < mr; r++)
        out[r] = rows[r] == NULL ? NULL : rows[r] + c;
}

/* The pse_bias kernels clamp a score of -inf to -FLT_MAX (kernels.h), so a
 * key of bias -inf weighs exp(-FLT_MAX - m) = 0 once any key of the row
 * has a larger score; a row's max stays -FLT_MAX only when every key it
 * used scored -inf (or exactly -FLT_MAX: |scale| q.k at the float32
 * limit, outside the error model), and such a row is NaN
 * (docs/semantics.md "Non-finite inputs": -inf - -inf). */
bool fast_pse_all_dropped(const fast_plan *p, float m)
{
    return p->pse.on && m == -FLT_MAX;
}

void fast_store_nan(const fast_plan *p, int64_t b, int64_t n, int64_t i)
{
    if (p->int8_out.on) { /* NaN has no int8 value (unspecified): 0 */
        fast_store_int8_out_fill(p, b, n, i, 0);
        fast_store_lse(p, b, n, i, NAN);
        return;
    }
    const uint16_t nan = p->dt == FIA_DT_FP16 ? 0x7e00u : 0x7fc0u;
    uint16_t *o = fast_out_row(p, b, n, i);
    for (int64_t d = 0; d < p->D; d++)
        o[d] = nan;
    fast_store_lse(p, b, n, i, NAN);
}
