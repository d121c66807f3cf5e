/* The valid cases the oracle tests break one rule of at a time
 * (tests/test_oracle_*.c): a prefill, a decode, BSH, TND, MLA, page
 * attention and the quantization scenes, each the text of a case file.  A
 * test row overrides some of their lines (oracle_testlib.h's mk).
 * Header-only; tests only. */
#ifndef FIA_TESTS_ORACLE_BASES_H
#define FIA_TESTS_ORACLE_BASES_H

/* Valid bases. */
#define PREFILL                                                              \
    "query = fp16 [1,2,16,64]\n"                                             \
    "key = fp16 [1,2,32,64]\n"                                               \
    "value = fp16 [1,2,32,64]\n"                                             \
    "num_heads = 2\n"                                                        \
    "input_layout = BNSD\n"
#define PREFILL3                                                             \
    "query = fp16 [3,2,16,64]\n"                                             \
    "key = fp16 [3,2,32,64]\n"                                               \
    "value = fp16 [3,2,32,64]\n"                                             \
    "num_heads = 2\n"                                                        \
    "input_layout = BNSD\n"
#define DECODE                                                               \
    "query = fp16 [2,2,1,64]\n"                                              \
    "key = fp16 [2,2,32,64]\n"                                               \
    "value = fp16 [2,2,32,64]\n"                                             \
    "num_heads = 2\n"                                                        \
    "input_layout = BNSD\n"
/* PREFILL written through 003 / 004 (num_query_heads) */
#define V2_PREFILL(api)                                                      \
    "api = " api "\nquery = fp16 [1,2,16,64]\nkey = fp16 [1,2,32,64]\n"       \
    "value = fp16 [1,2,32,64]\nnum_query_heads = 2\n"                     \
    "num_key_value_heads = 2\ninput_layout = BNSD\n"
/* 001's interface, on the inference card and on the A2 products */
#define CARD                                                                 \
    "api = incre_flash_attention\nproduct = atlas_inference_card\n" DECODE
#define A2_IFA "api = incre_flash_attention\n" DECODE
#define BSH                                                                  \
    "query = fp16 [1,16,128]\n"                                              \
    "key = fp16 [1,32,128]\n"                                                \
    "value = fp16 [1,32,128]\n"                                              \
    "num_heads = 2\n"                                                        \
    "input_layout = BSH\n"
#define MASK2048 "atten_mask = bool [2048,2048]\n"
#define LIST3                                                                \
    "query = fp16 [3,2,16,64]\n"                                             \
    "key = fp16 [1,2,32,64]; fp16 [1,2,20,64]; fp16 [1,2,9,64]\n"            \
    "value = fp16 [1,2,32,64]; fp16 [1,2,20,64]; fp16 [1,2,9,64]\n"          \
    "num_heads = 2\n"                                                        \
    "input_layout = BNSD\n"
/* 4096 copies of a string (a length array of 4097 batches). */
#define C4(s) s s s s
#define C64(s) C4(C4(C4(s)))
#define C4096(s) C64(C64(s))
/* A token layout: batches of 5, 0 and 12 query tokens over 9, 4 and 30
 * key tokens (cumulative counts), GQA 4:2, bf16, D 128. */
#define TND                                                                  \
    "query = bf16 [17,4,128]\n"                                              \
    "key = bf16 [43,2,128]\n"                                                \
    "value = bf16 [43,2,128]\n"                                              \
    "num_heads = 4\n"                                                        \
    "num_key_value_heads = 2\n"                                              \
    "input_layout = TND\n"                                                   \
    "actual_seq_lengths = [5,5,17]\n"                                        \
    "actual_seq_lengths_kv = [9,13,43]\n"
/* MLA (003): decode, BSH, a rank-3 cache of block_size 16 (lengths 40
 * and 7: blocks 3 + 1 of 6); prefill Q_S 4, BNSD, a rank-4 cache of
 * block_size 128, sparse 3; a D = 128 token layout with rope. */
