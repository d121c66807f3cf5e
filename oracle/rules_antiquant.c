/* Rules: key/value antiquantization (int8 / int4 key and value dequantized
 * on the fly).
 *
 * Not modeled yet: NM-003 refuses the feature (ORC_NM_ROW). */
#include "oracle_internal.h"

static const fia_slot antiquant_slots[] = {
    FIA_SLOT_ANTIQUANT_SCALE, FIA_SLOT_ANTIQUANT_OFFSET,
    FIA_SLOT_KEY_ANTIQUANT_SCALE, FIA_SLOT_KEY_ANTIQUANT_OFFSET,
    FIA_SLOT_VALUE_ANTIQUANT_SCALE, FIA_SLOT_VALUE_ANTIQUANT_OFFSET};

ORC_PRED(nm_antiquant, 1,
         ORC_ANY_GIVEN(f, antiquant_slots) ||
             f->c->attrs.antiquant_mode != 0 ||
             f->c->attrs.key_antiquant_mode != 0 ||
             f->c->attrs.value_antiquant_mode != 0)

const fia_rule orc_rules_antiquant[] = {
    ORC_NM_ROW("NM-003", "antiquant", nm_antiquant,
               C002_CONSTR " (伪量化参数, kv伪量化参数分离)",
               "key/value antiquantization (antiquant_* tensors, "
               "key/value_antiquant_* tensors, any antiquant mode != 0) is not "
               "modeled yet",
               "000 says the separate key/value antiquant parameters and modes "
               "are ignored when Q_S > 1; 002 supports them there"),
};
const size_t orc_rules_antiquant_count =
    sizeof orc_rules_antiquant / sizeof orc_rules_antiquant[0];
