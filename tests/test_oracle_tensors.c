/* The interception rules of the call's tensors and outputs
 * (oracle/rules_tensors.c, rules_output.c, rules_lse.c, rules_precise.c,
 * rules_scale.c, rules_reserved.c, rules_product.c): for every rule one case
 * that breaks it (the rule fires and the expected status is right in both
 * profiles) and one that obeys it (the rule does not fire). */
#include "oracle_testlib.h"
#include "oracle_cases_tensors.h"

int main(void)
{
    otl_check_rule_cases(oracle_cases_tensors, OTL_ROWS(oracle_cases_tensors));
    return check_summary();
}
