/* Rules: the 003 token layouts TND, TND_NTD, NTD_TND (and NTD, which only
 * the released code accepts).  Their dims and lengths are facts_tnd.c's.
 *
 * 003 gives them a constraint list of their own (§约束说明 > "TND、TND_NTD、
 * NTD_TND场景下query、key、value输入的综合限制"), split by the query's D:
 * D = 512 is MLA (rope inputs, page attention; refused with the rope as not
 * modeled by rules_mla.c); D != 512 is the list below.  The Q_S > 1 / Q_S =
 * 1 lists of the batched layouts do not apply (path ORC_PATH_TND).
 *
 * Value's head dim may be below the query's (TND 192/128, NTD_TND 192/128;
 * TND-016, TND-017): the score runs over the query's and key's D, P.V and
 * attention_out over value's (003 §返回值说明, TND-025).
 *
 * The *_NBSD outputs are batched layouts with rope (MLA-030, MLA-031,
 * rules_mla.c). */
#include <stdint.h>
#include "oracle_internal.h"

#define C003_TND C003_CONSTR " > TND、TND_NTD、NTD_TND场景下的综合限制"
#define TND_T_MAX ((int64_t)1 << 20)   /* "T小于等于1M" */
#define TND_B_MAX 4096                 /* elements of each length array */

static int64_t sparse(const fia_oracle_facts *f)
{
    return f->c->attrs.sparse_mode;
}

static int rope(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_QUERY_ROPE] || f->given[FIA_SLOT_KEY_ROPE];
}

static int single_kv(const fia_oracle_facts *f)
{
    return f->count[FIA_SLOT_KEY] == 1 && f->count[FIA_SLOT_VALUE] == 1;
}

/* A cumulative array: non-negative and non-decreasing (count elements). */
static int not_cumulative(const int64_t *v, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        if (v[i] < 0 || (i > 0 && v[i] < v[i - 1]))
            return 1;
    return 0;
}

/* 003's head dims for D != 512 without rope: TND takes Q_D = K_D = V_D =
 * 128, or Q_D = K_D = 192 with V_D 128 or 192; NTD_TND Q_D = K_D in {128,
 * 192} with V_D 128.  (Q_D = K_D is LAYOUT-013.)  NTD, which no document
 * names, is held to TND's. */
static int doc_dims_bad(const fia_oracle_facts *f)
{
    int64_t d = f->D, vd = f->VD;
    if (f->layout == ORC_LAYOUT_NTD_TND)
        return !((d == 128 || d == 192) && vd == 128);
    return !((d == 128 && vd == 128) || (d == 192 && (vd == 128 || vd == 192)));
}

/* RELEASED "Layouts, head dims": Q_D = V_D in {64, 128}, or Q_D 192 with
 * V_D 128. */
static int released_dims_bad(const fia_oracle_facts *f)
{
    int64_t d = f->D, vd = f->VD;
    return !((d == vd && (d == 64 || d == 128)) || (d == 192 && vd == 128));
}

static int q_not_shorter(const fia_oracle_facts *f)
{
    for (int64_t b = 0; b < f->B; b++)
        if (orc_q_len(f, b) >= orc_kv_len(f, b))
            return 1;
    return 0;
}

static int out_shape_bad(const fia_oracle_facts *f)
{
    const fia_tensor *o = &f->out;
    int64_t a0 = f->o_ntd ? f->N : f->T, a1 = f->o_ntd ? f->T : f->N;
    return o->ndim != 3 || o->shape[0] != a0 || o->shape[1] != a1 ||
           o->shape[2] != f->VD;
}

static int lse_shape_bad(const fia_oracle_facts *f)
{
    const fia_tensor *l = &f->lse;
    return l->ndim != 3 || l->shape[0] != f->T || l->shape[1] != f->N ||
           l->shape[2] != 1;
}

static int int8_query(const fia_oracle_facts *f)
{
    const fia_tensor *q = f->t[FIA_SLOT_QUERY];
    return q && q->dtype == FIA_DT_INT8;
}

static int kv_antiquant(const fia_oracle_facts *f)
{
    const fia_tensor *k = f->t[FIA_SLOT_KEY];
    int int_kv = k && (k->dtype == FIA_DT_INT8 || k->dtype == FIA_DT_INT4 ||
                       k->dtype == FIA_DT_INT32);
    return orc_antiquant_given(f) || (int_kv && !int8_query(f));
}

