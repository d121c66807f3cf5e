/* padding: query and key/value left padding (query_padding_size,
 * kv_padding_size; docs/features/padding.md).  Phase one reads no padding
 * value (device data): it decides which scenes take effect, refuses what
 * fast/ does not model, and leaves the tensors to phase two
 * (run_padding.c), which places every batch's rows. */
#include "validate.h"

static const fast_opt_input inputs[] = {
    {FAST_OPT_QUERY_PADDING_SIZE, 1, {FIA_DT_INT64}},
    {FAST_OPT_KV_PADDING_SIZE, 1, {FIA_DT_INT64}},
};
#define NINPUTS (sizeof inputs / sizeof inputs[0])

/* Layer 2.  REG_OP: int64. */
fia_status fast_check_padding_dtypes(const fast_args *a, fast_plan *p,
                                     fia_error *err)
{
    (void)p;
    return fast_check_opt_dtypes(a, inputs, NINPUTS, err);
}

/* A padding tensor counts with at least one element; an empty one is
 * absent (like an empty mask or pse), and so is one whose shape gives no
 * element count: phase two reads element 0 only of a tensor that has it. */
static bool padding_given(const fia_tensor *t)
{
    int64_t n;
    return t != NULL && fast_shape_numel(t, &n) && n > 0;
}

void fast_padding_scene(const fast_args *a, bool *q, bool *kv)
{
    /* 002 参数说明 / 约束说明: "需要与actualSeqLengths参数一起使能，否则默认
     * 为query右padding场景"; query padding "仅支持Q_S大于1，其余场景该参数
     * 无效" (Q_S = 0, an empty query, is not the decode path: Q_S > 1's
     * rules, as for page attention); the kv scene on both paths. */
    const int64_t qs = fast_early_q_s(a);
    *q = padding_given(a->opt[FAST_OPT_QUERY_PADDING_SIZE]) && a->asl &&
         qs >= 0 && qs != 1;
    *kv = padding_given(a->opt[FAST_OPT_KV_PADDING_SIZE]) && a->aslkv;
}

/* More than one element: a per-channel quant_scale2 / quant_offset2. */
static bool per_channel(const fia_tensor *t)
{
    int64_t n;
    return t != NULL && fast_shape_numel(t, &n) && n > 1;
}

/* Layer 3.  002 约束说明: a left-padding scene (fast_padding_scene) takes
 * no int4 key/value with an fp16/bf16 query, no shared prefix ("prefix不支持
 * 左padding场景"), no key/value antiquant scales given apart, no
 * per-channel int8 output quantization.  (Page attention's refusal is
 * check_paged.c's.) */
fia_status fast_check_padding_exclusions(const fast_args *a, fast_plan *p,
                                         fia_error *err)
{
    (void)p;
    bool qscene, kvscene;
    fast_padding_scene(a, &qscene, &kvscene);
    if (!qscene && !kvscene)
        return FIA_OK;
    const fia_dtype qd = a->query->dtype, kd = a->key->tensors[0]->dtype;
    if ((qd == FIA_DT_FP16 || qd == FIA_DT_BF16) &&
        (kd == FIA_DT_INT4 || kd == FIA_DT_INT32))
        return FAST_REJECT("S_PADDING_INT4", "left padding with a %s query and int4 "
                           "key/value", fast_dtype_name(qd));
    if (a->opt[FAST_OPT_KEY_SHARED_PREFIX] ||
        a->opt[FAST_OPT_VALUE_SHARED_PREFIX])
        return FAST_REJECT("S_PADDING_PREFIX", "left padding with a shared prefix");
    if (a->opt[FAST_OPT_KEY_ANTIQUANT_SCALE] ||
        a->opt[FAST_OPT_VALUE_ANTIQUANT_SCALE])
        return FAST_REJECT("S_PADDING_ANTIQUANT", "left padding with key/value "
                           "antiquant scales");
    if (per_channel(a->opt[FAST_OPT_QUANT_SCALE2]) ||
        per_channel(a->opt[FAST_OPT_QUANT_OFFSET2]))
        return FAST_REJECT("S_PADDING_OUT_QUANT", "left padding with per-channel "
                           "output quantization");
    return FIA_OK;
}

/* Layer 4: what fast/ does not model (NM-007), then what phase two needs.
 * A padding tensor with a token layout: 003 has no padding parameters
 * (003 §功能说明 sends left padding to the older interface).  A kv scene
 * with a key/value tensor list at Q_S > 1: no document says where a list's
 * padded rows are.  Ignored (no effect): query padding without its scene,
 * kv padding without its lengths, and at Q_S = 1 kv padding with a list
 * (RELEASED) or a paged cache (RELEASED, profile cann: profile doc
 * rejected it, check_paged.c). */
fia_status fast_check_padding(const fast_args *a, fast_plan *p,
                              fia_error *err)
{
    const fia_tensor *qpad = a->opt[FAST_OPT_QUERY_PADDING_SIZE];
    const fia_tensor *kvpad = a->opt[FAST_OPT_KV_PADDING_SIZE];
    if ((padding_given(qpad) || padding_given(kvpad)) &&
        fast_token_layout(a->layout, NULL, NULL))
        return FAST_NOTMOD("M_PADDING_LAYOUT", "left padding (query_padding_size / "
                           "kv_padding_size) with input_layout %s is not modeled",
                           a->layout);
    bool qscene, kvscene;
    fast_padding_scene(a, &qscene, &kvscene);
    const int64_t qs = fast_early_q_s(a);
    const bool list = a->key->count > 1 || a->value->count > 1;
    if (kvscene && list && qs >= 0 && qs != 1)
        return FAST_NOTMOD("M_PADDING_LIST", "kv left padding with key/value tensor "
                           "lists (Q_S > 1) is not modeled");
    if (kvscene && (list || a->opt[FAST_OPT_BLOCK_TABLE] != NULL))
        kvscene = false; /* Q_S = 1 (else refused above or in layer 3) */
    p->padding.q_scene = qscene;
    p->padding.kv_scene = kvscene;
    p->padding.on = qscene || kvscene;
    if (qscene) {
        p->padding.q_pad = (const int64_t *)qpad->data;
        fast_shape_numel(qpad, &p->padding.q_pad_numel);
    }
    if (kvscene) {
        p->padding.kv_pad = (const int64_t *)kvpad->data;
        fast_shape_numel(kvpad, &p->padding.kv_pad_numel);
    }
    return FIA_OK;
}
