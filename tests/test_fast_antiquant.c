/* fast/ antiquant (docs/features/antiquant.md): int8 / int4 / int32-packed
 * key and value with each set and mode, against the same call with fp16 /
 * bf16 key and value holding the dequantized values, exactly representable
 * (scales powers of two, small integer offsets): outputs must agree within
 * float rounding.  Q_S = 1 (the fused decode kernel, its split-KV path)
 * and Q_S > 1 (kv_pre and per-block widening), layouts, GQA, page
 * attention with page-managed scales, kv left padding (a per-token scale
 * at the physical row), tensor lists, ragged tails, threads 1..4.  Run once
 * per ISA level (CMakeLists.txt: FIA_FAST_ISA). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fast_testlib.h"
#include "fia/dtype.h"
#include "fia/fast.h"

enum { COMBINED, SEPARATE };
enum { F_TENSOR, F_CHANNEL, F_TOKEN, F_HEAD, F_TOKEN_HEAD, F_PAGE,
       F_PAGE_HEAD };

typedef struct cfg {
    const char *layout;
    int64_t B, N, KV_N, Q_S, KV_S, D;
    fia_dtype qdt, kdt;      /* kdt: int8, int4 or int32 */
    int set;                 /* COMBINED / SEPARATE */
    int64_t kmode, vmode;    /* separate; combined: kmode */
    int chshape;             /* per-channel shape variant 0..2 */
    bool offset;
    int64_t bs;              /* > 0: page attention, 3-D cache */
    bool cache4d;            /* (blocknum, KV_N, block_size, D) instead */
    int64_t kvpad;           /* >= 0 with lens: kv left padding */
    bool list;               /* key/value tensor lists */
    const int64_t *lens;     /* actual_seq_lengths_kv, or NULL */
    int threads;
} cfg;

static float pow2(int e) { return ldexpf(1.0f, e); }

/* The form of key (kv 0) / value (kv 1) under the config. */
static int form_of(const cfg *c, int kv)
{
    const int64_t m = c->set == COMBINED ? (c->Q_S > 1 ? 0 : c->kmode)
                                         : (kv ? c->vmode : c->kmode);
    switch (m) {
    case 0: return c->chshape < 0 ? F_TENSOR : F_CHANNEL;
    case 1: return F_TOKEN;
    case 2: return F_HEAD;
    case 3: return F_TOKEN_HEAD;
    case 4: return F_PAGE;
    default: return F_PAGE_HEAD;
    }
}

typedef struct scales {
    float *s, *o;             /* per set half: index as the form's */
    int64_t n;                /* elements of one half */
    int64_t sp;               /* S' of a per-token form */
    int form;
    fia_dtype sdt;
    fia_tensor ts, to;        /* separate tensors / combined (both halves) */
} scales;

/* Scale / offset index of element (b, n, s, d) (s: the physical row, or
 * for a page form the slot in block id b). */
static int64_t sidx(const cfg *c, const scales *x, int64_t b, int64_t n,
                    int64_t s, int64_t d)
{
    switch (x->form) {
    case F_TENSOR: return 0;
    case F_CHANNEL: return n * c->D + d;
    case F_TOKEN: return b * x->sp + s;
    case F_HEAD: return n;
    case F_TOKEN_HEAD: return (b * c->KV_N + n) * x->sp + s;
    case F_PAGE: return b * c->bs + s;
    default: return (b * c->KV_N + n) * c->bs + s;
    }
}

static int64_t blocknum(const cfg *c)
{
    return c->B * ((c->KV_S + c->bs - 1) / c->bs) + 2;
}

