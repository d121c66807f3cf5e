/* tensors: presence, dtypes and ranks of query, key and value (the
 * nullptrs are api.c's layer 1), and the empty query. */
#include "validate.h"

/* Layer 2.  key/value: 002 参数说明 lists INT4 (INT32) besides REG_OP's
 * INT8, FP16, BF16; the aclnn-level description is the one the C API
 * checks, so int4 / int32 keys pass here and are refused as not modeled in
 * layer 3 (check_int_inputs.c). */
fia_status fast_check_tensors_dtypes(const fast_args *a, fast_plan *p,
                                     fia_error *err)
{
    (void)p;
    fia_dtype qd = a->query->dtype;
    if (!fast_dtype_in(qd, FAST_DTYPES(FIA_DT_INT8, FIA_DT_FP16, FIA_DT_BF16)))
        FAST_BADTYPE("T_QUERY", "query dtype %s not in {int8, fp16, bf16}",
                     fast_dtype_name(qd));
    const fia_tensor_list *lists[2] = {a->key, a->value};
    for (int l = 0; l < 2; l++)
        for (int32_t i = 0; i < lists[l]->count && i < FIA_MAX_TENSOR_LIST; i++) {
            fia_dtype d = lists[l]->tensors[i]->dtype;
            if (!fast_dtype_in(d, FAST_DTYPES(FIA_DT_INT8, FIA_DT_FP16,
                                              FIA_DT_BF16, FIA_DT_INT4,
                                              FIA_DT_INT32)))
                FAST_BADTYPE(l ? "T_VALUE" : "T_KEY",
                             "%s[%d] dtype %s not in {int8, fp16, bf16, int4, "
                             "int32}", l ? "value" : "key", (int)i,
                             fast_dtype_name(d));
        }
    return FIA_OK;
}

/* Layer 4.  002 约束说明: key/value tensor lists hold the tensors. */
fia_status fast_check_tensors_lists(const fast_args *a, fast_plan *p,
                                    fia_error *err)
{
    (void)p;
    if (a->key->count < 1 || a->value->count < 1)
        FAST_REJECT("S_KV_LIST", "key/value lists must hold one tensor "
                    "(have %d/%d)", (int)a->key->count, (int)a->value->count);
    return FIA_OK;
}

/* Layer 4.  002 约束说明 入参为空的处理: an empty query returns at once,
 * before any tiling check (layout, ranks) runs, so this row ends the walk
 * (p->empty); RELEASED "Degenerate shapes": query empty with attention_out
 * not empty is rejected.  Found by fuzz_params against the rule table
 * (OUT-N01). */
fia_status fast_check_tensors_empty(const fast_args *a, fast_plan *p,
                                    fia_error *err)
{
    int64_t qn, on;
    if (fast_shape_numel(a->query, &qn) && qn == 0) {
        if (!fast_shape_numel(a->out, &on) || on != 0)
            FAST_REJECT("S_EMPTY_OUT", "query is empty but attention_out is "
                        "not");
        p->empty = true;
    }
    return FIA_OK;
}

/* Layer 4.  Q and KV dtypes consistent (002 数据类型推导; the
 * non-quantized path, the only one modeled).  Fills dt. */
fia_status fast_check_tensors_kv_dtype(const fast_args *a, fast_plan *p,
                                       fia_error *err)
{
    const fia_tensor *q = a->query;
    const fia_tensor *k = a->key->tensors[0], *v = a->value->tensors[0];
    /* antiquant: int8/int4 key/value (both of one dtype) with an fp16/bf16
     * query (plan_antiquant.c; its rules check_antiquant.c) */
    const bool aq = (q->dtype == FIA_DT_FP16 || q->dtype == FIA_DT_BF16) &&
                    fast_kv_int(k->dtype) && v->dtype == k->dtype;
    if (!aq && (k->dtype != q->dtype || v->dtype != q->dtype))
        FAST_REJECT("S_KV_DTYPE", "key/value dtype %s/%s differs from query %s",
                    fast_dtype_name(k->dtype), fast_dtype_name(v->dtype),
                    fast_dtype_name(q->dtype));
    p->dt = q->dtype;
    return FIA_OK;
}
