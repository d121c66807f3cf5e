/* The reference reads MLA full quantization (ref/read_query_quant.c): int8
 * query, key and value dequantized as q_int8 * dequant_scale_query[token,
 * head], k_int8 * dsk, v_int8 * dsv, bf16 ropes, bf16 output.
 *
 *  1. Twin: with power-of-two scales every dequantized value is a bf16
 *     number, so the call equals, bit for bit (outputs and exact values),
 *     the bf16 MLA call of the dequantized values; its bounds are no
 *     smaller (the dequantization's float32 roundings).  BSH, BSND, BNSD
 *     (each its own dequant_scale_query order), Q_S 1 and > 1, the ND cache
 *     and the int8 NZ cache [blockNum, 1, D/32, block_size, 32].
 *  2. Scale invariance (zero rope): dequant_scale_query x 2 and
 *     dequant_scale_key x 2 each equal softmax scale x 2; dequant_scale_value
 *     x 2 doubles every output; with a nonzero rope the first is false.
 *  3. A hand-computed call of two keys.
 *  4. float32 kernels (dequantize first; or integer dot, then the scales),
 *     P rounded to bf16, stay within the bound.
 *  5. Refusals: 002's scales beside it (not modeled), a wrong
 *     dequant_scale_query shape, fp16 ropes, an int8 NZ cache outside
 *     full quantization; a subnormal scale leaves the bounds infinite. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/ref.h"
#include "ref_testlib.h"

#define C2(s) s s
#define C4(s) C2(C2(s))

/* KV_N 1; logical arrays: qi [B][N][QS][D], qr [B][N][QS][Dr], dsq
 * [B][QS][N], ki / vi [B][KVS][D], kr [B][KVS][Dr]. */
typedef struct query_quant_case {
    const char *layout;
    int64_t B, N, QS, KVS, D, Dr, bs;
    int nz;
    int64_t kv_len[2];
    double scale;
    double *qi, *qr, *dsq, *ki, *vi, *kr;
    double dsk, dsv;
} query_quant_case;

static int bnsd(const query_quant_case *g)
{
    return strcmp(g->layout, "BNSD") == 0;
}

static int64_t qphys(const query_quant_case *g, int64_t b, int64_t n, int64_t s,
                     int64_t d, int64_t W)
{
    return bnsd(g) ? ((b * g->N + n) * g->QS + s) * W + d
                   : ((b * g->QS + s) * g->N + n) * W + d;
}

static void qshape(char *buf, size_t n, const query_quant_case *g, int64_t W)
{
    if (strcmp(g->layout, "BSH") == 0)
        snprintf(buf, n, "[%lld,%lld,%lld]", (long long)g->B,
                 (long long)g->QS, (long long)(g->N * W));
    else if (bnsd(g))
        snprintf(buf, n, "[%lld,%lld,%lld,%lld]", (long long)g->B,
                 (long long)g->N, (long long)g->QS, (long long)W);
    else
        snprintf(buf, n, "[%lld,%lld,%lld,%lld]", (long long)g->B,
                 (long long)g->QS, (long long)g->N, (long long)W);
}

static int64_t nblocks(const query_quant_case *g, int64_t b)
{
    return (g->kv_len[b] + g->bs - 1) / g->bs;
}

/* Cache element (block id, row o, column d) of head dim W; NZ tiles t. */
static int64_t cidx(const query_quant_case *g, int64_t id, int64_t o,
                    int64_t d, int64_t W, int64_t t)
{
    if (g->nz)
        return ((id * (W / t) + d / t) * g->bs + o) * t + d % t;
    return (id * g->bs + o) * W + d;
}

static void cshape(char *buf, size_t n, const query_quant_case *g,
                   int64_t nb, int64_t W, int64_t t)
{
    if (g->nz)
        snprintf(buf, n, "[%lld,1,%lld,%lld,%lld]", (long long)nb,
                 (long long)(W / t), (long long)g->bs, (long long)t);
    else
        snprintf(buf, n, "[%lld,%lld,%lld]", (long long)nb, (long long)g->bs,
                 (long long)W);
}

