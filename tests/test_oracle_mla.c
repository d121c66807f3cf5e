/* The interception rules of MLA and learnable_sink (oracle/rules_mla.c,
 * rules_sink.c): for every rule one case that breaks it (the rule fires and
 * the expected status is right in both profiles) and one that obeys it (the
 * rule does not fire). */
#include "oracle_testlib.h"
#include "oracle_cases_mla.h"

int main(void)
{
    otl_check_rule_cases(oracle_cases_mla, OTL_ROWS(oracle_cases_mla));
    return check_summary();
}
