/* fast/'s phase one as a list: the GetWorkspaceSize arguments (after the
 * nullptr layer of api.c), the table of per-feature checks validate.c walks,
 * and the helpers the checks share.
 *
 * A check is one function of one feature (fast/check_<feature>.c, the names
 * of include/fia/feature.h) in one layer.  It reads the arguments and the
 * plan the rows before it filled, fills its own part of the plan, and on a
 * violation returns the status with "<check id>: message" in *err; api.c
 * records that message as the thread's last error.  Checks never touch the
 * thread-local state themselves. */
#ifndef FIA_FAST_VALIDATE_H
#define FIA_FAST_VALIDATE_H

#include <stddef.h>
#include "fast_internal.h"
#include "fia/error.h"

/* ---- the optional tensor inputs ---------------------------------------- */
/* In REG_OP order (the order of the GetWorkspaceSize parameters), with the
 * names the messages use.  A feature adding a tensor input adds one line. */
#define FAST_OPTIONAL_LIST(X)                                                \
    X(DEQUANT_SCALE1, "dequant_scale1")                                      \
    X(QUANT_SCALE1, "quant_scale1")                                          \
    X(DEQUANT_SCALE2, "dequant_scale2")                                      \
    X(QUANT_SCALE2, "quant_scale2")                                          \
    X(QUANT_OFFSET2, "quant_offset2")                                        \
    X(ANTIQUANT_SCALE, "antiquant_scale")                                    \
    X(ANTIQUANT_OFFSET, "antiquant_offset")                                  \
    X(BLOCK_TABLE, "block_table")                                            \
    X(QUERY_PADDING_SIZE, "query_padding_size")                              \
    X(KV_PADDING_SIZE, "kv_padding_size")                                    \
    X(KEY_ANTIQUANT_SCALE, "key_antiquant_scale")                            \
    X(KEY_ANTIQUANT_OFFSET, "key_antiquant_offset")                          \
    X(VALUE_ANTIQUANT_SCALE, "value_antiquant_scale")                        \
    X(VALUE_ANTIQUANT_OFFSET, "value_antiquant_offset")                      \
    X(KEY_SHARED_PREFIX, "key_shared_prefix")                                \
    X(VALUE_SHARED_PREFIX, "value_shared_prefix")                            \
    X(QUERY_ROPE, "query_rope")                                              \
    X(KEY_ROPE, "key_rope")                                                  \
    X(DEQUANT_SCALE_QUERY, "dequant_scale_query")                            \
    X(LEARNABLE_SINK, "learnable_sink")

typedef enum fast_optional {
#define FAST_OPTIONAL_ENUM(id, name) FAST_OPT_##id,
    FAST_OPTIONAL_LIST(FAST_OPTIONAL_ENUM)
#undef FAST_OPTIONAL_ENUM
    FAST_OPT_COUNT
} fast_optional;

/* "dequant_scale1", ...; "?" out of range. */
const char *fast_optional_name(fast_optional o);

/* ---- the arguments ------------------------------------------------------- */
/* The interface (front door) a call came through, fast_v2_extras.apiName
 * (api.c reads the name): the documents give some limits per interface
 * (the batch's: check_layout.c). */
typedef enum fast_api {
    FAST_API_ACLNN_V2,     /* 002, "aclnn_v2" (also a NULL apiName) */
    FAST_API_TORCH_NPU_V2, /* 003, "torch_npu_v2" */
    FAST_API_MINDSPORE,    /* 000, "mindspore" */
    FAST_API_IFA,          /* 001, "incre_flash_attention" */
    FAST_API_TORCHAIR_V2   /* 004, "torchair_v2" */
} fast_api;

/* The interface named name ("aclnn_v2", ...; NULL: aclnn_v2) in *out;
 * false for a name no interface has. */
bool fast_api_from_name(const char *name, fast_api *out);
/* "mindspore (000)", ...: the interface and its document, for messages. */
const char *fast_api_label(fast_api api);

/* The device the call runs on (fast_v2_extras.productName, api.c):
 * the A2 / A3 products every check is written for, or 001's inference
 * card (check_product.c). */
typedef enum fast_product {
    FAST_PRODUCT_A2,             /* "atlas_a2" (also a NULL productName) */
    FAST_PRODUCT_INFERENCE_CARD  /* "atlas_inference_card" (001 only) */
} fast_product;

