/* The reference reads int8 / int4 key and value through the dequantization
 * x = (x_int + offset) * scale (ref/read_antiquant.c,
 * docs/features/antiquant.md): every mode and shape of the table, int8,
 * int4 and int32 packing, combined and separate sets, with and without
 * offset, gives bit for bit the outputs and lse of the same call with fp16
 * / bf16 key and value holding the dequantized values (scales powers of
 * two, small integer offsets: exact in the dtype).  The test's own index
 * mapping of the table is written apart from ref/'s.  Also: int32 packing
 * equals int4; separate wins over combined; per-token scales follow the
 * physical row with kv left padding and the block table's slot with page
 * attention (modes 1, 4, 5); fp32 per-token scale and offset whose products
 * need more than 53 bits agree between the binary64 pass and pure MPFR and
 * with a long double evaluation; inconsistent calls are refused, not
 * crashed on. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/ref.h"
#include "ref_testlib.h"
#include "test_rng.h"

/* ---- the call ------------------------------------------------------------ */

enum form { F_TENSOR, F_CHANNEL, F_TOKEN, F_HEAD, F_TOKEN_HEAD, F_PAGE,
            F_PAGE_HEAD };

typedef struct side {
    enum form form;
    const char *shape;   /* the scale's shape text (its dims below) */
    int64_t numel;       /* elements of one side */
    int64_t cols;        /* S' or block_size */
    double *sc, *off;    /* [numel] */
} side;

typedef struct aq {
    const char *layout, *qdt, *kvdt;
    int64_t B, N, KVN, QS, KVS, D;
    int separate;        /* 0: combined (antiquant_scale, first dim 2) */
    int kmode, vmode;    /* separate modes, or combined antiquant_mode */
    int offset;          /* offsets given */
    side s[2];
    /* page attention: cache (blocknum, bs, KVN*D), table [B][cols] */
    int64_t bs, blocknum, bt_cols;
    int32_t *bt;
    int64_t *kvlen;      /* actual_seq_lengths_kv, or NULL */
    int64_t kvpad;       /* kv_padding_size (< 0: none) */
    int64_t *xk, *xv;    /* integer key / value in physical BNSD order
                            [B][KVN][KVS][D], or cache [blocknum][bs][KVN][D] */
    const char *extra;
} aq;

static int64_t rows(const aq *a)
{
    return a->bs ? a->blocknum * a->bs : a->B * a->KVS;
}

/* The scale element of key (w 0) or value (1) for physical element
 * (b, n, s, d); paged: cache row r = id * bs + slot, logical key j. */
static int64_t elem(const aq *a, int w, int64_t b, int64_t n, int64_t s,
                    int64_t d, int64_t id, int64_t slot)
{
    const side *x = &a->s[w];
    switch (x->form) {
    case F_CHANNEL: return n * a->D + d;
    case F_TOKEN: return b * x->cols + s;
    case F_HEAD: return n;
    case F_TOKEN_HEAD: return (b * a->KVN + n) * x->cols + s;
    case F_PAGE: return id * a->bs + slot;
    case F_PAGE_HEAD: return (id * a->KVN + n) * a->bs + slot;
    default: return 0;
    }
}

/* The dequantized value of element e (flat in xk's order); paged: the
 * cache row's owner batch and logical key. */
static double deq(const aq *a, int w, int64_t e, int64_t owner_b,
                  int64_t logical_j)
{
    const int64_t D = a->D, KVN = a->KVN, d = e % D;
    int64_t b, n, s, id = 0, slot = 0;
    if (a->bs) { /* cache [blocknum][bs][KVN][D] */
        const int64_t r = e / (D * KVN);
        n = (e / D) % KVN;
        id = r / a->bs, slot = r % a->bs;
        b = owner_b, s = logical_j;
    } else {     /* [B][KVN][KVS][D] */
        s = (e / D) % a->KVS;
        n = (e / (D * a->KVS)) % KVN;
        b = e / (KVN * a->KVS * D);
    }
    const int64_t x = elem(a, w, b, n, s, d, id, slot);
    const int64_t *xi = w ? a->xv : a->xk;
    return ((double)xi[e] + (a->offset ? a->s[w].off[x] : 0.0)) *
           a->s[w].sc[x];
}

/* Owner batch and logical key of every cache row (-1: no key). */
static void owners(const aq *a, int64_t *ob, int64_t *oj)
{
    for (int64_t r = 0; r < a->blocknum * a->bs; r++)
        ob[r] = -1, oj[r] = 0;
    for (int64_t b = 0; b < a->B; b++)
        for (int64_t m = 0; m < a->bt_cols; m++)
            for (int64_t o = 0; o < a->bs; o++) {
                int64_t j = m * a->bs + o;
                if (j >= a->kvlen[b])
                    continue;
                int64_t r = a->bt[b * a->bt_cols + m] * a->bs + o;
                ob[r] = b, oj[r] = j;
            }
}

