/* The reference reads 004's learnable_sink (ref/read_sink.c): query head
 * n's rows get one virtual key of score sink[n] (not scaled) and value 0,
 *   out = sum_j e^(s_j - m) v_j / (sum_j e^(s_j - m) + e^(sink_n - m)),
 *   m = max(max_j s_j, sink_n),  lse = m + log(that denominator).
 *
 *  1. Against a long double computation of that formula written here
 *     (ld_sink): decode and prefill, GQA, a causal mask (sparse mode 3),
 *     fp16 and bf16, lse; every output the nearest value of the format to
 *     the reference's exact value, which agrees with long double; the same
 *     cases through the pure-MPFR path give the same bits.
 *  2. A sink far above the scores: outputs near 0, lse = sink exactly.
 *     Far below: the outputs and lse of the call without a sink, bit for
 *     bit, and exactly (the exact values too) when e^(sink - m) underflows;
 *     its bounds no smaller.  A NaN sink: that head's row is NaN (outputs
 *     and lse), the other heads as before.
 *  3. A sink of the wrong dtype, shape, rank, or empty is refused
 *     (FIA_ERR_PARAM_INVALID, the message naming learnable_sink); with
 *     002's full int8 (an int8 query without rope) it is not modeled (with
 *     MLA it is computed: test_ref_sink_mla.c).
 *  4. The bound (ref_double.c) counts the sink's float32 weight: where the
 *     sink dominates, the model's own worst case (every weight at the
 *     relative error T_j the model allows it, the key's up and the sink's
 *     down) stays within the bound but exceeds the bound less the sink's
 *     term p_s T_s |o| (what a bound taking the sink as exact would be at
 *     most); a plain float32 evaluation stays within it.
 *
 * Planted bugs (each made these tests fail, then removed): the sink
 * multiplied by the scale in ref.c (1 and 2 fail: every case's outputs and
 * lse against long double, "lse = sink" far above; 9 checks); the sink's
 * weight left out of the lse in ref_double.c (1 fails: lse against long
 * double and against the pure-MPFR path in all four cases; 4 fails: lse
 * 0, want 10.0000454; 9 checks). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/ref.h"
#include "ref_testlib.h"

/* out [B][N][QS][D], lse [B][N][QS] of attention with a sink per head;
 * causal: key j takes part in row i when j <= i + KVS - QS (sparse 3) */
static void ld_sink(const tcase *t, double scale, const double *sink,
                    int causal, long double *out, long double *lse)
{
    const int64_t g = t->N / t->KVN;
    long double *s = malloc((size_t)(t->KVS + 1) * sizeof *s);
    for (int64_t b = 0; b < t->B; b++)
        for (int64_t n = 0; n < t->N; n++)
            for (int64_t i = 0; i < t->QS; i++) {
                const int64_t kn = n / g, lim = i + t->KVS - t->QS;
                long double m = sink[n];
                for (int64_t j = 0; j < t->KVS; j++) {
                    long double acc = 0;
                    for (int64_t d = 0; d < t->D; d++)
                        acc += (long double)t->q[QI(t, b, n, i, d)] *
                               t->k[KI(t, b, kn, j, d)];
                    s[j] = acc * scale;
                    if ((!causal || j <= lim) && s[j] > m)
                        m = s[j];
                }
                long double S = expl((long double)sink[n] - m);
                for (int64_t j = 0; j < t->KVS; j++)
                    if (!causal || j <= lim)
                        S += expl(s[j] - m);
                for (int64_t d = 0; d < t->D; d++) {
                    long double num = 0;
                    for (int64_t j = 0; j < t->KVS; j++)
                        if (!causal || j <= lim)
                            num += expl(s[j] - m) * t->v[KI(t, b, kn, j, d)];
                    out[QI(t, b, n, i, d)] = num / S;
                }
                lse[(b * t->N + n) * t->QS + i] = m + logl(S);
            }
    free(s);
}

/* "learnable_sink = bf16 [N]" and its values into buf */
static void sink_lines(char *buf, size_t cap, const double *sink, int64_t N,
                       const char *dt, const char *more)
{
    size_t k = (size_t)snprintf(buf, cap, "%slearnable_sink = %s [%lld]\n"
                                "learnable_sink.values = ", more, dt,
                                (long long)N);
    for (int64_t n = 0; n < N; n++)
        k += (size_t)snprintf(buf + k, cap - k, n ? ",%.17g" : "%.17g",
                              sink[n]);
}

