/* int8_out: an int8 attention_out (quantized with quant_scale2 /
 * quant_offset2).  Not modeled yet: the refusal. */
#include "validate.h"

/* Layer 3. */
fia_status fast_check_int8_out(const fast_args *a, fast_plan *p,
                                  fia_error *err)
{
    (void)p;
    if (a->out->dtype == FIA_DT_INT8)
        FAST_NOTMOD("M_QUANT", "int8 attention_out is not modeled yet");
    return FIA_OK;
}
