/* Rules: 004's learnable_sink.  Not modeled yet: NM-015 refuses it. */
#include "oracle_internal.h"

ORC_PRED(nm_sink, 1, f->given[FIA_SLOT_LEARNABLE_SINK])

const fia_rule orc_rules_sink[] = {
    ORC_NM_ROW("NM-015", "sink", nm_sink, C004_P,
               "learnable_sink is not modeled yet",
               "004 names it without semantics; RELEASED gives them"),
};
const size_t orc_rules_sink_count =
    sizeof orc_rules_sink / sizeof orc_rules_sink[0];
