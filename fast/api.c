/* The public entry of both phases and the thread-local status: phase one
 * is the nullptr layer (002 返回值: query, key, value, attentionOut;
 * RELEASED adds softmax_lse with the lse flag), then the table of checks
 * (validate.c, which documents the layer order), the plan and the
 * executor; phase two checks the run (executor.c) and computes.  The
 * layers below return their status and message (fia_error); only this
 * file records it as the thread's last error (fastLastError). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "validate.h"

/* ---- thread-local status ------------------------------------------------ */
static _Thread_local fia_profile tl_profile = FIA_PROFILE_DOC;
static _Thread_local char tl_error[sizeof ((fia_error *)0)->msg];

void fastSetStatusProfile(fia_profile p) { tl_profile = p; }
fia_profile fastGetStatusProfile(void) { return tl_profile; }
const char *fastLastError(void) { return tl_error; }

/* Records a lower layer's failure as the thread's last error; returns st. */
static fia_status record(fia_status st, const fia_error *err)
{
    snprintf(tl_error, sizeof tl_error, "%s", err->msg);
    return st;
}

/* Layer 1, the nullptrs (002 返回值; RELEASED adds softmax_lse with the
 * flag): the tensors every call needs, the out-parameters, and each
 * member of the key and value lists. */
/* the failure of layer 1, as `return NULLPTR("ID", "why");` */
#define NULLPTR(id, ...) fast_fail(err, FIA_ERR_PARAM_NULLPTR, id, __VA_ARGS__)
static fia_status check_nullptrs(const fia_tensor *query,
                                 const fia_tensor_list *key,
                                 const fia_tensor_list *value,
                                 const fia_tensor *out, bool lse_flag,
                                 const fia_tensor *lse, const uint64_t *ws,
                                 fast_executor *const *executor,
                                 fia_error *err)
{
    if (query == NULL)
        return NULLPTR("N_QUERY", "query is a nullptr");
    if (key == NULL)
        return NULLPTR("N_KEY", "key is a nullptr");
    if (value == NULL)
        return NULLPTR("N_VALUE", "value is a nullptr");
    if (out == NULL)
        return NULLPTR("N_OUT", "attention_out is a nullptr");
    if (lse_flag && lse == NULL)
        return NULLPTR("N_LSE", "softmax_lse is a nullptr with softmax_lse_flag");
    if (ws == NULL || executor == NULL)
        return NULLPTR("N_OUTPARAM", "workspaceSize/executor out-parameter is NULL");
    const fia_tensor_list *lists[2] = {key, value};
    for (int l = 0; l < 2; l++) {
        if (lists[l]->count > FIA_MAX_TENSOR_LIST)
            return fast_fail(err, fast_semantic_code(tl_profile), "S_KV_LIST",
                             "%s list has %d tensors", l ? "value" : "key",
                             (int)lists[l]->count);
        if (lists[l]->count > 0 && lists[l]->tensors == NULL)
            return NULLPTR(l ? "N_VALUE" : "N_KEY", "%s list has no tensors",
                           l ? "value" : "key");
        for (int32_t i = 0; i < lists[l]->count; i++)
            if (lists[l]->tensors[i] == NULL)
                return NULLPTR(l ? "N_VALUE" : "N_KEY", "%s[%d] is a nullptr",
                               l ? "value" : "key", (int)i);
    }
    return FIA_OK;
}
#undef NULLPTR

/* fast_v2_extras.apiName: the interface the call came through (NULL: the
 * C API's own call, aclnn_v2).  A name fast/ does not know is refused as a
 * parameter error (161002 in both profiles, "P_API"), after the nullptrs
 * and before every check of the table: it is the caller's mistake, not a
 * documented rule, and reading it as aclnn_v2 would judge a call meant for
 * another interface by 002's limits, hiding a misspelt name.
 *
 * fast_v2_extras.productName: the device (NULL: the A2 / A3 products of
 * every document).  Refused as apiName is: an unknown name, or 001's
 * inference card through another interface than 001's (no other document
 * lists it, so no other interface's limits are known for it). */
