/* Rules: key/value antiquantization, int8 or int4 key and value with an
 * fp16/bf16 query dequantized as (x + offset) * scale
 * (docs/features/antiquant.md: its mode table and rules table are what
 * these rows state).
 *
 * Two parameter sets: the combined antiquant_scale / antiquant_offset
 * (first dim 2: key, value) with antiquant_mode, and the separate key_ /
 * value_antiquant_scale / _offset with key_ / value_antiquant_mode 0..5;
 * the separate set wins when its scales are given (facts_antiquant.c).
 * Exclusions with other features live with those features (PAGED-004,
 * PAGED-008, PAD-X01, PAD-X03, LIST-002, TND-X04).  What no document
 * says is refused last, as not modeled (NM-003, ORC_NM_LATE), so a
 * documented rejection always wins. */
#include "oracle_internal.h"

#define C_AQ C002_CONSTR " (伪量化参数 antiquantScale和antiquantOffset约束)"
#define C_SEP_GT1 C002_GT1 " (kv伪量化参数分离)"
#define C_SEP_EQ1 C002_EQ1 " (kv伪量化参数分离)"
#define C_TABLE C003_EQ1 " (管理scale/offset的量化模式)"

static int decode(const fia_oracle_facts *f) { return orc_is_decode(f); }
static int prefill(const fia_oracle_facts *f) { return orc_is_prefill(f); }

static const fia_tensor *tens(const fia_oracle_facts *f, fia_slot s)
{
    return f->given[s] ? f->t[s] : NULL;
}

static fia_dtype qdt(const fia_oracle_facts *f)
{
    return f->t[FIA_SLOT_QUERY]->dtype;
}

static fia_dtype kdt(const fia_oracle_facts *f)
{
    return f->t[FIA_SLOT_KEY]->dtype;
}

static int shape_is(const fia_tensor *t, int n, const int64_t *want)
{
    if (t->ndim != n)
        return 0;
    for (int i = 0; i < n; i++)
        if (t->shape[i] != want[i])
            return 0;
    return 1;
}
#define SHAPE_IS(t, ...)                                                     \
    shape_is(t, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)),  \
             (int64_t[]){__VA_ARGS__})

/* The dims a per-channel or per-token shape reads are known. */
static int dims_known(const fia_oracle_facts *f)
{
    return f->q_rank_ok && f->q_d_ok && f->KV_N > 0 && f->B >= 0;
}

/* Per-channel over (N, D) with `lead` leading dims of size `lead_n`
 * (combined: one of 2; separate at Q_S = 1: one of 1; none). */
static int channel_shape(const fia_oracle_facts *f, const fia_tensor *t,
                         int lead, int64_t lead_n)
{
    const int64_t N = f->KV_N, D = f->D;
    if (lead == 0)
        return SHAPE_IS(t, N, 1, D) || SHAPE_IS(t, N, D) ||
               SHAPE_IS(t, N * D);
    return SHAPE_IS(t, lead_n, N, 1, D) || SHAPE_IS(t, lead_n, N, D) ||
           SHAPE_IS(t, lead_n, N * D);
}

/* ---- the combined set ------------------------------------------------ */

static int comb_scope(const fia_oracle_facts *f)
{
    return f->aq_scene && f->aq_comb;
}

/* The combined form: per-token when Q_S = 1 and antiquant_mode 1. */
static int comb_token(const fia_oracle_facts *f)
{
    return decode(f) && f->c->attrs.antiquant_mode == 1;
}

static int comb_shape_bad(const fia_oracle_facts *f)
{
    const fia_tensor *t = f->t[FIA_SLOT_ANTIQUANT_SCALE];
    if (comb_token(f))
        return t->ndim != 3 || t->shape[0] != 2 || t->shape[1] != f->B;
    return !SHAPE_IS(t, 2) && !channel_shape(f, t, 1, 2);
}

