/* Rules: atten_mask dtype, presence and shape, per path and sparse mode. */
#include "oracle_internal.h"

static const fia_dtype dt_mask_registered[] = {FIA_DT_BOOL, FIA_DT_INT8,
                                               FIA_DT_UINT8, FIA_DT_FP16};

static const fia_tensor *mask(const fia_oracle_facts *f)
{
    return f->t[FIA_SLOT_ATTEN_MASK];
}

static int64_t sparse(const fia_oracle_facts *f)
{
    return f->c->attrs.sparse_mode;
}

/* Scopes. */
static int dims_known(const fia_oracle_facts *f)
{
    return f->q_rank_ok && f->k_rank_ok;
}
static int prefill_full_mask(const fia_oracle_facts *f)
{
    return orc_is_prefill(f) && f->mask_effective &&
           (sparse(f) == 0 || sparse(f) == 1);
}
static int decode_mask(const fia_oracle_facts *f)
{
    return orc_is_decode(f) && f->mask_effective;
}
static int prefill_opt_mask(const fia_oracle_facts *f)
{
    return orc_is_prefill(f) && sparse(f) >= 2 && sparse(f) <= 4;
}

static int rank_2to4_bad(const fia_oracle_facts *f)
{
    return mask(f)->ndim < 2 || mask(f)->ndim > 4;
}

/* Q_S > 1, full mask: (Q,K) (B|1,Q,K) (B|1,1,Q,K). */
static int prefill_lead_bad(const fia_oracle_facts *f)
{
    const fia_tensor *m = mask(f);
    if (m->ndim == 3)
        return m->shape[0] != 1 && m->shape[0] != f->B;
    if (m->ndim == 4)
        return (m->shape[0] != 1 && m->shape[0] != f->B) || m->shape[1] != 1;
    return 0;
}
static int prefill_tail_bad(const fia_oracle_facts *f)
{
    const fia_tensor *m = mask(f);
    return m->shape[m->ndim - 2] < f->Q_S || m->shape[m->ndim - 1] < f->KV_S;
}
static int prefill_tail_larger(const fia_oracle_facts *f)
{
    const fia_tensor *m = mask(f);
    return m->shape[m->ndim - 2] > f->Q_S || m->shape[m->ndim - 1] > f->KV_S;
}

/* Q_S = 1: (B,K) (B,1,K) (B,1,1,K). */
static int decode_lead_bad(const fia_oracle_facts *f)
{
    const fia_tensor *m = mask(f);
    if (m->shape[0] != f->B)
        return 1;
    for (int i = 1; i < m->ndim - 1; i++)
        if (m->shape[i] != 1)
            return 1;
    return 0;
}
static int decode_tail_bad(const fia_oracle_facts *f)
{
    const fia_tensor *m = mask(f);
    return m->shape[m->ndim - 1] < f->KV_S;
}
static int decode_tail_larger(const fia_oracle_facts *f)
{
    const fia_tensor *m = mask(f);
    return m->shape[m->ndim - 1] > f->KV_S;
}

static int opt_shape_bad(const fia_oracle_facts *f)
{
    return orc_mask_opt_shape_bad(f);
}

ORC_PRED(mask_dtype_reg, f->given[FIA_SLOT_ATTEN_MASK],
         !orc_dtype_in(mask(f)->dtype, dt_mask_registered,
                       sizeof dt_mask_registered /
                           sizeof dt_mask_registered[0]))
ORC_PRED(mask_fp16, f->given[FIA_SLOT_ATTEN_MASK],
         mask(f)->dtype == FIA_DT_FP16)
ORC_PRED(pf_rank, prefill_full_mask(f), rank_2to4_bad(f))
ORC_PRED(pf_lead, prefill_full_mask(f) && dims_known(f) && !rank_2to4_bad(f),
         prefill_lead_bad(f))
ORC_PRED(pf_tail, prefill_full_mask(f) && dims_known(f) && !rank_2to4_bad(f),
         prefill_tail_bad(f))
ORC_PRED(dc_rank, decode_mask(f), rank_2to4_bad(f))
ORC_PRED(dc_lead, decode_mask(f) && dims_known(f) && !rank_2to4_bad(f),
         decode_lead_bad(f))
ORC_PRED(dc_tail, decode_mask(f) && dims_known(f) && !rank_2to4_bad(f),
         decode_tail_bad(f))
ORC_PRED(s1_needs_mask, orc_is_prefill(f) && sparse(f) == 1,
         !f->mask_effective)
ORC_PRED(s234_needs_mask, prefill_opt_mask(f), !f->mask_effective)
ORC_PRED(s234_shape, prefill_opt_mask(f) && f->mask_effective,
         opt_shape_bad(f))
ORC_PRED(empty_mask, f->given[FIA_SLOT_ATTEN_MASK],
         f->numel[FIA_SLOT_ATTEN_MASK] == 0)
