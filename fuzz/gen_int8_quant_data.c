/* fuzz_numeric's full-int8 cases (docs/features/int8_quant.md): at the end
 * of the list, now and then (more often for the reach plans) a valid
 * prefill case's query, key and value become int8 with dequant_scale1,
 * quant_scale1 and dequant_scale2, and its output fp16 or int8 (written
 * or inferred; quant_scale2 per-tensor or per-channel, quant_offset2 now
 * and then: int8_out's rules and values, fz_oq_fill).  The case keeps what
 * the fragments before made — masks, sparse modes and bands, actual
 * lengths (rows without keys), left padding, key/value lists, a pse (made
 * fp16: its dtype pairs fp16 with an int8 query), GQA, lse,
 * inner_precise, keys past fast/'s key block — and the fragment never
 * takes what an exclusion covers: Q_S = 1 (ANTI-027), a page table
 * (PAGED-007), a shared prefix (PREFIX-X02), a token layout (TND-X05), a
 * GQA ratio past 64 (ANTI-028), key/value quantization.  D must be a
 * multiple of 32 (Q8-008): a case's D is widened to one (query, key,
 * value and output reshaped: every tensor's data is drawn again anyway)
 * when the reference's work stays within its budget; per-channel output
 * scales not with left padding (PAD-X04), no offset where rows stay
 * uncomputed (OQ-009), no int8 output with a negative band (OQ-008).
 *
 * Data, each tensor from its own kind, and why:
 *   full range   -128..127: dots up to 2^14·D, exact only in int32;
 *   edges        -128, 127, -127, 126, 0, -1: -128 has no positive twin
 *                (a kernel negating or abs-ing int8 wraps);
 *   small        -3..3: few distinct scores, many equal ones;
 *   constant     one value in the whole tensor: every key of a row scores
 *                the same, e = 1 for all, P = round(qs1) exactly (with
 *                qs1 = k + 0.5 a rounding tie on every weight).
 *   late max     (keys past one block, 2 in 3 of those) a query of
 *                non-negative values and keys base − u (u in 0..U per
 *                element) with u = 0 for one key past the first block of
 *                each batch and head: that key is every row's maximum,
 *                the first block's maximum a few units below, so a kernel
 *                that quantizes P against its running max (e·α·qs1
 *                rounded otherwise than e·qs1) is caught.
 * dequant_scale1 sized from the data so that the scores dot·ds1·scale
 * span about [−20, 20] (P spans 0..127 and some weights quantize to 0),
 * now and then tiny (every P equal) or large (most P 0), rarely negative;
 * in the late-max form so that the first block's keys lie a few units
 * below the maximum.  quant_scale1 ~127 (typical), > 127 (P saturates at
 * 127), 0, negative (P negative, saturating at −128), or k + 0.5 (ties).
 * dequant_scale2 ~1/qs1 (outputs of the values' magnitude) or any
 * magnitude and sign.  The dequant scales uint64 or fp32 each; a uint64
 * now and then with junk in its high 32 bits and in the low 13 mantissa
 * bits of its float (the vendor keeps bits 31..13): a kernel that reads
 * the high word or does not truncate is caught (a junk-free float may have
 * low bits set too).  The high junk stays below 2^21, so that the value is
 * exact in the double a case stores.  The scale attribute is kept when it
 * is a normal double of moderate size (ds1 absorbs it), else 1/sqrt(D).
 * Fragment contract: fuzz/gen.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fia/check.h"
#include "fia/fast.h"
#include "fuzz/gen.h"

enum { DK_FULL, DK_EDGE, DK_SMALL, DK_CONST, DK_COUNT };
enum { S1_SPAN, S1_TINY, S1_LARGE, S1_COUNT };
enum { Q1_TYPICAL, Q1_SAT, Q1_ZERO, Q1_NEG, Q1_HALF, Q1_COUNT };
enum { S2_UNIT, S2_ANY, S2_COUNT };
enum { OUT_FP16, OUT_INT8, OUT_INFERRED, OUT_COUNT };

typedef struct int8_quant_scene {
    fuzz_rng rng;
    int dk[3];          /* query, key, value data kinds */
    int s1k, q1k, s2k;
    int u64[2], junk;   /* ds1 / ds2 uint64; junk in the bits not read */
    int out, formp, okind, late, neg;
} int8_quant_scene;

/* The mean and root mean square of a tensor's values. */
typedef struct vstat {
    double mean, rms, amax;
} vstat;

static int64_t rnd(fuzz_rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(fuzz_rng_next(r) % (uint64_t)(hi - lo + 1));
}

