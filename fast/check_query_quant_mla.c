/* mla (full quantization): MLA with query D 512 whose query, key and value
 * are int8, query_rope and key_rope bf16, attention_out bf16 (003 §约束说明
 * > "query_rope和key_rope输入时即为MLA场景" > "当query的D等于512时" > "支持
 * 全量化场景"; the parameters: 003 §参数说明 dequant_scale_query,
 * query_quant_mode, key_quant_mode, dequant_scale_key / _value).
 *
 * The scales: dequant_scale_query per token and head (query_quant_mode 3,
 * "per-token叠加per-head"), dequant_scale_key and dequant_scale_value per
 * tensor (key_quant_mode / value_quant_mode 0, "per-channel模式（per-
 * channel包含per-tensor）", the only modes 003 gives this scene).  In the
 * case model they sit in the slots of 002's separate antiquant set
 * (key_antiquant_scale, ...: docs/case-format.md), key_quant_mode in
 * key_antiquant_mode.  Everything else of the D 512 scene holds
 * (check_mla.c; the rope dtype there: bf16 in place of "the query's"),
 * and a token layout refuses full quantization in layer 3 (S_TND_QUANT:
 * its D 512 list "不支持...全量化").
 *
 * Where no document gives the detail the rules are the released code's
 * (its tiling's dequant checks): dequant_scale_query has the query's
 * shape without D, BSH / BSND (B, S, N), BNSD (B, N, S) (the *_NBSD
 * outputs: the query's layout before "_"); dequant_scale_key and
 * dequant_scale_value have shape [1].  Rejections as every semantic rule
 * (161002 doc, 561002 cann).
 *
 * Arithmetic (run_query_quant.c): q = q_int8 * dsq[token, head], k = k_int8
 * * dsk[0], v = v_int8 * dsv[0] in float32, then MLA's attention over D +
 * rope.D columns with the bf16 ropes, attention_out rounded to bf16. */
#include "validate.h"

/* 003: "入参dequant_scale_query、dequant_scale_key、dequant_scale_value
 * 需要同时存在，且其数据类型仅支持FP32" */
static const fast_optional scales[3] = {FAST_OPT_DEQUANT_SCALE_QUERY,
                                        FAST_OPT_KEY_ANTIQUANT_SCALE,
                                        FAST_OPT_VALUE_ANTIQUANT_SCALE};
static const char *const scale_names[3] = {
    "dequant_scale_query", "dequant_scale_key", "dequant_scale_value"};

/* The quantization modes 003 gives the scene: query 3, key and value 0. */
#define QUERY_QUANT_QMODE 3  /* per-token叠加per-head */
#define QUERY_QUANT_KVMODE 0 /* per-channel, which holds per-tensor */

/* dequant_scale_query's shape: rank 3, the query's dims without D. */
static bool dsq_shape_ok(const fia_tensor *t, const fast_plan *p)
{
    int64_t n;
    if (t->ndim != 3 || !fast_shape_numel(t, &n))
        return false;
    const bool bn = p->layout == FAST_LAYOUT_BNSD;
    return t->shape[0] == p->B && t->shape[1] == (bn ? p->N : p->Q_S) &&
           t->shape[2] == (bn ? p->Q_S : p->N);
}

/* A per-tensor scale: [1]. */
static bool one_shape_ok(const fia_tensor *t)
{
    return t->ndim == 1 && t->shape[0] == 1;
}

/* The scene's parameters, in the order of 003's list (the output and the
 * scales, what it refuses, the modes), then the shapes. */
