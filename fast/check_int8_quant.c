/* int8_quant: the int8 quantization scales (dequant_scale1, quant_scale1,
 * dequant_scale2, quant_scale2, quant_offset2).  Not modeled yet: their
 * registered dtypes, then their refusal. */
#include "validate.h"

/* REG_OP order and registered dtypes. */
static const fast_opt_input inputs[] = {
    {FAST_OPT_DEQUANT_SCALE1, 2, {FIA_DT_UINT64, FIA_DT_FP32}},
    {FAST_OPT_QUANT_SCALE1, 1, {FIA_DT_FP32}},
    {FAST_OPT_DEQUANT_SCALE2, 2, {FIA_DT_UINT64, FIA_DT_FP32}},
    {FAST_OPT_QUANT_SCALE2, 2, {FIA_DT_FP32, FIA_DT_BF16}},
    {FAST_OPT_QUANT_OFFSET2, 2, {FIA_DT_FP32, FIA_DT_BF16}},
};
#define NINPUTS (sizeof inputs / sizeof inputs[0])

/* Layer 2. */
fia_status fast_check_int8_quant_dtypes(const fast_args *a, fast_plan *p,
                                   fia_error *err)
{
    (void)p;
    return fast_check_opt_dtypes(a, inputs, NINPUTS, err);
}

/* Layer 3: any of them passed, even empty. */
fia_status fast_check_int8_quant(const fast_args *a, fast_plan *p, fia_error *err)
{
    (void)p;
    return fast_refuse_opt(a, inputs, NINPUTS, err);
}
