/* The reference computes 004's learnable_sink with MLA (ref/read_sink.c,
 * docs/features/sink.md): query head n's rows get one virtual key of score
 * sink[n] (not scaled) over MLA's scores (q.k + q_rope.k_rope) * scale,
 * in every MLA scene: D 512 (paged ND caches of rank 3 and 4, the NZ cache,
 * an *_NBSD output, decode and Q_S 4 sparse 3), D 128 (TND, NTD_TND) and
 * MLA's full quantization (ND and int8 NZ caches).  (The reference computes
 * lse in every scene, which the oracle refuses at D 512, MLA-X01: the
 * relations below read it.)
 *
 *  1. Against the call without the sink, row by row: with l the row's lse
 *     without it, the sink's weight is e^(sink - l) against the row's keys
 *     together, so exactly
 *       o_sink = o / (1 + e^(sink_n - l)),  lse_sink = log(e^l + e^sink_n);
 *     every output and lse of every scene (exact values within 1e-12 of
 *     the row's largest output, 1e-13 of lse), the sinks spread around the
 *     rows' lse.  A sink of -inf gives the call without it bit for bit
 *     (outputs, exact values, lse), one of -1e4 (bf16 -9984) the same bits
 *     with bounds no smaller; one of 200 (far above every score) outputs
 *     below 1e-20 and lse = the sink.  The pure-MPFR path gives the same bits (D 128, full
 *     quantization).
 *  2. A D 512 row computed by hand (long double): paged BSH decode, 32
 *     heads, q.k = 1 for every key, ropes and values chosen per key and
 *     head, a sink per head.
 *  3. A sink of the wrong shape or dtype beside MLA is refused
 *     (FIA_ERR_PARAM_INVALID): N is num_heads as for any call.
 *  4. The bound on an MLA row holds both terms (ref_double.c): rope
 *     products that cancel make the key's T_1 the rope's (far above the
 *     same score without rope), and with a dominating sink the model's
 *     worst case (the key's weight up by T_1, the sink's down by T_s) is
 *     within the bound and beyond the bound less the sink's term p_s T_s
 *     |o|; with the full-quantization model (u_kv, eta_kv, P rounded to
 *     bf16) within the bound (there P's rounding, 2^-8 sum p |v|, is far
 *     above the sink's term, so the bound less it still covers the case).
 *
 * Planted bug (made these tests fail, then removed): read_sink.c reading
 * the sink but ref.c's compute_row giving it to non-MLA rows only (p->qr
 * NULL): 1 fails in every scene (outputs and lse unlike o / (1 + e^(sink -
 * l)); "sink above" outputs not ~0), 2 fails (every element). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/ref.h"
#include "ref_testlib.h"

/* ---- the scenes ---------------------------------------------------------- */

/* Output row order: (b, s, n) BSH / BSND; (b, n, s) BNSD; (n, b, s) the
 * *_NBSD outputs; tokens (t, n) TND / NTD_TND's TND output.  lse: (b, n,
 * s), tokens (t, n). */
enum { ORD_BSN, ORD_BNS, ORD_NBS, ORD_TOK };

typedef struct scene {
    const char *what, *text;
    int ord;
    int64_t B, N, QS, D;
    int64_t qlen[3]; /* tokens: each batch's query tokens */
} scene;

#define MLA512_DECODE                                                        \
    "input_layout = BSH\nnum_heads = 32\nnum_key_value_heads = 1\n"          \
    "query = bf16 [2,1,16384]\nkey = bf16 [6,16,512]\n"                      \
    "value = bf16 [6,16,512]\nquery_rope = bf16 [2,1,2048]\n"                \
    "key_rope = bf16 [6,16,64]\nblock_size = 16\nblock_table = int32 [2,3]\n" \
    "actual_seq_lengths_kv = [40,7]\nscale = 0.0625\nseed = 1\n"

