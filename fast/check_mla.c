/* mla: the MLA rope inputs query_rope and key_rope (003 §参数说明, the
 * extended entry's fast_v2_extras).  Their registered dtypes (fp16, bf16)
 * in layer 2; the feature itself is not computed yet (layer 4). */
#include "validate.h"

static const fast_opt_input mla_inputs[] = {
    {FAST_OPT_QUERY_ROPE, 2, {FIA_DT_FP16, FIA_DT_BF16}},
    {FAST_OPT_KEY_ROPE, 2, {FIA_DT_FP16, FIA_DT_BF16}},
};

/* Layer 2. */
fia_status fast_check_mla_dtypes(const fast_args *a, fast_plan *p,
                                 fia_error *err)
{
    (void)p;
    return fast_check_opt_dtypes(a, mla_inputs,
                                 sizeof mla_inputs / sizeof mla_inputs[0],
                                 err);
}

/* Layer 4. */
fia_status fast_check_mla(const fast_args *a, fast_plan *p, fia_error *err)
{
    (void)p;
    return fast_refuse_opt(a, mla_inputs,
                           sizeof mla_inputs / sizeof mla_inputs[0], err);
}