static void emit(sbuf *sb, const char *name, const char *dt, const char *shp,
                 const double *x, int64_t n)
{
    sb_printf(sb, "%s = %s %s\n%s.values = ", name, dt, shp, name);
    for (int64_t i = 0; i < n; i++)
        sb_printf(sb, i ? ",%.17g" : "%.17g", x[i]);
    sb_printf(sb, "\n");
}

/* text with the lines of `over` (one "name = ..." line) in place of its
 * own "name = ..." and "name.values = ..." lines. */
static char *override(char *text, const char *over)
{
    char name[64];
    size_t n = strcspn(over, " =");
    snprintf(name, sizeof name, "%.*s", (int)n, over);
    sbuf out = {0};
    for (char *line = text; *line;) {
        char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const int drop = strncmp(line, name, n) == 0 &&
                         (line[n] == ' ' || strncmp(line + n, ".values", 7) == 0);
        if (!drop)
            sb_printf(&out, "%.*s\n", (int)len, line);
        line += len + (end ? 1 : 0);
    }
    sb_printf(&out, "%s\n", over);
    free(text);
    return out.s;
}

/* The call as text: full quantization (twin 0) or the bf16 MLA call of the
 * dequantized values (twin 1); `over` appended last. */
static char *text(const query_quant_case *g, int twin, const char *over)
{
    const int64_t B = g->B, N = g->N, QS = g->QS, D = g->D, Dr = g->Dr;
    const char *dt = twin ? "bf16" : "int8";
    const int64_t t = twin ? 16 : 32; /* NZ tile of key / value */
    sbuf sb = {0};
    char s[96];
    sb_printf(&sb, "input_layout = %s\nnum_heads = %lld\n"
                   "num_key_value_heads = 1\nscale = %.17g\n",
              g->layout, (long long)N, g->scale);
    if (QS > 1)
        sb_printf(&sb, "sparse_mode = 3\natten_mask = bool [2048,2048]\n");
    double *q = calloc((size_t)(B * N * QS * D), sizeof *q);
    double *qr = calloc((size_t)(B * N * QS * Dr), sizeof *qr);
    double *ds = calloc((size_t)(B * N * QS), sizeof *ds);
    for (int64_t b = 0; b < B; b++)
        for (int64_t n = 0; n < N; n++)
            for (int64_t i = 0; i < QS; i++) {
                const double sc = g->dsq[(b * QS + i) * N + n];
                ds[bnsd(g) ? (b * N + n) * QS + i : (b * QS + i) * N + n] = sc;
                for (int64_t d = 0; d < D; d++)
                    q[qphys(g, b, n, i, d, D)] =
                        g->qi[((b * N + n) * QS + i) * D + d] *
                        (twin ? sc : 1.0);
                for (int64_t d = 0; d < Dr; d++)
                    qr[qphys(g, b, n, i, d, Dr)] =
                        g->qr[((b * N + n) * QS + i) * Dr + d];
            }
    qshape(s, sizeof s, g, D);
    emit(&sb, "query", dt, s, q, B * N * QS * D);
    sb_printf(&sb, "attention_out = bf16 %s\n", s);
    qshape(s, sizeof s, g, Dr);
    emit(&sb, "query_rope", "bf16", s, qr, B * N * QS * Dr);
    /* the cache: batch b's blocks after batch b-1's, one spare */
    int64_t nb = 1, cols = 0;
    for (int64_t b = 0; b < B; b++) {
        nb += nblocks(g, b);
        cols = nblocks(g, b) > cols ? nblocks(g, b) : cols;
    }
    double *ck = calloc((size_t)(nb * g->bs * D), sizeof *ck);
    double *cv = calloc((size_t)(nb * g->bs * D), sizeof *cv);
    double *ckr = calloc((size_t)(nb * g->bs * Dr), sizeof *ckr);
    sb_printf(&sb, "block_size = %lld\nblock_table = int32 [%lld,%lld]\n"
                   "block_table.values = ",
              (long long)g->bs, (long long)B, (long long)cols);
    int64_t first = 0;
    for (int64_t b = 0; b < B; b++) {
        for (int64_t c = 0; c < cols; c++) {
            /* the blocks in reverse order: ids nb-2-first-c */
            const int64_t id = c < nblocks(g, b) ? nb - 2 - (first + c)
                                                 : nb - 1;
            sb_printf(&sb, b + c ? ",%lld" : "%lld", (long long)id);
            for (int64_t o = 0; c < nblocks(g, b) && o < g->bs; o++) {
                const int64_t j = c * g->bs + o;
                if (j >= g->kv_len[b])
                    break;
                for (int64_t d = 0; d < D; d++) {
                    const int64_t e = (b * g->KVS + j) * D + d;
                    ck[cidx(g, id, o, d, D, t)] =
                        g->ki[e] * (twin ? g->dsk : 1.0);
                    cv[cidx(g, id, o, d, D, t)] =
                        g->vi[e] * (twin ? g->dsv : 1.0);
                }
                for (int64_t d = 0; d < Dr; d++)
                    ckr[cidx(g, id, o, d, Dr, 16)] =
                        g->kr[(b * g->KVS + j) * Dr + d];
            }
        }
        first += nblocks(g, b);
    }
    sb_printf(&sb, "\nactual_seq_lengths_kv = [%lld", (long long)g->kv_len[0]);
    for (int64_t b = 1; b < B; b++)
        sb_printf(&sb, ",%lld", (long long)g->kv_len[b]);
    sb_printf(&sb, "]\n");
    cshape(s, sizeof s, g, nb, D, t);
    emit(&sb, "key", dt, s, ck, nb * g->bs * D);
    emit(&sb, "value", dt, s, cv, nb * g->bs * D);
    cshape(s, sizeof s, g, nb, Dr, 16);
    emit(&sb, "key_rope", "bf16", s, ckr, nb * g->bs * Dr);
    if (!twin) {
        snprintf(s, sizeof s, bnsd(g) ? "[%lld,%lld,%lld]" : "[%lld,%lld,%lld]",
                 (long long)B, (long long)(bnsd(g) ? N : QS),
                 (long long)(bnsd(g) ? QS : N));
        emit(&sb, "dequant_scale_query", "fp32", s, ds, B * N * QS);
        sb_printf(&sb, "query_quant_mode = 3\nkey_antiquant_scale = fp32 [1]\n"
                       "key_antiquant_scale.values = %.17g\n"
                       "value_antiquant_scale = fp32 [1]\n"
                       "value_antiquant_scale.values = %.17g\n",
                  g->dsk, g->dsv);
    }
    free(q), free(qr), free(ds), free(ck), free(cv), free(ckr);
    return over ? override(sb.s, over) : sb.s;
}

