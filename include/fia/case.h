/* The case model: one call of the operator, as a user writes it in a .case
 * file.  Every documented parameter has a place here from the start (002's C
 * API, the REG_OP prototype, and the v2 extras of 003: query_rope, key_rope,
 * dequant_scale_query, query_quant_mode); what fiacheck does not model yet is
 * refused by the components with FIA_ERR_NOT_MODELED, never ignored.
 *
 * This is shared plain data: parsing, printing and data generation only.  It
 * must not decide validity (oracle/ and fast/ each do that on their own). */
#ifndef FIA_CASE_H
#define FIA_CASE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "fia/error.h"
#include "fia/tensor.h"

/* Tensor parameters, in the order of 002's GetWorkspaceSize, then the v2
 * extras, then the outputs.  Case-file keys are fia_slot_name(). */
typedef enum fia_slot {
    FIA_SLOT_QUERY = 0,
    FIA_SLOT_KEY,                   /* tensor list */
    FIA_SLOT_VALUE,                 /* tensor list */
    FIA_SLOT_PSE_SHIFT,
    FIA_SLOT_ATTEN_MASK,
    FIA_SLOT_DEQUANT_SCALE1,
    FIA_SLOT_QUANT_SCALE1,
    FIA_SLOT_DEQUANT_SCALE2,
    FIA_SLOT_QUANT_SCALE2,
    FIA_SLOT_QUANT_OFFSET2,
    FIA_SLOT_ANTIQUANT_SCALE,
    FIA_SLOT_ANTIQUANT_OFFSET,
    FIA_SLOT_BLOCK_TABLE,
    FIA_SLOT_QUERY_PADDING_SIZE,
    FIA_SLOT_KV_PADDING_SIZE,
    FIA_SLOT_KEY_ANTIQUANT_SCALE,
    FIA_SLOT_KEY_ANTIQUANT_OFFSET,
    FIA_SLOT_VALUE_ANTIQUANT_SCALE,
    FIA_SLOT_VALUE_ANTIQUANT_OFFSET,
    FIA_SLOT_KEY_SHARED_PREFIX,
    FIA_SLOT_VALUE_SHARED_PREFIX,
    FIA_SLOT_QUERY_ROPE,            /* 003 (MLA) */
    FIA_SLOT_KEY_ROPE,              /* 003 (MLA) */
    FIA_SLOT_DEQUANT_SCALE_QUERY,   /* 003 */
    FIA_SLOT_LEARNABLE_SINK,        /* 004 */
    FIA_SLOT_ATTENTION_OUT,         /* output */
    FIA_SLOT_SOFTMAX_LSE,           /* output */
    FIA_SLOT_COUNT
} fia_slot;

/* Host integer arrays (aclIntArray). */
typedef enum fia_array {
    FIA_ARR_ACTUAL_SEQ_LENGTHS = 0,
    FIA_ARR_ACTUAL_SEQ_LENGTHS_KV,
    FIA_ARR_ACTUAL_SHARED_PREFIX_LEN,
    FIA_ARR_COUNT
} fia_array;

typedef enum fia_presence {
    FIA_ABSENT = 0,  /* no line: nullptr for inputs; derived for outputs */
    FIA_NULL,        /* "name = null": an explicit nullptr */
    FIA_PRESENT
} fia_presence;

typedef enum fia_gen_kind {
    FIA_GEN_DEFAULT = 0, /* normal(0,1) for floats; causal for sparse 2-4
                            masks, random(0.3) for other masks; small ints */
    FIA_GEN_NORMAL,      /* normal(a, b): mean a, std b */
    FIA_GEN_UNIFORM,     /* uniform(a, b) */
    FIA_GEN_RANDOM,      /* random(a): 0/1 with P(1) = a */
    FIA_GEN_CAUSAL,      /* 1 strictly above the diagonal (triu(1)) */
    FIA_GEN_CONST,       /* const(a) */
    FIA_GEN_VALUES,      /* explicit values, row-major; for lists, the
                            tensors' values one after another */
    FIA_GEN_BLOCKS       /* a block_table: the block ids each batch reads
                            (ceil(actual_seq_lengths_kv / block_size)
                            entries of its row) a seeded shuffle of the
                            cache's blocks, distinct while they last, the
                            other entries the next ids, cyclically; the
                            default for block_table */
} fia_gen_kind;

