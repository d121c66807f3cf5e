/* Rules: an int8 query (full quantization) and int8/int4 key/value.
 *
 * No row of its own: an int8 query's rules are int8_quant's (Q8-*,
 * rules_int8_quant.c; ANTI-027 / -028 for all-int8), its dtypes
 * TENS-010..012 (rules_tensors.c), and a call they all accept is computed
 * (int8_quant.md "The computation").  Int8/int4 key/value with an
 * fp16/bf16 query are the antiquant scene (rules_antiquant.c). */
#include "oracle_internal.h"

/* ISO C has no empty array: one unused row, a count of 0. */
const fia_rule orc_rules_int_inputs[1] = {{0}};
const size_t orc_rules_int_inputs_count = 0;