ORC_PRED(mask_aligned_up,
         dims_known(f) && !f->short_circuit &&
             ((prefill_full_mask(f) && !rank_2to4_bad(f)) ||
              (decode_mask(f) && !rank_2to4_bad(f))),
         orc_is_prefill(f) ? prefill_tail_larger(f) : decode_tail_larger(f))

const fia_rule orc_rules_mask[] = {
    {"MASK-001", "mask", FIA_RULE_REJECT, ORC_DTYPE,
     C002_REGOP "; " C002_RET,
     "atten_mask dtype must be in the registered list (bool, int8, uint8, "
     "fp16)",
     NULL, ORC_FN(mask_dtype_reg)},
    {"MASK-002", "mask", FIA_RULE_REJECT, ORC_SEM,
     C002_P("attenMaskOptional") "; " CREL("Return codes, by layer"),
     "atten_mask must be bool, int8 or uint8: a float16 mask is rejected",
     "002's parameter text (and 000, 001, 003) allow only bool/int8/uint8, "
     "so the documents reject fp16 as a dtype error (161002); but 002 REG_OP "
     "registers DT_FLOAT16 for atten_mask, and the released code lets fp16 "
     "pass the dtype check and rejects it in tiling (561002). Ranked at the "
     "semantic layer",
     ORC_FN(mask_fp16)},
    {"MASK-003", "mask", FIA_RULE_REJECT, ORC_SEM,
     C002_P("attenMaskOptional"),
     "Q_S > 1, sparse_mode 0/1: the mask must be 2-D, 3-D or 4-D", NULL,
     ORC_FN(pf_rank)},
    {"MASK-004", "mask", FIA_RULE_REJECT, ORC_SEM,
     C002_P("attenMaskOptional"),
     "Q_S > 1, sparse_mode 0/1: the mask's leading dims must be (B|1) for 3-D "
     "and (B|1, 1) for 4-D",
     "the documents say 'suggested shapes' ('建议shape输入'); we read the "
     "list as the accepted shapes",
     ORC_FN(pf_lead)},
    {"MASK-005", "mask", FIA_RULE_REJECT, ORC_SEM,
     C002_P("attenMaskOptional"),
     "Q_S > 1, sparse_mode 0/1: the mask's last two dims must be at least "
     "(Q_S, KV_S) (they may be rounded up for alignment)",
     "the documents allow rounding S up to 16/32 alignment; we accept any "
     "larger size (docs/features/mask.md)",
     ORC_FN(pf_tail)},
    {"MASK-006", "mask", FIA_RULE_REJECT, ORC_SEM,
     C002_P("attenMaskOptional"),
     "Q_S = 1: the mask must be 2-D, 3-D or 4-D", NULL, ORC_FN(dc_rank)},
    {"MASK-007", "mask", FIA_RULE_REJECT, ORC_SEM,
     C002_P("attenMaskOptional"),
     "Q_S = 1: the mask must be (B, KV_S), (B, 1, KV_S) or (B, 1, 1, KV_S): "
     "first dim B, middle dims 1",
     "the documents say 'suggested shapes'; we read the list as the accepted "
     "shapes",
     ORC_FN(dc_lead)},
    {"MASK-008", "mask", FIA_RULE_REJECT, ORC_SEM,
     C002_P("attenMaskOptional"),
     "Q_S = 1: the mask's last dim must be at least KV_S", NULL,
     ORC_FN(dc_tail)},
    {"MASK-009", "mask", FIA_RULE_REJECT, ORC_SEM,
     C002_P("sparseMode") "; " C000_KW("sparse_mode"),
     "Q_S > 1, sparse_mode 1 (allMask) requires a mask",
     "the parameter text says the full mask 'must' be passed; unlike modes "
     "2-4, the constraint list does not say explicitly that a missing mask is "
     "an error",
     ORC_FN(s1_needs_mask)},
    {"MASK-010", "mask", FIA_RULE_REJECT, ORC_SEM, C002_GT1,
     "Q_S > 1, sparse_mode 2/3/4 requires a mask", NULL,
     ORC_FN(s234_needs_mask)},
    {"MASK-011", "mask", FIA_RULE_REJECT, ORC_SEM, C002_GT1,
     "Q_S > 1, sparse_mode 2/3/4: the mask must be (2048, 2048), "
     "(1, 2048, 2048) or (1, 1, 2048, 2048)",
     NULL, ORC_FN(s234_shape)},
    {"MASK-N01", "mask", FIA_RULE_NORMALIZE, ORC_NORM,
     CREL("Silent normalisations"),
     "an atten_mask with no elements is treated as absent", NULL,
     ORC_FN(empty_mask)},
    {"MASK-N02", "mask", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_P("attenMaskOptional"),
     "a full mask larger than (Q_S, KV_S) (S rounded up for alignment) is "
     "accepted; only its top-left (Q_S, KV_S) part is read",
     NULL, ORC_FN(mask_aligned_up)},
};
const size_t orc_rules_mask_count =
    sizeof orc_rules_mask / sizeof orc_rules_mask[0];