static fia_status check_scene(const fast_args *a, const fast_plan *p,
                              fia_error *err)
{
    if (a->out->dtype != FIA_DT_BF16)
        return FAST_REJECT("S_MLA_FQ_OUT", "MLA full quantization (an int8 query) "
                           "gives a bf16 attention_out, not %s",
                           fast_dtype_name(a->out->dtype));
    for (int i = 0; i < 3; i++)
        if (a->opt[scales[i]] == NULL)
            return FAST_REJECT("S_MLA_FQ_SCALES", "MLA full quantization needs "
                               "dequant_scale_query, dequant_scale_key and "
                               "dequant_scale_value (%s missing)", scale_names[i]);
    for (int i = 0; i < 3; i++)
        if (a->opt[scales[i]]->dtype != FIA_DT_FP32)
            return FAST_REJECT("S_MLA_FQ_SCALE_DTYPE", "MLA full quantization: %s "
                               "of dtype %s (takes fp32 only)", scale_names[i],
                               fast_dtype_name(a->opt[scales[i]]->dtype));
    /* 003: "不支持传入quant_scale_out、quant_offset_out、dequant_offset_key、
     * dequant_offset_value"; the first two are every MLA call's
     * (S_MLA_OUT_QUANT, layer 3) */
    if (a->opt[FAST_OPT_KEY_ANTIQUANT_OFFSET] ||
        a->opt[FAST_OPT_VALUE_ANTIQUANT_OFFSET])
        return FAST_REJECT("S_MLA_FQ_OFFSET", "MLA full quantization takes no %s",
                           a->opt[FAST_OPT_KEY_ANTIQUANT_OFFSET]
                               ? "dequant_offset_key" : "dequant_offset_value");
    if (a->query_quant_mode != QUERY_QUANT_QMODE)
        return FAST_REJECT("S_MLA_FQ_QMODE", "MLA full quantization takes "
                           "query_quant_mode 3 (per-token per-head), not %lld",
                           (long long)a->query_quant_mode);
    if (a->key_antiquant_mode != QUERY_QUANT_KVMODE ||
        a->value_antiquant_mode != QUERY_QUANT_KVMODE)
        return FAST_REJECT("S_MLA_FQ_KVMODE", "MLA full quantization takes "
                           "key_quant_mode and value_quant_mode 0 (per-tensor), "
                           "not %lld / %lld", (long long)a->key_antiquant_mode,
                           (long long)a->value_antiquant_mode);
    if (!dsq_shape_ok(a->opt[FAST_OPT_DEQUANT_SCALE_QUERY], p))
        return FAST_REJECT("S_MLA_FQ_DSQ_SHAPE", "dequant_scale_query must be the "
                           "query's shape without D, %s = (%lld, %lld, %lld)",
                           p->layout == FAST_LAYOUT_BNSD ? "(B, N, S)" : "(B, S, N)",
                           (long long)p->B,
                           (long long)(p->layout == FAST_LAYOUT_BNSD ? p->N : p->Q_S),
                           (long long)(p->layout == FAST_LAYOUT_BNSD ? p->Q_S : p->N));
    for (int i = 1; i < 3; i++)
        if (!one_shape_ok(a->opt[scales[i]]))
            return FAST_REJECT("S_MLA_FQ_KV_SHAPE", "MLA full quantization: %s "
                               "must have shape [1] (per-tensor)", scale_names[i]);
    return FIA_OK;
}

/* Layer 5, after the MLA rules (D 512 with both ropes of the right dtype
 * and shape, the cache, B, N, Q_S in the plan).  An int8 query of MLA:
 * the scene's rules, then its plan (dt bf16: the ropes', the output's and
 * P's rounding, round_p of check_precise.c). */
fia_status fast_check_query_quant_mla(const fast_args *a, fast_plan *p,
                                      fia_error *err)
{
    if (!fast_mla_call(a) || a->query->dtype != FIA_DT_INT8 || p->D != 512)
        return FIA_OK; /* (an int8 query of D 128: a token layout, S_TND_QUANT) */
    fia_status st = check_scene(a, p, err);
    if (st != FIA_OK)
        return st;
    const fia_tensor *q = a->opt[FAST_OPT_DEQUANT_SCALE_QUERY];
    p->query_quant.on = true;
    p->dt = FIA_DT_BF16;
    p->kv_dt = FIA_DT_INT8;
    p->query_quant.dsq = q->data;
    fast_shape_numel(q, &p->query_quant.dsq_numel);
    p->query_quant.dsk = a->opt[FAST_OPT_KEY_ANTIQUANT_SCALE]->data;
    p->query_quant.dsv = a->opt[FAST_OPT_VALUE_ANTIQUANT_SCALE]->data;
    return FIA_OK;
}

/* Layer 6: 002's full-quantization scales (dequant_scale1, quant_scale1,
 * dequant_scale2: the aclnn call has them, 003's does not) beside the
 * scene's own have no documented meaning: judged by every rule, then
 * refused as not modeled rather than silently ignored. */
fia_status fast_check_query_quant_mla_unmodeled(const fast_args *a,
                                                fast_plan *p, fia_error *err)
{
    if (!p->query_quant.on)
        return FIA_OK;
    if (a->opt[FAST_OPT_DEQUANT_SCALE1] != NULL ||
        a->opt[FAST_OPT_QUANT_SCALE1] != NULL ||
        a->opt[FAST_OPT_DEQUANT_SCALE2] != NULL)
        return FAST_NOTMOD("M_MLA_FQ_Q8", "MLA full quantization with 002's "
                           "dequant_scale1 / quant_scale1 / dequant_scale2 is not "
                           "modeled (no document gives them a meaning there)");
    return FIA_OK;
}