/* A tensor's values line in the layout's order from physical BNSD
 * [B][H][S][D] (or raw order for a cache); int32 packs eight int4. */
static void kv_values(sbuf *sb, const char *name, const aq *a,
                      const double *x, int pack)
{
    const int64_t H = a->KVN, S = a->KVS, D = a->D;
    const int64_t n = a->bs ? a->blocknum * a->bs * H * D : a->B * H * S * D;
    double *flat = malloc((size_t)n * sizeof *flat);
    int bsx = !a->bs && (strcmp(a->layout, "BSH") == 0 ||
                         strcmp(a->layout, "BSND") == 0);
    int64_t t = 0;
    if (!bsx) {
        memcpy(flat, x, (size_t)n * sizeof *flat);
    } else {
        for (int64_t b = 0; b < a->B; b++)
            for (int64_t s = 0; s < S; s++)
                for (int64_t h = 0; h < H; h++)
                    for (int64_t d = 0; d < D; d++)
                        flat[t++] = x[((b * H + h) * S + s) * D + d];
    }
    sb_printf(sb, "%s.values = ", name);
    if (pack > 1) {
        for (int64_t i = 0; i < n / 8; i++) {
            uint32_t w = 0;
            for (int k = 0; k < 8; k++)
                w |= ((uint32_t)(int32_t)flat[8 * i + k] & 0xfu) << (4 * k);
            sb_printf(sb, i ? ", %d" : "%d", (int)(int32_t)w);
        }
    } else {
        for (int64_t i = 0; i < n; i++)
            sb_printf(sb, i ? ", %.17g" : "%.17g", flat[i]);
    }
    sb_printf(sb, "\n");
    free(flat);
}

static void kv_shape(sbuf *sb, const aq *a, int pack)
{
    const int64_t H = a->KVN, D = a->D / pack;
    if (a->bs) {
        sb_printf(sb, "[%lld,%lld,%lld]", (long long)a->blocknum,
                  (long long)a->bs, (long long)(H * a->D / pack));
        return;
    }
    if (strcmp(a->layout, "BSH") == 0)
        sb_printf(sb, "[%lld,%lld,%lld]", (long long)a->B, (long long)a->KVS,
                  (long long)(H * a->D / pack));
    else if (strcmp(a->layout, "BSND") == 0)
        sb_printf(sb, "[%lld,%lld,%lld,%lld]", (long long)a->B,
                  (long long)a->KVS, (long long)H, (long long)D);
    else
        sb_printf(sb, "[%lld,%lld,%lld,%lld]", (long long)a->B, (long long)H,
                  (long long)a->KVS, (long long)D);
}

static void flt_line(sbuf *sb, const char *name, const char *dt,
                     const char *shape, const double *x, int64_t n)
{
    sb_printf(sb, "%s = %s %s\n%s.values = ", name, dt, shape, name);
    for (int64_t i = 0; i < n; i++)
        sb_printf(sb, i ? ", %.17g" : "%.17g", x[i]);
    sb_printf(sb, "\n");
}

/* The scale dtype of a form: per-token fp32, else the query's. */
static const char *sdt(const aq *a, enum form f)
{
    return f == F_TOKEN || f == F_TOKEN_HEAD || f == F_PAGE ||
                   f == F_PAGE_HEAD
               ? "fp32"
               : a->qdt;
}

