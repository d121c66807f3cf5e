/* Rules: required tensors (nullptr) and the registered dtype lists.
 *
 * Layering (RELEASED "Return codes, by layer"): a null required tensor is
 * 161001, a dtype outside the registered list 161002, both before any
 * semantic (tiling) check.  The registered lists are 002 §算子原型 (REG_OP),
 * widened by the parameter descriptions where those list more (INT4 packed
 * as INT32 for key/value). */
#include "oracle_internal.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const fia_dtype dt_qkv_q[] = {FIA_DT_FP16, FIA_DT_BF16, FIA_DT_INT8};
static const fia_dtype dt_kv[] = {FIA_DT_FP16, FIA_DT_BF16, FIA_DT_INT8,
                                  FIA_DT_INT4, FIA_DT_INT32};
static const fia_dtype dt_f16[] = {FIA_DT_FP16, FIA_DT_BF16};
static const fia_dtype dt_u64_f32[] = {FIA_DT_UINT64, FIA_DT_FP32};
static const fia_dtype dt_f32[] = {FIA_DT_FP32};
static const fia_dtype dt_f32_bf16[] = {FIA_DT_FP32, FIA_DT_BF16};
static const fia_dtype dt_f16_f32[] = {FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32};
static const fia_dtype dt_i32[] = {FIA_DT_INT32};
static const fia_dtype dt_i64[] = {FIA_DT_INT64};
static const fia_dtype dt_prefix[] = {FIA_DT_INT8, FIA_DT_FP16, FIA_DT_BF16};

/* ---- nullptr ---------------------------------------------------------- */
ORC_PRED(null_query, 1, !f->given[FIA_SLOT_QUERY])
ORC_PRED(null_key, 1, !f->given[FIA_SLOT_KEY])
ORC_PRED(null_value, 1, !f->given[FIA_SLOT_VALUE])
ORC_PRED(null_out, 1, !f->given[FIA_SLOT_ATTENTION_OUT])

/* ---- dtypes of the inputs --------------------------------------------- */
#define DT_PRED(name, slot, list)                                            \
    ORC_PRED(name, f->given[slot],                                           \
             !orc_slot_dtypes_in(f, slot, list, N_OF(list)))
DT_PRED(dt_query, FIA_SLOT_QUERY, dt_qkv_q)
DT_PRED(dt_key, FIA_SLOT_KEY, dt_kv)
DT_PRED(dt_value, FIA_SLOT_VALUE, dt_kv)
DT_PRED(dt_pse, FIA_SLOT_PSE_SHIFT, dt_f16)
DT_PRED(dt_deq1, FIA_SLOT_DEQUANT_SCALE1, dt_u64_f32)
DT_PRED(dt_q1, FIA_SLOT_QUANT_SCALE1, dt_f32)
DT_PRED(dt_deq2, FIA_SLOT_DEQUANT_SCALE2, dt_u64_f32)
DT_PRED(dt_q2, FIA_SLOT_QUANT_SCALE2, dt_f32_bf16)
DT_PRED(dt_qo2, FIA_SLOT_QUANT_OFFSET2, dt_f32_bf16)
DT_PRED(dt_aqs, FIA_SLOT_ANTIQUANT_SCALE, dt_f16_f32)
DT_PRED(dt_aqo, FIA_SLOT_ANTIQUANT_OFFSET, dt_f16_f32)
DT_PRED(dt_bt, FIA_SLOT_BLOCK_TABLE, dt_i32)
DT_PRED(dt_qpad, FIA_SLOT_QUERY_PADDING_SIZE, dt_i64)
DT_PRED(dt_kvpad, FIA_SLOT_KV_PADDING_SIZE, dt_i64)
DT_PRED(dt_kaqs, FIA_SLOT_KEY_ANTIQUANT_SCALE, dt_f16_f32)
DT_PRED(dt_kaqo, FIA_SLOT_KEY_ANTIQUANT_OFFSET, dt_f16_f32)
DT_PRED(dt_vaqs, FIA_SLOT_VALUE_ANTIQUANT_SCALE, dt_f16_f32)
DT_PRED(dt_vaqo, FIA_SLOT_VALUE_ANTIQUANT_OFFSET, dt_f16_f32)
DT_PRED(dt_kpre, FIA_SLOT_KEY_SHARED_PREFIX, dt_prefix)
DT_PRED(dt_vpre, FIA_SLOT_VALUE_SHARED_PREFIX, dt_prefix)
DT_PRED(dt_qrope, FIA_SLOT_QUERY_ROPE, dt_f16)
DT_PRED(dt_krope, FIA_SLOT_KEY_ROPE, dt_f16)
DT_PRED(dt_dsq, FIA_SLOT_DEQUANT_SCALE_QUERY, dt_f32)