static double rint8(void) { return (double)((int64_t)(rng() % 255) - 127); }

/* Random data; pow2: power-of-two query scales (bf16-exact products). */
static void fill(query_quant_case *g, int pow2, double rope)
{
    const int64_t B = g->B, N = g->N, QS = g->QS, D = g->D, Dr = g->Dr;
    g->qi = malloc((size_t)(B * N * QS * D) * sizeof(double));
    g->qr = malloc((size_t)(B * N * QS * Dr + 1) * sizeof(double));
    g->dsq = malloc((size_t)(B * N * QS) * sizeof(double));
    g->ki = malloc((size_t)(B * g->KVS * D) * sizeof(double));
    g->vi = malloc((size_t)(B * g->KVS * D) * sizeof(double));
    g->kr = malloc((size_t)(B * g->KVS * Dr + 1) * sizeof(double));
    for (int64_t i = 0; i < B * N * QS * D; i++)
        g->qi[i] = rint8();
    for (int64_t i = 0; i < B * N * QS * Dr; i++)
        g->qr[i] = rope * rnd_val();
    for (int64_t i = 0; i < B * N * QS; i++)
        g->dsq[i] = pow2 ? ldexp(1.0, -(int)(4 + i % 3))
                         : (double)(float)(0.015625 + 0.109375 *
                                           (double)(rng() % 1000) / 1000.0);
    for (int64_t i = 0; i < B * g->KVS * D; i++)
        g->ki[i] = rint8(), g->vi[i] = rint8();
    for (int64_t i = 0; i < B * g->KVS * Dr; i++)
        g->kr[i] = rope * rnd_val();
    g->dsk = pow2 ? 0x1p-6 : (double)(float)0.0123;
    g->dsv = pow2 ? 0x1p-5 : (double)(float)0.0371;
}

