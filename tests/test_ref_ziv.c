/* ref/: the escalating reference (binary64 first pass, MPFR for the
 * undecided elements) gives the same bits as the pure-MPFR path, on random
 * cases and on constructed hard cases; the plain-double rounding agrees
 * with MPFR's. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/ref.h"
#include "ref/ref_internal.h"
#include "test_rng.h"

static int64_t n_elems, n_esc;

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t next_u64(void) { return test_xorshift64(&rng); }
static int rnd(int n) { return (int)(next_u64() % (uint64_t)n); }
static double unif(void) { return (double)(next_u64() >> 11) * 0x1p-53; }

/* Both paths on one case text; every out / lse bit must agree. */
static void both(const char *text, const char *what)
{
    fia_case c;
    fia_error err;
    fia_case_data d;
    if (fia_case_parse_string(text, what, &c, &err) != 0) {
        CHECK_MSG(0, "%s: parse: %s\n%s", what, err.msg, text);
        return;
    }
    if (fia_case_materialize(&c, 1, &d, &err) != 0) {
        CHECK_MSG(0, "%s: materialize: %s", what, err.msg);
        fia_case_free(&c);
        return;
    }
    fia_ref_options o;
    fia_ref_options_default(&o);
    fia_ref_result a, b;
    fia_status sa = fia_ref_compute(&c, &d, &o, &a, NULL);
    o.pure_mpfr = 1;
    fia_status sb = fia_ref_compute(&c, &d, &o, &b, NULL);
    CHECK_MSG(sa == sb, "%s: status %d vs %d", what, sa, sb);
    if (sa == FIA_OK && sb == FIA_OK) {
        int same = a.out_numel == b.out_numel &&
                   (a.out_numel == 0 ||
                    memcmp(a.out.data, b.out.data, (size_t)a.out_numel * 2) == 0);
        if (a.has_lse && a.lse_numel > 0)
            same = same && memcmp(a.lse.data, b.lse.data,
                                  (size_t)a.lse_numel * 4) == 0;
        CHECK_MSG(same, "%s: escalating and pure-MPFR bits differ\n%s", what,
                  text);
        n_elems += a.n_elements;
        n_esc += a.n_escalated;
        CHECK(b.n_escalated == b.n_elements);
    }
    fia_ref_result_free(&a);
    fia_ref_result_free(&b);
    fia_case_data_free(&d);
    fia_case_free(&c);
}