static int full_quant(const fia_oracle_facts *f)
{
    static const fia_slot s[] = {FIA_SLOT_DEQUANT_SCALE1,
                                 FIA_SLOT_QUANT_SCALE1,
                                 FIA_SLOT_DEQUANT_SCALE2,
                                 FIA_SLOT_DEQUANT_SCALE_QUERY};
    return ORC_ANY_GIVEN(f, s) || int8_query(f);
}

static int post_quant(const fia_oracle_facts *f)
{
    static const fia_slot s[] = {FIA_SLOT_QUANT_SCALE2,
                                 FIA_SLOT_QUANT_OFFSET2};
    return ORC_ANY_GIVEN(f, s);
}

/* The rank and dims rules read one key/value tensor (lists are TND-X01). */
#define KV_ONE (f->tnd && single_kv(f) && !f->paged)

ORC_PRED(q_rank, f->tnd && f->given[FIA_SLOT_QUERY],
         f->t[FIA_SLOT_QUERY]->ndim != 3)
ORC_PRED(kv_rank, KV_ONE && f->given[FIA_SLOT_KEY] && f->given[FIA_SLOT_VALUE],
         f->t[FIA_SLOT_KEY]->ndim != 3 || f->t[FIA_SLOT_VALUE]->ndim != 3)
ORC_PRED(q_heads, f->tnd && f->q_d_ok, f->QN != f->N)
ORC_PRED(kv_heads, KV_ONE && f->k_d_ok && f->v_d_ok,
         f->KN != f->KV_N || f->VN != f->KV_N)
ORC_PRED(kv_tokens, KV_ONE && f->k_d_ok && f->v_d_ok, f->VT != f->T_kv)
ORC_PRED(q_seq_needed, f->tnd, !f->seq_given)
ORC_PRED(kv_seq_needed, f->tnd, !f->kv_seq_given)
ORC_PRED(seq_counts, f->tnd && f->seq_given && f->kv_seq_given,
         f->seq_count < 1 || f->seq_count != f->kv_seq_count)
ORC_PRED(seq_count_max, f->tnd && f->seq_given && f->kv_seq_given,
         f->seq_count > TND_B_MAX || f->kv_seq_count > TND_B_MAX)
ORC_PRED(q_cumulative, f->tnd && f->seq_given && f->seq_count > 0,
         not_cumulative(f->seq, f->seq_count))
/* a paged token layout (MLA) takes per-batch kv lengths: facts_tnd.c */
ORC_PRED(kv_cumulative,
         f->tnd && !f->paged && f->kv_seq_given && f->kv_seq_count > 0,
         not_cumulative(f->kv_seq, f->kv_seq_count))
ORC_PRED(q_total, f->tnd && f->q_d_ok && f->seq_given && f->seq_count > 0,
         f->seq[f->seq_count - 1] != f->T)
ORC_PRED(kv_total,
         KV_ONE && f->k_d_ok && f->kv_seq_given && f->kv_seq_count > 0,
         f->kv_seq[f->kv_seq_count - 1] != f->T_kv)
ORC_PRED(t_max, f->tnd && f->q_d_ok,
         f->T > TND_T_MAX || (f->k_d_ok && f->T_kv > TND_T_MAX))
ORC_PRED(bf16_only,
         f->tnd && f->given[FIA_SLOT_QUERY] && f->q_float &&
             !(f->q_d_ok && f->D == 512),
         f->t[FIA_SLOT_QUERY]->dtype != FIA_DT_BF16)
ORC_PRED(doc_dims, f->tnd && !rope(f) && f->q_d_ok && f->v_d_ok,
         doc_dims_bad(f))
ORC_PRED(released_dims, f->tnd && !rope(f) && f->q_d_ok && f->v_d_ok,
         released_dims_bad(f))
ORC_PRED(mode_03, f->tnd, sparse(f) != 0 && sparse(f) != 3)
ORC_PRED(mode0_no_mask, f->tnd && sparse(f) == 0, f->mask_effective)
ORC_PRED(mode3_mask, f->tnd && sparse(f) == 3, !f->mask_effective)
ORC_PRED(mode3_mask_shape, f->tnd && sparse(f) == 3 && f->mask_effective,
         orc_mask_opt_shape_bad(f))
ORC_PRED(mode3_q_shorter, f->tnd && sparse(f) == 3 && f->cum_ok,
         q_not_shorter(f))
