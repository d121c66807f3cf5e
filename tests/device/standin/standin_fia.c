/* The two phases of 002 computed by fast/: the aclnn objects are unwrapped
 * into fiacheck's plain types and handed to fast/ in 002's order, so the
 * stand-in validates exactly as fast/ does and answers with fast/'s status
 * (the documented aclnn codes) and fast/'s message.  What fast/ cannot see
 * through that door -- a tensor with no device memory behind it -- the
 * stand-in refuses as the device would fail: a runtime error.
 *
 * The Python stand-ins of torch_npu, TorchAir and MindSpore come in through
 * the stand-in's own entry point below, which also carries what those
 * interfaces add to 002's call (003/004's inputs) and which interface the
 * call came through, since some documented limits are an interface's own;
 * a device imposes those in its interface layer. */
#include <stdlib.h>
#include "aclnnop/aclnn_fused_infer_attention_score_v2.h"
#include "standin_internal.h"

static const fia_tensor *tv(const aclTensor *t) { return t ? &t->t : NULL; }
static const fia_tensor_list *lv(const aclTensorList *l)
{
    return l ? &l->list : NULL;
}
static const fia_int_array *av(const aclIntArray *a)
{
    return a ? &a->arr : NULL;
}

static int has_memory(const fia_tensor *t)
{
    if (!t)
        return 1;
    int64_t n = fia_tensor_numel(t);
    return n <= 0 || t->data != NULL;
}

STANDIN_API aclnnStatus fiacheckStandinFusedInferAttentionScoreExtGetWorkspaceSize(
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
    aclOpExecutor **executor)
{
    standin_set_error(NULL);
    const char *why = standin_config_error();
    if (why) {
        standin_set_error("%s", why);
        return FIA_ERR_BAD_INPUT;
    }
    if (!workspaceSize || !executor) {
        standin_set_error("workspaceSize and executor must not be nullptr");
        return FIA_ERR_PARAM_NULLPTR;
    }
    aclOpExecutor *ex = calloc(1, sizeof *ex);
    if (!ex) {
        standin_set_error("out of memory");
        return FIA_ERR_NOMEM;
    }
    const fast_v2_extras extras = {
        .queryRopeOptional = tv(queryRopeOptional),
        .keyRopeOptional = tv(keyRopeOptional),
        .dequantScaleQueryOptional = tv(dequantScaleQueryOptional),
        .queryQuantMode = queryQuantMode,
        .learnableSinkOptional = tv(learnableSinkOptional),
        .outDtypeOptional = outDtypeOptional,
        .apiName = interfaceName,
        .productName = standin_product(),
    };
    fia_status st = fastFusedInferAttentionScoreV2ExtGetWorkspaceSize(
        tv(query), lv(key), lv(value), tv(pseShiftOptional),
        tv(attenMaskOptional), av(actualSeqLengthsOptional),
        av(actualSeqLengthsKvOptional), tv(deqScale1Optional),
        tv(quantScale1Optional), tv(deqScale2Optional),
        tv(quantScale2Optional), tv(quantOffset2Optional),
        tv(antiquantScaleOptional), tv(antiquantOffsetOptional),
        tv(blockTableOptional), tv(queryPaddingSizeOptional),
        tv(kvPaddingSizeOptional), tv(keyAntiquantScaleOptional),
        tv(keyAntiquantOffsetOptional), tv(valueAntiquantScaleOptional),
        tv(valueAntiquantOffsetOptional), tv(keySharedPrefixOptional),
        tv(valueSharedPrefixOptional), av(actualSharedPrefixLenOptional),
        numHeads, scaleValue, preTokens, nextTokens, inputLayout,
        numKeyValueHeads, sparseMode, innerPrecise, blockSize, antiquantMode,
        softmaxLseFlag, keyAntiquantMode, valueAntiquantMode, &extras,
        tv(attentionOut), tv(softmaxLse), workspaceSize, &ex->fast);
    if (st != FIA_OK) {
        const char *msg = fastLastError();
        standin_set_error("%s", msg && *msg ? msg : fia_status_name(st));
        free(ex);
        return st;
    }
    const aclTensor *all[] = {
        query, pseShiftOptional, attenMaskOptional, deqScale1Optional,
        quantScale1Optional, deqScale2Optional, quantScale2Optional,
        quantOffset2Optional, antiquantScaleOptional, antiquantOffsetOptional,
        blockTableOptional, queryPaddingSizeOptional, kvPaddingSizeOptional,
        keyAntiquantScaleOptional, keyAntiquantOffsetOptional,
        valueAntiquantScaleOptional, valueAntiquantOffsetOptional,
        keySharedPrefixOptional, valueSharedPrefixOptional,
        queryRopeOptional, keyRopeOptional, dequantScaleQueryOptional,
        learnableSinkOptional, attentionOut, softmaxLse};
    int ok = 1;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ok &= has_memory(tv(all[i]));
    for (int32_t i = 0; key && i < key->list.count; i++)
        ok &= has_memory(key->list.tensors[i]);
    for (int32_t i = 0; value && i < value->list.count; i++)
        ok &= has_memory(value->list.tensors[i]);
    if (!ok) {
        fastExecutorDestroy(ex->fast);
        free(ex);
        standin_set_error("a tensor of the call has elements but no device "
                          "memory (tensorData nullptr)");
        return FIA_ERR_RUNTIME_ERROR;
    }
    ex->magic = STANDIN_EXECUTOR_MAGIC;
    *executor = ex;
    return FIA_OK;
}