typedef struct fia_gen {
    fia_gen_kind kind;
    double a, b;
    int64_t n_values;
    double *values;      /* owned; FIA_GEN_VALUES only */
} fia_gen;

typedef struct fia_tensor_spec {
    fia_presence presence;
    int32_t count;       /* tensors in the list (1 unless key/value list) */
    fia_tensor *t;       /* owned array of count; data is always NULL here */
    fia_gen gen;
} fia_tensor_spec;

typedef struct fia_int_array_spec {
    fia_presence presence;
    int64_t count;       /* may be 0: "[]" */
    int64_t *values;     /* owned */
} fia_int_array_spec;

/* Attributes, with the documented defaults (002 REG_OP; 000 for num_heads). */
typedef enum fia_attr {
    FIA_ATTR_NUM_HEADS = 0,
    FIA_ATTR_SCALE,
    FIA_ATTR_PRE_TOKENS,
    FIA_ATTR_NEXT_TOKENS,
    FIA_ATTR_INPUT_LAYOUT,
    FIA_ATTR_NUM_KEY_VALUE_HEADS,
    FIA_ATTR_SPARSE_MODE,
    FIA_ATTR_INNER_PRECISE,
    FIA_ATTR_BLOCK_SIZE,
    FIA_ATTR_ANTIQUANT_MODE,
    FIA_ATTR_SOFTMAX_LSE_FLAG,
    FIA_ATTR_KEY_ANTIQUANT_MODE,
    FIA_ATTR_VALUE_ANTIQUANT_MODE,
    FIA_ATTR_QUERY_QUANT_MODE,      /* 003 */
    FIA_ATTR_OUT_DTYPE,             /* 004 */
    FIA_ATTR_COUNT
} fia_attr;

#define FIA_LAYOUT_MAX 32

typedef struct fia_attrs {
    int64_t num_heads;              /* default 1 (000) */
    double scale;                   /* 1.0 */
    int64_t pre_tokens;             /* 2147483647 */
    int64_t next_tokens;            /* 2147483647 */
    char input_layout[FIA_LAYOUT_MAX]; /* "BSH"; kept verbatim, even if invalid */
    int64_t num_key_value_heads;    /* 0 */
    int64_t sparse_mode;            /* 0 */
    int64_t inner_precise;          /* 1 */
    int64_t block_size;             /* 0 */
    int64_t antiquant_mode;         /* 0 */
    bool softmax_lse_flag;          /* false */
    int64_t key_antiquant_mode;     /* 0 */
    int64_t value_antiquant_mode;   /* 0 */
    int64_t query_quant_mode;       /* 0 */
    int64_t out_dtype;              /* 004's int? out_dtype: -1 for None
                                       (`out_dtype = null`), else the
                                       code given (>= 0) */
} fia_attrs;

/* What a case says it exercises (`intent = a, b`): not part of the call;
 * harness/intent.c checks each one, docs/case-format.md defines them. */
#define FIA_INTENT_LIST(X) \
    X(FULLY_MASKED_ROWS, "fully_masked_rows") \
    X(MASKED_NONFINITE_READ, "masked_nonfinite_read") \
    X(NONFINITE_LIVE, "nonfinite_live") \
    X(BEYOND_KEY_BLOCK, "beyond_key_block") \
    X(SPLIT_DECODE, "split_decode") \
    X(RAGGED_SEQLEN, "ragged_seqlen") \
    X(GQA_GROUP, "gqa_group") \
    X(REJECTED, "rejected")
#define FIA_INTENT_ENUM_(id, name) FIA_INTENT_##id,
typedef enum fia_intent { FIA_INTENT_LIST(FIA_INTENT_ENUM_) FIA_INTENT_COUNT } fia_intent;
const char *fia_intent_name(fia_intent i);
int fia_intent_from_name(const char *name);   /* -1 if unknown */

