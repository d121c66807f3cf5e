/* The interception rules of masks, sparse modes, sequence lengths and
 * pse_shift (oracle/rules_mask.c, rules_sparse.c, rules_seqlen.c,
 * rules_pse.c): for every rule one case that breaks it (the rule fires and
 * the expected status is right in both profiles) and one that obeys it (the
 * rule does not fire). */
#include "oracle_testlib.h"
#include "oracle_cases_mask.h"

int main(void)
{
    otl_check_rule_cases(oracle_cases_mask, OTL_ROWS(oracle_cases_mask));
    return check_summary();
}
