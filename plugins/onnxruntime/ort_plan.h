/* ONNX Runtime's com.microsoft.GroupQueryAttention as a system under test:
 * the few C API entries the plug-in calls, the one-node model it builds and
 * the plan phase one makes for phase two.
 *
 * The package (onnxruntime-node) ships libonnxruntime.so.1 without a
 * header, so the entries are declared here.  OrtGetApiBase() is the one
 * exported symbol; it hands out a table of function pointers whose order is
 * fixed per API version and only ever appended to.  The plug-in reads the
 * table as an array and calls the entries at the positions below (counted
 * from the public onnxruntime_c_api.h; every one used dates from the first
 * API versions, so the positions hold in every later table).  It asks for
 * the table of ORT_SUT_API_VERSION and checks the library's version string
 * against ORT_SUT_ORT_VERSION before using anything (ort_session.c). */
#ifndef ORT_PLAN_H
#define ORT_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include "fia/sut.h"

/* The library this plug-in was written against. */
#define ORT_SUT_ORT_VERSION "1.30.0"
#define ORT_SUT_API_VERSION 30u

typedef struct OrtStatus OrtStatus;
typedef struct OrtEnv OrtEnv;
typedef struct OrtSession OrtSession;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtMemoryInfo OrtMemoryInfo;
typedef struct OrtValue OrtValue;
typedef struct OrtRunOptions OrtRunOptions;

typedef struct OrtApiBase {
    const void *(*GetApi)(uint32_t version);
    const char *(*GetVersionString)(void);
} OrtApiBase;

const OrtApiBase *OrtGetApiBase(void);

/* Positions in the OrtApi table. */
enum {
    ORT_GET_ERROR_MESSAGE = 2,
    ORT_CREATE_ENV = 3,
    ORT_CREATE_SESSION_FROM_ARRAY = 8,
    ORT_RUN = 9,
    ORT_CREATE_SESSION_OPTIONS = 10,
    ORT_SET_GRAPH_OPTIMIZATION_LEVEL = 23,
    ORT_SET_INTRA_OP_NUM_THREADS = 24,
    ORT_CREATE_TENSOR_WITH_DATA = 49,
    ORT_GET_TENSOR_MUTABLE_DATA = 51,
    ORT_CREATE_CPU_MEMORY_INFO = 69,
    ORT_RELEASE_STATUS = 93,
    ORT_RELEASE_MEMORY_INFO = 94,
    ORT_RELEASE_SESSION = 95,
    ORT_RELEASE_VALUE = 96,
    ORT_RELEASE_SESSION_OPTIONS = 100,
};

/* ONNXTensorElementDataType (= TensorProto.DataType) values used here. */
enum {
    ORT_T_FLOAT = 1,
    ORT_T_UINT8 = 2,
    ORT_T_INT8 = 3,
    ORT_T_INT32 = 6,
    ORT_T_FLOAT16 = 10,
    ORT_T_BFLOAT16 = 16,
};

/* GroupQueryAttention's inputs, by position in its schema. */
enum {
    GQA_QUERY,
    GQA_KEY,
    GQA_VALUE,
    GQA_PAST_KEY,
    GQA_PAST_VALUE,
    GQA_SEQLENS_K,
    GQA_TOTAL_SEQLEN,
    GQA_COS_CACHE,
    GQA_SIN_CACHE,
    GQA_POSITION_IDS,
    GQA_ATTENTION_BIAS,
    GQA_HEAD_SINK,
    GQA_N_INPUTS
};

/* What decides the model (and so the session): one per distinct value. */
typedef struct ort_sig {
    int elem;                   /* ORT_T_FLOAT / FLOAT16 / BFLOAT16 */
    int64_t num_heads, kv_num_heads, local_window_size;
    float scale;
    int has_past, has_bias, has_sink;
    int causal;                 /* 1: GQA's default; 0: attribute causal = 0 */
} ort_sig;

/* ort_model.c: the ModelProto of one GroupQueryAttention node with the
 * signature's attributes and inputs; malloc'd, *len bytes; NULL when out
 * of memory. */
uint8_t *ort_model_encode(const ort_sig *sig, size_t *len);
/* ort_model.c: the schema's name of input i (GQA_*). */
const char *ort_input_name(int i);

/* The plan: the call rewritten as GQA's inputs.  Phase one checks and
 * sizes; phase two builds the buffers from the call's tensors, runs, and
 * writes attention_out. */
typedef struct ort_plan {
    ort_sig sig;
    int64_t B, N, KV_N, S, KV_S, D;
    int64_t DG;                 /* GQA's head_size: D rounded up to 8 */
    int64_t past_len;           /* the past cache's S: max of past_b */
    int64_t total_max;          /* total_sequence_length: past_len + S */
    int64_t *q_len, *kv_len;    /* per batch, FIA's */
    int64_t *past_b;            /* per batch: kv_len - q_len keys in past */
    int bnsd_in, bnsd_out;      /* FIA layouts: BNSD in / out, else BSND */
    int wide;                   /* run as float32: widen in, round out */
    size_t elem_size;           /* of GQA's dtype */
    int64_t bias_b, bias_n;     /* the bias's first dims: 1 or B, 1 or N */
    const fia_tensor *q, *k, *v, *out, *mask, *pse, *sink;
    /* The explicit pattern (ort_pattern.c): GQA run with causal = 0 and
     * FIA's key set given as attention_bias, -inf where a key does not
     * take part.  mode, pre, next are FIA's (tokens clamped); pmask the
     * atten_mask whose bits sparse 0/1 read at Q_S > 1. */
    int explicit_pattern;
    /* page attention: the cache (blocknum, block_size, KV_N*D) or
     * (blocknum, KV_N, block_size, D), batch b's key j in block
     * table[b][j / block_size] (docs/features/paged.md); gathered into
     * GQA's contiguous past and new tokens */
    const int32_t *table;
    int64_t table_cols, block_size, blocknum;
    int paged_rank;
    int64_t mode, pre, next;
    const fia_tensor *pmask;
    int64_t pmask_bstride, pmask_cols;
    /* phase two's buffers, in GQA's layouts and dtype */
    void *gq, *gk, *gv, *gpast_k, *gpast_v, *gbias, *gsink, *gout;
    int32_t *seqlens_k, total_seqlen;
} ort_plan;

/* ort_session.c */
const char *ort_library_check(void); /* NULL when usable, else why not */
fia_status ort_execute(ort_plan *p);
/* FIA_OK when a session can be made for the signature, else why not */
fia_status ort_session_probe(const ort_sig *sig);

/* ort_build.c: the offset of key/value element (b, kv head n, key j, d)
 * in the call's key or value tensor (layout or paged cache). */
size_t ort_kv_at(const ort_plan *p, int64_t b, int64_t j, int64_t n,
                 int64_t d);

/* ort_pattern.c: whether key j takes part in row i of batch b under the
 * explicit pattern (docs/features/sparse.md, mask.md), i < S, j < kv_len;
 * whether key j takes part in no row i < q_len[b] (its data is then given
 * as zeros: it is never to be read); and the pattern's reading of the
 * call (FIA_OK, or a refusal). */
int ort_admits(const ort_plan *p, int64_t b, int64_t i, int64_t j);
int ort_key_unused(const ort_plan *p, int64_t b, int64_t j);
fia_status ort_read_explicit(const fia_sut_args *a, ort_plan *p);

/* ort_sut.c */
fia_status ort_fail(fia_status st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
const char *ort_last_error(void);

#endif
