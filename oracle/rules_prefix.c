/* Rules: the shared system prefix (key/value_shared_prefix,
 * actual_shared_prefix_len).
 *
 * Not modeled yet: NM-008 refuses the feature (ORC_NM_ROW). */
#include "oracle_internal.h"

static const fia_slot prefix_slots[] = {FIA_SLOT_KEY_SHARED_PREFIX,
                                        FIA_SLOT_VALUE_SHARED_PREFIX};

ORC_PRED(nm_prefix, 1,
         ORC_ANY_GIVEN(f, prefix_slots) ||
             f->c->arrays[FIA_ARR_ACTUAL_SHARED_PREFIX_LEN].presence ==
                 FIA_PRESENT)

const fia_rule orc_rules_prefix[] = {
    ORC_NM_ROW("NM-008", "prefix", nm_prefix,
               C002_GT1 " (prefix相关参数约束)",
               "the shared system prefix (key/value_shared_prefix, "
               "actual_shared_prefix_len) is not modeled yet",
               "000 calls these parameters reserved and not enabled yet"),
};
const size_t orc_rules_prefix_count =
    sizeof orc_rules_prefix / sizeof orc_rules_prefix[0];