/* The call's text: quantized (fp 0) or the fp equivalent (fp 1). */
static char *text_of(const aq *a, const double *q, int fp)
{
    sbuf sb = {0};
    const int pack = !fp && strcmp(a->kvdt, "int32") == 0 ? 8 : 1;
    const char *kvdt = fp ? a->qdt : a->kvdt;
    sb_printf(&sb, "input_layout = %s\nnum_heads = %lld\n"
              "num_key_value_heads = %lld\nsoftmax_lse_flag = true\n"
              "scale = 0.3\nquery = %s ", a->layout, (long long)a->N,
              (long long)a->KVN, a->qdt);
    shape_str(&sb, a->layout, a->B, a->N, a->QS, a->D);
    sb_printf(&sb, "\n");
    values_line(&sb, "query", q, a->B, a->N, a->QS, a->D, a->layout);
    const int64_t n = rows(a) * a->KVN * a->D;
    double *x = malloc((size_t)n * sizeof *x);
    int64_t *ob = NULL, *oj = NULL;
    if (a->bs) {
        ob = malloc((size_t)rows(a) * sizeof *ob);
        oj = malloc((size_t)rows(a) * sizeof *oj);
        owners(a, ob, oj);
    }
    for (int w = 0; w < 2; w++) {
        const int64_t *xi = w ? a->xv : a->xk;
        for (int64_t e = 0; e < n; e++) {
            int64_t r = e / (a->KVN * a->D);
            if (!fp)
                x[e] = (double)xi[e];
            else if (a->bs && ob[r] < 0)
                x[e] = 0.0; /* a cache row no key reads */
            else
                x[e] = deq(a, w, e, a->bs ? ob[r] : 0, a->bs ? oj[r] : 0);
        }
        sb_printf(&sb, "%s = %s ", w ? "value" : "key", kvdt);
        kv_shape(&sb, a, pack);
        sb_printf(&sb, "\n");
        kv_values(&sb, w ? "value" : "key", a, x, pack);
    }
    free(x), free(ob), free(oj);
    if (a->bs) {
        sb_printf(&sb, "block_size = %lld\nblock_table = int32 [%lld,%lld]\n"
                  "block_table.values = ", (long long)a->bs, (long long)a->B,
                  (long long)a->bt_cols);
        for (int64_t i = 0; i < a->B * a->bt_cols; i++)
            sb_printf(&sb, i ? ", %d" : "%d", (int)a->bt[i]);
        sb_printf(&sb, "\n");
    }
    if (a->kvlen) {
        sb_printf(&sb, "actual_seq_lengths_kv = [");
        for (int64_t b = 0; b < a->B; b++)
            sb_printf(&sb, b ? ",%lld" : "%lld", (long long)a->kvlen[b]);
        sb_printf(&sb, "]\n");
    }
    if (a->kvpad >= 0)
        sb_printf(&sb, "kv_padding_size = int64 [1]\n"
                  "kv_padding_size.values = %lld\n", (long long)a->kvpad);
    if (!fp && a->separate) {
        static const char *const nm[2] = {"key", "value"};
        sb_printf(&sb, "key_antiquant_mode = %d\nvalue_antiquant_mode = %d\n",
                  a->kmode, a->vmode);
        for (int w = 0; w < 2; w++) {
            char name[64];
            snprintf(name, sizeof name, "%s_antiquant_scale", nm[w]);
            flt_line(&sb, name, sdt(a, a->s[w].form), a->s[w].shape,
                     a->s[w].sc, a->s[w].numel);
            if (a->offset) {
                snprintf(name, sizeof name, "%s_antiquant_offset", nm[w]);
                flt_line(&sb, name, sdt(a, a->s[w].form), a->s[w].shape,
                         a->s[w].off, a->s[w].numel);
            }
        }
    } else if (!fp) {
        const int64_t m = a->s[0].numel;
        double *both = malloc((size_t)(2 * m) * sizeof *both);
        sb_printf(&sb, "antiquant_mode = %d\n", a->kmode);
        for (int o = 0; o < 1 + a->offset; o++) {
            for (int w = 0; w < 2; w++)
                memcpy(both + w * m, o ? a->s[w].off : a->s[w].sc,
                       (size_t)m * sizeof *both);
            flt_line(&sb, o ? "antiquant_offset" : "antiquant_scale",
                     sdt(a, a->s[0].form), a->s[0].shape, both, 2 * m);
        }
        free(both);
    }
    if (a->extra)
        sb_printf(&sb, "%s\n", a->extra);
    return sb.s;
}

/* ---- running and comparing ----------------------------------------------- */

static uint64_t seed = 0x2545F4914F6CDD1Dull;
static int64_t rnd(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(test_xorshift64(&seed) % (uint64_t)(hi - lo + 1));
}

/* Random integers, scales +-2^-k (k 6..9: scores of a few units, so that
 * the bound is finite), offsets in -3..3 (one side). */
static void fill_side(side *s, int offset)
{
    s->sc = malloc((size_t)s->numel * sizeof *s->sc);
    s->off = malloc((size_t)s->numel * sizeof *s->off);
    for (int64_t i = 0; i < s->numel; i++) {
        s->sc[i] = ldexp(rnd(0, 3) ? 1.0 : -1.0, -(int)rnd(6, 9));
        s->off[i] = offset ? (double)rnd(-3, 3) : 0.0;
    }
}

static void fill_ints(aq *a)
{
    const int64_t n = rows(a) * a->KVN * a->D;
    const int i4 = strcmp(a->kvdt, "int8") != 0;
    a->xk = malloc((size_t)n * sizeof *a->xk);
    a->xv = malloc((size_t)n * sizeof *a->xv);
    for (int64_t e = 0; e < n; e++) {
        a->xk[e] = i4 ? rnd(-8, 7) : rnd(-128, 127);
        a->xv[e] = i4 ? rnd(-8, 7) : rnd(-128, 127);
    }
}

