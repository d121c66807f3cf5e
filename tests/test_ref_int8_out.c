/* Tests of the int8 attention_out in ref/ and compare/
 * (docs/features/int8_out.md): y = sat(round(x * qs + qo)) of the exact
 * attention output x, per-tensor and per-channel, with and without offset,
 * and its judgement in integer steps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/compare.h"
#include "ref_testlib.h"

static char *text_of(const char *qdt, const char *out, const char *extra)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "input_layout = BNSD\nnum_heads = 2\nseed = 7\n"
             "query = %s [2,2,5,64]\nkey = %s [2,2,9,64]\n"
             "value = %s [2,2,9,64]\nattention_out = %s [2,2,5,64]\n%s",
             qdt, qdt, qdt, out, extra);
    return buf;
}

static double at(const fia_tensor *t, int64_t i)
{
    return fia_load_as_double(t->dtype, t->data, i);
}

/* The int8 run's bits are sat(rne(x qs + qo)) of the fp run's exact x. */
static void check_quantized(const char *qdt, const char *scales, int per_ch)
{
    run fp, out8;
    run_text(&fp, text_of(qdt, qdt, scales), 0);
    run_text(&out8, text_of(qdt, "int8", scales), 0);
    CHECK_MSG(fp.st == FIA_OK && out8.st == FIA_OK, "%s %s: %d %d %s", qdt,
              scales, (int)fp.st, (int)out8.st, out8.err.msg);
    if (fp.st != FIA_OK || out8.st != FIA_OK) {
        run_free(&fp), run_free(&out8);
        return;
    }
    const fia_tensor *qs = fia_case_data_tensor(&out8.d, FIA_SLOT_QUANT_SCALE2);
    const fia_tensor *qo =
        fia_case_data_tensor(&out8.d, FIA_SLOT_QUANT_OFFSET2);
    int64_t n_sat = 0, bad = 0;
    for (int64_t i = 0; i < out8.r.out_numel; i++) {
        const int64_t d = i % 64, n = (i / (64 * 5)) % 2;
        const int64_t k = per_ch ? n * 64 + d : 0;
        const double s = at(qs, k), o = qo ? at(qo, k) : 0.0;
        double y = fp.r.out_exact[i] * s + o;
        double want = y <= -128 ? -128 : y >= 127 ? 127 : nearbyint(y);
        n_sat += want == -128 || want == 127;
        int8_t got = ((const int8_t *)out8.r.out.data)[i];
        bad += got != (int8_t)want || out8.r.out_exact[i] != y ||
               !(out8.r.out_bound[i] > 0) ||
               out8.r.out_bound[i] < fp.r.out_bound[i] * fabs(s);
    }
    CHECK_MSG(bad == 0, "%s %s: %lld elements off", qdt, scales,
              (long long)bad);
    CHECK_MSG(n_sat > 0 && n_sat < out8.r.out_numel,
              "%s %s: %lld saturated of %lld (want some, not all)", qdt,
              scales, (long long)n_sat, (long long)out8.r.out_numel);
    run_free(&fp), run_free(&out8);
}

static fia_compare_result judge(const run *x, const int8_t *got_data)
{
    fia_tensor got = x->r.out;
    got.data = (void *)got_data;
    fia_compare_ref ref = {.rounded = &x->r.out, .exact = x->r.out_exact,
                           .unspecified = x->r.out_unspecified,
                           .bound = x->r.out_bound};
    fia_compare_result cr;
    fia_error err;
    fia_status st = fia_compare_profile(FIA_TOL_BOUND, 0, 0, &ref, &got, &cr,
                                        &err);
    CHECK_MSG(st == FIA_OK, "compare: %s", err.msg);
    return cr;
}

/* Integer steps: the reference passes; one step where no rounding of a
 * value within the bound lands fails; a tie accepts both neighbours. */
static void check_compare(void)
{
    run out8;
    run_text(&out8, text_of("fp16", "int8",
                          "quant_scale2 = fp32 [1]\nquant_scale2.gen = "
                          "uniform(90,100)\n"),
             0);
    CHECK(out8.st == FIA_OK);
    if (out8.st != FIA_OK)
        return;
    int64_t n = out8.r.out_numel;
    int8_t *g = malloc((size_t)n);
    memcpy(g, out8.r.out.data, (size_t)n);
    fia_compare_result cr = judge(&out8, g);
    CHECK_MSG(cr.pass && cr.n_compared == n, "reference itself: %lld fail",
              (long long)cr.n_fail);
    int64_t moved = -1;
    for (int64_t i = 0; i < n && moved < 0; i++) {
        double y = out8.r.out_exact[i], b = out8.r.out_bound[i];
        if (y > -120 && y < 120 && fabs(y - nearbyint(y)) + b < 0.4) {
            g[i] = (int8_t)(g[i] + 1);
            moved = i;
        }
    }
    CHECK_MSG(moved >= 0, "no element far from a tie");
    cr = judge(&out8, g);
    CHECK_MSG(!cr.pass && cr.n_fail == 1, "one step off: %lld fail",
              (long long)cr.n_fail);
    /* a tie: exact 2.5 with a tiny bound accepts 2 and 3, not 1 or 4 */
    out8.r.out_exact[0] = 2.5, out8.r.out_bound[0] = 0x1p-60;
    memcpy(g, out8.r.out.data, (size_t)n);
    for (int v = 1; v <= 4; v++) {
        g[0] = (int8_t)v;
        cr = judge(&out8, g);
        CHECK_MSG(cr.pass == (v == 2 || v == 3), "tie 2.5, got %d: %d", v,
                  cr.pass);
    }
    free(g);
    run_free(&out8);
}

/* A documented zero row (empty key sequence) is sat(round(qo)). */
static void check_zero_rows(void)
{
    run out8;
    run_text(&out8, text_of("bf16", "int8",
                          "actual_seq_lengths_kv = [0, 9]\n"
                          "quant_scale2 = bf16 [1]\nquant_offset2 = bf16 [1]\n"
                          "quant_offset2.gen = uniform(3,4)\n"),
             0);
    CHECK_MSG(out8.st == FIA_OK, "%s", out8.err.msg);
    if (out8.st != FIA_OK)
        return;
    const fia_tensor *qo =
        fia_case_data_tensor(&out8.d, FIA_SLOT_QUANT_OFFSET2);
    double o = at(qo, 0);
    for (int64_t i = 0; i < 2 * 5 * 64; i++) /* batch 0 */
        CHECK_MSG(((const int8_t *)out8.r.out.data)[i] ==
                          (int8_t)nearbyint(o) &&
                      out8.r.out_exact[i] == o,
                  "zero row element %lld", (long long)i);
    run_free(&out8);
}

int main(void)
{
    check_quantized("fp16", "quant_scale2 = fp32 [1]\n"
                            "quant_scale2.gen = uniform(60,120)\n", 0);
    check_quantized("fp16", "quant_scale2 = fp32 [2,64]\n"
                            "quant_scale2.gen = uniform(-150,150)\n"
                            "quant_offset2 = fp32 [2,64]\n"
                            "quant_offset2.gen = uniform(-5,5)\n", 1);
    check_quantized("bf16", "quant_scale2 = bf16 [128]\n"
                            "quant_scale2.gen = uniform(50,150)\n"
                            "quant_offset2 = bf16 [128]\n", 1);
    check_compare();
    check_zero_rows();
    return check_summary();
}