/* Every specified element against ld_sink (as check_vs_ld does; the
 * exact values are the binary64 pass's when it decided, within its bound of
 * the exact: 1e-13 relative). */
static int compare_ld(const run *x, const tcase *t, double scale,
                      const double *sink, int causal, const char *what)
{
    int64_t nq = t->B * t->N * t->QS;
    long double *out = malloc((size_t)(nq * t->D + 1) * sizeof *out);
    long double *lse = malloc((size_t)(nq + 1) * sizeof *lse);
    ld_sink(t, scale, sink, causal, out, lse);
    int bad = 0, lbad = 0;
    for (int64_t b = 0; b < t->B; b++)
        for (int64_t n = 0; n < t->N; n++)
            for (int64_t i = 0; i < t->QS; i++) {
                for (int64_t d = 0; d < t->D; d++) {
                    int64_t oi = out_index(t, b, n, i, d);
                    long double e = out[QI(t, b, n, i, d)];
                    double ex = x->r.out_exact[oi];
                    if (x->r.out_unspecified[oi] ||
                        fabsl(ex - e) > 1e-13L * (1 + fabsl(e))) {
                        bad++;
                        fprintf(stderr, "%s: (%lld,%lld,%lld,%lld) exact "
                                "%.17g, long double %.17Lg\n", what,
                                (long long)b, (long long)n, (long long)i,
                                (long long)d, ex, e);
                    }
                    uint16_t want = x->r.out.dtype == FIA_DT_BF16
                                        ? fia_double_to_bf16(ex)
                                        : fia_double_to_fp16(ex);
                    bad += want != out_bits(x, oi);
                }
                int64_t li = (b * t->N + n) * t->QS + i;
                if (!x->r.has_lse)
                    continue;
                float got = lse_val(x, li), near = (float)lse[li];
                if (!(got == near || nextafterf(near, INFINITY) == got ||
                      nextafterf(near, -INFINITY) == got) ||
                    fabsl(x->r.lse_exact[li] - lse[li]) >
                        1e-14L * (1 + fabsl(lse[li])))
                    lbad++;
            }
    CHECK_MSG(bad == 0, "%s: %d outputs differ from long double", what, bad);
    CHECK_MSG(lbad == 0, "%s: %d lse values differ", what, lbad);
    free(out);
    free(lse);
    return bad + lbad;
}

/* t's case with the sink (and extra lines) through the default reference,
 * then the pure-MPFR path: the same bits */
static void run_sink(run *x, const tcase *t, const double *sink,
                     const char *more, const char *what)
{
    static char lines[4096];
    const char *dt = t->dtype ? t->dtype : "fp16";
    (void)dt;
    sink_lines(lines, sizeof lines, sink, t->N, "bf16", more);
    tcase u = *t;
    u.extra = lines;
    char *text = build(&u);
    run_text(x, text, 0);
    CHECK_MSG(x->st == FIA_OK, "%s: %s", what, x->err.msg);
    if (x->st == FIA_OK) {
        run y;
        memset(&y, 0, sizeof y);
        fia_error err;
        fia_case_init(&y.c);
        CHECK(fia_case_parse_string(text, "<t>", &y.c, &err) == 0);
        CHECK(fia_case_materialize(&y.c, 1, &y.d, &err) == 0);
        y.ok = 1;
        fia_ref_options o;
        fia_ref_options_default(&o);
        o.pure_mpfr = 1;
        y.st = fia_ref_compute(&y.c, &y.d, &o, &y.r, &y.err);
        CHECK(y.st == FIA_OK);
        if (y.st == FIA_OK) {
            int64_t n = fia_tensor_numel(&x->r.out);
            CHECK_MSG(ref_same_bits(&x->r.out, &y.r.out, n, 2),
                      "%s: pure MPFR gives other outputs", what);
            if (x->r.has_lse)
                CHECK_MSG(ref_same_bits(&x->r.lse, &y.r.lse,
                                        fia_tensor_numel(&x->r.lse), 4),
                          "%s: pure MPFR gives another lse", what);
        }
        run_free(&y);
    }
    free(text);
}

