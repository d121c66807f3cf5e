/* An int8 attention_out in generated cases (docs/features/int8_out.md).
 *
 * fuzz_params (fz_params_int8_out_scene, at the end of the list): now and then
 * an fp16 / bf16 call's output quantized — attention_out int8 (written, or
 * left to be inferred from quant_scale2), quant_scale2 per-tensor [1] or
 * per-channel in the documents' recommended shapes ([H], [1,1,H], [N,D],
 * [1,N,1,D], [1,1,N,D]), fp32 or (with a bf16 query) bf16, quant_offset2
 * now and then with the scale's shape and dtype, on both paths — and, on
 * non-strict inputs, one OQ rule of the doc's table broken (break k is
 * OQ-(k + 1)).  A prefill call with D not a multiple of 32, or a band with
 * a negative window, has no valid scene: it gets one only to break OQ-010
 * / OQ-007 / OQ-008.  Calls another scene owns are left alone: key/value
 * quantization (antiquant), a token layout (TND-X06); left padding takes
 * per-tensor scales only (PAD-X04), an offset is dropped where rows stay
 * uncomputed (OQ-009).
 *
 * fuzz_numeric (fz_numeric_int8_out, last): now and then (8 %) a valid case's
 * output quantized, the scales sized from the values so that the outputs
 * cross the whole int8 range and some saturate; offsets none, small
 * integers, eighths or odd halves (ties on exact rows).  Not for the
 * metamorphic bases, key/value quantization, a token layout, nor a
 * prefill D that is not a multiple of 32.
 * Fragment contract: fuzz/gen.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/gen.h"

int fz_oq_shape(int form, int64_t N, int64_t D, int64_t *sh)
{
    switch (form) {
    case FZ_OQ_H: sh[0] = N * D; return 1;
    case FZ_OQ_11H: sh[0] = sh[1] = 1, sh[2] = N * D; return 3;
    case FZ_OQ_ND: sh[0] = N, sh[1] = D; return 2;
    case FZ_OQ_1N1D: sh[0] = 1, sh[1] = N, sh[2] = 1, sh[3] = D; return 4;
    case FZ_OQ_11ND: sh[0] = sh[1] = 1, sh[2] = N, sh[3] = D; return 4;
    default: sh[0] = 1; return 1;
    }
}

static int present1(const fia_case *c, fia_slot s)
{
    const fia_tensor_spec *sp = &c->tensors[s];
    return sp->presence == FIA_PRESENT && sp->count >= 1 && sp->t != NULL;
}

static int is_f16(fia_dtype dt)
{
    return dt == FIA_DT_FP16 || dt == FIA_DT_BF16;
}

/* The rows 002's interception list names (OQ-009): for some batch, sparse
 * 0 with a mask and q - kv - P - pre > 0 or next < 0; sparse 3 and kv + P
 * - q < 0; sparse 4 and pre < 0 or next + kv + P - q < 0.  Checked with P
 * and without it (a prefix whose length reads otherwise stays safe). */
int fz_oq_uncomputed(const fia_case *c, const fz_geom *g)
{
    const int64_t pre = c->attrs.pre_tokens, next = c->attrs.next_tokens;
    const int64_t mode = c->attrs.sparse_mode;
    const fia_tensor_spec *m = &c->tensors[FIA_SLOT_ATTEN_MASK];
    const int mask = m->presence == FIA_PRESENT && m->count >= 1 &&
                     fia_tensor_numel(&m->t[0]) != 0;
    if ((mode == 4 && pre < 0) || (mode == 0 && mask && next < 0))
        return 1;
    const fia_tensor_spec *k = &c->tensors[FIA_SLOT_KEY];
    const int sa = g->layout == FZ_BNSD || g->layout == FZ_BNSD_BSND ? 2 : 1;
    if (g->B > 65536)
        return 1; /* beyond the documented batch (LAYOUT-020): "unsafe" */
    for (int64_t b = 0; b < g->B; b++) {
        const int64_t q = fz_q_len(c, g, b);
        int64_t kv = fz_kv_len(c, g, b);
        /* a list's batch has its own tensor's keys at most */
        if (g->list && b < k->count && k->t[b].ndim > sa &&
            k->t[b].shape[sa] < kv)
            kv = k->t[b].shape[sa];
        for (int64_t P = 0; P <= g->P; P += g->P > 0 ? g->P : 1) {
            /* pre / next and the lengths may be any int64 */
            const __int128 d = (__int128)q - kv - P;
            if ((mode == 0 && mask && d > pre) || (mode == 3 && d > 0) ||
                (mode == 4 && next < d))
                return 1;
        }
    }
    return 0;
}

