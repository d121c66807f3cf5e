/* antiquant: int8 / int4 key and value with an fp16 / bf16 query, each
 * element dequantized as (x + offset) * scale (docs/features/antiquant.md).
 *
 * Two sets of parameters: the combined antiquant_scale / antiquant_offset
 * (antiquant_mode; index 0 of the first dim the key's, 1 the value's) and
 * the separate key_/value_antiquant_scale / _offset (key_antiquant_mode,
 * value_antiquant_mode), which come after block_table and the paddings in
 * REG_OP order.  A separate scale puts the separate set in use and the
 * combined one is then ignored (ANTI-N01); at Q_S > 1 antiquant_mode is
 * ignored (ANTI-N02); no offset is symmetric (ANTI-N03).
 *
 * The rows: the registered dtypes (layer 2), the documented rules of the
 * scene (layer 5, "ANTI-0xx", the way the tiling checks its parameters:
 * which set, which mode, then the path's dtypes, then each tensor's shape
 * and dtype against its mode), and what fast/ does not compute (layer 6,
 * only for calls every rule accepts).  The combinations the scene excludes
 * with other features are theirs (check_paged.c, check_padding.c,
 * check_tensor_list.c, check_tnd.c); ANTI-025 is check_tensors.c's,
 * ANTI-028 check_gqa.c's.  This file does not fill the plan's antiquant
 * part: whatever a rule needs of the mode and the form it works out here.
 * Shapes are read only up to a rank the rule names, never data. */
#include "validate.h"

/* REG_OP order and registered dtypes. */
static const fast_opt_input shared[] = {
    {FAST_OPT_ANTIQUANT_SCALE, 3, {FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32}},
    {FAST_OPT_ANTIQUANT_OFFSET, 3, {FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32}},
};
static const fast_opt_input per_kv[] = {
    {FAST_OPT_KEY_ANTIQUANT_SCALE, 3, {FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32}},
    {FAST_OPT_KEY_ANTIQUANT_OFFSET, 3, {FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32}},
    {FAST_OPT_VALUE_ANTIQUANT_SCALE, 3, {FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32}},
    {FAST_OPT_VALUE_ANTIQUANT_OFFSET, 3, {FIA_DT_FP16, FIA_DT_BF16, FIA_DT_FP32}},
};
#define COUNT(x) (sizeof x / sizeof x[0])

/* Layer 2. */
fia_status fast_check_antiquant_dtypes(const fast_args *a, fast_plan *p,
                                       fia_error *err)
{
    (void)p;
    return fast_check_opt_dtypes(a, shared, COUNT(shared), err);
}

fia_status fast_check_antiquant_kv_dtypes(const fast_args *a, fast_plan *p,
                                          fia_error *err)
{
    (void)p;
    return fast_check_opt_dtypes(a, per_kv, COUNT(per_kv), err);
}

/* ---- the scene ------------------------------------------------------------ */
static bool is_int4(fia_dtype dt)
{
    return dt == FIA_DT_INT4 || dt == FIA_DT_INT32; /* int32: eight int4 */
}

static bool quantized(fia_dtype dt)
{
    return dt == FIA_DT_INT8 || is_int4(dt);
}

/* The scene: an fp16 / bf16 query with int8 / int4 key/value (key and value
 * of one dtype: ANTI-025, checked before). */
static bool in_scene(const fast_args *a)
{
    const fia_dtype qd = a->query->dtype;
    return (qd == FIA_DT_FP16 || qd == FIA_DT_BF16) &&
           quantized(a->key->tensors[0]->dtype);
}

/* What the rules read of one call: the dims the table's shapes are made of
 * (the plan's, filled by the layout, paged and list rows above; D is the
 * real head dim, x8 for int32), and the tensors of each set. */
typedef struct aq_call {
    bool decode; /* Q_S = 1 */
    bool int4;
    bool paged;
    fia_dtype qdt;
    int64_t B, N, D, H, Q_S, KV_S, blocknum, block_size;
    const fia_tensor *cs, *co;         /* combined scale / offset */
    const fia_tensor *ks, *ko, *vs, *vo; /* separate */
} aq_call;