/* The GetWorkspaceSize arguments, after the nullptr layer (api.c). */
typedef struct fast_args {
    fia_profile profile; /* the thread's status profile (api.c) */
    fast_api api;        /* the interface (fast_v2_extras.apiName) */
    fast_product product; /* the device (fast_v2_extras.productName) */
    const fia_tensor *query;
    const fia_tensor_list *key, *value;
    const fia_tensor *pse, *mask;
    const fia_int_array *asl, *aslkv;
    const fia_tensor *opt[FAST_OPT_COUNT]; /* NULL when not passed */
    const fia_int_array *prefix_len;
    int64_t num_heads;
    double scale;
    int64_t pre, next;
    const char *layout;
    int64_t num_kv_heads, sparse_mode, inner_precise, block_size;
    int64_t antiquant_mode, key_antiquant_mode, value_antiquant_mode;
    int64_t query_quant_mode; /* 003 (fast_v2_extras; 0 in a V2 call) */
    const int64_t *out_dtype; /* 004's int? out_dtype; NULL for None */
    bool lse_flag;
    const fia_tensor *out, *lse;
} fast_args;

/* ---- the check table ----------------------------------------------------- */
/* Layers, checked in this order; the lowest layer wins (validate.c).  Layer
 * 1, the nullptrs, is api.c's: fast_args holds no nullptr to check. */
typedef enum fast_layer {
    FAST_LAYER_DTYPE = 2,       /* registered dtype lists -> 161002 */
    FAST_LAYER_EXCLUSION = 3,   /* combinations refused -> as SEMANTIC */
    FAST_LAYER_NOT_MODELED = 4, /* -> FIA_ERR_NOT_MODELED */
    FAST_LAYER_SEMANTIC = 5,    /* -> 161002 (DOC) or 561002 (CANN) */
    FAST_LAYER_ARITHMETIC = 6,  /* accepted by every rule, not computed ->
                                   FIA_ERR_NOT_MODELED */
    FAST_LAYER_UNDOCUMENTED = 7 /* a parameter no document gives a meaning:
                                   FIA_ERR_NOT_MODELED for any call every
                                   rule accepts, an empty query too */
} fast_layer;

typedef fia_status (*fast_check_fn)(const fast_args *a, fast_plan *p,
                                    fia_error *err);

typedef struct fast_check {
    const char *feature; /* a name of include/fia/feature.h */
    fast_layer layer;
    fast_check_fn run;
} fast_check;

/* The table, in the order the checks run (validate.c). */
extern const fast_check fast_checks[];
extern const size_t fast_check_count;

/* Walks the table; fills the shape part of p.  On failure *err holds
 * "<check id>: message". */
fia_status fast_validate(const fast_args *a, fast_plan *p, fia_error *err);

/* ---- helpers for the checks (validate.c) --------------------------------- */
/* The code of a semantic rejection under a status profile. */
static inline fia_status fast_semantic_code(fia_profile profile)
{
    return profile == FIA_PROFILE_CANN ? FIA_ERR_INNER_TILING_ERROR
                                       : FIA_ERR_PARAM_INVALID;
}

/* Inside a check (a and err in scope): the failure of each layer, as
 * `return FAST_REJECT("ID", "why %d", n);` (each sets *err and is the
 * status to return). */
#define FAST_BADTYPE(id, ...)                                                \
    fast_fail(err, FIA_ERR_PARAM_INVALID, id, __VA_ARGS__)
#define FAST_NOTMOD(id, ...)                                                 \
    fast_fail(err, FIA_ERR_NOT_MODELED, id, __VA_ARGS__)
#define FAST_REJECT(id, ...)                                                 \
    fast_fail(err, fast_semantic_code(a->profile), id, __VA_ARGS__)

/* Product of the dims; false when the rank is out of range, a dim is
 * negative or the product overflows int64. */
bool fast_shape_numel(const fia_tensor *t, int64_t *out);
/* Empty (numel 0) optional tensors count as absent where RELEASED says so. */
bool fast_present(const fia_tensor *t);
bool fast_same_shape(const fia_tensor *a, const fia_tensor *b);
bool fast_dtype_in(fia_dtype dt, const fia_dtype *list, size_t n);
/* "fp16", ...; "?" out of range. */
const char *fast_dtype_name(fia_dtype dt);

