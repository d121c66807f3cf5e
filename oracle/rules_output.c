/* Rules: attention_out dtype and shape; empty query and empty key/value. */
#include <stdint.h>
#include "oracle_internal.h"

static const fia_dtype dt_out[] = {FIA_DT_FP16, FIA_DT_BF16, FIA_DT_INT8};

static int is_f16(fia_dtype dt)
{
    return dt == FIA_DT_FP16 || dt == FIA_DT_BF16;
}

/* An *_NBSD output (003 §参数说明 input_layout): (N, B, Q_S, D) whatever
 * the query's layout, N the query heads (num_heads). */
static int nbsd_shape_bad(const fia_oracle_facts *f)
{
    const fia_tensor *o = &f->out;
    return o->ndim != 4 || o->shape[0] != f->N || o->shape[1] != f->B ||
           o->shape[2] != f->Q_S || o->shape[3] != f->D;
}

static int out_shape_bad(const fia_oracle_facts *f)
{
    const fia_tensor *q = f->t[FIA_SLOT_QUERY];
    const fia_tensor *o = &f->out;
    if (f->o_nbsd)
        return nbsd_shape_bad(f);
    if (o->ndim != q->ndim)
        return 1;
    if (f->layout == ORC_LAYOUT_BNSD_BSND) {
        /* query [B, N, S, D] -> out [B, S, N, D] */
        return o->shape[0] != q->shape[0] || o->shape[1] != q->shape[2] ||
               o->shape[2] != q->shape[1] || o->shape[3] != q->shape[3];
    }
    for (int i = 0; i < q->ndim && i < FIA_MAX_RANK; i++)
        if (o->shape[i] != q->shape[i])
            return 1;
    return 0;
}

/* The released code's reading (OUT-005): with value's D 128 beside
 * key's 192 (orc_value_d_pair) attention_out has value's D at Q_S > 1;
 * on the decode path the released code takes value's D to be the
 * query's (tErr_PA_value_D_neq_vHeadDim: attention_out of the query's D
 * is accepted), so the query's shape stays. */
static int out_shape_bad_rel(const fia_oracle_facts *f)
{
    if (!orc_value_d_pair(f) || !orc_is_prefill(f) || !f->q_d_ok ||
        (f->t[FIA_SLOT_QUERY]->ndim == 3 && f->N > INT64_MAX / 128))
        return out_shape_bad(f);
    fia_oracle_facts ff = *f;
    fia_tensor q = *f->t[FIA_SLOT_QUERY];
    q.shape[q.ndim - 1] = q.ndim == 3 ? f->N * 128 : 128;
    ff.t[FIA_SLOT_QUERY] = &q;
    ff.D = 128;
    return out_shape_bad(&ff);
}

static int both_q_out(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_QUERY] && f->given[FIA_SLOT_ATTENTION_OUT];
}

ORC_PRED(out_dtype_reg, f->given[FIA_SLOT_ATTENTION_OUT],
         !orc_dtype_in(f->out.dtype, dt_out, sizeof dt_out / sizeof dt_out[0]))
ORC_PRED(out_dtype_q,
         both_q_out(f) && is_f16(f->t[FIA_SLOT_QUERY]->dtype) &&
             is_f16(f->out.dtype),
         f->out.dtype != f->t[FIA_SLOT_QUERY]->dtype)
ORC_PRED(out_shape,
         both_q_out(f) && f->layout_modeled &&
             (f->layout != ORC_LAYOUT_BNSD_BSND || f->q_rank_ok) &&
             (!f->o_nbsd || f->q_d_ok),
         out_shape_bad(f))
ORC_PRED(out_shape_rel,
         both_q_out(f) && f->layout_modeled &&
             (f->layout != ORC_LAYOUT_BNSD_BSND || f->q_rank_ok) &&
             (!f->o_nbsd || f->q_d_ok),
         out_shape_bad_rel(f))
/* the released code's 192 / 128 head dims in a batched layout */
ORC_PRED(value_d_pair, 1, orc_value_d_pair(f))
ORC_PRED(empty_q_out, f->query_empty && f->given[FIA_SLOT_ATTENTION_OUT],
         !f->out_empty)
ORC_PRED(empty_both, f->short_circuit, 1)
ORC_PRED(empty_kv, f->k_rank_ok && !f->query_empty, f->KV_S == 0)

/* 004's out_dtype given (not None) */
ORC_PRED(out_dtype, 1, f->c->attrs.out_dtype >= 0)

