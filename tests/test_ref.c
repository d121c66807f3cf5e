/* ref/: the MPFR reference against hand-computed answers and an independent
 * long double computation. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "check.h"
#include "fia/case.h"
#include "fia/ref.h"
#include "ref/ref_internal.h"

/* ---- string building ---------------------------------------------------- */

typedef struct sbuf {
    char *s;
    size_t n, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->n + (size_t)need + 1 > b->cap) {
        b->cap = (b->n + (size_t)need + 1) * 2;
        b->s = realloc(b->s, b->cap);
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    b->n += (size_t)need;
}

/* ---- test cases in logical order --------------------------------------- */

/* q [B][N][QS][D], k/v [B][KVN][KVS][D] in logical (BNSD) order. */
typedef struct tcase {
    const char *layout;
    const char *dtype;      /* query / key / value dtype */
    int64_t B, N, KVN, QS, KVS, D;
    double *q, *k, *v;
    const char *extra;      /* further case lines */
} tcase;

#define QI(t, b, n, i, d) ((((b) * (t)->N + (n)) * (t)->QS + (i)) * (t)->D + (d))
#define KI(t, b, n, j, d) ((((b) * (t)->KVN + (n)) * (t)->KVS + (j)) * (t)->D + (d))

static void values_line(sbuf *sb, const char *name, const double *x,
                        int64_t B, int64_t H, int64_t S, int64_t D,
                        const char *layout)
{
    int bsnd = strcmp(layout, "BSH") == 0 || strcmp(layout, "BSND") == 0;
    sb_printf(sb, "%s.values = ", name);
    int first = 1;
    if (bsnd) {
        for (int64_t b = 0; b < B; b++)
            for (int64_t s = 0; s < S; s++)
                for (int64_t h = 0; h < H; h++)
                    for (int64_t d = 0; d < D; d++) {
                        sb_printf(sb, first ? "%.17g" : ", %.17g",
                                  x[((b * H + h) * S + s) * D + d]);
                        first = 0;
                    }
    } else {
        for (int64_t i = 0; i < B * H * S * D; i++) {
            sb_printf(sb, first ? "%.17g" : ", %.17g", x[i]);
            first = 0;
        }
    }
    sb_printf(sb, "\n");
}

static void shape_str(sbuf *sb, const char *layout, int64_t B, int64_t H,
                      int64_t S, int64_t D)
{
    if (strcmp(layout, "BSH") == 0)
        sb_printf(sb, "[%lld,%lld,%lld]", (long long)B, (long long)S,
                  (long long)(H * D));
    else if (strcmp(layout, "BSND") == 0)
        sb_printf(sb, "[%lld,%lld,%lld,%lld]", (long long)B, (long long)S,
                  (long long)H, (long long)D);
    else
        sb_printf(sb, "[%lld,%lld,%lld,%lld]", (long long)B, (long long)H,
                  (long long)S, (long long)D);
}

/* Values exact in the dtype (the case generator would round them). */
static void snap(double *x, int64_t n, const char *dt)
{
    for (int64_t i = 0; x && i < n; i++)
        x[i] = strcmp(dt, "bf16") == 0
                   ? fia_bf16_to_double(fia_double_to_bf16(x[i]))
                   : fia_fp16_to_double(fia_double_to_fp16(x[i]));
}

static char *build(const tcase *t)
{
    sbuf sb = {0};
    const char *dt = t->dtype ? t->dtype : "fp16";
    snap(t->q, t->B * t->N * t->QS * t->D, dt);
    snap(t->k, t->B * t->KVN * t->KVS * t->D, dt);
    snap(t->v, t->B * t->KVN * t->KVS * t->D, dt);
    sb_printf(&sb, "input_layout = %s\nnum_heads = %lld\n"
                   "num_key_value_heads = %lld\n",
              t->layout, (long long)t->N, (long long)t->KVN);
    sb_printf(&sb, "query = %s ", dt);
    shape_str(&sb, t->layout, t->B, t->N, t->QS, t->D);
    sb_printf(&sb, "\nkey = %s ", dt);
    shape_str(&sb, t->layout, t->B, t->KVN, t->KVS, t->D);
    sb_printf(&sb, "\nvalue = %s ", dt);
    shape_str(&sb, t->layout, t->B, t->KVN, t->KVS, t->D);
    sb_printf(&sb, "\n");
    if (t->B * t->N * t->QS * t->D > 0)
        values_line(&sb, "query", t->q, t->B, t->N, t->QS, t->D, t->layout);
    if (t->B * t->KVN * t->KVS * t->D > 0) {
        values_line(&sb, "key", t->k, t->B, t->KVN, t->KVS, t->D, t->layout);
        values_line(&sb, "value", t->v, t->B, t->KVN, t->KVS, t->D,
                    t->layout);
    }
    if (t->extra)
        sb_printf(&sb, "%s\n", t->extra);
    return sb.s;
}

typedef struct run {
    fia_case c;
    fia_case_data d;
    fia_ref_result r;
    fia_status st;
    int ok;                 /* parse + materialize worked */
} run;

static void run_text(run *x, const char *text, long prec)
{
    memset(x, 0, sizeof *x);
    fia_case_error err;
    fia_case_init(&x->c);
    if (fia_case_parse_string(text, "<test>", &x->c, &err) != 0) {
        fprintf(stderr, "parse error line %d: %s\n", err.line, err.msg);
        x->st = -1;
        return;
    }
    if (fia_case_materialize(&x->c, 1, &x->d, &err) != 0) {
        fprintf(stderr, "materialize error: %s\n", err.msg);
        x->st = -1;
        return;
    }
    x->ok = 1;
    fia_ref_options o;
    fia_ref_options_default(&o);
    if (prec > 0)
        o.precision_bits = prec;
    x->st = fia_ref_compute(&x->c, &x->d, &o, &x->r);
}

static void run_free(run *x)
{
    fia_ref_result_free(&x->r);
    if (x->ok)
        fia_case_data_free(&x->d);
    fia_case_free(&x->c);
}

static void run_case(run *x, const tcase *t)
{
    char *text = build(t);
    run_text(x, text, 0);
    free(text);
}

/* Output element (b, n, i, d) of a run of t, as index into r.out. */
static int64_t out_index(const tcase *t, int64_t b, int64_t n, int64_t i,
                         int64_t d)
{
    if (strcmp(t->layout, "BNSD") == 0)
        return QI(t, b, n, i, d);
    return (((b * t->QS + i) * t->N + n) * t->D) + d;
}

static double out_val(const run *x, int64_t idx)
{
    uint16_t h = ((const uint16_t *)x->r.out.data)[idx];
    return x->r.out.dtype == FIA_DT_BF16 ? fia_bf16_to_double(h)
                                          : fia_fp16_to_double(h);
}

static uint16_t out_bits(const run *x, int64_t idx)
{
    return ((const uint16_t *)x->r.out.data)[idx];
}

static float lse_val(const run *x, int64_t idx)
{
    float f;
    memcpy(&f, (const uint32_t *)x->r.lse.data + idx, sizeof f);
    return f;
}

/* ---- deterministic data ------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
/* multiples of 2^-8 in (-4, 4): exact in fp16 and bf16 */
static double rnd_val(void)
{
    return ldexp((double)((int64_t)(rng() % 2047) - 1023), -8);
}
static double *rnd_array(int64_t n)
{
    double *a = malloc((size_t)(n > 0 ? n : 1) * sizeof *a);
    for (int64_t i = 0; i < n; i++)
        a[i] = rnd_val();
    return a;
}

/* ---- long double reference --------------------------------------------- */

typedef int (*allow_fn)(const void *ctx, int64_t b, int64_t i, int64_t j);

