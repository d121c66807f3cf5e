/* Rules: softmax_lse output (softmax_lse_flag). */
#include "oracle_internal.h"

static int flag(const fia_oracle_facts *f)
{
    return f->c->attrs.softmax_lse_flag;
}

static int lse_shape_bad(const fia_oracle_facts *f)
{
    const fia_tensor *l = &f->lse;
    return l->ndim != 4 || l->shape[0] != f->B || l->shape[1] != f->N ||
           l->shape[2] != f->Q_S || l->shape[3] != 1;
}

ORC_PRED(lse_null, flag(f), !f->given[FIA_SLOT_SOFTMAX_LSE])
ORC_PRED(lse_dtype, flag(f) && f->given[FIA_SLOT_SOFTMAX_LSE],
         f->lse.dtype != FIA_DT_FP32)
ORC_PRED(lse_shape,
         flag(f) && f->given[FIA_SLOT_SOFTMAX_LSE] && f->q_rank_ok && !f->tnd,
         lse_shape_bad(f))
ORC_PRED(lse_unused, !flag(f), 1)

const fia_rule orc_rules_lse[] = {
    {"LSE-001", "lse", FIA_RULE_REJECT, ORC_NULLPTR,
     CREL("Return codes, by layer") "; " C002_P("softmaxLse"),
     "softmax_lse_flag set: softmax_lse must not be a nullptr",
     "002's list of nullptr causes names only query, key, value and "
     "attentionOut; the released code returns 161001 for a null softmax_lse "
     "when the flag is set (used in both profiles)",
     ORC_FN(lse_null)},
    {"LSE-002", "lse", FIA_RULE_REJECT, ORC_DTYPE,
     C002_P("softmaxLse") "; " C002_REGOP,
     "softmax_lse_flag set: softmax_lse must be fp32 (its registered dtype "
     "list)",
     "002's list of 161002 causes does not name softmaxLse; REG_OP registers "
     "it as FLOAT32 only, and the released code rejects dtypes outside the "
     "registered list at the dtype layer",
     ORC_FN(lse_dtype)},
    {"LSE-003", "lse", FIA_RULE_REJECT, ORC_SEM, C002_P("softmaxLse"),
     "softmax_lse_flag set: softmax_lse must have shape [B, N, Q_S, 1]",
     "003 §返回值说明 gives (T, N, 1) for the token layouts (TND-026)",
     ORC_FN(lse_shape)},
    {"LSE-N01", "lse", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_P("softmaxLse") "; 000 §返回",
     "softmax_lse_flag not set: a given softmax_lse tensor is not checked and "
     "is returned as it is; a nullptr gives a [1] tensor of zeros",
     NULL, ORC_FN(lse_unused)},
};
const size_t orc_rules_lse_count =
    sizeof orc_rules_lse / sizeof orc_rules_lse[0];
