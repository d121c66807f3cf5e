/* Rules: query / kv left padding (query_padding_size, kv_padding_size).
 *
 * Not modeled yet: NM-007 refuses the feature (ORC_NM_ROW). */
#include "oracle_internal.h"

static const fia_slot padding_slots[] = {FIA_SLOT_QUERY_PADDING_SIZE,
                                         FIA_SLOT_KV_PADDING_SIZE};

ORC_PRED(nm_padding, 1, ORC_ANY_GIVEN(f, padding_slots))

const fia_rule orc_rules_padding[] = {
    ORC_NM_ROW("NM-007", "padding", nm_padding,
               C002_GT1 " (query左padding场景, kv左padding场景)",
               "query/kv left padding (query_padding_size, kv_padding_size) is "
               "not modeled yet",
               "000 says kv_padding_size only works for Q_S > 1, while 002 and "
               "001 document kv left padding on Q_S = 1 too"),
};
const size_t orc_rules_padding_count =
    sizeof orc_rules_padding / sizeof orc_rules_padding[0];