static int allow_all(const void *ctx, int64_t b, int64_t i, int64_t j)
{
    (void)ctx, (void)b, (void)i, (void)j;
    return 1;
}

/* out [B][N][QS][D], lse [B][N][QS]; returns number of keys of row (b,n,i)
 * in nkeys (NULL ok). */
static void ld_attention(const tcase *t, double scale, allow_fn allow,
                         const void *ctx, long double *out, long double *lse,
                         int *nkeys)
{
    int64_t g = t->N / t->KVN;
    long double *s = malloc((size_t)(t->KVS > 0 ? t->KVS : 1) * sizeof *s);
    for (int64_t b = 0; b < t->B; b++)
        for (int64_t n = 0; n < t->N; n++)
            for (int64_t i = 0; i < t->QS; i++) {
                int64_t kn = n / g;
                long double m = -INFINITY;
                int cnt = 0;
                for (int64_t j = 0; j < t->KVS; j++) {
                    if (!allow(ctx, b, i, j))
                        continue;
                    long double acc = 0;
                    for (int64_t d = 0; d < t->D; d++)
                        acc += (long double)t->q[QI(t, b, n, i, d)] *
                               t->k[KI(t, b, kn, j, d)];
                    s[j] = acc * scale;
                    if (s[j] > m)
                        m = s[j];
                    cnt++;
                }
                long double S = 0;
                for (int64_t j = 0; j < t->KVS; j++)
                    if (allow(ctx, b, i, j))
                        S += expl(s[j] - m);
                for (int64_t d = 0; d < t->D; d++) {
                    long double num = 0;
                    for (int64_t j = 0; j < t->KVS; j++)
                        if (allow(ctx, b, i, j))
                            num += expl(s[j] - m) * t->v[KI(t, b, kn, j, d)];
                    out[QI(t, b, n, i, d)] = cnt ? num / S : 0;
                }
                int64_t li = (b * t->N + n) * t->QS + i;
                lse[li] = cnt ? m + logl(S) : INFINITY;
                if (nkeys)
                    nkeys[li] = cnt;
            }
    free(s);
}

/* Compares every specified element of run x with the long double reference;
 * rows with no keys are expected unspecified unless told otherwise. */
static void check_vs_ld(const run *x, const tcase *t, double scale,
                        allow_fn allow, const void *ctx, const char *what)
{
    int64_t nq = t->B * t->N * t->QS;
    long double *out = malloc((size_t)(nq * t->D + 1) * sizeof *out);
    long double *lse = malloc((size_t)(nq + 1) * sizeof *lse);
    int *nk = malloc((size_t)(nq + 1) * sizeof *nk);
    ld_attention(t, scale, allow, ctx, out, lse, nk);
    int bad = 0;
    for (int64_t b = 0; b < t->B; b++)
        for (int64_t n = 0; n < t->N; n++)
            for (int64_t i = 0; i < t->QS; i++)
                for (int64_t d = 0; d < t->D; d++) {
                    int64_t oi = out_index(t, b, n, i, d);
                    if (x->r.out_unspecified[oi])
                        continue;
                    long double e = out[QI(t, b, n, i, d)];
                    double ex = x->r.out_exact[oi];
                    /* exact values agree closely; the rounded value is the
                     * nearest fp16 to the exact one */
                    if (fabsl(ex - e) > 1e-15L * 4 + fabsl(e) * 1e-15L)
                        bad++;
                    uint16_t want = x->r.out.dtype == FIA_DT_BF16
                                        ? fia_double_to_bf16(ex)
                                        : fia_double_to_fp16(ex);
                    if (want != out_bits(x, oi))
                        bad++;
                }
    CHECK_MSG(bad == 0, "%s: %d elements differ from long double", what, bad);
    if (x->r.has_lse) {
        int lbad = 0;
        for (int64_t li = 0; li < nq; li++) {
            if (x->r.lse_unspecified[li])
                continue;
            long double e = lse[li];
            float got = lse_val(x, li);
            float near = (float)e;
            if (!(got == near || nextafterf(near, INFINITY) == got ||
                  nextafterf(near, -INFINITY) == got))
                lbad++;
            if (fabsl(x->r.lse_exact[li] - e) > 1e-14L * (1 + fabsl(e)))
                lbad++;
        }
        CHECK_MSG(lbad == 0, "%s: %d lse values differ", what, lbad);
    }
    free(out);
    free(lse);
    free(nk);
}

/* ---- rounding ----------------------------------------------------------- */

static void test_round_exhaustive(void)
{
    int bad = 0, badmid = 0;
    for (uint32_t h = 0; h < 0x10000u; h++) {
        double x = fia_fp16_to_double((uint16_t)h);
        if (isnan(x))
            continue;
        if (ref_round_double_bits(x, REF_FMT_FP16) != h)
            bad++;
    }
    CHECK_MSG(bad == 0, "fp16 round trip: %d", bad);
    /* midpoints between consecutive finite values, both signs */
    for (uint32_t h = 0; h < 0x7BFFu; h++) {
        double a = fia_fp16_to_double((uint16_t)h);
        double b = fia_fp16_to_double((uint16_t)(h + 1));
        double mid = (a + b) / 2; /* exact in binary64 */
        uint32_t even = (h & 1u) ? h + 1 : h;
        if (ref_round_double_bits(mid, REF_FMT_FP16) != even)
            badmid++;
        if (ref_round_double_bits(-mid, REF_FMT_FP16) != (even | 0x8000u))
            badmid++;
        if (ref_round_double_bits(nextafter(mid, 0), REF_FMT_FP16) != h)
            badmid++;
        if (ref_round_double_bits(nextafter(mid, INFINITY), REF_FMT_FP16) !=
            h + 1)
            badmid++;
    }
    CHECK_MSG(badmid == 0, "fp16 midpoints: %d", badmid);
    CHECK_EQ_INT(ref_round_double_bits(65520.0, REF_FMT_FP16), 0x7C00);
    CHECK_EQ_INT(ref_round_double_bits(nextafter(65520.0, 0), REF_FMT_FP16),
                 0x7BFF);
    CHECK_EQ_INT(ref_round_double_bits(-1e300, REF_FMT_FP16), 0xFC00);
    CHECK_EQ_INT(ref_round_double_bits(ldexp(1, -25), REF_FMT_FP16), 0);
    CHECK_EQ_INT(ref_round_double_bits(nextafter(ldexp(1, -25), 1),
                                       REF_FMT_FP16), 1);
    CHECK_EQ_INT(ref_round_double_bits(-ldexp(1, -26), REF_FMT_FP16), 0x8000);
    CHECK_EQ_INT(ref_round_double_bits(NAN, REF_FMT_FP16) & 0x7C00u, 0x7C00);
    CHECK(ref_round_double_bits(NAN, REF_FMT_FP16) & 0x3FFu);

    bad = badmid = 0;
    for (uint32_t h = 0; h < 0x10000u; h++) {
        double x = fia_bf16_to_double((uint16_t)h);
        if (isnan(x))
            continue;
        if (ref_round_double_bits(x, REF_FMT_BF16) != h)
            bad++;
    }
    CHECK_MSG(bad == 0, "bf16 round trip: %d", bad);
    for (uint32_t h = 0; h < 0x7F7Fu; h++) {
        double a = fia_bf16_to_double((uint16_t)h);
        double b = fia_bf16_to_double((uint16_t)(h + 1));
        double mid = (a + b) / 2;
        uint32_t even = (h & 1u) ? h + 1 : h;
        if (ref_round_double_bits(mid, REF_FMT_BF16) != even)
            badmid++;
        if (ref_round_double_bits(-nextafter(mid, 0), REF_FMT_BF16) !=
            (h | 0x8000u))
            badmid++;
        if (ref_round_double_bits(nextafter(mid, INFINITY), REF_FMT_BF16) !=
            h + 1)
            badmid++;
    }
    CHECK_MSG(badmid == 0, "bf16 midpoints: %d", badmid);
    /* bf16 max (1 - 2^-8) 2^128; halfway to 2^128 overflows */
    CHECK_EQ_INT(ref_round_double_bits(ldexp(1 - ldexp(1, -9), 128),
                                       REF_FMT_BF16), 0x7F80);
    CHECK_EQ_INT(ref_round_double_bits(ldexp(1, -134), REF_FMT_BF16), 0);
    CHECK_EQ_INT(ref_round_double_bits(ldexp(3, -135), REF_FMT_BF16), 1);

    /* fp32 against the hardware conversion (round to nearest even) */
    bad = 0;
    for (int i = 0; i < 200000; i++) {
        uint64_t u = rng();
        double x;
        memcpy(&x, &u, sizeof x);
        if (isnan(x))
            continue;
        /* bring most into and around the float range */
        if (i % 2 == 0)
            x = ldexp(frexp(x, &(int){0}), (int)(rng() % 300) - 160);
        float f = (float)x;
        uint32_t fb;
        memcpy(&fb, &f, sizeof fb);
        if (ref_round_double_bits(x, REF_FMT_FP32) != fb)
            bad++;
    }
    CHECK_MSG(bad == 0, "fp32 rounding: %d", bad);
}