static int present1(const fia_case *c, fia_slot s)
{
    const fia_tensor_spec *sp = &c->tensors[s];
    return sp->presence == FIA_PRESENT && sp->count >= 1 && sp->t != NULL;
}

static int64_t slot_numel(const fia_case *c, fia_slot s)
{
    const fia_tensor_spec *sp = &c->tensors[s];
    int64_t n = 0;
    for (int i = 0; sp->presence == FIA_PRESENT && i < sp->count; i++)
        n += fia_tensor_numel(&sp->t[i]);
    return n;
}

static void set_dtype(fia_case *c, fia_slot s, fia_dtype dt)
{
    fia_tensor_spec *sp = &c->tensors[s];
    for (int i = 0; sp->presence == FIA_PRESENT && i < sp->count; i++)
        sp->t[i].dtype = dt;
}

/* One int8 of kind k (nonneg: 0..127 only); cst the tensor's constant. */
static double int_value(fuzz_rng *r, int k, int nonneg, int64_t cst)
{
    switch (k) {
    case DK_EDGE: {
        static const int e[] = {-128, 127, -127, 126, 0, -1};
        static const int p[] = {0, 127, 1, 126};
        return nonneg ? p[rnd(r, 0, 3)] : e[rnd(r, 0, 5)];
    }
    case DK_SMALL: return (double)rnd(r, nonneg ? 0 : -3, 3);
    case DK_CONST: return (double)cst;
    default: return (double)rnd(r, nonneg ? 0 : -128, 127);
    }
}

static void stat_of(const double *v, int64_t n, vstat *st)
{
    double s = 0, s2 = 0, m = 0;
    for (int64_t i = 0; i < n; i++) {
        s += v[i], s2 += v[i] * v[i];
        m = fabs(v[i]) > m ? fabs(v[i]) : m;
    }
    st->mean = n ? s / (double)n : 0;
    st->rms = n ? sqrt(s2 / (double)n) : 0;
    st->amax = m;
}

/* Slot s (every tensor of it) filled with kind k; 0 or NOMEM. */
static fia_status fill(fia_case *c, fia_slot s, int k, int nonneg,
                       fuzz_rng *r, vstat *st)
{
    const int64_t n = slot_numel(c, s);
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (v == NULL)
        return FIA_ERR_NOMEM;
    const int64_t cst = rnd(r, nonneg ? 1 : -128, 127);
    for (int64_t i = 0; i < n; i++)
        v[i] = int_value(r, k, nonneg, cst);
    stat_of(v, n, st);
    fz_case_values(c, s, v, n);
    return FIA_OK;
}

/* The late-max keys (a single key tensor of the layout): per batch and
 * KV head a base row, every key base − u with u in 0..U, one key past the
 * first block (of those the batch reads) at the base exactly.  *U set. */
static fia_status late_keys(fz_gen *g, const fz_geom *geom, int64_t blk,
                            fuzz_rng *r, int64_t *U)
{
    fia_case *c = g->c;
    const int64_t n = slot_numel(c, FIA_SLOT_KEY), D = geom->D;
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    int64_t *base = malloc((size_t)D * sizeof *base);
    if (v == NULL || base == NULL) {
        free(v), free(base);
        return FIA_ERR_NOMEM;
    }
    *U = rnd(r, 1, 8);
    for (int64_t b = 0; b < geom->B; b++) {
        int64_t kl = fz_kv_len(c, geom, b);
        kl = kl < geom->KV_S ? kl : geom->KV_S;
        for (int64_t h = 0; h < geom->KV_N; h++) {
            for (int64_t d = 0; d < D; d++)
                base[d] = rnd(r, -128 + *U, 127);
            const int64_t top = kl > blk ? rnd(r, blk, kl - 1) : -1;
            for (int64_t j = 0; j < geom->KV_S; j++)
                for (int64_t d = 0; d < D; d++) {
                    const int64_t i = fz_index(geom->layout, geom->B,
                                               geom->KV_N, geom->KV_S, D, b,
                                               h, j, d);
                    v[i] = (double)(base[d] - (j == top ? 0 : rnd(r, 0, *U)));
                }
        }
    }
    free(base);
    fz_case_values(c, FIA_SLOT_KEY, v, n);
    return FIA_OK;
}

/* D widened to a multiple of 32: the last dim of query, key, value (every
 * tensor of a list) and a written output scaled (BSH's N·D too).  0 when
 * a shape does not follow D or the reference's work would pass its
 * budget (the shapes are put back). */
