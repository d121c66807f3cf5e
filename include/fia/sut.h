/* The system-under-test ABI: how fiacheck calls a kernel it did not
 * compile.  A plug-in is a shared library exporting one function,
 *
 *     const fia_sut *fiacheck_sut_v1(void);
 *
 * that returns a table of its entry points: the two phases of the V2 call
 * (002 "算子执行接口": phase one validates and plans, phase two computes),
 * with fiacheck's plain tensor types (fia/tensor.h) in place of aclTensor,
 * aclTensorList and aclIntArray, and the parameters gathered in one struct
 * named as 002 names them (003 / 004's additions after them).
 *
 * fiacheck judges what the table says the plug-in validates: with
 * FIA_SUT_CHECKS_STATUS its status for every call, valid or not, against
 * the documented rules; without it (a numbers-only system) only the calls
 * the rules accept, by their outputs -- a refusal of such a call is then
 * "not covered by this system", not a finding.
 *
 * Versioning: abi_version is FIA_SUT_ABI_VERSION of the header the plug-in
 * was built with.  fiacheck refuses a table with another major version
 * (the high 16 bits); fields are only ever appended to fia_sut_args within
 * a major version, and args->size tells a plug-in how many it was given.
 *
 * The header needs only <stdbool.h>, <stdint.h> and fia/tensor.h,
 * fia/dtype.h and fia/status.h (plain types; a plug-in links nothing of
 * fiacheck's).  docs/sut.md explains how to build one, with coverage
 * instrumentation for the fuzz targets, and how an adapter to aclnn on
 * real hardware would be written against this table. */
#ifndef FIA_SUT_H
#define FIA_SUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fia/status.h"
#include "fia/tensor.h"

/* major << 16 | minor */
#define FIA_SUT_ABI_VERSION 0x00010001u
#define FIA_SUT_ABI_MINOR(v) ((v) & 0xffffu)
#define FIA_SUT_ABI_MAJOR(v) ((v) >> 16)
/* The name of the one function a plug-in exports. */
#define FIA_SUT_ENTRY_NAME "fiacheck_sut_v1"

/* fia_sut.validates: which answers of the system fiacheck judges. */
#define FIA_SUT_CHECKS_STATUS 1u  /* its statuses, valid calls or not */

/* One call.  A NULL pointer is aclnn's nullptr (an optional input not
 * given); tensors are row-major and contiguous, their data NULL only when
 * empty or when fiacheck asks for phase one alone.  The outputs'
 * data are the buffers phase two writes. */
typedef struct fia_sut_args {
    size_t size;                    /* sizeof(fia_sut_args) of the caller */
    fia_profile profile;            /* which status codes to return for a
                                       semantic rejection: the documents'
                                       161002 (DOC) or the released code's
                                       561002 (CANN) */
    /* 002, in its order */
    const fia_tensor *query;
    const fia_tensor_list *key, *value;
    const fia_tensor *pse_shift, *atten_mask;
    const fia_int_array *actual_seq_lengths, *actual_seq_lengths_kv;
    const fia_tensor *dequant_scale1, *quant_scale1, *dequant_scale2,
        *quant_scale2, *quant_offset2;
    const fia_tensor *antiquant_scale, *antiquant_offset;
    const fia_tensor *block_table;
    const fia_tensor *query_padding_size, *kv_padding_size;
    const fia_tensor *key_antiquant_scale, *key_antiquant_offset,
        *value_antiquant_scale, *value_antiquant_offset;
    const fia_tensor *key_shared_prefix, *value_shared_prefix;
    const fia_int_array *actual_shared_prefix_len;
    int64_t num_heads;
    double scale;
    int64_t pre_tokens, next_tokens;
    const char *input_layout;
    int64_t num_key_value_heads, sparse_mode, inner_precise, block_size,
        antiquant_mode;
    bool softmax_lse_flag;
    int64_t key_antiquant_mode, value_antiquant_mode;
    /* 003 (MLA, the query's quantization) and 004 (learnable_sink) */
    const fia_tensor *query_rope, *key_rope, *dequant_scale_query;
    int64_t query_quant_mode;
    const fia_tensor *learnable_sink;
    const int64_t *out_dtype;       /* 004's int? out_dtype; NULL: None */
    /* The front door the call came through: "aclnn_v2" (002, and 003's
     * additions), "torch_npu_v2" (003), "mindspore" (000),
     * "incre_flash_attention" (001) or "torchair_v2" (004).  The documents
     * give some limits per interface (the batch's: docs/sut.md); a system
     * reached through one door only may ignore it. */
    const char *api;
    /* outputs */
    const fia_tensor *attention_out, *softmax_lse;
    /* ABI 1.1: the device the call runs on, as fia/case.h names it:
     * "atlas_a2" (Atlas A2 / A3, every document's) or
     * "atlas_inference_card" (Atlas 推理系列加速卡产品, 001 only, with its
     * own dtypes and limits).  A plug-in built against 1.0 is not handed
     * a call on another product than atlas_a2 (fiacheck does not judge
     * it: "not judged"). */
    const char *product;
} fia_sut_args;

typedef struct fia_sut {
    uint32_t abi_version;           /* FIA_SUT_ABI_VERSION */
    const char *name;               /* short, [A-Za-z0-9_.-]: "fast" */
    const char *version;            /* the system's own revision: what the
                                       store records as a campaign's
                                       revision and regressions compare */
    uint32_t validates;             /* FIA_SUT_CHECKS_STATUS or 0 */

    /* Phase one: validate, plan, size the workspace.  On FIA_OK
     * *executor is what phase two runs (or destroy frees); otherwise it
     * is left NULL and last_error says why. */
    fia_status (*get_workspace_size)(const fia_sut_args *args,
                                     uint64_t *workspace_size,
                                     void **executor);
    /* Phase two: computes into the outputs of phase one's args (which
     * stay valid until it returns) and frees the executor. */
    fia_status (*run)(void *workspace, uint64_t workspace_size,
                      void *executor);
    /* Frees an executor phase two will not run. */
    void (*destroy)(void *executor);
    /* Why the calling thread's last call failed ("" when it did not). */
    const char *(*last_error)(void);

    /* Optional (NULL when the system has none): run settings a case may
     * name ("kernel_level", "threads", "task_order"), set for the whole
     * process: 0, or -1 when the name is unknown or the value not
     * available here (nothing changed).  get_option returns the current
     * value as set_option takes it back, or NULL for an unknown name. */
    int (*set_option)(const char *name, const char *value);
    const char *(*get_option)(const char *name);
} fia_sut;

/* What a plug-in exports (fiacheck_sut_v1). */
typedef const fia_sut *(*fia_sut_entry_fn)(void);

#endif