static void free_aq(aq *a)
{
    for (int w = 0; w < 2; w++)
        free(a->s[w].sc), free(a->s[w].off);
    free(a->xk), free(a->xv);
}

static int64_t n_checked;

/* The quantized call and its fp equivalent: identical bits.  Returns the
 * quantized run's status. */
static fia_status same_as_fp(const aq *a, const double *q, const char *what)
{
    char *tq = text_of(a, q, 0), *tf = text_of(a, q, 1);
    run x, y;
    run_text(&x, tq, 0);
    run_text(&y, tf, 0);
    CHECK_MSG(x.st == FIA_OK && y.st == FIA_OK, "%s: %d (%s) / %d (%s)",
              what, (int)x.st, x.err.msg, (int)y.st, y.err.msg);
    if (x.st == FIA_OK && y.st == FIA_OK) {
        CHECK_MSG(x.r.out_numel == y.r.out_numel &&
                      ref_same_bits(&x.r.out, &y.r.out, x.r.out_numel, 2),
                  "%s: outputs differ", what);
        CHECK_MSG(ref_same_bits(&x.r.lse, &y.r.lse, x.r.lse_numel, 4),
                  "%s: lse differs", what);
        int finite = 1;
        for (int64_t i = 0; i < x.r.out_numel; i++)
            finite &= x.r.out_unspecified[i] || isfinite(x.r.out_bound[i]);
        CHECK_MSG(finite, "%s: an infinite bound", what);
        n_checked++;
    }
    fia_status st = x.st;
    run_free(&x), run_free(&y);
    free(tq), free(tf);
    return st;
}

/* ---- the table, non-paged ------------------------------------------------ */

typedef struct shape_case {
    int separate, mode;
    enum form form;
    const char *fmt;     /* shape, %1$ = N, D, H, B, S' as listed */
    int qs1;             /* 1: Q_S = 1 only */
} shape_case;

static char shape_buf[2][64];

static const char *shape_text(int w, const shape_case *c, const aq *a,
                              int64_t sp)
{
    const long long N = a->KVN, D = a->D, H = N * D, B = a->B, S = sp;
    char *o = shape_buf[w];
    const char *f = c->fmt;
    if (strcmp(f, "1") == 0) snprintf(o, 64, "[1]");
    else if (strcmp(f, "2") == 0) snprintf(o, 64, "[2]");
    else if (strcmp(f, "LN1D") == 0) snprintf(o, 64, "[%d,%lld,1,%lld]", c->separate ? 1 : 2, N, D);
    else if (strcmp(f, "LND") == 0) snprintf(o, 64, "[%d,%lld,%lld]", c->separate ? 1 : 2, N, D);
    else if (strcmp(f, "LH") == 0) snprintf(o, 64, "[%d,%lld]", c->separate ? 1 : 2, H);
    else if (strcmp(f, "N1D") == 0) snprintf(o, 64, "[%lld,1,%lld]", N, D);
    else if (strcmp(f, "ND") == 0) snprintf(o, 64, "[%lld,%lld]", N, D);
    else if (strcmp(f, "H") == 0) snprintf(o, 64, "[%lld]", H);
    else if (strcmp(f, "LBS") == 0) snprintf(o, 64, "[%d,%lld,%lld]", c->separate ? 1 : 2, B, S);
    else if (strcmp(f, "BS") == 0) snprintf(o, 64, "[%lld,%lld]", B, S);
    else if (strcmp(f, "N") == 0) snprintf(o, 64, "[%lld]", N);
    else if (strcmp(f, "BNS") == 0) snprintf(o, 64, "[%lld,%lld,%lld]", B, N, S);
    return o;
}

static int64_t side_numel(enum form f, const aq *a, int64_t sp)
{
    switch (f) {
    case F_CHANNEL: return a->KVN * a->D;
    case F_TOKEN: return a->B * sp;
    case F_HEAD: return a->KVN;
    case F_TOKEN_HEAD: return a->B * a->KVN * sp;
    default: return 1;
    }
}

