/* Rules: 003 / 004's reserved parameters (docs/features/reserved.md).
 *
 * 003 §参数说明 describes eleven `int` parameters, query_dtype ..
 * dequant_scale_key_rope_dtype, each as "预留参数，暂未使用，使用默认值即可"
 * (reserved, not used yet, the default will do); 004's prototype repeats
 * them as `int? ...=None`.  Not used: a value given is accepted and the
 * call computed as with None.  So one NORMALIZE row, which applies when a
 * case gives any of them; no rejection, and nothing past the case model
 * (the system under test is not handed them: the operator does not read
 * them).  The reserved tensor dequant_scale_key_rope stays None-only in
 * the case format (a tensor the operator ignores would still be data
 * handed over: not modeled). */
#include "oracle_internal.h"

ORC_PRED(reserved_given, f->c->reserved_given != 0, 1)

const fia_rule orc_rules_reserved[] = {
    {"RSV-N01", "reserved", FIA_RULE_NORMALIZE, ORC_NORM,
     C003_P("query_dtype") " .. " C003_P("dequant_scale_key_rope_dtype")
         "; " C004_P,
     "the reserved *_dtype parameters (预留参数，暂未使用) are not used: any "
     "value is accepted and the call is computed as with None",
     "003 says to pass the default (使用默认值即可) without saying what "
     "another value does; 'not used' is read as ignored, not refused",
     ORC_FN(reserved_given)},
};
const size_t orc_rules_reserved_count =
    sizeof orc_rules_reserved / sizeof orc_rules_reserved[0];
