/* The interception rules of the quantizations (oracle/rules_antiquant.c,
 * rules_int8_out.c, rules_int8_quant.c, rules_query_quant.c): for every rule
 * one case that breaks it (the rule fires and the expected status is right
 * in both profiles) and one that obeys it (the rule does not fire). */
#include "oracle_testlib.h"
#include "oracle_cases_quant.h"

int main(void)
{
    otl_check_rule_cases(oracle_cases_quant, OTL_ROWS(oracle_cases_quant));
    return check_summary();
}
