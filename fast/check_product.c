/* product: the device the call runs on (fast_v2_extras.productName;
 * docs/features/product.md).  001 documents, beside the Atlas A2 / A3
 * products every other check is written for, the Atlas inference card
 * (Atlas 推理系列加速卡产品) with narrower dtypes, two inputs it does not
 * take and smaller limits (001 §参数说明 and §约束说明); these checks are
 * that product's differences, each in the layer of its kind:
 *   layer 2  query float16 only; value float16 or int8; antiquant_scale /
 *            antiquant_offset float16 (dtype lists of 参数说明)
 *   layer 3  no pse_shift ("仅支持None"), no quant_scale2 / quant_offset2
 *            ("当前版本不支持")
 *   layer 5  B <= 256, S <= 65536 (约束说明; N <= 256 and D <= 512 are the
 *            A2 limits too, check_layout.c)
 * api.c reads the name and refuses the card through any interface but
 * 001's, the one document listing it. */
#include "validate.h"

static bool card(const fast_args *a)
{
    return a->product == FAST_PRODUCT_INFERENCE_CARD;
}

/* Layer 2, after the registered lists (tensors, antiquant). */
fia_status fast_check_product_dtypes(const fast_args *a, fast_plan *p,
                                     fia_error *err)
{
    (void)p;
    if (!card(a))
        return FIA_OK;
    if (a->query->dtype != FIA_DT_FP16)
        return FAST_BADTYPE("T_CARD_QUERY", "the inference card takes a float16 "
                            "query, not %s", fast_dtype_name(a->query->dtype));
    for (int32_t i = 0; i < a->value->count; i++) {
        fia_dtype dt = a->value->tensors[i]->dtype;
        if (!fast_dtype_in(dt, FAST_DTYPES(FIA_DT_FP16, FIA_DT_INT8)))
            return FAST_BADTYPE("T_CARD_VALUE", "the inference card takes a float16 "
                                "or int8 value, not %s", fast_dtype_name(dt));
    }
    static const fast_optional aq[] = {FAST_OPT_ANTIQUANT_SCALE,
                                       FAST_OPT_ANTIQUANT_OFFSET};
    for (size_t k = 0; k < sizeof aq / sizeof aq[0]; k++) {
        const fia_tensor *t = a->opt[aq[k]];
        if (t != NULL && t->dtype != FIA_DT_FP16)
            return FAST_BADTYPE("T_CARD_ANTIQUANT", "the inference card takes "
                                "float16 antiquant scales and offsets, not %s",
                                fast_dtype_name(t->dtype));
    }
    return FIA_OK;
}

/* Layer 3.  An empty pse_shift is absent (RELEASED). */
fia_status fast_check_product_exclusions(const fast_args *a, fast_plan *p,
                                         fia_error *err)
{
    (void)p;
    if (!card(a))
        return FIA_OK;
    if (fast_present(a->pse))
        return FAST_REJECT("X_CARD_PSE", "the inference card takes no pse_shift");
    if (a->opt[FAST_OPT_QUANT_SCALE2] != NULL ||
        a->opt[FAST_OPT_QUANT_OFFSET2] != NULL)
        return FAST_REJECT("X_CARD_OUT_QUANT", "the inference card takes no "
                           "quant_scale2 / quant_offset2");
    return FIA_OK;
}

/* Layer 5, after the layout's limits (B, Q_S, KV_S in the plan). */
fia_status fast_check_product_limits(const fast_args *a, fast_plan *p,
                                     fia_error *err)
{
    if (!card(a))
        return FIA_OK;
    if (p->B > 256)
        return FAST_REJECT("S_CARD_B", "the inference card takes B <= 256, not "
                           "%lld", (long long)p->B);
    if (p->Q_S > 65536 || p->KV_S > 65536)
        return FAST_REJECT("S_CARD_S", "the inference card takes S <= 65536, not "
                           "%lld", (long long)(p->KV_S > p->Q_S ? p->KV_S : p->Q_S));
    return FIA_OK;
}