#define MLA_D                                                                \
    "query = bf16 [2,1,16384]\n"                                             \
    "key = bf16 [6,16,512]\n"                                                \
    "value = bf16 [6,16,512]\n"                                              \
    "query_rope = bf16 [2,1,2048]\n"                                         \
    "key_rope = bf16 [6,16,64]\n"                                            \
    "num_heads = 32\n"                                                       \
    "num_key_value_heads = 1\n"                                              \
    "input_layout = BSH\n"                                                   \
    "block_size = 16\n"                                                      \
    "block_table = int32 [2,3]\n"                                            \
    "actual_seq_lengths_kv = [40,7]\n"
#define MLA_P                                                                \
    "query = bf16 [1,32,4,512]\n"                                            \
    "key = bf16 [2,1,128,512]\n"                                             \
    "value = bf16 [2,1,128,512]\n"                                           \
    "query_rope = bf16 [1,32,4,64]\n"                                        \
    "key_rope = bf16 [2,1,128,64]\n"                                         \
    "num_heads = 32\n"                                                       \
    "num_key_value_heads = 1\n"                                              \
    "input_layout = BNSD\n"                                                  \
    "sparse_mode = 3\n"                                                      \
    "atten_mask = bool [2048,2048]\n"                                        \
    "block_size = 128\n"                                                     \
    "block_table = int32 [1,2]\n"                                            \
    "actual_seq_lengths_kv = [150]\n"
#define MLA_T TND "query_rope = bf16 [17,4,64]\nkey_rope = bf16 [43,2,64]\n"
/* MLA's *_NBSD output: MLA_P's call in BSH_NBSD, attention_out (N, B, Q_S,
 * D); MLA's NZ cache: MLA_P's in BSH with the cache (blockNum, KV_N, D/16,
 * block_size, 16). */
#define MLA_NBSD                                                             \
    "query = bf16 [1,4,16384]\n"                                             \
    "key = bf16 [2,128,512]\n"                                               \
    "value = bf16 [2,128,512]\n"                                             \
    "query_rope = bf16 [1,4,2048]\n"                                         \
    "key_rope = bf16 [2,128,64]\n"                                           \
    "attention_out = bf16 [32,1,4,512]\n"                                    \
    "num_heads = 32\n"                                                       \
    "num_key_value_heads = 1\n"                                              \
    "input_layout = BSH_NBSD\n"                                              \
    "sparse_mode = 3\n"                                                      \
    "atten_mask = bool [2048,2048]\n"                                        \
    "block_size = 128\n"                                                     \
    "block_table = int32 [1,2]\n"                                            \
    "actual_seq_lengths_kv = [150]\n"
#define MLA_NZ                                                               \
    "query = bf16 [1,4,16384]\n"                                             \
    "key = bf16 [2,1,32,128,16]\n"                                           \
    "value = bf16 [2,1,32,128,16]\n"                                         \
    "query_rope = bf16 [1,4,2048]\n"                                         \
    "key_rope = bf16 [2,1,4,128,16]\n"                                       \
    "num_heads = 32\n"                                                       \
    "num_key_value_heads = 1\n"                                              \
    "input_layout = BSH\n"                                                   \
    "sparse_mode = 3\n"                                                      \
    "atten_mask = bool [2048,2048]\n"                                        \
    "block_size = 128\n"                                                     \
    "block_table = int32 [1,2]\n"                                            \
    "actual_seq_lengths_kv = [150]\n"
/* MLA full quantization (003 D = 512 "支持全量化场景"): MLA_D's decode in
 * int8 with bf16 ropes and output, dequant_scale_query (B, S, N), per-tensor
 * key/value scales [1], query_quant_mode 3; and a BSND prefill over the
 * int8 NZ cache (blockNum, KV_N, D/32, block_size, 32). */
