/* Rules: an int8 attention_out (output quantization).
 *
 * Not modeled yet: NM-005 refuses the feature (ORC_NM_ROW). */
#include "oracle_internal.h"

ORC_PRED(nm_int_out, 1,
         f->given[FIA_SLOT_ATTENTION_OUT] && f->out.dtype == FIA_DT_INT8)

const fia_rule orc_rules_int8_out[] = {
    ORC_NM_ROW("NM-005", "int8_out", nm_int_out, C002_P("attentionOut"),
               "an int8 attention_out (output quantization) is not modeled yet",
               NULL),
};
const size_t orc_rules_int8_out_count =
    sizeof orc_rules_int8_out / sizeof orc_rules_int8_out[0];