static int widen(fz_gen *g, const fz_geom *geom)
{
    fia_case *c = g->c;
    const int64_t D = geom->D, D2 = (D + 31) / 32 * 32;
    static const fia_slot sl[] = {FIA_SLOT_QUERY, FIA_SLOT_KEY,
                                  FIA_SLOT_VALUE, FIA_SLOT_ATTENTION_OUT};
    if (D2 == D)
        return 1;
    if (D <= 0)
        return 0;
    for (int k = 0; k < FZ_ARRLEN(sl); k++) {
        const fia_tensor_spec *sp = &c->tensors[sl[k]];
        for (int i = 0; sp->presence == FIA_PRESENT && i < sp->count; i++) {
            const fia_tensor *t = &sp->t[i];
            if (t->ndim < 1 || t->shape[t->ndim - 1] % D != 0)
                return 0;
        }
    }
    for (int pass = 0; pass < 2; pass++) {
        const int64_t from = pass ? D2 : D, to = pass ? D : D2;
        for (int k = 0; k < FZ_ARRLEN(sl); k++) {
            fia_tensor_spec *sp = &c->tensors[sl[k]];
            for (int i = 0; sp->presence == FIA_PRESENT && i < sp->count;
                 i++) {
                fia_tensor *t = &sp->t[i];
                t->shape[t->ndim - 1] = t->shape[t->ndim - 1] / from * to;
            }
        }
        if (pass == 0 && fia_check_reference_work(c) <= FZ_NUM_MAX_WORK) {
            g->D = D2;
            return 1;
        }
    }
    return 0;
}

/* A dequant scale as stored: fp32, or a uint64 holding its float's bits
 * (with junk where the vendor does not read: the high word, below 2^21
 * so the double is exact, and the 13 low mantissa bits). */
static double dequant_value(double x, int u64, int junk, fuzz_rng *r)
{
    const float f = (float)x;
    if (!u64)
        return (double)f;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    uint64_t w = bits;
    if (junk) {
        w = (w & ~(uint64_t)0x1fff) | (fuzz_rng_next(r) & 0x1fff);
        w |= (1 + fuzz_rng_next(r) % ((1u << 21) - 1)) << 32;
    }
    return (double)w;
}

static double qs1_value(const int8_quant_scene *a, fuzz_rng *r)
{
    const double u = fuzz_rng_unit(r);
    switch (a->q1k) {
    case Q1_SAT: return (double)(float)(127 * (1.25 + 6 * u));
    case Q1_ZERO: return 0;
    case Q1_NEG: return (double)(float)(-127 * (0.5 + 1.5 * u));
    case Q1_HALF: return (double)rnd(r, 0, 126) + 0.5;
    default: return u < 0.5 ? 127 : (double)(float)(32 + 95 * u);
    }
}

/* ds1 from the data's statistics: the dots' spread (random data) or
 * size (constant data) M, or in the late-max form the keys' mean gap
 * below the maximum. */
static double ds1_value(const int8_quant_scene *a, const vstat *q,
                        const vstat *k, int64_t D, int64_t U, double scale,
                        fuzz_rng *r)
{
    const double sc = fabs(scale);
    double x;
    if (U > 0) {
        const double gap = (double)D * (q->mean > 0.5 ? q->mean : 0.5) *
                           (double)U / 2;
        x = (0.5 + 5.5 * fuzz_rng_unit(r)) / (gap * sc);
    } else {
        double M = 3 * sqrt((double)D) * q->rms * k->rms;
        const double m2 = (double)D * fabs(q->mean * k->mean);
        M = m2 > M ? m2 : M;
        M = M >= 1 ? M : 1;
        x = a->s1k == S1_TINY ? ldexp(1, -(int)rnd(r, 10, 16)) / (M * sc)
            : a->s1k == S1_LARGE ? 20 * ldexp(1, (int)rnd(r, 3, 7)) / (M * sc)
                                 : 20 * exp2(2 * fuzz_rng_unit(r) - 1) /
                                       (M * sc);
    }
    x = x < 0x1p-120 ? 0x1p-120 : x > 0x1p100 ? 0x1p100 : x;
    return a->neg ? -x : x;
}

static double ds2_value(const int8_quant_scene *a, double qs1, fuzz_rng *r)
{
    const double u = fuzz_rng_unit(r);
    if (a->s2k == S2_ANY) {
        const double x = ldexp(1 + u, (int)rnd(r, -20, 4));
        return fuzz_rng_next(r) & 1 ? -x : x;
    }
    const double q = fabs(qs1) < 1 ? 127 : fabs(qs1) > 127 ? 127 : fabs(qs1);
    return exp2(2 * u - 1) / q;
}