#define ANY (-1) /* a dim of any non-negative size (a per-token S') */

/* t is of rank n (at most 4) with dims d0.. (ANY: any non-negative), and
 * its element count fits int64 (no other tensor exists).  A rank outside
 * 0..4 never matches, so no dim past the rank is read. */
static bool shape_is(const fia_tensor *t, int n, int64_t d0, int64_t d1,
                     int64_t d2, int64_t d3)
{
    const int64_t d[4] = {d0, d1, d2, d3};
    int64_t numel;
    if (t->ndim != n || !fast_shape_numel(t, &numel))
        return false;
    for (int i = 0; i < n; i++)
        if (d[i] == ANY ? t->shape[i] < 0 : t->shape[i] != d[i])
            return false;
    return true;
}

/* One shape, for tensors of any rank (a rank out of range is no shape). */
static bool same_shape(const fia_tensor *x, const fia_tensor *y)
{
    return x->ndim >= 0 && x->ndim <= FIA_MAX_RANK && fast_same_shape(x, y);
}

/* Per-channel with a leading dim: (lead, N, 1, D), (lead, N, D),
 * (lead, H). */
static bool per_channel(const aq_call *c, const fia_tensor *t, int64_t lead)
{
    return shape_is(t, 4, lead, c->N, 1, c->D) ||
           shape_is(t, 3, lead, c->N, c->D, 0) ||
           shape_is(t, 2, lead, c->H, 0, 0);
}

/* 002's separate per-channel shapes at Q_S > 1: (N, 1, D), (N, D), (H). */
static bool per_channel_bare(const aq_call *c, const fia_tensor *t)
{
    return shape_is(t, 3, c->N, 1, c->D, 0) || shape_is(t, 2, c->N, c->D, 0, 0) ||
           shape_is(t, 1, c->H, 0, 0, 0);
}

static const char *mode_name(int64_t m)
{
    static const char *const names[] = {
        "0 (per-channel / per-tensor)", "1 (per-token)",
        "2 (per-tensor per-head)", "3 (per-token per-head)",
        "4 (per-token, page-managed)", "5 (per-token per-head, page-managed)"};
    return m >= 0 && m <= 5 ? names[m] : "?";
}

/* ---- the combined set ----------------------------------------------------- */
/* antiquant_scale (and offset) in use: no separate scale. */
static fia_status check_combined(const fast_args *a, const aq_call *c,
                                 fia_error *err)
{
    const fia_tensor *s = c->cs, *o = c->co;
    if (c->int4)
        return FAST_REJECT("ANTI-017", "int4 key/value take only the separate "
                           "key_/value_antiquant_scale, not antiquant_scale");
    /* at Q_S > 1 the mode is ignored: mode 0's forms (ANTI-N02) */
    const int64_t m = c->decode ? a->antiquant_mode : 0;
    if (m != 0 && m != 1)
        return FAST_REJECT("ANTI-001", "antiquant_mode %lld not in {0, 1} (Q_S = 1)",
                           (long long)m);
    if (!c->decode && (c->qdt != FIA_DT_FP16 ||
                       a->key->tensors[0]->dtype != FIA_DT_INT8))
        return FAST_REJECT("ANTI-016", "antiquant_scale at Q_S > 1 takes an fp16 "
                           "query and int8 key/value, not %s / %s",
                           fast_dtype_name(c->qdt),
                           fast_dtype_name(a->key->tensors[0]->dtype));
    if (o != NULL && (o->dtype != s->dtype || !same_shape(o, s)))
        return FAST_REJECT("ANTI-006", "antiquant_offset's shape or dtype (%s) is "
                           "not antiquant_scale's (%s)", fast_dtype_name(o->dtype),
                           fast_dtype_name(s->dtype));
    if (m == 0 && !shape_is(s, 1, 2, 0, 0, 0) && !per_channel(c, s, 2))
        return FAST_REJECT("ANTI-007", "antiquant_scale (mode 0) must be (2) or "
                           "(2, N, 1, D), (2, N, D), (2, H) with N = %lld, D = %lld",
                           (long long)c->N, (long long)c->D);
    if (m == 1 && !shape_is(s, 3, 2, c->B, ANY, 0))
        return FAST_REJECT("ANTI-007", "antiquant_scale (mode 1, per-token) must be "
                           "(2, B = %lld, S)", (long long)c->B);
    /* per-tensor / per-channel the query's dtype (Q_S > 1: fp16, which
     * ANTI-016 made the query's), per-token fp32 */
    const fia_dtype want = m == 1 ? FIA_DT_FP32 : c->qdt;
    if (s->dtype != want)
        return FAST_REJECT("ANTI-008", "antiquant_scale dtype %s, mode %lld takes %s",
                           fast_dtype_name(s->dtype), (long long)m,
                           fast_dtype_name(want));
    if (m == 1 && s->shape[2] < c->KV_S)
        return FAST_REJECT("ANTI-023", "per-token antiquant_scale covers S = %lld, "
                           "fewer than the key's %lld%s", (long long)s->shape[2],
                           (long long)c->KV_S,
                           c->paged ? " (maxBlockNumPerSeq x block_size)" : "");
    return FIA_OK;
}

