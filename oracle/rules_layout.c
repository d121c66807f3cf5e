/* Rules: input_layout, ranks, shape agreement between query, key and value,
 * and the size limits of each path. */
#include "oracle_internal.h"

static int is_4d(const fia_oracle_facts *f)
{
    return f->layout_modeled && f->layout != ORC_LAYOUT_BSH;
}

/* Every tensor of a list has the wanted rank. */
static int list_rank_bad(const fia_oracle_facts *f, fia_slot s)
{
    const fia_tensor_spec *sp = &f->c->tensors[s];
    for (int32_t i = 0; i < sp->count; i++)
        if (sp->t[i].ndim != f->q_rank_want)
            return 1;
    return 0;
}

static int kv_shape_differs(const fia_oracle_facts *f)
{
    const fia_tensor_spec *k = &f->c->tensors[FIA_SLOT_KEY];
    const fia_tensor_spec *v = &f->c->tensors[FIA_SLOT_VALUE];
    if (k->count != v->count)
        return 1;
    for (int32_t i = 0; i < k->count; i++) {
        if (k->t[i].ndim != v->t[i].ndim)
            return 1;
        for (int32_t d = 0; d < k->t[i].ndim && d < FIA_MAX_RANK; d++)
            if (k->t[i].shape[d] != v->t[i].shape[d])
                return 1;
    }
    return 0;
}

static int both_kv(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_KEY] && f->given[FIA_SLOT_VALUE];
}

/* A single key tensor: lists of several are not modeled (NM-009). */
static int single_kv(const fia_oracle_facts *f)
{
    return f->count[FIA_SLOT_KEY] == 1;
}

static int64_t nd_limit_lhs(const fia_oracle_facts *f)
{
    /* N*D with N, D <= limits checked elsewhere; guard the product. */
    if (f->N <= 0 || f->D < 0 || f->N > (int64_t)1 << 31 ||
        f->D > (int64_t)1 << 31)
        return -1;
    return f->N * f->D;
}

static int d_not_16b_aligned(const fia_oracle_facts *f)
{
    /* fp16/bf16 elements are 2 bytes: 16-byte alignment is D % 8 == 0. */
    return f->D % 8 != 0;
}

ORC_PRED(layout_known, 1, f->layout == ORC_LAYOUT_INVALID)
ORC_PRED(bnsd_bsnd_decode, f->layout == ORC_LAYOUT_BNSD_BSND && f->q_rank_ok,
         f->Q_S == 1)
ORC_PRED(q_rank, f->layout_modeled && f->given[FIA_SLOT_QUERY],
         f->t[FIA_SLOT_QUERY]->ndim != f->q_rank_want)
ORC_PRED(k_rank, f->layout_modeled && f->given[FIA_SLOT_KEY] && !f->paged,
         list_rank_bad(f, FIA_SLOT_KEY))
ORC_PRED(v_rank, f->layout_modeled && f->given[FIA_SLOT_VALUE] && !f->paged,
         list_rank_bad(f, FIA_SLOT_VALUE))
ORC_PRED(kv_shape, both_kv(f) && !f->tnd, kv_shape_differs(f))
/* the released code's reading: value's D may be 128 beside key's 192; a
 * list's pairs are LIST-008's (checked before the early return) */
ORC_PRED(kv_shape_rel, both_kv(f) && !f->tnd && !f->kv_list,
         kv_shape_differs(f) && !orc_value_d_pair(f))
ORC_PRED(num_heads_pos, 1, f->N <= 0)
ORC_PRED(q_n_axis, is_4d(f) && f->q_rank_ok, f->QN != f->N)
ORC_PRED(q_h_div, f->layout == ORC_LAYOUT_BSH && f->q_rank_ok && f->N > 0,
         f->H % f->N != 0)
ORC_PRED(kv_batch,
         f->q_rank_ok && f->k_rank_ok && single_kv(f) && !f->paged && !f->tnd,
         f->KB != f->B)
ORC_PRED(k_n_axis, is_4d(f) && f->k_rank_ok && single_kv(f) && !f->paged,
         f->KN != f->KV_N)
ORC_PRED(k_h_div,
         f->layout == ORC_LAYOUT_BSH && f->k_rank_ok && single_kv(f) &&
             f->KV_N > 0 && !f->paged,
         f->KH % f->KV_N != 0)