/* How the system under test runs the call (`threads = N`,
 * `kernel_level = NAME`, `task_order = N`): not part of the call, but a
 * result may depend on them (decode splits its keys by thread; each level
 * has its own micro-kernels; a bug may need one task to follow another),
 * so a case that needs one to reproduce says so.  The harness applies them
 * for the call only. */
#define FIA_CASE_MAX_THREADS 16
typedef enum fia_kernel_level {
    FIA_KL_DEFAULT = 0, /* no line: the environment's or the automatic one */
    FIA_KL_SCALAR, FIA_KL_AVX2, FIA_KL_AVX512, FIA_KL_COUNT
} fia_kernel_level;
const char *fia_kernel_level_name(fia_kernel_level k); /* "scalar", ... */
int fia_kernel_level_from_name(const char *name);      /* -1 if unknown */

/* The interface a case is written through (`api = NAME`).  The five
 * documents describe one operator behind five interfaces, each with its own
 * parameter names, defaults and limits; a case is written in its
 * interface's names and takes its interface's defaults, but the case keeps
 * one representation (the slots, attributes and arrays above, named as in
 * 002's REG_OP), so oracle/, ref/ and fast/ see the same call whichever
 * interface wrote it.  core/case_api.c holds the name tables;
 * docs/case-format.md "Interfaces" the decisions. */
typedef enum fia_api {
    FIA_API_ACLNN_V2 = 0,            /* 002 (+ the 003 extras): no line */
    FIA_API_TORCH_NPU_V2,            /* 003 */
    FIA_API_MINDSPORE,               /* 000 */
    FIA_API_INCRE_FLASH_ATTENTION,   /* 001 */
    FIA_API_TORCHAIR_V2,             /* 004 */
    FIA_API_COUNT
} fia_api;
const char *fia_api_name(fia_api a);      /* "aclnn_v2", ...; "?" */
int fia_api_from_name(const char *name);  /* -1 if unknown */
const char *fia_api_doc(fia_api a);       /* "002", "003", ... */
const char *fia_api_function(fia_api a);  /* the documented function */
/* The interface's name for a parameter named internally (fia_slot_name,
 * fia_attr_name, fia_array_name); NULL when the interface has none. */
const char *fia_api_param(fia_api a, const char *internal);
/* The internal name of one of the interface's parameters; NULL when the
 * interface has no such parameter, or has it with no internal counterpart
 * (a reserved or not-modeled parameter: *unmodeled set to 1). */
const char *fia_api_internal(fia_api a, const char *name, int *unmodeled);
/* The interface's parameter names in its documented order, i < count;
 * NULL past the end.  *internal as fia_api_internal. */
const char *fia_api_param_at(fia_api a, int i, const char **internal);
/* The attribute defaults of the interface (an attribute it lacks keeps
 * 002's value, which it passes implicitly). */
void fia_api_attrs_default(fia_api a, fia_attrs *at);

/* The device a call runs on (`product = NAME`).  002, 003, 000 and 004
 * document the Atlas A2 and A3 products with one set of constraints (the
 * default); 001 alone documents a second product, the Atlas inference card
 * (Atlas 推理系列加速卡产品), with its own dtypes and limits.  A product is
 * not a parameter of the call but a property of the machine that answers
 * it, so a case names it only when it is not the default, and only through
 * an interface whose document lists it (fia_api_has_product). */
typedef enum fia_product {
    FIA_PRODUCT_ATLAS_A2 = 0,        /* A2 / A3: every document; no line */
    FIA_PRODUCT_INFERENCE_CARD,      /* 001's 推理系列加速卡产品 */
    FIA_PRODUCT_COUNT
} fia_product;
const char *fia_product_name(fia_product p); /* "atlas_a2", ...; "?" */
int fia_product_from_name(const char *name); /* -1 if unknown */
/* 1 when interface a's document lists product p in its product table. */
int fia_api_has_product(fia_api a, fia_product p);