static void make_scales(const cfg *c, int kv, scales *x)
{
    x->form = form_of(c, kv);
    x->sp = c->KV_S + 3; /* wider than KV_S: read at its first KV_S */
    switch (x->form) {
    case F_TENSOR: x->n = 1; break;
    case F_CHANNEL: x->n = c->KV_N * c->D; break;
    case F_TOKEN: x->n = c->B * x->sp; break;
    case F_HEAD: x->n = c->KV_N; break;
    case F_TOKEN_HEAD: x->n = c->B * c->KV_N * x->sp; break;
    case F_PAGE: x->n = blocknum(c) * c->bs; break;
    default: x->n = blocknum(c) * c->KV_N * c->bs; break;
    }
    x->s = malloc((size_t)x->n * sizeof(float));
    x->o = malloc((size_t)x->n * sizeof(float));
    for (int64_t i = 0; i < x->n; i++) {
        /* small keys: scores of a few units, whose float32 error (the
         * paths sum in different orders) stays far below the output's */
        x->s[i] = pow2((c->kdt == FIA_DT_INT8 ? -6 : -2) -
                       (int)(ftl_next32() % 4));
        x->o[i] = c->offset ? (float)((int)(ftl_next32() % 7) - 3) : 0.0f;
    }
    const bool tok = x->form == F_TOKEN || x->form == F_TOKEN_HEAD ||
                     x->form == F_PAGE || x->form == F_PAGE_HEAD;
    x->sdt = tok ? FIA_DT_FP32 : c->Q_S > 1 && c->set == SEPARATE
                                      ? FIA_DT_BF16 : c->qdt;
}

/* The tensor of a set's scale (or offset) values v (h halves). */
static fia_tensor scale_tensor(const cfg *c, const scales *x, int h,
                               const float *v0, const float *v1)
{
    fia_tensor t = {.dtype = x->sdt};
    int64_t dims[4], nd = 0;
    if (h == 2)
        dims[nd++] = 2;
    else if (c->Q_S == 1 && x->form != F_HEAD && x->form != F_TOKEN_HEAD &&
             x->form != F_PAGE && x->form != F_PAGE_HEAD)
        dims[nd++] = 1; /* (1, ...) at Q_S = 1 */
    switch (x->form) {
    case F_TENSOR: if (nd == 0) dims[nd++] = 1; break;
    case F_CHANNEL:
        if (c->chshape == 0) dims[nd++] = c->KV_N, dims[nd++] = 1,
                             dims[nd++] = c->D;
        else if (c->chshape == 1) dims[nd++] = c->KV_N, dims[nd++] = c->D;
        else dims[nd++] = c->KV_N * c->D;
        break;
    case F_TOKEN: dims[nd++] = c->B, dims[nd++] = x->sp; break;
    case F_HEAD: dims[nd++] = c->KV_N; break;
    case F_TOKEN_HEAD: dims[nd++] = c->B, dims[nd++] = c->KV_N,
                       dims[nd++] = x->sp; break;
    case F_PAGE: dims[nd++] = blocknum(c), dims[nd++] = c->bs; break;
    default: dims[nd++] = blocknum(c), dims[nd++] = c->KV_N,
             dims[nd++] = c->bs; break;
    }
    t.ndim = (int)nd;
    for (int i = 0; i < nd; i++)
        t.shape[i] = dims[i];
    const int64_t n = x->n * h;
    const size_t es = x->sdt == FIA_DT_FP32 ? 4 : 2;
    char *data = malloc((size_t)n * es);
    for (int64_t i = 0; i < n; i++) {
        const float f = i < x->n ? v0[i] : v1[i - x->n];
        if (es == 4)
            memcpy(data + i * 4, &f, 4);
        else {
            uint16_t u = x->sdt == FIA_DT_FP16 ? fia_float_to_fp16(f)
                                               : fia_float_to_bf16(f);
            memcpy(data + i * 2, &u, 2);
        }
    }
    t.data = data;
    return t;
}

/* int element e of an int8 / int4 buffer */
static void put_int(fia_dtype kdt, void *buf, int64_t e, int x)
{
    if (kdt == FIA_DT_INT8) {
        ((int8_t *)buf)[e] = (int8_t)x;
        return;
    }
    uint8_t *p = (uint8_t *)buf + e / 2;
    const uint8_t nib = (uint8_t)(x & 15);
    *p = e % 2 ? (uint8_t)((*p & 15) | nib << 4) : (uint8_t)((*p & 0xf0) | nib);
}

