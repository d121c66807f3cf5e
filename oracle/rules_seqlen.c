/* Rules: actual_seq_lengths / actual_seq_lengths_kv (host int arrays). */
#include "oracle_internal.h"

/* Count rule: 1 (broadcast) or >= B (first B used).  0 is rejected. */
static int count_bad(int64_t count, int64_t B)
{
    return !(count == 1 || count >= B);
}

static int any_above(const int64_t *v, int64_t used, int64_t limit)
{
    for (int64_t i = 0; i < used; i++)
        if (v[i] > limit)
            return 1;
    return 0;
}

static int any_negative(const int64_t *v, int64_t used)
{
    for (int64_t i = 0; i < used; i++)
        if (v[i] < 0)
            return 1;
    return 0;
}

static int64_t q_used(const fia_oracle_facts *f)
{
    return orc_used_count(f->seq_count, f->B);
}
static int64_t kv_used(const fia_oracle_facts *f)
{
    return orc_used_count(f->kv_seq_count, f->B);
}

/* The query array is read only on the prefill path, and at Q_S = 1 with
 * rope inputs (RELEASED: the decode normalisation is for calls without
 * rope; MLA). */
static int q_scope(const fia_oracle_facts *f)
{
    return (orc_is_prefill(f) || (orc_is_decode(f) && f->rope)) &&
           f->seq_given;
}
static int kv_scope(const fia_oracle_facts *f)
{
    return f->q_rank_ok && f->kv_seq_given && !f->tnd; /* tnd: TND-0xx */
}

ORC_PRED(q_empty, q_scope(f), f->seq_count == 0)
ORC_PRED(q_count, q_scope(f) && f->seq_count > 0, count_bad(f->seq_count, f->B))
ORC_PRED(q_max, q_scope(f) && q_used(f) > 0,
         any_above(f->seq, q_used(f), f->Q_S))
ORC_PRED(q_neg, q_scope(f) && q_used(f) > 0, any_negative(f->seq, q_used(f)))
ORC_PRED(kv_empty, kv_scope(f), f->kv_seq_count == 0)
ORC_PRED(kv_count, kv_scope(f) && f->kv_seq_count > 0,
         count_bad(f->kv_seq_count, f->B))
ORC_PRED(kv_max, kv_scope(f) && f->k_rank_ok && kv_used(f) > 0,
         any_above(f->kv_seq, kv_used(f), f->KV_S))
ORC_PRED(kv_neg, kv_scope(f) && kv_used(f) > 0,
         any_negative(f->kv_seq, kv_used(f)))
ORC_PRED(broadcast,
         (q_scope(f) && f->seq_count == 1) ||
             (kv_scope(f) && f->kv_seq_count == 1),
         1)
ORC_PRED(beyond_b,
         (q_scope(f) && f->seq_count > f->B && f->B > 0) ||
             (kv_scope(f) && f->kv_seq_count > f->B && f->B > 0),
         1)
ORC_PRED(decode_ignores_q, orc_is_decode(f) && !f->rope && f->seq_given, 1)

const fia_rule orc_rules_seqlen[] = {
    {"SEQ-001", "seqlen", FIA_RULE_REJECT, ORC_SEM,
     C002_P("actualSeqLengthsOptional") "; " CREL("Silent normalisations"),
     "Q_S > 1: an actual_seq_lengths array of length 0 is rejected", NULL,
     ORC_FN(q_empty)},
    {"SEQ-002", "seqlen", FIA_RULE_REJECT, ORC_SEM,
     C002_P("actualSeqLengthsOptional") "; " C003_GT1,
     "Q_S > 1: actual_seq_lengths must have length 1 or at least B", NULL,
     ORC_FN(q_count)},
    {"SEQ-003", "seqlen", FIA_RULE_REJECT, ORC_SEM,
     C002_P("actualSeqLengthsOptional"),
     "Q_S > 1: each used actual_seq_lengths value must be at most the "
     "query's S",
     NULL, ORC_FN(q_max)},
    {"SEQ-004", "seqlen", FIA_RULE_REJECT, ORC_SEM,
     C002_P("actualSeqLengthsOptional") "; " C003_P("actual_seq_qlen"),
     "Q_S > 1: each used actual_seq_lengths value must not be negative",
     "only 003 forbids negative values explicitly, and there for TND; 002 "
     "gives just the upper bound. A negative length has no meaning: we "
     "reject it",
     ORC_FN(q_neg)},
    {"SEQ-011", "seqlen", FIA_RULE_REJECT, ORC_SEM,
     C002_P("actualSeqLengthsKvOptional") "; " CREL("Silent normalisations"),
     "an actual_seq_lengths_kv array of length 0 is rejected (both paths)",
     NULL, ORC_FN(kv_empty)},
    {"SEQ-012", "seqlen", FIA_RULE_REJECT, ORC_SEM,
     C002_P("actualSeqLengthsKvOptional") "; " C003_EQ1,
     "actual_seq_lengths_kv must have length 1 or at least B (both paths)",
     "000 says actual_seq_lengths_kv is ignored when Q_S = 1; 002 and 003 "
     "(which restates the rule under Q_S = 1) apply it on both paths (used "
     "here); 001 (IFA) gives its shape as (B,) or (1,)",
     ORC_FN(kv_count)},
    {"SEQ-013", "seqlen", FIA_RULE_REJECT, ORC_SEM,
     C002_P("actualSeqLengthsKvOptional") "; " C003_EQ1,
     "each used actual_seq_lengths_kv value must be at most the key/value S",
     "000 says the array is ignored when Q_S = 1 (002 and 003 check it)",
     ORC_FN(kv_max)},
    {"SEQ-014", "seqlen", FIA_RULE_REJECT, ORC_SEM,
     C002_P("actualSeqLengthsKvOptional"),
     "each used actual_seq_lengths_kv value must not be negative",
     "no document states the lower bound for the non-TND layouts; a negative "
     "length has no meaning: we reject it",
     ORC_FN(kv_neg)},
    {"SEQ-N01", "seqlen", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_P("actualSeqLengthsOptional") "; " CREL("Silent normalisations"),
     "a length-1 sequence-length array applies its value to every batch",
     NULL, ORC_FN(broadcast)},
    {"SEQ-N02", "seqlen", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_P("actualSeqLengthsOptional") "; " CREL("Silent normalisations"),
     "a sequence-length array longer than B: only its first B values are "
     "read (the rest is not checked)",
     NULL, ORC_FN(beyond_b)},
    {"SEQ-N03", "seqlen", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_P("actualSeqLengthsOptional") "; " CREL("Silent normalisations"),
     "Q_S = 1 without rope: actual_seq_lengths (query) is ignored, whatever "
     "its length or values",
     "RELEASED limits the normalisation to calls without rope inputs (MLA "
     "reads the array at Q_S = 1 too)",
     ORC_FN(decode_ignores_q)},
};
const size_t orc_rules_seqlen_count =
    sizeof orc_rules_seqlen / sizeof orc_rules_seqlen[0];