static int comb_dtype_bad(const fia_oracle_facts *f)
{
    fia_dtype want = prefill(f)       ? FIA_DT_FP16
                     : comb_token(f) ? FIA_DT_FP32
                                     : qdt(f);
    return f->t[FIA_SLOT_ANTIQUANT_SCALE]->dtype != want;
}

static int comb_offset_bad(const fia_oracle_facts *f)
{
    const fia_tensor *s = f->t[FIA_SLOT_ANTIQUANT_SCALE];
    const fia_tensor *o = f->t[FIA_SLOT_ANTIQUANT_OFFSET];
    return o->dtype != s->dtype || o->ndim != s->ndim ||
           !shape_is(o, s->ndim, s->shape);
}

/* ---- the separate set ------------------------------------------------ */

static int sep_scope(const fia_oracle_facts *f)
{
    return f->aq_scene && f->aq_sep;
}

static int64_t kmode(const fia_oracle_facts *f)
{
    return f->c->attrs.key_antiquant_mode;
}
static int64_t vmode(const fia_oracle_facts *f)
{
    return f->c->attrs.value_antiquant_mode;
}
static int mode_ok(int64_t m) { return m >= 0 && m <= 5; }

/* key 0 + value 1, allowed apart at Q_S = 1 only. */
static int k0v1(const fia_oracle_facts *f)
{
    return decode(f) && kmode(f) == 0 && vmode(f) == 1;
}

/* The modes are valid and consistent (the shape and dtype rows read
 * them only then). */
static int modes_ok(const fia_oracle_facts *f)
{
    if (!mode_ok(kmode(f)) || !mode_ok(vmode(f)))
        return 0;
    if (prefill(f))
        return kmode(f) <= 1 && kmode(f) == vmode(f);
    return kmode(f) == vmode(f) || k0v1(f);
}

static int per_token_mode(int64_t m) { return m == 1 || m == 3 || m == 4 || m == 5; }

static int sep_shape_ok(const fia_oracle_facts *f, const fia_tensor *t,
                        int64_t m)
{
    const int64_t N = f->KV_N, B = f->B;
    if (prefill(f)) {
        if (m == 0)
            return channel_shape(f, t, 0, 0) || channel_shape(f, t, 1, 1);
        return t->ndim == 2 && t->shape[0] == B;
    }
    switch (m) {
    case 0: return SHAPE_IS(t, 1) || channel_shape(f, t, 1, 1);
    case 1: return t->ndim == 3 && t->shape[0] == 1 && t->shape[1] == B;
    case 2: return SHAPE_IS(t, N);
    case 3: return t->ndim == 3 && t->shape[0] == B && t->shape[1] == N;
    case 4:
    case 5: {
        if (!f->paged || f->cache == NULL || f->cache->ndim < 1)
            return 1; /* ANTI-021's */
        const int64_t bn = f->cache->shape[0], bs = f->c->attrs.block_size;
        return m == 4 ? SHAPE_IS(t, bn, bs) : SHAPE_IS(t, bn, N, bs);
    }
    default: return 1;
    }
}

static fia_dtype sep_dtype(const fia_oracle_facts *f, int64_t m)
{
    if (m == 0)
        return prefill(f) ? FIA_DT_BF16 : qdt(f);
    return m == 2 ? qdt(f) : FIA_DT_FP32;
}

static int sep_shapes_bad(const fia_oracle_facts *f)
{
    const fia_tensor *ks = tens(f, FIA_SLOT_KEY_ANTIQUANT_SCALE);
    const fia_tensor *vs = tens(f, FIA_SLOT_VALUE_ANTIQUANT_SCALE);
    return (ks && !sep_shape_ok(f, ks, kmode(f))) ||
           (vs && !sep_shape_ok(f, vs, vmode(f)));
}

static int sep_dtypes_bad(const fia_oracle_facts *f)
{
    const fia_tensor *ks = tens(f, FIA_SLOT_KEY_ANTIQUANT_SCALE);
    const fia_tensor *vs = tens(f, FIA_SLOT_VALUE_ANTIQUANT_SCALE);
    return (ks && ks->dtype != sep_dtype(f, kmode(f))) ||
           (vs && vs->dtype != sep_dtype(f, vmode(f)));
}

