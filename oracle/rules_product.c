/* Rules: the product a call runs on (docs/features/product.md).
 *
 * 002, 003, 000 and 004 document the Atlas A2 / A3 products with one set of
 * constraints, which every other rule file states.  001 (torch_npu's
 * npu_incre_flash_attention) documents a second product beside them, the
 * Atlas inference card (Atlas 推理系列加速卡产品), with narrower dtypes, two
 * inputs it does not take and smaller limits; a case names it with
 * `product = atlas_inference_card` (only through api =
 * incre_flash_attention, the one document listing it).  These rows are that
 * product's differences; every other rule holds for it as written (001
 * gives the same N <= 256 and D <= 512 for both products).
 *
 * Layers: a dtype a parameter description does not list is the registered-
 * dtype layer (161002 in both profiles); an input the product does not take
 * ("仅支持None", "当前版本不支持") an exclusion; the size limits semantic
 * rules.  The released code describes the A2 / A3 kernels only: profile
 * cann reads these rows as the other semantic rows (561002). */
#include "oracle_internal.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static int card(const fia_oracle_facts *f)
{
    return f->c->product == FIA_PRODUCT_INFERENCE_CARD;
}

static const fia_dtype dt_fp16[] = {FIA_DT_FP16};
static const fia_dtype dt_value[] = {FIA_DT_FP16, FIA_DT_INT8};

ORC_PRED(q_dtype, card(f) && f->given[FIA_SLOT_QUERY],
         !orc_slot_dtypes_in(f, FIA_SLOT_QUERY, dt_fp16, N_OF(dt_fp16)))
ORC_PRED(v_dtype, card(f) && f->given[FIA_SLOT_VALUE],
         !orc_slot_dtypes_in(f, FIA_SLOT_VALUE, dt_value, N_OF(dt_value)))
ORC_PRED(aq_dtype,
         card(f) && (f->given[FIA_SLOT_ANTIQUANT_SCALE] ||
                     f->given[FIA_SLOT_ANTIQUANT_OFFSET]),
         (f->given[FIA_SLOT_ANTIQUANT_SCALE] &&
          !orc_slot_dtypes_in(f, FIA_SLOT_ANTIQUANT_SCALE, dt_fp16,
                              N_OF(dt_fp16))) ||
             (f->given[FIA_SLOT_ANTIQUANT_OFFSET] &&
              !orc_slot_dtypes_in(f, FIA_SLOT_ANTIQUANT_OFFSET, dt_fp16,
                                  N_OF(dt_fp16))))
/* a pse of no element is absent (RELEASED "Silent normalisations") */
ORC_PRED(no_pse, card(f),
         f->given[FIA_SLOT_PSE_SHIFT] && f->numel[FIA_SLOT_PSE_SHIFT] != 0)
ORC_PRED(no_out_quant, card(f),
         f->given[FIA_SLOT_QUANT_SCALE2] || f->given[FIA_SLOT_QUANT_OFFSET2])
ORC_PRED(b_max, card(f) && f->q_rank_ok, f->B > 256)
ORC_PRED(s_max, card(f) && f->q_rank_ok,
         f->Q_S > 65536 || (f->k_rank_ok && f->KV_S > 65536))

#define CARD_ROW(id, layer, cite, text, dis, fn)                             \
    {id, "product", FIA_RULE_REJECT, layer, cite, text, dis, ORC_FN(fn)}

const fia_rule orc_rules_product[] = {
    CARD_ROW("PROD-001", ORC_DTYPE, C001_P("query"),
             "inference card: the query is float16 (not bfloat16)", NULL,
             q_dtype),
    CARD_ROW("PROD-002", ORC_DTYPE, C001_P("value"),
             "inference card: value is float16 or int8 (not bfloat16)",
             "001 lists bfloat16 for the card's key but not its value; the "
             "rule on equal key/value dtypes then refuses a bfloat16 key too",
             v_dtype),
    CARD_ROW("PROD-003", ORC_DTYPE,
             C001_P("antiquant_scale") "; " C001_P("antiquant_offset"),
             "inference card: antiquant_scale and antiquant_offset are "
             "float16",
             NULL, aq_dtype),
    CARD_ROW("PROD-004", ORC_EXCL, C001_P("pse_shift"),
             "inference card: no pse_shift (仅支持None; an empty one is "
             "absent)", NULL, no_pse),
    CARD_ROW("PROD-005", ORC_EXCL,
             C001_P("quant_scale2") "; " C001_P("quant_offset2"),
             "inference card: no output quantization, quant_scale2 / "
             "quant_offset2 (当前版本不支持)",
             NULL, no_out_quant),
    CARD_ROW("PROD-006", ORC_SEM, C001_CONSTR,
             "inference card: batch B is at most 256",
             "the A2 / A3 limit of the same list is 65535 (LAYOUT-020)",
             b_max),
    CARD_ROW("PROD-007", ORC_SEM, C001_CONSTR,
             "inference card: S is at most 65536 (the key/value's; the "
             "query's S is 1 on this decode-only interface)",
             "the A2 / A3 limit of the same list is 262144 (LAYOUT-027)",
             s_max),
};
const size_t orc_rules_product_count =
    sizeof orc_rules_product / sizeof orc_rules_product[0];