#define MLA_QUERY_QUANT                                                      \
    "query = int8 [2,1,16384]\n"                                             \
    "key = int8 [6,16,512]\n"                                                \
    "value = int8 [6,16,512]\n"                                              \
    "attention_out = bf16 [2,1,16384]\n"                                     \
    "query_rope = bf16 [2,1,2048]\n"                                         \
    "key_rope = bf16 [6,16,64]\n"                                            \
    "dequant_scale_query = fp32 [2,1,32]\n"                                  \
    "key_antiquant_scale = fp32 [1]\n"                                       \
    "value_antiquant_scale = fp32 [1]\n"                                     \
    "query_quant_mode = 3\n"                                                 \
    "num_heads = 32\n"                                                       \
    "num_key_value_heads = 1\n"                                              \
    "input_layout = BSH\n"                                                   \
    "block_size = 16\n"                                                      \
    "block_table = int32 [2,3]\n"                                            \
    "actual_seq_lengths_kv = [40,7]\n"
#define MLA_QUERY_QUANT_NZ                                                   \
    "query = int8 [1,4,32,512]\n"                                            \
    "key = int8 [2,1,16,128,32]\n"                                           \
    "value = int8 [2,1,16,128,32]\n"                                         \
    "attention_out = bf16 [1,4,32,512]\n"                                    \
    "query_rope = bf16 [1,4,32,64]\n"                                        \
    "key_rope = bf16 [2,1,4,128,16]\n"                                       \
    "dequant_scale_query = fp32 [1,4,32]\n"                                  \
    "key_antiquant_scale = fp32 [1]\n"                                       \
    "value_antiquant_scale = fp32 [1]\n"                                     \
    "query_quant_mode = 3\n"                                                 \
    "num_heads = 32\n"                                                       \
    "num_key_value_heads = 1\n"                                              \
    "input_layout = BSND\n"                                                  \
    "sparse_mode = 3\n"                                                      \
    "atten_mask = bool [2048,2048]\n"                                        \
    "block_size = 128\n"                                                     \
    "block_table = int32 [1,2]\n"                                            \
    "actual_seq_lengths_kv = [150]\n"
/* Page attention: kv lengths 200 and 56.  Prefill: block_size 128, blocks
 * 2 + 1 (4 in the cache), a 4-D cache; decode: 16, blocks 13 + 4 (20). */
#define PAGED_P                                                              \
    "query = fp16 [2,2,16,64]\n"                                             \
    "key = fp16 [4,2,128,64]\n"                                              \
    "value = fp16 [4,2,128,64]\n"                                            \
    "num_heads = 2\n"                                                        \
    "input_layout = BNSD\n"                                                  \
    "block_size = 128\n"                                                     \
    "block_table = int32 [2,2]\n"                                            \
    "actual_seq_lengths_kv = [200,56]\n"
#define PAGED_D                                                              \
    "query = fp16 [2,32,1,64]\n"                                             \
    "key = fp16 [20,16,256]\n"                                               \
    "value = fp16 [20,16,256]\n"                                             \
    "num_heads = 32\n"                                                       \
    "num_key_value_heads = 4\n"                                              \
    "input_layout = BNSD\n"                                                  \
    "block_size = 16\n"                                                      \
    "block_table = int32 [2,13]\n"                                           \
    "actual_seq_lengths_kv = [200,56]\n"

/* Antiquant scenes (GQA 4:2, D 64, KV_S 32, B 2). */
#define AQ_D                                                                 \
    "query = fp16 [2,4,1,64]\n"                                              \
    "key = int8 [2,2,32,64]\n"                                               \
    "value = int8 [2,2,32,64]\n"                                             \
    "num_heads = 4\n"                                                        \
    "num_key_value_heads = 2\n"                                              \
    "input_layout = BNSD\n"                                                  \
    "antiquant_scale = fp16 [2,2,1,64]\n"
