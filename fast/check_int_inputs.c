/* int_inputs: an int8 query (full quantization, int8_quant.md) and int8 /
 * int4 (int32-packed) key/value.  With an fp16 / bf16 query, int8 / int4
 * key/value are the antiquant scene, whose rules and plan are
 * check_antiquant.c's / plan_antiquant.c's.  An int8 query's rules are
 * int8_quant's (check_int8_quant.c), judged first; here, last, the dtypes
 * of a call they all accept go into the plan (its scales:
 * fast_plan_int8_quant).  Their dtypes pass the registered lists
 * (check_tensors.c). */
#include "validate.h"

/* Layer 6: an int8 query every rule accepts (ANTI-027, Q8-*, OQ-*, the
 * exclusions: int8 key and value, Q_S > 1).  The plan computes with int8
 * query, key and value (kv_dt) and dt fp16: the pse's dtype (002 pairs an
 * fp16 pse with an int8 query) and a float attention_out's (Q8-003).  P is
 * quantized, never rounded to fp16 (round_p off). */
fia_status fast_check_int_inputs_query(const fast_args *a, fast_plan *p,
                                       fia_error *err)
{
    (void)err;
    /* (MLA's int8 query: its own plan, p->query_quant,
     * check_query_quant_mla.c) */
    p->int8_quant.on = a->query->dtype == FIA_DT_INT8 && !p->query_quant.on;
    if (!p->int8_quant.on)
        return FIA_OK;
    p->dt = FIA_DT_FP16;
    p->kv_dt = FIA_DT_INT8;
    p->round_p = false;
    return FIA_OK;
}