/* ---- the separate set ----------------------------------------------------- */
/* t is one of separate mode m's shapes (docs/features/antiquant.md, the
 * mode table); channel_only: the key of key 0 + value 1 (per-channel, not
 * per-tensor). */
static bool sep_shape_ok(const aq_call *c, const fia_tensor *t, int64_t m,
                         bool channel_only)
{
    switch (m) {
    case 0:
        if (!c->decode) /* 002 without the leading 1, 003 with it */
            return per_channel_bare(c, t) || per_channel(c, t, 1);
        return per_channel(c, t, 1) ||
               (!channel_only && shape_is(t, 1, 1, 0, 0, 0));
    case 1:
        return c->decode ? shape_is(t, 3, 1, c->B, ANY, 0)
                         : shape_is(t, 2, c->B, ANY, 0, 0);
    case 2:
        return shape_is(t, 1, c->N, 0, 0, 0);
    case 3:
        return shape_is(t, 3, c->B, c->N, ANY, 0);
    case 4:
        return shape_is(t, 2, c->blocknum, c->block_size, 0, 0);
    case 5:
        return shape_is(t, 3, c->blocknum, c->N, c->block_size, 0);
    default:
        return false;
    }
}

/* Mode m's dtype: per-tensor / per-channel / per-head the query's (Q_S >
 * 1: bf16, which ANTI-015 made the query's), per-token fp32. */
static fia_dtype sep_dtype(const aq_call *c, int64_t m)
{
    return m == 0 || m == 2 ? c->qdt : FIA_DT_FP32;
}

/* The mode, dtype and S' of one separate scale (and its offset). */
static fia_status check_one(const fast_args *a, const aq_call *c,
                            const char *who, const fia_tensor *s,
                            const fia_tensor *o, int64_t m, bool channel_only,
                            fia_error *err)
{
    if (o != NULL && (o->dtype != s->dtype || !same_shape(o, s)))
        return FAST_REJECT("ANTI-011", "%s_antiquant_offset's shape or dtype (%s) "
                           "is not %s_antiquant_scale's (%s)", who,
                           fast_dtype_name(o->dtype), who, fast_dtype_name(s->dtype));
    if (!sep_shape_ok(c, s, m, channel_only))
        return FAST_REJECT("ANTI-012", "%s_antiquant_scale's shape is not one of "
                           "mode %s%s (Q_S %s 1; N = %lld, D = %lld, B = %lld)", who,
                           mode_name(m), channel_only ? ", per-channel" : "",
                           c->decode ? "=" : ">", (long long)c->N, (long long)c->D,
                           (long long)c->B);
    const fia_dtype want = sep_dtype(c, m);
    if (s->dtype != want)
        return FAST_REJECT("ANTI-013", "%s_antiquant_scale dtype %s, mode %s takes "
                           "%s", who, fast_dtype_name(s->dtype), mode_name(m),
                           fast_dtype_name(want));
    if (m == 1 || m == 3) {
        const int64_t sp = s->shape[s->ndim - 1];
        if (sp < c->KV_S)
            return FAST_REJECT("ANTI-023", "per-token %s_antiquant_scale covers S = "
                               "%lld, fewer than the key's %lld%s", who,
                               (long long)sp, (long long)c->KV_S,
                               c->paged ? " (maxBlockNumPerSeq x block_size)" : "");
    }
    return FIA_OK;
}


