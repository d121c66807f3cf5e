/* sink: 004's learnable_sink (fast_v2_extras; docs/features/sink.md).  004
 * names it in the prototype only; RELEASED gives its meaning: shape [N]
 * (N = num_heads), bfloat16 in the released tests, per query head one
 * virtual key whose score is sink[n] (not scaled) in the softmax's max and
 * denominator, without a value (run_sink.c computes it).
 *
 * Its dtype and shape are semantic rules (layer 5: no document registers a
 * dtype for it, so not the registered-dtype layer).  An empty sink is not
 * absent (RELEASED makes only an empty mask or pse absent): its shape is
 * not [N], N >= 1.
 *
 * MLA (a rope; D 512 and D 128, MLA's full quantization, an int8 query
 * with rope, included) computes it: the sink's meaning does not depend on
 * how the scores were formed (the project's reading: s_j are MLA's
 * (q.k + q_rope.k_rope) * scale, masked), and MLA's rows end where any
 * call's do (attention.c task_store, fast_merge_splits: run_sink.c).
 * Only 002's full int8 quantization (an int8 query WITHOUT rope) is
 * refused as not modeled: its P is quantized to int8 with quant_scale1
 * and nothing says how the sink's weight would be.  Layer 6, where only a
 * call every rule accepts arrives (a documented rejection is never
 * hidden behind "not modeled"). */
#include "validate.h"

/* Layer 5, after the layout rows (N in the plan).  SINK-001 bf16
 * (released code), SINK-002 rank 1, [N].  Fills the plan's sink. */
fia_status fast_check_sink(const fast_args *a, fast_plan *p, fia_error *err)
{
    const fia_tensor *t = a->opt[FAST_OPT_LEARNABLE_SINK];
    if (t == NULL)
        return FIA_OK;
    if (t->dtype != FIA_DT_BF16)
        return FAST_REJECT("S_SINK_DTYPE", "learnable_sink must be bf16, not %s",
                           fast_dtype_name(t->dtype));
    if (t->ndim != 1 || t->shape[0] != p->N)
        return FAST_REJECT("S_SINK_SHAPE", "learnable_sink must be [N] = [%lld] "
                           "(rank %d%s%lld)", (long long)p->N, t->ndim,
                           t->ndim >= 1 ? ", first dim " : "",
                           t->ndim >= 1 ? (long long)t->shape[0] : 0LL);
    p->sink.on = true;
    p->sink.data = (const uint16_t *)t->data;
    return FIA_OK;
}

/* Layer 6, last: judged by every rule, not computed (002's full int8;
 * MLA's int8 query, with rope, computes it). */
fia_status fast_check_sink_unmodeled(const fast_args *a, fast_plan *p,
                                     fia_error *err)
{
    (void)p;
    if (a->opt[FAST_OPT_LEARNABLE_SINK] == NULL)
        return FIA_OK;
    if (a->query->dtype == FIA_DT_INT8 && !fast_mla_call(a))
        return FAST_NOTMOD("M_SINK_QUANT", "learnable_sink with full quantization "
                           "(an int8 query without rope) is not modeled yet");
    return FIA_OK;
}