/* ---- hand-computed cases ------------------------------------------------ */

static void test_uniform_mean(void)
{
    /* identical keys: every score equal, out = mean of V.  Column 0: mean of
     * 1 and 1 + 2^-10 is the midpoint 1 + 2^-11 -> even (1.0).  Column 1:
     * 1 + 2^-10 and 1 + 2^-9 -> midpoint -> even 1 + 2^-9. */
    double q[2] = {0.5, -1.25};
    double k[4] = {1, 2, 1, 2};
    double v[4] = {1, 1 + ldexp(1, -10), 1 + ldexp(1, -10), 1 + ldexp(1, -9)};
    tcase t = {"BNSD", "fp16", 1, 1, 1, 1, 2, 2, q, k, v,
               "softmax_lse_flag = true"};
    run x;
    run_case(&x, &t);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK) {
        CHECK_EQ_INT(out_bits(&x, 0), 0x3C00);
        CHECK_EQ_INT(out_bits(&x, 1), 0x3C02);
        CHECK(x.r.out_exact[0] == 1 + ldexp(1, -11));
        CHECK(!x.r.out_unspecified[0] && !x.r.out_unspecified[1]);
        /* score = -2; lse = -2 + log 2 */
        CHECK(lse_val(&x, 0) == (float)(-2 + log(2.0)));
    }
    run_free(&x);

    /* three identical keys, v = 1, 2, 4: 7/3 correctly rounded */
    double k3[3] = {3, 3, 3}, v3[3] = {1, 2, 4}, q1[1] = {1};
    tcase t3 = {"BSND", "bf16", 1, 1, 1, 1, 3, 1, q1, k3, v3, NULL};
    run_case(&x, &t3);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK)
        CHECK_EQ_INT(out_bits(&x, 0), fia_double_to_bf16(7.0 / 3));
    run_free(&x);

    /* scale 0: uniform as well */
    double kz[3] = {1, -7, 3};
    tcase tz = {"BSH", "fp16", 1, 1, 1, 1, 3, 1, q1, kz, v3, "scale = 0"};
    run_case(&x, &tz);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK)
        CHECK_EQ_INT(out_bits(&x, 0), fia_double_to_fp16(7.0 / 3));
    run_free(&x);
}

static void test_one_hot(void)
{
    double q[4] = {100, 100, 100, 100};
    double k[12] = {100, 100, 100, 100, 0, 0, 0, 0, -1, 1, -1, 1};
    double v[12] = {0.1, -3, 7.5, 1000, 5, 5, 5, 5, -9, 9, -9, 9};
    for (int i = 0; i < 12; i++)
        v[i] = fia_fp16_to_double(fia_double_to_fp16(v[i]));
    tcase t = {"BNSD", "fp16", 1, 1, 1, 1, 3, 4, q, k, v,
               "softmax_lse_flag = true"};
    run x;
    run_case(&x, &t);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK) {
        for (int d = 0; d < 4; d++)
            CHECK(out_val(&x, d) == v[d]);
        CHECK(lse_val(&x, 0) == 40000.0f);
    }
    run_free(&x);
}

/* causal-like masks, per mode, against the long double computation */
typedef struct geo {
    int mode;
    int64_t pre, next;
    const int64_t *q_len, *kv_len;
    const uint8_t *mask; /* [QS][KVS] for modes 0/1 */
    int64_t QS, KVS;
} geo;

static int allow_geo(const void *ctx, int64_t b, int64_t i, int64_t j)
{
    const geo *g = ctx;
    int64_t ql = g->q_len ? g->q_len[b] : g->QS;
    int64_t kl = g->kv_len ? g->kv_len[b] : g->KVS;
    if (i >= ql || j >= kl)
        return 0;
    long double off = (long double)kl - ql;
    long double I = i, J = j, pre = g->pre, next = g->next;
    switch (g->mode) {
    case 0:
        if (!g->mask)
            return 1;
        return !g->mask[i * g->KVS + j] && I - pre <= J && J <= I + next;
    case 1:
        return !g->mask[i * g->KVS + j];
    case 2:
        return j <= i;
    case 3:
        return J <= I + off;
    case 4:
        return I + off - pre <= J && J <= I + off + next;
    }
    return 0;
}

