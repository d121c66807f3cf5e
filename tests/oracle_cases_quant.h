/* The break/obey rows of the rules of the quantizations
 * (oracle/rules_antiquant.c, rules_int8_out.c, rules_int8_quant.c,
 * rules_query_quant.c): the rows test_oracle_quant.c checks and
 * test_oracle_catalogue.c counts every rule's row in.  Each row: id, the
 * base and override of a case that breaks the rule (the rule decides its
 * status), then of one that obeys it.  Needs oracle_testlib.h. */
#ifndef FIA_TESTS_ORACLE_CASES_QUANT_H
#define FIA_TESTS_ORACLE_CASES_QUANT_H

static const rule_case oracle_cases_quant[] = {
    {"ANTI-001", AQ_D, "antiquant_mode = 2", AQ_D, "antiquant_mode = 0"},
    {"ANTI-002", SEP_D, "key_antiquant_mode = 6", SEP_D, ""},
    {"ANTI-003", SEP_P,
     "key_antiquant_mode = 2\nvalue_antiquant_mode = 2", SEP_P, ""},
    {"ANTI-004", SEP_D, "value_antiquant_mode = 2", SEP_D, ""},
    {"ANTI-004", SEP_P,
     "key_antiquant_mode = 0\nkey_antiquant_scale = bf16 [2,64]", SEP_P, ""},
    {"ANTI-005", AQ_D,
     "antiquant_scale = null\nantiquant_offset = fp16 [2,2,1,64]", AQ_D,
     "antiquant_offset = fp16 [2,2,1,64]"},
    {"ANTI-006", AQ_D, "antiquant_offset = fp16 [2,2,64]", AQ_D,
     "antiquant_offset = fp16 [2,2,1,64]"},
    {"ANTI-007", AQ_D, "antiquant_scale = fp16 [2,2,1,32]", AQ_D,
     "antiquant_scale = fp16 [2,128]"},
    {"ANTI-007", AQ_D, "antiquant_mode = 1\nantiquant_scale = fp32 [2,3,32]",
     AQ_D, "antiquant_mode = 1\nantiquant_scale = fp32 [2,2,32]"},
    {"ANTI-007", AQ_P, "antiquant_scale = fp16 [2,2,32]", AQ_P,
     "antiquant_mode = 1\nantiquant_scale = fp16 [2,2,64]"},
    {"ANTI-008", AQ_D, "antiquant_scale = fp32 [2,2,1,64]", AQ_D,
     "antiquant_mode = 1\nantiquant_scale = fp32 [2,2,32]"},
    {"ANTI-008", AQ_P, "antiquant_scale = fp32 [2]", AQ_P, ""},
    {"ANTI-009", SEP_D, "value_antiquant_scale = null", SEP_D, ""},
    {"ANTI-009", SEP_D, "key_antiquant_offset = fp32 [2,2,32]", SEP_D,
     "key_antiquant_offset = fp32 [2,2,32]\n"
     "value_antiquant_offset = fp32 [2,2,32]"},
    {"ANTI-010", SEP_D, "value_antiquant_scale = fp32 [2,2,40]", SEP_D, ""},
    {"ANTI-011", SEP_D,
     "key_antiquant_offset = fp16 [2,2,32]\n"
     "value_antiquant_offset = fp16 [2,2,32]", SEP_D,
     "key_antiquant_offset = fp32 [2,2,32]\n"
     "value_antiquant_offset = fp32 [2,2,32]"},
    {"ANTI-012", SEP_D,
     "key_antiquant_scale = fp32 [2,32]\nvalue_antiquant_scale = fp32 [2,32]",
     SEP_D, ""},
    {"ANTI-012", SEP_P,
     "key_antiquant_scale = fp32 [1,2,32]\n"
     "value_antiquant_scale = fp32 [1,2,32]", SEP_P, ""},
    {"ANTI-012", SEP_PG,
     "key_antiquant_scale = fp32 [4,16]\nvalue_antiquant_scale = fp32 [4,16]",
     SEP_PG, ""},
    {"ANTI-013", SEP_D,
     "key_antiquant_scale = bf16 [2,2,32]\n"
     "value_antiquant_scale = bf16 [2,2,32]", SEP_D, ""},
    {"ANTI-013", SEP_P,
     "key_antiquant_mode = 0\nvalue_antiquant_mode = 0\n"
     "key_antiquant_scale = fp32 [2,64]\nvalue_antiquant_scale = fp32 [2,64]",
     SEP_P,
     "key_antiquant_mode = 0\nvalue_antiquant_mode = 0\n"
     "key_antiquant_scale = bf16 [2,64]\nvalue_antiquant_scale = bf16 [2,64]"},
    {"ANTI-014", SEP_P,
     "query = bf16 [2,4,17,64]", SEP_P, "query = bf16 [2,4,16,64]"},
    {"ANTI-015", SEP_P, "query = fp16 [2,4,8,64]", SEP_P, ""},
    {"ANTI-016", AQ_P, "query = bf16 [2,4,8,64]\nantiquant_scale = fp16 [2]",
     AQ_P, ""},
    {"ANTI-017", I4_D,
     "key_antiquant_scale = null\nvalue_antiquant_scale = null\n"
     "antiquant_scale = fp16 [2]", I4_D, ""},
    {"ANTI-018", I4_D,
     "key_antiquant_scale = fp16 [1]\nvalue_antiquant_scale = fp16 [1]", I4_D,
     ""},
    {"ANTI-019", I4_D,
     "query = fp16 [2,4,1,32]\nkey = int32 [2,2,32,4]\n"
     "value = int32 [2,2,32,4]\n"
     "key_antiquant_scale = fp16 [1,2,32]\n"
     "value_antiquant_scale = fp16 [1,2,32]", I4_D, ""},
    {"ANTI-020", AQ_P,
     "query = fp16 [2,4,8,48]\nkey = int8 [2,2,32,48]\n"
     "value = int8 [2,2,32,48]", AQ_P, ""},
    {"ANTI-021", SEP_D,
     "key_antiquant_mode = 4\nvalue_antiquant_mode = 4\n"
     "key_antiquant_scale = fp32 [4,32]\nvalue_antiquant_scale = fp32 [4,32]",
     SEP_PG, ""},
    {"ANTI-022", SEP_D,
     "key_antiquant_mode = 0\nvalue_antiquant_mode = 1\n"
     "key_antiquant_scale = bf16 [1,2,64]\n"
     "value_antiquant_scale = fp32 [1,2,32]", SEP_D,
     "query = fp16 [2,4,1,64]\n"
     "key_antiquant_mode = 0\nvalue_antiquant_mode = 1\n"
     "key_antiquant_scale = fp16 [1,2,64]\n"
     "value_antiquant_scale = fp32 [1,2,32]"},
    {"ANTI-023", SEP_D,
     "key_antiquant_scale = fp32 [2,2,31]\n"
     "value_antiquant_scale = fp32 [2,2,31]", SEP_D,
     "key_antiquant_scale = fp32 [2,2,33]\n"
     "value_antiquant_scale = fp32 [2,2,33]"},
    {"ANTI-024", I4_D, "attention_out = int8 [2,4,1,64]\n"
     "quant_scale2 = fp32 [1]", I4_D, ""},
    {"ANTI-026", AQ_D, "antiquant_scale = null", AQ_D, ""},
    {"ANTI-027", DECODE,
     "query = int8 [2,2,1,64]\nkey = int8 [2,2,32,64]\n"
     "value = int8 [2,2,32,64]\nattention_out = fp16 [2,2,1,64]\n"
     "dequant_scale1 = fp32 [1]\nquant_scale1 = fp32 [1]\n"
     "dequant_scale2 = fp32 [1]", AQ_D, ""},
    {"ANTI-028", AQ_D,
     "query = fp16 [2,130,1,64]\nnum_heads = 130\nnum_key_value_heads = 2\n",
     AQ_D, ""},
    {"ANTI-N01", SEP_D, "antiquant_scale = fp16 [2]", SEP_D, ""},
    {"ANTI-N02", AQ_P, "antiquant_mode = 1", AQ_P, ""},
    {"ANTI-N03", AQ_D, "", AQ_D, "antiquant_offset = fp16 [2,2,1,64]"},
    {"NM-003", PREFILL, "antiquant_mode = 1", PREFILL, ""},
    {"NM-003", AQ_D,
     "key_shared_prefix = int8 [1,2,8,64]\n"
     "value_shared_prefix = int8 [1,2,8,64]", AQ_D, ""},
    /* Full int8. */
    {"Q8-001", INT8_QUANT_P, "attention_out = int8 [1,2,16,64]", INT8_QUANT_P,
     "attention_out = int8 [1,2,16,64]\nquant_scale2 = fp32 [1]"},
    {"Q8-002", INT8_QUANT_P, "quant_scale1 = null", INT8_QUANT_P, ""},
    {"Q8-003", INT8_QUANT_P, "attention_out = bf16 [1,2,16,64]", INT8_QUANT_P,
     ""},
    {"Q8-004", INT8_QUANT_P, "key = fp16 [1,2,32,64]\nvalue = fp16 [1,2,32,64]",
     INT8_QUANT_P, ""},
    {"Q8-005", INT8_QUANT_P, "quant_scale1 = fp32 [2]", INT8_QUANT_P, ""},
    {"Q8-006", PREFILL, "dequant_scale1 = fp32 [1]", PREFILL, ""},
    {"Q8-007", DECODE, "quant_scale1 = fp32 [1]", DECODE, ""},
    {"Q8-008", INT8_QUANT_P,
     "query = int8 [1,2,16,48]\nkey = int8 [1,2,32,48]\n"
     "value = int8 [1,2,32,48]\nattention_out = fp16 [1,2,16,48]",
     INT8_QUANT_P, ""},
    /* int8 output. */
    {"OQ-001", O8_P, "quant_scale2 = null", O8_P, ""},
    {"OQ-002", PREFILL,
     "quant_scale2 = fp32 [1]\nattention_out = fp16 [1,2,16,64]", PREFILL,
     ""},
    {"OQ-003", O8_P, "quant_scale1 = fp32 [1]", O8_P, ""},
    {"OQ-004", O8_P, "quant_offset2 = fp32 [2]", O8_P,
     "quant_offset2 = fp32 [1]"},
    {"OQ-005", O8_P, "quant_scale2 = bf16 [1]", O8_P, ""},
    {"OQ-006", O8_P, "quant_scale2 = fp32 [64]", O8_P,
     "quant_scale2 = fp32 [2,64]"},
    {"OQ-007", O8_P,
     "query = fp16 [1,2,16,48]\nkey = fp16 [1,2,32,48]\n"
     "value = fp16 [1,2,32,48]\nattention_out = int8 [1,2,16,48]\n"
     "quant_scale2 = fp32 [2,48]", O8_P, "quant_scale2 = fp32 [2,64]"},
    {"OQ-008", O8_P, "sparse_mode = 4\n" MASK2048 "pre_tokens = -1", O8_P,
     "sparse_mode = 4\n" MASK2048 "pre_tokens = 1"},
    {"OQ-009", O8_P, "sparse_mode = 3\n" MASK2048
     "actual_seq_lengths_kv = [8]\nquant_offset2 = fp32 [1]", O8_P,
     "sparse_mode = 3\n" MASK2048 "quant_offset2 = fp32 [1]"},
    {"OQ-009", O8_P, MASK2048 "next_tokens = -1\nquant_offset2 = fp32 [1]",
     O8_P, MASK2048 "next_tokens = -1"},
    {"OQ-010", O8_P,
     "query = fp16 [1,2,16,48]\nkey = fp16 [1,2,32,48]\n"
     "value = fp16 [1,2,32,48]\nattention_out = int8 [1,2,16,48]", O8_P, ""},
    {"QQ-001", PREFILL, "query_quant_mode = 2", PREFILL,
     "query_quant_mode = 0"},
    {"QQ-002", MLA_QUERY_QUANT, "query_quant_mode = 0", MLA_QUERY_QUANT_NZ, ""},
    {"QQ-003", MLA_QUERY_QUANT, "dequant_scale_query = fp32 [2,32,1]",
     MLA_QUERY_QUANT_NZ, ""},
    {"QQ-003", MLA_QUERY_QUANT_NZ, "dequant_scale_query = fp32 [1,4,32,1]",
     MLA_QUERY_QUANT, ""},
    {"QQ-003", MLA_QUERY_QUANT_NZ,
     "input_layout = BNSD\nkey = int8 [2,1,128,512]\n"
     "value = int8 [2,1,128,512]\nkey_rope = bf16 [2,1,128,64]\n"
     "query = int8 [1,32,4,512]\nquery_rope = bf16 [1,32,4,64]\n"
     "attention_out = bf16 [1,32,4,512]", MLA_QUERY_QUANT_NZ,
     "input_layout = BNSD\nkey = int8 [2,1,128,512]\n"
     "value = int8 [2,1,128,512]\nkey_rope = bf16 [2,1,128,64]\n"
     "query = int8 [1,32,4,512]\nquery_rope = bf16 [1,32,4,64]\n"
     "attention_out = bf16 [1,32,4,512]\n"
     "dequant_scale_query = fp32 [1,32,4]"},
    {"NM-011", PREFILL, "query_quant_mode = 3", PREFILL, ""},
    {"NM-011", MLA_D, "dequant_scale_query = fp32 [2,1,32]",
     MLA_QUERY_QUANT, ""},
};

#endif