/* key_/value_antiquant_scale in use (both of them: ANTI-009 came first). */
static fia_status check_separate(const fast_args *a, const aq_call *c,
                                 fia_error *err)
{
    const int64_t km = a->key_antiquant_mode, vm = a->value_antiquant_mode;
    if (km < 0 || km > 5 || vm < 0 || vm > 5)
        return FAST_REJECT("ANTI-002", "key_antiquant_mode %lld / "
                           "value_antiquant_mode %lld not in 0..5", (long long)km,
                           (long long)vm);
    if (!c->decode && (km > 1 || vm > 1))
        return FAST_REJECT("ANTI-003", "key_antiquant_mode %lld / "
                           "value_antiquant_mode %lld: Q_S > 1 takes 0 or 1",
                           (long long)km, (long long)vm);
    const bool k0v1 = c->decode && km == 0 && vm == 1;
    if (km != vm && !k0v1)
        return FAST_REJECT("ANTI-004", "key_antiquant_mode %lld != "
                           "value_antiquant_mode %lld (only key 0 + value 1 at "
                           "Q_S = 1 may differ)", (long long)km, (long long)vm);
    /* 002 kv伪量化参数分离 at Q_S > 1: Q_S <= 16, bf16 query and output,
     * int8 key/value */
    const fia_dtype kd = a->key->tensors[0]->dtype, od = a->out->dtype;
    if (!c->decode) {
        if (c->Q_S > 16)
            return FAST_REJECT("ANTI-014", "key_/value_antiquant_scale with Q_S = "
                               "%lld > 16", (long long)c->Q_S);
        if (c->qdt != FIA_DT_BF16 || kd != FIA_DT_INT8 || od != FIA_DT_BF16)
            return FAST_REJECT("ANTI-015", "key_/value_antiquant_scale at Q_S > 1 "
                               "take a bf16 query and output and int8 key/value, "
                               "not %s / %s / %s", fast_dtype_name(c->qdt),
                               fast_dtype_name(kd), fast_dtype_name(od));
    }
    if (k0v1 && kd == FIA_DT_INT8 &&
        (c->qdt != FIA_DT_FP16 || od != FIA_DT_FP16))
        return FAST_REJECT("ANTI-022", "key mode 0 + value mode 1 with int8 "
                           "key/value takes an fp16 query and output, not %s / %s",
                           fast_dtype_name(c->qdt), fast_dtype_name(od));
    /* 002 INT4 list: per-channel, per-token, per-token per-head, key 0 +
     * value 1 (km = vm but for key 0 + value 1) */
    if (c->int4 && (km == 2 || km >= 4))
        return FAST_REJECT("ANTI-018", "int4 key/value take no mode %s",
                           mode_name(km));
    if (c->int4 && ((km == 0 && shape_is(c->ks, 1, 1, 0, 0, 0)) ||
                    (vm == 0 && shape_is(c->vs, 1, 1, 0, 0, 0))))
        return FAST_REJECT("ANTI-018", "int4 key/value take no per-tensor (1) "
                           "scale");
    if ((km >= 4 || vm >= 4) && !c->paged)
        return FAST_REJECT("ANTI-021", "mode %s needs page attention (a "
                           "block_table)", mode_name(km >= 4 ? km : vm));
    if (!k0v1 && !same_shape(c->ks, c->vs))
        return FAST_REJECT("ANTI-010", "key_antiquant_scale and "
                           "value_antiquant_scale shapes differ");
    if (!k0v1 && c->ko != NULL && !same_shape(c->ko, c->vo))
        return FAST_REJECT("ANTI-010", "key_antiquant_offset and "
                           "value_antiquant_offset shapes differ");
    fia_status st = check_one(a, c, "key", c->ks, c->ko, km, k0v1, err);
    if (st != FIA_OK)
        return st;
    return check_one(a, c, "value", c->vs, c->vo, vm, false, err);
}

