/* Rules: MLA, the rope inputs query_rope and key_rope (003 §参数说明
 * query_rope / key_rope; §约束说明, the MLA block "query_rope和key_rope输入
 * 时即为MLA场景" and the token layouts' D = 512 list).  The scene and the
 * rope shapes are facts_mla.c's.
 *
 * With rope the query's D is 512 or 128.  D = 512 (KV_N 1, N 32/64/128,
 * Q_S 1..16, page attention with block_size 16 or 128, sparse 0 without a
 * mask at Q_S = 1 or 3 with one above) replaces rules the general lists
 * give: the GQA ratio of 64 (GQA-003), the paged block sizes (PAGED-004/
 * 005), TND's D != 512 list.  D = 128 is a token-layout scene (TND,
 * NTD_TND) under TND's list, with Q_D = K_D = V_D = 128.
 *
 * The *_NBSD outputs (BSH_NBSD, BSND_NBSD, BNSD_NBSD: the query in the
 * layout before '_', attention_out (N, B, Q_S, D), OUT-003) are MLA's:
 * 003's input_layout text limits them to 1 < Q_S <= 16 and its D = 512
 * list names them; the released code rejects them without rope.  The NZ
 * key/value cache (rank 5, [blockNum, KV_N, D/16, block_size, 16], key_rope
 * [blockNum, KV_N, 64/16, block_size, 16]) is D = 512's too, fp16 / bf16,
 * with block_size 128 and not with a BNSD query.
 *
 * Full quantization (003 D = 512 list, "支持全量化场景"; facts_mla.c's
 * mla_query_quant, D = 512 with an int8 query): key and value int8, the
 * ropes bf16 (overriding "query_rope的数据类型与query一致"), attention_out
 * bf16, dequant_scale_query / dequant_scale_key / dequant_scale_value all
 * given and fp32, key/value per-tensor (key_quant_mode =
 * value_quant_mode = 0; the released code's scale shape [1]), no output
 * quantization and no key/value offsets; its int8 NZ cache is [blockNum,
 * KV_N, D/32, block_size, 32].  The query's own rules (query_quant_mode
 * 3, the scale's shape) are rules_query_quant.c's.  003 names
 * dequant_scale_key / _value as the separate antiquant set's slots
 * (key_antiquant_scale / ..., docs/case-format.md): in this scene they
 * are the per-tensor dequant scales of int8 key and value, not
 * antiquantization (MLA-X01 does not count them).  What no document
 * gives a meaning, 002's full-quantization scales beside them, is refused
 * last as not modeled (NM-010). */
#include "oracle_internal.h"

#define C003_MLA C003_CONSTR " > MLA (query_rope、key_rope)"
#define C003_MLA512 C003_MLA " > query的D等于512"
#define C003_QUERY_QUANT C003_MLA512 " > 支持全量化场景"
#define C003_MLA128 C003_MLA " > query的D等于128"
#define C003_TND512 C003_CONSTR " > TND、TND_NTD、NTD_TND场景下的综合限制 > " \
                    "query的D等于512"

static int given(const fia_oracle_facts *f, fia_slot s)
{
    return f->given[s];
}

static int int8_query(const fia_oracle_facts *f)
{
    const fia_tensor *q = f->t[FIA_SLOT_QUERY];
    return q && q->dtype == FIA_DT_INT8;
}

/* The float path: the ropes take the query's / the key's dtype; full
 * quantization (an int8 query): both bf16. */
static int rope_dtypes_bad(const fia_oracle_facts *f)
{
    const fia_tensor *q = f->t[FIA_SLOT_QUERY], *k = f->t[FIA_SLOT_KEY];
    const fia_dtype qr = f->t[FIA_SLOT_QUERY_ROPE]->dtype,
                    kr = f->t[FIA_SLOT_KEY_ROPE]->dtype;
    if (int8_query(f))
        return qr != FIA_DT_BF16 || kr != FIA_DT_BF16;
    return qr != q->dtype || kr != k->dtype;
}

/* Q_S of each batch in [1, 16]: the query's S, or a token layout's
 * per-batch lengths. */
static int q_s_bad(const fia_oracle_facts *f)
{
    if (!f->tnd)
        return f->Q_S < 1 || f->Q_S > 16;
    for (int64_t b = 0; b < f->B; b++) {
        const int64_t n = orc_q_len(f, b);
        if (n < 1 || n > 16)
            return 1;
    }
    return 0;
}