void fz_oq_write(fz_gen *g, const fz_oq_scene *s)
{
    fia_case *c = g->c;
    int64_t sh[4];
    int nd = fz_oq_shape(s->form, s->N, s->D, sh);
    if (s->scale)
        fz_note(g, fz_case_tensor(c, FIA_SLOT_QUANT_SCALE2, s->dt, nd, sh));
    else
        fz_case_absent(c, FIA_SLOT_QUANT_SCALE2);
    nd = fz_oq_shape(s->oform, s->N, s->D, sh);
    if (s->offset)
        fz_note(g, fz_case_tensor(c, FIA_SLOT_QUANT_OFFSET2, s->odt, nd, sh));
    else
        fz_case_absent(c, FIA_SLOT_QUANT_OFFSET2);
}

/* ---- fuzz_params --------------------------------------------------------- */

/* The break of rule OQ-(k + 1). */
enum {
    OB_NO_SCALE, OB_FP_OUT, OB_SCALES1, OB_OFFSET, OB_BF16, OB_COUNT_OFF,
    OB_PC_D32, OB_BAND, OB_UNCOMPUTED, OB_D32, OB_N
};

int fz_oq_params_break = -1; /* the last scene's break (tests) */

/* 1 when the call is one the scene may take: an fp16 / bf16 query,
 * key and value (no key/value quantization), a layout of the four. */
static int takes_scene(const fz_gen *g, const fz_geom *geom)
{
    const fia_case *c = g->c;
    if (!present1(c, FIA_SLOT_QUERY) || !present1(c, FIA_SLOT_KEY) ||
        !present1(c, FIA_SLOT_VALUE) || geom->tnd)
        return 0;
    static const fia_slot aq[] = {
        FIA_SLOT_ANTIQUANT_SCALE, FIA_SLOT_ANTIQUANT_OFFSET,
        FIA_SLOT_KEY_ANTIQUANT_SCALE, FIA_SLOT_VALUE_ANTIQUANT_SCALE};
    for (int i = 0; i < FZ_ARRLEN(aq); i++)
        if (c->tensors[aq[i]].presence == FIA_PRESENT)
            return 0;
    return is_f16(c->tensors[FIA_SLOT_QUERY].t[0].dtype) &&
           is_f16(c->tensors[FIA_SLOT_KEY].t[0].dtype) &&
           is_f16(c->tensors[FIA_SLOT_VALUE].t[0].dtype);
}

static int band_negative(const fia_case *c)
{
    return c->attrs.sparse_mode == 4 &&
           (c->attrs.pre_tokens < 0 || c->attrs.next_tokens < 0);
}

static int padded(const fia_case *c)
{
    return c->tensors[FIA_SLOT_QUERY_PADDING_SIZE].presence == FIA_PRESENT ||
           c->tensors[FIA_SLOT_KV_PADDING_SIZE].presence == FIA_PRESENT;
}

static int break_fits(const fz_geom *geom, const fia_case *c, int b)
{
    const int pre = geom->Q_S > 1, d32 = geom->D % 32 == 0;
    const int valid = !pre || (d32 && !band_negative(c));
    switch (b) {
    case OB_PC_D32: return pre && !d32 && !padded(c);
    case OB_D32: return pre && !d32;
    case OB_BAND: case OB_UNCOMPUTED: return pre && d32;
    case OB_BF16:
        return valid && c->tensors[FIA_SLOT_QUERY].t[0].dtype == FIA_DT_FP16;
    default: return valid;
    }
}