/* ---- layer 5 -------------------------------------------------------------- */
/* Which parameters the call gives, its path's dtypes and D, then the set
 * in use (docs/features/antiquant.md, Rules).  After the layout, paged and
 * list rows (the plan's B, KV_N, D, KV_S, blocknum). */
fia_status fast_check_antiquant(const fast_args *a, fast_plan *p,
                                fia_error *err)
{
    const fia_dtype qd = a->query->dtype, kd = a->key->tensors[0]->dtype;
    /* 002 Q_S = 1 "均为INT8的场景暂不支持" (full quantization exists at
     * Q_S > 1 only: int8_quant) */
    /* (003 MLA documents its full quantization at Q_S 1..16: its own
     * rules, check_query_quant_mla.c) */
    if (p->Q_S == 1 && qd == FIA_DT_INT8 && kd == FIA_DT_INT8 &&
        a->value->tensors[0]->dtype == FIA_DT_INT8 && !fast_mla_call(a))
        return FAST_REJECT("ANTI-027", "query, key and value all int8 (Q_S = 1)");
    if (!in_scene(a))
        return FIA_OK;
    const aq_call c = {
        .decode = p->Q_S == 1, .int4 = is_int4(kd),
        .paged = a->opt[FAST_OPT_BLOCK_TABLE] != NULL, .qdt = qd,
        .B = p->B, .N = p->KV_N, .D = p->D, .H = p->KV_N * p->D,
        .Q_S = p->Q_S, .KV_S = p->KV_S, .blocknum = p->page.blocknum,
        .block_size = a->block_size,
        .cs = a->opt[FAST_OPT_ANTIQUANT_SCALE],
        .co = a->opt[FAST_OPT_ANTIQUANT_OFFSET],
        .ks = a->opt[FAST_OPT_KEY_ANTIQUANT_SCALE],
        .ko = a->opt[FAST_OPT_KEY_ANTIQUANT_OFFSET],
        .vs = a->opt[FAST_OPT_VALUE_ANTIQUANT_SCALE],
        .vo = a->opt[FAST_OPT_VALUE_ANTIQUANT_OFFSET]};
    if (c.int4 && a->out->dtype == FIA_DT_INT8)
        return FAST_REJECT("ANTI-024", "int4 key/value with an int8 attention_out "
                           "(post-quantization)");
    if (c.int4 && c.D % 64 != 0)
        return FAST_REJECT("ANTI-019", "int4 key/value need D %% 64 == 0, not D = "
                           "%lld", (long long)c.D);
    if (!c.decode && kd == FIA_DT_INT8 && c.D % 32 != 0)
        return FAST_REJECT("ANTI-020", "int8 key/value at Q_S > 1 need D %% 32 == 0, "
                           "not D = %lld", (long long)c.D);
    if ((c.ks == NULL) != (c.vs == NULL))
        return FAST_REJECT("ANTI-009", "%s_antiquant_scale without %s_antiquant_scale",
                           c.ks ? "key" : "value", c.ks ? "value" : "key");
    if ((c.ko == NULL) != (c.vo == NULL))
        return FAST_REJECT("ANTI-009", "%s_antiquant_offset without "
                           "%s_antiquant_offset", c.ko ? "key" : "value",
                           c.ko ? "value" : "key");
    const bool separate = c.ks != NULL; /* and c.vs */
    if (!separate && c.ko != NULL)
        return FAST_REJECT("ANTI-011", "key_/value_antiquant_offset without "
                           "key_/value_antiquant_scale");
    if (separate)
        return check_separate(a, &c, err); /* the combined set ignored */
    if (c.co != NULL && c.cs == NULL)
        return FAST_REJECT("ANTI-005", "antiquant_offset without antiquant_scale");
    if (c.cs == NULL)
        return FAST_REJECT("ANTI-026", "%s key/value with a %s query and no "
                           "antiquant scale (antiquant_scale or key_/"
                           "value_antiquant_scale)", fast_dtype_name(kd),
                           fast_dtype_name(qd));
    return check_combined(a, &c, err);
}

