/* Rules: int8 quantization of the computation: the dequant / quant scales
 * around the two matmuls and the output.
 *
 * Not modeled yet: NM-002 refuses the feature (ORC_NM_ROW). */
#include "oracle_internal.h"

static const fia_slot quant_slots[] = {
    FIA_SLOT_DEQUANT_SCALE1, FIA_SLOT_QUANT_SCALE1, FIA_SLOT_DEQUANT_SCALE2,
    FIA_SLOT_QUANT_SCALE2, FIA_SLOT_QUANT_OFFSET2};

ORC_PRED(nm_quant, 1, ORC_ANY_GIVEN(f, quant_slots))

const fia_rule orc_rules_int8_quant[] = {
    ORC_NM_ROW("NM-002", "int8_quant", nm_quant,
               C002_CONSTR " (int8量化相关入参); " C002_P("deqScale1Optional"),
               "int8 quantization scales (dequant_scale1, quant_scale1, "
               "dequant_scale2, quant_scale2, quant_offset2) are not modeled "
               "yet",
               "the released code ignores dequant/quant scale 1 with fp16/bf16 "
               "input on Q_S > 1 instead of rejecting them"),
};
const size_t orc_rules_int8_quant_count =
    sizeof orc_rules_int8_quant / sizeof orc_rules_int8_quant[0];