#define AQ_P                                                                 \
    "query = fp16 [2,4,8,64]\n"                                              \
    "key = int8 [2,2,32,64]\n"                                               \
    "value = int8 [2,2,32,64]\n"                                             \
    "num_heads = 4\n"                                                        \
    "num_key_value_heads = 2\n"                                              \
    "input_layout = BNSD\n"                                                  \
    "antiquant_scale = fp16 [2]\n"
/* Separate set, Q_S = 1, per-token per-head (mode 3). */
#define SEP_D                                                                \
    "query = bf16 [2,4,1,64]\n"                                              \
    "key = int8 [2,2,32,64]\n"                                               \
    "value = int8 [2,2,32,64]\n"                                             \
    "num_heads = 4\n"                                                        \
    "num_key_value_heads = 2\n"                                              \
    "input_layout = BNSD\n"                                                  \
    "key_antiquant_mode = 3\n"                                               \
    "value_antiquant_mode = 3\n"                                             \
    "key_antiquant_scale = fp32 [2,2,32]\n"                                  \
    "value_antiquant_scale = fp32 [2,2,32]\n"
/* Separate set, Q_S > 1, per-token (mode 1). */
#define SEP_P                                                                \
    "query = bf16 [2,4,8,64]\n"                                              \
    "key = int8 [2,2,32,64]\n"                                               \
    "value = int8 [2,2,32,64]\n"                                             \
    "num_heads = 4\n"                                                        \
    "num_key_value_heads = 2\n"                                              \
    "input_layout = BNSD\n"                                                  \
    "key_antiquant_mode = 1\n"                                               \
    "value_antiquant_mode = 1\n"                                             \
    "key_antiquant_scale = fp32 [2,32]\n"                                    \
    "value_antiquant_scale = fp32 [2,32]\n"
/* int4 packed in int32 (real D 64), Q_S = 1, separate per-channel. */
#define I4_D                                                                 \
    "query = fp16 [2,4,1,64]\n"                                              \
    "key = int32 [2,2,32,8]\n"                                               \
    "value = int32 [2,2,32,8]\n"                                             \
    "num_heads = 4\n"                                                        \
    "num_key_value_heads = 2\n"                                              \
    "input_layout = BNSD\n"                                                  \
    "key_antiquant_scale = fp16 [1,2,64]\n"                                  \
    "value_antiquant_scale = fp16 [1,2,64]\n"
/* Page attention at Q_S = 1 with separate mode 4 (kv lengths 40, 20;
 * block_size 32, blocks 2 + 1 of 4). */
#define SEP_PG                                                               \
    "query = fp16 [2,4,1,64]\n"                                              \
    "key = int8 [4,32,128]\n"                                                \
    "value = int8 [4,32,128]\n"                                              \
    "num_heads = 4\n"                                                        \
    "num_key_value_heads = 2\n"                                              \
    "input_layout = BNSD\n"                                                  \
    "block_size = 32\n"                                                      \
    "block_table = int32 [2,2]\n"                                            \
    "actual_seq_lengths_kv = [40,20]\n"                                      \
    "key_antiquant_mode = 4\n"                                               \
    "value_antiquant_mode = 4\n"                                             \
    "key_antiquant_scale = fp32 [4,32]\n"                                    \
    "value_antiquant_scale = fp32 [4,32]\n"
/* Full int8 (computed: an obeying case is accepted). */
#define INT8_QUANT_P                                                         \
    "query = int8 [1,2,16,64]\n"                                             \
    "key = int8 [1,2,32,64]\n"                                               \
    "value = int8 [1,2,32,64]\n"                                             \
    "num_heads = 2\n"                                                        \
    "input_layout = BNSD\n"                                                  \
    "attention_out = fp16 [1,2,16,64]\n"                                     \
    "dequant_scale1 = uint64 [1]\n"                                          \
    "quant_scale1 = fp32 [1]\n"                                              \
    "dequant_scale2 = fp32 [1]\n"
/* fp16 in, int8 out. */
#define O8_P PREFILL "attention_out = int8 [1,2,16,64]\nquant_scale2 = fp32 [1]\n"

#endif