static void write_out(fz_gen *g, const fz_geom *geom, fia_dtype dt)
{
    int64_t sh[FIA_MAX_RANK];
    const int nd = fz_shape(fz_out_layout(geom->layout), geom->B, geom->N,
                            geom->Q_S, geom->D, sh);
    fz_note(g, fz_case_tensor(g->c, FIA_SLOT_ATTENTION_OUT, dt, nd, sh));
}

static void one_scale(fz_gen *g, fia_slot s, fia_dtype dt, double x)
{
    const int64_t one = 1;
    fia_status st = fz_case_tensor(g->c, s, dt, 1, &one);
    double *v = st == FIA_OK ? malloc(sizeof *v) : NULL;
    if (v == NULL) {
        fz_note(g, st == FIA_OK ? FIA_ERR_NOMEM : st);
        return;
    }
    v[0] = x;
    fz_case_values(g->c, s, v, 1);
}

/* The output: fp16, or int8 (written or inferred) with quant_scale2 /
 * quant_offset2 sized for outputs of magnitude mag. */
static void output(fz_gen *g, const fz_geom *geom, const int8_quant_scene *a,
                   double mag)
{
    fia_case *c = g->c;
    const int padded = present1(c, FIA_SLOT_QUERY_PADDING_SIZE) ||
                       present1(c, FIA_SLOT_KV_PADDING_SIZE);
    int out = a->out;
    if (c->attrs.sparse_mode == 4 &&
        (c->attrs.pre_tokens < 0 || c->attrs.next_tokens < 0))
        out = OUT_FP16; /* OQ-008 */
    fz_case_absent(c, FIA_SLOT_QUANT_SCALE2);
    fz_case_absent(c, FIA_SLOT_QUANT_OFFSET2);
    if (out == OUT_FP16) {
        write_out(g, geom, FIA_DT_FP16);
        return;
    }
    fz_oq_scene s;
    memset(&s, 0, sizeof s);
    s.scale = 1;
    s.offset = a->okind != 0 && !fz_oq_uncomputed(c, geom);
    s.form = s.oform = a->formp < 3 || padded ? FZ_OQ_TENSOR
                                              : FZ_OQ_H + a->formp - 3;
    s.dt = s.odt = FIA_DT_FP32;
    s.N = geom->N, s.D = geom->D;
    fz_oq_write(g, &s);
    fuzz_rng r = a->rng;
    fz_note(g, fz_oq_fill(g, &s, a->okind, &r, mag));
    if (out == OUT_INT8)
        write_out(g, geom, FIA_DT_INT8);
    else
        fz_case_absent(c, FIA_SLOT_ATTENTION_OUT);
}

/* The case may become full int8: a prefill case of the four layouts with
 * float query, key and value and nothing that excludes an int8 query. */
static int takes(const fz_gen *g, const fz_geom *geom)
{
    const fia_case *c = g->c;
    if (c->live_rows || fia_layout_is_tnd(c->attrs.input_layout) ||
        geom->tnd || geom->Q_S < 2 || geom->KV_N < 1 ||
        geom->N / geom->KV_N > 64 || present1(c, FIA_SLOT_BLOCK_TABLE) ||
        present1(c, FIA_SLOT_KEY_SHARED_PREFIX) ||
        present1(c, FIA_SLOT_VALUE_SHARED_PREFIX) ||
        !present1(c, FIA_SLOT_QUERY) || !present1(c, FIA_SLOT_KEY) ||
        !present1(c, FIA_SLOT_VALUE))
        return 0;
    const fia_dtype q = c->tensors[FIA_SLOT_QUERY].t[0].dtype;
    const fia_dtype k = c->tensors[FIA_SLOT_KEY].t[0].dtype;
    return (q == FIA_DT_FP16 || q == FIA_DT_BF16) && k == q &&
           c->tensors[FIA_SLOT_VALUE].t[0].dtype == q;
}

