/* ref/ reading, feature "tensors": which tensors the call passes, their
 * dtypes, and that their values are there.
 *
 * query, key, value and attention_out are required.  An empty query (numel
 * 0) returns at once whatever the layout or the other shapes (002 约束说明
 * 入参为空的处理; RELEASED "Degenerate shapes"): nothing is written, so
 * there is nothing to read further.  The modeled inputs are fp16 / bf16,
 * whose values widen exactly to binary64 (11 / 8 significant bits,
 * exponents within binary64's); int8 ones (full quantization) are integers,
 * times a scale where the scene has one. */
#include "ref_internal.h"

int ref_slot_given(const fia_case_data *d, fia_slot s)
{
    const fia_tensor *t = fia_case_data_tensor(d, s);
    if (!t)
        return 0;
    /* an empty mask or pse is absent (RELEASED "Silent normalisations"),
     * and so is an empty padding tensor (docs/features/padding.md) */
    if (s == FIA_SLOT_PSE_SHIFT || s == FIA_SLOT_ATTEN_MASK ||
        s == FIA_SLOT_QUERY_PADDING_SIZE || s == FIA_SLOT_KV_PADDING_SIZE)
        return fia_tensor_numel(t) != 0;
    return 1;
}

static int is_half(fia_dtype dt)
{
    return dt == FIA_DT_FP16 || dt == FIA_DT_BF16;
}

fia_status ref_read_tensors_required(ref_problem *p, const fia_case *c,
                                     const fia_case_data *d, fia_error *err)
{
    (void)c;
    p->q = fia_case_data_tensor(d, FIA_SLOT_QUERY);
    p->k = fia_case_data_tensor(d, FIA_SLOT_KEY);
    p->v = fia_case_data_tensor(d, FIA_SLOT_VALUE);
    p->out_t = fia_case_data_tensor(d, FIA_SLOT_ATTENTION_OUT);
    if (!p->q || !p->k || !p->v || !p->out_t)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "query, key, value and attention_out are required");
    return FIA_OK;
}

fia_status ref_read_tensors_empty(ref_problem *p, const fia_case *c,
                                  const fia_case_data *d, fia_error *err)
{
    (void)c, (void)d;
    if (fia_tensor_numel(p->q) != 0)
        return FIA_OK;
    if (fia_tensor_numel(p->out_t) != 0)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "query is empty but attention_out is not");
    p->empty_query = 1;
    p->out_dtype = p->out_t->dtype;
    return FIA_OK;
}

fia_status ref_read_tensors_dtypes(ref_problem *p, const fia_case *c,
                                   const fia_case_data *d, fia_error *err)
{
    (void)c;
    static const fia_slot qkv[] = {FIA_SLOT_QUERY, FIA_SLOT_KEY,
                                   FIA_SLOT_VALUE};
    const fia_dtype kd = p->k->dtype;
    if (is_half(p->q->dtype) && (kd == FIA_DT_INT8 || kd == FIA_DT_INT4 ||
                                 kd == FIA_DT_INT32)) {
        if (p->v->dtype != kd)
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "int key with value "
                            "dtype %s (the antiquant scene takes one "
                            "dtype)", fia_dtype_name(p->v->dtype));
        p->aq = 1; /* antiquant (read_antiquant.c) */
        p->kv_dtype = kd;
        p->kv_pack = kd == FIA_DT_INT32 ? 8 : 1;
        p->in_dtype = p->q->dtype;
        return FIA_OK;
    }
    p->kv_pack = 1;
    if (p->q->dtype == FIA_DT_INT8 &&
        (ref_slot_given(d, FIA_SLOT_QUERY_ROPE) ||
         ref_slot_given(d, FIA_SLOT_KEY_ROPE))) {
        /* MLA full quantization (read_query_quant.c): its rows are read
         * dequantized and its pipeline rounds P to bf16, the dtype of its
         * ropes and output (docs/tolerance.md "MLA full quantization") */
        if (kd != FIA_DT_INT8 || p->v->dtype != FIA_DT_INT8)
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "int8 query with "
                            "rope and key %s, value %s (MLA full "
                            "quantization takes int8)", fia_dtype_name(kd),
                            fia_dtype_name(p->v->dtype));
        p->query_quant = 1;
        p->in_dtype = FIA_DT_BF16;
        return FIA_OK;
    }
    if (p->q->dtype == FIA_DT_INT8) { /* full int8 (read_int8_quant.c) */
        if (kd != FIA_DT_INT8 || p->v->dtype != FIA_DT_INT8)
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "int8 query with "
                            "key %s, value %s (full int8 takes int8)",
                            fia_dtype_name(kd), fia_dtype_name(p->v->dtype));
        p->int8_quant = 1;
        p->in_dtype = FIA_DT_INT8;
        return FIA_OK;
    }
    for (size_t i = 0; i < 3; i++) {
        const fia_tensor *t = fia_case_data_tensor(d, qkv[i]);
        if (!is_half(t->dtype))
            return fia_fail(err, FIA_ERR_PARAM_INVALID,
                            "%s dtype %s (expected fp16 or bf16)",
                            fia_slot_name(qkv[i]), fia_dtype_name(t->dtype));
    }
    p->in_dtype = p->q->dtype;
    return FIA_OK;
}

fia_status ref_read_tensors_data(ref_problem *p, const fia_case *c,
                                 const fia_case_data *d, fia_error *err)
{
    (void)c, (void)d;
    if (!p->q->data || (fia_tensor_numel(p->k) > 0 && (!p->k->data ||
                                                       !p->v->data)))
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "tensors have no data (status-only materialization)");
    return FIA_OK;
}

