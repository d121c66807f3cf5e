/* int_inputs: an int8 query and int8/int4 (int32-packed) key/value, the
 * quantized paths (their dtypes pass the registered lists,
 * check_tensors.c).  An int8 query is full quantization: its rules are
 * int8_quant's (check_int8_quant.c), judged first, and a call they all
 * accept is refused as not computed, last (NM-004).  int8/int4 key/value
 * with an fp16/bf16 query (antiquant) are refused as not modeled. */
#include "validate.h"

/* Layer 4: int8/int4 key/value with an fp16/bf16 query. */
fia_status fast_check_int_inputs(const fast_args *a, fast_plan *p,
                                 fia_error *err)
{
    (void)p;
    if (a->query->dtype == FIA_DT_INT8)
        return FIA_OK; /* full quantization: layer 6 below */
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

/* Layer 6: an int8 query every rule accepts (ANTI-027, Q8-*, OQ-*, the
 * exclusions); its arithmetic is not modeled yet. */
fia_status fast_check_int_inputs_query(const fast_args *a, fast_plan *p,
                                       fia_error *err)
{
    (void)p;
    if (a->query->dtype == FIA_DT_INT8)
        FAST_NOTMOD("NM-004", "int8 query (full quantization) is not "
                    "computed yet");
    return FIA_OK;
}