const fia_rule orc_rules_output[] = {
    {"OUT-001", "output", FIA_RULE_REJECT, ORC_DTYPE,
     C002_P("attentionOut") "; " C002_RET,
     "attention_out dtype must be fp16, bf16 or int8", NULL,
     ORC_FN(out_dtype_reg)},
    {"OUT-002", "output", FIA_RULE_REJECT, ORC_SEM,
     C002_P("attentionOut") "; 001 §返回值说明",
     "without output quantization, attention_out must have the query's dtype "
     "(int8 output is not modeled: NM-005)",
     "001 (IFA) §返回值说明 states it (output dtype follows the query); 002 "
     "lists the output dtypes without tying them to the query",
     ORC_FN(out_dtype_q)},
    /* doc only: profile cann reads it as OUT-005 */
    {"OUT-003", "output", FIA_RULE_REJECT, FIA_LAYER_SEMANTIC,
     FIA_ERR_PARAM_INVALID, FIA_OK,
     C002_P("attentionOut") "; " C003_P("input_layout") "; " C003_RET,
     "attention_out must have the query's shape; for BNSD_BSND the query's "
     "BNSD read as BSND; for the *_NBSD outputs (N, B, Q_S, D)",
     "003 §返回值说明 asks the query's shape but for D; its input_layout "
     "text puts the output in the layout after '_' (NBSD: N, B, S, D), "
     "which fiacheck follows for the *_NBSD outputs.  The released code "
     "gives attention_out value's D 128 beside key's 192 at Q_S > 1 "
     "(tMLA_RopeCombine_BSH / _BNSD succeed, tErr_value_D_neq_out_D is "
     "rejected): profile cann applies OUT-005 instead",
     ORC_FN(out_shape)},
    /* cann only: OUT-003 with the released code's head dims */
    {"OUT-005", "output", FIA_RULE_REJECT, FIA_LAYER_SEMANTIC, FIA_OK,
     FIA_ERR_INNER_TILING_ERROR,
     C002_P("attentionOut") "; " C003_RET "; "
     CREL("Layouts, head dims and parameters"),
     "attention_out has the query's shape as OUT-003 says, but for value's "
     "head dim 128 beside key's 192 (LAYOUT-014) at Q_S > 1, where it has "
     "value's D: the released code's rejection",
     "RELEASED: attention_out then has value's D (tMLA_RopeCombine_BSH / "
     "_BNSD succeed, tErr_value_D_neq_out_D, out of the query's D at Q_S 2, "
     "is rejected); on the decode path the released code takes value's D to "
     "be the query's and accepts attention_out of the query's D "
     "(tErr_PA_value_D_neq_vHeadDim), so the query's shape stays there; "
     "profile doc does not apply this row",
     ORC_FN_CANN(out_shape_rel)},
    {"OUT-004", "output", FIA_RULE_REJECT, ORC_SEM,
     CREL("Degenerate shapes") "; " C002_EMPTY,
     "an empty query with a non-empty attention_out is rejected",
     "002 says only that an empty attention_out is handled by the framework; "
     "the rejection and its code come from the released code (which reports "
     "no code: we assume the semantic layer)",
     ORC_FN(empty_q_out)},
    {"OUT-N01", "output", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_EMPTY "; " CREL("Degenerate shapes"),
     "an empty query with an empty attention_out returns at once with success "
     "(after the nullptr and dtype checks; no semantic rule is evaluated, "
     "nothing is written)",
     "002 says the operator returns directly when the query is empty; "
     "whether the released code still checks shapes first is not documented",
     ORC_FN(empty_both)},
    {"OUT-N02", "output", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_EMPTY "; " CREL("Degenerate shapes"),
     "key/value with S = 0 (and a non-empty query): attention_out is filled "
     "with zeros; softmax_lse is +inf",
     NULL, ORC_FN(empty_kv)},
    /* cann only (doc rejects the call: LAYOUT-006) */
    {"NM-018", "output", FIA_RULE_NOT_MODELED, FIA_LAYER_ARITHMETIC, FIA_OK,
     FIA_ERR_NOT_MODELED, CREL("Layouts, head dims and parameters") "; "
     C003_RET,
     "value's head dim 128 beside key's 192 in a batched layout (BSH, BSND, "
     "BNSD, BNSD_BSND, paged or not; LAYOUT-014), profile cann: every rule "
     "judges the call, then it is refused",
     "the released code accepts it (tErr_PA_value_D_neq_vHeadDim, "
     "tMLA_RopeCombine_BSH / _BNSD).  At Q_S > 1 003 §返回值说明 gives it a "
     "meaning (attention_out of value's D) that fiacheck computes for the "
     "token layouts only so far; at Q_S = 1 the released code reads value "
     "with the query's D, which no document gives a meaning",
     ORC_FN_CANN(value_d_pair)},
    {"NM-017", "output", FIA_RULE_NOT_MODELED, ORC_NM_LATE,
     C004_P " (int? out_dtype=None)",
     "out_dtype given (TorchAir, 004): named in the prototype with no "
     "meaning, in no document nor in the released code's description; "
     "every rule judges the call, then it is refused",
     "004 names it only in npu_fused_infer_attention_score_v2's prototype; "
     "RELEASED-BEHAVIOUR.md is silent: nothing says what a code selects",
     ORC_FN(out_dtype)},
};
const size_t orc_rules_output_count =
    sizeof orc_rules_output / sizeof orc_rules_output[0];
