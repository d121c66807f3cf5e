/* The break/obey rows of the rules of the layouts (oracle/rules_layout.c,
 * rules_tnd.c, rules_gqa.c): the rows test_oracle_layout.c checks and
 * test_oracle_catalogue.c counts every rule's row in.  Each row: id, the
 * base and override of a case that breaks the rule (the rule decides its
 * status), then of one that obeys it.  Needs oracle_testlib.h. */
#ifndef FIA_TESTS_ORACLE_CASES_LAYOUT_H
#define FIA_TESTS_ORACLE_CASES_LAYOUT_H

static const rule_case oracle_cases_layout[] = {
    /* layout */
    {"LAYOUT-001", PREFILL, "input_layout = XYZ", PREFILL, ""},
    {"LAYOUT-002", DECODE, "input_layout = BNSD_BSND", PREFILL,
     "input_layout = BNSD_BSND"},
    {"LAYOUT-003", PREFILL, "query = fp16 [1,2,16]", BSH, ""},
    {"LAYOUT-004", PREFILL, "key = fp16 [1,2,32]", PREFILL, ""},
    {"LAYOUT-005", PREFILL, "value = fp16 [1,2,32]", PREFILL, ""},
    {"LAYOUT-006", PREFILL, "value = fp16 [1,2,33,64]", PREFILL, ""},
    {"LAYOUT-014", PREFILL, "value = fp16 [1,2,33,64]", PREFILL,
     "query = fp16 [1,2,16,192]\nkey = fp16 [1,2,32,192]\n"
     "value = fp16 [1,2,32,128]\nattention_out = fp16 [1,2,16,128]"},
    {"LAYOUT-007", PREFILL, "num_heads = 0", PREFILL, ""},
    {"LAYOUT-008", PREFILL, "num_heads = 4\nnum_key_value_heads = 2", PREFILL,
     "input_layout = BSND\nquery = fp16 [1,16,2,64]\nkey = fp16 [1,32,2,64]\n"
     "value = fp16 [1,32,2,64]"},
    {"LAYOUT-009", BSH, "num_heads = 3", BSH, ""},
    {"LAYOUT-010", PREFILL, "key = fp16 [2,2,32,64]\nvalue = fp16 [2,2,32,64]",
     PREFILL, ""},
    {"LAYOUT-011", PREFILL, "num_key_value_heads = 1", PREFILL,
     "num_key_value_heads = 1\nkey = fp16 [1,1,32,64]\n"
     "value = fp16 [1,1,32,64]"},
    {"LAYOUT-012", BSH, "key = fp16 [1,32,129]\nvalue = fp16 [1,32,129]", BSH,
     "num_key_value_heads = 1\nkey = fp16 [1,32,64]\nvalue = fp16 [1,32,64]"},
    {"LAYOUT-013", PREFILL, "key = fp16 [1,2,32,32]\nvalue = fp16 [1,2,32,32]",
     PREFILL, ""},
    {"LAYOUT-020", PREFILL,
     "query = fp16 [65537,1,2,16]\nkey = fp16 [65537,1,4,16]\n"
     "value = fp16 [65537,1,4,16]\nnum_heads = 1",
     PREFILL,
     "query = fp16 [65536,1,2,16]\nkey = fp16 [65536,1,4,16]\n"
     "value = fp16 [65536,1,4,16]\nnum_heads = 1"},
    /* each interface's own document: 001 65535; 000 65535 at Q_S > 1,
     * 65536 at Q_S = 1 */
    {"LAYOUT-020", "api = incre_flash_attention\n" DECODE,
     "query = fp16 [65536,1,1,16]\nkey = fp16 [65536,1,4,16]\n"
     "value = fp16 [65536,1,4,16]\nnum_heads = 1",
     "api = incre_flash_attention\n" DECODE,
     "query = fp16 [65535,1,1,16]\nkey = fp16 [65535,1,4,16]\n"
     "value = fp16 [65535,1,4,16]\nnum_heads = 1"},
    {"LAYOUT-020", "api = mindspore\n" PREFILL,
     "query = fp16 [65536,1,2,16]\nkey = fp16 [65536,1,4,16]\n"
     "value = fp16 [65536,1,4,16]\nnum_heads = 1",
     "api = mindspore\n" PREFILL,
     "query = fp16 [65535,1,2,16]\nkey = fp16 [65535,1,4,16]\n"
     "value = fp16 [65535,1,4,16]\nnum_heads = 1"},
    {"LAYOUT-020", "api = mindspore\n" DECODE,
     "query = fp16 [65537,1,1,16]\nkey = fp16 [65537,1,4,16]\n"
     "value = fp16 [65537,1,4,16]\nnum_heads = 1",
     "api = mindspore\n" DECODE,
     "query = fp16 [65536,1,1,16]\nkey = fp16 [65536,1,4,16]\n"
     "value = fp16 [65536,1,4,16]\nnum_heads = 1"},
    {"LAYOUT-021", PREFILL,
     "query = fp16 [1,257,2,16]\nkey = fp16 [1,257,4,16]\n"
     "value = fp16 [1,257,4,16]\nnum_heads = 257",
     PREFILL,
     "query = fp16 [1,256,2,16]\nkey = fp16 [1,256,4,16]\n"
     "value = fp16 [1,256,4,16]\nnum_heads = 256"},
    {"LAYOUT-022", PREFILL,
     "query = fp16 [1,1,2,528]\nkey = fp16 [1,1,4,528]\n"
     "value = fp16 [1,1,4,528]\nnum_heads = 1",
     PREFILL,
     "query = fp16 [1,1,2,512]\nkey = fp16 [1,1,4,512]\n"
     "value = fp16 [1,1,4,512]\nnum_heads = 1"},
    {"LAYOUT-023", PREFILL,
     "input_layout = BSND\nquery = fp16 [1,2,128,512]\n"
     "key = fp16 [1,4,128,512]\nvalue = fp16 [1,4,128,512]\nnum_heads = 128",
     PREFILL,
     "query = fp16 [1,128,2,512]\nkey = fp16 [1,128,4,512]\n"
     "value = fp16 [1,128,4,512]\nnum_heads = 128"},
    {"LAYOUT-024", PREFILL,
     "query = fp16 [1,2,16,24]\nkey = fp16 [1,2,32,24]\n"
     "value = fp16 [1,2,32,24]",
     PREFILL,
     "query = fp16 [1,2,16,32]\nkey = fp16 [1,2,32,32]\n"
     "value = fp16 [1,2,32,32]"},
    {"LAYOUT-025", PREFILL,
     "query = fp16 [129,1,2,12]\nkey = fp16 [129,1,4,12]\n"
     "value = fp16 [129,1,4,12]\nnum_heads = 1",
     PREFILL,
     "query = fp16 [128,1,2,12]\nkey = fp16 [128,1,4,12]\n"
     "value = fp16 [128,1,4,12]\nnum_heads = 1"},
    {"LAYOUT-026", PREFILL,
     "query = fp16 [1,1,20971521,16]\nkey = fp16 [1,1,4,16]\n"
     "value = fp16 [1,1,4,16]\nnum_heads = 1",
     PREFILL,
     "query = fp16 [1,1,20971520,16]\nkey = fp16 [1,1,20971520,16]\n"
     "value = fp16 [1,1,20971520,16]\nnum_heads = 1"},
    {"LAYOUT-027", DECODE,
     "query = fp16 [1,1,1,16]\nkey = fp16 [1,1,262145,16]\n"
     "value = fp16 [1,1,262145,16]\nnum_heads = 1",
     DECODE,
     "query = fp16 [1,1,1,16]\nkey = fp16 [1,1,262144,16]\n"
     "value = fp16 [1,1,262144,16]\nnum_heads = 1"},
    {"LAYOUT-N01", DECODE,
     "query = fp16 [2,2,1,12]\nkey = fp16 [2,2,32,12]\n"
     "value = fp16 [2,2,32,12]",
     DECODE, ""},
    /* gqa */
    {"GQA-001", PREFILL, "num_key_value_heads = -1", PREFILL, ""},
    {"GQA-002", PREFILL,
     "query = fp16 [1,4,16,64]\nnum_heads = 4\nnum_key_value_heads = 3\n"
     "key = fp16 [1,3,32,64]\nvalue = fp16 [1,3,32,64]",
     PREFILL,
     "query = fp16 [1,4,16,64]\nnum_heads = 4\nnum_key_value_heads = 2"},
    {"GQA-003", PREFILL,
     "query = fp16 [1,130,2,16]\nnum_heads = 130\nnum_key_value_heads = 2\n"
     "key = fp16 [1,2,4,16]\nvalue = fp16 [1,2,4,16]",
     PREFILL,
     "query = fp16 [1,128,2,16]\nnum_heads = 128\nnum_key_value_heads = 2\n"
     "key = fp16 [1,2,4,16]\nvalue = fp16 [1,2,4,16]"},
    {"GQA-N01", PREFILL, "num_key_value_heads = 0", PREFILL,
     "num_key_value_heads = 2"},
    {"GQA-N02", PREFILL, "", PREFILL, "num_key_value_heads = 0"},
    {"TND-001", TND, "query = bf16 [1,17,4,128]", TND, ""},
    {"TND-002", TND, "key = bf16 [1,43,2,128]\nvalue = bf16 [1,43,2,128]",
     TND, ""},
    {"TND-003", TND, "query = bf16 [17,8,128]", TND, ""},
    {"TND-004", TND, "value = bf16 [43,4,128]", TND, ""},
    {"TND-005", TND, "value = bf16 [40,2,128]", TND, ""},
    {"TND-006", TND, "actual_seq_lengths = null", TND, ""},
    {"TND-007", TND, "actual_seq_lengths_kv = null", TND, ""},
    {"TND-008", TND, "actual_seq_lengths_kv = [13,43]", TND, ""},
    {"TND-009", TND,
     "actual_seq_lengths = [" C4096("17,") "17]\n"
     "actual_seq_lengths_kv = [" C4096("43,") "43]",
     TND, ""},
    {"TND-010", TND, "actual_seq_lengths = [5,4,17]", TND, ""},
    {"TND-011", TND, "actual_seq_lengths_kv = [-9,13,43]", TND, ""},
    {"TND-012", TND, "actual_seq_lengths = [5,5,16]", TND, ""},
    {"TND-013", TND, "actual_seq_lengths_kv = [9,13,42]", TND, ""},
    {"TND-014", TND,
     "query = bf16 [1048577,4,128]\nactual_seq_lengths = [5,5,1048577]",
     TND, ""},
    {"TND-015", TND,
     "query = fp16 [17,4,128]\nkey = fp16 [43,2,128]\n"
     "value = fp16 [43,2,128]",
     TND, ""},
    {"TND-016", TND,
     "query = bf16 [17,4,64]\nkey = bf16 [43,2,64]\nvalue = bf16 [43,2,64]",
     TND, ""},
    {"TND-017", TND,
     "query = bf16 [17,4,192]\nkey = bf16 [43,2,192]\n"
     "value = bf16 [43,2,192]",
     TND, ""},
    {"TND-018", TND, "sparse_mode = 4\natten_mask = bool [2048,2048]", TND,
     "sparse_mode = 3\natten_mask = bool [2048,2048]"},
    {"TND-019", TND, "atten_mask = bool [17,43]", TND, ""},
    {"TND-020", TND, "sparse_mode = 3", TND,
     "sparse_mode = 3\natten_mask = bool [2048,2048]"},
    {"TND-021", TND, "sparse_mode = 3\natten_mask = bool [17,43]", TND,
     "sparse_mode = 3\natten_mask = bool [1,1,2048,2048]"},
    {"TND-022", TND,
     "sparse_mode = 3\natten_mask = bool [2048,2048]\n"
     "actual_seq_lengths = [9,9,17]",
     TND, "sparse_mode = 3\natten_mask = bool [2048,2048]"},
    {"TND-023", TND, "input_layout = TND_NTD", TND, ""},
    {"TND-024", TND,
     "input_layout = NTD\nquery = bf16 [4,17,128]\nkey = bf16 [2,43,128]\n"
     "value = bf16 [2,43,128]",
     TND, ""},
    {"TND-025", TND, "attention_out = bf16 [4,17,128]", TND,
     "attention_out = bf16 [17,4,128]"},
    /* value narrower than the query: the output takes value's D */
    {"TND-025", TND,
     "query = bf16 [17,4,192]\nkey = bf16 [43,2,192]\n"
     "value = bf16 [43,2,128]\nattention_out = bf16 [17,4,192]",
     TND,
     "query = bf16 [17,4,192]\nkey = bf16 [43,2,192]\n"
     "value = bf16 [43,2,128]\nattention_out = bf16 [17,4,128]"},
    {"TND-026", TND, "softmax_lse_flag = true\nsoftmax_lse = fp32 [3,4,17,1]",
     TND, "softmax_lse_flag = true\nsoftmax_lse = fp32 [17,4,1]"},
    {"TND-X01", TND,
     "key = bf16 [9,2,128]; bf16 [4,2,128]; bf16 [30,2,128]\n"
     "value = bf16 [9,2,128]; bf16 [4,2,128]; bf16 [30,2,128]",
     TND, ""},
    {"TND-X02", TND, "pse_shift = bf16 [1,4,17,43]", TND, ""},
    {"TND-X03", TND,
     "key = bf16 [4,128,256]\nvalue = bf16 [4,128,256]\nblock_size = 128\n"
     "block_table = int32 [3,1]",
     TND, ""},
    {"TND-X04", TND, "key_antiquant_scale = bf16 [2,128]", TND, ""},
    {"TND-X05", TND, "dequant_scale_query = fp32 [17,4,1]", TND, ""},
    {"TND-X06", TND, "quant_offset2 = bf16 [1]", TND, ""},
};

#endif