ORC_PRED(tnd_ntd_rope, f->tnd, f->layout == ORC_LAYOUT_TND_NTD && !rope(f))
ORC_PRED(ntd_undocumented, f->tnd, f->layout == ORC_LAYOUT_NTD)
ORC_PRED(out_shape,
         f->tnd && f->q_d_ok && f->v_d_ok && f->given[FIA_SLOT_ATTENTION_OUT],
         out_shape_bad(f))
ORC_PRED(lse_shape,
         f->tnd && f->q_d_ok && f->c->attrs.softmax_lse_flag &&
             f->given[FIA_SLOT_SOFTMAX_LSE],
         lse_shape_bad(f))
ORC_PRED(x_list, f->tnd, !single_kv(f))
ORC_PRED(x_pse, f->tnd, f->given[FIA_SLOT_PSE_SHIFT])
ORC_PRED(x_paged, f->tnd && !rope(f), f->paged)
ORC_PRED(x_antiquant, f->tnd, kv_antiquant(f))
ORC_PRED(x_full_quant, f->tnd, full_quant(f))
ORC_PRED(x_post_quant, f->tnd, post_quant(f))

#define TND_REJECT(id, cite, text, dis, fn)                                  \
    {id, "tnd", FIA_RULE_REJECT, ORC_SEM, cite, text, dis, ORC_FN(fn)}
#define TND_EXCLUDE(id, text, fn)                                            \
    {id, "tnd", FIA_RULE_REJECT, ORC_EXCL, C003_TND, text, NULL, ORC_FN(fn)}

