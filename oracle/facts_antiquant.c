/* oracle/facts_antiquant: the antiquant scene (docs/features/antiquant.md).
 * An fp16/bf16 query with int8, int4 or int32 (int4 packed eight to one)
 * key and value: the key/value are dequantized as (x + offset) * scale.
 * Which parameter set is in use: the separate one when a key or value
 * antiquant scale is given (002 "以KV分离量化参数为准"), else the combined
 * one when any of its tensors is.  Reads dtypes and presence only. */
#include "oracle_internal.h"

static int int_kv(fia_dtype dt)
{
    return dt == FIA_DT_INT8 || dt == FIA_DT_INT4 || dt == FIA_DT_INT32;
}

void orc_facts_antiquant(const fia_case *c, fia_oracle_facts *f)
{
    (void)c;
    const fia_tensor *k = f->t[FIA_SLOT_KEY], *v = f->t[FIA_SLOT_VALUE];
    f->aq_scene = f->q_float && k != NULL && v != NULL && int_kv(k->dtype);
    f->aq_int4 = f->aq_scene &&
                 (k->dtype == FIA_DT_INT4 || k->dtype == FIA_DT_INT32);
    f->aq_sep = f->given[FIA_SLOT_KEY_ANTIQUANT_SCALE] ||
                f->given[FIA_SLOT_VALUE_ANTIQUANT_SCALE];
    f->aq_comb = !f->aq_sep && (f->given[FIA_SLOT_ANTIQUANT_SCALE] ||
                                f->given[FIA_SLOT_ANTIQUANT_OFFSET]);
}
