/* int8_quant: full int8 quantization (int8 query, key and value) and its
 * scales dequant_scale1 (after Q.K^T), quant_scale1 (P before P.V),
 * dequant_scale2 (after P.V); docs/features/int8_quant.md, rows Q8-*.
 * Checked the way the tiling checks them: the registered dtypes (layer 2),
 * the combination of dtypes and scales (layer 5, as soon as the layout gave
 * Q_S), the head dim (layer 5, once D is known); a call every rule accepts
 * gets its plan last, in layer 6 (fast_plan_int8_quant; run_int8_quant.c
 * and attention_int8_quant.c compute it).  The output scales quant_scale2 /
 * quant_offset2 are int8_out's rules and plan (check_int8_out.c). */
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

/* The three scales of the int8 input path, in REG_OP order. */
static const fast_optional in_scales[3] = {
    FAST_OPT_DEQUANT_SCALE1, FAST_OPT_QUANT_SCALE1, FAST_OPT_DEQUANT_SCALE2};

/* Layer 2. */
fia_status fast_check_int8_quant_dtypes(const fast_args *a, fast_plan *p,
                                        fia_error *err)
{
    (void)p;
    return fast_check_opt_dtypes(a, inputs, NINPUTS, err);
}

/* The first of the three input-path scales passed (002 "即不为nullptr": a
 * scale counts when its pointer is not null, empty or not), or -1. */
static int first_in_scale(const fast_args *a)
{
    for (int i = 0; i < 3; i++)
        if (a->opt[in_scales[i]] != NULL)
            return i;
    return -1;
}

/* Q8-004: every key and value tensor int8 (002's two int8-input scenes
 * speak of the input, query, key and value together). */
static fia_status check_int8_kv(const fast_args *a, fia_error *err)
{
    const fia_tensor_list *lists[2] = {a->key, a->value};
    for (int l = 0; l < 2; l++)
        for (int32_t i = 0; i < lists[l]->count; i++) {
            const fia_dtype dt = lists[l]->tensors[i]->dtype;
            if (dt != FIA_DT_INT8)
                return FAST_REJECT("Q8-004", "int8 query with %s[%d] of dtype %s "
                                   "(full quantization takes int8 key and value)",
                                   l ? "value" : "key", (int)i, fast_dtype_name(dt));
        }
    return FIA_OK;
}

/* The int8 query's scene: Q8-004, Q8-003, Q8-001 / Q8-002, Q8-005. */
static fia_status check_int8_query(const fast_args *a, fia_error *err)
{
    fia_status st = check_int8_kv(a, err);
    if (st != FIA_OK)
        return st;
    const fia_dtype od = a->out->dtype;
    /* 002 int8量化相关入参: the int8-input scenes have an int8 or an fp16
     * output. */
    if (od != FIA_DT_INT8 && od != FIA_DT_FP16)
        return FAST_REJECT("Q8-003", "int8 query with attention_out of dtype %s "
                           "(takes int8 or fp16)", fast_dtype_name(od));
    for (int i = 0; i < 3; i++)
        if (a->opt[in_scales[i]] == NULL)
            return FAST_REJECT(od == FIA_DT_INT8 ? "Q8-001" : "Q8-002",
                               "int8 query with attention_out of dtype %s needs %s",
                               fast_dtype_name(od),
                               fast_optional_name(in_scales[i]));
    if (od == FIA_DT_INT8 && a->opt[FAST_OPT_QUANT_SCALE2] == NULL)
        return FAST_REJECT("Q8-001", "int8 query with attention_out of dtype int8 "
                           "needs quant_scale2");
    /* 002, 000: per-tensor only.  A shape with no element count (a
     * negative dim, int64 overflow, a rank outside 0..8) is not one
     * element either. */
    for (int i = 0; i < 3; i++) {
        const fia_tensor *t = a->opt[in_scales[i]];
        int64_t n;
        if (!fast_shape_numel(t, &n) || n != 1)
            return FAST_REJECT("Q8-005", "%s must be per-tensor (one element)",
                               fast_optional_name(in_scales[i]));
    }
    return FIA_OK;
}