/* The attention_out of the call's shape and dtype dt (the four layouts). */
static void write_out(fz_gen *g, const fz_geom *geom, fia_dtype dt)
{
    int64_t sh[FIA_MAX_RANK];
    const int nd = fz_shape(fz_out_layout(geom->layout), geom->B, geom->N,
                            geom->Q_S, geom->D, sh);
    fz_note(g, fz_case_tensor(g->c, FIA_SLOT_ATTENTION_OUT, dt, nd, sh));
}

/* A bool mask of shape [a, b] when the call has none. */
static void ensure_mask(fz_gen *g, int64_t a, int64_t b)
{
    if (g->c->tensors[FIA_SLOT_ATTEN_MASK].presence == FIA_PRESENT)
        return;
    int64_t sh[2] = {a > 0 ? a : 1, b > 0 ? b : 1};
    fz_note(g, fz_case_tensor(g->c, FIA_SLOT_ATTEN_MASK, FIA_DT_BOOL, 2, sh));
}

/* OQ-009 broken: rows some batch leaves uncomputed, per the sparse mode
 * aux picks (0 with a mask and a negative next, 3 with no key, 4 with a
 * negative pre or next short of the rows). */
static void break_uncomputed(fz_gen *g, const fz_geom *geom, int aux)
{
    fia_case *c = g->c;
    const int64_t k = 1 + (aux >> 2) % 4;
    int v = aux % 3;
    if (v == 1) { /* sparse 3 and every batch without its own keys */
        int64_t most = 0;
        for (int64_t b = 0; b < geom->B && b <= 4096; b++) {
            const int64_t q = fz_q_len(c, geom, b);
            most = q > most ? q : most;
        }
        if (geom->B > 4096 || most <= geom->P)
            v = 2;
        else {
            int64_t *zero = calloc((size_t)geom->B, sizeof *zero);
            if (zero == NULL) {
                fz_note(g, FIA_ERR_NOMEM);
                return;
            }
            fz_note(g, fz_case_array(c, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, geom->B,
                                zero));
            free(zero);
            fz_case_attr(c, FIA_ATTR_SPARSE_MODE, 3);
            ensure_mask(g, 2048, 2048);
            return;
        }
    }
    if (v == 0) {
        ensure_mask(g, geom->Q_S, geom->KV_S);
        fz_case_attr(c, FIA_ATTR_SPARSE_MODE, 0);
        fz_case_attr(c, FIA_ATTR_PRE_TOKENS, 2147483647);
        fz_case_attr(c, FIA_ATTR_NEXT_TOKENS, -k);
        return;
    }
    ensure_mask(g, 2048, 2048);
    fz_case_attr(c, FIA_ATTR_SPARSE_MODE, 4);
    if (aux & 64) { /* next short of the rows of batch 0 */
        fz_case_attr(c, FIA_ATTR_PRE_TOKENS, 2147483647);
        fz_case_attr(c, FIA_ATTR_NEXT_TOKENS,
                -(fz_kv_len(c, geom, 0) + geom->P) - k);
    } else {
        fz_case_attr(c, FIA_ATTR_PRE_TOKENS, -k);
        fz_case_attr(c, FIA_ATTR_NEXT_TOKENS, 2147483647);
    }
}

/* Another shape of the same element count as form f's: per-tensor [1,1]
 * or [1,1,1], per-channel another recommended form. */
static int other_shape(int f, int aux, int64_t N, int64_t D, int64_t *sh)
{
    if (f == FZ_OQ_TENSOR || N * D == 1) {
        const int nd = 2 + (aux & 1);
        for (int i = 0; i < nd; i++)
            sh[i] = 1;
        return nd;
    }
    /* a form of other rank (the [N,D] / [H] pair differs in rank too) */
    static const int other[FZ_OQ_FORM_COUNT] = {0, FZ_OQ_ND, FZ_OQ_1N1D,
                                                FZ_OQ_11H, FZ_OQ_H, FZ_OQ_H};
    return fz_oq_shape(other[f], N, D, sh);
}

