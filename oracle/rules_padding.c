/* Rules: query / kv left padding (query_padding_size, kv_padding_size).
 *
 * A left-padding scene needs the matching lengths (002 约束说明: "query左
 * padding场景需要与actualSeqLengths参数一起使能，否则默认为query右padding
 * 场景", the same for kv), and query padding exists only when Q_S > 1
 * (002 参数说明 queryPaddingSizeOptional: "仅支持Q_S大于1，其余场景该参数
 * 无效").  The combinations the documents refuse with it need no padding
 * arithmetic: they are exclusions, decided before "not modeled" (NM-007
 * refuses the feature itself); page attention's is PAGED's. */
#include "oracle_internal.h"

static const fia_slot padding_slots[] = {FIA_SLOT_QUERY_PADDING_SIZE,
                                         FIA_SLOT_KV_PADDING_SIZE};

/* The call is a left-padding scene (query or kv). */
static int left_padding(const fia_oracle_facts *f)
{
    return (f->given[FIA_SLOT_QUERY_PADDING_SIZE] && orc_is_prefill(f) &&
            f->seq_given) ||
           (f->given[FIA_SLOT_KV_PADDING_SIZE] && f->kv_seq_given);
}

static int half_query_int4_kv(const fia_oracle_facts *f)
{
    const fia_tensor *q = f->t[FIA_SLOT_QUERY], *k = f->t[FIA_SLOT_KEY];
    return q && k && (q->dtype == FIA_DT_FP16 || q->dtype == FIA_DT_BF16) &&
           k->dtype == FIA_DT_INT4;
}

static int kv_antiquant_split(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_KEY_ANTIQUANT_SCALE] ||
           f->given[FIA_SLOT_VALUE_ANTIQUANT_SCALE];
}

static int per_channel_out_quant(const fia_oracle_facts *f)
{
    return (f->given[FIA_SLOT_QUANT_SCALE2] &&
            f->numel[FIA_SLOT_QUANT_SCALE2] > 1) ||
           (f->given[FIA_SLOT_QUANT_OFFSET2] &&
            f->numel[FIA_SLOT_QUANT_OFFSET2] > 1);
}

ORC_PRED(x_int4, left_padding(f), half_query_int4_kv(f))
ORC_PRED(x_prefix, left_padding(f), orc_prefix_given(f))
ORC_PRED(x_antiquant, left_padding(f), kv_antiquant_split(f))
ORC_PRED(x_out_quant, left_padding(f), per_channel_out_quant(f))
ORC_PRED(nm_padding, 1, ORC_ANY_GIVEN(f, padding_slots))

#define SCENE_NOTE                                                           \
    "the scene is read as 002 defines it: a padding tensor with its "        \
    "lengths (else right padding), query padding only when Q_S > 1; "        \
    "PAGED's padding exclusion takes any padding tensor"

const fia_rule orc_rules_padding[] = {
    {"PAD-X01", "padding", FIA_RULE_REJECT, ORC_EXCL,
     C002_GT1 " (query左padding场景, kv左padding场景); " C002_EQ1
              " (kv左padding场景)",
     "left padding takes no int4 key/value with an fp16/bf16 query",
     SCENE_NOTE, ORC_FN(x_int4)},
    {"PAD-X02", "padding", FIA_RULE_REJECT, ORC_EXCL,
     C002_GT1 " (prefix相关参数约束)",
     "left padding takes no shared prefix (prefix不支持左padding场景)",
     SCENE_NOTE, ORC_FN(x_prefix)},
    {"PAD-X03", "padding", FIA_RULE_REJECT, ORC_EXCL,
     C002_GT1 " (kv伪量化参数分离)",
     "left padding takes no key/value antiquant scales given apart "
     "(key_antiquant_scale / value_antiquant_scale)",
     SCENE_NOTE, ORC_FN(x_antiquant)},
    {"PAD-X04", "padding", FIA_RULE_REJECT, ORC_EXCL,
     C002_GT1 " (输出为int8); " C000_GT1,
     "left padding takes no per-channel output quantization "
     "(quant_scale2 / quant_offset2 of more than one element)",
     SCENE_NOTE, ORC_FN(x_out_quant)},
    ORC_NM_ROW("NM-007", "padding", nm_padding,
               C002_GT1 " (query左padding场景, kv左padding场景)",
               "query/kv left padding (query_padding_size, kv_padding_size) is "
               "not modeled yet",
               "000 says kv_padding_size only works for Q_S > 1, while 002 and "
               "001 document kv left padding on Q_S = 1 too"),
};
const size_t orc_rules_padding_count =
    sizeof orc_rules_padding / sizeof orc_rules_padding[0];
