/* Tests of full int8 quantization in ref/ (docs/features/int8_quant.md
 * "The computation", "Tolerance"): the outputs against a plain long double
 * computation of the documented steps written here (dot, s = dot ds1
 * scale, P = sat(rne(exp(s - m) qs1)) against the row's final max, N = P.V,
 * x = ds2 N / l with l the sum of the unquantized weights, lse = m +
 * log l); the 19-bit uint64 dequant scale; the saturation of P; an exact
 * tie; and that the bound admits a one-step flip of P at a tie but not a P
 * quantized against a running max. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/compare.h"
#include "ref_testlib.h"

enum { NH = 2, QS = 6, KS = 80, DD = 64 };

/* The case: BNSD, N = 2 heads over one KV head, int8 data uniform over
 * the whole range unless `extra` says otherwise. */
static void run_int8_quant(run *x, const char *ds1, const char *qs1,
                           const char *ds2, const char *out, const char *extra)
{
    const char *qgen = strstr(extra, "query.gen") ? ""
                       : "query.gen = uniform(-128,127)\n";
    char text[2048];
    snprintf(text, sizeof text,
             "input_layout = BNSD\nnum_heads = %d\nnum_key_value_heads = 1\n"
             "seed = 11\nsoftmax_lse_flag = true\n"
             "query = int8 [1,%d,%d,%d]\nkey = int8 [1,1,%d,%d]\n"
             "value = int8 [1,1,%d,%d]\nattention_out = %s [1,%d,%d,%d]\n"
             "%skey.gen = uniform(-128,127)\n"
             "value.gen = uniform(-128,127)\n"
             "dequant_scale1 = %s\nquant_scale1 = fp32 [1]\n"
             "quant_scale1.values = %s\ndequant_scale2 = %s\n%s",
             NH, NH, QS, DD, KS, DD, KS, DD, out, NH, QS, DD, qgen, ds1, qs1,
             ds2, extra);
    run_text(x, text, 0);
}

static double elem(const run *x, fia_slot s, int64_t i)
{
    const fia_tensor *t = fia_case_data_tensor(&x->d, s);
    return fia_load_as_double(t->dtype, t->data, i);
}

/* The test's own row (b 0, head n, row i): x[d], lse, P; *near when
 * some t is within 1e-6 of a rounding tie (P then not certain here). */
typedef struct mine {
    long double x[DD], lse;
    int P[KS];
    int near, sat;
} mine;

static void my_row(const run *r, int n, int i, double ds1, double qs1,
                   double ds2, long double mshift, mine *o)
{
    long double s[KS], m = -INFINITY, l = 0;
    for (int j = 0; j < KS; j++) {
        long long dot = 0;
        for (int d = 0; d < DD; d++)
            dot += (long long)elem(r, FIA_SLOT_QUERY, (n * QS + i) * DD + d) *
                   (long long)elem(r, FIA_SLOT_KEY, j * DD + d);
        s[j] = (long double)dot * ds1;
        m = s[j] > m ? s[j] : m;
    }
    m += mshift; /* > 0: quantized against a max that is not the row's */
    o->near = o->sat = 0;
    for (int j = 0; j < KS; j++) {
        long double e = expl(s[j] - m), t = e * qs1;
        l += e;
        long double f = t - floorl(t);
        o->near |= fabsl(f - 0.5L) < 1e-6L;
        long double p = rintl(t);
        o->sat += p > 127 || p < -128;
        o->P[j] = p > 127 ? 127 : p < -128 ? -128 : (int)p;
    }
    for (int d = 0; d < DD; d++) {
        long long N = 0;
        for (int j = 0; j < KS; j++)
            N += (long long)o->P[j] *
                 (long long)elem(r, FIA_SLOT_VALUE, j * DD + d);
        o->x[d] = (long double)ds2 * N / l * expl(-mshift);
    }
    o->lse = m + logl(l);
}

/* Every element of the run against my_row: exact value, fp16 bits, lse;
 * returns the saturated P count.  *ndiff_alt: elements whose bits differ
 * from my_row with ds1 replaced by ds1_alt (0: not computed). */
static int check_rows(const run *r, double ds1, double qs1, double ds2,
                      double ds1_alt, int *ndiff_alt)
{
    int bad = 0, sat = 0, nalt = 0;
    for (int n = 0; n < NH; n++)
        for (int i = 0; i < QS; i++) {
            mine o, a;
            my_row(r, n, i, ds1, qs1, ds2, 0.0L, &o);
            sat += o.sat;
            if (ds1_alt != 0.0)
                my_row(r, n, i, ds1_alt, qs1, ds2, 0.0L, &a);
            if (o.near)
                continue;
            for (int d = 0; d < DD; d++) {
                const int64_t idx = (n * QS + i) * DD + d;
                double ex = r->r.out_exact[idx];
                bad += fabsl(ex - o.x[d]) > 1e-12L * fabsl(o.x[d]) + 1e-300L;
                bad += ((const uint16_t *)r->r.out.data)[idx] !=
                       fia_double_to_fp16((double)o.x[d]);
                bad += !(r->r.out_bound[idx] > 0.0) ||
                       !(r->r.out_bound[idx] < 1e-3 * fabsl(o.x[d]) + 1e-6);
                if (ds1_alt != 0.0)
                    nalt += fia_double_to_fp16((double)a.x[d]) !=
                            fia_double_to_fp16((double)o.x[d]);
            }
            double lse = r->r.lse_exact[n * QS + i];
            bad += fabsl(lse - o.lse) > 1e-12L * (1 + fabsl(o.lse));
        }
    CHECK_MSG(bad == 0, "%d mismatches against the plain computation", bad);
    if (ndiff_alt)
        *ndiff_alt = nalt;
    return sat;
}

