/* Rules: inner_precise (bit 0 high precision / high performance, bit 1
 * row-invalid correction). */
#include "oracle_internal.h"

static int64_t ip(const fia_oracle_facts *f)
{
    return f->c->attrs.inner_precise;
}

/* Sparse mode 3 with a batch whose query is longer than its key/value: the
 * operator detects invalid rows and corrects them itself. */
static int some_q_longer(const fia_oracle_facts *f)
{
    if (!f->q_rank_ok || !f->k_rank_ok || f->B <= 0)
        return 0;
    /* Lengths vary only over the first max(count) batches; past those every
     * batch has the same (broadcast or default) lengths. */
    int64_t n = f->seq_count > f->kv_seq_count ? f->seq_count
                                               : f->kv_seq_count;
    if (n < 1)
        n = 1;
    if (n > f->B)
        n = f->B;
    for (int64_t b = 0; b < n; b++)
        if (orc_q_len(f, b) > orc_kv_len(f, b))
            return 1;
    return 0;
}

ORC_PRED(ip_range, 1, ip(f) < 0 || ip(f) > 3)
ORC_PRED(ip_decode, orc_is_decode(f), ip(f) == 2 || ip(f) == 3)
ORC_PRED(ip_bf16, f->q_rank_ok && f->given[FIA_SLOT_QUERY] &&
                      f->t[FIA_SLOT_QUERY]->dtype == FIA_DT_BF16,
         1)
ORC_PRED(ip_auto_rowinv,
         orc_is_prefill(f) && f->c->attrs.sparse_mode == 3 &&
             !(ip(f) & 2),
         some_q_longer(f))
ORC_PRED(ip_default, 1, !f->c->attr_given[FIA_ATTR_INNER_PRECISE])

const fia_rule orc_rules_precise[] = {
    {"PREC-001", "precise", FIA_RULE_REJECT, ORC_SEM,
     C002_P("innerPrecise") "; " C000_KW("inner_precise"),
     "inner_precise must be 0, 1, 2 or 3", NULL, ORC_FN(ip_range)},
    {"PREC-002", "precise", FIA_RULE_REJECT, ORC_SEM,
     C002_P("innerPrecise") "; " C003_P("inner_precise"),
     "Q_S = 1: inner_precise must be 0 or 1 (no row-invalid correction)",
     NULL, ORC_FN(ip_decode)},
    {"PREC-N01", "precise", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_P("innerPrecise") " (说明)",
     "bf16: high precision and high performance are the same computation "
     "(bit 0 has no effect); row-invalid correction still applies",
     "000 says the precision/performance choice affects only fp16, same "
     "meaning in other words",
     ORC_FN(ip_bf16)},
    {"PREC-N02", "precise", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_P("innerPrecise") " (说明); " CREL("Degenerate shapes"),
     "Q_S > 1, sparse_mode 3 with a batch whose query length exceeds its "
     "key/value length: row-invalid correction is enabled automatically",
     NULL, ORC_FN(ip_auto_rowinv)},
    {"PREC-N03", "precise", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_REGOP "; " C000_KW("inner_precise") "; " C003_P("inner_precise"),
     "inner_precise not given: the default of the case's interface, 1 "
     "(high performance, no row-invalid correction) for 002, 000 and 001, "
     "0 (high precision) for 003 and 004 (api = ..., docs/case-format.md)",
     "002 REG_OP, 000 and 001 default to 1; 003 (torch_npu v2) defaults to "
     "0; 004 (TorchAir) gives no default, taken as 003's (its other "
     "parameters are 003's)",
     ORC_FN(ip_default)},
};
const size_t orc_rules_precise_count =
    sizeof orc_rules_precise / sizeof orc_rules_precise[0];