/* One of dequant_scale1, quant_scale1, dequant_scale2 given (pick). */
static void scale1_given(fz_gen *g, int pick)
{
    static const fia_slot s[] = {FIA_SLOT_DEQUANT_SCALE1, FIA_SLOT_QUANT_SCALE1,
                                 FIA_SLOT_DEQUANT_SCALE2};
    const fia_slot sl = s[pick % 3];
    const int64_t one = 1;
    const fia_dtype dt = sl != FIA_SLOT_QUANT_SCALE1 && (pick & 4)
                             ? FIA_DT_UINT64 : FIA_DT_FP32;
    fz_note(g, fz_case_tensor(g->c, sl, dt, 1, &one));
}

/* The break brk applied to the scene s (written after). */
static void break_scene(fz_gen *g, const fz_geom *geom, fz_oq_scene *s,
                        int *out, int brk, int aux)
{
    switch (brk) {
    case OB_NO_SCALE: s->scale = s->offset = 0, *out = 1; break;
    case OB_FP_OUT: /* the scale, the offset or both with an fp output */
        *out = 2;
        s->scale = aux % 3 != 1, s->offset = aux % 3 != 0;
        break;
    case OB_SCALES1: scale1_given(g, aux); break;
    case OB_OFFSET:
        s->offset = 1;
        if (aux & 1)
            s->odt = s->dt == FIA_DT_FP32 ? FIA_DT_BF16 : FIA_DT_FP32;
        else
            s->oform = -1; /* other_shape, written below */
        break;
    case OB_BF16: s->dt = s->odt = FIA_DT_BF16; break;
    case OB_COUNT_OFF: s->oform = -2; break;
    case OB_PC_D32:
        if (s->form == FZ_OQ_TENSOR)
            s->form = s->oform = FZ_OQ_H + aux % 5;
        break;
    case OB_BAND:
        ensure_mask(g, 2048, 2048);
        fz_case_attr(g->c, FIA_ATTR_SPARSE_MODE, 4);
        fz_case_attr(g->c, FIA_ATTR_PRE_TOKENS, aux & 1 ? -(1 + aux % 7) : 65536);
        fz_case_attr(g->c, FIA_ATTR_NEXT_TOKENS, aux & 1 ? 65536 : -(1 + aux % 7));
        break;
    case OB_UNCOMPUTED:
        s->offset = 1;
        break_uncomputed(g, geom, aux);
        break;
    default: break; /* OB_D32: by the path */
    }
}

/* Element counts neither 1 nor H for OQ-006. */
static int wrong_count(int aux, int64_t N, int64_t D, int64_t *sh)
{
    const int64_t H = N * D;
    switch (aux % 4) {
    case 0: sh[0] = H + 1; return 1;
    case 1: sh[0] = N, sh[1] = D + 1; return 2;
    case 2: sh[0] = 2 == H ? 3 : 2; return 1;
    default: sh[0] = 1, sh[1] = 1, sh[2] = H > 2 ? H - 1 : H + 2; return 3;
    }
}

