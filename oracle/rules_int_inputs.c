/* Rules: an int8 query (full quantization).
 *
 * Computing it is not modeled yet: NM-004 refuses it in the last layer,
 * after every documented rule (int8_quant.md). */
#include "oracle_internal.h"

/* An int8 query: full quantization (docs/features/int8_quant.md).  Int8/int4
 * key and value with an fp16/bf16 query are the antiquant scene
 * (rules_antiquant.c). */
static int int_input(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_QUERY] &&
           f->t[FIA_SLOT_QUERY]->dtype == FIA_DT_INT8;
}

ORC_PRED(nm_int_in, 1, int_input(f))

const fia_rule orc_rules_int_inputs[] = {
    {"NM-004", "int_inputs", FIA_RULE_NOT_MODELED, ORC_NM_LATE,
     C002_P("query") "; " C002_P("key"),
     "computing full quantization (an int8 query) is not modeled yet; its "
     "rules (Q8-*) are checked (int8/int4 key/value with an fp16/bf16 "
     "query: antiquant)",
     NULL, ORC_FN(nm_int_in)},
};
const size_t orc_rules_int_inputs_count =
    sizeof orc_rules_int_inputs / sizeof orc_rules_int_inputs[0];
