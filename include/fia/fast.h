/* fast/: the system under test.  A CPU implementation of
 * FusedInferAttentionScoreV2 behind the documented two-phase API (002,
 * "算子执行接口"): the same parameters in the same order, with fiacheck's
 * tensor types in place of aclTensor / aclTensorList / aclIntArray.
 *
 * Phase one validates (imperatively, like the kernel) and plans; it never
 * reads tensor data except the host int arrays, and never allocates more than
 * the executor itself, so an absurd shape is rejected cheaply.  Phase two
 * computes.  fast/ shares no validation or arithmetic with oracle/ or ref/. */
#ifndef FIA_FAST_H
#define FIA_FAST_H

#include <stdbool.h>
#include <stdint.h>
#include "fia/status.h"
#include "fia/tensor.h"

typedef struct fast_executor fast_executor;

/* Which status codes fast/ returns for a semantic rejection: the documented
 * 161002 (DOC, default) or the released code's 561002 (CANN).  Per thread. */
void fastSetStatusProfile(fia_profile p);
fia_profile fastGetStatusProfile(void);

/* A human-readable reason for the last non-OK status on this thread. */
const char *fastLastError(void);

/* What a run's numbers depend on besides its inputs, for reproduction.
 * The micro-kernel level in use: "scalar", "avx2" or "avx512" (the best the
 * CPU has, unless FIA_FAST_ISA or fastForceKernelLevel chose one). */
const char *fastKernelLevel(void);
/* Forces a level by name for the whole process, "auto" for the automatic
 * choice again; returns 0, or -1 (nothing changed) when the name is unknown
 * or this CPU or build lacks the level. */
int fastForceKernelLevel(const char *name);
/* 1 when this CPU and build have the level ("scalar", "avx2", "avx512"). */
int fastKernelLevelAvailable(const char *name);
/* The threads a run uses (FIA_FAST_THREADS, 1..16, default 2): decode
 * splits the keys by thread, so the result depends on it. */
int fastThreadCount(void);
/* Sets the threads of the runs planned from now on for the whole process
 * (1..16; 0 gives FIA_FAST_THREADS / the default back); 0, or -1 when out
 * of range (nothing changed). */
int fastSetThreadCount(int n);
/* Testing aid for order-dependent bugs: with a seed other than 0, the runs
 * planned from now on (for the whole process) run all their tasks on one
 * thread, one after another in an order that seed picks, though planned
 * (decode splits, workspace) for fastThreadCount() threads -- so a bug that
 * shows only when one task follows another on the same thread shows every
 * time.  0 gives the threads back.  fastTaskOrder() reads it. */
void fastSetTaskOrder(unsigned long long seed);
unsigned long long fastTaskOrder(void);

/* Where fast/'s paths change, for generators that must reach each of them
 * (fast/schedule.c, fast/attention.c):
 *   key_block       keys per inner step; rows with more keys take several
 *                   blocks and a ragged tail when not a multiple
 *   d_tile          D is padded to a multiple of it (micro-kernel tiles)
 *   dot_max_rows    a task of at most this many query rows (heads x rows)
 *                   uses the dot-form Q.K^T; more: the register-tiled form
 *                   with K/V widened once per run
 *   rows_per_task   target query rows of one task; more rows of one KV
 *                   head are cut into several blocks
 *   split_min_keys  decode (Q_S = 1) with at least this many keys and more
 *                   than one thread splits the keys across threads and
 *                   merges the partial results
 *   kvpre_rows      rows of one K/V widening chunk
 *   max_threads     the largest thread count */
typedef struct fast_path_thresholds {
    int key_block, d_tile, dot_max_rows, rows_per_task, split_min_keys,
        kvpre_rows, max_threads;
} fast_path_thresholds;
void fastPathThresholds(fast_path_thresholds *t);
/* NULL when FIA_FAST_ISA and FIA_FAST_THREADS are unset or valid (a level
 * name in any case or "auto"; a whole number in 1..16); otherwise what is
 * wrong, naming the variable and its valid values.  fast/ then runs with
 * the automatic level / 2 threads; a caller that promises the user's
 * settings stops instead. */
const char *fastConfigError(void);