static void test_round_double(void)
{
    static const ref_fmt fmts[] = {REF_FMT_FP16, REF_FMT_BF16, REF_FMT_FP32};
    static const double special[] = {
        0.0, -0.0, 1.0, 65504.0, 65519.99, 65520.0, 65536.0, 0x1p-24,
        0x1p-25, 0x1.0000000000001p-25, 0x1p-26, 0x1p-14, 0x1.ffcp-15,
        1.0 + 0x1p-11, 1.0 + 0x1p-8, 1.0 + 0x1p-24, 3.4e38, 3.41e38, 1e300,
        0x1p-133, 0x1p-134, 0x1p-149, 0x1p-150, 0x1.8p-150, 1e-300, INFINITY,
        -INFINITY};
    int bad = 0;
    for (size_t f = 0; f < 3; f++) {
        for (size_t i = 0; i < sizeof special / sizeof *special; i++)
            for (int s = -1; s <= 1; s += 2) {
                double x = s * special[i];
                bad += ref_round_double_fmt(x, fmts[f]) !=
                       ref_round_double_bits(x, fmts[f]);
            }
        for (int i = 0; i < 20000; i++) {
            /* random magnitudes over the whole range, and near-midpoints */
            double x = ldexp(unif() + 0.5, rnd(340) - 170);
            if (i & 1)
                x = ldexp(floor(ldexp(x, 12)) + 0.5, -12);
            if (i & 2)
                x = -x;
            bad += ref_round_double_fmt(x, fmts[f]) !=
                   ref_round_double_bits(x, fmts[f]);
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(isnan(fia_fp16_to_double((uint16_t)ref_round_double_fmt(NAN, REF_FMT_FP16))));
}

/* Random valid cases over the core features. */
static void random_case(char *buf, size_t len, int idx)
{
    static const char *layouts[] = {"BSH", "BSND", "BNSD", "BNSD_BSND"};
    const char *lay = layouts[rnd(4)];
    const char *dt = rnd(2) ? "fp16" : "bf16";
    int kvn = 1 + rnd(2), g = 1 + rnd(2), n = kvn * g;
    int B = 1 + rnd(2), qs = rnd(3) == 0 ? 1 : 1 + rnd(12), kvs = 1 + rnd(40);
    int D = 8 * (1 + rnd(4));
    int sm = qs == 1 ? 0 : rnd(5);
    char q[64], k[64], o[64];
    if (strcmp(lay, "BSH") == 0) {
        snprintf(q, sizeof q, "[%d,%d,%d]", B, qs, n * D);
        snprintf(k, sizeof k, "[%d,%d,%d]", B, kvs, kvn * D);
    } else if (strcmp(lay, "BSND") == 0) {
        snprintf(q, sizeof q, "[%d,%d,%d,%d]", B, qs, n, D);
        snprintf(k, sizeof k, "[%d,%d,%d,%d]", B, kvs, kvn, D);
    } else {
        snprintf(q, sizeof q, "[%d,%d,%d,%d]", B, n, qs, D);
        snprintf(k, sizeof k, "[%d,%d,%d,%d]", B, kvn, kvs, D);
    }
    (void)o;
    static const char *gens[] = {"", "normal(0,3)", "uniform(-1,1)",
                                 "normal(0,0.01)"};
    const char *gq = gens[rnd(4)], *gv = gens[rnd(4)];
    int n_out = snprintf(buf, len,
        "input_layout = %s\nnum_heads = %d\nnum_key_value_heads = %d\n"
        "scale = %.17g\nsparse_mode = %d\ninner_precise = %d\n"
        "softmax_lse_flag = %s\nquery = %s %s\nkey = %s %s\n"
        "value = %s %s\nseed = %d\n",
        lay, n, kvn, rnd(4) == 0 ? 2.0 * unif() : 1.0 / sqrt((double)D), sm,
        qs == 1 ? rnd(2) : rnd(4), rnd(2) ? "true" : "false", dt, q, dt, k,
        dt, k, idx);
    size_t at = (size_t)n_out;
    if (*gq)
        at += (size_t)snprintf(buf + at, len - at,
                               "query.gen = %s\nkey.gen = %s\n", gq, gq);
    if (*gv)
        at += (size_t)snprintf(buf + at, len - at, "value.gen = %s\n", gv);
    if (sm >= 2)
        at += (size_t)snprintf(buf + at, len - at,
                               "atten_mask = bool [2048,2048]\n");
    else if (qs == 1 ? rnd(3) == 0 : sm == 1 || rnd(2))
        at += (size_t)snprintf(buf + at, len - at,
                               "atten_mask = bool [%d,%d,%d]\n", B, qs, kvs);
    if (rnd(2) && qs > 1)
        at += (size_t)snprintf(buf + at, len - at,
                               "actual_seq_lengths = [%d]\n", 1 + rnd(qs));
    if (rnd(2))
        snprintf(buf + at, len - at, "actual_seq_lengths_kv = [%d]\n",
                 rnd(kvs + 1));
}

/* q, k, v given explicitly: [1,1,S,D] BNSD, q [1,1,1,D]. */
static void explicit_case(char *buf, size_t len, const char *dt, int S, int D,
                          double scale, const double *q, const double *k,
                          const double *v, int lse)
{
    size_t at = (size_t)snprintf(buf, len,
        "input_layout = BNSD\nnum_heads = 1\nscale = %.17g\n"
        "softmax_lse_flag = %s\nquery = %s [1,1,1,%d]\nkey = %s [1,1,%d,%d]\n"
        "value = %s [1,1,%d,%d]\n", scale, lse ? "true" : "false", dt, D, dt,
        S, D, dt, S, D);
    const double *arr[3] = {q, k, v};
    const char *nm[3] = {"query", "key", "value"};
    for (int t = 0; t < 3; t++) {
        int n = t == 0 ? D : S * D;
        at += (size_t)snprintf(buf + at, len - at, "%s.values = ", nm[t]);
        for (int i = 0; i < n; i++)
            at += (size_t)snprintf(buf + at, len - at, "%s%.17g",
                                   i ? "," : "", arr[t][i]);
        at += (size_t)snprintf(buf + at, len - at, "\n");
    }
}

static void test_hard(void)
{
    char buf[8192];
    double q[4], k[64], v[64];
    /* exact ties: equal scores, v means exactly halfway between outputs;
     * binary64 proves the row one class and rounds its means exactly
     * (ref_mean_exact.c): only lse may escalate */
    int64_t te0 = n_elems, ts0 = n_esc;
    for (int t = 0; t < 40; t++) {
        int S = 2 + rnd(6);
        for (int i = 0; i < 4; i++)
            q[i] = 0;
        for (int j = 0; j < S * 4; j++) {
            k[j] = rnd(2) ? 1.0 : -1.0;
            double base = t % 2 ? 1.0 : 0x1p-20;
            v[j] = base + (rnd(2) ? 0.0 : base * (t % 4 < 2 ? 0x1p-10 : 0x1p-7));
        }
        explicit_case(buf, sizeof buf, t % 4 < 2 ? "fp16" : "bf16", S, 4, 1.0,
                      q, k, v, 1);
        both(buf, "tie");
    }
    CHECK_MSG(n_esc - ts0 < (n_elems - te0) / 10,
              "ties: %lld of %lld elements escalated",
              (long long)(n_esc - ts0), (long long)(n_elems - te0));
    /* dtype boundaries and subnormal outputs */
    static const double edge[] = {65504.0, -65504.0, 0x1p-24, -0x1p-24,
                                  0x1.ff8p-15, 0x3p-24, 0.0, -0.0};
    for (int t = 0; t < 40; t++) {
        int S = 1 + rnd(5);
        for (int i = 0; i < 4; i++)
            q[i] = rnd(3) - 1.0;
        for (int j = 0; j < S * 4; j++) {
            k[j] = rnd(5) - 2.0;
            v[j] = edge[rnd(8)];
        }
        explicit_case(buf, sizeof buf, "fp16", S, 4, 0.5 * rnd(4), q, k, v, 1);
        both(buf, "edge");
    }
    /* lse overflow to inf and huge scores (bf16), exp underflow */
    for (int t = 0; t < 10; t++) {
        for (int i = 0; i < 4; i++)
            q[i] = (t % 2 ? 1e30 : 3e38) * (rnd(2) ? 1 : -1);
        for (int j = 0; j < 12; j++) {
            k[j] = (rnd(3) - 1) * 1e8;
            v[j] = rnd(7) - 3.0;
        }
        explicit_case(buf, sizeof buf, "bf16", 3, 4, 1.0, q, k, v, 1);
        both(buf, "overflow");
    }
    /* keys far below the max (scores 700 and more under it): the double
     * pass takes their weights as 0 with an absolute allowance and
     * decides the row, the same bits as MPFR; only the few outputs that
     * sit on a rounding boundary may escalate */
    int64_t e0 = n_elems, s0 = n_esc;
    for (int t = 0; t < 40; t++) {
        int S = 2 + rnd(7);
        for (int i = 0; i < 4; i++)
            q[i] = 1.0;
        for (int j = 0; j < S; j++) {
            /* key 0 or a random one is the max; others 0..2000 below */
            double gap = j == t % S ? 0.0 : (double)rnd(2000);
            for (int i = 0; i < 4; i++)
                k[j * 4 + i] = (1.0 - gap) / 4.0;
            for (int i = 0; i < 4; i++)
                v[j * 4 + i] = (rnd(64) - 32) / 8.0;
        }
        explicit_case(buf, sizeof buf, t % 2 ? "fp16" : "bf16", S, 4, 1.0, q,
                      k, v, 1);
        both(buf, "far keys");
    }
    CHECK_MSG(n_esc - s0 < (n_elems - e0) / 10,
              "far keys: %lld of %lld elements escalated",
              (long long)(n_esc - s0), (long long)(n_elems - e0));
    /* one key whose score, lse itself, is an fp32 tie (1 + 2^-24 and
     * neighbours): decided exactly in binary64, to even */
    int64_t le0 = n_elems, ls0 = n_esc;
    for (int t = 0; t < 8; t++) {
        for (int i = 0; i < 4; i++)
            q[i] = i == 0 ? 1.0 : i == 1 ? 0x1p-12 : 0.0;
        for (int i = 0; i < 4; i++)
            k[i] = i == 0 ? 1.0 + t * 0x1p-10 : i == 1 ? 0x1p-12 : 0.0;
        for (int i = 0; i < 4; i++)
            v[i] = 0.5 * (i + 1);
        explicit_case(buf, sizeof buf, "fp16", 1, 4, t % 2 ? 1.0 : -1.0, q,
                      k, v, 1);
        both(buf, "lse tie");
    }
    CHECK_MSG(n_esc - ls0 == 0, "lse ties: %lld of %lld elements escalated",
              (long long)(n_esc - ls0), (long long)(n_elems - le0));
    /* cancellation in lse: two equal scores -log 2 */
    for (int t = 0; t < 10; t++) {
        for (int i = 0; i < 4; i++)
            q[i] = i == 0;
        for (int j = 0; j < 8; j++)
            k[j] = j % 4 == 0 ? 1.0 : 0.0;
        for (int j = 0; j < 8; j++)
            v[j] = j;
        explicit_case(buf, sizeof buf, "fp16", 2, 4,
                      -log(2.0) * (1.0 + t * 1e-16), q, k, v, 1);
        both(buf, "lse cancellation");
    }
    /* non-finite inputs */
    for (int t = 0; t < 6; t++) {
        for (int i = 0; i < 4; i++)
            q[i] = t == 0 && i == 1 ? INFINITY : 1.0;
        for (int j = 0; j < 8; j++) {
            k[j] = t == 1 && j == 3 ? NAN : 0.5;
            v[j] = t >= 2 && j == t ? (t % 2 ? INFINITY : -INFINITY) : 1.0;
        }
        explicit_case(buf, sizeof buf, "fp16", 2, 4, 1.0, q, k, v, 1);
        both(buf, "non-finite");
    }
}

/* One key dominating another 6000 below it (weight e^-6000): the
 * reference decides at its first MPFR precision, with the right bits.
 * lse: the max score m = 2048 + 2^-13 is an fp32 midpoint, lse = m + log(1 +
 * e^-6000) rounds up to 2048 + 2^-12 (0x45000001).  out: the dominant key's
 * v is 0, the other's +-1 or 0.5, so out is +-e^-6000 (fp16 +0 / -0) or
 * 0.5 e^-6000; both paths agree bit for bit, and the bits are those. */
static void test_far_keys(void)
{
    const char *text =
        "input_layout = BNSD\nnum_heads = 1\nscale = 1\n"
        "softmax_lse_flag = true\n"
        "query = fp16 [1,1,1,16]\nkey = fp16 [1,1,2,16]\n"
        "value = fp16 [1,1,2,16]\n"
        "query.values = 1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
        "key.values = 2048,0.0001220703125,0,0,0,0,0,0,0,0,0,0,0,0,0,0, "
        "-3952,0.0001220703125,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
        "value.values = 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, "
        "1,-1,0.5,0,0,0,0,0,0,0,0,0,0,0,0,0\n";
    fia_case c;
    fia_error err;
    fia_case_data d;
    CHECK(fia_case_parse_string(text, "far", &c, &err) == 0);
    CHECK(fia_case_materialize(&c, 1, &d, &err) == 0);
    for (int pure = 0; pure < 2; pure++) {
        fia_ref_options o;
        fia_ref_options_default(&o);
        o.pure_mpfr = pure;
        fia_ref_result r;
        CHECK(fia_ref_compute(&c, &d, &o, &r, NULL) == FIA_OK);
        CHECK_MSG(r.n_refined == 0, "pure %d: %lld rows refined", pure,
                  (long long)r.n_refined);
        const uint16_t *out = r.out.data;
        uint32_t lse;
        memcpy(&lse, r.lse.data, 4);
        CHECK_MSG(lse == 0x45000001u, "lse bits %08x", lse);
        CHECK_MSG(out[0] == 0x0000 && out[1] == 0x8000 && out[2] == 0x0000 &&
                      out[3] == 0x0000,
                  "out %04x %04x %04x %04x", out[0], out[1], out[2], out[3]);
        fia_ref_result_free(&r);
    }
    fia_case_data_free(&d);
    fia_case_free(&c);
    both(text, "far keys");
}

int main(void)
{
    test_round_double();
    test_hard();
    test_far_keys();
    char buf[4096];
    for (int i = 0; i < 1500 && n_elems < 120000; i++) {
        random_case(buf, sizeof buf, i);
        both(buf, "random");
    }
    printf("%lld elements compared, %lld escalated to MPFR\n",
           (long long)n_elems, (long long)n_esc);
    CHECK(n_elems >= 100000);
    CHECK(n_esc > 0 && n_esc < n_elems / 10);
    return check_summary();
}
