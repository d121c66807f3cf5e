/* Rules: 003 query quantization (dequant_scale_query, query_quant_mode).
 *
 * Not modeled yet: NM-011 refuses the feature (ORC_NM_ROW). */
#include "oracle_internal.h"

ORC_PRED(nm_qquant, 1,
         f->given[FIA_SLOT_DEQUANT_SCALE_QUERY] ||
             f->c->attrs.query_quant_mode != 0)

const fia_rule orc_rules_query_quant[] = {
    ORC_NM_ROW("NM-011", "query_quant", nm_qquant,
               C003_P("dequant_scale_query") "; " C003_P("query_quant_mode"),
               "query quantization (dequant_scale_query, query_quant_mode != "
               "0) is not modeled yet",
               "003 says query_quant_mode accepts only 3 yet gives it "
               "default 0"),
};
const size_t orc_rules_query_quant_count =
    sizeof orc_rules_query_quant / sizeof orc_rules_query_quant[0];