static const shape_case table[] = {
    {0, 0, F_TENSOR, "2", 0},   {0, 0, F_CHANNEL, "LN1D", 0},
    {0, 0, F_CHANNEL, "LND", 0}, {0, 0, F_CHANNEL, "LH", 0},
    {0, 1, F_TOKEN, "LBS", 1},
    {1, 0, F_TENSOR, "1", 1},   {1, 0, F_CHANNEL, "LN1D", 0},
    {1, 0, F_CHANNEL, "LND", 0}, {1, 0, F_CHANNEL, "LH", 0},
    {1, 0, F_CHANNEL, "N1D", 0}, {1, 0, F_CHANNEL, "ND", 0},
    {1, 0, F_CHANNEL, "H", 0},
    {1, 1, F_TOKEN, "LBS", 1},  {1, 1, F_TOKEN, "BS", 0},
    {1, 2, F_HEAD, "N", 1},     {1, 3, F_TOKEN_HEAD, "BNS", 1},
};

static void setup(aq *a, const shape_case *kc, const shape_case *vc,
                  int64_t sp)
{
    const shape_case *c[2] = {kc, vc};
    a->separate = kc->separate;
    a->kmode = kc->mode, a->vmode = vc->mode;
    for (int w = 0; w < 2; w++) {
        a->s[w].form = c[w]->form;
        a->s[w].cols = sp;
        a->s[w].numel = side_numel(c[w]->form, a, sp);
        a->s[w].shape = shape_text(w, c[w], a, sp);
        fill_side(&a->s[w], a->offset);
    }
}

static double *query_of(const aq *a)
{
    return rnd_array(a->B * a->N * a->QS * a->D);
}

static void table_cases(void)
{
    static const char *const layouts[] = {"BNSD", "BSND", "BSH"};
    static const char *const kvdts[] = {"int8", "int4", "int32"};
    static const char *const qdts[] = {"fp16", "bf16"};
    int64_t run_no = 0;
    for (size_t t = 0; t < sizeof table / sizeof table[0]; t++)
        for (int l = 0; l < 3; l++)
            for (int k = 0; k < 3; k++)
                for (int off = 0; off < 2; off++, run_no++) {
                    const shape_case *c = &table[t];
                    aq a = {.layout = layouts[l], .qdt = qdts[run_no % 2],
                            .kvdt = kvdts[k], .B = 2, .N = 4, .KVN = 2,
                            .QS = c->qs1 || run_no % 3 ? 1 : 3, .KVS = 5,
                            .D = 16, .offset = off, .kvpad = -1};
                    /* the combined set takes no int4 (ANTI-017): int8 */
                    if (!c->separate)
                        a.kvdt = "int8";
                    const int64_t sp = a.KVS + (int64_t)(run_no % 3);
                    fill_ints(&a);
                    setup(&a, c, c, sp);
                    double *q = query_of(&a);
                    char what[160];
                    snprintf(what, sizeof what, "%s mode %d %s %s %s %s%s",
                             c->separate ? "separate" : "combined", c->mode,
                             c->fmt, a.layout, a.kvdt, a.qdt,
                             off ? " offset" : "");
                    same_as_fp(&a, q, what);
                    free(q);
                    free_aq(&a);
                }
}

/* key 0 (per-channel) + value 1 (per-token), Q_S = 1 */
static void key0_value1(void)
{
    for (int off = 0; off < 2; off++) {
        aq a = {.layout = "BSND", .qdt = "fp16", .kvdt = "int8", .B = 2,
                .N = 2, .KVN = 1, .QS = 1, .KVS = 7, .D = 16, .offset = off,
                .kvpad = -1};
        fill_ints(&a);
        setup(&a, &table[7], &table[12], 9);
        double *q = query_of(&a);
        same_as_fp(&a, q, off ? "key 0 + value 1, offset" : "key 0 + value 1");
        free(q);
        free_aq(&a);
    }
}

/* ---- int32 equals int4; separate wins; symmetric ------------------------ */