/* ---- dtype agreement (semantic) ---------------------------------------- */
static int kv_dtype_mismatch(const fia_oracle_facts *f)
{
    const fia_tensor_spec *k = &f->c->tensors[FIA_SLOT_KEY];
    const fia_tensor_spec *v = &f->c->tensors[FIA_SLOT_VALUE];
    fia_dtype dt = k->t[0].dtype;
    for (int32_t i = 0; i < k->count; i++)
        if (k->t[i].dtype != dt)
            return 1;
    for (int32_t i = 0; i < v->count; i++)
        if (v->t[i].dtype != dt)
            return 1;
    return 0;
}
ORC_PRED(kv_dtype, f->given[FIA_SLOT_KEY] && f->given[FIA_SLOT_VALUE],
         kv_dtype_mismatch(f))
/* Non-quantized path: query and key/value all fp16/bf16; they must agree. */
ORC_PRED(qk_dtype, f->q_float && f->kv_float,
         f->t[FIA_SLOT_KEY]->dtype != f->t[FIA_SLOT_QUERY]->dtype)

#define DT_ROW(id, slot_name, fn, cite, list_text, dis)                       \
    {id, "tensors", FIA_RULE_REJECT, ORC_DTYPE, cite,                        \
     slot_name " dtype must be one of " list_text                            \
     " (registered dtype list)", dis, ORC_FN(fn)}

