/* Rules: grouped-query attention (num_key_value_heads). */
#include "oracle_internal.h"

ORC_PRED(kvn_nonneg, 1, f->c->attrs.num_key_value_heads < 0)
ORC_PRED(kvn_divides, f->N > 0 && f->KV_N > 0, f->N % f->KV_N != 0)
/* MLA's D = 512 scene documents N 128 over KV_N 1 (rules_mla.c) */
ORC_PRED(ratio_64, f->N > 0 && f->KV_N > 0 && f->N % f->KV_N == 0 && !f->mla512,
         f->N / f->KV_N > 64)
ORC_PRED(kvn_zero, 1, f->c->attrs.num_key_value_heads == 0)
ORC_PRED(kvn_default, 1,
         !f->c->attr_given[FIA_ATTR_NUM_KEY_VALUE_HEADS])

const fia_rule orc_rules_gqa[] = {
    {"GQA-001", "gqa", FIA_RULE_REJECT, ORC_SEM, C002_P("numKeyValueHeads"),
     "num_key_value_heads must not be negative (0 means num_heads)", NULL,
     ORC_FN(kvn_nonneg)},
    {"GQA-002", "gqa", FIA_RULE_REJECT, ORC_SEM,
     C002_P("numKeyValueHeads") "; " C001_P("num_key_value_heads"),
     "num_heads must be a multiple of the effective num_key_value_heads",
     NULL, ORC_FN(kvn_divides)},
    {"GQA-003", "gqa", FIA_RULE_REJECT, FIA_LAYER_SEMANTIC,
     FIA_ERR_PARAM_INVALID, FIA_OK,
     C002_P("numKeyValueHeads") "; " CREL("Silent normalisations"),
     "num_heads / num_key_value_heads must not exceed 64",
     "002, 000, 001 and 003 all limit the ratio to 64; the released code "
     "accepts a larger ratio on the fp16/bf16 non-quantized path (the only "
     "path modeled), so the cann profile accepts",
     ORC_FN(ratio_64)},
    {"GQA-N01", "gqa", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_P("numKeyValueHeads") "; " CREL("Silent normalisations"),
     "num_key_value_heads = 0 means key/value have num_heads heads", NULL,
     ORC_FN(kvn_zero)},
    {"GQA-N02", "gqa", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_REGOP "; " C000_KW("num_key_value_heads") "; " C004_P,
     "num_key_value_heads not given: the default of the case's interface, "
     "0 (same as num_heads) for 002, 000, 001 and 003, 1 for 004 (api = "
     "..., docs/case-format.md)",
     "004 (TorchAir) gives num_key_value_heads a default of 1, not 0; "
     "002, 000, 001 and 003 say 0",
     ORC_FN(kvn_default)},
};
const size_t orc_rules_gqa_count =
    sizeof orc_rules_gqa / sizeof orc_rules_gqa[0];
