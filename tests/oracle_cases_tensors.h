/* The break/obey rows of the rules of the call's tensors and outputs
 * (oracle/rules_tensors.c, rules_output.c, rules_lse.c, rules_precise.c,
 * rules_scale.c, rules_reserved.c, rules_product.c): the rows
 * test_oracle_tensors.c checks and test_oracle_catalogue.c counts every
 * rule's row in.  Each row: id, the base and override of a case that breaks
 * the rule (the rule decides its status), then of one that obeys it.  Needs
 * oracle_testlib.h. */
#ifndef FIA_TESTS_ORACLE_CASES_TENSORS_H
#define FIA_TESTS_ORACLE_CASES_TENSORS_H

static const rule_case oracle_cases_tensors[] = {
    /* tensors */
    {"TENS-001", PREFILL, "query = null", PREFILL, ""},
    {"TENS-002", PREFILL, "key = null", PREFILL, ""},
    {"TENS-003", PREFILL, "value = null", PREFILL, ""},
    {"TENS-004", PREFILL, "attention_out = null", PREFILL,
     "attention_out = fp16 [1,2,16,64]"},
    {"TENS-010", PREFILL, "query = fp32 [1,2,16,64]", PREFILL, ""},
    {"TENS-011", PREFILL, "key = fp32 [1,2,32,64]", PREFILL, ""},
    {"TENS-012", PREFILL, "value = fp32 [1,2,32,64]", PREFILL, ""},
    {"TENS-013", PREFILL, "pse_shift = fp32 [1,2,16,32]", PREFILL,
     "pse_shift = fp16 [1,2,16,32]"},
    {"TENS-020", PREFILL, "dequant_scale1 = fp16 [1]", PREFILL,
     "dequant_scale1 = uint64 [1]"},
    {"TENS-021", PREFILL, "quant_scale1 = fp16 [1]", PREFILL,
     "quant_scale1 = fp32 [1]"},
    {"TENS-022", PREFILL, "dequant_scale2 = fp16 [1]", PREFILL,
     "dequant_scale2 = fp32 [1]"},
    {"TENS-023", PREFILL, "quant_scale2 = fp16 [1]", PREFILL,
     "quant_scale2 = fp32 [1]"},
    {"TENS-024", PREFILL, "quant_offset2 = fp16 [1]", PREFILL,
     "quant_offset2 = bf16 [1]"},
    {"TENS-025", PREFILL, "antiquant_scale = int8 [2]", PREFILL,
     "antiquant_scale = fp32 [2]"},
    {"TENS-026", PREFILL, "antiquant_offset = int8 [2]", PREFILL,
     "antiquant_offset = fp16 [2]"},
    {"TENS-027", PREFILL, "block_table = int64 [1,1]", PREFILL,
     "block_table = int32 [1,1]"},
    {"TENS-028", PREFILL, "query_padding_size = int32 [1]", PREFILL,
     "query_padding_size = int64 [1]"},
    {"TENS-029", PREFILL, "kv_padding_size = int32 [1]", PREFILL,
     "kv_padding_size = int64 [1]"},
    {"TENS-030", PREFILL, "key_antiquant_scale = int8 [1]", PREFILL,
     "key_antiquant_scale = fp16 [1]"},
    {"TENS-031", PREFILL, "key_antiquant_offset = int8 [1]", PREFILL,
     "key_antiquant_offset = bf16 [1]"},
    {"TENS-032", PREFILL, "value_antiquant_scale = int8 [1]", PREFILL,
     "value_antiquant_scale = fp32 [1]"},
    {"TENS-033", PREFILL, "value_antiquant_offset = int8 [1]", PREFILL,
     "value_antiquant_offset = fp16 [1]"},
    {"TENS-034", PREFILL, "key_shared_prefix = fp32 [1,2,8,64]", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]"},
    {"TENS-035", PREFILL, "value_shared_prefix = fp32 [1,2,8,64]", PREFILL,
     "value_shared_prefix = int8 [1,2,8,64]"},
    {"TENS-036", PREFILL, "query_rope = fp32 [1,2,16,64]", PREFILL,
     "query_rope = bf16 [1,2,16,64]"},
    {"TENS-037", PREFILL, "key_rope = fp32 [1,2,32,64]", PREFILL,
     "key_rope = fp16 [1,2,32,64]"},
    {"TENS-038", PREFILL, "dequant_scale_query = fp16 [1]", PREFILL,
     "dequant_scale_query = fp32 [1]"},
    {"TENS-040", PREFILL, "value = bf16 [1,2,32,64]", PREFILL, ""},
    {"TENS-041", PREFILL, "key = bf16 [1,2,32,64]\nvalue = bf16 [1,2,32,64]",
     PREFILL,
     "query = bf16 [1,2,16,64]\nkey = bf16 [1,2,32,64]\n"
     "value = bf16 [1,2,32,64]"},
    /* lse */
    {"LSE-001", PREFILL, "softmax_lse_flag = true\nsoftmax_lse = null",
     PREFILL, "softmax_lse_flag = true"},
    {"LSE-002", PREFILL,
     "softmax_lse_flag = true\nsoftmax_lse = fp16 [1,2,16,1]", PREFILL,
     "softmax_lse_flag = true\nsoftmax_lse = fp32 [1,2,16,1]"},
    {"LSE-003", PREFILL, "softmax_lse_flag = true\nsoftmax_lse = fp32 [1,2,16]",
     DECODE, "softmax_lse_flag = true\nsoftmax_lse = fp32 [2,2,1,1]"},
    {"LSE-N01", PREFILL, "softmax_lse = fp16 [7]", PREFILL,
     "softmax_lse_flag = true"},
    /* precise */
    {"PREC-001", PREFILL, "inner_precise = 4", PREFILL, "inner_precise = 3"},
    {"PREC-002", DECODE, "inner_precise = 2", DECODE, "inner_precise = 0"},
    {"PREC-N01", PREFILL,
     "query = bf16 [1,2,16,64]\nkey = bf16 [1,2,32,64]\n"
     "value = bf16 [1,2,32,64]",
     PREFILL, ""},
    {"PREC-N02", PREFILL,
     "sparse_mode = 3\nactual_seq_lengths_kv = [8]\n" MASK2048, PREFILL,
     "sparse_mode = 3\n" MASK2048},
    {"PREC-N03", PREFILL, "", PREFILL, "inner_precise = 1"},
    /* output */
    {"OUT-001", PREFILL, "attention_out = fp32 [1,2,16,64]", PREFILL,
     "attention_out = fp16 [1,2,16,64]"},
    {"OUT-002", PREFILL, "attention_out = bf16 [1,2,16,64]", PREFILL,
     "attention_out = fp16 [1,2,16,64]"},
    {"OUT-003", PREFILL, "attention_out = fp16 [1,2,16,32]", PREFILL,
     "input_layout = BNSD_BSND\nattention_out = fp16 [1,16,2,64]"},
    {"OUT-005", PREFILL, "attention_out = fp16 [1,2,16,32]", PREFILL,
     "query = fp16 [1,2,16,192]\nkey = fp16 [1,2,32,192]\n"
     "value = fp16 [1,2,32,128]\nattention_out = fp16 [1,2,16,128]"},
    {"OUT-004", PREFILL,
     "query = fp16 [1,2,0,64]\nattention_out = fp16 [1,2,16,64]", PREFILL,
     ""},
    {"OUT-N01", PREFILL, "query = fp16 [1,2,0,64]\ninput_layout = XYZ",
     PREFILL, ""},
    {"OUT-N02", PREFILL, "key = fp16 [1,2,0,64]\nvalue = fp16 [1,2,0,64]",
     PREFILL, ""},
    /* scale */
    {"SCALE-N01", PREFILL, "scale = -1", PREFILL, "scale = 0.125"},
    /* 004's out_dtype: read, and refused once every rule has judged */
    {"NM-017", PREFILL, "out_dtype = 1", PREFILL, "out_dtype = null"},
    {"NM-018", PREFILL, "query = fp16 [1,2,16,192]\nkey = fp16 [1,2,32,192]\n"
     "value = fp16 [1,2,32,128]\nattention_out = fp16 [1,2,16,128]", PREFILL,
     ""},
    {"OUT-003", MLA_NBSD, "attention_out = bf16 [1,4,16384]", MLA_NBSD,
     ""},
    {"OUT-003", MLA_NBSD, "attention_out = bf16 [1,32,4,512]", MLA_NBSD,
     "input_layout = BSND_NBSD\nquery = bf16 [1,4,32,512]\n"
     "query_rope = bf16 [1,4,32,64]"},
    /* 003 / 004's reserved *_dtype (rules_reserved.c): applies when one
     * is given, the call accepted as with None */
    {"RSV-N01", V2_PREFILL("torch_npu_v2"), "query_dtype = 5",
     V2_PREFILL("torch_npu_v2"), "query_dtype = null"},
    {"RSV-N01", V2_PREFILL("torchair_v2"),
     "dequant_scale_key_rope_dtype = -1", V2_PREFILL("torchair_v2"), ""},
    /* 001's inference card (rules_product.c) */
    {"PROD-001", CARD, "query = bf16 [2,2,1,64]\nkey = bf16 [2,2,32,64]\n"
     "value = bf16 [2,2,32,64]", A2_IFA, "query = bf16 [2,2,1,64]\n"
     "key = bf16 [2,2,32,64]\nvalue = bf16 [2,2,32,64]"},
    {"PROD-002", CARD, "value = bf16 [2,2,32,64]", CARD,
     "key = int8 [2,2,32,64]\nvalue = int8 [2,2,32,64]\n"
     "antiquant_scale = fp16 [2,2,1,64]"},
    {"PROD-003", CARD, "key = int8 [2,2,32,64]\nvalue = int8 [2,2,32,64]\n"
     "antiquant_scale = fp32 [2,2,1,64]", CARD,
     "key = int8 [2,2,32,64]\nvalue = int8 [2,2,32,64]\n"
     "antiquant_scale = fp16 [2,2,1,64]\nantiquant_offset = fp16 [2,2,1,64]"},
    {"PROD-004", CARD, "pse_shift = fp16 [2,2,1,32]", CARD,
     "pse_shift = fp16 [2,2,1,0]"},
    {"PROD-005", CARD, "quant_scale2 = fp32 [1]", A2_IFA,
     "quant_scale2 = fp32 [1]"},
    {"PROD-006", CARD, "query = fp16 [257,2,1,64]\nkey = fp16 [257,2,32,64]\n"
     "value = fp16 [257,2,32,64]", CARD, "query = fp16 [256,2,1,64]\n"
     "key = fp16 [256,2,32,64]\nvalue = fp16 [256,2,32,64]"},
    {"PROD-007", CARD, "key = fp16 [2,2,65537,64]\nvalue = fp16 [2,2,65537,64]",
     CARD, "key = fp16 [2,2,65536,64]\nvalue = fp16 [2,2,65536,64]"},
};

#endif