static void test_causal_modes(void)
{
    run x;
    /* mode 2: row 0 sees only key 0 */
    {
        int64_t QS = 4, KVS = 4, D = 8;
        double *q = rnd_array(QS * D), *k = rnd_array(KVS * D),
               *v = rnd_array(KVS * D);
        tcase t = {"BNSD", "fp16", 1, 1, 1, QS, KVS, D, q, k, v,
                   "sparse_mode = 2\natten_mask = bool [2048,2048]\n"
                   "atten_mask.gen = causal\nsoftmax_lse_flag = true"};
        run_case(&x, &t);
        CHECK_EQ_INT(x.st, FIA_OK);
        if (x.st == FIA_OK) {
            for (int d = 0; d < D; d++)
                CHECK(out_val(&x, d) == v[d]);
            geo g = {2, 0, 0, NULL, NULL, NULL, QS, KVS};
            check_vs_ld(&x, &t, 1.0, allow_geo, &g, "mode 2");
        }
        run_free(&x);
        free(q), free(k), free(v);
    }
    /* mode 3 with kv_len > q_len: row i sees j <= i + 2 */
    {
        int64_t QS = 3, KVS = 5, D = 4;
        double *q = rnd_array(QS * D), *k = rnd_array(KVS * D),
               *v = rnd_array(KVS * D);
        tcase t = {"BNSD", "fp16", 1, 1, 1, QS, KVS, D, q, k, v,
                   "sparse_mode = 3\natten_mask = bool [2048,2048]\n"
                   "softmax_lse_flag = true\nscale = 0.5"};
        run_case(&x, &t);
        CHECK_EQ_INT(x.st, FIA_OK);
        if (x.st == FIA_OK) {
            geo g = {3, 0, 0, NULL, NULL, NULL, QS, KVS};
            check_vs_ld(&x, &t, 0.5, allow_geo, &g, "mode 3");
        }
        run_free(&x);
        /* the same with keys beyond i + 2 changed: no effect on row 0 */
        double *k2 = malloc(sizeof(double) * KVS * D);
        memcpy(k2, k, sizeof(double) * KVS * D);
        for (int d = 0; d < D; d++)
            k2[3 * D + d] = k2[4 * D + d] = 3.5;
        run y;
        t.k = k2;
        run_case(&x, &t);
        t.k = k;
        run_case(&y, &t);
        if (x.st == FIA_OK && y.st == FIA_OK)
            for (int d = 0; d < D; d++)
                CHECK(out_bits(&x, d) == out_bits(&y, d));
        run_free(&x), run_free(&y);
        free(q), free(k), free(v), free(k2);
    }
    /* mode 3 with q_len > kv_len: the first rows are invalid -> 0, +inf */
    {
        int64_t QS = 5, KVS = 3, D = 4;
        double *q = rnd_array(QS * D), *k = rnd_array(KVS * D),
               *v = rnd_array(KVS * D);
        tcase t = {"BNSD", "fp16", 1, 1, 1, QS, KVS, D, q, k, v,
                   "sparse_mode = 3\natten_mask = bool [2048,2048]\n"
                   "softmax_lse_flag = true\ninner_precise = 0"};
        run_case(&x, &t);
        CHECK_EQ_INT(x.st, FIA_OK);
        if (x.st == FIA_OK) {
            for (int i = 0; i < 2; i++) {
                for (int d = 0; d < D; d++) {
                    CHECK(!x.r.out_unspecified[i * D + d]);
                    CHECK_EQ_INT(out_bits(&x, i * D + d), 0);
                }
                CHECK(!x.r.lse_unspecified[i]);
                CHECK(isinf(lse_val(&x, i)) && lse_val(&x, i) > 0);
            }
            geo g = {3, 0, 0, NULL, NULL, NULL, QS, KVS};
            check_vs_ld(&x, &t, 1.0, allow_geo, &g, "mode 3 q>kv");
        }
        run_free(&x);
        free(q), free(k), free(v);
    }
    /* band mode 4, small pre / next, with kv > q */
    {
        int64_t QS = 6, KVS = 8, D = 4;
        double *q = rnd_array(QS * D), *k = rnd_array(KVS * D),
               *v = rnd_array(KVS * D);
        tcase t = {"BNSD", "fp16", 1, 1, 1, QS, KVS, D, q, k, v,
                   "sparse_mode = 4\natten_mask = bool [2048,2048]\n"
                   "pre_tokens = 1\nnext_tokens = 0\n"
                   "softmax_lse_flag = true\ninner_precise = 2"};
        run_case(&x, &t);
        CHECK_EQ_INT(x.st, FIA_OK);
        if (x.st == FIA_OK) {
            geo g = {4, 1, 0, NULL, NULL, NULL, QS, KVS};
            check_vs_ld(&x, &t, 1.0, allow_geo, &g, "mode 4");
            /* row 0 sees keys 1 and 2 only: keys 2 is i + off */
            int cnt = 0;
            for (int j = 0; j < KVS; j++)
                cnt += allow_geo(&g, 0, 0, j);
            CHECK_EQ_INT(cnt, 2);
        }
        run_free(&x);
        free(q), free(k), free(v);
    }
}

static void test_mask_mode0_1(void)
{
    int64_t QS = 7, KVS = 9, D = 5;
    double *q = rnd_array(QS * D), *k = rnd_array(KVS * D),
           *v = rnd_array(KVS * D);
    uint8_t mask[7 * 9];
    for (int i = 0; i < QS * KVS; i++)
        mask[i] = rng() % 3 == 0;
    for (int j = 0; j < KVS; j++)
        mask[3 * KVS + j] = 1; /* row 3 fully masked */
    sbuf sb = {0};
    sb_printf(&sb, "atten_mask = bool [%lld,%lld]\natten_mask.values = ",
              (long long)QS, (long long)KVS);
    for (int i = 0; i < QS * KVS; i++)
        sb_printf(&sb, i ? ", %d" : "%d", mask[i]);
    char *base = sb.s;
    for (int mode = 0; mode <= 1; mode++) {
        for (int ip = 0; ip <= 2; ip += 2) {
            char extra[4096];
            snprintf(extra, sizeof extra,
                     "%s\nsparse_mode = %d\npre_tokens = 2\nnext_tokens = 1\n"
                     "softmax_lse_flag = true\ninner_precise = %d\n"
                     "scale = -0.75",
                     base, mode, ip);
            tcase t = {"BNSD", "fp16", 1, 1, 1, QS, KVS, D, q, k, v, extra};
            run x;
            run_case(&x, &t);
            CHECK_EQ_INT(x.st, FIA_OK);
            if (x.st == FIA_OK) {
                geo g = {mode, 2, 1, NULL, NULL, mask, QS, KVS};
                check_vs_ld(&x, &t, -0.75, allow_geo, &g, "mask");
                for (int d = 0; d < D; d++) {
                    if (ip == 2) {
                        CHECK(!x.r.out_unspecified[3 * D + d]);
                        CHECK_EQ_INT(out_bits(&x, 3 * D + d), 0);
                    } else {
                        CHECK(x.r.out_unspecified[3 * D + d]);
                    }
                }
                CHECK_EQ_INT(x.r.lse_unspecified[3], ip == 0);
                if (ip == 2)
                    CHECK(isinf(lse_val(&x, 3)));
            }
            run_free(&x);
        }
    }
    free(base);
    free(q), free(k), free(v);
}

static void test_seq_lengths(void)
{
    int64_t B = 2, QS = 4, KVS = 8, D = 4;
    double *q = rnd_array(B * QS * D), *k = rnd_array(B * KVS * D),
           *v = rnd_array(B * KVS * D);
    tcase t = {"BNSD", "fp16", B, 1, 1, QS, KVS, D, q, k, v,
               "actual_seq_lengths = [2, 4]\nactual_seq_lengths_kv = [5, 8]\n"
               "softmax_lse_flag = true"};
    run x;
    run_case(&x, &t);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK) {
        int64_t ql[2] = {2, 4}, kl[2] = {5, 8};
        geo g = {0, 0, 0, ql, kl, NULL, QS, KVS};
        check_vs_ld(&x, &t, 1.0, allow_geo, &g, "seq lengths");
        for (int i = 0; i < QS; i++) {
            for (int d = 0; d < D; d++)
                CHECK_EQ_INT(x.r.out_unspecified[i * D + d], i >= 2);
            CHECK_EQ_INT(x.r.lse_unspecified[i], i >= 2);
        }
        /* batch 0 equals the run on the first 5 keys and 2 rows */
        double *k5 = malloc(sizeof(double) * 5 * D);
        double *v5 = malloc(sizeof(double) * 5 * D);
        memcpy(k5, k, sizeof(double) * 5 * D);
        memcpy(v5, v, sizeof(double) * 5 * D);
        tcase t5 = {"BNSD", "fp16", 1, 1, 1, 2, 5, D, q, k5, v5,
                    "softmax_lse_flag = true"};
        run y;
        run_case(&y, &t5);
        CHECK_EQ_INT(y.st, FIA_OK);
        if (y.st == FIA_OK) {
            for (int i = 0; i < 2 * D; i++)
                CHECK(out_bits(&x, i) == out_bits(&y, i));
            for (int i = 0; i < 2; i++)
                CHECK(lse_val(&x, i) == lse_val(&y, i));
        }
        run_free(&y);
        free(k5), free(v5);
    }
    run_free(&x);

    /* kv length 0 for one batch: zeros; lse unspecified (KV_S > 0) */
    tcase tz = {"BNSD", "fp16", B, 1, 1, QS, KVS, D, q, k, v,
                "actual_seq_lengths_kv = [0, 8]\nsoftmax_lse_flag = true"};
    run_case(&x, &tz);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK) {
        for (int i = 0; i < QS * D; i++) {
            CHECK(!x.r.out_unspecified[i]);
            CHECK_EQ_INT(out_bits(&x, i), 0);
        }
        CHECK(x.r.lse_unspecified[0]);
        CHECK(!x.r.lse_unspecified[QS]);
    }
    run_free(&x);
    /* broadcast length-1 arrays; bad length -> PARAM_INVALID */
    tcase tb = {"BNSD", "fp16", B, 1, 1, QS, KVS, D, q, k, v,
                "actual_seq_lengths = [9]"};
    run_case(&x, &tb);
    CHECK_EQ_INT(x.st, FIA_ERR_PARAM_INVALID);
    run_free(&x);
    free(q), free(k), free(v);
}

