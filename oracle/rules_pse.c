/* Rules: pse_shift, the positional bias added to the scores
 * (docs/features/pse.md).  An empty pse_shift is absent (RELEASED), so no
 * rule reads it.  A token layout refuses pse altogether (TND-X02); a
 * shared prefix at Q_S = 1 with pse is not modeled (NM-008). */
#include "oracle_internal.h"

static const fia_tensor *pse(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_PSE_SHIFT] && f->numel[FIA_SLOT_PSE_SHIFT] != 0
               ? f->t[FIA_SLOT_PSE_SHIFT]
               : NULL;
}

/* pse given and the dims its rules read known (a 002 layout). */
static int scope(const fia_oracle_facts *f)
{
    return pse(f) != NULL && f->layout_modeled && f->q_rank_ok;
}

static int dt_pair_prefill(const fia_oracle_facts *f)
{
    fia_dtype p = pse(f)->dtype, q = f->t[FIA_SLOT_QUERY]->dtype;
    if (p == FIA_DT_FP16)
        return q != FIA_DT_FP16 && q != FIA_DT_INT8;
    if (p == FIA_DT_BF16)
        return q != FIA_DT_BF16;
    return 0; /* another dtype is TENS-013's */
}

static int dt_pair_decode(const fia_oracle_facts *f)
{
    fia_dtype p = pse(f)->dtype, q = f->t[FIA_SLOT_QUERY]->dtype;
    return (p == FIA_DT_FP16 || p == FIA_DT_BF16) && p != q;
}

/* (B or 1, N, ., .) */
static int lead_dims_bad(const fia_oracle_facts *f)
{
    const fia_tensor *t = pse(f);
    return t->ndim != 4 || (t->shape[0] != 1 && t->shape[0] != f->B) ||
           t->shape[1] != f->N;
}

/* The released code's reading of the lead dims: also one head for all
 * (a public report against torch_npu 2.10, vllm-ascend #15503: a
 * [1,1,1,4096] pse_shift with 12 heads was accepted). */
static int lead_dims_bad_released(const fia_oracle_facts *f)
{
    const fia_tensor *t = pse(f);
    return t->ndim != 4 || (t->shape[0] != 1 && t->shape[0] != f->B) ||
           (t->shape[1] != f->N && t->shape[1] != 1);
}

static int one_head_for_all(const fia_oracle_facts *f)
{
    const fia_tensor *t = pse(f);
    return !lead_dims_bad_released(f) && f->N > 1 && t->shape[1] == 1;
}

/* Q_S > 1: S dims at least the query's and the key's (a longer one is
 * padding that is not read); Q_S = 1: (., ., 1, >= KV_S).  Page attention's
 * KV_S is maxBlockNumPerSeq x block_size (facts_paged.c). */
static int s_dims_bad(const fia_oracle_facts *f)
{
    const fia_tensor *t = pse(f);
    if (orc_is_decode(f))
        return t->shape[2] != 1 || t->shape[3] < f->KV_S;
    return t->shape[2] < f->Q_S || t->shape[3] < f->KV_S;
}

ORC_PRED(pair_prefill, scope(f) && orc_is_prefill(f), dt_pair_prefill(f))
ORC_PRED(pair_decode, scope(f) && orc_is_decode(f), dt_pair_decode(f))
ORC_PRED(lead, scope(f), lead_dims_bad(f))
ORC_PRED(lead_released, scope(f), lead_dims_bad_released(f))
ORC_PRED(one_head, scope(f), one_head_for_all(f))
/* the S dims are read against the documents' lead dims in both profiles
 * (a pse of one head for all is refused as NM-019 in cann anyway) */
ORC_PRED(sdims, scope(f) && f->k_rank_ok && !lead_dims_bad(f), s_dims_bad(f))
ORC_PRED(d16, scope(f) && orc_is_decode(f) && f->q_d_ok, f->D % 16 != 0)
ORC_PRED(empty, f->given[FIA_SLOT_PSE_SHIFT], f->numel[FIA_SLOT_PSE_SHIFT] == 0)
ORC_PRED(fp16_precise,
         pse(f) != NULL && f->t[FIA_SLOT_QUERY] != NULL &&
             f->t[FIA_SLOT_QUERY]->dtype == FIA_DT_FP16,
         1)

#define C_PSE_GT1 C002_GT1 " (pseShift功能使用限制)"
#define C_PSE_EQ1 C002_EQ1 " (pseShift功能使用限制)"