/* BSH, BSND, BNSD and their *_NBSD outputs (facts_layout.c reads
 * BSH_NBSD as BSH with o_nbsd), TND, TND_NTD. */
static int layout512_bad(const fia_oracle_facts *f)
{
    switch (f->layout) {
    case ORC_LAYOUT_BSH:
    case ORC_LAYOUT_BSND:
    case ORC_LAYOUT_BNSD:
    case ORC_LAYOUT_TND:
    case ORC_LAYOUT_TND_NTD:
        return 0;
    default:
        return 1;
    }
}

static int sparse512_bad(const fia_oracle_facts *f)
{
    const int64_t mode = f->c->attrs.sparse_mode;
    if (f->Q_S == 1)
        return mode != 0 || f->mask_effective;
    return mode != 3 || !f->mask_effective;
}

/* Antiquantization: int key/value with a float query, or its scales.  In
 * full quantization the key/value scales (dequant_scale_key / _value) are
 * the scene's own and their offsets MLA-X03's: only the combined set
 * (antiquant_scale / _offset) is antiquantization there. */
static int kv_antiquant(const fia_oracle_facts *f)
{
    if (f->mla_query_quant)
        return given(f, FIA_SLOT_ANTIQUANT_SCALE) ||
               given(f, FIA_SLOT_ANTIQUANT_OFFSET);
    return f->aq_scene || orc_antiquant_given(f);
}

static int post_quant(const fia_oracle_facts *f)
{
    return given(f, FIA_SLOT_QUANT_SCALE2) || given(f, FIA_SLOT_QUANT_OFFSET2);
}

/* ---- full quantization (f->mla_query_quant) --------------------------- */

static int is_dt(const fia_oracle_facts *f, fia_slot s, fia_dtype dt)
{
    return given(f, s) && f->t[s]->dtype == dt;
}

static int query_quant_scales_all(const fia_oracle_facts *f)
{
    return given(f, FIA_SLOT_DEQUANT_SCALE_QUERY) &&
           given(f, FIA_SLOT_KEY_ANTIQUANT_SCALE) &&
           given(f, FIA_SLOT_VALUE_ANTIQUANT_SCALE);
}

static int query_quant_scale_dtype_bad(const fia_oracle_facts *f)
{
    static const fia_slot s[] = {FIA_SLOT_DEQUANT_SCALE_QUERY,
                                 FIA_SLOT_KEY_ANTIQUANT_SCALE,
                                 FIA_SLOT_VALUE_ANTIQUANT_SCALE};
    for (size_t i = 0; i < 3; i++)
        if (given(f, s[i]) && f->t[s[i]]->dtype != FIA_DT_FP32)
            return 1;
    return 0;
}

/* Per-tensor: one element of shape [1] (the released code's check). */
static int query_quant_one_bad(const fia_oracle_facts *f, fia_slot s)
{
    const fia_tensor *t = f->t[s];
    return given(f, s) && (t->ndim != 1 || t->shape[0] != 1);
}

static int query_quant_excluded(const fia_oracle_facts *f)
{
    static const fia_slot s[] = {FIA_SLOT_QUANT_SCALE2, FIA_SLOT_QUANT_OFFSET2,
                                 FIA_SLOT_KEY_ANTIQUANT_OFFSET,
                                 FIA_SLOT_VALUE_ANTIQUANT_OFFSET};
    return ORC_ANY_GIVEN(f, s);
}

static int int8_quant_scales_given(const fia_oracle_facts *f)
{
    static const fia_slot s[] = {FIA_SLOT_DEQUANT_SCALE1,
                                 FIA_SLOT_QUANT_SCALE1,
                                 FIA_SLOT_DEQUANT_SCALE2};
    return ORC_ANY_GIVEN(f, s);
}

static int full_quant(const fia_oracle_facts *f)
{
    return int8_query(f) || given(f, FIA_SLOT_DEQUANT_SCALE1) ||
           given(f, FIA_SLOT_QUANT_SCALE1) || given(f, FIA_SLOT_DEQUANT_SCALE2) ||
           given(f, FIA_SLOT_DEQUANT_SCALE_QUERY);
}

/* A pse of no element is absent (RELEASED "Silent normalisations"). */
static int pse_given(const fia_oracle_facts *f)
{
    return given(f, FIA_SLOT_PSE_SHIFT) && f->numel[FIA_SLOT_PSE_SHIFT] != 0;
}

