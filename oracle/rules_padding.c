/* Rules: query / kv left padding (query_padding_size, kv_padding_size),
 * docs/features/padding.md.
 *
 * The scenes (facts_padding.c): a padding tensor of at least one element
 * with its lengths, the query's only at Q_S > 1.  The padding values are
 * device data: which rows take part, a value below 0 read as 0, a start
 * below 0 (unspecified at Q_S > 1, zeros at Q_S = 1) are the reference's
 * reading, not rules the oracle can evaluate (it never reads data).
 *
 * The combinations the documents refuse with a scene need no padding
 * arithmetic: they are exclusions (page attention's is PAGED-002 /
 * PAGED-018).  What fiacheck does not model is a padding tensor with a
 * token layout (003 has no padding parameters) and a kv scene with
 * key/value tensor lists at Q_S > 1 (no document says where a list's
 * padded rows are). */
#include "oracle_internal.h"

static int left_padding(const fia_oracle_facts *f)
{
    return f->pad_q_scene || f->pad_kv_scene;
}

static int half_query_int4_kv(const fia_oracle_facts *f)
{
    const fia_tensor *q = f->t[FIA_SLOT_QUERY], *k = f->t[FIA_SLOT_KEY];
    return q && k && (q->dtype == FIA_DT_FP16 || q->dtype == FIA_DT_BF16) &&
           (k->dtype == FIA_DT_INT4 || k->dtype == FIA_DT_INT32);
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

static int q_pad(const fia_oracle_facts *f)
{
    return orc_pad_counts(f, FIA_SLOT_QUERY_PADDING_SIZE);
}

static int kv_pad(const fia_oracle_facts *f)
{
    return orc_pad_counts(f, FIA_SLOT_KV_PADDING_SIZE);
}

static int token_layout(const fia_oracle_facts *f)
{
    return f->layout == ORC_LAYOUT_TND || f->layout == ORC_LAYOUT_TND_NTD ||
           f->layout == ORC_LAYOUT_NTD_TND || f->layout == ORC_LAYOUT_NTD;
}

static int empty_pad(const fia_oracle_facts *f, fia_slot s)
{
    return f->given[s] && f->numel[s] == 0;
}

ORC_PRED(x_int4, left_padding(f), half_query_int4_kv(f))
ORC_PRED(x_prefix, left_padding(f), orc_prefix_given(f))
ORC_PRED(x_antiquant, left_padding(f), kv_antiquant_split(f))
ORC_PRED(x_out_quant, left_padding(f), per_channel_out_quant(f))
ORC_PRED(nm_padding, 1,
         (token_layout(f) && (q_pad(f) || kv_pad(f))) ||
             (orc_is_prefill(f) && f->kv_list && f->pad_kv_scene))
ORC_PRED(q_ignored, q_pad(f) && !token_layout(f), !f->pad_q_scene)
ORC_PRED(kv_ignored, kv_pad(f) && !token_layout(f), !f->kv_seq_given)
ORC_PRED(decode_list, orc_is_decode(f) && f->pad_kv_scene, f->kv_list)
ORC_PRED(tokens_ignored,
         orc_is_prefill(f) && f->c->attrs.sparse_mode == 0 &&
             f->mask_effective,
         left_padding(f))
ORC_PRED(empty, 1,
         empty_pad(f, FIA_SLOT_QUERY_PADDING_SIZE) ||
             empty_pad(f, FIA_SLOT_KV_PADDING_SIZE))

#define C_QPAD C002_GT1 " (query左padding场景)"
#define C_KVPAD C002_GT1 " (kv左padding场景); " C002_EQ1 " (kv左padding场景)"

const fia_rule orc_rules_padding[] = {
    {"PAD-X01", "padding", FIA_RULE_REJECT, ORC_EXCL,
     C002_GT1 " (query左padding场景, kv左padding场景); " C002_EQ1
              " (kv左padding场景)",
     "left padding takes no int4 key/value with an fp16/bf16 query",
     NULL, ORC_FN(x_int4)},
    {"PAD-X02", "padding", FIA_RULE_REJECT, ORC_EXCL,
     C002_GT1 " (prefix相关参数约束)",
     "left padding takes no shared prefix (prefix不支持左padding场景)",
     NULL, ORC_FN(x_prefix)},
    {"PAD-X03", "padding", FIA_RULE_REJECT, ORC_EXCL,
     C002_GT1 " (kv伪量化参数分离)",
     "left padding takes no key/value antiquant scales given apart "
     "(key_antiquant_scale / value_antiquant_scale)",
     NULL, ORC_FN(x_antiquant)},
    {"PAD-X04", "padding", FIA_RULE_REJECT, ORC_EXCL,
     C002_GT1 " (输出为int8); " C000_GT1,
     "left padding takes no per-channel output quantization "
     "(quant_scale2 / quant_offset2 of more than one element)",
     NULL, ORC_FN(x_out_quant)},
    ORC_NM_ROW("NM-007", "padding", nm_padding,
               "003 §功能说明; " C002_GT1 " (kv左padding场景)",
               "left padding with a token layout (TND, NTD, TND_NTD, "
               "NTD_TND) or, at Q_S > 1, a kv scene with key/value tensor "
               "lists is not modeled",
               "003 has no padding parameters (it sends left padding to the "
               "older interface); no document says where a tensor list's "
               "padded rows are"),
    {"PAD-N01", "padding", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_P("queryPaddingSizeOptional") "; " C_QPAD,
     "query_padding_size without actual_seq_lengths, or at Q_S = 1, is no "
     "left-padding scene: it is ignored (right padding)",
     "002 and 000 write 'kvPaddingSize小于0时将被置为0' in the query scene's "
     "list: fiacheck reads it as the query's own padding",
     ORC_FN(q_ignored)},
    {"PAD-N02", "padding", FIA_RULE_NORMALIZE, ORC_NORM,
     C_KVPAD "; " C001_CONSTR " (KV左padding场景)",
     "kv_padding_size without actual_seq_lengths_kv is no left-padding "
     "scene: it is ignored (right padding)",
     "002's Q_S = 1 list and 001 name the lengths actualSeqLengths / "
     "actual_seq_lengths; on 002's decode path the query lengths are "
     "ignored, so fiacheck reads the key/value lengths (RELEASED alike); "
     "000 says kv_padding_size works only for Q_S > 1",
     ORC_FN(kv_ignored)},
    {"PAD-N03", "padding", FIA_RULE_NORMALIZE, ORC_NORM,
     CREL("Silent normalisations"),
     "Q_S = 1: kv_padding_size with key/value tensor lists is ignored "
     "(right padding)",
     "the documents are silent; RELEASED ignores it (as with page "
     "attention, PAGED-018 in profile cann)",
     ORC_FN(decode_list)},
    {"PAD-N04", "padding", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_GT1 " (sparseMode); " C000_GT1,
     "sparse_mode 0 with an atten_mask in a left-padding scene ignores "
     "pre_tokens and next_tokens: the mask alone decides",
     NULL, ORC_FN(tokens_ignored)},
    {"PAD-N05", "padding", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_P("queryPaddingSizeOptional") "; "
         C002_P("kvPaddingSizeOptional"),
     "an empty padding tensor (no element) is absent",
     "the documents give the padding tensors no shape; fiacheck reads "
     "element 0 (one value for every batch) and treats an empty tensor as "
     "absent, as RELEASED does an empty mask or pse",
     ORC_FN(empty)},
};
const size_t orc_rules_padding_count =
    sizeof orc_rules_padding / sizeof orc_rules_padding[0];
