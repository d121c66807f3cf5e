/* Documented features fiacheck does not model yet (docs/semantics.md "Not
 * modeled yet").  Each row refuses the feature with FIA_ERR_NOT_MODELED; the
 * evaluator lets the nullptr and dtype layers decide first. */
#include "oracle_internal.h"

static int any_given(const fia_oracle_facts *f, const fia_slot *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (f->given[s[i]])
            return 1;
    return 0;
}
#define ANY(f, list) any_given(f, list, sizeof(list) / sizeof((list)[0]))

static const fia_slot quant_slots[] = {
    FIA_SLOT_DEQUANT_SCALE1, FIA_SLOT_QUANT_SCALE1, FIA_SLOT_DEQUANT_SCALE2,
    FIA_SLOT_QUANT_SCALE2, FIA_SLOT_QUANT_OFFSET2};
static const fia_slot antiquant_slots[] = {
    FIA_SLOT_ANTIQUANT_SCALE, FIA_SLOT_ANTIQUANT_OFFSET,
    FIA_SLOT_KEY_ANTIQUANT_SCALE, FIA_SLOT_KEY_ANTIQUANT_OFFSET,
    FIA_SLOT_VALUE_ANTIQUANT_SCALE, FIA_SLOT_VALUE_ANTIQUANT_OFFSET};
static const fia_slot padding_slots[] = {FIA_SLOT_QUERY_PADDING_SIZE,
                                         FIA_SLOT_KV_PADDING_SIZE};
static const fia_slot prefix_slots[] = {FIA_SLOT_KEY_SHARED_PREFIX,
                                        FIA_SLOT_VALUE_SHARED_PREFIX};
static const fia_slot rope_slots[] = {FIA_SLOT_QUERY_ROPE, FIA_SLOT_KEY_ROPE};

static int int_input(const fia_oracle_facts *f)
{
    if (f->given[FIA_SLOT_QUERY] && f->t[FIA_SLOT_QUERY]->dtype == FIA_DT_INT8)
        return 1;
    for (int s = FIA_SLOT_KEY; s <= FIA_SLOT_VALUE; s++) {
        if (!f->given[s])
            continue;
        const fia_tensor_spec *sp = &f->c->tensors[s];
        for (int32_t i = 0; i < sp->count; i++) {
            fia_dtype dt = sp->t[i].dtype;
            if (dt == FIA_DT_INT8 || dt == FIA_DT_INT4 || dt == FIA_DT_INT32)
                return 1;
        }
    }
    return 0;
}

ORC_PRED(nm_pse, 1,
         f->given[FIA_SLOT_PSE_SHIFT] && f->numel[FIA_SLOT_PSE_SHIFT] != 0)
ORC_PRED(nm_quant, 1, ANY(f, quant_slots))
ORC_PRED(nm_antiquant, 1,
         ANY(f, antiquant_slots) || f->c->attrs.antiquant_mode != 0 ||
             f->c->attrs.key_antiquant_mode != 0 ||
             f->c->attrs.value_antiquant_mode != 0)
ORC_PRED(nm_int_in, 1, int_input(f))
ORC_PRED(nm_int_out, 1,
         f->given[FIA_SLOT_ATTENTION_OUT] && f->out.dtype == FIA_DT_INT8)
ORC_PRED(nm_paged, 1,
         f->given[FIA_SLOT_BLOCK_TABLE] || f->c->attrs.block_size != 0)
ORC_PRED(nm_padding, 1, ANY(f, padding_slots))
ORC_PRED(nm_prefix, 1,
         ANY(f, prefix_slots) ||
             f->c->arrays[FIA_ARR_ACTUAL_SHARED_PREFIX_LEN].presence ==
                 FIA_PRESENT)
ORC_PRED(nm_list, 1,
         f->count[FIA_SLOT_KEY] > 1 || f->count[FIA_SLOT_VALUE] > 1)
ORC_PRED(nm_rope, 1, ANY(f, rope_slots))
ORC_PRED(nm_qquant, 1,
         f->given[FIA_SLOT_DEQUANT_SCALE_QUERY] ||
             f->c->attrs.query_quant_mode != 0)