/* The NZ cache's dims: [blockNum, KV_N, D/w, block_size, w], tiles of w
 * = 16 (fp16 / bf16) or 32 (int8) columns. */
static int nz_dims_bad(const fia_oracle_facts *f, int64_t w)
{
    const int64_t *s = f->cache->shape;
    return s[1] != f->KV_N || s[2] != f->D / w || f->D % w != 0 ||
           s[3] != f->block_size || s[4] != w;
}

static int kv_int8(const fia_oracle_facts *f)
{
    return is_dt(f, FIA_SLOT_KEY, FIA_DT_INT8) &&
           is_dt(f, FIA_SLOT_VALUE, FIA_DT_INT8);
}

static int kv_half(const fia_oracle_facts *f)
{
    const fia_tensor *k = f->t[FIA_SLOT_KEY];
    return k && (k->dtype == FIA_DT_FP16 || k->dtype == FIA_DT_BF16);
}

static int kv_list(const fia_oracle_facts *f)
{
    return f->count[FIA_SLOT_KEY] > 1 || f->count[FIA_SLOT_VALUE] > 1;
}

static int value_d(const fia_oracle_facts *f)
{
    return f->tnd ? f->VD : f->KD;
}

ORC_PRED(both, f->rope, !given(f, FIA_SLOT_QUERY_ROPE) ||
                            !given(f, FIA_SLOT_KEY_ROPE))
ORC_PRED(dtypes,
         f->rope && given(f, FIA_SLOT_QUERY_ROPE) &&
             given(f, FIA_SLOT_KEY_ROPE) && (f->q_float || int8_query(f)) &&
             given(f, FIA_SLOT_KEY),
         rope_dtypes_bad(f))
ORC_PRED(q_d, f->rope && f->q_d_ok, f->D != 512 && f->D != 128)
ORC_PRED(q_shape, given(f, FIA_SLOT_QUERY_ROPE) && given(f, FIA_SLOT_QUERY),
         orc_query_rope_shape_bad(f))
ORC_PRED(k_shape,
         given(f, FIA_SLOT_KEY_ROPE) && given(f, FIA_SLOT_KEY) && !kv_list(f),
         orc_key_rope_shape_bad(f))
ORC_PRED(q_s512, f->mla512 && f->q_rank_ok && (!f->tnd || f->cum_ok),
         q_s_bad(f))
ORC_PRED(heads512, f->mla512, f->N != 32 && f->N != 64 && f->N != 128)
/* the released code's reading: N / KV_N (KV_N 1, MLA-012) a power of two
 * up to 128 */
static int group_pow2_bad(const fia_oracle_facts *f)
{
    return f->N <= 0 || f->N > 128 || (f->N & (f->N - 1)) != 0;
}
ORC_PRED(heads512_rel, f->mla512, group_pow2_bad(f))
ORC_PRED(kv512, f->mla512,
         f->KV_N != 1 || (f->k_d_ok && f->KD != 512) ||
             (f->tnd && f->v_d_ok && f->VD != 512))
ORC_PRED(sparse512, f->mla512 && !f->tnd && f->q_rank_ok, sparse512_bad(f))
ORC_PRED(layout512, f->mla512, layout512_bad(f))
ORC_PRED(paged512, f->mla512, !f->paged)
ORC_PRED(bs512, f->mla512 && f->paged,
         f->block_size != 16 && f->block_size != 128)
ORC_PRED(x512, f->mla512,
         f->c->attrs.softmax_lse_flag || kv_list(f) || pse_given(f) ||
             kv_antiquant(f) || post_quant(f))
ORC_PRED(layout128, f->mla128,
         f->layout != ORC_LAYOUT_TND && f->layout != ORC_LAYOUT_NTD_TND)
ORC_PRED(x128, f->mla128,
         kv_list(f) || pse_given(f) || f->paged ||
             kv_antiquant(f) || full_quant(f) || post_quant(f))
ORC_PRED(dims128, f->mla128 && f->tnd && f->k_d_ok && f->v_d_ok,
         f->KD != 128 || value_d(f) != 128)
ORC_PRED(nbsd_rope, f->o_nbsd, !f->rope)
ORC_PRED(nbsd_q_s, f->o_nbsd && f->q_rank_ok, f->Q_S <= 1 || f->Q_S > 16)
/* the NZ cache of fp16 / bf16 (D/16 tiles), int8's (D/32 tiles of 32:
 * full quantization; int key/value with a float query are antiquantization,
 * MLA-X01) */