static const scene scenes[] = {
    {"D 512 decode BSH, rank-3 cache bs 16", MLA512_DECODE, ORD_BSN, 2, 32,
     1, 512, {0}},
    {"D 512 Q_S 4 sparse 3 BNSD, rank-4 cache bs 128",
     "input_layout = BNSD\nnum_heads = 32\nnum_key_value_heads = 1\n"
     "query = bf16 [1,32,4,512]\nkey = bf16 [2,1,128,512]\n"
     "value = bf16 [2,1,128,512]\nquery_rope = bf16 [1,32,4,64]\n"
     "key_rope = bf16 [2,1,128,64]\nsparse_mode = 3\n"
     "atten_mask = bool [2048,2048]\nblock_size = 128\n"
     "block_table = int32 [1,2]\nactual_seq_lengths_kv = [150]\n"
     "scale = 0.0625\nseed = 2\n",
     ORD_BNS, 1, 32, 4, 512, {0}},
    {"D 512 BSND_NBSD, NZ cache, fp16",
     "input_layout = BSND_NBSD\nnum_heads = 32\nnum_key_value_heads = 1\n"
     "query = fp16 [1,4,32,512]\nkey = fp16 [2,1,32,128,16]\n"
     "value = fp16 [2,1,32,128,16]\nattention_out = fp16 [32,1,4,512]\n"
     "query_rope = fp16 [1,4,32,64]\nkey_rope = fp16 [2,1,4,128,16]\n"
     "sparse_mode = 3\natten_mask = bool [2048,2048]\nblock_size = 128\n"
     "block_table = int32 [1,2]\nblock_table.values = 1,0\n"
     "actual_seq_lengths_kv = [200]\nscale = 0.0625\nseed = 25\n",
     ORD_NBS, 1, 32, 4, 512, {0}},
    {"D 128 TND",
     "input_layout = TND\nnum_heads = 4\nnum_key_value_heads = 2\n"
     "query = bf16 [17,4,128]\nkey = bf16 [43,2,128]\n"
     "value = bf16 [43,2,128]\nquery_rope = bf16 [17,4,64]\n"
     "key_rope = bf16 [43,2,64]\nactual_seq_lengths = [5,5,17]\n"
     "actual_seq_lengths_kv = [9,13,43]\nscale = 0.0625\nseed = 5\n",
     ORD_TOK, 3, 4, 0, 128, {5, 0, 12}},
    {"D 128 NTD_TND sparse 3",
     "input_layout = NTD_TND\nnum_heads = 4\nnum_key_value_heads = 2\n"
     "query = bf16 [4,17,128]\nkey = bf16 [2,43,128]\n"
     "value = bf16 [2,43,128]\nquery_rope = bf16 [4,17,64]\n"
     "key_rope = bf16 [2,43,64]\nactual_seq_lengths = [5,5,17]\n"
     "actual_seq_lengths_kv = [9,13,43]\nsparse_mode = 3\n"
     "atten_mask = bool [2048,2048]\nscale = 0.0625\nseed = 6\n",
     ORD_TOK, 3, 4, 0, 128, {5, 0, 12}},
    {"full quantization decode BSH, ND cache bs 16",
     "input_layout = BSH\nnum_heads = 32\nnum_key_value_heads = 1\n"
     "query = int8 [2,1,16384]\nkey = int8 [6,16,512]\n"
     "value = int8 [6,16,512]\nattention_out = bf16 [2,1,16384]\n"
     "query_rope = bf16 [2,1,2048]\nkey_rope = bf16 [6,16,64]\n"
     "dequant_scale_query = fp32 [2,1,32]\nkey_antiquant_scale = fp32 [1]\n"
     "value_antiquant_scale = fp32 [1]\nquery_quant_mode = 3\n"
     "block_size = 16\nblock_table = int32 [2,3]\n"
     "actual_seq_lengths_kv = [40,7]\nscale = 0.00390625\nseed = 41\n"
     "query.gen = uniform(-127,127)\nkey.gen = uniform(-127,127)\n"
     "value.gen = uniform(-127,127)\n"
     "dequant_scale_query.gen = uniform(0.015625,0.125)\n"
     "key_antiquant_scale.gen = uniform(0.0078125,0.0625)\n"
     "value_antiquant_scale.gen = uniform(0.0078125,0.0625)\n",
     ORD_BSN, 2, 32, 1, 512, {0}},
    {"full quantization Q_S 4 BSND, int8 NZ cache bs 128",
     "input_layout = BSND\nnum_heads = 32\nnum_key_value_heads = 1\n"
     "query = int8 [1,4,32,512]\nkey = int8 [2,1,16,128,32]\n"
     "value = int8 [2,1,16,128,32]\nattention_out = bf16 [1,4,32,512]\n"
     "query_rope = bf16 [1,4,32,64]\nkey_rope = bf16 [2,1,4,128,16]\n"
     "dequant_scale_query = fp32 [1,4,32]\nkey_antiquant_scale = fp32 [1]\n"
     "value_antiquant_scale = fp32 [1]\nquery_quant_mode = 3\n"
     "sparse_mode = 3\natten_mask = bool [2048,2048]\nblock_size = 128\n"
     "block_table = int32 [1,2]\nblock_table.values = 1,0\n"
     "actual_seq_lengths_kv = [150]\nscale = 0.00390625\nseed = 42\n"
     "query.gen = uniform(-127,127)\nkey.gen = uniform(-127,127)\n"
     "value.gen = uniform(-127,127)\n"
     "dequant_scale_query.gen = uniform(0.015625,0.125)\n"
     "key_antiquant_scale.gen = uniform(0.0078125,0.0625)\n"
     "value_antiquant_scale.gen = uniform(0.0078125,0.0625)\n",
     ORD_BSN, 1, 32, 4, 512, {0}},
};
#define N_SCENES (sizeof scenes / sizeof scenes[0])