static void unfill(query_quant_case *g)
{
    free(g->qi), free(g->qr), free(g->dsq), free(g->ki), free(g->vi);
    free(g->kr);
}

static int same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Runs a and b agree bit for bit; bounds: a's >= b's (ge) or equal. */
static void agree(const run *a, const run *b, int ge, double factor,
                  const char *what)
{
    CHECK_MSG(a->st == FIA_OK && b->st == FIA_OK, "%s: %d %d %s / %s", what,
              (int)a->st, (int)b->st, a->err.msg, b->err.msg);
    if (a->st != FIA_OK || b->st != FIA_OK)
        return;
    CHECK(a->r.out_numel == b->r.out_numel && a->r.out_numel > 0);
    int bad = 0, spec = 0;
    for (int64_t i = 0; i < a->r.out_numel && i < b->r.out_numel; i++) {
        if (a->r.out_unspecified[i] || b->r.out_unspecified[i]) {
            bad += a->r.out_unspecified[i] != b->r.out_unspecified[i];
            continue;
        }
        spec++;
        if (factor == 1.0)
            bad += out_bits(a, i) != out_bits(b, i);
        else /* bf16 rounding commutes with x 2 away from the range ends */
            bad += !same(out_val(a, i), factor * out_val(b, i));
        bad += !same(a->r.out_exact[i], factor * b->r.out_exact[i]);
        bad += ge ? !(a->r.out_bound[i] >= b->r.out_bound[i])
                  : !(isfinite(a->r.out_bound[i]) &&
                      isfinite(b->r.out_bound[i]));
    }
    CHECK_MSG(spec > 0, "%s: nothing specified", what);
    CHECK_MSG(bad == 0, "%s: %d differences", what, bad);
}

/* ---- 1. twin --------------------------------------------------------- */

static void twin_case(const char *layout, int64_t QS, int nz, int64_t bs,
                      int64_t B, int64_t l0, int64_t l1)
{
    query_quant_case g = {layout, B, 2, QS, nz ? 256 : 48, 64, 16, bs, nz,
            {l0, l1}, 0.0625, NULL, NULL, NULL, NULL, NULL, NULL, 0.0, 0.0};
    fill(&g, 1, 1.0);
    char *a = text(&g, 0, NULL), *b = text(&g, 1, NULL);
    run x, y;
    run_text(&x, a, 0);
    run_text(&y, b, 0);
    char what[96];
    snprintf(what, sizeof what, "twin %s Q_S %lld %s bs %lld", layout,
             (long long)QS, nz ? "NZ" : "ND", (long long)bs);
    agree(&x, &y, 1, 1.0, what);
    run_free(&x), run_free(&y);
    free(a), free(b);
    unfill(&g);
}

static void test_twin(void)
{
    twin_case("BSH", 1, 0, 16, 2, 40, 7);
    twin_case("BSND", 3, 0, 16, 2, 33, 20);
    twin_case("BNSD", 2, 0, 16, 1, 45, 0);
    twin_case("BSH", 4, 1, 128, 2, 150, 7);
    twin_case("BSND", 1, 1, 128, 1, 200, 0);
}

/* ---- 2. scale invariance ---------------------------------------------- */

