/* Rules: MLA: the rope inputs query_rope and key_rope (003).
 *
 * Not modeled yet: NM-010 refuses the feature (ORC_NM_ROW). */
#include "oracle_internal.h"

static const fia_slot rope_slots[] = {FIA_SLOT_QUERY_ROPE, FIA_SLOT_KEY_ROPE};

ORC_PRED(nm_rope, 1, ORC_ANY_GIVEN(f, rope_slots))

const fia_rule orc_rules_mla[] = {
    ORC_NM_ROW("NM-010", "mla", nm_rope, C003_CONSTR " (MLA)",
               "MLA rope inputs (query_rope, key_rope) are not modeled "
               "yet", NULL),
};
const size_t orc_rules_mla_count =
    sizeof orc_rules_mla / sizeof orc_rules_mla[0];
