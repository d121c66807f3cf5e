/* The interception rules of the layouts (oracle/rules_layout.c, rules_tnd.c,
 * rules_gqa.c): for every rule one case that breaks it (the rule fires and
 * the expected status is right in both profiles) and one that obeys it (the
 * rule does not fire). */
#include "oracle_testlib.h"
#include "oracle_cases_layout.h"

int main(void)
{
    otl_check_rule_cases(oracle_cases_layout, OTL_ROWS(oracle_cases_layout));
    return check_summary();
}