ORC_PRED(kd_qd, f->q_d_ok && f->k_d_ok && single_kv(f), f->KD != f->D)
/* The batch limit of the case's own interface's document (the doc
 * profile follows it; 002's where the document is silent): 001 (IFA)
 * 65535; 000 65535 at Q_S > 1 and 65536 at Q_S = 1; 002, 003, 004
 * 65536.  The released code behind each front door is not described
 * otherwise: profile cann keeps the same limits. */
static int64_t b_limit(const fia_oracle_facts *f)
{
    switch (f->c->api) {
    case FIA_API_INCRE_FLASH_ATTENTION:
        return 65535;
    case FIA_API_MINDSPORE:
        return f->Q_S > 1 ? 65535 : 65536;
    default:
        return 65536;
    }
}
ORC_PRED(b_max, f->q_rank_ok, f->B > b_limit(f))
ORC_PRED(n_max, 1, f->N > 256)
ORC_PRED(d_max, f->q_d_ok, f->D > 512)
/* MLA's own list documents 128 heads of 512 in BSH at Q_S up to 16
 * (rules_mla.c): the specific list wins */
ORC_PRED(nd_max,
         orc_is_prefill(f) && f->q_d_ok && !f->mla512 &&
             (f->layout == ORC_LAYOUT_BSH || f->layout == ORC_LAYOUT_BSND),
         nd_limit_lhs(f) >= 65535)
ORC_PRED(d_align16, orc_is_prefill(f) && f->q_d_ok && f->q_float && f->kv_float,
         f->D % 16 != 0)
ORC_PRED(d_b128, orc_is_prefill(f) && f->q_d_ok && f->q_float && f->kv_float &&
                     d_not_16b_aligned(f),
         f->B > 128)
ORC_PRED(s_max_prefill, orc_is_prefill(f),
         f->Q_S > 20971520 || (f->k_rank_ok && f->KV_S > 20971520))
ORC_PRED(s_max_decode, orc_is_decode(f) && f->k_rank_ok, f->KV_S > 262144)
/* Normalization: D not 16-aligned accepted on the decode path. */
ORC_PRED(decode_d_unaligned, orc_is_decode(f) && f->q_d_ok, f->D % 16 != 0)