static void test_kv_empty(void)
{
    double q[8];
    for (int i = 0; i < 8; i++)
        q[i] = i;
    tcase t = {"BNSD", "fp16", 1, 2, 2, 1, 0, 4, q, NULL, NULL,
               "softmax_lse_flag = true"};
    run x;
    run_case(&x, &t);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK) {
        CHECK_EQ_INT(x.r.out_numel, 8);
        for (int i = 0; i < 8; i++) {
            CHECK(!x.r.out_unspecified[i]);
            CHECK_EQ_INT(out_bits(&x, i), 0);
        }
        for (int i = 0; i < 2; i++) {
            CHECK(!x.r.lse_unspecified[i]);
            CHECK(isinf(lse_val(&x, i)) && lse_val(&x, i) > 0);
        }
    }
    run_free(&x);
    /* empty query */
    tcase te = {"BSND", "fp16", 0, 2, 2, 3, 4, 4, NULL, NULL, NULL,
                "softmax_lse_flag = true"};
    run_case(&x, &te);
    CHECK_EQ_INT(x.st, FIA_OK);
    CHECK_EQ_INT(x.r.out_numel, 0);
    run_free(&x);
}

static void test_gqa(void)
{
    int64_t N = 4, KVN = 2, QS = 2, KVS = 3, D = 2;
    double *q = rnd_array(N * QS * D), *k = rnd_array(KVN * KVS * D);
    double *v = malloc(sizeof(double) * KVN * KVS * D);
    for (int i = 0; i < KVN * KVS * D; i++)
        v[i] = i < KVS * D ? 1.0 : 2.0;
    tcase t = {"BNSD", "fp16", 1, N, KVN, QS, KVS, D, q, k, v,
               "softmax_lse_flag = true"};
    run x;
    run_case(&x, &t);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK) {
        for (int n = 0; n < N; n++)
            for (int i = 0; i < QS * D; i++)
                CHECK(out_val(&x, n * QS * D + i) == (n < 2 ? 1.0 : 2.0));
    }
    run_free(&x);
    double *v2 = rnd_array(KVN * KVS * D);
    t.v = v2;
    run_case(&x, &t);
    if (x.st == FIA_OK)
        check_vs_ld(&x, &t, 1.0, allow_all, NULL, "gqa");
    run_free(&x);
    free(q), free(k), free(v), free(v2);
}

static void test_layouts(void)
{
    int64_t B = 2, N = 2, KVN = 1, QS = 3, KVS = 5, D = 4;
    double *q = rnd_array(B * N * QS * D), *k = rnd_array(B * KVN * KVS * D),
           *v = rnd_array(B * KVN * KVS * D);
    const char *lays[4] = {"BNSD", "BSH", "BSND", "BNSD_BSND"};
    run x[4];
    for (int l = 0; l < 4; l++) {
        tcase t = {lays[l], "bf16", B, N, KVN, QS, KVS, D, q, k, v,
                   "softmax_lse_flag = true\nscale = 0.3"};
        run_case(&x[l], &t);
        CHECK_EQ_INT(x[l].st, FIA_OK);
    }
    int bad = 0;
    for (int l = 1; l < 4; l++) {
        if (x[l].st != FIA_OK || x[0].st != FIA_OK)
            continue;
        tcase t0 = {lays[0], "bf16", B, N, KVN, QS, KVS, D, q, k, v, NULL};
        tcase tl = {lays[l], "bf16", B, N, KVN, QS, KVS, D, q, k, v, NULL};
        for (int b = 0; b < B; b++)
            for (int n = 0; n < N; n++)
                for (int i = 0; i < QS; i++) {
                    for (int d = 0; d < D; d++)
                        bad += out_bits(&x[0], out_index(&t0, b, n, i, d)) !=
                               out_bits(&x[l], out_index(&tl, b, n, i, d));
                    int64_t li = (b * N + n) * QS + i;
                    bad += lse_val(&x[0], li) != lse_val(&x[l], li);
                }
    }
    CHECK_MSG(bad == 0, "layouts differ in %d elements", bad);
    if (x[3].st == FIA_OK) {
        CHECK_EQ_INT(x[3].r.out.ndim, 4);
        CHECK_EQ_INT(x[3].r.out.shape[1], QS);
        tcase t = {"BNSD_BSND", "bf16", B, N, KVN, QS, KVS, D, q, k, v, NULL};
        check_vs_ld(&x[3], &t, 0.3, allow_all, NULL, "BNSD_BSND");
    }
    for (int l = 0; l < 4; l++)
        run_free(&x[l]);
    free(q), free(k), free(v);
}

static void test_rounding_cases(void)
{
    run x;
    /* subnormal output: mean of 2^-24 and 2^-23 is 1.5 * 2^-24 -> even 2 */
    double q[1] = {1}, k[2] = {0, 0};
    double v[2] = {ldexp(1, -24), ldexp(1, -23)};
    tcase t = {"BNSD", "fp16", 1, 1, 1, 1, 2, 1, q, k, v, NULL};
    run_case(&x, &t);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK) {
        CHECK_EQ_INT(out_bits(&x, 0), 2);
        CHECK(x.r.out_exact[0] == ldexp(3, -25));
    }
    run_free(&x);
    /* non-tie subnormal: (2^-24 + 2^-24 + 2^-22) / 3 = 2^-23 exactly */
    double k3[3] = {0, 0, 0}, v3[3] = {ldexp(1, -24), ldexp(1, -24),
                                       ldexp(1, -22)};
    tcase t3 = {"BNSD", "fp16", 1, 1, 1, 1, 3, 1, q, k3, v3, NULL};
    run_case(&x, &t3);
    if (x.st == FIA_OK)
        CHECK_EQ_INT(out_bits(&x, 0), 2);
    run_free(&x);
    /* overflow: bf16 values of 2^17, fp16 output -> +inf */
    double vb[2] = {131072, 131072}, kb[2] = {0, 0};
    tcase tb = {"BNSD", "bf16", 1, 1, 1, 1, 2, 1, q, kb, vb,
                "query = fp16 [1,1,1,1]\nattention_out = fp16 [1,1,1,1]"};
    /* query line overrides: rebuild by hand */
    (void)tb;
    run_text(&x,
             "input_layout = BNSD\nnum_heads = 1\n"
             "query = fp16 [1,1,1,1]\nquery.values = 1\n"
             "key = bf16 [1,1,2,1]\nkey.values = 0, 0\n"
             "value = bf16 [1,1,2,1]\nvalue.values = 131072, 65536\n",
             0);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK) {
        CHECK_EQ_INT(x.r.out.dtype, FIA_DT_FP16);
        CHECK_EQ_INT(out_bits(&x, 0), 0x7C00);
        CHECK(x.r.out_exact[0] == 98304.0);
    }
    run_free(&x);
    /* largest fp16 uniformly: stays 65504 */
    double vm[2] = {65504, 65504};
    tcase tm = {"BNSD", "fp16", 1, 1, 1, 1, 2, 1, q, kb, vm, NULL};
    run_case(&x, &tm);
    if (x.st == FIA_OK)
        CHECK_EQ_INT(out_bits(&x, 0), 0x7BFF);
    run_free(&x);
}