static void packing_and_sets(void)
{
    aq a = {.layout = "BSH", .qdt = "fp16", .kvdt = "int4", .B = 1, .N = 2,
            .KVN = 2, .QS = 1, .KVS = 6, .D = 64, .offset = 1, .kvpad = -1};
    fill_ints(&a);
    setup(&a, &table[13], &table[13], 8);
    double *q = query_of(&a);
    char *t4 = text_of(&a, q, 0);
    a.kvdt = "int32";
    char *t32 = text_of(&a, q, 0);
    run x, y;
    run_text(&x, t4, 0);
    run_text(&y, t32, 0);
    CHECK_MSG(x.st == FIA_OK && y.st == FIA_OK, "int4 / int32: %s / %s",
              x.err.msg, y.err.msg);
    if (x.st == FIA_OK && y.st == FIA_OK) {
        CHECK(ref_same_bits(&x.r.out, &y.r.out, x.r.out_numel, 2));
        CHECK(ref_same_bits(&x.r.lse, &y.r.lse, x.r.lse_numel, 4));
        CHECK(memcmp(x.r.out_bound, y.r.out_bound,
                     (size_t)x.r.out_numel * sizeof(double)) == 0);
    }
    run_free(&y);
    /* separate wins: combined tensors (any shape, even inconsistent) and an
     * antiquant_mode beside the separate set change nothing */
    sbuf sb = {0};
    sb_printf(&sb, "%santiquant_scale = fp16 [3]\nantiquant_scale.values = "
              "100,200,300\nantiquant_offset = fp16 [2]\nantiquant_mode = 7\n",
              t32);
    run_text(&y, sb.s, 0);
    CHECK_MSG(y.st == FIA_OK, "separate wins: %s", y.err.msg);
    if (y.st == FIA_OK && x.st == FIA_OK)
        CHECK(ref_same_bits(&x.r.out, &y.r.out, x.r.out_numel, 2));
    run_free(&x), run_free(&y);
    free(sb.s), free(t4), free(t32);
    /* symmetric: no offset line equals an offset of zeros */
    a.offset = 0;
    char *ts = text_of(&a, q, 0);
    for (int w = 0; w < 2; w++)
        memset(a.s[w].off, 0, (size_t)a.s[w].numel * sizeof(double));
    a.offset = 1;
    char *tz = text_of(&a, q, 0);
    run_text(&x, ts, 0);
    run_text(&y, tz, 0);
    CHECK(x.st == FIA_OK && y.st == FIA_OK);
    if (x.st == FIA_OK && y.st == FIA_OK)
        CHECK(ref_same_bits(&x.r.out, &y.r.out, x.r.out_numel, 2));
    run_free(&x), run_free(&y);
    free(ts), free(tz), free(q);
    free_aq(&a);
}

/* ---- per-token with kv left padding, page attention --------------------- */

static void padding_cases(void)
{
    for (int qs = 1; qs <= 4; qs += 3)
        for (int t = 0; t < 2; t++) {
            int64_t lens[2] = {3, 5};
            aq a = {.layout = "BNSD", .qdt = "fp16", .kvdt = "int8", .B = 2,
                    .N = 2, .KVN = 2, .QS = qs, .KVS = 8, .D = 16,
                    .offset = 1, .kvlen = lens, .kvpad = 2};
            fill_ints(&a);
            /* separate per-token (B,S') at Q_S > 1; combined mode 1 and
             * separate 3 at Q_S = 1 */
            const shape_case *c = qs > 1 ? &table[13]
                                         : t ? &table[15] : &table[4];
            setup(&a, c, c, 8);
            double *q = query_of(&a);
            char what[96];
            snprintf(what, sizeof what, "kv left padding Q_S %d %s", qs,
                     c->fmt);
            same_as_fp(&a, q, what);
            free(q);
            free_aq(&a);
        }
}

static void paged_cases(void)
{
    /* (mode, form): 0 per-channel, 1 per-token (logical j), 3 per-token
     * per-head, 4 (blocknum, bs), 5 (blocknum, N, bs) */
    static const struct {
        int mode;
        enum form form;
    } m[] = {{0, F_CHANNEL}, {1, F_TOKEN}, {3, F_TOKEN_HEAD}, {4, F_PAGE},
             {5, F_PAGE_HEAD}};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        for (int off = 0; off < 2; off++) {
            int64_t lens[2] = {11, 6};
            int32_t bt[6] = {4, 0, 2, 5, 1, 3}; /* batch 0: 4,0,2; 1: 5,1 */
            aq a = {.layout = "BSH", .qdt = "fp16", .kvdt = "int8", .B = 2,
                    .N = 2, .KVN = 2, .QS = 1, .KVS = 12, .D = 16,
                    .offset = off, .bs = 4, .blocknum = 6, .bt_cols = 3,
                    .bt = bt, .kvlen = lens, .kvpad = -1,
                    .separate = 1, .kmode = m[i].mode, .vmode = m[i].mode};
            fill_ints(&a);
            const int64_t sp = 12;
            for (int w = 0; w < 2; w++) {
                side *s = &a.s[w];
                s->form = m[i].form;
                s->cols = m[i].form == F_PAGE || m[i].form == F_PAGE_HEAD
                              ? a.bs : sp;
                snprintf(shape_buf[w], 64,
                         m[i].form == F_CHANNEL ? "[1,%lld]"
                         : m[i].form == F_TOKEN ? "[1,2,%lld]"
                         : m[i].form == F_TOKEN_HEAD ? "[2,2,%lld]"
                         : m[i].form == F_PAGE ? "[6,%lld]" : "[6,2,%lld]",
                         (long long)(m[i].form == F_CHANNEL ? 32
                                     : s->cols));
                s->shape = shape_buf[w];
                s->numel = m[i].form == F_CHANNEL ? 32
                           : m[i].form == F_TOKEN ? 2 * sp
                           : m[i].form == F_TOKEN_HEAD ? 4 * sp
                           : m[i].form == F_PAGE ? 6 * 4 : 6 * 2 * 4;
                fill_side(s, off);
            }
            double *q = query_of(&a);
            char what[64];
            snprintf(what, sizeof what, "paged mode %d%s", m[i].mode,
                     off ? " offset" : "");
            same_as_fp(&a, q, what);
            free(q);
            free_aq(&a);
        }
}