fia_status fastFusedInferAttentionScoreV2GetWorkspaceSize(
    const fia_tensor *query, const fia_tensor_list *key,
    const fia_tensor_list *value, const fia_tensor *pseShiftOptional,
    const fia_tensor *attenMaskOptional,
    const fia_int_array *actualSeqLengthsOptional,
    const fia_int_array *actualSeqLengthsKvOptional,
    const fia_tensor *deqScale1Optional, const fia_tensor *quantScale1Optional,
    const fia_tensor *deqScale2Optional, const fia_tensor *quantScale2Optional,
    const fia_tensor *quantOffset2Optional,
    const fia_tensor *antiquantScaleOptional,
    const fia_tensor *antiquantOffsetOptional,
    const fia_tensor *blockTableOptional,
    const fia_tensor *queryPaddingSizeOptional,
    const fia_tensor *kvPaddingSizeOptional,
    const fia_tensor *keyAntiquantScaleOptional,
    const fia_tensor *keyAntiquantOffsetOptional,
    const fia_tensor *valueAntiquantScaleOptional,
    const fia_tensor *valueAntiquantOffsetOptional,
    const fia_tensor *keySharedPrefixOptional,
    const fia_tensor *valueSharedPrefixOptional,
    const fia_int_array *actualSharedPrefixLenOptional, int64_t numHeads,
    double scaleValue, int64_t preTokens, int64_t nextTokens,
    const char *inputLayout, int64_t numKeyValueHeads, int64_t sparseMode,
    int64_t innerPrecise, int64_t blockSize, int64_t antiquantMode,
    bool softmaxLseFlag, int64_t keyAntiquantMode, int64_t valueAntiquantMode,
    const fia_tensor *attentionOut, const fia_tensor *softmaxLse,
    uint64_t *workspaceSize, fast_executor **executor);

/* What the newer interfaces add to the V2 call (003
 * npu_fused_infer_attention_score_v2, 004 its TorchAir form), in 003's
 * names: the MLA rope inputs (query_rope, key_rope), the query's
 * quantization (dequant_scale_query, query_quant_mode), and 004's
 * learnable_sink.  A zeroed struct
 * (or NULL) is the plain V2 call. */
typedef struct fast_v2_extras {
    const fia_tensor *queryRopeOptional;
    const fia_tensor *keyRopeOptional;
    const fia_tensor *dequantScaleQueryOptional;
    int64_t queryQuantMode;
    const fia_tensor *learnableSinkOptional;   /* 004 */
    const int64_t *outDtypeOptional;           /* 004's int? out_dtype:
                                                  NULL for None */
    /* The interface the call came through ("aclnn_v2", "torch_npu_v2",
     * "mindspore", "incre_flash_attention", "torchair_v2"; NULL: aclnn_v2):
     * some documented limits are the interface's own. */
    const char *apiName;
    /* The device ("atlas_a2", NULL alike, or "atlas_inference_card", which
     * 001 alone documents): the inference card's dtypes and limits are
     * narrower. */
    const char *productName;
} fast_v2_extras;

/* The V2 phase one with the extras: the same parameters in the same order,
 * extras before the outputs.  fastFusedInferAttentionScoreV2 runs its
 * executor. */
fia_status fastFusedInferAttentionScoreV2ExtGetWorkspaceSize(
    const fia_tensor *query, const fia_tensor_list *key,
    const fia_tensor_list *value, const fia_tensor *pseShiftOptional,
    const fia_tensor *attenMaskOptional,
    const fia_int_array *actualSeqLengthsOptional,
    const fia_int_array *actualSeqLengthsKvOptional,
    const fia_tensor *deqScale1Optional, const fia_tensor *quantScale1Optional,
    const fia_tensor *deqScale2Optional, const fia_tensor *quantScale2Optional,
    const fia_tensor *quantOffset2Optional,
    const fia_tensor *antiquantScaleOptional,
    const fia_tensor *antiquantOffsetOptional,
    const fia_tensor *blockTableOptional,
    const fia_tensor *queryPaddingSizeOptional,
    const fia_tensor *kvPaddingSizeOptional,
    const fia_tensor *keyAntiquantScaleOptional,
    const fia_tensor *keyAntiquantOffsetOptional,
    const fia_tensor *valueAntiquantScaleOptional,
    const fia_tensor *valueAntiquantOffsetOptional,
    const fia_tensor *keySharedPrefixOptional,
    const fia_tensor *valueSharedPrefixOptional,
    const fia_int_array *actualSharedPrefixLenOptional, int64_t numHeads,
    double scaleValue, int64_t preTokens, int64_t nextTokens,
    const char *inputLayout, int64_t numKeyValueHeads, int64_t sparseMode,
    int64_t innerPrecise, int64_t blockSize, int64_t antiquantMode,
    bool softmaxLseFlag, int64_t keyAntiquantMode, int64_t valueAntiquantMode,
    const fast_v2_extras *extras, const fia_tensor *attentionOut,
    const fia_tensor *softmaxLse, uint64_t *workspaceSize,
    fast_executor **executor);

/* Runs and frees the executor (as aclnn does).  stream is unused (NULL). */
fia_status fastFusedInferAttentionScoreV2(void *workspace,
                                          uint64_t workspaceSize,
                                          fast_executor *executor,
                                          void *stream);

/* Frees an executor that will not be run (e.g. status-only checks). */
void fastExecutorDestroy(fast_executor *executor);

#endif