/* ---- layer 6 -------------------------------------------------------------- */
/* A per-token mode in use: combined 1 (Q_S = 1), separate 1 or 3 (the
 * value of key 0 + value 1 too). */
static bool per_token(const fast_args *a, bool decode)
{
    if (a->opt[FAST_OPT_KEY_ANTIQUANT_SCALE] ||
        a->opt[FAST_OPT_VALUE_ANTIQUANT_SCALE]) {
        const int64_t km = a->key_antiquant_mode, vm = a->value_antiquant_mode;
        return km == 1 || km == 3 || vm == 1 || vm == 3;
    }
    return decode && a->antiquant_mode == 1;
}

/* What the documents leave open (docs/features/antiquant.md, "Not
 * modeled"; NM-003), for calls every rule accepted: antiquant parameters
 * with fp16 / bf16 key/value (ignored or rejected?), a shared prefix with
 * int8 / int4 key/value (which scale covers a prefix row?) and a per-token
 * mode with key/value tensor lists (whose S'?). */
fia_status fast_check_antiquant_unmodeled(const fast_args *a, fast_plan *p,
                                          fia_error *err)
{
    if (p->query_quant.on)
        return FIA_OK; /* MLA full quantization: the separate set is its
                          dequant scales (check_query_quant_mla.c) */
    if (!in_scene(a)) {
        for (size_t i = 0; i < COUNT(shared); i++)
            if (a->opt[shared[i].input])
                return FAST_NOTMOD("M_OPTIONAL", "%s with %s key/value is not "
                                   "modeled (undocumented: ignored or rejected?)",
                                   fast_optional_name(shared[i].input),
                                   fast_dtype_name(a->key->tensors[0]->dtype));
        for (size_t i = 0; i < COUNT(per_kv); i++)
            if (a->opt[per_kv[i].input])
                return FAST_NOTMOD("M_OPTIONAL", "%s with %s key/value is not "
                                   "modeled (undocumented: ignored or rejected?)",
                                   fast_optional_name(per_kv[i].input),
                                   fast_dtype_name(a->key->tensors[0]->dtype));
        if (a->antiquant_mode != 0 || a->key_antiquant_mode != 0 ||
            a->value_antiquant_mode != 0)
            return FAST_NOTMOD("M_ANTIQUANT_MODE", "antiquant_mode %lld / "
                               "key_antiquant_mode %lld / value_antiquant_mode %lld "
                               "with %s key/value is not modeled (undocumented)",
                               (long long)a->antiquant_mode,
                               (long long)a->key_antiquant_mode,
                               (long long)a->value_antiquant_mode,
                               fast_dtype_name(a->key->tensors[0]->dtype));
        return FIA_OK;
    }
    if (a->opt[FAST_OPT_KEY_SHARED_PREFIX] ||
        a->opt[FAST_OPT_VALUE_SHARED_PREFIX])
        return FAST_NOTMOD("M_ANTIQUANT_PREFIX", "a shared prefix with %s key/value "
                           "is not modeled (no document says which scales cover "
                           "the prefix rows)",
                           fast_dtype_name(a->key->tensors[0]->dtype));
    if ((a->key->count > 1 || a->value->count > 1) && per_token(a, p->Q_S == 1))
        return FAST_NOTMOD("M_ANTIQUANT_LIST", "a per-token antiquant mode with "
                           "key/value tensor lists is not modeled (no document "
                           "says which S the scales' S' counts)");
    return FIA_OK;
}
