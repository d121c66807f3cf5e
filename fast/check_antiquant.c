/* antiquant: key/value antiquantization (int8/int4 K/V widened with a
 * scale and offset).  Two sets of inputs, two rows per layer: the shared
 * antiquant_scale/offset (antiquantMode), and the separate
 * key_/value_antiquant_scale/offset (keyAntiquantMode, valueAntiquantMode),
 * which come after block_table and the paddings in REG_OP order.  Not
 * modeled yet: their registered dtypes, then their refusal.  The modes
 * only matter with these inputs; 002 gives them no interception of their
 * own ("执行异常"), so fast/ does not look at them. */
#include "validate.h"

/* REG_OP order and registered dtypes. */
static const fast_opt_input shared[] = {
    {FAST_OPT_ANTIQUANT_SCALE, 3, {FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32}},
    {FAST_OPT_ANTIQUANT_OFFSET, 3, {FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32}},
};
static const fast_opt_input per_kv[] = {
    {FAST_OPT_KEY_ANTIQUANT_SCALE, 3, {FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32}},
    {FAST_OPT_KEY_ANTIQUANT_OFFSET, 3, {FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32}},
    {FAST_OPT_VALUE_ANTIQUANT_SCALE, 3, {FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32}},
    {FAST_OPT_VALUE_ANTIQUANT_OFFSET, 3, {FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32}},
};
#define COUNT(x) (sizeof x / sizeof x[0])

/* Layer 2. */
fia_status fast_check_antiquant_dtypes(const fast_args *a, fast_plan *p,
                                       fia_error *err)
{
    (void)p;
    return fast_check_opt_dtypes(a, shared, COUNT(shared), err);
}

fia_status fast_check_antiquant_kv_dtypes(const fast_args *a, fast_plan *p,
                                          fia_error *err)
{
    (void)p;
    return fast_check_opt_dtypes(a, per_kv, COUNT(per_kv), err);
}

/* Layer 3: any of them passed, even empty. */
fia_status fast_check_antiquant(const fast_args *a, fast_plan *p,
                                fia_error *err)
{
    (void)p;
    return fast_refuse_opt(a, shared, COUNT(shared), err);
}

fia_status fast_check_antiquant_kv(const fast_args *a, fast_plan *p,
                                   fia_error *err)
{
    (void)p;
    return fast_refuse_opt(a, per_kv, COUNT(per_kv), err);
}
