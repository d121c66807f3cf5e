/* The break/obey rows of the rules of MLA and learnable_sink
 * (oracle/rules_mla.c, rules_sink.c): the rows test_oracle_mla.c checks and
 * test_oracle_catalogue.c counts every rule's row in.  Each row: id, the
 * base and override of a case that breaks the rule (the rule decides its
 * status), then of one that obeys it.  Needs oracle_testlib.h. */
#ifndef FIA_TESTS_ORACLE_CASES_MLA_H
#define FIA_TESTS_ORACLE_CASES_MLA_H

static const rule_case oracle_cases_mla[] = {
    {"MLA-001", MLA_D, "key_rope = null", MLA_D, ""},
    {"MLA-002", MLA_D, "query_rope = fp16 [2,1,2048]", MLA_P, ""},
    {"MLA-003", PREFILL,
     "query_rope = fp16 [1,2,16,64]\nkey_rope = fp16 [1,2,32,64]", MLA_T,
     ""},
    {"MLA-004", MLA_D, "query_rope = bf16 [2,1,1024]", MLA_P, ""},
    {"MLA-005", MLA_D, "key_rope = bf16 [6,16,32]", MLA_P, ""},
    {"MLA-005", MLA_P, "key_rope = bf16 [2,128,64]", MLA_T, ""},
    {"MLA-010", MLA_P, "query = bf16 [1,32,17,512]\n"
     "query_rope = bf16 [1,32,17,64]", MLA_P, ""},
    {"MLA-011", MLA_D, "num_heads = 16\nquery = bf16 [2,1,8192]\n"
     "query_rope = bf16 [2,1,1024]", MLA_D, "num_heads = 128\n"
     "query = bf16 [2,1,65536]\nquery_rope = bf16 [2,1,8192]"},
    {"MLA-017", MLA_D, "num_heads = 12\nquery = bf16 [2,1,6144]\n"
     "query_rope = bf16 [2,1,768]", MLA_D, "num_heads = 16\n"
     "query = bf16 [2,1,8192]\nquery_rope = bf16 [2,1,1024]"},
    {"MLA-012", MLA_D, "num_key_value_heads = 2\nkey = bf16 [6,16,1024]\n"
     "value = bf16 [6,16,1024]\nkey_rope = bf16 [6,16,128]", MLA_P, ""},
    {"MLA-013", MLA_D, "sparse_mode = 3", MLA_D, ""},
    {"MLA-013", MLA_P, "sparse_mode = 0\natten_mask = null", MLA_P, ""},
    {"MLA-014", MLA_P, "input_layout = BNSD_BSND", MLA_P, ""},
    {"MLA-015", MLA_D, "block_table = null", MLA_D, ""},
    {"MLA-016", MLA_D, "block_size = 32\nkey = bf16 [6,32,512]\n"
     "value = bf16 [6,32,512]\nkey_rope = bf16 [6,32,64]\n"
     "block_table = int32 [2,2]", MLA_P, ""},
    {"MLA-X01", MLA_D, "softmax_lse_flag = true", MLA_D, ""},
    {"MLA-020", MLA_T, "input_layout = TND_NTD", MLA_T,
     "input_layout = NTD_TND\nquery = bf16 [4,17,128]\n"
     "key = bf16 [2,43,128]\nvalue = bf16 [2,43,128]\n"
     "query_rope = bf16 [4,17,64]\nkey_rope = bf16 [2,43,64]"},
    {"MLA-X02", MLA_T, "pse_shift = bf16 [3,4,12,30]", MLA_T, ""},
    {"MLA-022", MLA_T, "value = bf16 [43,2,64]", MLA_T, ""},
    /* full quantization (MLA-05x, MLA-X03, QQ-*, NM-010) */
    {"MLA-002", MLA_QUERY_QUANT, "query_rope = fp16 [2,1,2048]",
     MLA_QUERY_QUANT, ""},
    {"MLA-002", MLA_QUERY_QUANT, "key_rope = fp16 [6,16,64]",
     MLA_QUERY_QUANT_NZ, ""},
    {"MLA-050", MLA_QUERY_QUANT,
     "key = bf16 [6,16,512]\nvalue = bf16 [6,16,512]", MLA_QUERY_QUANT, ""},
    {"MLA-051", MLA_QUERY_QUANT, "attention_out = fp16 [2,1,16384]",
     MLA_QUERY_QUANT, ""},
    {"MLA-051", MLA_QUERY_QUANT_NZ, "attention_out = int8 [1,4,32,512]",
     MLA_QUERY_QUANT_NZ, ""},
    {"MLA-052", MLA_QUERY_QUANT, "value_antiquant_scale = null",
     MLA_QUERY_QUANT, ""},
    {"MLA-052", MLA_QUERY_QUANT_NZ, "dequant_scale_query = null",
     MLA_QUERY_QUANT_NZ, ""},
    {"MLA-053", MLA_QUERY_QUANT, "key_antiquant_scale = bf16 [1]",
     MLA_QUERY_QUANT, ""},
    {"MLA-054", MLA_QUERY_QUANT,
     "key_antiquant_mode = 1\nvalue_antiquant_mode = 1", MLA_QUERY_QUANT,
     ""},
    {"MLA-055", MLA_QUERY_QUANT, "value_antiquant_scale = fp32 [512]",
     MLA_QUERY_QUANT, ""},
    {"MLA-055", MLA_QUERY_QUANT_NZ, "key_antiquant_scale = fp32 [1,1]",
     MLA_QUERY_QUANT_NZ, ""},
    {"MLA-X03", MLA_QUERY_QUANT, "key_antiquant_offset = fp32 [1]",
     MLA_QUERY_QUANT, ""},
    {"MLA-X03", MLA_QUERY_QUANT_NZ, "quant_scale2 = fp32 [1]",
     MLA_QUERY_QUANT_NZ, ""},
    {"NM-010", MLA_QUERY_QUANT, "dequant_scale1 = fp32 [1]",
     MLA_QUERY_QUANT, ""},
    /* the *_NBSD outputs (MLA) */
    {"MLA-030", MLA_NBSD, "query_rope = null\nkey_rope = null", MLA_NBSD,
     ""},
    {"NM-016", MLA_NBSD, "query_rope = null\nkey_rope = null", MLA_NBSD,
     ""},
    {"MLA-031", MLA_NBSD, "query = bf16 [1,1,16384]\n"
     "query_rope = bf16 [1,1,2048]\nattention_out = bf16 [32,1,1,512]\n"
     "sparse_mode = 0\natten_mask = null", MLA_NBSD,
     "query = bf16 [1,16,16384]\nquery_rope = bf16 [1,16,2048]\n"
     "attention_out = bf16 [32,1,16,512]"},
    {"MLA-031", MLA_NBSD, "query = bf16 [1,17,16384]\n"
     "query_rope = bf16 [1,17,2048]\nattention_out = bf16 [32,1,17,512]",
     MLA_NBSD, "query = bf16 [1,2,16384]\nquery_rope = bf16 [1,2,2048]\n"
     "attention_out = bf16 [32,1,2,512]"},
    {"MLA-014", MLA_NBSD, "input_layout = BNSD_BSND\n"
     "query = bf16 [1,32,4,512]\nquery_rope = bf16 [1,32,4,64]",
     MLA_NBSD, "input_layout = BNSD_NBSD\nquery = bf16 [1,32,4,512]\n"
     "query_rope = bf16 [1,32,4,64]\nkey = bf16 [2,1,128,512]\n"
     "value = bf16 [2,1,128,512]\nkey_rope = bf16 [2,1,128,64]"},
    {"MLA-040", MLA_NZ, "key = bf16 [2,1,16,128,32]\n"
     "value = bf16 [2,1,16,128,32]", MLA_NZ, ""},
    {"MLA-040", MLA_NZ, "key = bf16 [2,1,32,16,16]\n"
     "value = bf16 [2,1,32,16,16]", MLA_NZ, ""},
    {"MLA-005", MLA_NZ, "key_rope = bf16 [2,1,2,128,32]", MLA_NZ, ""},
    {"MLA-041", MLA_NZ, "input_layout = BNSD\nquery = bf16 [1,32,4,512]\n"
     "query_rope = bf16 [1,32,4,64]", MLA_NZ,
     "input_layout = BSND\nquery = bf16 [1,4,32,512]\n"
     "query_rope = bf16 [1,4,32,64]"},
    {"MLA-041", MLA_NZ, "input_layout = BNSD_NBSD\n"
     "query = bf16 [1,32,4,512]\nquery_rope = bf16 [1,32,4,64]\n"
     "attention_out = bf16 [32,1,4,512]", MLA_NZ,
     "input_layout = BSH_NBSD\nattention_out = bf16 [32,1,4,512]"},
    {"MLA-042", MLA_NZ, "block_size = 16\nkey = bf16 [10,1,32,16,16]\n"
     "value = bf16 [10,1,32,16,16]\nkey_rope = bf16 [10,1,4,16,16]\n"
     "block_table = int32 [1,10]", MLA_NZ, ""},
    /* int8 NZ (tiles of 32): full quantization's */
    {"MLA-043", MLA_QUERY_QUANT_NZ, "key = int8 [2,1,32,128,16]\n"
     "value = int8 [2,1,32,128,16]", MLA_QUERY_QUANT_NZ, ""},
    {"MLA-043", MLA_QUERY_QUANT_NZ, "key = int8 [2,1,16,16,32]\n"
     "value = int8 [2,1,16,16,32]", MLA_NZ, ""},
    /* learnable_sink (rules_sink.c): bf16 [N] */
    {"SINK-001", PREFILL, "learnable_sink = fp16 [2]", PREFILL,
     "learnable_sink = bf16 [2]"},
    {"SINK-001", TND, "learnable_sink = fp32 [4]", TND,
     "learnable_sink = bf16 [4]"},
    {"SINK-001", INT8_QUANT_P, "learnable_sink = fp16 [2]", DECODE,
     "learnable_sink = bf16 [2]"},
    {"SINK-002", PREFILL, "learnable_sink = bf16 [0]", PREFILL,
     "learnable_sink = bf16 [2]"},
    {"SINK-002", DECODE, "learnable_sink = bf16 [1,2]", DECODE,
     "learnable_sink = bf16 [2]"},
    {"SINK-002", TND, "learnable_sink = bf16 [2]", TND,
     "learnable_sink = bf16 [4]"},
    {"SINK-002", MLA_D, "learnable_sink = bf16 [1]", PAGED_D,
     "learnable_sink = bf16 [32]"},
    /* narrowed: 002's full int8 (an int8 query without rope); a late row,
     * after every rule.  With MLA (D 512, D 128, its full quantization)
     * the sink is modeled: those calls obey it. */
    {"NM-015", INT8_QUANT_P, "learnable_sink = bf16 [2]", PREFILL,
     "learnable_sink = bf16 [2]"},
    {"NM-015", INT8_QUANT_P, "learnable_sink = bf16 [2]", MLA_D,
     "learnable_sink = bf16 [32]"},
    {"NM-015", INT8_QUANT_P, "learnable_sink = bf16 [2]", MLA_QUERY_QUANT,
     "learnable_sink = bf16 [32]"},
    {"NM-015", INT8_QUANT_P, "learnable_sink = bf16 [2]", MLA_QUERY_QUANT_NZ,
     "learnable_sink = bf16 [32]"},
    {"NM-015", INT8_QUANT_P, "learnable_sink = bf16 [2]", MLA_T,
     "learnable_sink = bf16 [4]"},
};

#endif