/* The rows of a scene: (b, n, i) -> output row, lse element; -1 past the
 * batch's rows. */
static int64_t rows_of(const scene *s, int64_t b)
{
    return s->ord == ORD_TOK ? s->qlen[b] : s->QS;
}

static void row_index(const scene *s, int64_t b, int64_t n, int64_t i,
                      int64_t *orow, int64_t *lrow)
{
    int64_t t = i;
    for (int64_t c = 0; s->ord == ORD_TOK && c < b; c++)
        t += s->qlen[c];
    switch (s->ord) {
    case ORD_BSN:
        *orow = (b * s->QS + i) * s->N + n;
        break;
    case ORD_BNS:
        *orow = (b * s->N + n) * s->QS + i;
        break;
    case ORD_NBS:
        *orow = (n * s->B + b) * s->QS + i;
        break;
    default:
        *orow = t * s->N + n;
    }
    *lrow = s->ord == ORD_TOK ? t * s->N + n : (b * s->N + n) * s->QS + i;
}

/* The scene's text, lse on, with "learnable_sink = bf16 [N]" and its
 * values (sink NULL: none). */
static char *scene_text(const scene *s, const double *sink)
{
    sbuf sb = {0};
    sb_printf(&sb, "%ssoftmax_lse_flag = true\n", s->text);
    if (sink) {
        sb_printf(&sb, "learnable_sink = bf16 [%lld]\n"
                  "learnable_sink.values = ", (long long)s->N);
        for (int64_t n = 0; n < s->N; n++)
            sb_printf(&sb, n ? ",%.17g" : "%.17g", sink[n]);
        sb_printf(&sb, "\n");
    }
    return sb.s;
}

static void run_scene(run *x, const scene *s, const double *sink)
{
    char *t = scene_text(s, sink);
    run_text(x, t, 0);
    free(t);
    CHECK_MSG(x->st == FIA_OK, "%s%s: %s", s->what, sink ? " + sink" : "",
              x->err.msg);
}

/* ---- 1. against the call without the sink -------------------------------- */

/* x (with sink) against y (without) row by row: o_sink = o / (1 + e^(sink
 * - l)), lse_sink = l + log1p(e^(sink - l)). */