/* Layer 5, after the layout (p->Q_S; a token layout refused an int8 query
 * and these scales in layer 3, TND-X05).  The int8 query's scales and
 * dtypes; with an fp16/bf16 query the input-path scales belong to no scene:
 * with an int8 output rejected (OQ-003, check_int8_out.c), else rejected at
 * Q_S = 1 (Q8-007) and at Q_S > 1 by the documents (Q8-006) while the
 * released code ignores them there (Q8-N01: profile cann accepts, fast/
 * never reads them). */
fia_status fast_check_int8_quant(const fast_args *a, fast_plan *p,
                                 fia_error *err)
{
    const fia_dtype qd = a->query->dtype;
    /* MLA's int8 query is 003's full quantization, with scales, output
     * and Q_S of its own (check_query_quant_mla.c) */
    if (qd == FIA_DT_INT8)
        return fast_mla_call(a) ? FIA_OK : check_int8_query(a, err);
    const int i = first_in_scale(a);
    if (i < 0 || a->out->dtype == FIA_DT_INT8 || p->tnd.on)
        return FIA_OK; /* OQ-003, or TND-X05 */
    if (p->Q_S == 1)
        return FAST_REJECT("Q8-007", "%s with a %s query and attention_out (Q_S = "
                           "1): the int8 input scales take an int8 query",
                           fast_optional_name(in_scales[i]), fast_dtype_name(qd));
    if (a->profile != FIA_PROFILE_CANN)
        return FAST_REJECT("Q8-006", "%s with a %s query and attention_out (Q_S > "
                           "1): the int8 input scales take an int8 query",
                           fast_optional_name(in_scales[i]), fast_dtype_name(qd));
    return FIA_OK; /* Q8-N01: ignored */
}

/* Layer 5, after the layout's limits (D <= 512).  002 当Q_S大于1时: a
 * call with an int8 input has D 32-aligned (the fp16/bf16 16-alignment,
 * check_layout.c, is for a call without int8). */
fia_status fast_check_int8_quant_d(const fast_args *a, fast_plan *p,
                                   fia_error *err)
{
    if (a->query->dtype != FIA_DT_INT8 || p->tnd.on || p->Q_S <= 1)
        return FIA_OK;
    if (p->D % 32 != 0)
        return FAST_REJECT("Q8-008", "int8 query at Q_S > 1: head dim %lld not a "
                           "multiple of 32", (long long)p->D);
    return FIA_OK;
}

/* Layer 6: an int8 query every rule accepted (Q8-*, ANTI-027 / -028, the
 * exclusions of page attention, a shared prefix and the token layouts:
 * Q_S > 1, contiguous key/value or a tensor list, D a multiple of 32),
 * after int_inputs' row gave the plan its dtypes (p->int8_quant).  The scales'
 * data and dtypes; their values are device data, read by fast_int8_quant_apply
 * before the run. */
fia_status fast_plan_int8_quant(const fast_args *a, fast_plan *p,
                                fia_error *err)
{
    if (a->query->dtype != FIA_DT_INT8 || p->query_quant.on)
        return FIA_OK; /* (MLA's full quantization: check_query_quant_mla.c) */
    for (int i = 0; i < 3; i++) {
        const fia_tensor *t = a->opt[in_scales[i]];
        int64_t n = 0;
        /* Q8-001 / Q8-002 and Q8-005 left exactly one element (a guard
         * only: nothing else reaches here) */
        if (t == NULL || !fast_shape_numel(t, &n) || n != 1)
            return FAST_NOTMOD("C_INT8_QUANT", "%s without an element",
                               fast_optional_name(in_scales[i]));
        p->int8_quant.s[i] = t->data;
        p->int8_quant.sdt[i] = t->dtype;
    }
    return FIA_OK;
}
