/* padding: query and key/value left padding (query_padding_size,
 * kv_padding_size).  Not modeled yet: their registered dtypes, the
 * combinations the documents refuse with them, then their refusal. */
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

/* More than one element: a per-channel quant_scale2 / quant_offset2. */
static bool per_channel(const fia_tensor *t)
{
    int64_t n;
    return t != NULL && fast_shape_numel(t, &n) && n > 1;
}

/* Layer 3.  002 约束说明: a left-padding scene is a padding tensor with
 * its lengths (else right padding), query padding only when Q_S > 1
 * ("仅支持Q_S大于1，其余场景该参数无效"); it takes no int4 key/value with an
 * fp16/bf16 query, no shared prefix ("prefix不支持左padding场景"), no
 * key/value antiquant scales given apart, no per-channel int8 output
 * quantization.  (Page attention's refusal is check_paged.c's.) */
fia_status fast_check_padding_exclusions(const fast_args *a, fast_plan *p,
                                         fia_error *err)
{
    (void)p;
    const bool left = (a->opt[FAST_OPT_QUERY_PADDING_SIZE] && a->asl &&
                       fast_early_q_s(a) >= 0 && fast_early_q_s(a) != 1) ||
                      (a->opt[FAST_OPT_KV_PADDING_SIZE] && a->aslkv);
    if (!left)
        return FIA_OK;
    const fia_dtype qd = a->query->dtype, kd = a->key->tensors[0]->dtype;
    if ((qd == FIA_DT_FP16 || qd == FIA_DT_BF16) && kd == FIA_DT_INT4)
        FAST_REJECT("S_PADDING_INT4", "left padding with a %s query and int4 "
                    "key/value", fast_dtype_name(qd));
    if (a->opt[FAST_OPT_KEY_SHARED_PREFIX] ||
        a->opt[FAST_OPT_VALUE_SHARED_PREFIX])
        FAST_REJECT("S_PADDING_PREFIX", "left padding with a shared prefix");
    if (a->opt[FAST_OPT_KEY_ANTIQUANT_SCALE] ||
        a->opt[FAST_OPT_VALUE_ANTIQUANT_SCALE])
        FAST_REJECT("S_PADDING_ANTIQUANT", "left padding with key/value "
                    "antiquant scales");
    if (per_channel(a->opt[FAST_OPT_QUANT_SCALE2]) ||
        per_channel(a->opt[FAST_OPT_QUANT_OFFSET2]))
        FAST_REJECT("S_PADDING_OUT_QUANT", "left padding with per-channel "
                    "output quantization");
    return FIA_OK;
}

/* Layer 4: either passed, even empty. */
fia_status fast_check_padding(const fast_args *a, fast_plan *p,
                              fia_error *err)
{
    (void)p;
    return fast_refuse_opt(a, inputs, NINPUTS, err);
}
