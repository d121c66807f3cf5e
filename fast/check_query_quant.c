/* query_quant: 003's query quantization (dequant_scale_query and its
 * mode).  Not modeled yet.  The V2 entry fast/ implements has no such
 * inputs, so there is nothing to refuse: the row is here so the feature's
 * checks have their place (an int8 query is int_inputs'). */
#include "validate.h"

/* Layer 3. */
fia_status fast_check_query_quant(const fast_args *a, fast_plan *p,
                                  fia_error *err)
{
    (void)a;
    (void)p;
    (void)err;
    return FIA_OK;
}