/* 003 / 004's reserved parameters (预留参数，暂未使用，使用默认值即可: "reserved,
 * not used yet, the default will do"): the eleven `int? *_dtype=None` of
 * their prototypes.  A case through those interfaces may give them a value;
 * the operator does not read it (the catalogue's RSV-001 says the call is
 * computed as with None), so nothing past the case model sees them.
 * dequant_scale_key_rope, a reserved tensor, stays None-only. */
#define FIA_RESERVED_COUNT 11
const char *fia_reserved_name(int i);          /* "query_dtype", ...; NULL */
int fia_reserved_from_name(const char *name);  /* -1 if not one of them */

typedef struct fia_case {
    char name[256];                 /* file name or "<string>" */
    uint64_t seed;                  /* default 0 */
    uint32_t intents;               /* bit 1u << fia_intent */
    int32_t threads;                /* 1..16; 0 when not given */
    uint64_t task_order;            /* `task_order = N`: fast/ runs the
                                       call's tasks on one thread in the
                                       order N picks (fastSetTaskOrder);
                                       0 when not given */
    bool live_rows;                 /* `data = live_rows`: only the rows the
                                       call reads are generated (below) */
    fia_kernel_level kernel_level;  /* FIA_KL_DEFAULT when not given */
    fia_tensor_spec tensors[FIA_SLOT_COUNT];
    fia_int_array_spec arrays[FIA_ARR_COUNT];
    fia_attrs attrs;
    bool attr_given[FIA_ATTR_COUNT]; /* the attribute's line is present */
    fia_api api;                    /* the vocabulary it is written in: not
                                       part of the call (fia_case_equal and
                                       the digest ignore it) */
    fia_product product;            /* the device: part of the call (it
                                       decides the limits) */
    uint32_t reserved_given;        /* bit i: reserved parameter i given */
    int64_t reserved[FIA_RESERVED_COUNT]; /* its value when given */
} fia_case;


const char *fia_slot_name(fia_slot s);        /* "query", "atten_mask", ... */
int fia_slot_from_name(const char *name);     /* -1 if unknown */
int fia_slot_is_list(fia_slot s);             /* key, value */
int fia_slot_is_output(fia_slot s);
const char *fia_array_name(fia_array a);
const char *fia_attr_name(fia_attr a);

void fia_case_init(fia_case *c);              /* empty case, defaults set */
void fia_case_free(fia_case *c);
fia_status fia_case_copy(fia_case *dst, const fia_case *src); /* OK or NOMEM */

/* The largest case file read: a case is text, its data generated, so a
 * larger file is not a case (refused before it is read whole). */
#define FIA_CASE_FILE_MAX ((long long)64 << 20)

/* Parse a whole file / a string.  FIA_OK, or FIA_ERR_BAD_INPUT (malformed,
 * or a file over FIA_CASE_FILE_MAX bytes), FIA_ERR_IO (cannot read) or
 * FIA_ERR_NOMEM with *err filled. */
fia_status fia_case_parse_file(const char *path, fia_case *c, fia_error *err);
/* The text of the case file at path into *text (NUL-terminated, the caller
 * frees it), with the checks fia_case_parse_file makes before parsing: at
 * most FIA_CASE_FILE_MAX bytes and no NUL byte (a NUL is refused at its
 * file:line, never read as the end of the text).  Same codes. */
fia_status fia_case_read_file(const char *path, char **text, fia_error *err);
fia_status fia_case_parse_string(const char *text, const char *name, fia_case *c,
                          fia_error *err);
/* Print in canonical form; parsing the output gives an equivalent case. */
fia_status fia_case_print(const fia_case *c, FILE *f); /* OK, NOMEM, IO */
/* Same into a malloc'ed string (caller frees), NULL on nomem. */
char *fia_case_to_string(const fia_case *c);
/* 1 when the two cases describe the same call and data (through whichever
 * interfaces they are written). */
int fia_case_equal(const fia_case *a, const fia_case *b);
/* 1 when c can be written through interface a: every tensor and array it
 * passes has a name there and every attribute the interface lacks has the
 * value the interface passes implicitly.  0 with the first obstacle in
 * why (may be NULL). */