const fia_rule orc_rules_tnd[] = {
    TND_REJECT("TND-001", C003_P("input_layout") "; " C003_RET,
               "a token layout's query is rank 3: [T, N, D] (TND, TND_NTD) "
               "or [N, T, D] (NTD_TND)",
               NULL, q_rank),
    TND_REJECT("TND-002", C003_P("input_layout"),
               "a token layout's key and value are rank 3, in the query's "
               "input layout",
               NULL, kv_rank),
    TND_REJECT("TND-003", C003_P("num_query_heads") "; " C003_TND,
               "a token layout's query N axis must equal num_heads", NULL,
               q_heads),
    TND_REJECT("TND-004", C003_P("num_key_value_heads") "; " C003_TND,
               "a token layout's key and value N axes must equal "
               "num_key_value_heads (K_N = V_N)",
               NULL, kv_heads),
    TND_REJECT("TND-005", C003_CONSTR "; " C003_TND,
               "key and value hold the same tokens (T_kv); only their head "
               "dims may differ",
               "003 §约束说明 asks key and value shapes to be identical, while "
               "its TND list lets V_D differ from K_D: read as equal but for "
               "D",
               kv_tokens),
    TND_REJECT("TND-006", C003_P("actual_seq_qlen") "; " C003_TND,
               "a token layout needs actual_seq_lengths (actual_seq_qlen)",
               NULL, q_seq_needed),
    TND_REJECT("TND-007", C003_P("actual_seq_kvlen") "; " C003_TND,
               "a token layout needs actual_seq_lengths_kv (actual_seq_kvlen)",
               NULL, kv_seq_needed),
    TND_REJECT("TND-008", C003_P("actual_seq_qlen") "; " C003_TND,
               "both length arrays have one count >= 1: the batch B",
               "003 takes each array's count as B; that the two counts agree "
               "is read from there",
               seq_counts),
    TND_REJECT("TND-009", C003_TND,
               "each length array holds at most 4096 elements", NULL,
               seq_count_max),
    TND_REJECT("TND-010", C003_P("actual_seq_qlen") "; " C003_TND,
               "actual_seq_lengths is cumulative: no element negative, none "
               "below the one before",
               NULL, q_cumulative),
    TND_REJECT("TND-011", C003_P("actual_seq_qlen") "; " C003_TND,
               "actual_seq_lengths_kv is cumulative: no element negative, "
               "none below the one before",
               NULL, kv_cumulative),
    TND_REJECT("TND-012", C003_P("actual_seq_qlen"),
               "the last actual_seq_lengths element is the query's T",
               "003 defines each element as the sum of the lengths so far and "
               "T as the sum of the lengths (README notation); a last element "
               "below T would leave tokens no batch owns, above T read past "
               "the query: rejected either way",
               q_total),
    TND_REJECT("TND-013", C003_P("actual_seq_kvlen"),
               "the last actual_seq_lengths_kv element is key/value's T",
               "as TND-012", kv_total),
    TND_REJECT("TND-014", C003_TND,
               "T (query and key/value tokens) must be at most 1M = 2^20",
               "003 writes 1M; read as 2^20", t_max),
    TND_REJECT("TND-015", C003_TND,
               "D != 512: query, key and value must be bfloat16", NULL,
               bf16_only),
    {"TND-016", "tnd", FIA_RULE_REJECT, FIA_LAYER_SEMANTIC,
     FIA_ERR_PARAM_INVALID, FIA_OK, C003_TND,
     "without rope: TND takes Q_D = V_D = 128, or Q_D = 192 with V_D 128 or "
     "192; NTD_TND Q_D 128 or 192 with V_D 128",
     "RELEASED allows Q_D = V_D = 64 and not 192/192 (TND-017): the cann "
     "profile follows it",
     ORC_FN(doc_dims)},
    {"TND-017", "tnd", FIA_RULE_REJECT, FIA_LAYER_SEMANTIC, FIA_OK,
     FIA_ERR_INNER_TILING_ERROR, CREL("Layouts, head dims and parameters"),
     "released code: Q_D = V_D in {64, 128}, or Q_D 192 with V_D 128",
     "003 allows 192/192 and not 64 (TND-016): the doc profile follows it",
     ORC_FN(released_dims)},
    TND_REJECT("TND-018", C003_TND "; " C003_P("sparse_mode"),
               "a token layout takes sparse_mode 0 or 3 only", NULL, mode_03),
    TND_REJECT("TND-019", C003_TND,
               "sparse_mode 0 with a token layout takes no atten_mask", NULL,
               mode0_no_mask),
    TND_REJECT("TND-020", C003_TND,
               "sparse_mode 3 with a token layout needs an atten_mask", NULL,
               mode3_mask),
    TND_REJECT("TND-021", C003_P("atten_mask") "; " C003_P("sparse_mode"),
               "sparse_mode 3: the mask is the optimized (2048, 2048) one "
               "(leading dims 1)",
               NULL, mode3_mask_shape),
    TND_REJECT("TND-022", C003_TND,
               "sparse_mode 3: every batch's query length is below its "
               "key/value length",
               "003 writes actual_seq_qlen < actual_seq_kvlen per batch "
               "(strictly), which refuses the square causal case; taken as "
               "written in both profiles",
               mode3_q_shorter),
    TND_REJECT("TND-023", C003_TND "; " C003_CONSTR " > query_rope",
               "TND_NTD is a D = 512 (MLA) layout: it needs query_rope and "
               "key_rope",
               "RELEASED lists TND_NTD among the accepted layouts without "
               "saying which D",
               tnd_ntd_rope),
    {"TND-024", "tnd", FIA_RULE_REJECT, FIA_LAYER_SEMANTIC,
     FIA_ERR_PARAM_INVALID, FIA_OK, C003_P("input_layout"),
     "NTD (query and attention_out [N, T, D]) is no documented layout",
     "the released code accepts NTD (RELEASED Layouts): the cann profile "
     "computes it like TND with its output [N, T, D]",
     ORC_FN(ntd_undocumented)},
    TND_REJECT("TND-025", C003_RET,
               "attention_out of a token layout: (T, N, V_D) for TND and "
               "NTD_TND, (N, T, V_D) for TND_NTD and NTD",
               "002 requires attention_out's shape to equal the query's "
               "(OUT-003); 003 §返回值说明 gives it value's D, which 003's "
               "token layouts follow (192/128: D 128)",
               out_shape),
    TND_REJECT("TND-026", C003_RET,
               "softmax_lse of a token layout is (T, N, 1)", NULL, lse_shape),
    TND_EXCLUDE("TND-X01", "a token layout takes no key/value tensor lists",
                x_list),
    TND_EXCLUDE("TND-X02", "a token layout takes no pse_shift", x_pse),
    TND_EXCLUDE("TND-X03",
                "a token layout without rope (D != 512) takes no page "
                "attention",
                x_paged),
    TND_EXCLUDE("TND-X04",
                "a token layout takes no key/value antiquantization (伪量化: "
                "antiquant inputs, int8/int4 key/value)",
                x_antiquant),
    TND_EXCLUDE("TND-X05",
                "a token layout takes no full quantization (int8 query, "
                "dequant scales)",
                x_full_quant),
    TND_EXCLUDE("TND-X06",
                "a token layout takes no output quantization (后量化: "
                "quant_scale2, quant_offset2)",
                x_post_quant),
};
const size_t orc_rules_tnd_count =
    sizeof orc_rules_tnd / sizeof orc_rules_tnd[0];