static int pair_bad(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_KEY_ANTIQUANT_SCALE] !=
               f->given[FIA_SLOT_VALUE_ANTIQUANT_SCALE] ||
           f->given[FIA_SLOT_KEY_ANTIQUANT_OFFSET] !=
               f->given[FIA_SLOT_VALUE_ANTIQUANT_OFFSET];
}

static int same_shape(const fia_tensor *a, const fia_tensor *b)
{
    return a->ndim == b->ndim && shape_is(a, b->ndim, b->shape);
}

static int kv_shapes_differ(const fia_oracle_facts *f)
{
    const fia_tensor *ks = tens(f, FIA_SLOT_KEY_ANTIQUANT_SCALE);
    const fia_tensor *vs = tens(f, FIA_SLOT_VALUE_ANTIQUANT_SCALE);
    const fia_tensor *ko = tens(f, FIA_SLOT_KEY_ANTIQUANT_OFFSET);
    const fia_tensor *vo = tens(f, FIA_SLOT_VALUE_ANTIQUANT_OFFSET);
    return (ks && vs && !same_shape(ks, vs)) ||
           (ko && vo && !same_shape(ko, vo));
}

/* An offset without its scale, or unlike it. */
static int sep_offset_bad(const fia_oracle_facts *f)
{
    static const fia_slot pairs[2][2] = {
        {FIA_SLOT_KEY_ANTIQUANT_OFFSET, FIA_SLOT_KEY_ANTIQUANT_SCALE},
        {FIA_SLOT_VALUE_ANTIQUANT_OFFSET, FIA_SLOT_VALUE_ANTIQUANT_SCALE}};
    for (int i = 0; i < 2; i++) {
        const fia_tensor *o = tens(f, pairs[i][0]), *s = tens(f, pairs[i][1]);
        if (o == NULL)
            continue;
        if (s == NULL || o->dtype != s->dtype || !same_shape(o, s))
            return 1;
    }
    return 0;
}

static int sep_any_given(const fia_oracle_facts *f)
{
    static const fia_slot s[] = {
        FIA_SLOT_KEY_ANTIQUANT_SCALE, FIA_SLOT_KEY_ANTIQUANT_OFFSET,
        FIA_SLOT_VALUE_ANTIQUANT_SCALE, FIA_SLOT_VALUE_ANTIQUANT_OFFSET};
    return ORC_ANY_GIVEN(f, s);
}

/* ---- the per-token S ------------------------------------------------- */

/* The per-token scale tensor and its S dim, when one is in use. */
static int64_t token_s(const fia_oracle_facts *f)
{
    if (comb_scope(f) && comb_token(f) &&
        f->given[FIA_SLOT_ANTIQUANT_SCALE]) {
        const fia_tensor *t = f->t[FIA_SLOT_ANTIQUANT_SCALE];
        return t->ndim == 3 ? t->shape[2] : -1;
    }
    if (!sep_scope(f) || !modes_ok(f))
        return -1;
    int64_t s = -1;
    const fia_slot slot[2] = {FIA_SLOT_KEY_ANTIQUANT_SCALE,
                              FIA_SLOT_VALUE_ANTIQUANT_SCALE};
    const int64_t m[2] = {kmode(f), vmode(f)};
    for (int i = 0; i < 2; i++) {
        const fia_tensor *t = tens(f, slot[i]);
        if (t == NULL || (m[i] != 1 && m[i] != 3) || t->ndim < 2)
            continue;
        int64_t si = t->shape[t->ndim - 1];
        if (s < 0 || si < s)
            s = si;
    }
    return s;
}

static int token_s_bad(const fia_oracle_facts *f)
{
    return token_s(f) < f->KV_S;
}

/* ---- predicates ------------------------------------------------------ */