static void test_invariance(void)
{
    query_quant_case g = {"BSND", 2, 2, 2, 48, 64, 16, 16, 0, {40, 17}, 0.0625, NULL, NULL, NULL, NULL, NULL, NULL, 0.0, 0.0};
    fill(&g, 0, 0.0); /* zero rope */
    char *base = text(&g, 0, NULL);
    run x;
    run_text(&x, base, 0);
    /* dsq x 2 == scale x 2 */
    for (int64_t i = 0; i < g.B * g.N * g.QS; i++)
        g.dsq[i] *= 2.0;
    char *a = text(&g, 0, NULL);
    for (int64_t i = 0; i < g.B * g.N * g.QS; i++)
        g.dsq[i] /= 2.0;
    g.scale *= 2.0;
    char *b = text(&g, 0, NULL);
    g.dsk *= 2.0, g.scale /= 2.0;
    char *c = text(&g, 0, NULL);
    g.dsk /= 2.0, g.dsv *= 2.0;
    char *e = text(&g, 0, NULL);
    g.dsv /= 2.0;
    run ra, rb, rc, re;
    run_text(&ra, a, 0), run_text(&rb, b, 0), run_text(&rc, c, 0);
    run_text(&re, e, 0);
    agree(&ra, &rb, 0, 1.0, "dequant_scale_query x 2 == scale x 2");
    agree(&rc, &rb, 0, 1.0, "dequant_scale_key x 2 == scale x 2");
    agree(&re, &x, 0, 2.0, "dequant_scale_value x 2 doubles the output");
    /* the first changes the output: the relation is not vacuous */
    int differ = 0;
    for (int64_t i = 0; x.st == FIA_OK && ra.st == FIA_OK &&
                        i < x.r.out_numel; i++)
        differ += x.r.out_exact[i] != ra.r.out_exact[i];
    CHECK_MSG(differ > 0, "dsq x 2 changes nothing");
    run_free(&ra), run_free(&rb), run_free(&rc), run_free(&re);
    free(a), free(b), free(c), free(e);
    /* with a rope, dsq x 2 is not scale x 2 */
    for (int64_t i = 0; i < g.B * g.N * g.QS * g.Dr; i++)
        g.qr[i] = 1.0;
    for (int64_t i = 0; i < g.B * g.KVS * g.Dr; i++)
        g.kr[i] = rnd_val();
    for (int64_t i = 0; i < g.B * g.N * g.QS; i++)
        g.dsq[i] *= 2.0;
    a = text(&g, 0, NULL);
    for (int64_t i = 0; i < g.B * g.N * g.QS; i++)
        g.dsq[i] /= 2.0;
    g.scale *= 2.0;
    b = text(&g, 0, NULL);
    run_text(&ra, a, 0), run_text(&rb, b, 0);
    differ = 0;
    for (int64_t i = 0; ra.st == FIA_OK && rb.st == FIA_OK &&
                        i < ra.r.out_numel; i++)
        differ += ra.r.out_exact[i] != rb.r.out_exact[i];
    CHECK_MSG(differ > 0, "with a rope dsq x 2 still equals scale x 2");
    run_free(&ra), run_free(&rb), run_free(&x);
    free(a), free(b), free(base);
    unfill(&g);
}

/* ---- 3. by hand --------------------------------------------------------- */

static void test_hand(void)
{
    /* one row, D 2, Dr 1, two keys: q = [1, 2] * 0.5 = [0.5, 1], k = [2,
     * 0], [0, 2] * 0.25, rope 2 . [0.5, -0.25]: scores (0.25 + 1, 0.5 -
     * 0.5) = (1.25, 0); v = [4, -4], [0, 8] * 0.125 = [0.5, -0.5], [0, 1];
     * p = 1 / (1 + e^-1.25): o = (0.5 p, -0.5 p + (1 - p)) */
    const char *t =
        "input_layout = BNSD\nnum_heads = 1\nnum_key_value_heads = 1\n"
        "query = int8 [1,1,1,2]\nquery.values = 1,2\n"
        "attention_out = bf16 [1,1,1,2]\n"
        "query_rope = bf16 [1,1,1,1]\nquery_rope.values = 2\n"
        "key = int8 [1,16,2]\nkey.values = 2,0,0,2" C4(",0,0,0,0,0,0,0")
        "\nvalue = int8 [1,16,2]\nvalue.values = 4,-4,0,8"
        C4(",0,0,0,0,0,0,0") "\n"
        "key_rope = bf16 [1,16,1]\nkey_rope.values = 0.5,-0.25"
        C2(",0,0,0,0,0,0,0") "\n"
        "block_size = 16\nblock_table = int32 [1,1]\nblock_table.values = 0\n"
        "actual_seq_lengths_kv = [2]\n"
        "dequant_scale_query = fp32 [1,1,1]\ndequant_scale_query.values = 0.5\n"
        "key_antiquant_scale = fp32 [1]\nkey_antiquant_scale.values = 0.25\n"
        "value_antiquant_scale = fp32 [1]\n"
        "value_antiquant_scale.values = 0.125\nquery_quant_mode = 3\n";
    run x;
    run_text(&x, t, 0);
    CHECK_MSG(x.st == FIA_OK, "hand: %d %s", (int)x.st, x.err.msg);
    if (x.st == FIA_OK) {
        const double p = 1.0 / (1.0 + exp(-1.25));
        const double o[2] = {0.5 * p, 1.0 - 1.5 * p};
        for (int d = 0; d < 2; d++) {
            CHECK_MSG(fabs(x.r.out_exact[d] - o[d]) <= 1e-15,
                      "hand: o[%d] %.17g want %.17g", d, x.r.out_exact[d],
                      o[d]);
            CHECK(out_bits(&x, d) ==
                  (uint16_t)ref_round_double_bits(o[d], REF_FMT_BF16));
        }
    }
    run_free(&x);
}