STANDIN_API aclnnStatus aclnnFusedInferAttentionScoreV2GetWorkspaceSize(
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
    const aclTensor *attentionOut, const aclTensor *softmaxLse,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    /* 002's call: none of the newer inputs, through aclnn itself */
    return fiacheckStandinFusedInferAttentionScoreExtGetWorkspaceSize(
        query, key, value, pseShiftOptional, attenMaskOptional,
        actualSeqLengthsOptional, actualSeqLengthsKvOptional,
        deqScale1Optional, quantScale1Optional, deqScale2Optional,
        quantScale2Optional, quantOffset2Optional, antiquantScaleOptional,
        antiquantOffsetOptional, blockTableOptional, queryPaddingSizeOptional,
        kvPaddingSizeOptional, keyAntiquantScaleOptional,
        keyAntiquantOffsetOptional, valueAntiquantScaleOptional,
        valueAntiquantOffsetOptional, keySharedPrefixOptional,
        valueSharedPrefixOptional, actualSharedPrefixLenOptional, numHeads,
        scaleValue, preTokens, nextTokens, inputLayout, numKeyValueHeads,
        sparseMode, innerPrecise, blockSize, antiquantMode, softmaxLseFlag,
        keyAntiquantMode, valueAntiquantMode,
        NULL, NULL, NULL, 0, NULL, NULL, NULL, attentionOut, softmaxLse,
        workspaceSize, executor);
}

STANDIN_API aclnnStatus aclnnFusedInferAttentionScoreV2(
    void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
    const aclrtStream stream)
{
    standin_set_error(NULL);
    if (!executor || executor->magic != STANDIN_EXECUTOR_MAGIC) {
        standin_set_error("executor is not one phase one returned");
        return FIA_ERR_PARAM_NULLPTR;
    }
    if (!standin_stream_valid(stream)) {
        standin_set_error("stream is not one aclrtCreateStream returned");
        return FIA_ERR_RUNTIME_ERROR;
    }
    fast_executor *fe = executor->fast;
    executor->magic = 0;
    free(executor);
    fia_status st = fastFusedInferAttentionScoreV2(workspace, workspaceSize,
                                                   fe, NULL);
    if (st != FIA_OK) {
        const char *msg = fastLastError();
        standin_set_error("%s", msg && *msg ? msg : fia_status_name(st));
    }
    return st;
}
