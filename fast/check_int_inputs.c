/* int_inputs: an int8 query (full quantization, int8_quant.md) and int8 /
 * int4 (int32-packed) key/value.  With an fp16 / bf16 query, int8 / int4
 * key/value are the antiquant scene, whose rules and refusals are
 * check_antiquant.c's.  An int8 query's rules are int8_quant's
 * (check_int8_quant.c), judged first; a call they all accept is refused
 * here, last, as not computed (NM-004).  Their dtypes pass the registered
 * lists (check_tensors.c). */
#include "validate.h"

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
