/* Rules: full int8 quantization, int8 query, key and value with
 * dequant_scale1 (after Q.K^T), quant_scale1 (P before P.V) and
 * dequant_scale2 (after P.V), each per-tensor
 * (docs/features/int8_quant.md).  These rules need no arithmetic; a
 * call they all accept is computed (ref/, fast/).  An int8 output's own
 * rules are int8_out's (OQ-*). */
#include "oracle_internal.h"

#define C_Q8IO C002_CONSTR " (int8量化相关入参)"

/* 002's int8 query.  MLA's full quantization (an int8 query with rope, D
 * = 512: facts_mla.c) has rules of its own (MLA-050..055, MLA-X03, QQ-*):
 * bf16 output and 003's scales, none of 002's. */
static int q_int8(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_QUERY] &&
           f->t[FIA_SLOT_QUERY]->dtype == FIA_DT_INT8 && !f->mla_query_quant;
}

static int out_is(const fia_oracle_facts *f, fia_dtype dt)
{
    return f->out_presence == FIA_PRESENT && f->out.dtype == dt;
}

static int out_f16(const fia_oracle_facts *f)
{
    return out_is(f, FIA_DT_FP16) || out_is(f, FIA_DT_BF16);
}

static int scales1_given(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_DEQUANT_SCALE1] ||
           f->given[FIA_SLOT_QUANT_SCALE1] || f->given[FIA_SLOT_DEQUANT_SCALE2];
}

static int scales1_all(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_DEQUANT_SCALE1] &&
           f->given[FIA_SLOT_QUANT_SCALE1] && f->given[FIA_SLOT_DEQUANT_SCALE2];
}

static int kv_int8(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_KEY] && f->given[FIA_SLOT_VALUE] &&
           f->t[FIA_SLOT_KEY]->dtype == FIA_DT_INT8 &&
           f->t[FIA_SLOT_VALUE]->dtype == FIA_DT_INT8;
}

static int not_one(const fia_oracle_facts *f, fia_slot s)
{
    return f->given[s] && f->numel[s] >= 0 && f->numel[s] != 1;
}

ORC_PRED(int8_int8, q_int8(f) && out_is(f, FIA_DT_INT8),
         !scales1_all(f) || !f->given[FIA_SLOT_QUANT_SCALE2])
ORC_PRED(int8_fp, q_int8(f) && f->given[FIA_SLOT_ATTENTION_OUT] &&
                      !out_is(f, FIA_DT_INT8),
         !scales1_all(f))
ORC_PRED(int8_out_dt, q_int8(f) && f->given[FIA_SLOT_ATTENTION_OUT],
         !out_is(f, FIA_DT_FP16) && !out_is(f, FIA_DT_INT8))
ORC_PRED(int8_kv, q_int8(f), !kv_int8(f))
/* The scales are read with an int8 query only (an fp16/bf16 call rejects
 * them, Q8-006/007 and OQ-003, or, cann at Q_S > 1, ignores them). */
ORC_PRED(per_tensor, q_int8(f),
         not_one(f, FIA_SLOT_DEQUANT_SCALE1) ||
             not_one(f, FIA_SLOT_QUANT_SCALE1) ||
             not_one(f, FIA_SLOT_DEQUANT_SCALE2))
ORC_PRED(fp_scales_prefill, f->q_float && out_f16(f) && orc_is_prefill(f),
         scales1_given(f))
ORC_PRED(fp_scales_decode, f->q_float && out_f16(f) && orc_is_decode(f),
         scales1_given(f))
ORC_PRED(int8_d32, q_int8(f) && orc_is_prefill(f) && f->q_d_ok,
         f->D % 32 != 0)

const fia_rule orc_rules_int8_quant[] = {
    {"Q8-001", "int8_quant", FIA_RULE_REJECT, ORC_SEM,
     C_Q8IO "; " C000_KW("quant_offset2"),
     "int8 query with an int8 attention_out: dequant_scale1, quant_scale1, "
     "dequant_scale2 and quant_scale2 are all given (quant_offset2 optional)",
     NULL, ORC_FN(int8_int8)},
    {"Q8-002", "int8_quant", FIA_RULE_REJECT, ORC_SEM,
     C_Q8IO "; " C000_KW("quant_offset2"),
     "int8 query with an fp16 attention_out: dequant_scale1, quant_scale1 "
     "and dequant_scale2 are all given",
     NULL, ORC_FN(int8_fp)},
    {"Q8-003", "int8_quant", FIA_RULE_REJECT, ORC_SEM, C_Q8IO,
     "int8 query: attention_out is fp16 or int8",
     "002 documents only the two scenes; 003's MLA full quantization "
     "outputs bf16 (its own rule MLA-051: the Q8 rows leave that scene "
     "alone)",
     ORC_FN(int8_out_dt)},
    {"Q8-004", "int8_quant", FIA_RULE_REJECT, ORC_SEM, C_Q8IO,
     "int8 query: key and value are int8 too",
     "inferred: 002's scenes speak of int8 input as query, key and value "
     "together",
     ORC_FN(int8_kv)},
    {"Q8-005", "int8_quant", FIA_RULE_REJECT, ORC_SEM,
     C002_P("deqScale1Optional") "; " C002_P("quantScale1Optional") "; "
         C002_P("deqScale2Optional") "; " C001_P("dequant_scale1"),
     "int8 query: dequant_scale1, quant_scale1 and dequant_scale2 are "
     "per-tensor (one element)",
     NULL, ORC_FN(per_tensor)},
    {"Q8-006", "int8_quant", FIA_RULE_REJECT, FIA_LAYER_SEMANTIC,
     FIA_ERR_PARAM_INVALID, FIA_OK, C_Q8IO "; " CREL("Silent normalisations"),
     "Q_S > 1, fp16/bf16 input and output: no dequant_scale1, quant_scale1 "
     "or dequant_scale2 (doc); the released code ignores them (cann accepts, "
     "Q8-N01)",
     "inferred for the doc profile: the documents give these scales to int8 "
     "input only and reject them with fp input and int8 output; RELEASED "
     "ignores them here",
     ORC_FN(fp_scales_prefill)},
    {"Q8-007", "int8_quant", FIA_RULE_REJECT, ORC_SEM, C_Q8IO "; " C001_CONSTR,
     "Q_S = 1, fp16/bf16 input and output: no dequant_scale1, quant_scale1 "
     "or dequant_scale2 (both profiles)",
     "RELEASED's 'ignored' is stated for Q_S > 1 only", ORC_FN(fp_scales_decode)},
    {"Q8-008", "int8_quant", FIA_RULE_REJECT, ORC_SEM, C002_GT1 "; " C000_GT1,
     "Q_S > 1, int8 query: D is a multiple of 32", NULL, ORC_FN(int8_d32)},
};
const size_t orc_rules_int8_quant_count =
    sizeof orc_rules_int8_quant / sizeof orc_rules_int8_quant[0];
