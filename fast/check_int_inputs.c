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
    const fia_tensor_list *lists[2] = {a->key, a->value};
    for (int l = 0; l < 2; l++)
        if (lists[l]->count == 1 &&
            lists[l]->tensors[0]->dtype != FIA_DT_FP16 &&
            lists[l]->tensors[0]->dtype != FIA_DT_BF16)
            FAST_NOTMOD("M_QUANT", "%s dtype %s (quantized) is not modeled "
                        "yet", l ? "value" : "key",
                        fast_dtype_name(lists[l]->tensors[0]->dtype));
    return FIA_OK;
}
