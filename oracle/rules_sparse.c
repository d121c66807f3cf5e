/* Rules: sparse_mode and the pre/next token window. */
#include <stdint.h>
#include "oracle_internal.h"

static int64_t sparse(const fia_oracle_facts *f)
{
    return f->c->attrs.sparse_mode;
}

static int tokens_default(const fia_oracle_facts *f)
{
    return f->c->attrs.pre_tokens == INT32_MAX &&
           f->c->attrs.next_tokens == INT32_MAX;
}

static int out_of_int32(int64_t v)
{
    return v > INT32_MAX || v < INT32_MIN;
}

ORC_PRED(mode_range, orc_is_prefill(f), sparse(f) < 0 || sparse(f) > 4)
ORC_PRED(tokens_ignored,
         orc_is_prefill(f) &&
             ((sparse(f) == 0 && !f->mask_effective) || sparse(f) == 1),
         1)
ORC_PRED(mode2, orc_is_prefill(f) && sparse(f) == 2, 1)
ORC_PRED(mode3, orc_is_prefill(f) && sparse(f) == 3, 1)
ORC_PRED(mode4, orc_is_prefill(f) && sparse(f) == 4, 1)
ORC_PRED(decode_ignores, orc_is_decode(f) && !f->rope,
         sparse(f) != 0 || !tokens_default(f))
ORC_PRED(clamp, 1,
         out_of_int32(f->c->attrs.pre_tokens) ||
             out_of_int32(f->c->attrs.next_tokens))

const fia_rule orc_rules_sparse[] = {
    {"SPARSE-001", "sparse", FIA_RULE_REJECT, ORC_SEM,
     C002_GT1 "; " C002_P("sparseMode"),
     "Q_S > 1: sparse_mode must be 0, 1, 2, 3 or 4 (5-8 are documented as "
     "not supported yet; other values are errors)",
     NULL, ORC_FN(mode_range)},
    {"SPARSE-N01", "sparse", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_P("sparseMode") "; " CREL("Silent normalisations"),
     "Q_S > 1, sparse_mode 0 without a mask, or sparse_mode 1: pre_tokens and "
     "next_tokens are ignored (set to INT_MAX)",
     NULL, ORC_FN(tokens_ignored)},
    {"SPARSE-N02", "sparse", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_GT1 "; " CREL("Silent normalisations"),
     "Q_S > 1, sparse_mode 2 (left-up causal): tokens ignored; pre = INT_MAX, "
     "next = 0; the mask content is assumed to be triu(1)",
     NULL, ORC_FN(mode2)},
    {"SPARSE-N03", "sparse", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_GT1 "; " CREL("Silent normalisations"),
     "Q_S > 1, sparse_mode 3 (right-down causal): tokens ignored; pre = "
     "INT_MAX, next = kv_len - q_len per batch",
     NULL, ORC_FN(mode3)},
    {"SPARSE-N04", "sparse", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_P("sparseMode") "; " CREL("Silent normalisations"),
     "Q_S > 1, sparse_mode 4 (band): the window is shifted by kv_len - q_len "
     "per batch (pre' = pre - kv + q, next' = next + kv - q)",
     "002 §约束说明 > 当Q_S大于1时 lists modes 1, 2 and 3 as ignoring the "
     "tokens; mode 4 uses them, shifted to the bottom-right corner (released "
     "code)",
     ORC_FN(mode4)},
    {"SPARSE-N05", "sparse", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_P("sparseMode") "; " C002_P("preTokens") "; "
     CREL("Silent normalisations"),
     "Q_S = 1 without rope: sparse_mode, pre_tokens and next_tokens are "
     "ignored (any value is accepted; mode forced to 0, tokens to INT_MAX)",
     "003 and RELEASED ignore sparse_mode at Q_S = 1 only without rope "
     "inputs; with rope (MLA) MLA-013 takes sparse_mode 0 alone",
     ORC_FN(decode_ignores)},
    {"SPARSE-N06", "sparse", FIA_RULE_NORMALIZE, ORC_NORM,
     CREL("Silent normalisations"),
     "pre_tokens / next_tokens beyond the int32 range are clamped to it; the "
     "token values themselves are never rejected",
     "the documents give no range for pre/next tokens (int8 output with band "
     "mode and negative tokens is refused, but int8 output is not modeled)",
     ORC_FN(clamp)},
};
const size_t orc_rules_sparse_count =
    sizeof orc_rules_sparse / sizeof orc_rules_sparse[0];
