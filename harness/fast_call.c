/* The one place where the tool calls fast/: a case becomes the 40-odd
 * arguments of fastFusedInferAttentionScoreV2ExtGetWorkspaceSize (the V2
 * call with 003's extras). */
#include <stdlib.h>
#include "fia/check.h"
#include "fia/fast.h"

static const fia_tensor *slot(const fia_case_data *d, fia_slot s)
{
    return d->t[s];
}

static const fia_int_array *array(const fia_case_data *d, fia_array a)
{
    return d->arr_present[a] ? &d->arr[a] : NULL;
}

/* The case's threads and kernel level for this call only: the previous
 * settings are kept in *saved_level / *saved_threads for restore_run.
 * FIA_ERR_BAD_INPUT when this CPU or build lacks the level. */
static fia_status apply_run(const fia_case *c, const char **saved_level,
                            int *saved_threads, fia_error *err)
{
    *saved_level = NULL;
    *saved_threads = -1;
    if (c->kernel_level != FIA_KL_DEFAULT) {
        const char *want = fia_kernel_level_name(c->kernel_level);
        const char *now = fastKernelLevel();
        if (fastForceKernelLevel(want) != 0)
            return fia_fail(err, FIA_ERR_BAD_INPUT, "kernel_level = %s: this "
                            "CPU or build lacks it (it has up to %s)", want,
                            now);
        *saved_level = now;
    }
    if (c->threads > 0) {
        *saved_threads = fastThreadCount();
        fastSetThreadCount(c->threads);
    }
    fastSetTaskOrder(c->task_order); /* 0: the threads as they come */
    return FIA_OK;
}

/* Back to the settings before apply_run: the level that was in use (the
 * names are fast/'s static strings) and the threads (0: the default). */
static void restore_run(const char *saved_level, int saved_threads)
{
    if (saved_level != NULL)
        fastForceKernelLevel(saved_level);
    if (saved_threads >= 0)
        fastSetThreadCount(0);
    fastSetTaskOrder(0);
}

static fia_status call_fast(const fia_case *c, const fia_case_data *d,
                            fia_profile profile, int compute, fia_error *err);

fia_status fia_call_fast(const fia_case *c, const fia_case_data *d,
                         fia_profile profile, int compute, fia_error *err)
{
    const char *level;
    int threads;
    fia_error_clear(err);
    fia_status st = apply_run(c, &level, &threads, err);
    if (st != FIA_OK)
        return st;
    st = call_fast(c, d, profile, compute, err);
    restore_run(level, threads);
    return st;
}

static fia_status call_fast(const fia_case *c, const fia_case_data *d,
                            fia_profile profile, int compute, fia_error *err)
{
    const fia_attrs *a = &c->attrs;
    uint64_t ws_size = 0;
    fast_executor *ex = NULL;
    fia_error_clear(err);
    fastSetStatusProfile(profile);
    const fast_v2_extras extras = {
        .queryRopeOptional = slot(d, FIA_SLOT_QUERY_ROPE),
        .keyRopeOptional = slot(d, FIA_SLOT_KEY_ROPE),
        .dequantScaleQueryOptional = slot(d, FIA_SLOT_DEQUANT_SCALE_QUERY),
        .queryQuantMode = a->query_quant_mode,
        .learnableSinkOptional = slot(d, FIA_SLOT_LEARNABLE_SINK),
    };
    fia_status st = fastFusedInferAttentionScoreV2ExtGetWorkspaceSize(
        slot(d, FIA_SLOT_QUERY), d->t[FIA_SLOT_KEY] ? &d->key_list : NULL,
        d->t[FIA_SLOT_VALUE] ? &d->value_list : NULL,
        slot(d, FIA_SLOT_PSE_SHIFT), slot(d, FIA_SLOT_ATTEN_MASK),
        array(d, FIA_ARR_ACTUAL_SEQ_LENGTHS),
        array(d, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV),
        slot(d, FIA_SLOT_DEQUANT_SCALE1), slot(d, FIA_SLOT_QUANT_SCALE1),
        slot(d, FIA_SLOT_DEQUANT_SCALE2), slot(d, FIA_SLOT_QUANT_SCALE2),
        slot(d, FIA_SLOT_QUANT_OFFSET2), slot(d, FIA_SLOT_ANTIQUANT_SCALE),
        slot(d, FIA_SLOT_ANTIQUANT_OFFSET), slot(d, FIA_SLOT_BLOCK_TABLE),
        slot(d, FIA_SLOT_QUERY_PADDING_SIZE), slot(d, FIA_SLOT_KV_PADDING_SIZE),
        slot(d, FIA_SLOT_KEY_ANTIQUANT_SCALE),
        slot(d, FIA_SLOT_KEY_ANTIQUANT_OFFSET),
        slot(d, FIA_SLOT_VALUE_ANTIQUANT_SCALE),
        slot(d, FIA_SLOT_VALUE_ANTIQUANT_OFFSET),
        slot(d, FIA_SLOT_KEY_SHARED_PREFIX),
        slot(d, FIA_SLOT_VALUE_SHARED_PREFIX),
        array(d, FIA_ARR_ACTUAL_SHARED_PREFIX_LEN), a->num_heads, a->scale,
        a->pre_tokens, a->next_tokens, a->input_layout, a->num_key_value_heads,
        a->sparse_mode, a->inner_precise, a->block_size, a->antiquant_mode,
        a->softmax_lse_flag, a->key_antiquant_mode, a->value_antiquant_mode,
        &extras, slot(d, FIA_SLOT_ATTENTION_OUT), slot(d, FIA_SLOT_SOFTMAX_LSE),
        &ws_size, &ex);
    if (st != FIA_OK)
        return fia_fail(err, st, "%s", fastLastError());
    if (!compute) {
        fastExecutorDestroy(ex);
        return FIA_OK;
    }
    void *ws = NULL;
    if (ws_size > 0) {
        ws = malloc(ws_size);
        if (ws == NULL) {
            fastExecutorDestroy(ex);
            return fia_fail(err, FIA_ERR_NOMEM, "cannot allocate a workspace "
                            "of %llu bytes", (unsigned long long)ws_size);
        }
    }
    st = fastFusedInferAttentionScoreV2(ws, ws_size, ex, NULL);
    free(ws);
    if (st != FIA_OK)
        return fia_fail(err, st, "phase two: %s", fastLastError());
    return FIA_OK;
}