static int any_scale(const fia_oracle_facts *f)
{
    return f->aq_sep || f->given[FIA_SLOT_ANTIQUANT_SCALE];
}

static int int8_of(const fia_oracle_facts *f, fia_slot s)
{
    return f->given[s] && f->t[s]->dtype == FIA_DT_INT8;
}

static int out_dt(const fia_oracle_facts *f)
{
    return f->out_presence == FIA_PRESENT ? (int)f->out.dtype : -1;
}

static int ratio_over_64(const fia_oracle_facts *f)
{
    return f->KV_N > 0 && f->N > 0 && f->N % f->KV_N == 0 &&
           f->N / f->KV_N > 64;
}

ORC_PRED(comb_mode, comb_scope(f) && decode(f),
         f->c->attrs.antiquant_mode != 0 && f->c->attrs.antiquant_mode != 1)
ORC_PRED(sep_mode_range, sep_scope(f), !mode_ok(kmode(f)) || !mode_ok(vmode(f)))
ORC_PRED(sep_mode_prefill,
         sep_scope(f) && prefill(f) && mode_ok(kmode(f)) && mode_ok(vmode(f)),
         kmode(f) > 1 || vmode(f) > 1)
ORC_PRED(sep_mode_equal,
         sep_scope(f) && mode_ok(kmode(f)) && mode_ok(vmode(f)),
         kmode(f) != vmode(f) && !k0v1(f))
ORC_PRED(comb_offset_alone, f->aq_scene && !f->aq_sep,
         f->given[FIA_SLOT_ANTIQUANT_OFFSET] &&
             !f->given[FIA_SLOT_ANTIQUANT_SCALE])
ORC_PRED(comb_offset_like,
         comb_scope(f) && f->given[FIA_SLOT_ANTIQUANT_SCALE] &&
             f->given[FIA_SLOT_ANTIQUANT_OFFSET],
         comb_offset_bad(f))
ORC_PRED(comb_shape,
         comb_scope(f) && f->given[FIA_SLOT_ANTIQUANT_SCALE] && dims_known(f) &&
             (prefill(f) || f->c->attrs.antiquant_mode == 0 ||
              f->c->attrs.antiquant_mode == 1),
         comb_shape_bad(f))
ORC_PRED(comb_dtype,
         comb_scope(f) && f->given[FIA_SLOT_ANTIQUANT_SCALE] &&
             (prefill(f) || f->c->attrs.antiquant_mode == 0 ||
              f->c->attrs.antiquant_mode == 1),
         comb_dtype_bad(f))
ORC_PRED(sep_pair, f->aq_scene && sep_any_given(f), pair_bad(f))
ORC_PRED(sep_kv_shapes, sep_scope(f) && !pair_bad(f) && !k0v1(f),
         kv_shapes_differ(f))
ORC_PRED(sep_offset, f->aq_scene && sep_any_given(f), sep_offset_bad(f))
ORC_PRED(sep_shape, sep_scope(f) && modes_ok(f) && dims_known(f),
         sep_shapes_bad(f))
ORC_PRED(sep_dtype, sep_scope(f) && modes_ok(f), sep_dtypes_bad(f))
ORC_PRED(sep_qs16, sep_scope(f) && prefill(f), f->Q_S > 16)
ORC_PRED(sep_prefill_dtypes, sep_scope(f) && prefill(f),
         qdt(f) != FIA_DT_BF16 || kdt(f) != FIA_DT_INT8 ||
             out_dt(f) != FIA_DT_BF16)
ORC_PRED(comb_prefill_dtypes, comb_scope(f) && prefill(f),
         qdt(f) != FIA_DT_FP16 || kdt(f) != FIA_DT_INT8)