ORC_PRED(nz_dims,
         f->nz && f->mla512 && f->cache && f->count[FIA_SLOT_KEY] == 1 &&
             f->KV_N > 0 && kv_half(f),
         nz_dims_bad(f, 16))
ORC_PRED(nz_dims8,
         f->nz && f->mla512 && f->cache && f->count[FIA_SLOT_KEY] == 1 &&
             f->KV_N > 0 && is_dt(f, FIA_SLOT_KEY, FIA_DT_INT8),
         nz_dims_bad(f, 32))
ORC_PRED(nz_layout, f->nz && f->mla512, f->layout == ORC_LAYOUT_BNSD)
ORC_PRED(nz_bs, f->nz && f->mla512, f->block_size == 16)
ORC_PRED(query_quant_kv, f->mla_query_quant && given(f, FIA_SLOT_KEY) &&
                             given(f, FIA_SLOT_VALUE),
         !kv_int8(f))
ORC_PRED(query_quant_out, f->mla_query_quant && f->out_presence == FIA_PRESENT,
         f->out.dtype != FIA_DT_BF16)
ORC_PRED(query_quant_scales, f->mla_query_quant, !query_quant_scales_all(f))
ORC_PRED(query_quant_scale_dt, f->mla_query_quant,
         query_quant_scale_dtype_bad(f))
ORC_PRED(query_quant_kv_modes, f->mla_query_quant,
         f->c->attrs.key_antiquant_mode != 0 ||
             f->c->attrs.value_antiquant_mode != 0)
ORC_PRED(query_quant_kv_shape, f->mla_query_quant,
         query_quant_one_bad(f, FIA_SLOT_KEY_ANTIQUANT_SCALE) ||
             query_quant_one_bad(f, FIA_SLOT_VALUE_ANTIQUANT_SCALE))
ORC_PRED(query_quant_x, f->mla_query_quant, query_quant_excluded(f))
ORC_PRED(nm_int8_quant_scales, f->mla_query_quant, int8_quant_scales_given(f))

#define MLA_REJECT(id, cite, text, dis, fn)                                  \
    {id, "mla", FIA_RULE_REJECT, ORC_SEM, cite, text, dis, ORC_FN(fn)}
#define MLA_EXCLUDE(id, cite, text, fn)                                      \
    {id, "mla", FIA_RULE_REJECT, ORC_EXCL, cite, text, NULL, ORC_FN(fn)}

