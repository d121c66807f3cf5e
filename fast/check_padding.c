/* padding: query and key/value left padding (query_padding_size,
 * kv_padding_size).  Not modeled yet: their registered dtypes, then their
 * refusal. */
#include "validate.h"

static const fast_opt_input inputs[] = {
    {FAST_OPT_QUERY_PADDING_SIZE, 1, {FIA_DT_INT64}},
    {FAST_OPT_KV_PADDING_SIZE, 1, {FIA_DT_INT64}},
};
#define NINPUTS (sizeof inputs / sizeof inputs[0])

/* Layer 2.  REG_OP: int64. */
fia_status fast_check_padding_dtypes(const fast_args *a, fast_plan *p,
                                     fia_error *err)
{
    (void)p;
    return fast_check_opt_dtypes(a, inputs, NINPUTS, err);
}

/* Layer 3: either passed, even empty. */
fia_status fast_check_padding(const fast_args *a, fast_plan *p,
                              fia_error *err)
{
    (void)p;
    return fast_refuse_opt(a, inputs, NINPUTS, err);
}
