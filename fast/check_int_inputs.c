/* int_inputs: an int8 query (full quantization, int8_quant.md) and int8 /
 * int4 (int32-packed) key/value.  With an fp16 / bf16 query, int8 / int4
 * key/value are the antiquant scene, whose rules and refusals are
 * check_antiquant.c's.  An int8 query is not modeled yet: refused here
 * (its dtype passes the registered list, check_tensors.c). */
#include "validate.h"

/* Layer 4. */
fia_status fast_check_int_inputs(const fast_args *a, fast_plan *p,
                                 fia_error *err)
{
    (void)p;
    if (a->query->dtype == FIA_DT_INT8)
        FAST_NOTMOD("M_QUANT", "int8 query is not modeled yet");
    return FIA_OK;
}