static void check_relation(const scene *s, const run *x, const run *y,
                           const double *sink)
{
    int bad = 0, lbad = 0, rows = 0, moved = 0;
    for (int64_t b = 0; b < s->B; b++)
        for (int64_t n = 0; n < s->N; n++)
            for (int64_t i = 0; i < rows_of(s, b); i++) {
                int64_t orow, lrow;
                row_index(s, b, n, i, &orow, &lrow);
                if (y->r.lse_unspecified[lrow])
                    continue;
                rows++;
                const long double l = y->r.lse_exact[lrow];
                const long double z = expl((long double)sink[n] - l);
                const long double sig = 1.0L / (1.0L + z);
                moved += sig < 0.99L && sig > 0.01L;
                double big = 0.0;
                for (int64_t d = 0; d < s->D; d++) {
                    const double o = y->r.out_exact[orow * s->D + d];
                    big = fabs(o) > big ? fabs(o) : big;
                }
                for (int64_t d = 0; d < s->D; d++) {
                    const int64_t e = orow * s->D + d;
                    const long double want = sig * y->r.out_exact[e];
                    if (x->r.out_unspecified[e] ||
                        fabsl(x->r.out_exact[e] - want) >
                            1e-12L * big + 1e-300L)
                        bad++;
                }
                const long double lw = l + log1pl(z);
                if (x->r.lse_unspecified[lrow] ||
                    fabsl(x->r.lse_exact[lrow] - lw) >
                        1e-13L * (1.0L + fabsl(lw)))
                    lbad++;
            }
    CHECK_MSG(rows > 0 && bad == 0 && lbad == 0, "%s: %d rows, %d outputs "
              "and %d lse unlike o / (1 + e^(sink - l))", s->what, rows, bad,
              lbad);
    /* the test means something: the sinks move most rows */
    CHECK_MSG(moved * 2 > rows, "%s: the sink moves %d of %d rows", s->what,
              moved, rows);
}

/* Same bits (and exact values when exact) as without a sink, bounds no
 * smaller. */
static void check_same(const scene *s, const run *x, const run *y,
                       int exact, const char *what)
{
    const int64_t no = x->r.out_numel, nl = x->r.lse_numel;
    int bad = 0, exbad = 0, bbad = 0;
    CHECK(no == y->r.out_numel && nl == y->r.lse_numel);
    bad += !ref_same_bits(&x->r.out, &y->r.out, no, 2);
    bad += !ref_same_bits(&x->r.lse, &y->r.lse, nl, 4);
    for (int64_t e = 0; e < no; e++) {
        if (y->r.out_unspecified[e])
            continue;
        exbad += exact && x->r.out_exact[e] != y->r.out_exact[e];
        bbad += !(x->r.out_bound[e] >= y->r.out_bound[e]);
    }
    for (int64_t e = 0; exact && e < nl; e++)
        exbad += !y->r.lse_unspecified[e] &&
                 x->r.lse_exact[e] != y->r.lse_exact[e];
    CHECK_MSG(bad == 0 && exbad == 0 && bbad == 0, "%s, %s: bits differ %d, "
              "exact values %d, bounds smaller %d", s->what, what, bad, exbad,
              bbad);
}

/* Same bits through the pure-MPFR path. */
static void check_pure(const scene *s, const run *x, const double *sink)
{
    char *t = scene_text(s, sink);
    run y;
    memset(&y, 0, sizeof y);
    fia_error err;
    fia_case_init(&y.c);
    CHECK(fia_case_parse_string(t, "<t>", &y.c, &err) == 0);
    CHECK(fia_case_materialize(&y.c, 1, &y.d, &err) == 0);
    y.ok = 1;
    fia_ref_options o;
    fia_ref_options_default(&o);
    o.pure_mpfr = 1;
    y.st = fia_ref_compute(&y.c, &y.d, &o, &y.r, &y.err);
    CHECK_MSG(y.st == FIA_OK, "%s pure MPFR: %s", s->what, y.err.msg);
    if (y.st == FIA_OK)
        CHECK_MSG(ref_same_bits(&x->r.out, &y.r.out, x->r.out_numel, 2) &&
                      ref_same_bits(&x->r.lse, &y.r.lse, x->r.lse_numel, 4),
                  "%s: pure MPFR gives other bits", s->what);
    run_free(&y);
    free(t);
}

