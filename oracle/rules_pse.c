/* Rules: pse_shift, the positional bias added to the scores.
 *
 * Not modeled yet: NM-001 refuses the feature (ORC_NM_ROW). */
#include "oracle_internal.h"

ORC_PRED(nm_pse, 1,
         f->given[FIA_SLOT_PSE_SHIFT] && f->numel[FIA_SLOT_PSE_SHIFT] != 0)

const fia_rule orc_rules_pse[] = {
    ORC_NM_ROW("NM-001", "pse", nm_pse, C002_P("pseShiftOptional"),
               "pse_shift (positional bias added to the scores) with at least "
               "one element is not modeled yet (an empty one counts as absent)",
               NULL),
};
const size_t orc_rules_pse_count =
    sizeof orc_rules_pse / sizeof orc_rules_pse[0];