ORC_PRED(int4_comb, f->aq_int4 && any_scale(f), !f->aq_sep)
ORC_PRED(int4_modes, f->aq_int4 && f->aq_sep && dims_known(f),
         kmode(f) == 2 || kmode(f) == 4 || kmode(f) == 5 || vmode(f) == 2 ||
             vmode(f) == 4 || vmode(f) == 5 ||
             (kmode(f) == 0 && tens(f, FIA_SLOT_KEY_ANTIQUANT_SCALE) &&
              SHAPE_IS(f->t[FIA_SLOT_KEY_ANTIQUANT_SCALE], 1)))
ORC_PRED(int4_d64, f->aq_int4 && f->q_d_ok, f->D % 64 != 0)
ORC_PRED(int8_d32, f->aq_scene && !f->aq_int4 && prefill(f) && f->q_d_ok,
         f->D % 32 != 0)
ORC_PRED(page_modes, sep_scope(f),
         (kmode(f) == 4 || kmode(f) == 5 || vmode(f) == 4 || vmode(f) == 5) &&
             !f->paged)
ORC_PRED(k0v1_int8, sep_scope(f) && k0v1(f) && kdt(f) == FIA_DT_INT8,
         qdt(f) != FIA_DT_FP16 || out_dt(f) != FIA_DT_FP16)
ORC_PRED(token_s, f->aq_scene && f->k_rank_ok && token_s(f) >= 0,
         token_s_bad(f))
ORC_PRED(int4_out8, f->aq_int4, out_dt(f) == FIA_DT_INT8)
ORC_PRED(no_scale, f->aq_scene, !any_scale(f))
/* MLA's full quantization documents Q_S 1..16 (MLA-050) */
ORC_PRED(all_int8_decode, decode(f) && !f->mla_query_quant,
         int8_of(f, FIA_SLOT_QUERY) && int8_of(f, FIA_SLOT_KEY) &&
             int8_of(f, FIA_SLOT_VALUE))
/* MLA D = 512 documents 128 heads over one (as GQA-003) */
ORC_PRED(ratio, (f->aq_scene || int8_of(f, FIA_SLOT_QUERY)) && !f->mla512,
         ratio_over_64(f))
/* Normalizations. */
ORC_PRED(sep_wins, f->aq_scene && f->aq_sep,
         f->given[FIA_SLOT_ANTIQUANT_SCALE] ||
             f->given[FIA_SLOT_ANTIQUANT_OFFSET])
ORC_PRED(mode_ignored, comb_scope(f) && prefill(f),
         f->c->attrs.antiquant_mode != 0)
ORC_PRED(symmetric, f->aq_scene && any_scale(f),
         f->aq_sep ? !f->given[FIA_SLOT_KEY_ANTIQUANT_OFFSET]
                   : !f->given[FIA_SLOT_ANTIQUANT_OFFSET])

/* Not modeled: undocumented. */
static int nm_undocumented(const fia_oracle_facts *f)
{
    const fia_case *c = f->c;
    /* outside the scene: fp16/bf16 key/value, or full int8 (an int8
     * query; int8_quant.md) */
    if (!f->aq_scene && !f->mla_query_quant && /* MLA's scales: rules_mla.c */
        (orc_antiquant_given(f) || c->attrs.antiquant_mode != 0 ||
         c->attrs.key_antiquant_mode != 0 ||
         c->attrs.value_antiquant_mode != 0))
        return 1;
    if (!f->aq_scene)
        return 0;
    if (orc_prefix_given(f))
        return 1;
    int token = f->aq_sep ? per_token_mode(kmode(f)) || per_token_mode(vmode(f))
                          : comb_token(f);
    return f->kv_list && token;
}
ORC_PRED(nm_aq, 1, nm_undocumented(f))