/* One of key / value: an int tensor (or a list) and its fp16/bf16
 * dequantized twin, every element's position known. */
typedef struct kvbuf {
    void *iq[8];       /* int data per tensor (list: per batch) */
    uint16_t *fq[8];   /* dequantized */
    fia_tensor ti[8], tf[8];
    int count;
} kvbuf;

/* The logical key j of batch b behind cache row (id, slot), -1 if none. */
static void inverse_map(const cfg *c, const int32_t *bt, int64_t btc,
                        int64_t *ib, int64_t *ij)
{
    const int64_t rows = blocknum(c) * c->bs;
    for (int64_t r = 0; r < rows; r++)
        ib[r] = -1, ij[r] = -1;
    for (int64_t b = 0; b < c->B; b++)
        for (int64_t j = 0; j < c->KV_S; j++) {
            const int64_t r = bt[b * btc + j / c->bs] * c->bs + j % c->bs;
            ib[r] = b, ij[r] = j;
        }
}

static void build_kv(const cfg *c, const scales *x, int half, kvbuf *kb,
                     const int32_t *bt, int64_t btc)
{
    const bool bnsd = ftl_bnsd(c->layout);
    const int64_t D = c->D, KV_N = c->KV_N;
    const fia_dtype fdt = c->qdt;
    const int lo = c->kdt == FIA_DT_INT8 ? -128 : -8;
    const int span = c->kdt == FIA_DT_INT8 ? 256 : 16;
    (void)half;
    kb->count = c->list ? (int)c->B : 1;
    for (int t = 0; t < kb->count; t++) {
        int64_t rows, nb;
        if (c->bs > 0)
            nb = 1, rows = blocknum(c) * c->bs;
        else
            nb = c->list ? 1 : c->B, rows = c->list ? c->lens[t] + 1 : c->KV_S;
        const int64_t numel = nb * rows * KV_N * D;
        kb->iq[t] = calloc((size_t)numel, 1);
        kb->fq[t] = calloc((size_t)numel, 2);
        int64_t *ib = NULL, *ij = NULL;
        if (c->bs > 0 && (x->form == F_TOKEN || x->form == F_TOKEN_HEAD)) {
            ib = malloc((size_t)rows * 8), ij = malloc((size_t)rows * 8);
            inverse_map(c, bt, btc, ib, ij);
        }
        for (int64_t b = 0; b < nb; b++)
            for (int64_t n = 0; n < KV_N; n++)
                for (int64_t s = 0; s < rows; s++)
                    for (int64_t d = 0; d < D; d++) {
                        int64_t e;
                        if (c->bs > 0 && c->cache4d) /* slot s % bs */
                            e = (((s / c->bs) * KV_N + n) * c->bs +
                                 s % c->bs) * D + d;
                        else if (c->bs > 0) /* (blocknum, bs, KV_N*D) */
                            e = (s * KV_N + n) * D + d;
                        else
                            e = ftl_at(bnsd, KV_N, rows, D, b, n, s) + d;
                        const int q = lo + (int)(ftl_next32() % (unsigned)span);
                        put_int(c->kdt, kb->iq[t], e, q);
                        /* the element's scale: by position */
                        int64_t sb = c->list ? t : b, ss = s;
                        if (c->bs > 0) {
                            sb = s / c->bs, ss = s % c->bs; /* id, slot */
                            if (ib != NULL) {
                                if (ib[s] < 0) {
                                    kb->fq[t][e] = 0;
                                    continue;
                                }
                                sb = ib[s], ss = ij[s];
                            }
                        }
                        const int64_t i = sidx(c, x, sb, n, ss, d);
                        const float f = ((float)q + x->o[i]) * x->s[i];
                        kb->fq[t][e] = fdt == FIA_DT_FP16
                                           ? fia_float_to_fp16(f)
                                           : fia_float_to_bf16(f);
                    }
        free(ib), free(ij);
        const int64_t S = c->bs > 0 ? c->bs : rows;
        if (c->bs > 0 && c->cache4d) {
            fia_tensor ti = {.dtype = c->kdt, .ndim = 4,
                             .shape = {blocknum(c), KV_N, c->bs, D}};
            kb->ti[t] = kb->tf[t] = ti;
        } else if (c->bs > 0) {
            fia_tensor ti = {.dtype = c->kdt, .ndim = 3,
                             .shape = {blocknum(c), c->bs, KV_N * D}};
            kb->ti[t] = kb->tf[t] = ti;
        } else {
            kb->ti[t] = kb->tf[t] =
                ftl_tensor(c->layout, bnsd, c->kdt, nb, KV_N, S, D, NULL);
        }
        kb->ti[t].dtype = c->kdt;
        kb->tf[t].dtype = fdt;
        if (c->kdt == FIA_DT_INT32)
            kb->ti[t].shape[kb->ti[t].ndim - 1] /= 8;
        kb->ti[t].data = kb->iq[t];
        kb->tf[t].data = kb->fq[t];
    }
}