static void test_inexact_tie(void)
{
    /* fp16 inputs, bf16 output.  Keys 0 and 1 have the top score, key 2 a
     * lower one (its weight e^-1 is inexact).  Column 0: v = 1, 1 + 2^-7,
     * 1 + 2^-8: both classes have mean 1 + 2^-8, so out = 1 + 2^-8 exactly,
     * halfway between bf16 1 and 1 + 2^-7 -> even (1).  Column 1: v =
     * 1 + 2^-7, 1 + 2^-6, 1 + 3 * 2^-8 -> 1 + 3 * 2^-8, halfway between
     * 0x3F81 and 0x3F82 -> 0x3F82.  Column 2: not a tie, compare with long
     * double. */
    run x;
    char text[1024];
    snprintf(text, sizeof text,
             "input_layout = BNSD\nnum_heads = 1\n"
             "query = fp16 [1,1,1,3]\nquery.values = 1, 0, 0\n"
             "key = fp16 [1,1,3,3]\nkey.values = 1,0,0, 1,0,0, 0,0,0\n"
             "value = fp16 [1,1,3,3]\nvalue.values = "
             "1, %.17g, 2, %.17g, %.17g, 2, %.17g, %.17g, 0.5\n"
             "attention_out = bf16 [1,1,1,3]\n",
             1 + ldexp(1, -7), 1 + ldexp(1, -7), 1 + ldexp(1, -6),
             1 + ldexp(1, -8), 1 + ldexp(3, -8));
    run_text(&x, text, 0);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK) {
        CHECK_EQ_INT(out_bits(&x, 0), 0x3F80);
        CHECK_EQ_INT(out_bits(&x, 1), 0x3F82);
        CHECK(x.r.out_exact[0] == 1 + ldexp(1, -8));
        CHECK(x.r.out_exact[1] == 1 + ldexp(3, -8));
        long double e = expl(-1.0L);
        long double want = (2 + 2 + 0.5L * e) / (2 + e);
        CHECK(fabsl(x.r.out_exact[2] - want) < 1e-15L);
        CHECK_EQ_INT(out_bits(&x, 2), fia_double_to_bf16((double)want));
    }
    run_free(&x);

    /* Three score classes (2q, q, 0), each with mean 1 + 2^-8: a tie in
     * bf16 that a plain precision refinement cannot settle (for q = 0.25
     * and 1.5 the row computed at 2^16 bits rounds the wrong way). */
    const double qs[4] = {0.25, 1.5, 0.5, 3};
    for (int a = 0; a < 4; a++) {
        snprintf(text, sizeof text,
                 "input_layout = BNSD\nnum_heads = 1\n"
                 "query = fp16 [1,1,1,1]\nquery.values = %g\n"
                 "key = fp16 [1,1,6,1]\nkey.values = 2,2,1,1,0,0\n"
                 "value = fp16 [1,1,6,1]\n"
                 "value.values = 1, %.17g, %.17g, %.17g, 1, %.17g\n"
                 "attention_out = bf16 [1,1,1,1]\n",
                 qs[a], 1 + ldexp(1, -7), 1 + ldexp(1, -8), 1 + ldexp(1, -8),
                 1 + ldexp(1, -7));
        run_text(&x, text, 0);
        CHECK_EQ_INT(x.st, FIA_OK);
        if (x.st == FIA_OK) {
            CHECK_EQ_INT(out_bits(&x, 0), 0x3F80);
            CHECK(x.r.out_exact[0] == 1 + ldexp(1, -8));
        }
        run_free(&x);
    }
}

static void test_precision_independent(void)
{
    /* the rounded result must not depend on the working precision */
    int64_t B = 1, N = 2, QS = 6, KVS = 9, D = 8;
    double *q = rnd_array(B * N * QS * D), *k = rnd_array(B * N * KVS * D),
           *v = rnd_array(B * N * KVS * D);
    tcase t = {"BSND", "fp16", B, N, N, QS, KVS, D, q, k, v,
               "softmax_lse_flag = true\nscale = 0.35355339059327373"};
    char *text = build(&t);
    run a, b;
    run_text(&a, text, 64);
    run_text(&b, text, 1024);
    CHECK(a.st == FIA_OK && b.st == FIA_OK);
    if (a.st == FIA_OK && b.st == FIA_OK) {
        CHECK(memcmp(a.r.out.data, b.r.out.data, 2 * (size_t)a.r.out_numel) ==
              0);
        CHECK(memcmp(a.r.lse.data, b.r.lse.data, 4 * (size_t)a.r.lse_numel) ==
              0);
        check_vs_ld(&a, &t, 0.35355339059327373, allow_all, NULL, "prec 64");
    }
    run_free(&a), run_free(&b);
    free(text);
    free(q), free(k), free(v);
}

static void test_decode(void)
{
    /* Q_S = 1: sparse mode, tokens and actual_seq_lengths ignored; the
     * mask (B, KV_S) applies per batch */
    int64_t B = 2, KVS = 6, D = 4;
    double *q = rnd_array(B * D), *k = rnd_array(B * KVS * D),
           *v = rnd_array(B * KVS * D);
    uint8_t mask[2][6] = {{0, 1, 0, 0, 1, 0}, {1, 1, 0, 0, 0, 0}};
    tcase t = {"BSH", "fp16", B, 1, 1, 1, KVS, D, q, k, v,
               "sparse_mode = 2\npre_tokens = -5\nnext_tokens = -5\n"
               "actual_seq_lengths = [0]\nactual_seq_lengths_kv = [5, 6]\n"
               "atten_mask = bool [2,6]\n"
               "atten_mask.values = 0,1,0,0,1,0, 1,1,0,0,0,0\n"
               "softmax_lse_flag = true"};
    run x;
    run_case(&x, &t);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK) {
        int bad = 0;
        long double out[8], lse[2];
        /* by hand: allowed keys */
        for (int b = 0; b < B; b++) {
            long double s[6], m = -INFINITY, S = 0;
            int kl = b == 0 ? 5 : 6;
            for (int j = 0; j < kl; j++) {
                if (mask[b][j])
                    continue;
                s[j] = 0;
                for (int d = 0; d < D; d++)
                    s[j] += (long double)q[b * D + d] * k[(b * KVS + j) * D + d];
                if (s[j] > m)
                    m = s[j];
            }
            for (int j = 0; j < kl; j++)
                if (!mask[b][j])
                    S += expl(s[j] - m);
            for (int d = 0; d < D; d++) {
                long double num = 0;
                for (int j = 0; j < kl; j++)
                    if (!mask[b][j])
                        num += expl(s[j] - m) * v[(b * KVS + j) * D + d];
                out[b * D + d] = num / S;
            }
            lse[b] = m + logl(S);
        }
        for (int i = 0; i < B * D; i++) {
            bad += x.r.out_unspecified[i];
            bad += fabsl(x.r.out_exact[i] - out[i]) > 1e-15L;
            bad += out_bits(&x, i) != fia_double_to_fp16(x.r.out_exact[i]);
        }
        for (int b = 0; b < B; b++)
            bad += fabsl(x.r.lse_exact[b] - lse[b]) > 1e-14L;
        CHECK_MSG(bad == 0, "decode: %d", bad);
    }
    run_free(&x);
    free(q), free(k), free(v);
}

