/* paged: page attention, block_table and block_size.  Not modeled yet: the
 * registered dtype of block_table, then its refusal.  block_size only
 * matters with a block_table, which alone enables page attention (002 约束
 * 说明: "page attention的使能必要条件是blockTable存在且有效"), so fast/ does
 * not look at it. */
#include "validate.h"

static const fast_opt_input inputs[] = {
    {FAST_OPT_BLOCK_TABLE, 1, {FIA_DT_INT32}},
};
#define NINPUTS (sizeof inputs / sizeof inputs[0])

/* Layer 2.  REG_OP: block_table int32. */
fia_status fast_check_paged_dtypes(const fast_args *a, fast_plan *p,
                                   fia_error *err)
{
    (void)p;
    return fast_check_opt_dtypes(a, inputs, NINPUTS, err);
}

/* Layer 3: a block_table passed, even empty. */
fia_status fast_check_paged(const fast_args *a, fast_plan *p, fia_error *err)
{
    (void)p;
    return fast_refuse_opt(a, inputs, NINPUTS, err);
}
