/* Rules: the 003 layouts (TND, NTD, ..., *_NBSD).  facts_layout.c recognizes
 * them; nothing reads their dims yet.
 *
 * Not modeled yet: NM-012 refuses the feature (ORC_NM_ROW). */
#include "oracle_internal.h"

ORC_PRED(nm_layout_v2, 1, f->layout == ORC_LAYOUT_V2)

const fia_rule orc_rules_tnd[] = {
    ORC_NM_ROW("NM-012", "tnd", nm_layout_v2, C003_P("input_layout"),
               "the 003 layouts (TND, TND_NTD, NTD_TND, NTD, BSH_NBSD, "
               "BSND_NBSD, BNSD_NBSD) are not modeled yet",
               NULL),
};
const size_t orc_rules_tnd_count =
    sizeof orc_rules_tnd / sizeof orc_rules_tnd[0];