static tcase mk_case(const char *dt, int64_t B, int64_t N, int64_t KVN,
                     int64_t QS, int64_t KVS, int64_t D)
{
    tcase t = {.layout = "BNSD", .dtype = dt, .B = B, .N = N, .KVN = KVN,
               .QS = QS, .KVS = KVS, .D = D};
    t.q = rnd_array(B * N * QS * D);
    t.k = rnd_array(B * KVN * KVS * D);
    t.v = rnd_array(B * KVN * KVS * D);
    return t;
}

static void free_case(tcase *t)
{
    free(t->q), free(t->k), free(t->v);
}

/* 1: decode and prefill, GQA, causal, fp16 and bf16 */
static void test_against_ld(void)
{
    const double sink4[4] = {0.5, -3.0, 2.0, 8.0};
    tcase t = mk_case("fp16", 2, 4, 2, 1, 40, 16);
    run x;
    run_sink(&x, &t, sink4, "scale = 0.125\nsoftmax_lse_flag = true\n",
             "decode fp16 GQA");
    if (x.st == FIA_OK)
        compare_ld(&x, &t, 0.125, sink4, 0, "decode fp16 GQA");
    run_free(&x);
    free_case(&t);

    t = mk_case("bf16", 1, 4, 2, 1, 200, 32);
    run_sink(&x, &t, sink4, "scale = 0.2\nsoftmax_lse_flag = true\n",
             "decode bf16 200 keys");
    if (x.st == FIA_OK)
        compare_ld(&x, &t, 0.2, sink4, 0, "decode bf16 200 keys");
    run_free(&x);
    free_case(&t);

    t = mk_case("bf16", 2, 4, 1, 12, 20, 16);
    run_sink(&x, &t, sink4,
             "scale = 0.25\nsoftmax_lse_flag = true\nsparse_mode = 3\n"
             "atten_mask = bool [2048,2048]\n",
             "prefill bf16 causal GQA 4:1");
    if (x.st == FIA_OK)
        compare_ld(&x, &t, 0.25, sink4, 1, "prefill bf16 causal");
    run_free(&x);
    free_case(&t);

    t = mk_case("fp16", 1, 4, 4, 8, 8, 16);
    run_sink(&x, &t, sink4,
             "scale = 1\nsoftmax_lse_flag = true\ninner_precise = 0\n",
             "prefill fp16 high precision");
    if (x.st == FIA_OK)
        compare_ld(&x, &t, 1.0, sink4, 0, "prefill fp16 high precision");
    run_free(&x);
    free_case(&t);
}