ORC_PRED(nm_layout_v2, 1, f->layout == ORC_LAYOUT_V2)

#define NM_ROW(id, feat, fn, cite, text, dis)                                \
    {id, feat, FIA_RULE_NOT_MODELED, ORC_NM, cite, text, dis, ORC_FN(fn)}

const fia_rule orc_rules_not_modeled[] = {
    NM_ROW("NM-001", "pse", nm_pse, C002_P("pseShiftOptional"),
           "pse_shift (positional bias added to the scores) with at least one "
           "element is not modeled yet (an empty one counts as absent)",
           NULL),
    NM_ROW("NM-002", "quant", nm_quant,
           C002_CONSTR " (int8量化相关入参); " C002_P("deqScale1Optional"),
           "int8 quantization scales (dequant_scale1, quant_scale1, "
           "dequant_scale2, quant_scale2, quant_offset2) are not modeled yet",
           "the released code ignores dequant/quant scale 1 with fp16/bf16 "
           "input on Q_S > 1 instead of rejecting them"),
    NM_ROW("NM-003", "antiquant", nm_antiquant,
           C002_CONSTR " (伪量化参数, kv伪量化参数分离)",
           "key/value antiquantization (antiquant_* tensors, "
           "key/value_antiquant_* tensors, any antiquant mode != 0) is not "
           "modeled yet",
           "000 says the separate key/value antiquant parameters and modes "
           "are ignored when Q_S > 1; 002 supports them there"),
    NM_ROW("NM-004", "int-inputs", nm_int_in,
           C002_P("query") "; " C002_P("key"),
           "int8 query, or int8 / int4 (int32) key/value, is not modeled yet",
           NULL),
    NM_ROW("NM-005", "int8-output", nm_int_out, C002_P("attentionOut"),
           "an int8 attention_out (output quantization) is not modeled yet",
           NULL),
    NM_ROW("NM-006", "paged", nm_paged,
           C002_GT1 " (page attention场景); " C002_EQ1,
           "page attention (block_table given, or block_size != 0) is not "
           "modeled yet",
           "002 (Q_S > 1) requires block_size in 128..512, multiple of 128; "
           "002 (Q_S = 1), 000 and 001 require only a nonzero value aligned to "
           "16 (fp16/bf16) or 32 (int8), at most 512; 000 calls block_table and "
           "block_size invalid when Q_S > 1, while 002 and 003 document page "
           "attention on Q_S > 1"),
    NM_ROW("NM-007", "padding", nm_padding,
           C002_GT1 " (query左padding场景, kv左padding场景)",
           "query/kv left padding (query_padding_size, kv_padding_size) is "
           "not modeled yet",
           "000 says kv_padding_size only works for Q_S > 1, while 002 and "
           "001 document kv left padding on Q_S = 1 too"),
    NM_ROW("NM-008", "prefix", nm_prefix,
           C002_GT1 " (prefix相关参数约束)",
           "the shared system prefix (key/value_shared_prefix, "
           "actual_shared_prefix_len) is not modeled yet",
           "000 calls these parameters reserved and not enabled yet"),
    NM_ROW("NM-009", "tensor-list", nm_list, C002_CONSTR,
           "key/value tensor lists with more than one tensor are not modeled "
           "yet",
           NULL),
    NM_ROW("NM-010", "mla", nm_rope, C003_CONSTR " (MLA)",
           "MLA rope inputs (query_rope, key_rope) are not modeled yet", NULL),
    NM_ROW("NM-011", "query-quant", nm_qquant,
           C003_P("dequant_scale_query") "; " C003_P("query_quant_mode"),
           "query quantization (dequant_scale_query, query_quant_mode != 0) "
           "is not modeled yet",
           "003 says query_quant_mode accepts only 3 yet gives it default 0"),
    NM_ROW("NM-012", "layout-v2", nm_layout_v2, C003_P("input_layout"),
           "the 003 layouts (TND, TND_NTD, NTD_TND, NTD, BSH_NBSD, BSND_NBSD, "
           "BNSD_NBSD) are not modeled yet",
           NULL),
};
const size_t orc_rules_not_modeled_count =
    sizeof orc_rules_not_modeled / sizeof orc_rules_not_modeled[0];
