/* query_quant: 003's query quantization, dequant_scale_query and
 * query_quant_mode (the extended entry's fast_v2_extras; an int8 query is
 * int_inputs').  003 §参数说明: dequant_scale_query "仅支持per-token叠加
 * per-head", fp32; query_quant_mode "仅支持传入3" with the default 0 of
 * every optional attribute: read as 0 = no query quantization, 3 =
 * per-token per-head, any other value rejected.  The one scene the
 * documents give them is MLA's full quantization (D 512, int8 query,
 * check_query_quant_mla.c, which also requires mode 3 there); anywhere else no
 * document says what they do (the released code has other, undocumented
 * uses), so once every rule has judged the call they are refused as not
 * modeled (layer 6), never hiding a documented rejection. */
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

/* Layer 5: 003 "仅支持传入3" (and the default 0). */
fia_status fast_check_query_quant(const fast_args *a, fast_plan *p,
                                  fia_error *err)
{
    (void)p;
    if (a->query_quant_mode != 0 && a->query_quant_mode != 3)
        return FAST_REJECT("S_QQUANT_MODE", "query_quant_mode %lld (takes 3, "
                           "per-token per-head, or the default 0)",
                           (long long)a->query_quant_mode);
    return FIA_OK;
}

/* Layer 6: dequant_scale_query or query_quant_mode 3 outside MLA's full
 * quantization (p->query_quant), in a call every rule accepts. */
fia_status fast_check_query_quant_unmodeled(const fast_args *a, fast_plan *p,
                                            fia_error *err)
{
    if (p->query_quant.on)
        return FIA_OK;
    if (a->opt[FAST_OPT_DEQUANT_SCALE_QUERY] != NULL)
        return FAST_NOTMOD("M_OPTIONAL", "dequant_scale_query outside MLA full "
                           "quantization (an int8 query with rope, query D 512) "
                           "is not modeled (no document gives it another scene)");
    if (a->query_quant_mode == 3)
        return FAST_NOTMOD("M_QQUANT_MODE", "query_quant_mode 3 outside MLA full "
                           "quantization (an int8 query with rope, query D 512) "
                           "is not modeled (no document gives it another scene)");
    return FIA_OK;
}
