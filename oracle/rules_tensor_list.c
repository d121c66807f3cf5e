/* Rules: key/value tensor lists with more than one tensor.
 *
 * Not modeled yet: NM-009 refuses the feature (ORC_NM_ROW). */
#include "oracle_internal.h"

ORC_PRED(nm_list, 1,
         f->count[FIA_SLOT_KEY] > 1 || f->count[FIA_SLOT_VALUE] > 1)

const fia_rule orc_rules_tensor_list[] = {
    ORC_NM_ROW("NM-009", "tensor_list", nm_list, C002_CONSTR,
               "key/value tensor lists with more than one tensor are not "
               "modeled yet",
               NULL),
};
const size_t orc_rules_tensor_list_count =
    sizeof orc_rules_tensor_list / sizeof orc_rules_tensor_list[0];