static void test_scenes(void)
{
    double sink[32], lo[32], hi[32], none[32];
    for (int n = 0; n < 32; n++) {
        /* around the rows' lse (about 3 to 6 here), bf16-exact */
        sink[n] = 1.0 + 0.75 * (n % 8);
        lo[n] = -9984.0; /* -1e4 in bf16 */
        hi[n] = 200.0; /* e^(s - 200) about 1e-85: far below bf16's least */
        none[n] = -INFINITY;
    }
    for (size_t k = 0; k < N_SCENES; k++) {
        const scene *s = &scenes[k];
        run y, x;
        run_scene(&y, s, NULL);
        run_scene(&x, s, sink);
        if (x.st == FIA_OK && y.st == FIA_OK) {
            check_relation(s, &x, &y, sink);
            if (s->D == 128 || k == 5)
                check_pure(s, &x, sink);
        }
        run_free(&x);
        run_scene(&x, s, none);
        if (x.st == FIA_OK && y.st == FIA_OK)
            check_same(s, &x, &y, 1, "sink -inf");
        run_free(&x);
        run_scene(&x, s, lo);
        if (x.st == FIA_OK && y.st == FIA_OK)
            check_same(s, &x, &y, 0, "sink -9984");
        run_free(&x);
        run_scene(&x, s, hi);
        if (x.st == FIA_OK) {
            int bad = 0;
            for (int64_t e = 0; e < x.r.out_numel; e++)
                bad += !(fabs(out_val(&x, e)) < 1e-20) ||
                       !(fabs(x.r.out_exact[e]) < 1e-20);
            for (int64_t e = 0; e < x.r.lse_numel; e++)
                bad += x.r.lse_unspecified[e] || lse_val(&x, e) != 200.0f;
            CHECK_MSG(bad == 0, "%s, sink 200: %d elements not ~0 or lse "
                      "not the sink", s->what, bad);
        }
        run_free(&x);
        run_free(&y);
    }
}

/* ---- 2. a D 512 row by hand ---------------------------------------------- */

/* BSH decode, B 1, 32 heads, 20 keys in blocks 0 and 1 of 16, scale 0.5.
 * q = 2^-5 and k = 2^-4 everywhere: q.k = 512 2^-9 = 1 for every key.
 * Head n's q_rope (1, n/8, 0, ...), key j's k_rope (j mod 5 / 4, j/16 -
 * 1/2, 0, ...): s_nj = (1 + (j mod 5)/4 + n/8 (j/16 - 1/2)) / 2.  v_jd =
 * ((7j + 3d) mod 17 - 8) / 8; sink_n = n/4 - 1. */
#define HK 20
static double hand_v(int64_t j, int64_t d)
{
    return (double)((7 * j + 3 * d) % 17 - 8) / 8.0;
}

