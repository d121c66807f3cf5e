/* fuzz_numeric's antiquant cases (docs/features/antiquant.md): at the end
 * of the list, now and then (more often for the reach plans) a valid
 * case's key and value become int8, int4, or int4 packed in int32, with a
 * scale set the path and the case's form allow:
 *
 *   Q_S = 1   the combined set (per-tensor, per-channel in its three
 *             shapes, per-token) or the separate one (modes 0..3, 4 / 5
 *             behind a case's page table, key 0 + value 1 with an fp16
 *             query); int4 with the separate modes 0, 1, 3, 0 + 1
 *   Q_S > 1   an fp16 query takes the combined set (per-tensor or per-
 *             channel, antiquant_mode given or not: ignored); a bf16 one
 *             the separate modes 0 / 1 at Q_S <= 16
 *
 * and never what an exclusion or not-modeled row covers (int4 behind a
 * page table or left padding, the separate set with left padding or a
 * prefill list, per-token scales with a list, a shared prefix, a token
 * layout).  D must be a multiple of 32 at Q_S > 1 and of 64 for int4: a
 * plain case is widened to it (query data drawn again, within the
 * reference's budget) now and then.
 *
 * Data: the integers over their whole range (-128..127, -8..7), at the
 * edges, small, or around -offset (x + offset ~ 0: a kernel that factors
 * the offset out cancels); scales of magnitude ~1, large (dequantized
 * values up to 32768, within fp16), tiny (fp16 subnormal dequantized
 * values) or mixed per element; offsets none, small, fractional, large or
 * one constant.  The metamorphic target's bases take powers of two and
 * integer offsets only, so that every dequantized value is exact in the
 * query's dtype (antiquant=, meta_antiquant.c).
 * Fragment contract: fuzz/gen.h. */
#include <math.h>
#include <stdlib.h>
#include "fuzz/gen.h"

enum { IK_FULL, IK_EDGE, IK_SMALL, IK_CANCEL, IK_COUNT };
enum { SK_UNIT, SK_LARGE, SK_TINY, SK_MIXED, SK_COUNT };
enum { OK_NONE, OK_SMALL, OK_FRAC, OK_LARGE, OK_CONST, OK_COUNT };

typedef struct aqn {
    fuzz_rng rng;
    int meta, ik, sk, ok;
    int lo, hi;         /* the integers' range */
    double cst;         /* OK_CONST's offset */
} aqn;