const fia_rule orc_rules_pse[] = {
    {"PSE-001", "pse", FIA_RULE_REJECT, ORC_SEM,
     C002_P("pseShiftOptional") "; " C000_KW("pse_shift") "; "
         C003_P("pse_shift"),
     "Q_S > 1: an fp16 pse_shift takes an fp16 or int8 query, a bf16 one a "
     "bf16 query",
     NULL, ORC_FN(pair_prefill)},
    {"PSE-002", "pse", FIA_RULE_REJECT, ORC_SEM,
     C002_P("pseShiftOptional") "; " C_PSE_EQ1 "; " C001_P("pse_shift"),
     "Q_S = 1: pse_shift has the query's dtype",
     NULL, ORC_FN(pair_decode)},
    /* doc only: the released code reads it as PSE-006 */
    {"PSE-003", "pse", FIA_RULE_REJECT, FIA_LAYER_SEMANTIC,
     FIA_ERR_PARAM_INVALID, FIA_OK,
     C002_P("pseShiftOptional") "; " C000_KW("pse_shift") "; "
         C003_P("pse_shift"),
     "pse_shift is 4-D (B or 1, N, ., .): batch B or 1 (broadcast), the "
     "query's heads",
     "a public report against the released operator (vllm-ascend #15503, "
     "torch_npu 2.10: decode, N 12, page attention) says it accepted a "
     "pse_shift [1,1,1,4096], one head for all: profile cann applies "
     "PSE-006 instead",
     ORC_FN(lead)},
    /* cann only: the released code's wider reading of PSE-003 */
    {"PSE-006", "pse", FIA_RULE_REJECT, FIA_LAYER_SEMANTIC, FIA_OK,
     FIA_ERR_INNER_TILING_ERROR,
     C002_P("pseShiftOptional") "; vllm-ascend #15503",
     "pse_shift is 4-D (B or 1, N or 1, ., .): the released code's "
     "rejection",
     "PSE-003 asks the query's heads; the released code took one head for "
     "twelve in a public report (vllm-ascend #15503), and its tiling tests "
     "have none against it (tGQA_PSE_BSH, tPSE_Shift_BSH pass N); "
     "what it computes then is NM-019's",
     ORC_FN_CANN(lead_released)},
    {"NM-019", "pse", FIA_RULE_NOT_MODELED, FIA_LAYER_ARITHMETIC, FIA_OK,
     FIA_ERR_NOT_MODELED, C002_P("pseShiftOptional") "; vllm-ascend #15503",
     "a pse_shift of one head for N > 1 query heads (PSE-006), profile "
     "cann: every rule judges the call, then it is refused",
     "no document gives it a meaning (a broadcast over the heads is the "
     "reading a user expects; the report says the released code computed "
     "something else), so fiacheck computes nothing it could be judged by",
     ORC_FN_CANN(one_head)},
    {"PSE-004", "pse", FIA_RULE_REJECT, ORC_SEM,
     C002_P("pseShiftOptional") "; " C_PSE_GT1 "; " C002_GT1
         " (page attention场景)",
     "pse_shift's S dims: Q_S > 1, at least the query's S and the key's S "
     "(more is padding, not read); Q_S = 1, (1, at least KV_S); with page "
     "attention KV_S is maxBlockNumPerSeq x block_size",
     "002 参数说明 writes (B,N,Q_S,KV_S) exactly and recommends padding "
     "KV_S to 32 bytes; 约束说明 asks only 'at least': fiacheck reads the "
     "latter",
     ORC_FN(sdims)},
    {"PSE-005", "pse", FIA_RULE_REJECT, ORC_SEM, C_PSE_EQ1 "; " C000_EQ1,
     "Q_S = 1: with pse_shift the head dim D is a multiple of 16",
     "RELEASED accepts a D not 16-aligned at Q_S = 1 without pse; with "
     "pse both profiles keep the documented rule",
     ORC_FN(d16)},
    {"PSE-N01", "pse", FIA_RULE_NORMALIZE, ORC_NORM,
     CREL("Silent normalisations"),
     "an empty pse_shift (no element) is absent", NULL, ORC_FN(empty)},
    {"PSE-N02", "pse", FIA_RULE_NORMALIZE, ORC_NORM,
     C_PSE_GT1 "; " C000_GT1 "; " CREL("Silent normalisations"),
     "an fp16 query with pse_shift runs in high precision whatever "
     "inner_precise says (P is not rounded to fp16 before P.V)",
     "002 and 000 say so under Q_S > 1; RELEASED without a path: fiacheck "
     "applies it on both paths in both profiles",
     ORC_FN(fp16_precise)},
};
const size_t orc_rules_pse_count =
    sizeof orc_rules_pse / sizeof orc_rules_pse[0];