const fia_rule orc_rules_mla[] = {
    MLA_REJECT("MLA-001", C003_MLA,
               "query_rope and key_rope are passed both or neither", NULL,
               both),
    MLA_REJECT("MLA-002", C003_MLA "; " C003_QUERY_QUANT,
               "query_rope has the query's dtype, key_rope the key's; with "
               "an int8 query (full quantization) both are bf16",
               "003 says the ropes take the query's / key's dtype, while its "
               "D = 512 full-quantization list has bf16 ropes beside an "
               "int8 query, key and value: the full-quantization list wins "
               "there",
               dtypes),
    MLA_REJECT("MLA-003", C003_MLA,
               "with rope inputs the query's head dim D is 512 or 128", NULL,
               q_d),
    MLA_REJECT("MLA-004", C003_MLA512 "; " C003_MLA128,
               "query_rope has the query's shape with D 64 (BSH: H = N*64)",
               NULL, q_shape),
    MLA_REJECT("MLA-005", C003_MLA512 "; " C003_MLA128,
               "key_rope has the key's shape with D 64 (a rank-3 cache or "
               "BSH: KV_N*64; an NZ cache: [blockNum, KV_N, 64/16, "
               "block_size, 16])",
               NULL, k_shape),
    MLA_REJECT("MLA-010", C003_MLA512 "; " C003_TND512 "; "
               C003_P("query_rope"),
               "D = 512: the query's S (a token layout: every batch's "
               "length) is 1 to 16",
               "003 §参数说明 query_rope limits every rope scene to Q_S 1..16; "
               "the constraint lists say it for D = 512 only (the D = 128 "
               "token scene is not limited here)",
               q_s512),
    /* doc only: the released code takes more head counts (MLA-017) */
    {"MLA-011", "mla", FIA_RULE_REJECT, FIA_LAYER_SEMANTIC,
     FIA_ERR_PARAM_INVALID, FIA_OK, C003_MLA512 "; " C003_TND512,
     "D = 512: num_heads is 32, 64 or 128",
     "the released code accepts other head counts: its tiling tests "
     "tMLA_TND_FP16 (1 head, TND) and tMLA_G16_FP16_BSH (16 heads, BSH) "
     "succeed; profile cann reads its own limit instead (MLA-017)",
     ORC_FN(heads512)},
    /* cann only: the released code's narrower reading of MLA-011 */
    {"MLA-017", "mla", FIA_RULE_REJECT, FIA_LAYER_SEMANTIC, FIA_OK,
     FIA_ERR_INNER_TILING_ERROR, C003_MLA512 "; vendor tiling tests",
     "D = 512 (KV_N 1): num_heads, the group size, is a power of two up to "
     "128 (1, 2, 4, ..., 128): the released code's rejection",
     "003 names 32, 64 and 128 (MLA-011, profile doc); the released code "
     "accepts 1 head (tMLA_TND_FP16, tMLA_FD_B8_S1_S32768, "
     "tMLA_NoPA_B1_S1_S32768) and 16 (tMLA_G16_FP16_BSH) and checks the "
     "group against the powers of two up to 128; profile doc does not "
     "apply this row",
     ORC_FN_CANN(heads512_rel)},
    MLA_REJECT("MLA-012", C003_MLA512 "; " C003_TND512,
               "D = 512: key/value have one head (KV_N 1) of D 512", NULL,
               kv512),
    MLA_REJECT("MLA-013", C003_MLA512,
               "D = 512, batched layouts: Q_S = 1 takes sparse_mode 0 without "
               "a mask, Q_S > 1 sparse_mode 3 with one",
               "a token layout keeps its own list (sparse 0 without a mask or "
               "3 with one: TND-018..021)",
               sparse512),
    MLA_REJECT("MLA-014", C003_MLA512 "; " C003_TND512,
               "D = 512: input_layout BSH, BSND, BNSD (or their *_NBSD "
               "outputs), TND, TND_NTD",
               NULL, layout512),
    MLA_REJECT("MLA-015", C003_MLA512 "; " C003_TND512,
               "D = 512 needs page attention (a block_table)", NULL,
               paged512),
    MLA_REJECT("MLA-016", C003_MLA512,
               "D = 512: block_size is 16 or 128 (in place of the general "
               "page-attention sizes)",
               "002's page attention takes multiples of 128 (Q_S > 1) or 16 "
               "(Q_S = 1) up to 512; MLA's list is its own",
               bs512),
    MLA_EXCLUDE("MLA-X01", C003_MLA512 "; " C003_TND512,
                "D = 512 takes no softmax_lse, key/value tensor list, "
                "pse_shift, antiquantization or output quantization",
                x512),
    MLA_REJECT("MLA-020", C003_MLA128,
               "D = 128 with rope: input_layout TND or NTD_TND only", NULL,
               layout128),
    MLA_EXCLUDE("MLA-X02", C003_MLA128,
                "D = 128 with rope takes no key/value tensor list, "
                "pse_shift, page attention, antiquantization, full or "
                "output quantization",
                x128),
    MLA_REJECT("MLA-022", C003_CONSTR " > TND、TND_NTD、NTD_TND场景下的综合限制",
               "D = 128 with rope in a token layout: Q_D = K_D = V_D = 128",
               NULL, dims128),
    /* a rejection of the released code only: doc FIA_OK (NM-016 then) */
    {"MLA-030", "mla", FIA_RULE_REJECT, FIA_LAYER_SEMANTIC, FIA_OK,
     FIA_ERR_INNER_TILING_ERROR,
     C003_P("input_layout") "; " CREL("Layouts, head dims and parameters"),
     "the *_NBSD outputs (BSH_NBSD, BSND_NBSD, BNSD_NBSD) need query_rope "
     "and key_rope (MLA): the released code's rejection",
     "003's input_layout text lists them with no word of rope (the one "
     "constraint list naming them is MLA's, D = 512); the released code "
     "rejects them without rope.  Profile cann rejects; profile doc does not "
     "(no document does) and leaves the call not modeled (NM-016)",
     ORC_FN(nbsd_rope)},
    MLA_REJECT("MLA-031", C003_P("input_layout"),
               "the *_NBSD outputs: 1 < Q_S <= 16 (输出格式为NBSD时，仅支持"
               "Q_S大于1且小于等于16)",
               NULL, nbsd_q_s),
    MLA_REJECT("MLA-040", C003_MLA512 "; " CREL("Layouts, head dims and "
                                                "parameters"),
               "D = 512, an NZ (rank-5) fp16/bf16 cache: key and value are "
               "[blockNum, KV_N, D/16, block_size, 16]",
               "the documents give the format but no explicit check of its "
               "dims; a cache whose dims disagree cannot be read as it",
               nz_dims),
    MLA_REJECT("MLA-043", C003_MLA512,
               "D = 512, an NZ (rank-5) int8 cache (full quantization): key "
               "and value are [blockNum, KV_N, D/32, block_size, 32]",
               "the documents give the format but no explicit check of its "
               "dims (as MLA-040); key_rope keeps bf16's [blockNum, KV_N, "
               "64/16, block_size, 16] (MLA-005)",
               nz_dims8),
    MLA_REJECT("MLA-041", C003_MLA512,
               "D = 512: the NZ cache is not taken with a BNSD query (BNSD, "
               "BNSD_NBSD)",
               NULL, nz_layout),
    MLA_REJECT("MLA-042", C003_MLA512,
               "D = 512: the NZ cache takes block_size 128, not 16", NULL,
               nz_bs),
    {"NM-016", "mla", FIA_RULE_NOT_MODELED, ORC_NM_LATE,
     C003_P("input_layout"),
     "the *_NBSD outputs without rope (profile doc, where no document rejects "
     "them) are not modeled: 003 names them with no word of how the other "
     "features' rules read an NBSD output; every rule judges the call, then "
     "it is refused",
     NULL, ORC_FN(nbsd_rope)},
    MLA_REJECT("MLA-050", C003_QUERY_QUANT,
               "D = 512 full quantization (an int8 query): key and value "
               "are int8 too",
               NULL, query_quant_kv),
    MLA_REJECT("MLA-051", C003_QUERY_QUANT,
               "D = 512 full quantization: attention_out is bf16", NULL,
               query_quant_out),
    MLA_REJECT("MLA-052", C003_QUERY_QUANT,
               "D = 512 full quantization: dequant_scale_query, "
               "key_antiquant_scale and value_antiquant_scale (003's "
               "dequant_scale_key / dequant_scale_value) are all given",
               NULL, query_quant_scales),
    MLA_REJECT("MLA-053", C003_QUERY_QUANT,
               "D = 512 full quantization: dequant_scale_query, "
               "key_antiquant_scale and value_antiquant_scale are fp32",
               "dequant_scale_query's fp32 is also its registered dtype "
               "(TENS-038, decided first); the key/value scales register "
               "fp16 and bf16 too (TENS-030, TENS-032)",
               query_quant_scale_dt),
    MLA_REJECT("MLA-054", C003_QUERY_QUANT "; " C003_P("key_quant_mode"),
               "D = 512 full quantization: key and value are per-tensor: "
               "key_antiquant_mode and value_antiquant_mode are 0 (003: "
               "mode 0 per-channel, which includes per-tensor)",
               NULL, query_quant_kv_modes),
    MLA_REJECT("MLA-055", C003_QUERY_QUANT,
               "D = 512 full quantization: key_antiquant_scale and "
               "value_antiquant_scale have shape [1] (per-tensor)",
               "provenance: no document gives the shape (003 says "
               "per-tensor only); the vendor's released tiling (its dequant "
               "check; not in RELEASED-BEHAVIOUR.md) takes [1] and rejects "
               "anything else",
               query_quant_kv_shape),
    MLA_EXCLUDE("MLA-X03", C003_QUERY_QUANT,
                "D = 512 full quantization takes no quant_scale2, "
                "quant_offset2 (003's quant_scale_out / quant_offset_out), "
                "key_antiquant_offset or value_antiquant_offset (003's "
                "dequant_offset_key / dequant_offset_value)",
                query_quant_x),
    {"NM-010", "mla", FIA_RULE_NOT_MODELED, ORC_NM_LATE, C003_QUERY_QUANT,
     "D = 512 full quantization with 002's dequant_scale1, quant_scale1 or "
     "dequant_scale2 is not modeled: no document gives them a meaning "
     "beside 003's scales; every rule judges the call, then it is refused",
     "003's interface has no such parameters; 002 documents them for its "
     "own int8 scene (Q8-*), not for MLA",
     ORC_FN(nm_int8_quant_scales)},
};
const size_t orc_rules_mla_count =
    sizeof orc_rules_mla / sizeof orc_rules_mla[0];
