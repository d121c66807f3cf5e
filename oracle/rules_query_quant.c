/* Rules: 003 query quantization (dequant_scale_query, query_quant_mode).
 *
 * 003 §参数说明 gives query_quant_mode "仅支持传入3" (per-token-per-head)
 * and, like every optional parameter, a default of 0: read as 0 = no query
 * quantization, 3 = per-token-per-head, anything else rejected (QQ-001).
 * The one scene the documents give query quantization is MLA's full
 * quantization (003 §约束说明 > MLA > query的D等于512 > 支持全量化场景;
 * facts_mla.c's mla_query_quant): there query_quant_mode is 3 (QQ-002) and
 * dequant_scale_query holds one fp32 scale per token and head, the query's
 * shape without D (QQ-003, the released code's shape; its presence and
 * dtype are MLA-052 / MLA-053, its registered dtype TENS-038).
 *
 *   q[b, n, s, :] = q_int8[b, n, s, :] * dequant_scale_query[token (b, s),
 *                   head n]
 *
 * Outside that scene the documents give dequant_scale_query and mode 3 no
 * meaning (the released code's other uses are not documented): refused
 * last as not modeled (NM-011), after every documented rule. */
#include "oracle_internal.h"

static int dsq_given(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_DEQUANT_SCALE_QUERY];
}

static int64_t qq_mode(const fia_oracle_facts *f)
{
    return f->c->attrs.query_quant_mode;
}

/* The query's shape without D: (B, S, N) for BSH (its third dim is
 * num_heads) and BSND, (B, N, S) for BNSD; an *_NBSD output reads the
 * query in the layout before '_' (facts_layout.c). */
static int dsq_shape_bad(const fia_oracle_facts *f)
{
    const fia_tensor *t = f->t[FIA_SLOT_DEQUANT_SCALE_QUERY];
    if (t->ndim != 3 || t->shape[0] != f->B)
        return 1;
    if (f->layout == ORC_LAYOUT_BNSD)
        return t->shape[1] != f->N || t->shape[2] != f->Q_S;
    return t->shape[1] != f->Q_S || t->shape[2] != f->N;
}

ORC_PRED(mode_range, 1, qq_mode(f) != 0 && qq_mode(f) != 3)
ORC_PRED(mla_mode, f->mla_query_quant, qq_mode(f) != 3)
ORC_PRED(dsq_shape,
         f->mla_query_quant && dsq_given(f) && f->q_rank_ok && !f->tnd &&
             (f->layout == ORC_LAYOUT_BSH || f->layout == ORC_LAYOUT_BSND ||
              f->layout == ORC_LAYOUT_BNSD),
         dsq_shape_bad(f))
ORC_PRED(nm_qquant, !f->mla_query_quant, dsq_given(f) || qq_mode(f) == 3)

#define C_QUERY_QUANT                                                        \
    C003_CONSTR " > MLA (query_rope、key_rope) > query的D等于512 > "         \
                "支持全量化场景"

const fia_rule orc_rules_query_quant[] = {
    {"QQ-001", "query_quant", FIA_RULE_REJECT, ORC_SEM,
     C003_P("query_quant_mode"),
     "query_quant_mode is 0 (no query quantization, the default) or 3 "
     "(per-token-per-head)",
     "003 says only 3 is accepted (仅支持传入3) yet, as every optional "
     "parameter, gives it the default 0: read as 0 none, 3 per-token-per-"
     "head",
     ORC_FN(mode_range)},
    {"QQ-002", "query_quant", FIA_RULE_REJECT, ORC_SEM,
     C_QUERY_QUANT "; " C003_P("query_quant_mode"),
     "MLA D = 512 full quantization (an int8 query): query_quant_mode is 3 "
     "(per-token-per-head)",
     NULL, ORC_FN(mla_mode)},
    {"QQ-003", "query_quant", FIA_RULE_REJECT, ORC_SEM,
     C003_P("dequant_scale_query") "; " C_QUERY_QUANT,
     "MLA D = 512 full quantization: dequant_scale_query has the query's "
     "shape without D: (B, Q_S, N) for BSH and BSND, (B, N, Q_S) for BNSD "
     "(an *_NBSD output: its input layout's)",
     "provenance: 003 says per-token-per-head but gives no shape; the "
     "vendor's released tiling (its dequant check; not in "
     "RELEASED-BEHAVIOUR.md) takes the query's shape without D, BSH's "
     "third dim being num_heads, and rejects anything else",
     ORC_FN(dsq_shape)},
    {"NM-011", "query_quant", FIA_RULE_NOT_MODELED, ORC_NM_LATE,
     C003_P("dequant_scale_query") "; " C003_P("query_quant_mode"),
     "dequant_scale_query, or query_quant_mode 3, outside MLA D = 512 full "
     "quantization is not modeled: no document gives it a meaning there; "
     "every rule judges the call, then it is refused",
     "the released code has other uses (not in the documents)",
     ORC_FN(nm_qquant)},
};
const size_t orc_rules_query_quant_count =
    sizeof orc_rules_query_quant / sizeof orc_rules_query_quant[0];
