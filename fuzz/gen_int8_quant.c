/* Full int8 quantization in generated calls (docs/features/int8_quant.md).
 *
 * fuzz_params (fz_params_int8_quant_scene, last in the list): now and then an
 * fp16 / bf16 prefill call made fully quantized — query, key and value
 * int8, dequant_scale1 (uint64 or fp32 [1]), quant_scale1 (fp32 [1]),
 * dequant_scale2 (uint64 or fp32 [1]), and an fp16 output, or an int8 one
 * (written or inferred) with quant_scale2 fp32 per-tensor or per-channel
 * and quant_offset2 now and then (int8_out.md) — and, on non-strict
 * inputs, one Q8 rule of the doc's table broken (break k is Q8-(k + 1)),
 * or ANTI-027 (break 8: all int8 at Q_S = 1).  Valid scenes are prefill
 * only: at Q_S = 1 all int8 is ANTI-027.  Calls whose other parts exclude
 * an int8 query are left alone for a valid scene: a page table (PAGED-007),
 * a shared prefix (PREFIX-X02), a token layout, a GQA ratio past 64
 * (ANTI-028), key/value quantization, an int8-output scene just made.
 * Fragment contract: fuzz/gen.h. */
#include <string.h>
#include "fuzz/gen.h"

/* The break of rule Q8-(k + 1); QB_ALL_INT8 is ANTI-027. */
enum {
    QB_INT8_OUT, QB_FP_OUT, QB_OUT_DT, QB_KV_DT, QB_COUNT, QB_FP_PREFILL,
    QB_FP_DECODE, QB_D32, QB_ALL_INT8, QB_N
};

int fz_int8_quant_params_break = -1; /* the last scene's break (tests) */

static int present1(const fia_case *c, fia_slot s)
{
    const fia_tensor_spec *sp = &c->tensors[s];
    return sp->presence == FIA_PRESENT && sp->count >= 1 && sp->t != NULL;
}

static int is_f16(fia_dtype dt)
{
    return dt == FIA_DT_FP16 || dt == FIA_DT_BF16;
}