/* A uint64 dequant scale: its low word's bits 31..13 only (19-bit float),
 * the high word and the low 13 bits ignored. */
static void test_uint64_truncation(void)
{
    /* high word 0x12345, low word 0x3951BFFF: 2.0e-4 after truncation
     * (scores of a few units: the weights depend on ds1) */
    const double u = 74565.0 * 4294967296.0 + 961658879.0;
    char ds1[128];
    snprintf(ds1, sizeof ds1, "uint64 [1]\ndequant_scale1.values = %.0f", u);
    run r;
    run_int8_quant(&r, ds1, "127", "fp32 [1]\ndequant_scale2.values = 0.0001",
                   "fp16", "");
    CHECK_MSG(r.st == FIA_OK, "uint64 run: %d %s", (int)r.st, r.err.msg);
    if (r.st == FIA_OK) {
        uint32_t lo = 961658879u & 0xFFFFE000u, full = 961658879u;
        float f, g;
        memcpy(&f, &lo, 4);
        memcpy(&g, &full, 4);
        int ndiff = 0;
        check_rows(&r, (double)f, 127.0, (double)0.0001f, (double)g,
                   &ndiff);
        /* the truncation shows: else this test could not see it */
        CHECK_MSG(ndiff > 0, "no output depends on the dropped bits");
    }
    run_free(&r);
}

/* fp32 dequant scales as given; qs1 past 127: P saturates. */
static void test_fp32_saturation(void)
{
    run r;
    run_int8_quant(&r, "fp32 [1]\ndequant_scale1.values = 0.0003", "300",
                   "fp32 [1]\ndequant_scale2.values = 0.002", "fp16", "");
    CHECK_MSG(r.st == FIA_OK, "fp32 run: %d %s", (int)r.st, r.err.msg);
    if (r.st == FIA_OK) {
        int sat = check_rows(&r, (double)0.0003f, 300.0, (double)0.002f, 0,
                             NULL);
        CHECK_MSG(sat > 0, "no P saturated (qs1 = 300)");
    }
    run_free(&r);
}

/* Equal scores (a zero query): e = 1, t = qs1 = 2.5 exactly, a tie:
 * P = 2 (even), x = ds2 2 sum v / KS; the bound admits P = 3. */
static void test_tie(void)
{
    run r;
    run_int8_quant(&r, "fp32 [1]\ndequant_scale1.values = 0.01", "2.5",
                   "fp32 [1]\ndequant_scale2.values = 0.25", "fp16",
                   "query.gen = const(0)\n");
    CHECK_MSG(r.st == FIA_OK, "tie run: %d %s", (int)r.st, r.err.msg);
    if (r.st == FIA_OK) {
        int bad = 0;
        for (int d = 0; d < DD; d++) {
            double sv = 0.0, sa = 0.0;
            for (int j = 0; j < KS; j++) {
                sv += elem(&r, FIA_SLOT_VALUE, j * DD + d);
                sa += fabs(elem(&r, FIA_SLOT_VALUE, j * DD + d));
            }
            double want = 0.25 * 2.0 * sv / KS;
            bad += r.r.out_exact[d] != want;
            bad += !(r.r.out_bound[d] >= 0.25 * sa / KS);
        }
        CHECK_MSG(bad == 0, "tie: %d elements off", bad);
    }
    run_free(&r);
}

/* A kernel quantizing P against a max one above the row's (a running max
 * that later grows, then rescaled) lands outside the bound somewhere. */
static void test_running_max_caught(void)
{
    run r;
    run_int8_quant(&r, "fp32 [1]\ndequant_scale1.values = 0.0005", "127",
                   "fp32 [1]\ndequant_scale2.values = 0.01", "fp16", "");
    CHECK_MSG(r.st == FIA_OK, "run: %d %s", (int)r.st, r.err.msg);
    if (r.st == FIA_OK) {
        int out = 0;
        for (int n = 0; n < NH; n++)
            for (int i = 0; i < QS; i++) {
                mine o;
                my_row(&r, n, i, (double)0.0005f, 127.0, (double)0.01f,
                       1.0L, &o);
                for (int d = 0; d < DD; d++) {
                    const int64_t idx = (n * QS + i) * DD + d;
                    out += fabsl(o.x[d] - r.r.out_exact[idx]) >
                           r.r.out_bound[idx] + 0x1p-11 * fabsl(o.x[d]);
                }
            }
        CHECK_MSG(out > 0, "a running-max quantization passes the bound");
    }
    run_free(&r);
}