/* ---- values beyond 53 bits: fp32 per-token scale and offset ------------- */

static void wide_values(void)
{
    aq a = {.layout = "BNSD", .qdt = "bf16", .kvdt = "int8", .B = 1, .N = 1,
            .KVN = 1, .QS = 1, .KVS = 9, .D = 16, .offset = 1, .kvpad = -1};
    fill_ints(&a);
    setup(&a, &table[12], &table[12], 9);
    for (int w = 0; w < 2; w++)
        for (int64_t i = 0; i < a.s[w].numel; i++) {
            /* 24-bit fp32 values: (x + o) s needs up to ~56 bits */
            a.s[w].sc[i] = (double)(float)(0.01 + 0.1 * (double)rnd(1, 999) /
                                                      999.0 * (i + 1));
            a.s[w].off[i] =
                (double)(float)((double)rnd(-999, 999) / 37.0 / 512.0);
        }
    double *q = query_of(&a);
    snap(q, 16, "bf16"); /* the call's query values */
    char *t = text_of(&a, q, 0);
    run x;
    run_text(&x, t, 0);
    CHECK_MSG(x.st == FIA_OK, "wide: %s", x.err.msg);
    /* pure MPFR decides the same bits */
    fia_ref_result r2;
    fia_error err;
    fia_ref_options o;
    fia_ref_options_default(&o);
    o.pure_mpfr = 1;
    if (x.st == FIA_OK) {
        CHECK(fia_ref_compute(&x.c, &x.d, &o, &r2, &err) == FIA_OK);
        CHECK(ref_same_bits(&x.r.out, &r2.out, x.r.out_numel, 2));
        CHECK(ref_same_bits(&x.r.lse, &r2.lse, x.r.lse_numel, 4));
        fia_ref_result_free(&r2);
        /* long double: within half an ulp of bf16 plus a hair */
        long double s[9], m = -INFINITY, sum = 0;
        int wide = 0;
        for (int64_t j = 0; j < 9; j++) {
            long double dot = 0;
            for (int64_t d = 0; d < 16; d++) {
                long double k = ((long double)a.xk[j * 16 + d] +
                                 (long double)a.s[0].off[j]) *
                                (long double)a.s[0].sc[j];
                double hi = (double)k;
                wide |= (long double)hi != k;
                dot += (long double)q[d] * k;
            }
            s[j] = dot * (long double)0.3;
            m = s[j] > m ? s[j] : m;
        }
        CHECK_MSG(wide, "no dequantized key needs more than 53 bits");
        for (int j = 0; j < 9; j++)
            sum += expl(s[j] - m);
        for (int64_t d = 0; d < 16; d++) {
            long double o2 = 0;
            for (int64_t j = 0; j < 9; j++)
                o2 += expl(s[j] - m) / sum *
                      (((long double)a.xv[j * 16 + d] +
                        (long double)a.s[1].off[j]) *
                       (long double)a.s[1].sc[j]);
            double got = out_val(&x, d);
            CHECK_MSG(fabsl((long double)got - o2) <=
                          fabsl(o2) * 0x1p-8L + 1e-12L,
                      "wide d %lld: %g vs %Lg", (long long)d, got, o2);
        }
    }
    run_free(&x);
    free(t), free(q);
    free_aq(&a);
}

/* ---- refusals ------------------------------------------------------------ */