static fia_status call(const cfg *c, const fia_tensor *q, kvbuf *k,
                       kvbuf *v, bool aq, const fia_tensor *const *sc,
                       const fia_tensor *bt, const fia_tensor *pad,
                       fia_tensor *out)
{
    const fia_tensor *kp[8], *vp[8];
    for (int i = 0; i < k->count; i++) {
        kp[i] = aq ? &k->ti[i] : &k->tf[i];
        vp[i] = aq ? &v->ti[i] : &v->tf[i];
    }
    fia_tensor_list kl = {k->count, kp}, vl = {v->count, vp};
    fia_int_array aslkv = {c->list || c->bs > 0 || c->kvpad >= 0 ? c->B : 0,
                           (int64_t *)c->lens};
    const bool has_aslkv = c->lens != NULL;
    fast_executor *ex = NULL;
    uint64_t wss = 0;
    const fia_tensor *n4[4] = {NULL, NULL, NULL, NULL};
    const fia_tensor *const *s = aq ? sc : n4;
    fia_status st = fastFusedInferAttentionScoreV2GetWorkspaceSize(
        q, &kl, &vl, NULL, NULL, NULL, has_aslkv ? &aslkv : NULL, NULL, NULL,
        NULL, NULL, NULL, c->set == COMBINED ? s[0] : NULL,
        c->set == COMBINED ? s[1] : NULL, bt, NULL, pad,
        c->set == SEPARATE ? s[0] : NULL, c->set == SEPARATE ? s[1] : NULL,
        c->set == SEPARATE ? s[2] : NULL, c->set == SEPARATE ? s[3] : NULL,
        NULL, NULL, NULL, c->N, 0.0883883476, 2147483647, 2147483647,
        c->layout, c->KV_N, 0, c->Q_S > 1 ? 0 : 1, c->bs, aq ? c->kmode : 0,
        false, aq ? c->kmode : 0, aq ? c->vmode : 0, out, NULL, &wss, &ex);
    if (st != FIA_OK)
        return st;
    st = ftl_phase_two(ex, wss);
    return st;
}