static void test_special_values(void)
{
    double q[2] = {1, 2}, k[4] = {1, 0, 0, 1}, v[4] = {1, 2, 3, 4};
    run x;
    tcase t = {"BNSD", "fp16", 1, 1, 1, 1, 2, 2, q, k, v,
               "scale = nan\nsoftmax_lse_flag = true"};
    run_case(&x, &t);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK) {
        CHECK(isnan(out_val(&x, 0)) && isnan(out_val(&x, 1)));
        CHECK(isnan(lse_val(&x, 0)));
    }
    run_free(&x);
    tcase ti = {"BNSD", "fp16", 1, 1, 1, 1, 2, 2, q, k, v, "scale = -inf"};
    run_case(&x, &ti);
    CHECK_EQ_INT(x.st, FIA_OK);
    run_free(&x);
    /* int64 extreme tokens: no overflow */
    const char *ext[] = {
        "sparse_mode = 4\natten_mask = bool [2048,2048]\n"
        "pre_tokens = -9223372036854775808\n"
        "next_tokens = 9223372036854775807\ninner_precise = 2",
        "sparse_mode = 4\natten_mask = bool [2048,2048]\n"
        "pre_tokens = 9223372036854775807\n"
        "next_tokens = 9223372036854775807",
        "sparse_mode = 0\natten_mask = bool [2,2]\n"
        "atten_mask.values = 0,0,0,0\n"
        "pre_tokens = 9223372036854775807\n"
        "next_tokens = -9223372036854775808\ninner_precise = 3",
    };
    double q2[4] = {1, 2, 3, 4};
    for (int e = 0; e < 3; e++) {
        tcase te = {"BNSD", "fp16", 1, 1, 1, 2, 2, 2, q2, k, v, ext[e]};
        run_case(&x, &te);
        CHECK_EQ_INT(x.st, FIA_OK);
        if (x.st == FIA_OK) {
            if (e == 1) {
                geo g = {4, INT64_MAX, INT64_MAX, NULL, NULL, NULL, 2, 2};
                check_vs_ld(&x, &te, 1.0, allow_geo, &g, "extreme tokens");
                CHECK(!x.r.out_unspecified[0]);
            } else {
                for (int i = 0; i < 4; i++) {
                    CHECK(!x.r.out_unspecified[i]);
                    CHECK_EQ_INT(out_bits(&x, i), 0);
                }
            }
        }
        run_free(&x);
    }
}

static void test_refusals(void)
{
    static const struct {
        const char *extra;
        fia_status want;
        const char *needle;
    } cases[] = {
        {"pse_shift = fp16 [1,1,2,2]", FIA_ERR_NOT_MODELED, "pse_shift"},
        {"block_table = int32 [1,1]", FIA_ERR_NOT_MODELED, "block_table"},
        {"query_quant_mode = 1", FIA_ERR_NOT_MODELED, "query_quant_mode"},
        {"actual_shared_prefix_len = [1]", FIA_ERR_NOT_MODELED, "prefix"},
        {"input_layout = TND", FIA_ERR_NOT_MODELED, "TND"},
        {"input_layout = XYZ", FIA_ERR_PARAM_INVALID, "layout"},
        {"attention_out = int8 [1,1,2,2]", FIA_ERR_NOT_MODELED, "int8"},
        {"num_key_value_heads = 3", FIA_ERR_PARAM_INVALID, "num_heads"},
        {"attention_out = fp16 [1,2,2,1]", FIA_ERR_PARAM_INVALID,
         "attention_out"},
        {"sparse_mode = 9", FIA_ERR_PARAM_INVALID, "sparse_mode"},
        {"atten_mask = bool [1,2]\nsparse_mode = 1", FIA_ERR_PARAM_INVALID,
         "atten_mask"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "num_heads = 1\nquery = fp16 [1,1,2,2]\n"
                 "key = fp16 [1,1,2,2]\nvalue = fp16 [1,1,2,2]\n%s\n%s\n",
                 strstr(cases[i].extra, "input_layout") ? ""
                                                        : "input_layout = BNSD",
                 cases[i].extra);
        run x;
        run_text(&x, text, 0);
        CHECK_MSG(x.st == cases[i].want, "case %zu: %d", i, (int)x.st);
        CHECK_MSG(strstr(x.r.error, cases[i].needle) != NULL,
                  "case %zu: '%s'", i, x.r.error);
        CHECK(x.r.out.data == NULL && x.r.out_exact == NULL);
        run_free(&x);
    }
    /* int8 key, key list */
    run x;
    run_text(&x, "input_layout = BSH\nnum_heads = 1\nquery = fp16 [1,1,4]\n"
                 "key = int8 [1,2,4]\nvalue = int8 [1,2,4]\n", 0);
    CHECK_EQ_INT(x.st, FIA_ERR_NOT_MODELED);
    run_free(&x);
    run_text(&x, "input_layout = BSH\nnum_heads = 1\nquery = fp16 [1,1,4]\n"
                 "key = fp16 [1,2,4]; fp16 [1,2,4]\n"
                 "value = fp16 [1,2,4]; fp16 [1,2,4]\n", 0);
    CHECK_EQ_INT(x.st, FIA_ERR_NOT_MODELED);
    run_free(&x);
    /* structurally broken shapes: rejected, no crash */
    const char *broken[] = {
        "input_layout = BSH\nnum_heads = 2\nquery = fp16 [1,1,5]\n"
        "key = fp16 [1,2,5]\nvalue = fp16 [1,2,5]\n",
        "input_layout = BNSD\nnum_heads = 1\nquery = fp16 [1,1,4]\n"
        "key = fp16 [1,2,4]\nvalue = fp16 [1,2,4]\n",
        "input_layout = BNSD\nnum_heads = 1\nquery = fp16 [1,1,2,4]\n"
        "key = fp16 [2,1,2,4]\nvalue = fp16 [2,1,2,4]\n",
        "input_layout = BNSD\nnum_heads = 1\nquery = fp16 [1,1,2,4]\n"
        "key = fp16 [1,1,2,8]\nvalue = fp16 [1,1,2,8]\n",
        "input_layout = BNSD\nnum_heads = 1\nquery = fp16 [1,1,2,4]\n"
        "key = fp16 [1,1,2,4]\nvalue = fp16 [1,1,3,4]\n",
        "input_layout = BNSD\nnum_heads = 1\nquery = fp32 [1,1,2,4]\n"
        "key = fp16 [1,1,2,4]\nvalue = fp16 [1,1,2,4]\n",
        "input_layout = BNSD\nnum_heads = 1\nquery = fp16 [1,1,2,4]\n"
        "key = fp16 [1,1,2,4]\nvalue = fp16 [1,1,2,4]\n"
        "softmax_lse_flag = true\nsoftmax_lse = fp32 [1,1,3,1]\n",
        "input_layout = BNSD\nnum_heads = 1\nquery = fp16 [1,1,2,4]\n"
        "key = fp16 [1,1,2,4]\nvalue = fp16 [1,1,2,4]\n"
        "actual_seq_lengths_kv = []\n",
    };
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        run_text(&x, broken[i], 0);
        CHECK_MSG(x.st == FIA_ERR_PARAM_INVALID, "broken %zu: %d", i,
                  (int)x.st);
        CHECK(x.r.error[0] != '\0');
        run_free(&x);
    }
}

/* Random small cases: every mode, layout, length and mask, against the
 * long double computation, with the expected unspecified pattern. */
typedef struct rgeo {
    int mode, decode;
    int64_t pre, next, B, QS, KVS;
    int64_t ql[2], kl[2];
    const uint8_t *mask; /* [B][QS][KVS] (row 0 only when decode) */
} rgeo;

