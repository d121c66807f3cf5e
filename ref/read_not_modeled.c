/* ref/ reading: what the reference does not model yet (each feature's page
 * docs/features/<feature>.md says so), refused with FIA_ERR_NOT_MODELED.
 *
 * One line per refused input, with the feature it belongs to
 * (fia/feature.h).  Modeling a feature removes its lines here and adds its
 * reading file and step (ref_problem.c). */
#include "fia/feature.h"
#include "ref_internal.h"

/* dequant_scale1 / quant_scale1 / dequant_scale2 are read only by 002's
 * full quantization (an int8 query, read_int8_quant.c); with an fp16 / bf16
 * query the oracle rejects them or, cann at Q_S > 1, they are ignored
 * (int8_quant.md Q8-006): so are they here; beside MLA's full quantization
 * read_query_quant.c refuses them.
 *
 * feature query_quant: dequant_scale_query and query_quant_mode 3 have a
 * meaning in MLA's full quantization only (an int8 query with rope,
 * read_query_quant.c): anywhere else not modeled; a mode other than 0 and
 * 3 is rejected (003 §参数说明 query_quant_mode). */
static fia_status query_quant_not_modeled(const fia_case *c,
                                          const fia_case_data *d,
                                          fia_error *err)
{
    const fia_tensor *q = fia_case_data_tensor(d, FIA_SLOT_QUERY);
    const int query_quant = q && q->dtype == FIA_DT_INT8 &&
                   (ref_slot_given(d, FIA_SLOT_QUERY_ROPE) ||
                    ref_slot_given(d, FIA_SLOT_KEY_ROPE));
    const int64_t mode = c->attrs.query_quant_mode;
    if (mode != 0 && mode != 3)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "query_quant_mode %lld (0 or 3)", (long long)mode);
    if (query_quant)
        return FIA_OK;
    if (ref_slot_given(d, FIA_SLOT_DEQUANT_SCALE_QUERY))
        return fia_fail(err, FIA_ERR_NOT_MODELED, "not modeled yet: "
                        "dequant_scale_query outside MLA full quantization");
    if (mode == 3)
        return fia_fail(err, FIA_ERR_NOT_MODELED, "not modeled yet: "
                        "query_quant_mode 3 outside MLA full quantization");
    return FIA_OK;
}

/* features padding and prefix: refused with a token layout only */
static const fia_slot token_refused_slots[4] = {
    FIA_SLOT_QUERY_PADDING_SIZE, FIA_SLOT_KV_PADDING_SIZE,
    FIA_SLOT_KEY_SHARED_PREFIX, FIA_SLOT_VALUE_SHARED_PREFIX};

/* feature int_inputs: int8 / int4 / uint8 query, key or value (int8 /
 * int4 / int32 key and value with an fp16 / bf16 query: antiquant,
 * read_antiquant.c) */
static int is_quant_dtype(fia_dtype dt)
{
    return dt == FIA_DT_INT8 || dt == FIA_DT_INT4 || dt == FIA_DT_UINT8;
}

static int is_antiquant_kv(fia_dtype dt)
{
    return dt == FIA_DT_INT8 || dt == FIA_DT_INT4 || dt == FIA_DT_INT32;
}

/* feature antiquant (docs/features/antiquant.md "Not modeled"):
 * antiquant parameters (tensors, or a mode != 0) with fp16 / bf16
 * key/value, whose effect is undocumented; a shared prefix with int
 * key/value (which per-token scale covers its rows?).  The per-token mode
 * with a tensor list is read_antiquant.c's. */
static const fia_slot antiquant_slots[6] = {
    FIA_SLOT_ANTIQUANT_SCALE, FIA_SLOT_ANTIQUANT_OFFSET,
    FIA_SLOT_KEY_ANTIQUANT_SCALE, FIA_SLOT_KEY_ANTIQUANT_OFFSET,
    FIA_SLOT_VALUE_ANTIQUANT_SCALE, FIA_SLOT_VALUE_ANTIQUANT_OFFSET};