/* ---- 4. float32 kernels within the bound -------------------------------- */

/* Row (b, n, i) of g by a float32 kernel: form 0 dequantizes first, form 1
 * sums the int8 products exactly then multiplies by the scales; P rounded
 * to bf16 before P.V; into o[D]. */
static void kernel(const query_quant_case *g, int form, int64_t b,
                   int64_t n, int64_t i, double *o)
{
    const int64_t D = g->D, Dr = g->Dr, L = g->kv_len[b];
    const float sq = (float)g->dsq[(b * g->QS + i) * g->N + n];
    const float sk = (float)g->dsk, sv = (float)g->dsv;
    const double *qi = g->qi + ((b * g->N + n) * g->QS + i) * D;
    const double *qr = g->qr + ((b * g->N + n) * g->QS + i) * Dr;
    float s[256], m = -INFINITY;
    const int64_t last = g->QS > 1 ? L - g->QS + i : L - 1; /* causal */
    for (int64_t j = 0; j <= last; j++) {
        const double *ki = g->ki + (b * g->KVS + j) * D;
        const double *kr = g->kr + (b * g->KVS + j) * Dr;
        float acc = 0.0f;
        if (form == 0) {
            for (int64_t d = 0; d < D; d++)
                acc += ((float)qi[d] * sq) * ((float)ki[d] * sk);
        } else {
            int32_t I = 0;
            for (int64_t d = 0; d < D; d++)
                I += (int32_t)qi[d] * (int32_t)ki[d];
            acc = ((float)I * sk) * sq;
        }
        for (int64_t d = 0; d < Dr; d++)
            acc += (float)qr[d] * (float)kr[d];
        s[j] = acc * (float)g->scale;
        m = s[j] > m ? s[j] : m;
    }
    float den = 0.0f, num[64] = {0};
    for (int64_t j = 0; j <= last; j++) {
        const float p = expf(s[j] - m);
        den += p;
        const float pb = (float)fia_bf16_to_double(
            (uint16_t)ref_round_double_bits(p, REF_FMT_BF16));
        for (int64_t d = 0; d < D; d++)
            num[d] += pb * ((float)g->vi[(b * g->KVS + j) * D + d] * sv);
    }
    for (int64_t d = 0; d < D; d++)
        o[d] = (double)(num[d] / den);
}