/* An fp16 / bf16 call of the four layouts, no key/value quantization. */
static int takes_scene(const fz_gen *g, const fz_geom *geom)
{
    const fia_case *c = g->c;
    if (g->out8 || geom->tnd || !present1(c, FIA_SLOT_QUERY) ||
        !present1(c, FIA_SLOT_KEY) || !present1(c, FIA_SLOT_VALUE))
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

/* No other part of the call excludes an int8 query (prefill). */
static int int8_fits(const fia_case *c, const fz_geom *geom)
{
    return c->tensors[FIA_SLOT_BLOCK_TABLE].presence != FIA_PRESENT &&
           c->tensors[FIA_SLOT_KEY_SHARED_PREFIX].presence != FIA_PRESENT &&
           c->tensors[FIA_SLOT_VALUE_SHARED_PREFIX].presence != FIA_PRESENT &&
           geom->KV_N > 0 && geom->N / geom->KV_N <= 64;
}

static int break_fits(const fia_case *c, const fz_geom *geom, int b)
{
    const int pre = geom->Q_S > 1, d32 = geom->D % 32 == 0;
    switch (b) {
    case QB_FP_PREFILL: return pre;
    case QB_FP_DECODE: case QB_ALL_INT8: return !pre;
    case QB_D32: return pre && !d32 && int8_fits(c, geom);
    default: return pre && d32 && int8_fits(c, geom);
    }
}

/* Every tensor of slot s to dtype dt. */
static void set_dtype(fia_case *c, fia_slot s, fia_dtype dt)
{
    fia_tensor_spec *sp = &c->tensors[s];
    for (int i = 0; sp->presence == FIA_PRESENT && i < sp->count; i++)
        sp->t[i].dtype = dt;
}

static const fia_slot SCALES1[3] = {FIA_SLOT_DEQUANT_SCALE1,
                                    FIA_SLOT_QUANT_SCALE1,
                                    FIA_SLOT_DEQUANT_SCALE2};

/* The three scales of full quantization, per-tensor: the dequant scales
 * uint64 (a float32 in the low bits) or fp32 (bits of pick). */
static void write_scales1(fz_gen *g, int pick)
{
    const int64_t one = 1;
    for (int i = 0; i < 3; i++) {
        const fia_dtype dt = i != 1 && (pick >> (i / 2)) & 1 ? FIA_DT_UINT64
                                                       : FIA_DT_FP32;
        fz_note(g, fz_case_tensor(g->c, SCALES1[i], dt, 1, &one));
    }
}

static void write_out(fz_gen *g, const fz_geom *geom, fia_dtype dt)
{
    int64_t sh[FIA_MAX_RANK];
    const int nd = fz_shape(fz_out_layout(geom->layout), geom->B, geom->N,
                            geom->Q_S, geom->D, sh);
    fz_note(g, fz_case_tensor(g->c, FIA_SLOT_ATTENTION_OUT, dt, nd, sh));
}

/* Q8-006 / Q8-007: an fp call keeps its fp output and gets one, two or
 * all three of the scales. */
static void fp_with_scales(fz_gen *g, int aux)
{
    fia_case *c = g->c;
    fz_case_absent(c, FIA_SLOT_QUANT_SCALE2);
    fz_case_absent(c, FIA_SLOT_QUANT_OFFSET2);
    if (present1(c, FIA_SLOT_ATTENTION_OUT)) /* the query's dtype */
        c->tensors[FIA_SLOT_ATTENTION_OUT].t[0].dtype =
            c->tensors[FIA_SLOT_QUERY].t[0].dtype;
    write_scales1(g, aux);
    const int keep = aux % 4; /* 3: all three */
    for (int i = 0; keep < 3 && i < 3; i++)
        if (i != keep && ((aux >> 3) & (1 << i)) == 0)
            fz_case_absent(c, SCALES1[i]);
}

void fz_params_int8_quant_scene(fz_gen *g)
{
    fz_bytes *f = g->f;
    if (!fz_bytes_rare(f, 12))
        return;
    const int want = fz_odd(g, 45) ? fz_bytes_pick(f, QB_N) : -1;
    const int dqp = fz_bytes_pick(f, 4), outp = fz_bytes_pick(f, 5);
    const int formp = fz_bytes_pick(f, 8), offs = fz_bytes_bool(f), aux = fz_bytes_u8(f);
    fia_case *c = g->c;
    fz_geom geom;
    if (fz_geom_of_call(c, &geom) != 0 || !takes_scene(g, &geom))
        return;
    int fits[QB_N], nf = 0, brk = -1;
    for (int i = 0; i < QB_N; i++)
        if (break_fits(c, &geom, i))
            fits[nf++] = i;
    if (want >= 0 && nf > 0)
        brk = fits[want % nf];
    if (brk < 0 && !break_fits(c, &geom, QB_INT8_OUT))
        return; /* no valid scene on this path */
    fz_int8_quant_params_break = brk;
    if (brk == QB_FP_PREFILL || brk == QB_FP_DECODE) {
        fp_with_scales(g, aux);
        return;
    }
    const fia_dtype qdt = c->tensors[FIA_SLOT_QUERY].t[0].dtype;
    set_dtype(c, FIA_SLOT_QUERY, FIA_DT_INT8);
    const fia_dtype kvdt = brk == QB_KV_DT ? (aux & 1 ? FIA_DT_FP16 : qdt)
                                           : FIA_DT_INT8;
    set_dtype(c, FIA_SLOT_KEY, kvdt);
    set_dtype(c, FIA_SLOT_VALUE, kvdt);
    g->qdt = FIA_DT_INT8, g->kvdt = kvdt;
    /* a pse takes fp16 beside an int8 query */
    if (present1(c, FIA_SLOT_PSE_SHIFT) &&
        c->tensors[FIA_SLOT_PSE_SHIFT].t[0].dtype == FIA_DT_BF16)
        c->tensors[FIA_SLOT_PSE_SHIFT].t[0].dtype = FIA_DT_FP16;
    write_scales1(g, dqp);
    /* the output: fp16 (2 in 5), int8 written (2) or inferred (1); a band
     * with a negative window takes no int8 output (OQ-008) */
    int out8 = outp >= 2;
    if (geom.Q_S > 1 && c->attrs.sparse_mode == 4 &&
        (c->attrs.pre_tokens < 0 || c->attrs.next_tokens < 0))
        out8 = 0;
    if (brk == QB_INT8_OUT)
        out8 = 1;
    else if (brk == QB_FP_OUT || brk == QB_OUT_DT)
        out8 = 0;
    fz_oq_scene s;
    memset(&s, 0, sizeof s);
    s.N = geom.N, s.D = geom.D;
    s.scale = out8;
    s.offset = out8 && offs && !(geom.Q_S > 1 && fz_oq_uncomputed(c, &geom));
    const int pad = c->tensors[FIA_SLOT_QUERY_PADDING_SIZE].presence ==
                        FIA_PRESENT ||
                    c->tensors[FIA_SLOT_KV_PADDING_SIZE].presence ==
                        FIA_PRESENT;
    s.form = s.oform = formp < 3 || pad ? FZ_OQ_TENSOR : FZ_OQ_H + formp - 3;
    s.dt = s.odt = FIA_DT_FP32;
    fz_oq_write(g, &s);
    if (!out8)
        write_out(g, &geom, brk != QB_OUT_DT ? FIA_DT_FP16
                            : aux & 1         ? FIA_DT_FP32
                                              : FIA_DT_BF16);
    else if (outp == 4 && brk < 0)
        fz_case_absent(c, FIA_SLOT_ATTENTION_OUT); /* inferred from the query */
    else
        write_out(g, &geom, FIA_DT_INT8);
    if (brk == QB_INT8_OUT || brk == QB_FP_OUT) { /* one scale missing */
        const int k = aux % (brk == QB_INT8_OUT ? 4 : 3);
        fz_case_absent(c, k == 3 ? FIA_SLOT_QUANT_SCALE2 : SCALES1[k]);
    } else if (brk == QB_COUNT) { /* one scale of two elements */
        const int64_t two[2] = {aux & 4 ? 1 : 2, 2};
        const fia_slot sl = SCALES1[aux % 3];
        fz_note(g, fz_case_tensor(c, sl, c->tensors[sl].t[0].dtype,
                             aux & 4 ? 2 : 1, two));
    }
}