void fz_params_int8_out_scene(fz_gen *g)
{
    fz_bytes *f = g->f;
    if (!fz_bytes_rare(f, 14))
        return;
    const int want = fz_odd(g, 45) ? fz_bytes_pick(f, OB_N) : -1;
    fz_oq_scene s;
    memset(&s, 0, sizeof s);
    const int formp = fz_bytes_pick(f, 8), bf = fz_bytes_bool(f);
    s.offset = fz_bytes_bool(f);
    const int outp = fz_bytes_pick(f, 4), aux = fz_bytes_u8(f);
    fia_case *c = g->c;
    fz_geom geom;
    if (fz_geom_of_call(c, &geom) != 0 || !takes_scene(g, &geom))
        return;
    int fits[OB_N], nf = 0, brk = -1;
    for (int i = 0; i < OB_N; i++)
        if (break_fits(&geom, c, i))
            fits[nf++] = i;
    if (want >= 0 && nf > 0)
        brk = fits[want % nf];
    if (brk < 0 && !break_fits(&geom, c, OB_NO_SCALE))
        return; /* no valid scene on this path */
    fz_oq_params_break = brk;
    g->out8 = 1;
    const fia_dtype qdt = c->tensors[FIA_SLOT_QUERY].t[0].dtype;
    /* per-tensor 3 in 8; per-channel only where left padding is not */
    s.form = formp < 3 || padded(c) ? FZ_OQ_TENSOR : FZ_OQ_H + formp - 3;
    s.oform = s.form;
    s.dt = s.odt = qdt == FIA_DT_BF16 && bf ? FIA_DT_BF16 : FIA_DT_FP32;
    s.N = geom.N, s.D = geom.D, s.scale = 1;
    if (geom.Q_S > 1 && s.offset && fz_oq_uncomputed(c, &geom))
        s.offset = 0;
    /* a stray scale of full quantization (another fragment's) goes */
    fz_case_absent(c, FIA_SLOT_DEQUANT_SCALE1);
    fz_case_absent(c, FIA_SLOT_QUANT_SCALE1);
    fz_case_absent(c, FIA_SLOT_DEQUANT_SCALE2);
    int out = outp != 0; /* 0 inferred, 1 int8 written, 2 qdt written */
    break_scene(g, &geom, &s, &out, brk, aux);
    if (out)
        write_out(g, &geom, out == 2 ? qdt : FIA_DT_INT8);
    else
        fz_case_absent(c, FIA_SLOT_ATTENTION_OUT);
    int64_t sh[4];
    int nd;
    if (s.oform < 0) { /* the offset's shape or the scale's count off */
        const int off = s.oform == -1;
        s.oform = s.form;
        fz_oq_write(g, &s);
        nd = off ? other_shape(s.form, aux >> 1, s.N, s.D, sh)
                 : wrong_count(aux, s.N, s.D, sh);
        if (off)
            fz_note(g, fz_case_tensor(c, FIA_SLOT_QUANT_OFFSET2, s.odt, nd, sh));
        else {
            fz_note(g, fz_case_tensor(c, FIA_SLOT_QUANT_SCALE2, s.dt, nd, sh));
            if (s.offset)
                fz_note(g, fz_case_tensor(c, FIA_SLOT_QUANT_OFFSET2, s.odt, nd,
                                     sh));
        }
        return;
    }
    fz_oq_write(g, &s);
}

/* ---- fuzz_numeric -------------------------------------------------------- */

/* The offsets: none, small integers, fractional (eighths), odd halves
 * (+-0.5, +-1.5, 2.5: rounding ties on the rows that are exactly 0). */
enum { OO_NONE, OO_SMALL, OO_FRAC, OO_HALF, OO_COUNT };

/* x as stored in dt (fp32 or bf16), so the printed case holds it. */
static double in_dtype(fia_dtype dt, double x)
{
    return dt == FIA_DT_BF16 ? fia_bf16_to_double(fia_double_to_bf16(x))
                             : (double)(float)x;
}

static double offset_value(fuzz_rng *r, int kind)
{
    switch (kind) {
    case OO_SMALL: return (double)(fuzz_rng_next(r) % 11) - 5;
    case OO_FRAC: return (double)(fuzz_rng_next(r) % 81) / 8 - 5;
    default: {
        static const double h[] = {0.5, -0.5, 1.5, -1.5, 2.5};
        return h[fuzz_rng_next(r) % 5];
    }
    }
}

