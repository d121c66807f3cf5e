/* prefix: the shared system prefix (key_shared_prefix,
 * value_shared_prefix, actual_shared_prefix_len).  Not modeled yet: the
 * registered dtypes of the tensors, then the refusal. */
#include "validate.h"

static const fast_opt_input inputs[] = {
    {FAST_OPT_KEY_SHARED_PREFIX, 3, {FIA_DT_INT8, FIA_DT_FP16, FIA_DT_BF16}},
    {FAST_OPT_VALUE_SHARED_PREFIX, 3, {FIA_DT_INT8, FIA_DT_FP16, FIA_DT_BF16}},
};
#define NINPUTS (sizeof inputs / sizeof inputs[0])

/* Layer 2.  REG_OP: int8, fp16, bf16 (as key and value). */
fia_status fast_check_prefix_dtypes(const fast_args *a, fast_plan *p,
                                    fia_error *err)
{
    (void)p;
    return fast_check_opt_dtypes(a, inputs, NINPUTS, err);
}

/* Layer 3: a prefix tensor passed (even empty), then the length array. */
fia_status fast_check_prefix(const fast_args *a, fast_plan *p, fia_error *err)
{
    (void)p;
    fia_status st = fast_refuse_opt(a, inputs, NINPUTS, err);
    if (st != FIA_OK)
        return st;
    if (a->prefix_len)
        FAST_NOTMOD("M_OPTIONAL", "actual_shared_prefix_len is not modeled "
                    "yet");
    return FIA_OK;
}
