/* Rules: an int8 query (full quantization).
 *
 * Not modeled yet: NM-004 refuses the feature (ORC_NM_ROW). */
#include "oracle_internal.h"

/* An int8 query: full quantization (docs/features/int8_quant.md), not
 * modeled.  Int8/int4 key and value with an fp16/bf16 query are the
 * antiquant scene (rules_antiquant.c).  Q_S = 1 with query, key and value
 * all int8 is a documented rejection (ANTI-027), not hidden here. */
static int all_int8(const fia_oracle_facts *f)
{
    static const fia_slot s[] = {FIA_SLOT_QUERY, FIA_SLOT_KEY, FIA_SLOT_VALUE};
    for (int i = 0; i < 3; i++)
        if (!f->given[s[i]] || f->t[s[i]]->dtype != FIA_DT_INT8)
            return 0;
    return 1;
}

static int int_input(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_QUERY] &&
           f->t[FIA_SLOT_QUERY]->dtype == FIA_DT_INT8 &&
           !(orc_is_decode(f) && all_int8(f));
}

ORC_PRED(nm_int_in, 1, int_input(f))

const fia_rule orc_rules_int_inputs[] = {
    ORC_NM_ROW("NM-004", "int_inputs", nm_int_in,
               C002_P("query") "; " C002_P("key"),
               "an int8 query (full quantization) is not modeled yet (int8/int4 "
               "key/value with an fp16/bf16 query: antiquant)",
               NULL),
};
const size_t orc_rules_int_inputs_count =
    sizeof orc_rules_int_inputs / sizeof orc_rules_int_inputs[0];