/* Q_S as the query's layout gives it, for the exclusion layer (before the
 * layout is validated): -1 when the layout or the query's rank is not one
 * the layout check accepts (that check rejects the call later anyway). */
int64_t fast_early_q_s(const fast_args *a);

/* fast_dtype_in(dt, FAST_DTYPES(FIA_DT_FP16, FIA_DT_BF16)) */
#define FAST_DTYPES(...) ((const fia_dtype[]){__VA_ARGS__}), \
    (sizeof((const fia_dtype[]){__VA_ARGS__}) / sizeof(fia_dtype))

/* An optional tensor input of a feature and its registered dtypes. */
typedef struct fast_opt_input {
    fast_optional input;
    int ndtypes;
    fia_dtype dtypes[3];
} fast_opt_input;
/* Layer 2 for a feature's optional inputs, in the order given: T_OPTIONAL
 * for the first one passed with a dtype outside its list. */
fia_status fast_check_opt_dtypes(const fast_args *a, const fast_opt_input *in,
                                 size_t n, fia_error *err);
/* Layer 4 for a feature fast/ does not model yet: M_OPTIONAL for the first
 * of its optional inputs passed at all (even empty). */
fia_status fast_refuse_opt(const fast_args *a, const fast_opt_input *in,
                           size_t n, fia_error *err);

