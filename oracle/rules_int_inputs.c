/* Rules: int8 query, int8 / int4 (packed as int32) key and value.
 *
 * Not modeled yet: NM-004 refuses the feature (ORC_NM_ROW). */
#include "oracle_internal.h"

static int int_input(const fia_oracle_facts *f)
{
    if (f->given[FIA_SLOT_QUERY] && f->t[FIA_SLOT_QUERY]->dtype == FIA_DT_INT8)
        return 1;
    for (int s = FIA_SLOT_KEY; s <= FIA_SLOT_VALUE; s++) {
        if (!f->given[s])
            continue;
        const fia_tensor_spec *sp = &f->c->tensors[s];
        for (int32_t i = 0; i < sp->count; i++) {
            fia_dtype dt = sp->t[i].dtype;
            if (dt == FIA_DT_INT8 || dt == FIA_DT_INT4 || dt == FIA_DT_INT32)
                return 1;
        }
    }
    return 0;
}

ORC_PRED(nm_int_in, 1, int_input(f))

const fia_rule orc_rules_int_inputs[] = {
    ORC_NM_ROW("NM-004", "int_inputs", nm_int_in,
               C002_P("query") "; " C002_P("key"),
               "int8 query, or int8 / int4 (int32) key/value, is not modeled "
               "yet",
               NULL),
};
const size_t orc_rules_int_inputs_count =
    sizeof orc_rules_int_inputs / sizeof orc_rules_int_inputs[0];