static int64_t rnd(fuzz_rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(fuzz_rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* One quantized element. */
static int64_t int_value(aqn *a)
{
    switch (a->ik) {
    case IK_EDGE: {
        const int64_t e[] = {a->lo, a->hi, a->lo + 1, a->hi - 1, 0, -1};
        return e[rnd(&a->rng, 0, 5)];
    }
    case IK_SMALL: return rnd(&a->rng, -3, 3);
    case IK_CANCEL: {
        int64_t x = (int64_t)-a->cst + rnd(&a->rng, -1, 1);
        return x < a->lo ? a->lo : x > a->hi ? a->hi : x;
    }
    default: return rnd(&a->rng, a->lo, a->hi);
    }
}

/* The largest |x + offset| the data kinds give: a unit scale is chosen
 * against it, so that dequantized values are of magnitude ~1 as a real
 * quantization makes them (larger ones make scores whose error bound is
 * +inf in fp16/bf16: a case nothing is compared in). */
static double magnitude(const aqn *a)
{
    const double x = a->ik == IK_SMALL ? 3.0
                     : a->ik == IK_CANCEL ? 1.0
                                          : (double)a->hi;
    const double o = a->ok == OK_NONE ? 0.0
                     : a->ok == OK_LARGE ? (a->hi > 7 ? 128.0 : 8.0)
                     : a->ok == OK_CONST ? fabs(a->cst)
                                         : 8.0;
    return x + o;
}

/* One scale element: a power of two for the metamorphic target, else
 * times a factor in [1, 2). */
static double scale_value(aqn *a)
{
    int k = a->sk == SK_MIXED ? (int)rnd(&a->rng, 0, 2) : a->sk;
    const int unit = -(int)ceil(log2(magnitude(a) + 1.0));
    int e = k == SK_LARGE ? (int)rnd(&a->rng, 4, a->meta ? 7 : 6)
            : k == SK_TINY ? -(int)rnd(&a->rng, 14, 20)
                           : unit + (int)rnd(&a->rng, -1, 1);
    double m = a->meta ? 1.0 : 1.0 + fuzz_rng_unit(&a->rng);
    return ldexp(m, e);
}

static double offset_value(aqn *a)
{
    switch (a->ok) {
    case OK_SMALL: return (double)rnd(&a->rng, -8, 8);
    case OK_FRAC:
        return a->meta ? (double)rnd(&a->rng, -4, 4)
                       : (double)rnd(&a->rng, -32, 32) / 4;
    case OK_LARGE: {
        double m = a->hi > 7 ? (double)rnd(&a->rng, 64, 128)
                             : (double)rnd(&a->rng, 4, 8);
        return fuzz_rng_next(&a->rng) & 1 ? m : -m;
    }
    default: return a->cst;
    }
}

/* The data of every tensor of slot s, one value each (an int32 packs
 * eight int4, low bits first); 0 or NOMEM. */
static fia_status fill(fia_case *c, fia_slot s, aqn *a, int kind)
{
    const fia_tensor_spec *sp = &c->tensors[s];
    int64_t n = 0;
    for (int i = 0; i < sp->count; i++)
        n += fia_tensor_numel(&sp->t[i]);
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (v == NULL)
        return FIA_ERR_NOMEM;
    const int packed = sp->t[0].dtype == FIA_DT_INT32;
    for (int64_t i = 0; i < n; i++) {
        if (kind == 1) {
            v[i] = scale_value(a);
        } else if (kind == 2) {
            v[i] = offset_value(a);
        } else if (packed) {
            uint32_t w = 0;
            for (int k = 0; k < 8; k++)
                w |= (uint32_t)(int_value(a) & 0xf) << (4 * k);
            v[i] = (double)(int32_t)w;
        } else {
            v[i] = (double)int_value(a);
        }
    }
    fz_case_values(c, s, v, n);
    return FIA_OK;
}

static int present(const fia_case *c, fia_slot s)
{
    return c->tensors[s].presence == FIA_PRESENT;
}

/* A plain case's D widened to a multiple of m: query, key and value
 * reshaped, the query's data drawn again (key and value get theirs
 * after).  0 when the case is not plain or the work would pass the
 * reference's budget. */
static int widen_d(fz_gen *g, const fz_geom *geom, int64_t m)
{
    fia_case *c = g->c;
    const int64_t D = (geom->D + m - 1) / m * m;
    if (geom->paged || geom->list || geom->qpad || geom->kvpad ||
        present(c, FIA_SLOT_PSE_SHIFT) || present(c, FIA_SLOT_ATTENTION_OUT) ||
        2.0 * geom->B * geom->N * geom->Q_S * D * (geom->KV_S + 1) >
            FZ_NUM_MAX_WORK)
        return 0;
    int64_t sh[FIA_MAX_RANK];
    int nd = fz_shape(geom->layout, geom->B, geom->N, geom->Q_S, D, sh);
    fz_note(g, fz_case_tensor(c, FIA_SLOT_QUERY, g->qdt, nd, sh));
    nd = fz_shape(geom->layout, geom->B, geom->KV_N, geom->KV_S, D, sh);
    fz_note(g, fz_case_tensor(c, FIA_SLOT_KEY, g->kvdt, nd, sh));
    fz_note(g, fz_case_tensor(c, FIA_SLOT_VALUE, g->kvdt, nd, sh));
    g->D = D;
    double *q = fz_numeric_data_values(g, 0, geom->B, geom->N, geom->Q_S);
    if (q == NULL) {
        fz_note(g, FIA_ERR_NOMEM);
        return 0;
    }
    fz_case_values(c, FIA_SLOT_QUERY, q, geom->B * geom->N * geom->Q_S * D);
    return 1;
}

/* The scene's forms: *sep, key form *kf, value form *vf and the modes;
 * 0 when the case takes none. */
typedef struct aqn_scene {
    int sep, var;
    fz_aq_form kf, vf;
    int64_t kmode, vmode, amode;
    int agiven;
} aqn_scene;

static int pick_forms(const fz_gen *g, const fz_geom *geom, fia_dtype kd,
                      int mp, aqn_scene *s)
{
    const int q1 = geom->Q_S == 1, list = geom->list;
    s->kmode = s->vmode = s->amode = 0;
    s->agiven = 0;
    if (!q1) {
        s->kmode = s->vmode = s->sep && !list && (mp & 1);
        s->kf = s->vf = s->sep ? (s->kmode ? FZ_AQ_TOKEN : FZ_AQ_CHANNEL)
                        : (mp & 2) ? FZ_AQ_TENSOR : FZ_AQ_CHANNEL;
        s->amode = (mp >> 2) & 1, s->agiven = !s->sep && (mp & 8);
        return 1;
    }
    if (!s->sep) {
        int m = mp % 3;
        if (m == 2 && list)
            m = 1;
        s->kf = s->vf = m == 0 ? FZ_AQ_TENSOR : m == 1 ? FZ_AQ_CHANNEL
                                                       : FZ_AQ_TOKEN;
        s->amode = m == 2, s->agiven = m == 2 || (mp & 8);
        return 1;
    }
    /* 7: mode 0 per-tensor; 6: key 0 + value 1 */
    static const int m8[] = {7, 0, 1, 2, 3, 4, 5, 6, 0, 1, 3, 4, 5, 6};
    static const int m4[] = {0, 1, 3, 6};
    int m = fz_aq_int4(kd) ? m4[mp % 4] : m8[mp % FZ_ARRLEN(m8)];
    if ((m == 4 || m == 5) && !geom->paged)
        m = m == 4 ? 1 : 3;
    if (m == 6 && kd == FIA_DT_INT8 && g->qdt != FIA_DT_FP16)
        m = 0;
    if (list && (m == 1 || m == 3 || m == 6))
        m = m == 3 ? 2 : 0;
    if (m == 6) {
        s->kmode = 0, s->vmode = 1;
        s->kf = FZ_AQ_CHANNEL, s->vf = FZ_AQ_TOKEN;
        return 1;
    }
    s->kmode = s->vmode = m == 7 ? 0 : m;
    s->kf = s->vf = (fz_aq_form)fz_aq_form_of_mode(s->kmode, m == 7);
    return 1;
}

/* The scale (and offset) of slot i (FZ_AQ_*) of form f. */
static fia_status scale_tensor(fz_gen *g, const fz_geom *geom, int i,
                               fz_aq_form f, int lead, int var, int64_t S,
                               int offs, aqn *a)
{
    fia_case *c = g->c;
    const fia_tensor *k = &c->tensors[FIA_SLOT_KEY].t[0];
    int64_t sh[4];
    const int nd = fz_aq_shape(f, lead, var, geom->B, geom->KV_N, geom->D, S,
                               k->shape[0], c->attrs.block_size, sh);
    const fia_dtype dt = fz_aq_scale_dtype(f, g->qdt);
    fia_status st = fz_case_tensor(c, fz_aq_slot[i], dt, nd, sh);
    if (st == FIA_OK)
        st = fill(c, fz_aq_slot[i], a, 1);
    if (st == FIA_OK && offs)
        st = fz_case_tensor(c, fz_aq_slot[i + 1], dt, nd, sh);
    if (st == FIA_OK && offs)
        st = fill(c, fz_aq_slot[i + 1], a, 2);
    return st;
}

static void set_mode(fia_case *c, fia_attr at, int given, int64_t v)
{
    fz_case_attr(c, at, given ? v : 0);
    c->attr_given[at] = given != 0;
}

/* The case quantized with probability pct %. */
static void quantize(fz_gen *g, int pct)
{
    fz_bytes *f = g->f;
    fia_case *c = g->c;
    if (!fz_bytes_rare(f, FZ_GATE(g, FZ_FOCUS_INT8KV,
                             FZ_GATE(g, FZ_FOCUS_INT4KV, pct))))
        return;
    aqn a;
    aqn_scene s;
    s.sep = fz_bytes_bool(f);
    int kdp = fz_bytes_pick(f, 4);
    const int mp = fz_bytes_u8(f);
    if (g->focus == FZ_FOCUS_INT4KV) /* the int4 scene wherever it applies */
        s.sep = 1, kdp |= 2;
    s.var = fz_bytes_pick(f, 6);
    /* scales mostly of unit magnitude (7 in 10), now and then large,
     * tiny or mixed per element */
    static const int sk_of[10] = {SK_UNIT, SK_UNIT,  SK_UNIT, SK_UNIT,
                                  SK_UNIT, SK_UNIT,  SK_UNIT, SK_LARGE,
                                  SK_TINY, SK_MIXED};
    a.ik = fz_bytes_pick(f, IK_COUNT), a.sk = sk_of[fz_bytes_pick(f, 10)];
    a.ok = fz_bytes_pick(f, OK_COUNT);
    const int extra = fz_bytes_rare(f, 25) ? (int)fz_bytes_range(f, 1, 4) : 0;
    const int widen = fz_bytes_bool(f);
    a.rng.s = fz_bytes_u64(f);
    a.meta = g->meta;
    fz_geom geom;
    if (c->live_rows || fia_layout_is_tnd(c->attrs.input_layout) ||
        present(c, FIA_SLOT_KEY_SHARED_PREFIX) ||
        (g->qdt != FIA_DT_FP16 && g->qdt != FIA_DT_BF16) ||
        fz_geom_of_call(c, &geom) != 0 || geom.tnd)
        return;
    const int padded = present(c, FIA_SLOT_QUERY_PADDING_SIZE) ||
                       present(c, FIA_SLOT_KV_PADDING_SIZE);
    const int q1 = geom.Q_S == 1;
    /* a cache whose shape happens to read as the layout's is still one */
    geom.paged = present(c, FIA_SLOT_BLOCK_TABLE);
    if (!q1) { /* the query's dtype names the set */
        s.sep = g->qdt == FIA_DT_BF16;
        if (geom.paged || (s.sep && (geom.Q_S > 16 || geom.list || padded)))
            return;
    }
    if (padded)
        s.sep = 0;
    /* an int8 cache takes block sizes of 32 multiples at Q_S = 1 */
    if (geom.paged && c->attrs.block_size % 32 != 0)
        return;
    fia_dtype kd = FIA_DT_INT8;
    if (q1 && s.sep && !geom.paged && kdp >= 2)
        kd = kdp & 1 ? FIA_DT_INT32 : FIA_DT_INT4;
    const int64_t need = fz_aq_int4(kd) ? 64 : q1 ? 1 : 32;
    if (geom.D % need != 0 && !(widen && widen_d(g, &geom, need))) {
        kd = FIA_DT_INT8;
        if (!q1 && geom.D % 32 != 0)
            return;
    }
    if (fz_geom_of_call(c, &geom) != 0)
        return;
    geom.paged = present(c, FIA_SLOT_BLOCK_TABLE);
    if (!pick_forms(g, &geom, kd, mp, &s))
        return;
    a.lo = fz_aq_int4(kd) ? -8 : -128, a.hi = fz_aq_int4(kd) ? 7 : 127;
    a.cst = (double)rnd(&a.rng, a.lo / 2, a.hi / 2);
    if (a.ik == IK_CANCEL)
        a.ok = OK_CONST;
    fz_aq_set_kv_dtype(c, FIA_SLOT_KEY, kd);
    fz_aq_set_kv_dtype(c, FIA_SLOT_VALUE, kd);
    g->kvdt = kd;
    const int offs = a.ok != OK_NONE;
    const int64_t S = fz_aq_token_s(c, geom.KV_S) + extra;
    fia_status st = fill(c, FIA_SLOT_KEY, &a, 0);
    if (st == FIA_OK)
        st = fill(c, FIA_SLOT_VALUE, &a, 0);
    if (st == FIA_OK && !s.sep)
        st = scale_tensor(g, &geom, FZ_AQ_COMB_SCALE, s.kf, 2, s.var, S, offs,
                          &a);
    if (st == FIA_OK && s.sep)
        st = scale_tensor(g, &geom, FZ_AQ_KEY_SCALE, s.kf, q1, s.var, S, offs,
                          &a);
    if (st == FIA_OK && s.sep)
        st = scale_tensor(g, &geom, FZ_AQ_VAL_SCALE, s.vf, q1, s.var, S, offs,
                          &a);
    fz_note(g, st);
    set_mode(c, FIA_ATTR_ANTIQUANT_MODE, s.agiven, s.amode);
    set_mode(c, FIA_ATTR_KEY_ANTIQUANT_MODE, s.sep && (s.kmode || (mp & 16)),
             s.kmode);
    set_mode(c, FIA_ATTR_VALUE_ANTIQUANT_MODE, s.sep && (s.vmode || (mp & 32)),
             s.vmode);
    /* a scale the data asked for (sentinel scores, large values) was the
     * fp keys': the dequantized ones take the default */
    if (c->attrs.scale > 1 && geom.D > 0)
        fz_case_scale(c, 1.0 / sqrt((double)geom.D));
}

void fz_numeric_antiquant(fz_gen *g)
{
    /* the metamorphic decoder quantizes its base after choosing its
     * transform (fz_numeric_antiquant_meta), reading no byte here */
    if (!g->meta)
        quantize(g, g->reach ? 35 : 22);
}

void fz_numeric_antiquant_meta(fz_gen *g) { quantize(g, 20); }