static fia_status antiquant_not_modeled(const fia_case *c,
                                        const fia_case_data *d,
                                        fia_error *err)
{
    const fia_tensor *q = fia_case_data_tensor(d, FIA_SLOT_QUERY),
                     *k = fia_case_data_tensor(d, FIA_SLOT_KEY);
    if (!q || !k)
        return FIA_OK;
    const int scene = (q->dtype == FIA_DT_FP16 || q->dtype == FIA_DT_BF16) &&
                      is_antiquant_kv(k->dtype);
    if (scene) {
        if (ref_slot_given(d, FIA_SLOT_KEY_SHARED_PREFIX) ||
            ref_slot_given(d, FIA_SLOT_VALUE_SHARED_PREFIX))
            return fia_fail(err, FIA_ERR_NOT_MODELED, "not modeled yet: a "
                            "shared prefix with int8/int4 key/value "
                            "(antiquant)");
        return FIA_OK;
    }
    if (k->dtype != FIA_DT_FP16 && k->dtype != FIA_DT_BF16)
        return FIA_OK;
    for (size_t i = 0; i < 6; i++)
        if (ref_slot_given(d, antiquant_slots[i]))
            return fia_fail(err, FIA_ERR_NOT_MODELED, "not modeled yet: %s "
                            "with %s key/value (antiquant)",
                            fia_slot_name(antiquant_slots[i]),
                            fia_dtype_name(k->dtype));
    if (c->attrs.antiquant_mode != 0 || c->attrs.key_antiquant_mode != 0 ||
        c->attrs.value_antiquant_mode != 0)
        return fia_fail(err, FIA_ERR_NOT_MODELED, "not modeled yet: an "
                        "antiquant mode with %s key/value (antiquant)",
                        fia_dtype_name(k->dtype));
    return FIA_OK;
}

fia_status ref_read_not_modeled(ref_problem *p, const fia_case *c,
                                const fia_case_data *d, fia_error *err)
{
    (void)p;
    fia_status st0 = query_quant_not_modeled(c, d, err);
    if (st0 != FIA_OK)
        return st0;
    /* feature prefix: the length without the tensors is undocumented; the
     * other refusal, a prefix with a mask at Q_S = 1, needs Q_S
     * (read_prefix.c) */
    if (d->arr_present[FIA_ARR_ACTUAL_SHARED_PREFIX_LEN] &&
        !ref_slot_given(d, FIA_SLOT_KEY_SHARED_PREFIX) &&
        !ref_slot_given(d, FIA_SLOT_VALUE_SHARED_PREFIX))
        return fia_fail(err, FIA_ERR_NOT_MODELED,
                        "not modeled yet: actual_shared_prefix_len without "
                        "key_shared_prefix / value_shared_prefix (shared "
                        "prefix)");
    /* feature output: 004's out_dtype has no stated meaning (an empty
     * query returns at once before it: nothing is computed) */
    const fia_tensor *q0 = fia_case_data_tensor(d, FIA_SLOT_QUERY);
    if (c->attrs.out_dtype >= 0 && q0 != NULL && fia_tensor_numel(q0) != 0)
        return fia_fail(err, FIA_ERR_NOT_MODELED, "not modeled yet: "
                        "out_dtype %lld (004 names it without a meaning)",
                        (long long)c->attrs.out_dtype);
    static const fia_slot qkv[] = {FIA_SLOT_QUERY, FIA_SLOT_KEY,
                                   FIA_SLOT_VALUE};
    const fia_tensor *q = fia_case_data_tensor(d, FIA_SLOT_QUERY);
    const int half_q = q && (q->dtype == FIA_DT_FP16 ||
                             q->dtype == FIA_DT_BF16);
    const int int8_q = q && q->dtype == FIA_DT_INT8;
    for (size_t i = 0; i < 3; i++) {
        const fia_tensor *t = fia_case_data_tensor(d, qkv[i]);
        /* int8 / int4 key and value of an fp16 / bf16 query: antiquant;
         * int8 everywhere: full int8 (int8_quant.md) */
        if (t && is_quant_dtype(t->dtype) &&
            !(i > 0 && half_q && is_antiquant_kv(t->dtype)) &&
            !(int8_q && t->dtype == FIA_DT_INT8))
            return fia_fail(err, FIA_ERR_NOT_MODELED,
                            "not modeled yet: %s %s (quantization)",
                            fia_dtype_name(t->dtype), fia_slot_name(qkv[i]));
    }
    fia_status st = antiquant_not_modeled(c, d, err);
    if (st != FIA_OK)
        return st;
    /* features padding and prefix: 003's token layouts have no padding or
     * prefix parameters (003 §功能说明 sends left padding and the system
     * prefix to the older interface); the other refusals, a kv scene with
     * a key/value list and a prefix with a mask at Q_S = 1, need Q_S
     * (read_padding.c, read_prefix.c) */
    if (fia_layout_is_tnd(c->attrs.input_layout))
        for (size_t i = 0; i < 4; i++)
            if (ref_slot_given(d, token_refused_slots[i]))
                return fia_fail(err, FIA_ERR_NOT_MODELED,
                                "not modeled yet: %s with the token layout "
                                "%s (%s)",
                                fia_slot_name(token_refused_slots[i]),
                                c->attrs.input_layout,
                                i < 2 ? "padding" : "shared prefix");
    return FIA_OK;
}