/* 2: far above, far below, underflowing, NaN */
static void test_extremes(void)
{
    tcase t = mk_case("fp16", 1, 4, 2, 3, 24, 16);
    double above[4] = {60.0, 60.0, 200.0, 1e4};
    snap(above, 4, "bf16"); /* 1e4 is 9984 in bf16 */
    run x;
    run_sink(&x, &t, above, "scale = 0.125\nsoftmax_lse_flag = true\n",
             "sink far above");
    if (x.st == FIA_OK) {
        compare_ld(&x, &t, 0.125, above, 0, "sink far above");
        int bad = 0;
        for (int64_t n = 0; n < 4; n++)
            for (int64_t i = 0; i < 3; i++) {
                bad += lse_val(&x, n * 3 + i) != (float)above[n];
                for (int64_t d = 0; d < 16; d++)
                    bad += !(fabs(out_val(&x, QI(&t, 0, n, i, d))) < 1e-20);
            }
        CHECK_MSG(bad == 0, "sink far above: %d outputs not ~0 or lse != "
                  "sink", bad);
    }
    run_free(&x);

    /* far below: the call without a sink, bit for bit */
    run y;
    tcase u = t;
    u.extra = "scale = 0.125\nsoftmax_lse_flag = true\n";
    char *text = build(&u);
    run_text(&y, text, 0);
    free(text);
    CHECK(y.st == FIA_OK);
    const double below[4] = {-200.0, -200.0, -1e30, -INFINITY};
    run_sink(&x, &t, below, "scale = 0.125\nsoftmax_lse_flag = true\n",
             "sink far below");
    if (x.st == FIA_OK && y.st == FIA_OK) {
        int bad = 0, exbad = 0, bbad = 0;
        for (int64_t n = 0; n < 4; n++)
            for (int64_t i = 0; i < 3; i++) {
                int64_t li = n * 3 + i;
                bad += lse_val(&x, li) != lse_val(&y, li);
                for (int64_t d = 0; d < 16; d++) {
                    int64_t oi = QI(&t, 0, n, i, d);
                    bad += out_bits(&x, oi) != out_bits(&y, oi);
                    bbad += !(x.r.out_bound[oi] >= y.r.out_bound[oi]);
                    /* e^(sink - m) = 0 in binary64 and float32: exact */
                    if (n >= 2)
                        exbad += x.r.out_exact[oi] != y.r.out_exact[oi];
                }
                if (n >= 2)
                    exbad += x.r.lse_exact[li] != y.r.lse_exact[li];
            }
        CHECK_MSG(bad == 0, "sink far below: %d elements unlike no sink",
                  bad);
        CHECK_MSG(exbad == 0, "underflowing sink: %d exact values unlike no "
                  "sink", exbad);
        CHECK_MSG(bbad == 0, "sink far below: %d bounds smaller", bbad);
    }
    run_free(&x);

    /* NaN sink on head 1: its rows NaN, the others as without (head 0's
     * sink -inf) */
    const double nan_s[4] = {-INFINITY, NAN, -INFINITY, -INFINITY};
    static char lines[512];
    snprintf(lines, sizeof lines, "scale = 0.125\nsoftmax_lse_flag = true\n"
             "learnable_sink = bf16 [4]\nlearnable_sink.values = "
             "-inf,nan,-inf,-inf\n");
    (void)nan_s;
    u = t;
    u.extra = lines;
    text = build(&u);
    run_text(&x, text, 0);
    free(text);
    CHECK_MSG(x.st == FIA_OK, "NaN sink: %s", x.err.msg);
    if (x.st == FIA_OK && y.st == FIA_OK) {
        int bad = 0;
        for (int64_t n = 0; n < 4; n++)
            for (int64_t i = 0; i < 3; i++) {
                int64_t li = n * 3 + i;
                float l = lse_val(&x, li);
                bad += n == 1 ? !isnan(l) : l != lse_val(&y, li);
                for (int64_t d = 0; d < 16; d++) {
                    int64_t oi = QI(&t, 0, n, i, d);
                    bad += n == 1 ? !isnan(out_val(&x, oi)) ||
                                        x.r.out_unspecified[oi]
                                  : out_bits(&x, oi) != out_bits(&y, oi);
                }
            }
        CHECK_MSG(bad == 0, "NaN sink: %d elements wrong", bad);
    }
    run_free(&x);
    run_free(&y);
    free_case(&t);
}

/* 3: refusals */
static void expect_refused(const char *sink, const char *qkv,
                           fia_status want, const char *word)
{
    char text[1024];
    snprintf(text, sizeof text,
             "input_layout = BNSD\nnum_heads = 4\nnum_key_value_heads = 2\n"
             "%s\n%s\n",
             qkv ? qkv : "query = fp16 [1,4,2,16]\nkey = fp16 [1,2,8,16]\n"
                         "value = fp16 [1,2,8,16]", sink);
    run x;
    run_text(&x, text, 0);
    CHECK_MSG(x.st == want, "%s: status %d, want %d", sink, (int)x.st,
              (int)want);
    CHECK_MSG(strstr(x.err.msg, word) != NULL, "%s: message '%s' lacks '%s'",
              sink, x.err.msg, word);
    run_free(&x);
}

