/* scale: the scale attribute. */
#include "validate.h"

/* Layer 4.  RELEASED: scale is never validated (any double, inf and NaN
 * too); it is applied in float32.  Fills scale. */
fia_status fast_check_scale(const fast_args *a, fast_plan *p, fia_error *err)
{
    (void)err;
    p->scale = (float)a->scale;
    return FIA_OK;
}