/* ---- the rows, one file per feature (check_<feature>.c) ------------------ */
/* tensors */
fia_status fast_check_tensors_dtypes(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_tensors_lists(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_tensors_empty(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_tensors_kv_dtype(const fast_args *, fast_plan *, fia_error *);
/* layout */
fia_status fast_check_layout_shapes(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_layout_heads(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_layout_kv(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_layout_limits(const fast_args *, fast_plan *, fia_error *);
/* 1 for an *_NBSD output layout (BSH_NBSD, BSND_NBSD, BNSD_NBSD); the
 * query's layout into *q (may be NULL). */
bool fast_nbsd_layout(const char *layout, fast_layout *q);
/* A single key and value of one shape but for value's head dim 128
 * beside key's 192 in a batched layout (check_layout.c): the released
 * code accepts it (profile cann), fast/ does not compute it yet. */
bool fast_value_d_128(const fast_args *a);
fia_status fast_check_output_value_d(const fast_args *, fast_plan *, fia_error *);
/* An int8 / int4 / int32 (int4 packed eight to one) key or value dtype;
 * an int32's last dim holds D / 8 of them (its real D: x fast_kv_pack). */
static inline bool fast_kv_int(fia_dtype dt)
{
    return dt == FIA_DT_INT8 || dt == FIA_DT_INT4 || dt == FIA_DT_INT32;
}
static inline int64_t fast_kv_pack(fia_dtype dt)
{
    return dt == FIA_DT_INT32 ? 8 : 1;
}
/* antiquant: the plan's fill (plan_antiquant.c) */
fia_status fast_plan_antiquant(const fast_args *, fast_plan *, fia_error *);
/* gqa */
fia_status fast_check_gqa(const fast_args *, fast_plan *, fia_error *);
/* mask */
fia_status fast_check_mask_dtypes(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_mask(const fast_args *, fast_plan *, fia_error *);
/* sparse */
fia_status fast_check_sparse(const fast_args *, fast_plan *, fia_error *);
/* seqlen */
fia_status fast_check_seqlen(const fast_args *, fast_plan *, fia_error *);
/* lse */
fia_status fast_check_lse_dtypes(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_lse(const fast_args *, fast_plan *, fia_error *);
/* precise */
fia_status fast_check_precise(const fast_args *, fast_plan *, fia_error *);
/* output */
fia_status fast_check_output_dtypes(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_output(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_output_out_dtype(const fast_args *, fast_plan *, fia_error *);
/* scale */
fia_status fast_check_scale(const fast_args *, fast_plan *, fia_error *);
/* pse */
fia_status fast_check_pse_dtypes(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_pse_shape(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_pse_heads(const fast_args *, fast_plan *, fia_error *);
/* int8_quant (full quantization): dtypes, the scales' scene, D, and the plan
 * of a call every rule accepts */
fia_status fast_check_int8_quant_dtypes(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_int8_quant(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_int8_quant_d(const fast_args *, fast_plan *, fia_error *);
fia_status fast_plan_int8_quant(const fast_args *, fast_plan *, fia_error *);
/* antiquant (check_antiquant.c): dtypes of the two sets, the rules of
 * int8/int4 key/value (layer 5), what is not computed (layer 6) */
fia_status fast_check_antiquant_dtypes(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_antiquant_kv_dtypes(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_antiquant(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_antiquant_unmodeled(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_paged_dtypes(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_paged_exclusions(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_paged_cache(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_padding_dtypes(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_padding(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_padding_exclusions(const fast_args *, fast_plan *, fia_error *);
/* The left-padding scenes as the documents define them (before what fast/
 * ignores): *q, query_padding_size (>= 1 element) with actual_seq_lengths
 * off the decode path; *kv, kv_padding_size (>= 1 element) with
 * actual_seq_lengths_kv.  Reads Q_S through fast_early_q_s. */
void fast_padding_scene(const fast_args *a, bool *q, bool *kv);
fia_status fast_check_prefix_dtypes(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_prefix_exclusions(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_prefix_shape(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_prefix(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_tensor_list_exclusions(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_tensor_list(const fast_args *, fast_plan *, fia_error *);
/* int_inputs: an int8 query's dtypes in the plan (full quantization) */
fia_status fast_check_int_inputs_query(const fast_args *, fast_plan *, fia_error *);
/* int8_out (output quantization): the scales' scene, their shape and the
 * Q_S > 1 interceptions, then the refusal of what every rule accepts */
fia_status fast_check_int8_out(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_int8_out_shape(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_int8_out_compute(const fast_args *, fast_plan *, fia_error *);
/* the *_NBSD outputs without rope under profile doc (layer 6; their
 * rules: check_layout.c) */
fia_status fast_check_tnd_nbsd(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_tnd_exclusions(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_tnd_shapes(const fast_args *, fast_plan *, fia_error *);
/* 1 for a token layout (TND, NTD, TND_NTD, NTD_TND); its query and output
 * orders into *q_ntd / *o_ntd (either may be NULL). */
bool fast_token_layout(const char *layout, bool *q_ntd, bool *o_ntd);
/* mla (check_mla.c): dtypes (2), exclusions (3), the rules and the
 * plan's rope (5); full quantization (an int8 query: check_query_quant_mla.c,
 * layer 5, its plan p->query_quant).  fast_mla_call: a rope passed
 * (an MLA call); fast_mla_query_d: the query's D as its layout gives it,
 * before the layout is validated (-1 unknown); fast_mla512: an MLA call of
 * query D 512, whose own rules replace general ones (the exemptions in
 * check_gqa.c, check_paged.c, check_tnd.c, check_layout.c). */
fia_status fast_check_mla_dtypes(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_mla_exclusions(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_mla_rules(const fast_args *, fast_plan *, fia_error *);
bool fast_mla_call(const fast_args *a);
int64_t fast_mla_query_d(const fast_args *a);
bool fast_mla512(const fast_args *a);

/* check_order.c: no batch of the call reads a key (every used
 * actual_seq_lengths_kv 0, or without the array every key tensor's S 0),
 * read from the arguments before any row.  Under profile cann the walk
 * sets p->kv_return from it: the released code returns zeros before the
 * checks of its later stage, which let such a call pass. */
bool fast_no_key_read(const fast_args *a);
fia_status fast_check_query_quant_mla(const fast_args *, fast_plan *,
                                      fia_error *);
fia_status fast_check_query_quant_mla_unmodeled(const fast_args *, fast_plan *,
                                                fia_error *);
/* query_quant (check_query_quant.c): dequant_scale_query's dtype (2),
 * query_quant_mode 0 or 3 (5), outside MLA full quantization not
 * modeled (6) */
fia_status fast_check_query_quant(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_query_quant_unmodeled(const fast_args *, fast_plan *,
                                            fia_error *);
/* sink (check_sink.c): its dtype and shape and the plan (layer 5), what
 * is not computed with it (layer 6) */
fia_status fast_check_sink(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_product_dtypes(const fast_args *, fast_plan *,
                                     fia_error *);
fia_status fast_check_product_exclusions(const fast_args *, fast_plan *,
                                         fia_error *);
fia_status fast_check_product_limits(const fast_args *, fast_plan *,
                                     fia_error *);
fia_status fast_check_sink_unmodeled(const fast_args *, fast_plan *, fia_error *);
fia_status fast_check_query_quant_dtypes(const fast_args *, fast_plan *, fia_error *);

#endif
