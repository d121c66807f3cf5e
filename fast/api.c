/* The public entry of phase one and the thread-local status: the nullptr
 * layer (002 返回值: query, key, value, attentionOut; RELEASED adds
 * softmax_lse with the lse flag), then validate.c's layers, then the plan
 * and the executor.  See validate.c for the layer order. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "fast_internal.h"

/* ---- thread-local status ------------------------------------------------ */
static _Thread_local fia_profile tl_profile = FIA_PROFILE_DOC;
static _Thread_local char tl_error[512];

void fastSetStatusProfile(fia_profile p) { tl_profile = p; }
fia_profile fastGetStatusProfile(void) { return tl_profile; }
const char *fastLastError(void) { return tl_error; }
void fast_clear_error(void) { tl_error[0] = '\0'; }

fia_status fast_semantic_code(void)
{
    return tl_profile == FIA_PROFILE_CANN ? FIA_ERR_INNER_TILING_ERROR
                                          : FIA_ERR_PARAM_INVALID;
}

fia_status fast_fail(fia_status st, const char *check, const char *fmt, ...)
{
    int n = snprintf(tl_error, sizeof tl_error, "%s: ", check);
    if (n < 0 || (size_t)n >= sizeof tl_error)
        return st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tl_error + n, sizeof tl_error - (size_t)n, fmt, ap);
    va_end(ap);
    return st;
}

#define NULLPTR(id, ...) return fast_fail(FIA_ERR_PARAM_NULLPTR, id, __VA_ARGS__)

static int64_t clamp_i32(int64_t x)
{
    return x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : x;
}

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
    /* blockSize and the antiquant modes only matter with page attention /
     * antiquantization, which are refused as not modeled (layer 3); the
     * documents give them no interception of their own ("执行异常"). */
    (void)blockSize;
    (void)antiquantMode;
    (void)keyAntiquantMode;
    (void)valueAntiquantMode;
    fast_clear_error();
    if (workspaceSize)
        *workspaceSize = 0;
    if (executor)
        *executor = NULL;

    /* Layer 1: nullptrs (002 返回值; RELEASED adds softmax_lse with flag). */
    if (query == NULL)
        NULLPTR("N_QUERY", "query is a nullptr");
    if (key == NULL)
        NULLPTR("N_KEY", "key is a nullptr");
    if (value == NULL)
        NULLPTR("N_VALUE", "value is a nullptr");
    if (attentionOut == NULL)
        NULLPTR("N_OUT", "attention_out is a nullptr");
    if (softmaxLseFlag && softmaxLse == NULL)
        NULLPTR("N_LSE", "softmax_lse is a nullptr with softmax_lse_flag");
    if (workspaceSize == NULL || executor == NULL)
        NULLPTR("N_OUTPARAM", "workspaceSize/executor out-parameter is NULL");
    const fia_tensor_list *lists[2] = {key, value};
    for (int l = 0; l < 2; l++) {
        if (lists[l]->count > FIA_MAX_TENSOR_LIST)
            return fast_fail(fast_semantic_code(), "S_KV_LIST",
                             "%s list has %d tensors", l ? "value" : "key",
                             (int)lists[l]->count);
        if (lists[l]->count > 0 && lists[l]->tensors == NULL)
            NULLPTR(l ? "N_VALUE" : "N_KEY", "%s list has no tensors",
                    l ? "value" : "key");
        for (int32_t i = 0; i < lists[l]->count; i++)
            if (lists[l]->tensors[i] == NULL)
                NULLPTR(l ? "N_VALUE" : "N_KEY", "%s[%d] is a nullptr",
                        l ? "value" : "key", (int)i);
    }

    fast_args a = {
        .query = query, .key = key, .value = value, .pse = pseShiftOptional,
        .mask = attenMaskOptional, .asl = actualSeqLengthsOptional,
        .aslkv = actualSeqLengthsKvOptional,
        .opt = {deqScale1Optional, quantScale1Optional, deqScale2Optional,
                quantScale2Optional, quantOffset2Optional,
                antiquantScaleOptional, antiquantOffsetOptional,
                blockTableOptional, queryPaddingSizeOptional,
                kvPaddingSizeOptional, keyAntiquantScaleOptional,
                keyAntiquantOffsetOptional, valueAntiquantScaleOptional,
                valueAntiquantOffsetOptional, keySharedPrefixOptional,
                valueSharedPrefixOptional},
        .opt_name = {"dequant_scale1", "quant_scale1", "dequant_scale2",
                     "quant_scale2", "quant_offset2", "antiquant_scale",
                     "antiquant_offset", "block_table", "query_padding_size",
                     "kv_padding_size", "key_antiquant_scale",
                     "key_antiquant_offset", "value_antiquant_scale",
                     "value_antiquant_offset", "key_shared_prefix",
                     "value_shared_prefix"},
        .prefix_len = actualSharedPrefixLenOptional, .num_heads = numHeads,
        .scale = scaleValue, .pre = preTokens, .next = nextTokens,
        .layout = inputLayout, .num_kv_heads = numKeyValueHeads,
        .sparse_mode = sparseMode, .inner_precise = innerPrecise,
        .lse_flag = softmaxLseFlag, .out = attentionOut, .lse = softmaxLse,
    };

    fast_plan p;
    memset(&p, 0, sizeof p);
    fia_status st = fast_validate(&a, &p); /* layers 2-4 */
    if (st != FIA_OK)
        return st;

    if (!p.empty) {
        /* RELEASED: scale is never validated; applied in float32. */
        p.scale = (float)scaleValue;
        p.row_invalid = (p.inner_precise & 2) != 0;
        /* 002 innerPrecise: bf16 has no high-precision mode; RELEASED: P is
         * rounded to the input dtype before P.V. */
        p.round_p = p.dt == FIA_DT_BF16 || (p.inner_precise & 1) != 0;
        p.pre = p.Q_S > 1 ? clamp_i32(preTokens) : INT32_MAX;
        p.next = p.Q_S > 1 ? clamp_i32(nextTokens) : INT32_MAX;
        p.q = query->data;
        p.k = key->tensors[0]->data;
        p.v = value->tensors[0]->data;
        p.out = attentionOut->data;
        fast_plan_finish(&p);
    }
    fast_executor *ex = NULL;
    st = fast_executor_create(&p, p.Q_S > 1 ? actualSeqLengthsOptional : NULL,
                              actualSeqLengthsKvOptional, &ex);
    if (st != FIA_OK)
        return st;
    *workspaceSize = p.workspace_size;
    *executor = ex;
    return FIA_OK;
}