static void test_bound(void)
{
    query_quant_case g = {"BNSD", 1, 2, 3, 200, 64, 16, 16, 0, {200, 0}, 0.0625, NULL, NULL, NULL, NULL, NULL, NULL, 0.0, 0.0};
    fill(&g, 0, 1.0);
    char *t = text(&g, 0, NULL);
    run x;
    run_text(&x, t, 0);
    CHECK_MSG(x.st == FIA_OK, "bound: %d %s", (int)x.st, x.err.msg);
    double worst = 0.0;
    int over = 0, inf = 0;
    for (int form = 0; form < 2 && x.st == FIA_OK; form++)
        for (int64_t n = 0; n < g.N; n++)
            for (int64_t i = 0; i < g.QS; i++) {
                double o[64];
                kernel(&g, form, 0, n, i, o);
                for (int64_t d = 0; d < g.D; d++) {
                    const int64_t e = ((int64_t)n * g.QS + i) * g.D + d;
                    const double err = fabs(o[d] - x.r.out_exact[e]);
                    const double bd = x.r.out_bound[e];
                    inf += !isfinite(bd);
                    over += !(err <= bd);
                    worst = err / bd > worst ? err / bd : worst;
                }
            }
    CHECK_MSG(inf == 0 && over == 0, "bound: %d infinite, %d over (worst "
              "ratio %g)", inf, over, worst);
    /* the bound is not vacuous: the bf16 P rounding reaches a share of it */
    CHECK_MSG(worst > 0.01, "bound: worst error only %g of the bound", worst);
    run_free(&x);
    free(t);
    unfill(&g);
}

/* ---- 5. refusals -------------------------------------------------------- */

static void test_refusals(void)
{
    query_quant_case g = {"BSH", 1, 2, 1, 16, 64, 16, 16, 0, {9, 0}, 0.0625, NULL, NULL, NULL, NULL, NULL, NULL, 0.0, 0.0};
    fill(&g, 0, 1.0);
    static const struct {
        const char *over;
        fia_status st;
        const char *needle;
    } tab[] = {
        {"dequant_scale1 = fp32 [1]", FIA_ERR_NOT_MODELED, "dequant_scale1"},
        {"dequant_scale_query = fp32 [1,2,1]", FIA_ERR_PARAM_INVALID,
         "dequant_scale_query"},
        {"query_quant_mode = 0", FIA_ERR_PARAM_INVALID, "query_quant_mode"},
        {"key_antiquant_offset = fp32 [1]", FIA_ERR_PARAM_INVALID,
         "key_antiquant_offset"},
        {"query_rope = fp16 [1,1,32]", FIA_ERR_PARAM_INVALID, "bf16 ropes"},
        {"attention_out = fp16 [1,1,128]", FIA_ERR_NOT_MODELED,
         "attention_out"},
        {"value_antiquant_scale = fp32 [2]", FIA_ERR_PARAM_INVALID,
         "value_antiquant_scale"},
    };
    for (size_t k = 0; k < sizeof tab / sizeof tab[0]; k++) {
        char *t = text(&g, 0, tab[k].over);
        run x;
        run_text(&x, t, 0);
        CHECK_MSG(x.st == tab[k].st && strstr(x.err.msg, tab[k].needle),
                  "refusal '%s': %d %s", tab[k].over, (int)x.st, x.err.msg);
        run_free(&x);
        free(t);
    }
    /* an int8 NZ cache beside an fp16 query: not modeled */
    run y;
    run_text(&y, "input_layout = BSH\nnum_heads = 2\nnum_key_value_heads = 1\n"
                 "query = fp16 [1,1,128]\nkey = int8 [1,1,2,16,32]\n"
                 "value = int8 [1,1,2,16,32]\nblock_size = 16\n"
                 "block_table = int32 [1,1]\nactual_seq_lengths_kv = [9]\n"
                 "key_antiquant_scale = fp16 [1]\n"
                 "value_antiquant_scale = fp16 [1]\n", 0);
    CHECK_MSG(y.st == FIA_ERR_NOT_MODELED, "int8 NZ outside: %d %s",
              (int)y.st, y.err.msg);
    run_free(&y);
    /* a subnormal key scale: computed, no bound */
    g.dsk = 0x1p-140;
    char *t = text(&g, 0, NULL);
    run z;
    run_text(&z, t, 0);
    int finite = 0;
    for (int64_t i = 0; z.st == FIA_OK && i < z.r.out_numel; i++)
        finite += !z.r.out_unspecified[i] && isfinite(z.r.out_bound[i]);
    CHECK_MSG(z.st == FIA_OK && finite == 0, "subnormal scale: %d, %d "
              "finite bounds", (int)z.st, finite);
    run_free(&z);
    free(t);
    unfill(&g);
}

int main(void)
{
    test_twin();
    test_invariance();
    test_hand();
    test_bound();
    test_refusals();
    return check_summary();
}