static fia_status read_call_names(const fast_v2_extras *extras, fast_api *api,
                                  fast_product *product, fia_error *err)
{
    const char *api_name = extras ? extras->apiName : NULL;
    if (!fast_api_from_name(api_name, api))
        return fast_fail(err, FIA_ERR_PARAM_INVALID, "P_API",
                         "unknown interface \"%.64s\" in apiName "
                         "(aclnn_v2, torch_npu_v2, mindspore, "
                         "incre_flash_attention, torchair_v2 or NULL)",
                         api_name);
    *product = FAST_PRODUCT_A2;
    const char *product_name = extras ? extras->productName : NULL;
    if (product_name != NULL &&
        strcmp(product_name, "atlas_inference_card") == 0)
        *product = FAST_PRODUCT_INFERENCE_CARD;
    else if (product_name != NULL && strcmp(product_name, "atlas_a2") != 0)
        return fast_fail(err, FIA_ERR_PARAM_INVALID, "P_PRODUCT",
                         "unknown product \"%.64s\" in productName "
                         "(atlas_a2, atlas_inference_card or NULL)",
                         product_name);
    if (*product == FAST_PRODUCT_INFERENCE_CARD && *api != FAST_API_IFA)
        return fast_fail(err, FIA_ERR_PARAM_INVALID, "P_PRODUCT",
                         "the inference card is documented by "
                         "incre_flash_attention (001) only, not by %s",
                         fast_api_label(*api));
    return FIA_OK;
}