static void run_case(const cfg *c, int line)
{
    const bool bnsd = ftl_bnsd(c->layout);
    fastSetThreadCount(c->threads);
    scales x[2];
    make_scales(c, 0, &x[0]);
    make_scales(c, 1, &x[1]);
    /* page attention: a shuffled block table */
    int32_t *btd = NULL;
    const int64_t btc = c->bs > 0 ? (c->KV_S + c->bs - 1) / c->bs : 0;
    fia_tensor bt = {.dtype = FIA_DT_INT32, .ndim = 2,
                     .shape = {c->B, btc}};
    if (c->bs > 0) {
        btd = malloc((size_t)(c->B * btc) * 4);
        for (int64_t i = 0; i < c->B * btc; i++)
            btd[i] = (int32_t)(blocknum(c) - 1 - i); /* backwards */
        bt.data = btd;
    }
    kvbuf k = {0}, v = {0};
    build_kv(c, &x[0], 0, &k, btd, btc);
    build_kv(c, &x[1], 1, &v, btd, btc);
    /* the scale tensors */
    fia_tensor st[4];
    const fia_tensor *sp[4] = {NULL, NULL, NULL, NULL};
    if (c->set == COMBINED) {
        st[0] = scale_tensor(c, &x[0], 2, x[0].s, x[1].s);
        st[1] = scale_tensor(c, &x[0], 2, x[0].o, x[1].o);
        sp[0] = &st[0], sp[1] = c->offset ? &st[1] : NULL;
    } else {
        st[0] = scale_tensor(c, &x[0], 1, x[0].s, NULL);
        st[1] = scale_tensor(c, &x[0], 1, x[0].o, NULL);
        st[2] = scale_tensor(c, &x[1], 1, x[1].s, NULL);
        st[3] = scale_tensor(c, &x[1], 1, x[1].o, NULL);
        sp[0] = &st[0], sp[2] = &st[2];
        sp[1] = c->offset ? &st[1] : NULL, sp[3] = c->offset ? &st[3] : NULL;
    }
    const int64_t qn = c->B * c->N * c->Q_S * c->D;
    uint16_t *qd = malloc((size_t)qn * 2);
    for (int64_t i = 0; i < qn; i++)
        qd[i] = ftl_rnd(c->qdt);
    fia_tensor q = ftl_tensor(c->layout, bnsd, c->qdt, c->B, c->N, c->Q_S,
                              c->D, qd);
    uint16_t *o1 = calloc((size_t)qn, 2), *o2 = calloc((size_t)qn, 2);
    fia_tensor out1 = q, out2 = q;
    out1.data = o1, out2.data = o2;
    int64_t padv = c->kvpad;
    fia_tensor pad = {.dtype = FIA_DT_INT64, .ndim = 1, .shape = {1},
                      .data = &padv};
    const fia_tensor *pp = c->kvpad >= 0 ? &pad : NULL;
    fia_status s1 = call(c, &q, &k, &v, true, sp, c->bs ? &bt : NULL, pp,
                         &out1);
    fia_status s2 = call(c, &q, &k, &v, false, sp, c->bs ? &bt : NULL, pp,
                         &out2);
    CHECK_MSG(s1 == FIA_OK && s2 == FIA_OK, "line %d: status %d / %d: %s",
              line, s1, s2, fastLastError());
    double worst = 0;
    for (int64_t i = 0; s1 == FIA_OK && s2 == FIA_OK && i < qn; i++) {
        const float a = c->qdt == FIA_DT_FP16 ? fia_fp16_to_float(o1[i])
                                              : fia_bf16_to_float(o1[i]);
        const float b = c->qdt == FIA_DT_FP16 ? fia_fp16_to_float(o2[i])
                                              : fia_bf16_to_float(o2[i]);
        /* two units of the output's last place, relative to 1/4 at least:
         * values are up to ~2, and the paths (fused decode, blocked loop)
         * round P to the dtype against different running maxima, an error
         * of u relative to the values, not to their cancelling sum */
        const double u = c->qdt == FIA_DT_FP16 ? 0x1p-10 : 0x1p-7;
        const double tol = 2 * u * fmax(fabs(b), 0.25);
        const double e = fabs((double)a - b) / tol;
        worst = e > worst ? e : worst;
        if (!(e <= 1.0)) {
            CHECK_MSG(false, "line %d: out[%lld] %g vs fp16/bf16 %g", line,
                      (long long)i, a, b);
            break;
        }
    }
    CHECK(worst <= 1.0);
    for (int i = 0; i < 4; i++)
        if (c->set == SEPARATE || i < 2)
            free((void *)st[i].data);
    for (int t = 0; t < k.count; t++)
        free(k.iq[t]), free(k.fq[t]), free(v.iq[t]), free(v.fq[t]);
    for (int i = 0; i < 2; i++)
        free(x[i].s), free(x[i].o);
    free(qd), free(o1), free(o2), free(btd);
    fastSetThreadCount(0);
}

