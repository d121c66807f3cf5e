/* query_quant: 003's query quantization, dequant_scale_query and
 * query_quant_mode (the extended entry's fast_v2_extras; an int8 query is
 * int_inputs').  dequant_scale_query's registered dtype (fp32) in layer 2;
 * the feature is not computed yet (layer 4). */
#include "validate.h"

static const fast_opt_input qquant_inputs[] = {
    {FAST_OPT_DEQUANT_SCALE_QUERY, 1, {FIA_DT_FP32}},
};

/* Layer 2. */
fia_status fast_check_query_quant_dtypes(const fast_args *a, fast_plan *p,
                                         fia_error *err)
{
    (void)p;
    return fast_check_opt_dtypes(a, qquant_inputs, 1, err);
}

/* Layer 4. */
fia_status fast_check_query_quant(const fast_args *a, fast_plan *p,
                                  fia_error *err)
{
    (void)p;
    if (a->query_quant_mode != 0)
        FAST_NOTMOD("M_QQUANT_MODE", "query_quant_mode %lld (query "
                    "quantization) is not modeled yet",
                    (long long)a->query_quant_mode);
    return fast_refuse_opt(a, qquant_inputs, 1, err);
}