/* The V2 call: the extended one without extras. */
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
    uint64_t *workspaceSize, fast_executor **executor)
{
    return fastFusedInferAttentionScoreV2ExtGetWorkspaceSize(
        query, key, value, pseShiftOptional,
        attenMaskOptional, actualSeqLengthsOptional, actualSeqLengthsKvOptional, deqScale1Optional,
        quantScale1Optional, deqScale2Optional, quantScale2Optional, quantOffset2Optional,
        antiquantScaleOptional, antiquantOffsetOptional, blockTableOptional, queryPaddingSizeOptional,
        kvPaddingSizeOptional, keyAntiquantScaleOptional, keyAntiquantOffsetOptional, valueAntiquantScaleOptional,
        valueAntiquantOffsetOptional, keySharedPrefixOptional, valueSharedPrefixOptional, actualSharedPrefixLenOptional,
        numHeads, scaleValue, preTokens, nextTokens,
        inputLayout, numKeyValueHeads, sparseMode, innerPrecise,
        blockSize, antiquantMode, softmaxLseFlag, keyAntiquantMode,
        valueAntiquantMode, NULL, attentionOut, softmaxLse,
        workspaceSize, executor);
}

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
    const fia_tensor *softmaxLse,
    uint64_t *workspaceSize, fast_executor **executor)
{
    /* blockSize only matters with a block_table, which alone enables page
     * attention (002 约束说明; check_paged.c).  The antiquant modes:
     * check_antiquant.c. */
    fia_error err;
    fia_error_clear(&err);
    tl_error[0] = '\0';
    if (workspaceSize)
        *workspaceSize = 0;
    if (executor)
        *executor = NULL;

    fia_status st = check_nullptrs(query, key, value, attentionOut,
                                   softmaxLseFlag, softmaxLse, workspaceSize,
                                   executor, &err);
    fast_api api = FAST_API_ACLNN_V2;
    fast_product product = FAST_PRODUCT_A2;
    if (st == FIA_OK)
        st = read_call_names(extras, &api, &product, &err);
    if (st != FIA_OK)
        return record(st, &err);

    fast_args a = {
        .profile = tl_profile, .api = api, .product = product,
        .query = query, .key = key, .value = value,
        .pse = pseShiftOptional, .mask = attenMaskOptional,
        .asl = actualSeqLengthsOptional, .aslkv = actualSeqLengthsKvOptional,
        .opt = {
            [FAST_OPT_DEQUANT_SCALE1] = deqScale1Optional,
            [FAST_OPT_QUANT_SCALE1] = quantScale1Optional,
            [FAST_OPT_DEQUANT_SCALE2] = deqScale2Optional,
            [FAST_OPT_QUANT_SCALE2] = quantScale2Optional,
            [FAST_OPT_QUANT_OFFSET2] = quantOffset2Optional,
            [FAST_OPT_ANTIQUANT_SCALE] = antiquantScaleOptional,
            [FAST_OPT_ANTIQUANT_OFFSET] = antiquantOffsetOptional,
            [FAST_OPT_BLOCK_TABLE] = blockTableOptional,
            [FAST_OPT_QUERY_PADDING_SIZE] = queryPaddingSizeOptional,
            [FAST_OPT_KV_PADDING_SIZE] = kvPaddingSizeOptional,
            [FAST_OPT_KEY_ANTIQUANT_SCALE] = keyAntiquantScaleOptional,
            [FAST_OPT_KEY_ANTIQUANT_OFFSET] = keyAntiquantOffsetOptional,
            [FAST_OPT_VALUE_ANTIQUANT_SCALE] = valueAntiquantScaleOptional,
            [FAST_OPT_VALUE_ANTIQUANT_OFFSET] = valueAntiquantOffsetOptional,
            [FAST_OPT_KEY_SHARED_PREFIX] = keySharedPrefixOptional,
            [FAST_OPT_VALUE_SHARED_PREFIX] = valueSharedPrefixOptional,
            [FAST_OPT_QUERY_ROPE] = extras ? extras->queryRopeOptional : NULL,
            [FAST_OPT_KEY_ROPE] = extras ? extras->keyRopeOptional : NULL,
            [FAST_OPT_DEQUANT_SCALE_QUERY] =
                extras ? extras->dequantScaleQueryOptional : NULL,
            [FAST_OPT_LEARNABLE_SINK] =
                extras ? extras->learnableSinkOptional : NULL,
        },
        .prefix_len = actualSharedPrefixLenOptional, .num_heads = numHeads,
        .scale = scaleValue, .pre = preTokens, .next = nextTokens,
        .layout = inputLayout, .num_kv_heads = numKeyValueHeads,
        .sparse_mode = sparseMode, .inner_precise = innerPrecise,
        .block_size = blockSize,
        .antiquant_mode = antiquantMode,
        .key_antiquant_mode = keyAntiquantMode,
        .value_antiquant_mode = valueAntiquantMode,
        .query_quant_mode = extras ? extras->queryQuantMode : 0,
        .out_dtype = extras ? extras->outDtypeOptional : NULL,
        .lse_flag = softmaxLseFlag, .out = attentionOut, .lse = softmaxLse,
    };

    fast_plan p;
    memset(&p, 0, sizeof p);
    st = fast_validate(&a, &p, &err); /* layers 2-4 */
    if (st != FIA_OK)
        return record(st, &err);
    /* (a call that reads no key under cann's early return computes
     * nothing: no strides, no schedule, no workspace) */
    if (!p.empty && !p.kv_return)
        fast_plan_finish(&p); /* strides, schedule, workspace size */
    fast_executor *ex = NULL;
    /* Q_S = 1 ignores actual_seq_lengths, but a token layout's counts are
     * its batches, and with rope (MLA) the array is read (RELEASED: the
     * decode normalisation is for calls without rope) */
    st = fast_executor_create(&p, p.Q_S > 1 || p.tnd.on || p.rope.D > 0
                                      ? actualSeqLengthsOptional
                                                      : NULL,
                              actualSeqLengthsKvOptional, &ex, &err);
    if (st != FIA_OK)
        return record(st, &err);
    *workspaceSize = p.sched.workspace_size;
    *executor = ex;
    return FIA_OK;
}

/* Phase two.  The executor is consumed on every path (also on errors), as
 * aclnn does: the caller never frees it after this call. */
fia_status fastFusedInferAttentionScoreV2(void *workspace,
                                          uint64_t workspaceSize,
                                          fast_executor *executor,
                                          void *stream)
{
    (void)stream;
    tl_error[0] = '\0';
    fia_error err;
    fia_error_clear(&err);
    fia_status st = fast_executor_check_run(executor, workspace,
                                            workspaceSize, &err);
    if (executor == NULL)
        return record(st, &err);
    fast_plan *p = &executor->plan;
    if (st == FIA_OK)
        st = fast_padding_apply(p, &err); /* device data: the paddings */
    if (st != FIA_OK)
        record(st, &err);
    else if (p->kv_return)
        fast_store_kv_return(p); /* check_order.c: zeros, lse +inf */
    else if (!p->empty) {
        fast_int8_quant_apply(p); /* device data: full quantization's scales */
        uintptr_t w = ((uintptr_t)workspace + 63u) & ~(uintptr_t)63u;
        fast_attention_run(p, (void *)w);
    }
    fastExecutorDestroy(executor);
    return st;
}
