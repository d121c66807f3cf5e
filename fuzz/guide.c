/* fuzz/guide: the engine's guidance by what the rules of the catalogue said.
 *
 * oracle/ is built without SanitizerCoverage (CMakeLists.txt's ignore list).
 * Its ~300 rule predicates run on every input, and the engine's tracing of
 * their comparisons and its bookkeeping of their edges took more than half
 * of fuzz_params' time, while telling the engine little it can use: a
 * decoder stands between the input bytes and the facts the rules compare.
 * Instead each verdict marks, per profile and per rule, what happened to
 * the rule, in libFuzzer's extra counters (a byte array in the section
 * __libfuzzer_extra_counters: the engine clears it before each input and
 * reads it after, as its own coverage).  The engine then keeps an input for
 * every rule outcome it has not seen:
 *   fired  the call breaks the rule (a NORMALIZE row: the rule applies);
 *   alone  the rule decided the call by itself (fia_oracle_sole_rule):
 *          every other rule accepts it, so the input tests that one check
 *          of the system under test;
 *   obeyed the rule applies and holds.
 * Outside an engine (fiacheck, the replay drivers) the section is read by
 * nobody and costs one pass over a verdict's lists. */
#include <stdint.h>
#include <string.h>
#include "fuzz/fuzz_internal.h"

/* [profile][rule index][outcome] */
__attribute__((used, section("__libfuzzer_extra_counters")))
static uint8_t rule_outcomes[2][FIA_ORACLE_MAX_RULES][FZ_N_OUTCOMES];

static void mark(int p, const fia_rule *r, fz_outcome outcome)
{
    const size_t i = fia_rule_index(r);
    if (i < FIA_ORACLE_MAX_RULES)
        rule_outcomes[p][i][outcome] = 1;
}

void fz_guide_verdict(const fia_oracle_verdict *v, fia_profile p)
{
    const int k = p == FIA_PROFILE_CANN;
    for (int i = 0; i < v->n_fired; i++)
        mark(k, v->fired[i], FZ_OUTCOME_FIRED);
    for (int i = 0; i < v->n_normalized; i++)
        mark(k, v->normalized[i], FZ_OUTCOME_FIRED);
    for (int i = 0; i < v->n_obeyed; i++)
        mark(k, v->obeyed[i], FZ_OUTCOME_OBEYED);
    const fia_rule *sole = fia_oracle_sole_rule(v, p);
    if (sole != NULL)
        mark(k, sole, FZ_OUTCOME_ALONE);
}

int fz_guide_marked(fia_profile p, const fia_rule *r, fz_outcome outcome)
{
    const size_t i = fia_rule_index(r);
    return i < FIA_ORACLE_MAX_RULES && (int)outcome >= 0 &&
           outcome < FZ_N_OUTCOMES &&
           rule_outcomes[p == FIA_PROFILE_CANN][i][outcome] != 0;
}

void fz_guide_clear(void)
{
    memset(rule_outcomes, 0, sizeof rule_outcomes);
}