const fia_rule orc_rules_antiquant[] = {
    {"ANTI-001", "antiquant", FIA_RULE_REJECT, ORC_SEM,
     C002_P("antiquantMode") "; " C000_KW("antiquant_mode"),
     "Q_S = 1, combined antiquant set: antiquant_mode is 0 (per-channel, "
     "per-tensor) or 1 (per-token)",
     "002 says other values 'fail at execution' (执行异常): read as a "
     "rejection; at Q_S > 1 the mode is ignored (ANTI-N02)",
     ORC_FN(comb_mode)},
    {"ANTI-002", "antiquant", FIA_RULE_REJECT, ORC_SEM,
     C002_P("keyAntiquantMode") "; " C002_P("valueAntiquantMode"),
     "separate antiquant set: key_antiquant_mode and value_antiquant_mode "
     "are in 0..5",
     "read as a rejection, like ANTI-001 (执行异常)", ORC_FN(sep_mode_range)},
    {"ANTI-003", "antiquant", FIA_RULE_REJECT, ORC_SEM,
     C002_P("keyAntiquantMode") "; " C_SEP_GT1,
     "Q_S > 1, separate antiquant set: only modes 0 (per-channel) and 1 "
     "(per-token)",
     "000 says the separate set is not supported at all at Q_S > 1 "
     "(kv伪量化参数分离当前暂不支持); both profiles follow 002",
     ORC_FN(sep_mode_prefill)},
    {"ANTI-004", "antiquant", FIA_RULE_REJECT, ORC_SEM,
     C_SEP_GT1 "; " C_SEP_EQ1 "; " C003_GT1 "; " C003_EQ1,
     "key_antiquant_mode equals value_antiquant_mode, except key 0 with "
     "value 1 at Q_S = 1",
     "002 and 003 allow key 0 + value 1 only in their Q_S = 1 lists; 000 "
     "asks equal modes without exception",
     ORC_FN(sep_mode_equal)},
    {"ANTI-005", "antiquant", FIA_RULE_REJECT, ORC_SEM, C_AQ,
     "combined antiquant set: antiquant_offset needs antiquant_scale "
     "(asymmetric quantization takes both; symmetric omits the offset)",
     NULL, ORC_FN(comb_offset_alone)},
    {"ANTI-006", "antiquant", FIA_RULE_REJECT, ORC_SEM, C_AQ,
     "combined antiquant set: antiquant_offset has antiquant_scale's shape "
     "and dtype",
     "inferred: 002 gives the two parameters one shape and one dtype per "
     "mode",
     ORC_FN(comb_offset_like)},
    {"ANTI-007", "antiquant", FIA_RULE_REJECT, ORC_SEM,
     C_AQ "; " C000_KW("antiquant_scale") "; " C001_P("antiquant_scale"),
     "combined antiquant shapes: per-tensor (2), per-channel (2,KV_N,1,D), "
     "(2,KV_N,D) or (2,H); per-token (Q_S = 1, mode 1) (2,B,S)",
     "001 ties each per-channel shape to a layout ((2,N,1,D) BNSD, (2,H) "
     "BSH, (2,N,D) BSND); 002 lists them without: fiacheck accepts any of "
     "them with every layout",
     ORC_FN(comb_shape)},
    {"ANTI-008", "antiquant", FIA_RULE_REJECT, ORC_SEM,
     C_AQ "; " C002_P("antiquantScaleOptional") "; " C000_KW("antiquant_scale"),
     "combined antiquant dtype: per-tensor / per-channel the query's dtype, "
     "per-token fp32; Q_S > 1 fp16 only",
     NULL, ORC_FN(comb_dtype)},
    {"ANTI-009", "antiquant", FIA_RULE_REJECT, ORC_SEM,
     C_SEP_GT1 "; " C_SEP_EQ1 "; " C000_EQ1,
     "separate antiquant set: key and value scales both given or neither, "
     "and the offsets alike",
     NULL, ORC_FN(sep_pair)},
    {"ANTI-010", "antiquant", FIA_RULE_REJECT, ORC_SEM,
     C_SEP_GT1 "; " C_SEP_EQ1,
     "separate antiquant set: the key's and the value's scales have one "
     "shape, their offsets too (not for key 0 + value 1 at Q_S = 1)",
     NULL, ORC_FN(sep_kv_shapes)},
    {"ANTI-011", "antiquant", FIA_RULE_REJECT, ORC_SEM, C_AQ "; " C_SEP_EQ1,
     "separate antiquant set: an offset comes with its scale, of the "
     "scale's shape and dtype",
     "inferred from the combined set's asymmetric rule and the per-mode "
     "tables, which give scale and offset one shape and dtype",
     ORC_FN(sep_offset)},
    {"ANTI-012", "antiquant", FIA_RULE_REJECT, ORC_SEM,
     C_SEP_GT1 "; " C_SEP_EQ1 "; " C_TABLE,
     "separate antiquant shapes per mode (N = KV_N): Q_S = 1: 0 (1) or "
     "(1,N,1,D)/(1,N,D)/(1,H), 1 (1,B,S), 2 (N), 3 (B,N,S), 4 "
     "(blocknum,block_size), 5 (blocknum,N,block_size); Q_S > 1: 0 "
     "(N,1,D)/(N,D)/(H) with or without a leading 1, 1 (B,S)",
     "002 lists the Q_S > 1 per-channel shapes without the leading 1, 003's "
     "table with and without: both accepted",
     ORC_FN(sep_shape)},
    {"ANTI-013", "antiquant", FIA_RULE_REJECT, ORC_SEM,
     C_SEP_GT1 "; " C_SEP_EQ1 "; " C_TABLE,
     "separate antiquant dtypes per mode: per-token modes (1, 3, 4, 5) fp32; "
     "modes 0 and 2 the query's dtype at Q_S = 1; mode 0 bf16 at Q_S > 1",
     NULL, ORC_FN(sep_dtype)},
    {"ANTI-014", "antiquant", FIA_RULE_REJECT, ORC_SEM, C_SEP_GT1 "; " C003_GT1,
     "Q_S > 1, separate antiquant set: the query's S is at most 16", NULL,
     ORC_FN(sep_qs16)},
    {"ANTI-015", "antiquant", FIA_RULE_REJECT, ORC_SEM, C_SEP_GT1 "; " C003_GT1,
     "Q_S > 1, separate antiquant set: query bf16, key/value int8, "
     "attention_out bf16",
     NULL, ORC_FN(sep_prefill_dtypes)},
    {"ANTI-016", "antiquant", FIA_RULE_REJECT, ORC_SEM,
     C002_GT1 " (kvCache反量化的合成参数场景); " C000_GT1,
     "Q_S > 1, combined antiquant set: an fp16 query with int8 key/value "
     "only",
     NULL, ORC_FN(comb_prefill_dtypes)},
    {"ANTI-017", "antiquant", FIA_RULE_REJECT, ORC_SEM, C_SEP_EQ1,
     "int4 (int4 or int32) key/value take the separate antiquant set only",
     NULL, ORC_FN(int4_comb)},
    {"ANTI-018", "antiquant", FIA_RULE_REJECT, ORC_SEM, C_SEP_EQ1 "; " C_TABLE,
     "int4 key/value: separate modes 0 per-channel, 1, 3 or key 0 + value "
     "1 only (not per-tensor, 2, 4, 5)",
     NULL, ORC_FN(int4_modes)},
    {"ANTI-019", "antiquant", FIA_RULE_REJECT, ORC_SEM,
     C002_EQ1 " (query，key，value输入); " C002_GT1 "; " C003_EQ1,
     "int4 key/value: the real D is a multiple of 64 (an int32 one's last "
     "dim a multiple of 8)",
     NULL, ORC_FN(int4_d64)},
    {"ANTI-020", "antiquant", FIA_RULE_REJECT, ORC_SEM, C002_GT1 "; " C000_GT1,
     "Q_S > 1, int8 key/value: D is a multiple of 32", NULL,
     ORC_FN(int8_d32)},
    {"ANTI-021", "antiquant", FIA_RULE_REJECT, ORC_SEM, C_SEP_EQ1 "; " C_TABLE,
     "separate modes 4 and 5 (scales managed by page attention) need page "
     "attention (block_table)",
     "inferred: the documents describe the modes' scales per cache block",
     ORC_FN(page_modes)},
    {"ANTI-022", "antiquant", FIA_RULE_REJECT, ORC_SEM, C_SEP_EQ1 "; " C_TABLE,
     "key 0 + value 1 with int8 key/value: query and attention_out fp16", NULL,
     ORC_FN(k0v1_int8)},
    {"ANTI-023", "antiquant", FIA_RULE_REJECT, ORC_SEM,
     C002_EQ1 " (page attention场景); " C000_EQ1,
     "a per-token antiquant scale's S is at least KV_S (with page attention "
     "maxBlockNumPerSeq x block_size)",
     "002 writes (2,B,S) and (B,S) with the key's S; its page attention "
     "list asks 'at least': fiacheck reads 'at least' on both",
     ORC_FN(token_s)},
    {"ANTI-024", "antiquant", FIA_RULE_REJECT, ORC_SEM, C_SEP_EQ1 "; " C003_EQ1,
     "int4 key/value take no output quantization (int8 attention_out)", NULL,
     ORC_FN(int4_out8)},
    {"ANTI-026", "antiquant", FIA_RULE_REJECT, ORC_SEM,
     C002_GT1 " (kvCache反量化的合成参数场景); " C_SEP_EQ1,
     "int8/int4 key/value with an fp16/bf16 query need an antiquant scale "
     "(combined or separate)",
     "inferred: every document dequantizes the scene with a scale; none "
     "runs it without",
     ORC_FN(no_scale)},
    {"ANTI-027", "antiquant", FIA_RULE_REJECT, ORC_SEM,
     C002_EQ1 " (query，key，value输入); " C003_EQ1 "; " C001_CONSTR,
     "Q_S = 1: query, key and value all int8 is not supported (but MLA D = "
     "512 full quantization)",
     "003's MLA D = 512 list allows full quantization at Q_S 1..16: that "
     "scene is exempt (its rules MLA-05x, QQ-*)",
     ORC_FN(all_int8_decode)},
    {"ANTI-028", "antiquant", FIA_RULE_REJECT, ORC_SEM,
     C002_P("numKeyValueHeads") "; " CREL("Silent normalisations"),
     "on a quantized path (int8/int4 key/value, or an int8 query) "
     "num_heads / num_key_value_heads is at most 64 in both profiles "
     "(GQA-003's cann acceptance is for the non-quantized path; not MLA D = "
     "512, MLA-011)",
     "003's MLA D = 512 list documents 128 heads over one, full "
     "quantization included", ORC_FN(ratio)},
    {"ANTI-N01", "antiquant", FIA_RULE_NORMALIZE, ORC_NORM,
     C_SEP_GT1 "; " C_SEP_EQ1 "; " C003_CONSTR,
     "separate scales given: antiquant_scale, antiquant_offset and "
     "antiquant_mode are ignored",
     NULL, ORC_FN(sep_wins)},
    {"ANTI-N02", "antiquant", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_P("antiquantMode"),
     "Q_S > 1: antiquant_mode is ignored (the combined set takes mode 0's "
     "shapes)",
     NULL, ORC_FN(mode_ignored)},
    {"ANTI-N03", "antiquant", FIA_RULE_NORMALIZE, ORC_NORM, C_AQ,
     "no antiquant offset: symmetric quantization (offset 0)", NULL,
     ORC_FN(symmetric)},
    {"NM-003", "antiquant", FIA_RULE_NOT_MODELED, ORC_NM_LATE,
     C002_CONSTR " (伪量化参数, kv伪量化参数分离)",
     "not modeled (undocumented): antiquant tensors or a mode != 0 with "
     "fp16/bf16 key/value or with full int8 (an int8 query); a shared "
     "prefix with int8/int4 key/value; a per-token mode with a key/value "
     "tensor list",
     NULL, ORC_FN(nm_aq)},
};
const size_t orc_rules_antiquant_count =
    sizeof orc_rules_antiquant / sizeof orc_rules_antiquant[0];
