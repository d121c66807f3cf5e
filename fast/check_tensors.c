/* tensors: presence, dtypes and ranks of query, key and value (the
 * nullptrs are api.c's layer 1), and the empty query. */
#include "validate.h"

/* Layer 2.  key/value: 002 参数说明 lists INT4 (INT32) besides REG_OP's
 * INT8, FP16, BF16; the aclnn-level description is the one the C API
 * checks, so int4 / int32 keys pass here (with an fp16 / bf16 query the
 * antiquant scene, check_antiquant.c). */
fia_status fast_check_tensors_dtypes(const fast_args *a, fast_plan *p,
                                     fia_error *err)
{
    (void)p;
    fia_dtype qd = a->query->dtype;
    if (!fast_dtype_in(qd, FAST_DTYPES(FIA_DT_INT8, FIA_DT_FP16, FIA_DT_BF16)))
        return FAST_BADTYPE("T_QUERY", "query dtype %s not in {int8, fp16, bf16}",
                            fast_dtype_name(qd));
    const fia_tensor_list *lists[2] = {a->key, a->value};
    for (int l = 0; l < 2; l++)
        for (int32_t i = 0; i < lists[l]->count && i < FIA_MAX_TENSOR_LIST; i++) {
            fia_dtype d = lists[l]->tensors[i]->dtype;
            if (!fast_dtype_in(d, FAST_DTYPES(FIA_DT_INT8, FIA_DT_FP16,
                                              FIA_DT_BF16, FIA_DT_INT4,
                                              FIA_DT_INT32)))
                return FAST_BADTYPE(l ? "T_VALUE" : "T_KEY",
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
        return FAST_REJECT("S_KV_LIST", "key/value lists must hold one tensor "
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
            return FAST_REJECT("S_EMPTY_OUT", "query is empty but attention_out is "
                               "not");
        p->empty = true;
    }
    return FIA_OK;
}

static bool quantized(fia_dtype dt)
{
    return dt == FIA_DT_INT8 || dt == FIA_DT_INT4 || dt == FIA_DT_INT32;
}

/* Layer 4.  Q and KV dtypes consistent (002 数据类型推导): on the
 * non-quantized path key/value have the query's dtype; in the antiquant
 * scene (an fp16 / bf16 query, int8 / int4 key or value) key and value
 * have one dtype (ANTI-025; its other rules: check_antiquant.c).  (An int8
 * query is refused before, in layer 4.)  Fills dt. */
fia_status fast_check_tensors_kv_dtype(const fast_args *a, fast_plan *p,
                                       fia_error *err)
{
    const fia_tensor *q = a->query;
    const fia_tensor *k = a->key->tensors[0], *v = a->value->tensors[0];
    const bool qfloat = q->dtype == FIA_DT_FP16 || q->dtype == FIA_DT_BF16;
    if (qfloat && (quantized(k->dtype) || quantized(v->dtype))) {
        if (k->dtype != v->dtype)
            return FAST_REJECT("ANTI-025", "key dtype %s and value dtype %s differ "
                               "(int8 / int4 key/value)", fast_dtype_name(k->dtype),
                               fast_dtype_name(v->dtype));
    } else if (k->dtype != q->dtype || v->dtype != q->dtype)
        return FAST_REJECT("S_KV_DTYPE", "key/value dtype %s/%s differs from query %s",
                           fast_dtype_name(k->dtype), fast_dtype_name(v->dtype),
                           fast_dtype_name(q->dtype));
    p->dt = q->dtype;
    return FIA_OK;
}