static void test_hand(void)
{
    sbuf sb = {0};
    sb_printf(&sb, "input_layout = BSH\nnum_heads = 32\n"
              "num_key_value_heads = 1\nquery = bf16 [1,1,16384]\n"
              "key = bf16 [2,16,512]\nvalue = bf16 [2,16,512]\n"
              "query_rope = bf16 [1,1,2048]\nkey_rope = bf16 [2,16,64]\n"
              "block_size = 16\nblock_table = int32 [1,2]\n"
              "block_table.values = 0,1\nactual_seq_lengths_kv = [%d]\n"
              "scale = 0.5\nsoftmax_lse_flag = true\n"
              "query.gen = const(0.03125)\nkey.gen = const(0.0625)\n"
              "query_rope.values = ", HK);
    for (int64_t n = 0; n < 32; n++)
        for (int64_t d = 0; d < 64; d++)
            sb_printf(&sb, n + d ? ",%g" : "%g",
                      d == 0 ? 1.0 : d == 1 ? n / 8.0 : 0.0);
    sb_printf(&sb, "\nkey_rope.values = ");
    for (int64_t j = 0; j < 32; j++)
        for (int64_t d = 0; d < 64; d++)
            sb_printf(&sb, j + d ? ",%g" : "%g",
                      d == 0 ? (j % 5) / 4.0 : d == 1 ? j / 16.0 - 0.5 : 0.0);
    sb_printf(&sb, "\nvalue.values = ");
    for (int64_t j = 0; j < 32; j++)
        for (int64_t d = 0; d < 512; d++)
            sb_printf(&sb, j + d ? ",%g" : "%g", hand_v(j, d));
    sb_printf(&sb, "\nlearnable_sink = bf16 [32]\nlearnable_sink.values = ");
    for (int64_t n = 0; n < 32; n++)
        sb_printf(&sb, n ? ",%g" : "%g", n / 4.0 - 1.0);
    sb_printf(&sb, "\n");
    run x;
    run_text(&x, sb.s, 0);
    free(sb.s);
    CHECK_MSG(x.st == FIA_OK, "hand: %s", x.err.msg);
    if (x.st != FIA_OK) {
        run_free(&x);
        return;
    }
    int bad = 0, lbad = 0;
    for (int64_t n = 0; n < 32; n++) {
        long double s[HK], m = n / 4.0L - 1.0L;
        for (int64_t j = 0; j < HK; j++) {
            s[j] = (1.0L + (j % 5) / 4.0L + n / 8.0L * (j / 16.0L - 0.5L)) /
                   2.0L;
            m = s[j] > m ? s[j] : m;
        }
        long double S = expl(n / 4.0L - 1.0L - m);
        for (int64_t j = 0; j < HK; j++)
            S += expl(s[j] - m);
        for (int64_t d = 0; d < 512; d++) {
            long double num = 0.0L;
            for (int64_t j = 0; j < HK; j++)
                num += expl(s[j] - m) * hand_v(j, d);
            const long double o = num / S;
            const int64_t e = n * 512 + d;
            bad += fabsl(x.r.out_exact[e] - o) > 1e-14L * (1.0L + fabsl(o)) ||
                   out_bits(&x, e) != fia_double_to_bf16((double)o);
        }
        const long double l = m + logl(S);
        lbad += fabsl(x.r.lse_exact[n] - l) > 1e-14L * (1.0L + fabsl(l)) ||
                lse_val(&x, n) != (float)l;
    }
    CHECK_MSG(bad == 0 && lbad == 0, "hand: %d outputs, %d lse unlike long "
              "double", bad, lbad);
    run_free(&x);
}

/* ---- 3. refusals ---------------------------------------------------------- */

static void refused(const char *base, const char *sink, const char *word)
{
    char text[2048];
    snprintf(text, sizeof text, "%s%s\n", base, sink);
    run x;
    run_text(&x, text, 0);
    CHECK_MSG(x.st == FIA_ERR_PARAM_INVALID && strstr(x.err.msg, word),
              "%s: status %d '%s', want a refusal naming '%s'", sink,
              (int)x.st, x.err.msg, word);
    run_free(&x);
}

static void test_refusals(void)
{
    refused(MLA512_DECODE, "learnable_sink = bf16 [1]", "[N] = [32]");
    refused(MLA512_DECODE, "learnable_sink = bf16 [64]", "[N] = [32]");
    refused(MLA512_DECODE, "learnable_sink = fp16 [32]", "not bf16");
    refused(scenes[5].text, "learnable_sink = fp32 [32]", "learnable_sink");
    refused(scenes[3].text, "learnable_sink = bf16 [2]", "[N] = [4]");
}

/* ---- 4. the bound on an MLA row ------------------------------------------ */