/* A base: BNSD, B 2, N 8, KV_N 2 (GQA 4), D 64, KV_S 77 (ragged). */
static cfg base(int64_t qs, fia_dtype kdt, int set, int64_t km, int64_t vm)
{
    cfg c = {.layout = "BNSD", .B = 2, .N = 8, .KV_N = 2, .Q_S = qs,
             .KV_S = 77, .D = 64, .kdt = kdt, .set = set, .kmode = km,
             .vmode = vm, .chshape = 0, .offset = true, .kvpad = -1,
             .threads = 2};
    c.qdt = qs > 1 && set == SEPARATE ? FIA_DT_BF16 : FIA_DT_FP16;
    if (qs == 1 && set == SEPARATE && kdt != FIA_DT_INT8)
        c.qdt = FIA_DT_FP16;
    return c;
}

#define RUN(c) run_case(&(c), __LINE__)

static void decode_modes(void)
{
    const fia_dtype kd[3] = {FIA_DT_INT8, FIA_DT_INT4, FIA_DT_INT32};
    for (int t = 0; t < 3; t++) {
        const bool i8 = t == 0;
        /* combined (int8 only): per-tensor, per-channel shapes, per-token */
        if (i8) {
            for (int sh = -1; sh < 3; sh++) {
                cfg c = base(1, kd[t], COMBINED, 0, 0);
                c.chshape = sh;
                RUN(c);
            }
            cfg c = base(1, kd[t], COMBINED, 1, 1);
            RUN(c);
            c.offset = false;
            RUN(c);
        }
        /* separate: mode 0 per-channel (and per-tensor, int8), 1, 2, 3 */
        for (int64_t m = 0; m < 4; m++) {
            if (!i8 && m == 2)
                continue; /* int4: modes 0 per-channel, 1, 3 */
            cfg c = base(1, kd[t], SEPARATE, m, m);
            RUN(c);
            if (m == 0 && i8) {
                c.chshape = -1;
                RUN(c);
            }
        }
        /* a bf16 query (per-channel bf16, per-token fp32) */
        for (int64_t m = 0; m < 2; m++) {
            cfg b = base(1, kd[t], SEPARATE, m, m);
            b.qdt = FIA_DT_BF16;
            RUN(b);
        }
        cfg c = base(1, kd[t], SEPARATE, 0, 1); /* key 0 + value 1 */
        RUN(c);
        c.offset = false;
        RUN(c);
    }
}

static void prefill_modes(void)
{
    /* Q_S > 1: combined fp16 / int8 (antiquant_mode ignored), separate
     * bf16 / int8 modes 0 and 1; Q_S 5 x 4 heads = 20 rows */
    for (int64_t qs = 3; qs <= 40; qs += 37) {
        for (int64_t am = 0; am < 2; am++) {
            cfg c = base(qs, FIA_DT_INT8, COMBINED, am, am);
            c.D = 64;
            RUN(c);
        }
        for (int64_t m = 0; m < 2; m++) {
            /* the separate set takes Q_S <= 16 (ANTI-014) */
            cfg c = base(qs > 16 ? 16 : qs, FIA_DT_INT8, SEPARATE, m, m);
            RUN(c);
            c.chshape = 1;
            c.layout = "BSH";
            RUN(c);
        }
    }
}

