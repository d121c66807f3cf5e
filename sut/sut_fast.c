/* fast/ as a system under test: the table (fia/sut.h) through which the
 * harness calls the built-in kernel, and which plugins/fast/ exports as a
 * plug-in, so that the plug-in path is tested on the real kernel.  It only
 * translates: the args struct into fast/'s 40-odd parameters, the run
 * settings into fast/'s setters. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fia/fast.h"
#include "fia/sut.h"
#include "fia/sut_host.h"

#ifndef FIA_SUT_FAST_VERSION
#define FIA_SUT_FAST_VERSION ""
#endif

static fia_status fast_prepare(const fia_sut_args *a, uint64_t *ws_size,
                               void **executor)
{
    fast_executor *ex = NULL;
    const fast_v2_extras extras = {
        .queryRopeOptional = a->query_rope,
        .keyRopeOptional = a->key_rope,
        .dequantScaleQueryOptional = a->dequant_scale_query,
        .queryQuantMode = a->query_quant_mode,
        .learnableSinkOptional = a->learnable_sink,
        .apiName = a->api,
        .outDtypeOptional = a->out_dtype,
        /* ABI 1.1; a 1.0 host's args end before it */
        .productName = a->size >= offsetof(fia_sut_args, product) +
                                      sizeof a->product
                           ? a->product
                           : NULL,
    };
    *executor = NULL;
    fastSetStatusProfile(a->profile);
    fia_status st = fastFusedInferAttentionScoreV2ExtGetWorkspaceSize(
        a->query, a->key, a->value, a->pse_shift, a->atten_mask,
        a->actual_seq_lengths, a->actual_seq_lengths_kv, a->dequant_scale1,
        a->quant_scale1, a->dequant_scale2, a->quant_scale2,
        a->quant_offset2, a->antiquant_scale, a->antiquant_offset,
        a->block_table, a->query_padding_size, a->kv_padding_size,
        a->key_antiquant_scale, a->key_antiquant_offset,
        a->value_antiquant_scale, a->value_antiquant_offset,
        a->key_shared_prefix, a->value_shared_prefix,
        a->actual_shared_prefix_len, a->num_heads, a->scale, a->pre_tokens,
        a->next_tokens, a->input_layout, a->num_key_value_heads,
        a->sparse_mode, a->inner_precise, a->block_size, a->antiquant_mode,
        a->softmax_lse_flag, a->key_antiquant_mode, a->value_antiquant_mode,
        &extras, a->attention_out, a->softmax_lse, ws_size, &ex);
    if (st == FIA_OK)
        *executor = ex;
    return st;
}

static fia_status fast_run(void *ws, uint64_t ws_size, void *executor)
{
    return fastFusedInferAttentionScoreV2(ws, ws_size,
                                          (fast_executor *)executor, NULL);
}

static void fast_destroy(void *executor)
{
    fastExecutorDestroy((fast_executor *)executor);
}

/* "threads": 1..16, or 0 for FIA_FAST_THREADS / the default.
 * "task_order": a seed, 0 for the threads as they come. */
static int parse_int(const char *v, long long lo, long long hi,
                     unsigned long long *out)
{
    char *end;
    if (v == NULL || *v == '\0' || *v == '-')
        return -1;
    unsigned long long n = strtoull(v, &end, 10);
    if (*end != '\0' || (long long)n < lo || (hi >= 0 && n > (unsigned long long)hi))
        return -1;
    *out = n;
    return 0;
}

static int fast_set_option(const char *name, const char *value)
{
    unsigned long long n;
    if (strcmp(name, "kernel_level") == 0)
        return fastForceKernelLevel(value);
    if (strcmp(name, "threads") == 0)
        return parse_int(value, 0, 16, &n) != 0 ? -1
                                                : fastSetThreadCount((int)n);
    if (strcmp(name, "task_order") == 0) {
        if (parse_int(value, 0, -1, &n) != 0)
            return -1;
        fastSetTaskOrder(n);
        return 0;
    }
    return -1;
}

static const char *fast_get_option(const char *name)
{
    static _Thread_local char buf[32];
    if (strcmp(name, "kernel_level") == 0)
        return fastKernelLevel();
    if (strcmp(name, "threads") == 0) {
        snprintf(buf, sizeof buf, "%d", fastThreadCount());
        return buf;
    }
    if (strcmp(name, "task_order") == 0) {
        snprintf(buf, sizeof buf, "%llu", fastTaskOrder());
        return buf;
    }
    return NULL;
}

static fia_sut table = {
    .abi_version = FIA_SUT_ABI_VERSION,
    .name = "fast",
    .version = FIA_SUT_FAST_VERSION,
    .validates = FIA_SUT_CHECKS_STATUS,
    .get_workspace_size = fast_prepare,
    .run = fast_run,
    .destroy = fast_destroy,
    .last_error = fastLastError,
    .set_option = fast_set_option,
    .get_option = fast_get_option,
};

const fia_sut *fia_sut_builtin(void)
{
    return &table;
}

void fia_sut_builtin_set_version(const char *version)
{
    table.version = version != NULL ? version : "";
}
