/* antiquant: key/value antiquantization (int8/int4 K/V widened with a
 * scale and offset).  Two sets of inputs, two rows per layer: the shared
 * antiquant_scale/offset (antiquantMode), and the separate
 * key_/value_antiquant_scale/offset (keyAntiquantMode, valueAntiquantMode),
 * which come after block_table and the paddings in REG_OP order.  Not
 * modeled yet: their registered dtypes, then their refusal.  A mode other
 * than 0 uses the feature too, with or without the tensors (002 gives each
 * mode its own list of values, others "执行异常"): refused with them. */
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

/* Layer 3: any of them passed (even empty), or its mode not 0. */
/* int8/int4 key/value with an fp16/bf16 query: the scene fast/ computes
 * (plan_antiquant.c; the rules are this file's). */
static bool aq_scene(const fast_args *a)
{
    const fia_dtype k = a->key->tensors[0]->dtype, q = a->query->dtype;
    return (q == FIA_DT_FP16 || q == FIA_DT_BF16) &&
           (k == FIA_DT_INT8 || k == FIA_DT_INT4 || k == FIA_DT_INT32);
}

fia_status fast_check_antiquant(const fast_args *a, fast_plan *p,
                                fia_error *err)
{
    (void)p;
    if (aq_scene(a))
        return FIA_OK;
    fia_status st = fast_refuse_opt(a, shared, COUNT(shared), err);
    if (st == FIA_OK && a->antiquant_mode != 0)
        FAST_NOTMOD("M_ANTIQUANT_MODE", "antiquant_mode %lld (antiquant) "
                    "is not modeled yet", (long long)a->antiquant_mode);
    return st;
}

fia_status fast_check_antiquant_kv(const fast_args *a, fast_plan *p,
                                   fia_error *err)
{
    (void)p;
    if (aq_scene(a))
        return FIA_OK;
    fia_status st = fast_refuse_opt(a, per_kv, COUNT(per_kv), err);
    if (st == FIA_OK &&
        (a->key_antiquant_mode != 0 || a->value_antiquant_mode != 0))
        FAST_NOTMOD("M_ANTIQUANT_MODE", "key_antiquant_mode %lld / "
                    "value_antiquant_mode %lld (antiquant) are not modeled "
                    "yet", (long long)a->key_antiquant_mode,
                    (long long)a->value_antiquant_mode);
    return st;
}