/* An int8 output: sat(rne(x qs2)) of the exact x. */
static void test_int8_out(void)
{
    run r, f;
    const char *s1 = "fp32 [1]\ndequant_scale1.values = 0.003";
    const char *s2 = "fp32 [1]\ndequant_scale2.values = 0.002";
    run_int8_quant(&r, s1, "127", s2, "int8",
                   "quant_scale2 = fp32 [1]\nquant_scale2.values = 1.5\n");
    run_int8_quant(&f, s1, "127", s2, "fp16", "");
    CHECK_MSG(r.st == FIA_OK && f.st == FIA_OK, "int8 out: %d %s", (int)r.st,
              r.err.msg);
    if (r.st == FIA_OK && f.st == FIA_OK) {
        int bad = 0;
        for (int64_t i = 0; i < r.r.out_numel; i++) {
            double y = f.r.out_exact[i] * 1.5;
            double w = y <= -128 ? -128 : y >= 127 ? 127 : nearbyint(y);
            bad += ((const int8_t *)r.r.out.data)[i] != (int8_t)w;
        }
        CHECK_MSG(bad == 0, "int8 out: %d elements off", bad);
    }
    run_free(&r), run_free(&f);
}

/* The binary64 first pass and the MPFR path give the same bits, exact
 * values and bounds (qs1 a half-integer: the row with an exact tie goes
 * to MPFR in both). */
static void test_pure_mpfr_agrees(void)
{
    static const char *const qs[] = {"127", "300", "2.5", "-90"};
    for (int c = 0; c < 4; c++) {
        char text[2048];
        snprintf(text, sizeof text,
                 "input_layout = BSND\nnum_heads = 4\nnum_key_value_heads = 2\n"
                 "seed = %d\nsoftmax_lse_flag = true\nsparse_mode = 2\n"
                 "atten_mask = bool [2048,2048]\n"
                 "query = int8 [2,7,4,32]\nkey = int8 [2,70,2,32]\n"
                 "value = int8 [2,70,2,32]\nattention_out = fp16 [2,7,4,32]\n"
                 "query.gen = uniform(-128,127)\n"
                 "key.gen = uniform(-20,20)\nvalue.gen = uniform(-128,127)\n"
                 "dequant_scale1 = fp32 [1]\ndequant_scale1.values = 0.002\n"
                 "quant_scale1 = fp32 [1]\nquant_scale1.values = %s\n"
                 "dequant_scale2 = fp32 [1]\ndequant_scale2.values = 0.01\n",
                 c + 3, qs[c]);
        run a, b;
        run_text(&a, text, 0);
        memset(&b, 0, sizeof b);
        fia_error err;
        fia_case_init(&b.c);
        int ok = fia_case_parse_string(text, "<t>", &b.c, &err) == 0 &&
                 fia_case_materialize(&b.c, 1, &b.d, &err) == 0;
        b.ok = ok;
        fia_ref_options o;
        fia_ref_options_default(&o);
        o.pure_mpfr = 1;
        b.st = ok ? fia_ref_compute(&b.c, &b.d, &o, &b.r, &b.err) : -1;
        CHECK_MSG(a.st == FIA_OK && b.st == FIA_OK, "qs1 %s: %d %d %s", qs[c],
                  (int)a.st, (int)b.st, a.err.msg);
        if (a.st == FIA_OK && b.st == FIA_OK) {
            int bad = 0;
            for (int64_t i = 0; i < a.r.out_numel; i++)
                bad += ((const uint16_t *)a.r.out.data)[i] !=
                           ((const uint16_t *)b.r.out.data)[i] ||
                       fabs(a.r.out_exact[i] - b.r.out_exact[i]) >
                           1e-14 * fabs(a.r.out_exact[i]) ||
                       fabs(a.r.out_bound[i] - b.r.out_bound[i]) >
                           1e-6 * a.r.out_bound[i];
            for (int64_t i = 0; i < a.r.lse_numel; i++)
                bad += ((const uint32_t *)a.r.lse.data)[i] !=
                       ((const uint32_t *)b.r.lse.data)[i];
            CHECK_MSG(bad == 0, "qs1 %s: %d elements differ", qs[c], bad);
            CHECK_MSG(c != 2 || a.r.n_escalated > 0,
                      "an exact tie did not go to MPFR");
            CHECK_MSG(c == 2 || a.r.n_escalated < a.r.n_elements / 10,
                      "qs1 %s: %lld of %lld escalated", qs[c],
                      (long long)a.r.n_escalated,
                      (long long)a.r.n_elements);
        }
        run_free(&a), run_free(&b);
    }
}

int main(void)
{
    test_pure_mpfr_agrees();
    test_uint64_truncation();
    test_fp32_saturation();
    test_tie();
    test_running_max_caught();
    test_int8_out();
    return check_summary();
}