/* The bytes of one scene (a zero input: the plainest choices). */
static void read_scene(fz_bytes *f, int8_quant_scene *a)
{
    static const int w1[S1_COUNT] = {6, 1, 1};
    static const int wq[Q1_COUNT] = {5, 2, 1, 1, 2};
    for (int i = 0; i < 3; i++)
        a->dk[i] = fz_bytes_pick(f, DK_COUNT);
    a->s1k = fz_bytes_weighted(f, w1, S1_COUNT);
    a->q1k = fz_bytes_weighted(f, wq, Q1_COUNT);
    a->s2k = fz_bytes_pick(f, 4) == 3 ? S2_ANY : S2_UNIT;
    const int dt = fz_bytes_pick(f, 4);
    a->u64[0] = dt & 1, a->u64[1] = dt >> 1;
    a->junk = fz_bytes_bool(f);
    a->out = fz_bytes_pick(f, OUT_COUNT);
    a->formp = fz_bytes_pick(f, 8);
    a->okind = fz_bytes_pick(f, FZ_OQ_OFFSET_KINDS);
    a->late = fz_bytes_pick(f, 3) != 0;
    a->neg = fz_bytes_rare(f, 10);
    a->rng.s = fz_bytes_u64(f);
}

void fz_numeric_int8_quant(fz_gen *g)
{
    /* the metamorphic bases stay float (their relations move float data),
     * reading no byte here */
    if (g->meta)
        return;
    fz_bytes *f = g->f;
    if (!fz_bytes_rare(f, FZ_GATE(g, FZ_FOCUS_INT8Q, g->reach ? 30 : 12)))
        return;
    int8_quant_scene a;
    read_scene(f, &a);
    fia_case *c = g->c;
    fz_geom geom;
    if (fz_geom_of_call(c, &geom) != 0 || !takes(g, &geom) ||
        !widen(g, &geom) || fz_geom_of_call(c, &geom) != 0)
        return;
    fuzz_rng *r = &a.rng;
    double sc = c->attrs.scale;
    if (!isnormal(sc) || fabs(sc) < 0x1p-20 || fabs(sc) > 0x1p20) {
        sc = 1 / sqrt((double)geom.D);
        fz_case_scale(c, sc);
    }
    static const fia_slot qkv[3] = {FIA_SLOT_QUERY, FIA_SLOT_KEY,
                                    FIA_SLOT_VALUE};
    for (int i = 0; i < 3; i++)
        set_dtype(c, qkv[i], FIA_DT_INT8);
    g->qdt = g->kvdt = FIA_DT_INT8;
    if (present1(c, FIA_SLOT_PSE_SHIFT))
        set_dtype(c, FIA_SLOT_PSE_SHIFT, FIA_DT_FP16);
    /* the late-max form: a single key tensor past one block, unpadded */
    fast_path_thresholds th;
    fastPathThresholds(&th);
    const int late = a.late && !geom.list && !geom.kvpad &&
                     geom.KV_S > th.key_block;
    vstat st[3];
    int64_t U = 0;
    fia_status s = fill(c, FIA_SLOT_QUERY, a.dk[0], late, r, &st[0]);
    if (s == FIA_OK)
        s = late ? late_keys(g, &geom, th.key_block, r, &U)
                 : fill(c, FIA_SLOT_KEY, a.dk[1], 0, r, &st[1]);
    if (s == FIA_OK)
        s = fill(c, FIA_SLOT_VALUE, a.dk[2], 0, r, &st[2]);
    if (s != FIA_OK) {
        fz_note(g, s);
        return;
    }
    if (late)
        st[1].mean = st[1].rms = 0; /* unused: the gap sizes ds1 */
    const double ds1 = ds1_value(&a, &st[0], &st[1], geom.D, U, sc, r);
    const double qs1 = qs1_value(&a, r);
    const double ds2 = ds2_value(&a, qs1, r);
    one_scale(g, FIA_SLOT_DEQUANT_SCALE1,
              a.u64[0] ? FIA_DT_UINT64 : FIA_DT_FP32,
              dequant_value(ds1, a.u64[0], a.junk, r));
    one_scale(g, FIA_SLOT_QUANT_SCALE1, FIA_DT_FP32, (double)(float)qs1);
    one_scale(g, FIA_SLOT_DEQUANT_SCALE2,
              a.u64[1] ? FIA_DT_UINT64 : FIA_DT_FP32,
              dequant_value(ds2, a.u64[1], a.junk, r));
    /* an output is ds2 times a weighted mean of P·v / e: P ~ e·qs1,
     * saturated at 127; the mean of values over the whole range is mostly
     * well inside them: 4 times the largest, so that fz_oq_fill's factors
     * 2^[-1, 5) saturate a quarter of the outputs, not half */
    const double q = fabs(qs1) < 127 ? fabs(qs1) : 127;
    output(g, &geom, &a,
           4 * fabs(ds2) * q * (st[2].amax > 1 ? st[2].amax : 1));
}