const fia_rule orc_rules_tensors[] = {
    {"TENS-001", "tensors", FIA_RULE_REJECT, ORC_NULLPTR, C002_RET,
     "query must not be a nullptr", NULL, ORC_FN(null_query)},
    {"TENS-002", "tensors", FIA_RULE_REJECT, ORC_NULLPTR, C002_RET,
     "key must not be a nullptr", NULL, ORC_FN(null_key)},
    {"TENS-003", "tensors", FIA_RULE_REJECT, ORC_NULLPTR, C002_RET,
     "value must not be a nullptr", NULL, ORC_FN(null_value)},
    {"TENS-004", "tensors", FIA_RULE_REJECT, ORC_NULLPTR, C002_RET,
     "attention_out must not be a nullptr", NULL, ORC_FN(null_out)},

    DT_ROW("TENS-010", "query", dt_query,
           C002_P("query") "; " C002_REGOP, "fp16, bf16, int8",
           "001 (IFA) and 003 (v2) list only fp16/bf16 for query; 002 and "
           "000 add int8 (an int8 query: full quantization, int8_quant)"),
    DT_ROW("TENS-011", "every key tensor", dt_key,
           C002_P("key") "; " C002_REGOP, "fp16, bf16, int8, int4, int32",
           "002 REG_OP registers only int8/fp16/bf16 for key, while the 002 "
           "parameter text and 003 add int4 (packed as int32); we accept the "
           "wider list at this layer"),
    DT_ROW("TENS-012", "every value tensor", dt_value,
           C002_P("value") "; " C002_REGOP, "fp16, bf16, int8, int4, int32",
           "as TENS-011: REG_OP lists int8/fp16/bf16 only, the parameter "
           "text adds int4 (int32)"),
    DT_ROW("TENS-013", "pse_shift", dt_pse,
           C002_P("pseShiftOptional") "; " C002_RET, "fp16, bf16", NULL),
    DT_ROW("TENS-020", "dequant_scale1", dt_deq1,
           C002_P("deqScale1Optional") "; " C002_REGOP, "uint64, fp32",
           "000 lists uint64 only; 001 (IFA) lists float32 only"),
    DT_ROW("TENS-021", "quant_scale1", dt_q1,
           C002_P("quantScale1Optional") "; " C002_REGOP, "fp32", NULL),
    DT_ROW("TENS-022", "dequant_scale2", dt_deq2,
           C002_P("deqScale2Optional") "; " C002_REGOP, "uint64, fp32",
           "000 lists uint64 only; 001 (IFA) lists float32 only"),
    DT_ROW("TENS-023", "quant_scale2", dt_q2,
           C002_P("quantScale2Optional") "; " C002_REGOP, "fp32, bf16",
           "000 §关键字参数 > quant_scale2 lists float32 and float16 (not "
           "bfloat16) in its parameter line, bfloat16 in its constraint text"),
    DT_ROW("TENS-024", "quant_offset2", dt_qo2,
           C002_P("quantOffset2Optional") "; " C002_REGOP, "fp32, bf16",
           "000 §关键字参数 > quant_offset2 lists float32 and float16 (not "
           "bfloat16)"),
    DT_ROW("TENS-025", "antiquant_scale", dt_aqs,
           C002_P("antiquantScaleOptional") "; " C002_REGOP,
           "fp16, bf16, fp32",
           "002 and 000 restrict it to fp16 when Q_S >= 2 (not checked here: "
           "antiquant is not modeled)"),
    DT_ROW("TENS-026", "antiquant_offset", dt_aqo,
           C002_P("antiquantOffsetOptional") "; " C002_REGOP,
           "fp16, bf16, fp32", NULL),
    DT_ROW("TENS-027", "block_table", dt_bt,
           C002_P("blockTableOptional") "; " C002_REGOP, "int32", NULL),
    DT_ROW("TENS-028", "query_padding_size", dt_qpad,
           C002_P("queryPaddingSizeOptional") "; " C002_REGOP, "int64", NULL),
    DT_ROW("TENS-029", "kv_padding_size", dt_kvpad,
           C002_P("kvPaddingSizeOptional") "; " C002_REGOP, "int64", NULL),
    DT_ROW("TENS-030", "key_antiquant_scale", dt_kaqs,
           C002_P("keyAntiquantScaleOptional") "; " C002_REGOP,
           "fp16, bf16, fp32", NULL),
    DT_ROW("TENS-031", "key_antiquant_offset", dt_kaqo,
           C002_P("keyAntiquantOffsetOptional") "; " C002_REGOP,
           "fp16, bf16, fp32", NULL),
    DT_ROW("TENS-032", "value_antiquant_scale", dt_vaqs,
           C002_P("valueAntiquantScaleOptional") "; " C002_REGOP,
           "fp16, bf16, fp32", NULL),
    DT_ROW("TENS-033", "value_antiquant_offset", dt_vaqo,
           C002_P("valueAntiquantOffsetOptional") "; " C002_REGOP,
           "fp16, bf16, fp32", NULL),
    DT_ROW("TENS-034", "key_shared_prefix", dt_kpre,
           C002_P("keySharedPrefixOptional") "; " C002_REGOP,
           "int8, fp16, bf16", NULL),
    DT_ROW("TENS-035", "value_shared_prefix", dt_vpre,
           C002_P("valueSharedPrefixOptional") "; " C002_REGOP,
           "int8, fp16, bf16", NULL),
    DT_ROW("TENS-036", "query_rope", dt_qrope, C003_P("query_rope"),
           "fp16, bf16", NULL),
    DT_ROW("TENS-037", "key_rope", dt_krope, C003_P("key_rope"),
           "fp16, bf16", NULL),
    DT_ROW("TENS-038", "dequant_scale_query", dt_dsq,
           C003_P("dequant_scale_query"), "fp32", NULL),

    {"TENS-040", "tensors", FIA_RULE_REJECT, ORC_SEM,
     C002_P("key") "; " C002_P("value") "; " C002_CONSTR,
     "every key and value tensor must have one and the same dtype",
     "inferred: no document states it in one sentence, but every one "
     "describes key and value with a single dtype (002 约束说明 requires "
     "identical key/value shapes; the quant tables speak of 'key, value "
     "dtype int8')",
     ORC_FN(kv_dtype)},
    {"TENS-041", "tensors", FIA_RULE_REJECT, ORC_SEM,
     C002_GT1 "; " C002_P("query"),
     "on the non-quantized path (query and key/value all fp16/bf16) key/value "
     "must have the query's dtype",
     "inferred: the documents allow a key/value dtype different from the "
     "query only for int8/int4 key/value (antiquant, not modeled)",
     ORC_FN(qk_dtype)},
};
const size_t orc_rules_tensors_count = N_OF(orc_rules_tensors);
