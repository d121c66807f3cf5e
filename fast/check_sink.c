/* sink: 004's learnable_sink (fast_v2_extras).  Not computed yet: refused
 * as not modeled (layer 4). */
#include "validate.h"

static const fast_opt_input sink_inputs[] = {
    {FAST_OPT_LEARNABLE_SINK, 1, {FIA_DT_BF16}},
};

/* Layer 4. */
fia_status fast_check_sink(const fast_args *a, fast_plan *p, fia_error *err)
{
    (void)p;
    return fast_refuse_opt(a, sink_inputs, 1, err);
}