static void shapes_threads(void)
{
    /* layouts, GQA 1 and 8, long KV (split decode), threads 1..4 */
    for (int th = 1; th <= 4; th++) {
        cfg c = base(1, FIA_DT_INT8, SEPARATE, 0, 0);
        c.threads = th;
        c.KV_S = 1100;
        c.layout = th % 2 ? "BSH" : "BSND";
        RUN(c);
        c = base(1, FIA_DT_INT32, SEPARATE, 1, 1);
        c.threads = th;
        c.KV_S = 900;
        c.KV_N = 1;
        c.D = 128;
        RUN(c);
        c = base(1, FIA_DT_INT4, SEPARATE, 3, 3);
        c.threads = th;
        c.N = c.KV_N = 2;
        RUN(c);
        c = base(1, FIA_DT_INT8, COMBINED, 0, 0);
        c.threads = th;
        c.D = 40; /* not a multiple of the tile: the blocked loop */
        RUN(c);
        c = base(16, FIA_DT_INT8, SEPARATE, 1, 1); /* Q_S <= 16 */
        c.threads = th;
        c.KV_S = 300;
        RUN(c);
    }
}

static void paged_padding_lists(void)
{
    static const int64_t lens[2] = {70, 33};
    /* page attention (Q_S = 1): modes 0, 1, 4, 5; a 3-D cache */
    for (int64_t m = 0; m < 6; m++) {
        if (m == 2 || m == 3)
            continue;
        cfg c = base(1, FIA_DT_INT8, SEPARATE, m, m);
        c.layout = "BSH";
        c.bs = 32;
        c.KV_S = 96;
        c.lens = lens;
        RUN(c);
        /* a 4-D cache with a BNSD query, blocks of 64 (two decode blocks
         * of 16 keys per cache block, a split across them) */
        c.layout = "BNSD";
        c.cache4d = true;
        c.bs = 64;
        c.KV_S = 128;
        RUN(c);
    }
    {
        cfg c = base(1, FIA_DT_INT8, COMBINED, 1, 1);
        c.layout = "BSH";
        c.bs = 32;
        c.KV_S = 96;
        c.lens = lens;
        RUN(c);
    }
    /* kv left padding: the combined per-token scale at the physical row */
    for (int64_t am = 0; am < 2; am++) {
        cfg c = base(1, FIA_DT_INT8, COMBINED, am, am);
        c.lens = lens;
        c.kvpad = 4;
        RUN(c);
    }
    /* tensor lists: per-channel */
    {
        cfg c = base(1, FIA_DT_INT8, COMBINED, 0, 0);
        c.list = true;
        c.lens = lens;
        RUN(c);
        c = base(1, FIA_DT_INT4, SEPARATE, 0, 0);
        c.list = true;
        c.lens = lens;
        RUN(c);
    }
}

/* A status-only run (no scale data): phase one accepts, the run refuses
 * with 361001 (R_NO_DATA), as for the other tensors. */
static void no_data(void)
{
    static int8_t kd[2 * 2 * 16 * 64];
    static uint16_t qd[2 * 8 * 64], od[2 * 8 * 64];
    fia_tensor q = {FIA_DT_FP16, 4, {2, 8, 1, 64}, qd};
    fia_tensor o = q;
    o.data = od;
    fia_tensor k = {FIA_DT_INT8, 4, {2, 2, 16, 64}, kd};
    fia_tensor sc = {FIA_DT_FP16, 1, {2}, NULL};
    const fia_tensor *kp[1] = {&k};
    fia_tensor_list kl = {1, kp};
    fast_executor *ex = NULL;
    uint64_t wss = 0;
    fia_status st = fastFusedInferAttentionScoreV2GetWorkspaceSize(
        &q, &kl, &kl, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        &sc, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        8, 0.125, 2147483647, 2147483647, "BNSD", 2, 0, 1, 0, 0, false, 0, 0,
        &o, NULL, &wss, &ex);
    CHECK_MSG(st == FIA_OK, "%s", fastLastError());
    st = ftl_phase_two(ex, wss);
    CHECK_EQ_INT(st, FIA_ERR_RUNTIME_ERROR);
    CHECK(strncmp(fastLastError(), "R_NO_DATA", 9) == 0);
}

int main(void)
{
    no_data();
    decode_modes();
    prefill_modes();
    shapes_threads();
    paged_padding_lists();
    return check_summary();
}
