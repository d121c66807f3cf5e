/* The features of the operator, named once.
 *
 * A feature's name is the word that finds everything about it: the rule
 * catalogue's feature field (oracle/rules_<name>.c), fast/'s checks
 * (fast/check_<name>.c), the reference's reading (ref/), the fuzz generator
 * fragment (fuzz/gen_<name>.c), the corpus folder (corpus/cases/<name>/),
 * the page docs/features/<name>.md and the buckets of the findings store.
 * `git ls-files '*<name>*'` lists them, so no name may be part of another
 * (hence int8_quant, int8_out, tnd rather than quant, output, layout_v2).
 * Names are lower case with '_' (file names); a new feature adds one line
 * here and its page docs/features/<name>.md.
 *
 * X(ID, "name", "what it covers") */
#ifndef FIA_FEATURE_H
#define FIA_FEATURE_H

#define FIA_FEATURE_LIST(X)                                                   \
    X(TENSORS, "tensors", "presence, dtypes and ranks of every tensor")       \
    X(LAYOUT, "layout", "the four 002 layouts: shapes, B, S, N, D, H")        \
    X(GQA, "gqa", "num_key_value_heads and the query-to-KV head map")         \
    X(MASK, "mask", "atten_mask: dtypes, shapes, which keys it excludes")     \
    X(SPARSE, "sparse", "sparse_mode 0-4, pre_tokens and next_tokens")        \
    X(SEQLEN, "seqlen", "actual_seq_lengths and actual_seq_lengths_kv")       \
    X(LSE, "lse", "softmax_lse_flag and the softmax_lse output")              \
    X(PRECISE, "precise", "inner_precise: precision and row-invalid fix")     \
    X(OUTPUT, "output", "attention_out: presence, dtype and shape")           \
    X(SCALE, "scale", "the scale attribute")                                  \
    X(PSE, "pse", "pse_shift, the positional bias")                           \
    X(INT8_QUANT, "int8_quant", "full int8 quantization: the scales' rules " \
                                "and its computation")                        \
    X(ANTIQUANT, "antiquant", "int8/int4 key/value antiquantization")        \
    X(INT_INPUTS, "int_inputs", "int8 query (full quantization), int8/int4 " \
                                "key/value")                                  \
    X(INT8_OUT, "int8_out", "int8 attention_out (output quantization)")       \
    X(PAGED, "paged", "block_table and block_size: page attention")         \
    X(PADDING, "padding", "query/kv left padding")                          \
    X(PREFIX, "prefix", "the shared system prefix")                         \
    X(TENSOR_LIST, "tensor_list", "key/value tensor lists: a tensor per "     \
                                  "batch")                                    \
    X(MLA, "mla", "MLA: the rope inputs query_rope, key_rope (003)")           \
    X(QUERY_QUANT, "query_quant", "003 query quantization: "                  \
                                  "dequant_scale_query, query_quant_mode")    \
    X(TND, "tnd", "the 003 token layouts TND, NTD_TND, TND_NTD, NTD")        \
    X(SINK, "sink", "learnable_sink: a per-head virtual key (004)")          \
    X(PRODUCT, "product", "the device: Atlas A2 / A3, or 001's inference " \
                          "card with its own dtypes and limits")       \
    X(RESERVED, "reserved", "003 / 004's reserved *_dtype parameters "       \
                            "(预留参数, not used)")

typedef enum fia_feature {
#define FIA_FEATURE_ENUM(id, name, what) FIA_FEATURE_##id,
    FIA_FEATURE_LIST(FIA_FEATURE_ENUM)
#undef FIA_FEATURE_ENUM
    FIA_FEATURE_COUNT
} fia_feature;

/* "mask", ...; NULL out of range. */
const char *fia_feature_name(fia_feature f);
/* One line on what the feature covers; NULL out of range. */
const char *fia_feature_summary(fia_feature f);
/* The feature of a name, -1 when no feature has it. */
int fia_feature_from_name(const char *name);

#endif