static void refusals(void)
{
    static const char *base =
        "input_layout = BNSD\nnum_heads = 1\nquery = fp16 [1,1,1,16]\n"
        "key = int8 [1,1,4,16]\nvalue = int8 [1,1,4,16]\n";
    static const struct {
        const char *extra;
        fia_status want;
        const char *needle;
    } c[] = {
        {"key_antiquant_scale = fp16 [1]", FIA_ERR_PARAM_INVALID, "together"},
        {"key_antiquant_scale = fp16 [3]\nvalue_antiquant_scale = fp16 [3]",
         FIA_ERR_PARAM_INVALID, "shape"},
        {"key_antiquant_scale = fp32 [1,1,3]\nvalue_antiquant_scale = fp32 "
         "[1,1,3]\nkey_antiquant_mode = 1\nvalue_antiquant_mode = 1",
         FIA_ERR_PARAM_INVALID, "S'"},
        {"key_antiquant_scale = fp32 [2,4]\nvalue_antiquant_scale = fp32 "
         "[2,4]\nkey_antiquant_mode = 4\nvalue_antiquant_mode = 4",
         FIA_ERR_PARAM_INVALID, "page attention"},
        {"key_antiquant_scale = fp16 [1]\nvalue_antiquant_scale = fp16 [1]\n"
         "key_antiquant_offset = fp16 [16]\nvalue_antiquant_offset = fp16 "
         "[16]", FIA_ERR_PARAM_INVALID, "offset shape"},
        {"key_antiquant_scale = fp16 [1]\nvalue_antiquant_scale = fp16 [1]\n"
         "key_antiquant_mode = 9\nvalue_antiquant_mode = 9",
         FIA_ERR_PARAM_INVALID, "0..5"},
        {"key_antiquant_scale = fp16 [1]\nvalue_antiquant_scale = fp16 [1]\n"
         "value_antiquant_mode = 2", FIA_ERR_PARAM_INVALID, "mode"},
        {"antiquant_offset = fp16 [2]", FIA_ERR_PARAM_INVALID, "without"},
        {"antiquant_scale = fp16 [2]\nantiquant_mode = 3",
         FIA_ERR_PARAM_INVALID, "antiquant_mode"},
        {"antiquant_scale = fp16 [2]\nantiquant_offset = fp16 [2,16]",
         FIA_ERR_PARAM_INVALID, "offset shape"},
        {"antiquant_scale = int8 [2]", FIA_ERR_PARAM_INVALID, "dtype"},
        {"antiquant_scale = fp16 [2]\nkey_shared_prefix = int8 [1,1,2,16]\n"
         "value_shared_prefix = int8 [1,1,2,16]", FIA_ERR_NOT_MODELED,
         "prefix"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        sbuf sb = {0};
        sb_printf(&sb, "%s%s\n", base, c[i].extra);
        run x;
        run_text(&x, sb.s, 0);
        CHECK_MSG(x.st == c[i].want && strstr(x.err.msg, c[i].needle),
                  "refusal %zu: %d '%s'", i, (int)x.st, x.err.msg);
        CHECK(x.r.out.data == NULL);
        run_free(&x);
        free(sb.s);
    }
    /* fp16 key/value with antiquant parameters, or a mode: not modeled */
    static const char *fp[] = {"antiquant_scale = fp16 [2]",
                               "key_antiquant_mode = 1"};
    for (int i = 0; i < 2; i++) {
        char text[512];
        snprintf(text, sizeof text, "input_layout = BNSD\nnum_heads = 1\n"
                 "query = fp16 [1,1,1,16]\nkey = fp16 [1,1,4,16]\n"
                 "value = fp16 [1,1,4,16]\n%s\n", fp[i]);
        run x;
        run_text(&x, text, 0);
        CHECK_EQ_INT(x.st, FIA_ERR_NOT_MODELED);
        run_free(&x);
    }
    /* a per-token mode with a key/value list: not modeled */
    run x;
    run_text(&x, "input_layout = BSH\nnum_heads = 1\nquery = fp16 [2,1,16]\n"
                 "key = int8 [1,3,16]; int8 [1,4,16]\n"
                 "value = int8 [1,3,16]; int8 [1,4,16]\n"
                 "key_antiquant_scale = fp32 [1,2,4]\n"
                 "value_antiquant_scale = fp32 [1,2,4]\n"
                 "key_antiquant_mode = 1\nvalue_antiquant_mode = 1\n", 0);
    CHECK_EQ_INT(x.st, FIA_ERR_NOT_MODELED);
    run_free(&x);
    /* per-channel with a list: read */
    run_text(&x, "input_layout = BSH\nnum_heads = 1\nquery = fp16 [2,1,16]\n"
                 "key = int8 [1,3,16]; int8 [1,4,16]\n"
                 "value = int8 [1,3,16]; int8 [1,4,16]\n"
                 "key_antiquant_scale = fp16 [16]\n"
                 "value_antiquant_scale = fp16 [16]\n", 0);
    CHECK_MSG(x.st == FIA_OK, "list per-channel: %s", x.err.msg);
    run_free(&x);
}

int main(void)
{
    table_cases();
    key0_value1();
    packing_and_sets();
    padding_cases();
    paged_cases();
    wide_values();
    refusals();
    printf("%lld antiquant calls equal their fp16/bf16 equivalents bit for "
           "bit\n", (long long)n_checked);
    return check_summary();
}
