/* The stand-in's objects: what an aclTensor, aclTensorList, aclIntArray and
 * aclOpExecutor are here (fiacheck's plain tensor types around host memory)
 * and the thread's error message that aclGetRecentErrMsg returns. */
#ifndef FIA_STANDIN_INTERNAL_H
#define FIA_STANDIN_INTERNAL_H

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "fia/fast.h"
#include "fia/tensor.h"

#define STANDIN_API __attribute__((visibility("default")))

struct aclTensor {
    uint32_t magic;
    aclDataType acl_dtype;
    fia_tensor t;
};

struct aclTensorList {
    uint32_t magic;
    fia_tensor_list list;
    aclTensor **members;           /* owned, with the tensors */
    const fia_tensor **views;      /* what list.tensors points at */
};

struct aclIntArray {
    uint32_t magic;
    fia_int_array arr;
    int64_t *values;               /* owned copy */
};

struct aclOpExecutor {
    uint32_t magic;
    fast_executor *fast;
};

#define STANDIN_TENSOR_MAGIC 0x54454e53u
#define STANDIN_LIST_MAGIC 0x4c495354u
#define STANDIN_ARRAY_MAGIC 0x41525259u
#define STANDIN_EXECUTOR_MAGIC 0x45584543u

/* The stand-in's own phase one (no CANN header has it; the Python stand-ins
 * call it through ctypes): 002's parameters in 002's order, then 003/004's
 * additions (NULL / 0 when not given; outDtypeOptional NULL for None) and
 * the interface the call came through (fast/'s names: "torch_npu_v2",
 * "mindspore", ...; NULL for aclnn_v2), then the outputs.  The second
 * phase is aclnnFusedInferAttentionScoreV2. */
aclnnStatus fiacheckStandinFusedInferAttentionScoreExtGetWorkspaceSize(
    const aclTensor *query, const aclTensorList *key,
    const aclTensorList *value, const aclTensor *pseShiftOptional,
    const aclTensor *attenMaskOptional,
    const aclIntArray *actualSeqLengthsOptional,
    const aclIntArray *actualSeqLengthsKvOptional,
    const aclTensor *deqScale1Optional, const aclTensor *quantScale1Optional,
    const aclTensor *deqScale2Optional, const aclTensor *quantScale2Optional,
    const aclTensor *quantOffset2Optional,
    const aclTensor *antiquantScaleOptional,
    const aclTensor *antiquantOffsetOptional,
    const aclTensor *blockTableOptional,
    const aclTensor *queryPaddingSizeOptional,
    const aclTensor *kvPaddingSizeOptional,
    const aclTensor *keyAntiquantScaleOptional,
    const aclTensor *keyAntiquantOffsetOptional,
    const aclTensor *valueAntiquantScaleOptional,
    const aclTensor *valueAntiquantOffsetOptional,
    const aclTensor *keySharedPrefixOptional,
    const aclTensor *valueSharedPrefixOptional,
    const aclIntArray *actualSharedPrefixLenOptional, int64_t numHeads,
    double scaleValue, int64_t preTokens, int64_t nextTokens,
    char *inputLayout, int64_t numKeyValueHeads, int64_t sparseMode,
    int64_t innerPrecise, int64_t blockSize, int64_t antiquantMode,
    bool softmaxLseFlag, int64_t keyAntiquantMode, int64_t valueAntiquantMode,
    const aclTensor *queryRopeOptional, const aclTensor *keyRopeOptional,
    const aclTensor *dequantScaleQueryOptional, int64_t queryQuantMode,
    const aclTensor *learnableSinkOptional, const int64_t *outDtypeOptional,
    const char *interfaceName, const aclTensor *attentionOut,
    const aclTensor *softmaxLse, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/* Sets this thread's message (printf-style); NULL fmt clears it. */
void standin_set_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* Why the environment makes the stand-in refuse to run (an unknown
 * FIA_ACLNN_STANDIN_PROFILE, FIA_FAST_ISA or FIA_FAST_THREADS), NULL when
 * it is fine; applies the profile to this thread as a side effect. */
const char *standin_config_error(void);
/* The product FIA_ACLNN_STANDIN_PRODUCT named when standin_config_error
 * last read it on this thread (NULL: Atlas A2 / A3). */
const char *standin_product(void);
/* 1 when p is a live stream token (or NULL, the default stream). */
int standin_stream_valid(aclrtStream p);

#endif
