/* int_inputs: an int8 query and int8/int4 (int32-packed) key/value, the
 * quantized paths.  Not modeled yet: the refusal (their dtypes pass the
 * registered lists, check_tensors.c). */
#include "validate.h"

/* Layer 3. */
fia_status fast_check_int_inputs(const fast_args *a, fast_plan *p,
                                 fia_error *err)
{
    (void)p;
    if (a->query->dtype == FIA_DT_INT8)
        FAST_NOTMOD("M_QUANT", "int8 query is not modeled yet");
    if (a->query->dtype != FIA_DT_INT8)
        return FIA_OK; /* int8/int4 key/value: antiquant (plan_antiquant.c) */
    /* every tensor of the lists (a tensor per batch may differ) */
    const fia_tensor_list *lists[2] = {a->key, a->value};
    for (int l = 0; l < 2; l++)
        for (int32_t i = 0; i < lists[l]->count; i++) {
            const fia_dtype dt = lists[l]->tensors[i]->dtype;
            if (dt != FIA_DT_FP16 && dt != FIA_DT_BF16)
                FAST_NOTMOD("M_QUANT", "%s[%d] dtype %s (quantized) is not "
                            "modeled yet", l ? "value" : "key", (int)i,
                            fast_dtype_name(dt));
        }
    return FIA_OK;
}
