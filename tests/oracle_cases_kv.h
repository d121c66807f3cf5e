/* The break/obey rows of the rules of the key/value forms: page attention,
 * shared prefix, padding and tensor lists (oracle/rules_paged.c,
 * rules_prefix.c, rules_padding.c, rules_tensor_list.c): the rows
 * test_oracle_kv.c checks and test_oracle_catalogue.c counts every rule's
 * row in.  Each row: id, the base and override of a case that breaks the
 * rule (the rule decides its status), then of one that obeys it.  Needs
 * oracle_testlib.h. */
#ifndef FIA_TESTS_ORACLE_CASES_KV_H
#define FIA_TESTS_ORACLE_CASES_KV_H

static const rule_case oracle_cases_kv[] = {
    /* shared prefix: the rules before its late refusal */
    {"PREFIX-X02", PREFILL,
     "query = int8 [1,2,16,64]\nkey = int8 [1,2,32,64]\n"
     "value = int8 [1,2,32,64]\nkey_shared_prefix = int8 [1,2,8,64]\n"
     "value_shared_prefix = int8 [1,2,8,64]\n"
     "attention_out = fp16 [1,2,16,64]",
     PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]"},
    {"PREFIX-001", PREFILL, "key_shared_prefix = fp16 [1,2,8,64]", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]"},
    {"PREFIX-002", PREFILL,
     "key_shared_prefix = bf16 [1,2,8,64]\nvalue_shared_prefix = bf16 [1,2,8,64]",
     PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]"},
    {"PREFIX-002", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64,1]\nvalue_shared_prefix = fp16 [1,2,8,64]",
     PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]"},
    {"PREFIX-003", PREFILL,
     "key_shared_prefix = fp16 [2,2,8,64]\nvalue_shared_prefix = fp16 [2,2,8,64]",
     PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]"},
    {"PREFIX-004", PREFILL,
     "key_shared_prefix = fp16 [1,1,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]",
     PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]"},
    {"PREFIX-004", BSH,
     "key_shared_prefix = fp16 [1,8,128]\nvalue_shared_prefix = fp16 [1,8,64]",
     BSH,
     "key_shared_prefix = fp16 [1,8,128]\nvalue_shared_prefix = fp16 [1,8,128]"},
    {"PREFIX-005", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,9,64]",
     PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]"},
    {"PREFIX-006", PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\nactual_shared_prefix_len = [4,4]", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\nactual_shared_prefix_len = [4]"},
    {"PREFIX-007", PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\nactual_shared_prefix_len = [9]", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\nactual_shared_prefix_len = [8]"},
    {"PREFIX-007", PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\nactual_shared_prefix_len = [-1]", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\nactual_shared_prefix_len = [0]"},
    {"PREFIX-008", DECODE,
     "key = fp16 [2,2,262140,64]\nvalue = fp16 [2,2,262140,64]\n" "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]",
     DECODE,
     "key = fp16 [2,2,262136,64]\nvalue = fp16 [2,2,262136,64]\n" "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]"},
    {"PREFIX-009", PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\natten_mask = bool [16,32]", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\natten_mask = bool [16,40]"},
    {"PREFIX-009", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\nactual_shared_prefix_len = [3]\natten_mask = bool [16,34]",
     PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\nactual_shared_prefix_len = [3]\natten_mask = bool [16,35]"},
    {"PREFIX-010", PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\npse_shift = fp16 [1,2,16,32]", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\npse_shift = fp16 [1,2,16,40]"},
    {"PAGED-N01", PREFILL, "block_size = 128", PREFILL, ""},
    /* page attention */
    {"PAGED-001", PAGED_P,
     "key = fp16 [4,2,128,64]; fp16 [4,2,128,64]\n"
     "value = fp16 [4,2,128,64]; fp16 [4,2,128,64]", PAGED_P, ""},
    {"PAGED-002", PAGED_P, "kv_padding_size = int64 [1]", PAGED_D, ""},
    {"PAGED-003", PAGED_D,
     "key_shared_prefix = fp16 [1,16,256]\nvalue_shared_prefix = fp16 [1,16,256]",
     PAGED_P, ""},
    {"PAGED-004", PAGED_D, "key = int4 [20,16,256]\nvalue = int4 [20,16,256]",
     PAGED_D, ""},
    {"PAGED-005", PAGED_P, "block_size = 192", PAGED_P,
     "block_size = 512\nkey = fp16 [2,2,512,64]\nvalue = fp16 [2,2,512,64]\n"
     "block_table = int32 [2,1]"},
    {"PAGED-006", PAGED_D, "block_size = 24", PAGED_D,
     "block_size = 48\nkey = fp16 [8,48,256]\nvalue = fp16 [8,48,256]"},
    {"PAGED-007", PAGED_P, "query = int8 [2,2,16,64]\n"
     "attention_out = fp16 [2,2,16,64]", PAGED_D, ""},
    {"PAGED-008", PAGED_P, "antiquant_scale = fp16 [1]", PAGED_D,
     "antiquant_scale = fp16 [1]"},
    {"PAGED-009", PAGED_D, "actual_seq_lengths_kv = DROP", PAGED_D, ""},
    {"PAGED-010", PAGED_P,
     "key = fp16 [4,2,128,64,1]\nvalue = fp16 [4,2,128,64,1]", PAGED_D, ""},
    {"PAGED-011", PAGED_P, "input_layout = BSND\nquery = fp16 [2,16,2,64]",
     PAGED_P, "input_layout = BNSD_BSND\nattention_out = fp16 [2,16,2,64]"},
    {"PAGED-012", PAGED_P,
     "key = fp16 [4,2,256,64]\nvalue = fp16 [4,2,256,64]", PAGED_D,
     "input_layout = BSH\nquery = fp16 [2,1,2048]"},
    {"PAGED-013", PAGED_D,
     "num_heads = 256\nnum_key_value_heads = 256\nquery = fp16 [2,256,1,512]\n"
     "key = fp16 [20,16,131072]\nvalue = fp16 [20,16,131072]",
     PAGED_D,
     "num_heads = 256\nnum_key_value_heads = 256\nquery = fp16 [2,256,1,512]\n"
     "key = fp16 [20,256,16,512]\nvalue = fp16 [20,256,16,512]"},
    {"PAGED-014", PAGED_P, "block_table = int32 [3,2]", PAGED_P,
     "block_table = int32 [2,7]"},
    {"PAGED-015", PAGED_D, "block_table = int32 [2,12]", PAGED_P,
     "actual_seq_lengths_kv = [256,0]\nblock_table = int32 [2,2]"},
    {"PAGED-016", PAGED_P, "key = fp16 [2,2,128,64]\nvalue = fp16 [2,2,128,64]",
     PAGED_P, "key = fp16 [3,2,128,64]\nvalue = fp16 [3,2,128,64]"},
    {"PAGED-017", PAGED_D,
     "key = fp16 [1048576,16,256]\nvalue = fp16 [1048576,16,256]", PAGED_D,
     "key = fp16 [524287,16,256]\nvalue = fp16 [524287,16,256]"},
    {"PAGED-018", PAGED_D, "kv_padding_size = int64 [1]", PAGED_D,
     "query_padding_size = int64 [1]\nactual_seq_lengths = [1,1]"},
    {"NM-007", TND, "query_padding_size = int64 [1]", TND,
     "query_padding_size = int64 [0]"},
    {"NM-007", LIST3,
     "kv_padding_size = int64 [1]\nactual_seq_lengths_kv = [9,9,9]", LIST3,
     "kv_padding_size = int64 [1]"},
    {"PAD-N01", PREFILL, "query_padding_size = int64 [1]", PREFILL,
     "query_padding_size = int64 [1]\nactual_seq_lengths = [8]"},
    {"PAD-N02", DECODE, "kv_padding_size = int64 [1]", DECODE,
     "kv_padding_size = int64 [1]\nactual_seq_lengths_kv = [20,9]"},
    {"PAD-N03", LIST3,
     "query = fp16 [3,2,1,64]\nkv_padding_size = int64 [1]\n"
     "actual_seq_lengths_kv = [9,9,9]",
     LIST3, "query = fp16 [3,2,1,64]\nkv_padding_size = int64 [1]"},
    {"PAD-N04", PREFILL,
     "kv_padding_size = int64 [1]\nactual_seq_lengths_kv = [20]\n"
     "atten_mask = bool [16,32]",
     PREFILL, "atten_mask = bool [16,32]\nactual_seq_lengths_kv = [20]"},
    {"PAD-N05", PREFILL, "kv_padding_size = int64 [0]", PREFILL,
     "kv_padding_size = int64 [1]"},
    /* left padding: a padding tensor with its lengths */
    {"PAD-X01", PREFILL,
     "kv_padding_size = int64 [1]\nactual_seq_lengths_kv = [20]\n"
     "key = int4 [1,2,32,64]\nvalue = int4 [1,2,32,64]",
     PREFILL,
     "kv_padding_size = int64 [1]\nkey = int4 [1,2,32,64]\n"
     "value = int4 [1,2,32,64]"},
    {"PAD-X02", PREFILL,
     "query_padding_size = int64 [1]\nactual_seq_lengths = [8]\n"
     "key_shared_prefix = fp16 [1,2,8,64]\n"
     "value_shared_prefix = fp16 [1,2,8,64]",
     DECODE,
     "query_padding_size = int64 [1]\nactual_seq_lengths = [1]\n"
     "key_shared_prefix = fp16 [1,2,8,64]\n"
     "value_shared_prefix = fp16 [1,2,8,64]"},
    {"PAD-X03", DECODE,
     "kv_padding_size = int64 [1]\nactual_seq_lengths_kv = [20,9]\n"
     "key_antiquant_scale = fp32 [2,32]\nvalue_antiquant_scale = fp32 [2,32]",
     DECODE,
     "kv_padding_size = int64 [1]\nactual_seq_lengths_kv = [20,9]\n"},
    {"PAD-X04", PREFILL,
     "kv_padding_size = int64 [1]\nactual_seq_lengths_kv = [20]\n"
     "quant_scale2 = fp32 [2,64]",
     PREFILL,
     "kv_padding_size = int64 [1]\nactual_seq_lengths_kv = [20]\n"
     "quant_scale2 = fp32 [1]"},
    {"NM-008", PREFILL, "actual_shared_prefix_len = [4]", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\n"
     "actual_shared_prefix_len = [4]"},
    {"NM-008", DECODE,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\n"
     "atten_mask = bool [2,1,1,32]",
     DECODE,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\n"
     "atten_mask = bool [2,1,1,0]"},
    {"NM-008", DECODE,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\n"
     "pse_shift = fp16 [2,2,1,32]",
     DECODE,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\n"
     "pse_shift = fp16 [2,2,1,40]"},
    {"NM-008", TND,
     "key_shared_prefix = bf16 [1,8,2,128]\nvalue_shared_prefix = bf16 [1,8,2,128]",
     TND, ""},
    /* key/value tensor lists: B = 3, tensors of S 32, 20, 9 */
    {"LIST-001", LIST3, "key_shared_prefix = fp16 [1,2,8,64]\n"
     "value_shared_prefix = fp16 [1,2,8,64]", LIST3, ""},
    {"LIST-002", LIST3, "key_antiquant_scale = fp32 [3,32]\n"
     "value_antiquant_scale = fp32 [3,32]", LIST3, ""},
    {"LIST-003", LIST3, "query = fp16 [257,2,16,64]", LIST3, ""},
    {"LIST-004", LIST3, "query = fp16 [2,2,16,64]", PREFILL, ""},
    {"LIST-005", LIST3,
     "key = fp16 [1,2,32,64]; fp16 [2,2,20,64]; fp16 [1,2,9,64]\n"
     "value = fp16 [1,2,32,64]; fp16 [2,2,20,64]; fp16 [1,2,9,64]",
     LIST3, ""},
    {"LIST-006", LIST3,
     "key = fp16 [1,2,32,64]; fp16 [1,2,20,32]; fp16 [1,2,9,64]\n"
     "value = fp16 [1,2,32,64]; fp16 [1,2,20,32]; fp16 [1,2,9,64]",
     LIST3, ""},
    {"LIST-007", LIST3, "actual_seq_lengths_kv = [32,21,9]", LIST3,
     "actual_seq_lengths_kv = [32,20,0]"},
    {"LIST-008", LIST3,
     "value = fp16 [1,2,32,64]; fp16 [1,2,21,64]; fp16 [1,2,9,64]", LIST3,
     "actual_seq_lengths_kv = [0,0,0]"},
    /* the NZ cache (MLA, D = 512) */
    {"PAGED-010", MLA_NZ, "query_rope = null\nkey_rope = null", MLA_NZ,
     ""},
};

#endif