const fia_rule orc_rules_layout[] = {
    {"LAYOUT-001", "layout", FIA_RULE_REJECT, ORC_SEM,
     C002_P("inputLayout") "; " C003_P("input_layout"),
     "input_layout must be a known layout: BSH, BSND, BNSD, BNSD_BSND "
     "(002), TND, TND_NTD, NTD_TND and the *_NBSD outputs (003), NTD "
     "(RELEASED; TND-024)",
     "002 and 000 know only the four layouts; 003 adds TND, TND_NTD, NTD_TND "
     "and the *_NBSD outputs; the released code also accepts NTD, which 003 "
     "uses only inside NTD_TND/TND_NTD",
     ORC_FN(layout_known)},
    /* doc only: the released code takes BNSD_BSND at Q_S = 1 */
    {"LAYOUT-002", "layout", FIA_RULE_REJECT, FIA_LAYER_SEMANTIC,
     FIA_ERR_PARAM_INVALID, FIA_OK,
     C002_P("inputLayout") "; " C000_KW("input_layout"),
     "BNSD_BSND (BNSD in, BSND out) is supported only when Q_S > 1",
     "the released code accepts BNSD_BSND at Q_S = 1 (its tiling test "
     "tCrossover_BNSD_BSND_success, B 2, N 1, D 80, Q_S 1, succeeds; "
     "RELEASED-BEHAVIOUR.md lists BNSD_BSND among the accepted layouts "
     "with no Q_S limit): profile cann does not apply the rule",
     ORC_FN(bnsd_bsnd_decode)},
    {"LAYOUT-003", "layout", FIA_RULE_REJECT, ORC_SEM,
     C002_P("inputLayout") "; " C001_CONSTR,
     "query rank must follow the layout: 3 for BSH, 4 for BSND/BNSD/BNSD_BSND",
     NULL, ORC_FN(q_rank)},
    {"LAYOUT-004", "layout", FIA_RULE_REJECT, ORC_SEM,
     C002_P("inputLayout") "; " C001_CONSTR,
     "every key tensor's rank must follow the layout (3 for BSH, else 4)",
     NULL, ORC_FN(k_rank)},
    {"LAYOUT-005", "layout", FIA_RULE_REJECT, ORC_SEM,
     C002_P("inputLayout") "; " C001_CONSTR,
     "every value tensor's rank must follow the layout (3 for BSH, else 4)",
     NULL, ORC_FN(v_rank)},
    /* doc only: the released code reads it as LAYOUT-014 */
    {"LAYOUT-006", "layout", FIA_RULE_REJECT, FIA_LAYER_SEMANTIC,
     FIA_ERR_PARAM_INVALID, FIA_OK, C002_CONSTR,
     "key and value tensors must have exactly the same shapes (and count; "
     "token layouts: TND-005)",
     "the released code accepts a value of head dim 128 beside a key of 192 "
     "in the batched layouts, paged or not (its tiling tests "
     "tErr_PA_value_D_neq_vHeadDim, tMLA_RopeCombine_BSH, "
     "tMLA_RopeCombine_BNSD succeed; RELEASED \"Head dims on the current "
     "path\"), and rejects every other difference (tErr_PA_4D_kv_D_mismatch, "
     "tErr_PA_kv_blocknum_mismatch, tTL_err_*_value_D_mismatch): profile "
     "cann applies LAYOUT-014 instead",
     ORC_FN(kv_shape)},
    /* cann only: the released code's narrower reading of LAYOUT-006 */
    {"LAYOUT-014", "layout", FIA_RULE_REJECT, FIA_LAYER_SEMANTIC, FIA_OK,
     FIA_ERR_INNER_TILING_ERROR,
     C002_CONSTR "; " CREL("Layouts, head dims and parameters"),
     "a single key and value tensor (or cache) have the same shape, but "
     "for value's head dim 128 beside key's 192: the released code's "
     "rejection (key/value lists: LIST-008)",
     "002 asks identical shapes (LAYOUT-006, profile doc); the released "
     "code's tiling tests accept key D 192 with value D 128 "
     "(tErr_PA_value_D_neq_vHeadDim, tMLA_RopeCombine_BSH / _BNSD) and "
     "reject key D 128 with value D 64 (tErr_PA_4D_kv_D_mismatch) and "
     "other differences; key/value lists are LIST-008's (identical pairs, "
     "checked before the early return for a call that reads no key, where "
     "this row is checked after it); profile doc does not apply this row",
     ORC_FN_CANN(kv_shape_rel)},
    {"LAYOUT-007", "layout", FIA_RULE_REJECT, ORC_SEM,
     C002_REGOP "; " C002_P("numHeads"),
     "num_heads is a required attribute and must be positive",
     "000 gives num_heads a default of 1 while 002 REG_OP makes it a "
     "required attribute",
     ORC_FN(num_heads_pos)},
    {"LAYOUT-008", "layout", FIA_RULE_REJECT, ORC_SEM,
     C002_P("numHeads") "; " C001_CONSTR,
     "for the 4-D layouts, the query's N axis must equal num_heads",
     "002 states it for BNSD only ('otherwise the execution is abnormal', "
     "not explicitly an interception); 001 requires num_heads to equal the "
     "query's N in general",
     ORC_FN(q_n_axis)},
    {"LAYOUT-009", "layout", FIA_RULE_REJECT, ORC_SEM,
     C002_P("inputLayout") " (说明)",
     "for BSH, the query's H must be a multiple of num_heads (D = H / N)",
     NULL, ORC_FN(q_h_div)},
    {"LAYOUT-010", "layout", FIA_RULE_REJECT, ORC_SEM,
     C002_P("inputLayout") "; " C002_CONSTR,
     "key/value must have the query's batch B (single-tensor key/value)",
     "inferred from the layout definitions; tensor lists (B tensors of batch "
     "1) are not modeled",
     ORC_FN(kv_batch)},
    {"LAYOUT-011", "layout", FIA_RULE_REJECT, ORC_SEM,
     C002_P("numKeyValueHeads") "; " C001_CONSTR,
     "for the 4-D layouts, the key/value N axis must equal "
     "num_key_value_heads (0 meaning num_heads)",
     "002 words a mismatch as 'execution is abnormal' rather than an "
     "interception; 000 names only BNSD",
     ORC_FN(k_n_axis)},
    {"LAYOUT-012", "layout", FIA_RULE_REJECT, ORC_SEM,
     C002_P("inputLayout") " (说明)",
     "for BSH, the key's H must be a multiple of num_key_value_heads", NULL,
     ORC_FN(k_h_div)},
    {"LAYOUT-013", "layout", FIA_RULE_REJECT, ORC_SEM,
     C002_P("attentionOut") "; " C002_P("inputLayout"),
     "key/value head dim D must equal the query's D",
     "003 §返回值说明 ties the output's D to value's D and its TND rules allow "
     "V_D != Q_D (TND-016, TND-025: attention_out then has value's D); 002 "
     "requires the output shape to equal the query's (OUT-003, which the "
     "token layouts do not take); K_D = Q_D in every layout",
     ORC_FN(kd_qd)},
    {"LAYOUT-020", "layout", FIA_RULE_REJECT, ORC_SEM,
     C002_GT1 "; " C002_EQ1 "; " C001_CONSTR "; " C000_GT1 "; " C000_EQ1,
     "batch B must be at most the limit of the case's interface: 65536 "
     "(002, 003, 004), 65535 (001), 65535 at Q_S > 1 and 65536 at Q_S = 1 "
     "(000)",
     "the documents differ; each interface's case is held to its own "
     "document (001 §约束说明, 000 §约束), 002's where one is silent",
     ORC_FN(b_max)},
    {"LAYOUT-021", "layout", FIA_RULE_REJECT, ORC_SEM,
     C002_GT1 "; " C002_EQ1, "num_heads N must be at most 256 (both paths)",
     NULL, ORC_FN(n_max)},
    {"LAYOUT-022", "layout", FIA_RULE_REJECT, ORC_SEM,
     C002_GT1 "; " C002_EQ1, "head dim D must be at most 512 (both paths)",
     NULL, ORC_FN(d_max)},
    {"LAYOUT-023", "layout", FIA_RULE_REJECT, ORC_SEM, C002_GT1,
     "Q_S > 1 with BSH or BSND: N * D must be below 65535",
     "003 words it as a recommendation ('建议'), 000 does not mention it; 002 "
     "states it as a requirement (used here); 003's MLA list (D = 512) "
     "allows 128 heads of 512 in BSH at Q_S up to 16, so MLA is exempt",
     ORC_FN(nd_max)},
    {"LAYOUT-024", "layout", FIA_RULE_REJECT, ORC_SEM,
     C002_GT1 "; " CREL("Silent normalisations"),
     "Q_S > 1 with fp16/bf16 query, key and value: D must be a multiple of 16",
     NULL, ORC_FN(d_align16)},
    {"LAYOUT-025", "layout", FIA_RULE_REJECT, ORC_SEM, C002_GT1,
     "Q_S > 1 with fp16/bf16: when D is not 16-byte aligned, B is limited to "
     "128 (always accompanied by LAYOUT-024)",
     "003 says 32-byte alignment for this B limit; 002 says 16 bytes; 000 "
     "words it as 'D not 16-aligned'. Under LAYOUT-024 the limit never "
     "decides a status on its own",
     ORC_FN(d_b128)},
    {"LAYOUT-026", "layout", FIA_RULE_REJECT, ORC_SEM, C002_GT1,
     "Q_S > 1: the query's and the key/value's S must be at most 20971520",
     NULL, ORC_FN(s_max_prefill)},
    {"LAYOUT-027", "layout", FIA_RULE_REJECT, ORC_SEM,
     C003_EQ1 "; " C001_CONSTR,
     "Q_S = 1: the key/value S must be at most 262144",
     "002 and 000 give no S limit on the Q_S = 1 path; 003 and 001 (IFA) "
     "give 262144 (used here)",
     ORC_FN(s_max_decode)},
    {"LAYOUT-N01", "layout", FIA_RULE_NORMALIZE, ORC_NORM,
     CREL("Silent normalisations") "; " C002_EQ1,
     "Q_S = 1: a head dim D that is not a multiple of 16 is accepted "
     "(the 16-alignment is required only when Q_S > 1)",
     NULL, ORC_FN(decode_d_unaligned)},
};
const size_t orc_rules_layout_count =
    sizeof orc_rules_layout / sizeof orc_rules_layout[0];