int fia_case_expressible(const fia_case *c, fia_api a, char *why, size_t n);
/* Writes c through interface a from now on (its lines, its defaults for
 * the attributes not given); the call stays the same.  FIA_OK, or
 * FIA_ERR_BAD_INPUT when not expressible (c unchanged). */
fia_status fia_case_set_api(fia_case *c, fia_api a, char *why, size_t n);
/* The case's identity: 16 hex digits of a hash of its canonical text
 * (core/case_digest.c), equal for equal cases.  FIA_OK or FIA_ERR_NOMEM. */
#define FIA_CASE_DIGEST_LEN 17
fia_status fia_case_digest(const fia_case *c, char out[FIA_CASE_DIGEST_LEN]);

/* The outputs a case passes to the operator.  An output whose line is absent
 * is derived by the documented output rules (002 attentionOut/softmaxLse):
 * attention_out has the query's shape (BNSD_BSND: BNSD read as BSND) and the
 * query's dtype, int8 when quant_scale2 is given; softmax_lse is fp32
 * [B,N,Q_S,1] when softmax_lse_flag is set, else nullptr.  An explicit line
 * (or null) is taken as written.  Returns the presence. */
fia_presence fia_case_output(const fia_case *c, fia_slot s, fia_tensor *out);
/* 1 for the 003 token layouts TND, NTD, TND_NTD, NTD_TND (no batch axis:
 * T tokens, actual_seq_lengths cumulative).  There attention_out is the
 * query's tokens and heads in the output layout with value's head dim,
 * softmax_lse (T, N, 1). */
int fia_layout_is_tnd(const char *layout);
/* The same, and the axis orders: *q_ntd 1 when query/key/value are
 * [N, T, D] (NTD, NTD_TND), *o_ntd 1 when attention_out is (NTD,
 * TND_NTD); either pointer may be NULL. */
int fia_layout_token_order(const char *layout, int *q_ntd, int *o_ntd);

/* Materialized case: every tensor the call passes, with data generated from
 * the seed (or only descriptors when with_data is 0: status-only runs). */
typedef struct fia_case_data {
    fia_tensor *t[FIA_SLOT_COUNT];  /* NULL when absent/null; else count */
    int32_t n[FIA_SLOT_COUNT];
    const fia_tensor **list[FIA_SLOT_COUNT]; /* pointer arrays for lists */
    fia_tensor_list key_list, value_list;
    fia_int_array arr[FIA_ARR_COUNT];
    int arr_present[FIA_ARR_COUNT];
    uint64_t mapped[FIA_SLOT_COUNT]; /* bytes of the slot's mapping, 0: heap */
} fia_case_data;

/* Largest total of tensor bytes materialize will allocate (bytes). */
#define FIA_MATERIALIZE_LIMIT ((int64_t)8 << 30)
/* With `data = live_rows`: query, key and value get data only in the rows
 * the call can read (per batch the first actual_seq_lengths rows of the
 * query, actual_seq_lengths_kv rows of key and value; all rows when the
 * array is absent), every other element is 0; a tensor over
 * FIA_LIVE_MAP_BYTES is an anonymous mapping whose untouched pages cost no
 * memory, so a K/V of many GiB with a few live rows is cheap.  Only the
 * live bytes count against FIA_MATERIALIZE_LIMIT; the mapped size against
 * FIA_LIVE_VIRTUAL_LIMIT.  A live row's values depend on (seed, slot, its
 * offset) only. */
#define FIA_LIVE_MAP_BYTES ((int64_t)64 << 20)
#define FIA_LIVE_VIRTUAL_LIMIT ((int64_t)64 << 30)

/* FIA_OK; FIA_ERR_BAD_INPUT with *err (too large, bad generator for dtype,
 * wrong number of explicit values) or FIA_ERR_NOMEM.  Outputs are allocated zero-filled. */
fia_status fia_case_materialize(const fia_case *c, int with_data, fia_case_data *d,
                         fia_error *err);
void fia_case_data_free(fia_case_data *d);
/* Convenience: the tensor of a slot, or NULL (first of a list). */
const fia_tensor *fia_case_data_tensor(const fia_case_data *d, fia_slot s);

#endif
