/* The interception rules of the key/value forms: page attention, shared
 * prefix, padding and tensor lists (oracle/rules_paged.c, rules_prefix.c,
 * rules_padding.c, rules_tensor_list.c): for every rule one case that breaks
 * it (the rule fires and the expected status is right in both profiles) and
 * one that obeys it (the rule does not fire). */
#include "oracle_testlib.h"
#include "oracle_cases_kv.h"

int main(void)
{
    otl_check_rule_cases(oracle_cases_kv, OTL_ROWS(oracle_cases_kv));
    return check_summary();
}