static void test_refusals(void)
{
    expect_refused("learnable_sink = fp16 [4]", NULL, FIA_ERR_PARAM_INVALID,
                   "not bf16");
    expect_refused("learnable_sink = fp32 [4]", NULL, FIA_ERR_PARAM_INVALID,
                   "learnable_sink");
    expect_refused("learnable_sink = bf16 [2]", NULL, FIA_ERR_PARAM_INVALID,
                   "[N] = [4]");
    expect_refused("learnable_sink = bf16 [1,4]", NULL, FIA_ERR_PARAM_INVALID,
                   "rank 2");
    expect_refused("learnable_sink = bf16 [0]", NULL, FIA_ERR_PARAM_INVALID,
                   "[N] = [4]");
    expect_refused("learnable_sink = bf16 [4]",
                   "query = int8 [1,4,2,16]\nkey = int8 [1,2,8,16]\n"
                   "value = int8 [1,2,8,16]\nattention_out = fp16 [1,4,2,16]\n"
                   "dequant_scale1 = uint64 [1]\nquant_scale1 = fp32 [1]\n"
                   "dequant_scale2 = fp32 [1]",
                   FIA_ERR_NOT_MODELED, "without rope");
}

/* 4: the bound counts the sink's weight.  One key of score 0 (q . k = 0
 * exactly), values v, a sink of 10 that dominates (p_s = 1/(1 + e^-10)),
 * fp16 high precision (no P rounding: the smallest bound). */
static void test_bound(void)
{
    enum { D = 4 };
    double q[D] = {1, 0, 0, 0}, k[D] = {0, 1, 0, 0};
    double v[D] = {1.0, -0.5, 3.0, 0.25};
    int64_t keys[1] = {0};
    ref_row_in in = {.q = q, .kbuf = k, .vbuf = v, .keys = keys, .nk = 1,
                     .D = D, .scale = 1.0, .fmt = REF_FMT_FP16,
                     .want_lse = 1, .in_dtype = FIA_DT_FP16,
                     .has_sink = 1, .sink = 10.0};
    ref_dbl x;
    row_out ro;
    CHECK(ref_dbl_init(&x, 2, D) == FIA_OK);
    CHECK(ref_row_out_init(&ro, D) == FIA_OK);
    memset(ro.done, 0, D);
    ro.lse_done = 0;
    ref_dbl_row(&x, &in, &ro);
    /* the model's T of the key (index 0) and of the sink (index 1) */
    const long double T1 = x.tm[0], Ts = x.tm[1];
    CHECK_MSG(Ts > 0x1p-22 && T1 > 0x1p-22, "T_s %Lg T_1 %Lg", Ts, T1);
    const long double w1 = 1.0L, ws = expl(10.0L), S = w1 + ws;
    const long double ps = ws / S;
    int within = 0, beyond = 0, f32 = 0;
    for (int d = 0; d < D; d++) {
        long double o = w1 * v[d] / S;
        /* the model's worst case: the key's weight up by T_1, the sink's
         * down by T_s, everything else exact */
        long double oa = w1 * (1 + T1) * v[d] / (w1 * (1 + T1) +
                                                 ws * (1 - Ts));
        long double err = fabsl(oa - o), b = ro.bound[d];
        within += err <= b;
        /* what a bound leaving the sink's term out would be at most */
        beyond += err > b - ps * Ts * fabsl(o);
        /* a float32 pipeline: expf of the differences, the row sum, P.V,
         * the division */
        float e1 = expf(0.0f - 10.0f), es = expf(10.0f - 10.0f);
        float of = (e1 * (float)v[d]) / (e1 + es);
        f32 += fabsl((long double)of - o) <= b;
    }
    CHECK_MSG(within == D, "the model's worst case beyond the bound in %d "
              "columns", D - within);
    CHECK_MSG(beyond == D, "a bound without the sink's term covers the "
              "worst case in %d columns", D - beyond);
    CHECK_MSG(f32 == D, "float32 beyond the bound in %d columns", D - f32);
    /* lse: the sink is in S; a float32 lse within its bound */
    float lf = 10.0f + logf(expf(-10.0f) + 1.0f);
    long double le = 10.0L + logl(1.0L + expl(-10.0L));
    CHECK(fabsl((long double)lf - le) <= ro.lse_bound);
    CHECK_MSG(fabsl(ro.lse_exact - le) < 1e-14L, "lse %.17g, want %.17Lg",
              ro.lse_exact, le);
    ref_row_out_free(&ro);
    ref_dbl_free(&x);
}

int main(void)
{
    test_against_ld();
    test_extremes();
    test_refusals();
    test_bound();
    return check_summary();
}