/* One key: q = (1, 0, 0, 0 | 64, 64, 64, 64), k = (1, 0, 0, 0 | 64, -64,
 * 64, -64): s = 1 (the rope's products cancel, sum |q k| = 16385), value
 * v; a sink of 11 (p_s = 1 / (1 + e^-10)).  fp16 high precision (no P
 * rounding: the smallest bound).  query_quant: the full-quantization
 * model. */
static void bound_row(int rope, int query_quant, row_out *ro, long double *T1,
                      long double *Ts)
{
    enum { D = 4 };
    static const double v[D] = {1.0, -0.5, 3.0, 0.25};
    double q[2 * D] = {1, 0, 0, 0, 64, 64, 64, 64};
    double k[2 * D] = {1, 0, 0, 0, 64, -64, 64, -64};
    int64_t keys[1] = {0};
    ref_row_in in = {.q = q, .kbuf = k, .vbuf = v, .keys = keys, .nk = 1,
                     .D = D, .Dr = rope ? D : 0, .scale = 1.0,
                     .fmt = query_quant ? REF_FMT_BF16 : REF_FMT_FP16,
                     .want_lse = 1,
                     .in_dtype = query_quant ? FIA_DT_BF16 : FIA_DT_FP16,
                     .round_p = query_quant, .has_sink = 1, .sink = 11.0};
    if (query_quant) {
        in.u_kv = 3.0 * 0x1p-24 + 0x1p-45;
        in.eta_kv = 0x1p-149;
        in.kv_lim = 1e30;
    }
    if (!rope) { /* the same score without rope: k's rows of D columns */
        static double k0[D] = {1, 0, 0, 0};
        in.kbuf = k0;
    }
    ref_dbl x;
    CHECK(ref_dbl_init(&x, 2, D) == FIA_OK);
    memset(ro->done, 0, D);
    ro->lse_done = 0;
    ref_dbl_row(&x, &in, ro);
    *T1 = x.tm[0];
    *Ts = x.tm[1];
    ref_dbl_free(&x);
}

static void test_bound(void)
{
    enum { D = 4 };
    static const double v[D] = {1.0, -0.5, 3.0, 0.25};
    row_out ro;
    CHECK(ref_row_out_init(&ro, D) == FIA_OK);
    long double T1p, Tsp;
    bound_row(0, 0, &ro, &T1p, &Tsp);
    for (int query_quant = 0; query_quant < 2; query_quant++) {
        long double T1, Ts;
        bound_row(1, query_quant, &ro, &T1, &Ts);
        /* the rope's products in the key's score error */
        CHECK_MSG(T1 > 1000.0L * T1p, "query_quant %d: T_1 %Lg with rope, "
                  "%Lg without", query_quant, T1, T1p);
        const long double w1 = 1.0L, ws = expl(10.0L), S = w1 + ws;
        const long double ps = ws / S;
        int within = 0, beyond = 0;
        for (int d = 0; d < D; d++) {
            const long double o = w1 * v[d] / S;
            const long double oa = w1 * (1 + T1) * v[d] /
                                   (w1 * (1 + T1) + ws * (1 - Ts));
            const long double err = fabsl(oa - o), b = ro.bound[d];
            within += err <= b;
            beyond += err > b - ps * Ts * fabsl(o);
        }
        CHECK_MSG(within == D, "query_quant %d: the model's worst case "
                  "beyond the bound in %d columns", query_quant, D - within);
        /* without P's rounding the sink's term is needed; with it (full
         * quantization rounds P to bf16: 2^-8 sum p |v|) it is below that
         * term's share */
        CHECK_MSG(query_quant || beyond == D, "a bound without the sink's term "
                  "covers the worst case in %d columns", D - beyond);
        const long double le = 11.0L + logl(1.0L + expl(-10.0L));
        CHECK_MSG(fabsl(ro.lse_exact - le) < 1e-14L, "query_quant %d: lse "
                  "%.17g, want %.17Lg", query_quant, ro.lse_exact, le);
    }
    ref_row_out_free(&ro);
}

int main(void)
{
    test_scenes();
    test_hand();
    test_refusals();
    test_bound();
    return check_summary();
}