/* The largest finite |v| of the value tensor, 1 when none. */
static double value_magnitude(const fia_case *c)
{
    double *v = NULL, m = 0;
    int64_t n = 0;
    if (fz_slot_data(c, FIA_SLOT_VALUE, &v, &n, NULL) == FIA_OK)
        for (int64_t i = 0; i < n; i++)
            if (isfinite(v[i]) && fabs(v[i]) > m)
                m = fabs(v[i]);
    free(v);
    return m > 0 ? m : 1;
}

/* Scale and offset values: the scale 127 / mag times 2^[-1, 5) (mag the
 * largest output magnitude expected; an output is a weighted mean of
 * values, mostly well inside them: the upper factors spread it over the
 * int8 range and saturate some), per channel around a shared factor, one
 * channel in 16 negative. */
fia_status fz_oq_fill(fz_gen *g, const fz_oq_scene *s, int okind,
                      fuzz_rng *r, double mag)
{
    const int64_t n = s->form == FZ_OQ_TENSOR ? 1 : s->N * s->D;
    double *sv = malloc((size_t)n * sizeof *sv);
    double *ov = s->offset ? malloc((size_t)n * sizeof *ov) : NULL;
    if (sv == NULL || (s->offset && ov == NULL)) {
        free(sv), free(ov);
        return FIA_ERR_NOMEM;
    }
    const double base = 127.0 / (mag > 0 ? mag : 1) *
                        exp2(fuzz_rng_unit(r) * 6 - 1);
    for (int64_t i = 0; i < n; i++) {
        double x = n == 1 ? base : base * exp2(fuzz_rng_unit(r) * 2 - 1);
        if (n > 1 && fuzz_rng_next(r) % 16 == 0)
            x = -x;
        sv[i] = in_dtype(s->dt, x);
        if (ov)
            ov[i] = in_dtype(s->odt, offset_value(r, okind));
    }
    fz_case_values(g->c, FIA_SLOT_QUANT_SCALE2, sv, n);
    if (ov)
        fz_case_values(g->c, FIA_SLOT_QUANT_OFFSET2, ov, n);
    return FIA_OK;
}

void fz_numeric_int8_out(fz_gen *g)
{
    /* the metamorphic bases stay unquantized (their relations compare
     * float outputs), reading no byte here */
    if (g->meta)
        return;
    fz_bytes *f = g->f;
    if (!fz_bytes_rare(f, FZ_GATE(g, FZ_FOCUS_INT8OUT, 8)))
        return;
    const int formp = fz_bytes_pick(f, 8), bf = fz_bytes_bool(f);
    const int okind = fz_bytes_pick(f, OO_COUNT), outp = fz_bytes_pick(f, 3);
    fuzz_rng r = {fz_bytes_u64(f)};
    fia_case *c = g->c;
    fz_geom geom;
    if (c->live_rows || fz_geom_of_call(c, &geom) != 0 || geom.tnd ||
        !takes_scene(g, &geom) ||
        (geom.Q_S > 1 && (geom.D % 32 != 0 || band_negative(c))))
        return;
    const fia_dtype qdt = c->tensors[FIA_SLOT_QUERY].t[0].dtype;
    fz_oq_scene s;
    memset(&s, 0, sizeof s);
    s.scale = 1, s.offset = okind != OO_NONE;
    if (geom.Q_S > 1 && fz_oq_uncomputed(c, &geom))
        s.offset = 0;
    s.form = s.oform = formp < 3 || padded(c) ? FZ_OQ_TENSOR
                                              : FZ_OQ_H + formp - 3;
    s.dt = s.odt = qdt == FIA_DT_BF16 && bf ? FIA_DT_BF16 : FIA_DT_FP32;
    s.N = geom.N, s.D = geom.D;
    fz_oq_write(g, &s);
    fz_note(g, fz_oq_fill(g, &s, okind, &r, value_magnitude(c)));
    if (present1(c, FIA_SLOT_ATTENTION_OUT))
        c->tensors[FIA_SLOT_ATTENTION_OUT].t[0].dtype = FIA_DT_INT8;
    else if (outp != 0)
        write_out(g, &geom, FIA_DT_INT8);
}