static int allow_rgeo(const void *ctx, int64_t b, int64_t i, int64_t j)
{
    const rgeo *g = ctx;
    if (i >= g->ql[b] || j >= g->kl[b])
        return 0;
    const uint8_t *mk = g->mask ? g->mask + (b * g->QS + i) * g->KVS : NULL;
    if (g->decode)
        return !mk || !mk[j];
    long double off = (long double)g->kl[b] - g->ql[b];
    long double I = i, J = j, pre = g->pre, next = g->next;
    switch (g->mode) {
    case 0:
        return !mk || (!mk[j] && I - pre <= J && J <= I + next);
    case 1:
        return !mk || !mk[j];
    case 2:
        return j <= i;
    case 3:
        return J <= I + off;
    default:
        return I + off - pre <= J && J <= I + off + next;
    }
}

static void test_random(void)
{
    static const char *lays[4] = {"BSH", "BSND", "BNSD", "BNSD_BSND"};
    static const int64_t toks[] = {-3, -1, 0, 1, 2, 5, INT64_MAX, INT64_MIN,
                                   2147483647};
    int fails = 0, ran = 0;
    for (int it = 0; it < 300; it++) {
        rgeo g;
        memset(&g, 0, sizeof g);
        g.B = 1 + (int64_t)(rng() % 2);
        int64_t N = (int64_t[]){1, 2, 4}[rng() % 3];
        int64_t KVN = N / (int64_t[]){1, 2, 4}[rng() % 3];
        if (KVN < 1)
            KVN = 1;
        g.QS = 1 + (int64_t)(rng() % 5);
        g.KVS = (int64_t)(rng() % 7);
        int64_t D = 1 + (int64_t)(rng() % 4);
        g.decode = g.QS == 1;
        g.mode = (int)(rng() % 5);
        g.pre = toks[rng() % 9];
        g.next = toks[rng() % 9];
        int ip = (int)(rng() % 4);
        int use_mask = (g.mode <= 1 || g.decode) && rng() % 3 != 0 && g.KVS > 0;
        int use_ql = rng() % 2, use_kl = rng() % 2;
        for (int b = 0; b < 2; b++) {
            g.ql[b] = use_ql && !g.decode ? (int64_t)(rng() % (g.QS + 1))
                                          : g.QS;
            g.kl[b] = use_kl ? (int64_t)(rng() % (g.KVS + 1)) : g.KVS;
        }
        uint8_t *mask = calloc((size_t)(g.B * g.QS * g.KVS + 1), 1);
        for (int64_t e = 0; e < g.B * g.QS * g.KVS; e++)
            mask[e] = rng() % 4 == 0;
        g.mask = use_mask ? mask : NULL;
        double *q = rnd_array(g.B * N * g.QS * D);
        double *k = rnd_array(g.B * KVN * g.KVS * D);
        double *v = rnd_array(g.B * KVN * g.KVS * D);
        sbuf ex = {0};
        sb_printf(&ex, "softmax_lse_flag = true\nsparse_mode = %d\n"
                       "pre_tokens = %lld\nnext_tokens = %lld\n"
                       "inner_precise = %d\nscale = 0.375\n",
                  g.mode, (long long)g.pre, (long long)g.next, ip);
        if (use_ql)
            sb_printf(&ex, "actual_seq_lengths = [%lld, %lld]\n",
                      (long long)g.ql[0], (long long)g.ql[1]);
        if (use_kl)
            sb_printf(&ex, "actual_seq_lengths_kv = [%lld, %lld]\n",
                      (long long)g.kl[0], (long long)g.kl[1]);
        if (use_mask) {
            /* [B,1,QS,KVS] per batch (decode: [B,KVS], row 0 of each) */
            if (g.decode)
                sb_printf(&ex, "atten_mask = bool [%lld,%lld]\n",
                          (long long)g.B, (long long)g.KVS);
            else
                sb_printf(&ex, "atten_mask = uint8 [%lld,1,%lld,%lld]\n",
                          (long long)g.B, (long long)g.QS, (long long)g.KVS);
            sb_printf(&ex, "atten_mask.values = ");
            for (int64_t e = 0; e < g.B * g.QS * g.KVS; e++)
                sb_printf(&ex, e ? ", %d" : "%d", mask[e]);
            sb_printf(&ex, "\n");
        } else if (g.mode >= 2 && !g.decode) {
            sb_printf(&ex, "atten_mask = bool [2048,2048]\n");
        }
        tcase t = {lays[rng() % 4], rng() % 2 ? "fp16" : "bf16", g.B, N, KVN,
                   g.QS, g.KVS, D, q, k, v, ex.s};
        run x;
        run_case(&x, &t);
        if (x.st != FIA_OK) {
            fails++;
            fprintf(stderr, "random %d: status %d (%s)\n", it, (int)x.st,
                    x.r.error);
        } else {
            ran++;
            check_vs_ld(&x, &t, 0.375, allow_rgeo, &g, "random");
            /* unspecified pattern */
            int bad = 0;
            for (int64_t b = 0; b < g.B; b++)
                for (int64_t n = 0; n < N; n++)
                    for (int64_t i = 0; i < g.QS; i++) {
                        int cnt = 0;
                        for (int64_t j = 0; j < g.KVS; j++)
                            cnt += allow_rgeo(&g, b, i, j);
                        int corr = (ip & 2) || (!g.decode && g.mode == 3 &&
                                                g.ql[b] > g.kl[b]);
                        int pad = i >= g.ql[b];
                        int ospec = !pad && (cnt > 0 || g.kl[b] == 0 || corr);
                        int lspec = !pad && (cnt > 0 || corr ||
                                             (g.kl[b] == 0 && g.KVS == 0));
                        for (int64_t d = 0; d < D; d++) {
                            int64_t oi = out_index(&t, b, n, i, d);
                            bad += x.r.out_unspecified[oi] == ospec;
                            if (ospec && cnt == 0)
                                bad += out_bits(&x, oi) != 0;
                        }
                        int64_t li = (b * N + n) * g.QS + i;
                        bad += x.r.lse_unspecified[li] == lspec;
                        if (lspec && cnt == 0)
                            bad += !(isinf(lse_val(&x, li)) &&
                                     lse_val(&x, li) > 0);
                    }
            CHECK_MSG(bad == 0, "random %d: %d pattern errors", it, bad);
        }
        run_free(&x);
        free(ex.s), free(mask), free(q), free(k), free(v);
    }
    CHECK_MSG(fails == 0, "%d random cases refused", fails);
    CHECK(ran > 250);
}

static void test_speed(void)
{
    const char *text =
        "input_layout = BNSD\nnum_heads = 4\nseed = 7\n"
        "query = fp16 [2,4,16,32]\nkey = fp16 [2,4,64,32]\n"
        "value = fp16 [2,4,64,32]\nsoftmax_lse_flag = true\n"
        "scale = 0.17677669529663687\n";
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    run x;
    run_text(&x, text, 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double sec = (double)(t1.tv_sec - t0.tv_sec) +
                 (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    CHECK_EQ_INT(x.st, FIA_OK);
    printf("typical case (2x4x16x64x32): %.3f s\n", sec);
    CHECK_MSG(sec < 2.0, "too slow: %.3f s", sec);
    if (x.st == FIA_OK) {
        int64_t spec = 0;
        for (int64_t i = 0; i < x.r.out_numel; i++)
            spec += !x.r.out_unspecified[i];
        CHECK_EQ_INT(spec, x.r.out_numel);
    }
    run_free(&x);
}

int main(void)
{
    test_round_exhaustive();
    test_uniform_mean();
    test_one_hot();
    test_causal_modes();
    test_mask_mode0_1();
    test_seq_lengths();
    test_kv_empty();
    test_gqa();
    test_layouts();
    test_rounding_cases();
    test_inexact_tie();
    test_precision_independent();
    test_decode();
    test_special_values();
    test_refusals();
    test_random();
    test_speed();
    return check_summary();
}
