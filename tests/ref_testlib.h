/* Helpers shared by the reference tests (test_ref.c, test_ref_edge.c):
 * building cases as text, running the reference, and an independent
 * long double attention to compare with. */
#ifndef FIA_TESTS_REF_TESTLIB_H
#define FIA_TESTS_REF_TESTLIB_H

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
#include "test_rng.h"

/* ---- string building ---------------------------------------------------- */

typedef struct sbuf {
    char *s;
    size_t n, cap;
} sbuf;

static inline void sb_printf(sbuf *b, const char *fmt, ...)
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

static inline void values_line(sbuf *sb, const char *name, const double *x,
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

static inline void shape_str(sbuf *sb, const char *layout, int64_t B, int64_t H,
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
static inline void snap(double *x, int64_t n, const char *dt)
{
    for (int64_t i = 0; x && i < n; i++)
        x[i] = strcmp(dt, "bf16") == 0
                   ? fia_bf16_to_double(fia_double_to_bf16(x[i]))
                   : fia_fp16_to_double(fia_double_to_fp16(x[i]));
}

static inline char *build(const tcase *t)
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
    fia_error err;          /* why the reference refused */
    fia_status st;
    int ok;                 /* parse + materialize worked */
} run;

static inline void run_text(run *x, const char *text, long prec)
{
    memset(x, 0, sizeof *x);
    fia_error err;
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
    x->st = fia_ref_compute(&x->c, &x->d, &o, &x->r, &x->err);
}

static inline void run_free(run *x)
{
    fia_ref_result_free(&x->r);
    if (x->ok)
        fia_case_data_free(&x->d);
    fia_case_free(&x->c);
}

static inline void run_case(run *x, const tcase *t)
{
    char *text = build(t);
    run_text(x, text, 0);
    free(text);
}

/* Output element (b, n, i, d) of a run of t, as index into r.out. */
static inline int64_t out_index(const tcase *t, int64_t b, int64_t n, int64_t i,
                         int64_t d)
{
    if (strcmp(t->layout, "BNSD") == 0)
        return QI(t, b, n, i, d);
    return (((b * t->QS + i) * t->N + n) * t->D) + d;
}

static inline double out_val(const run *x, int64_t idx)
{
    uint16_t h = ((const uint16_t *)x->r.out.data)[idx];
    return x->r.out.dtype == FIA_DT_BF16 ? fia_bf16_to_double(h)
                                          : fia_fp16_to_double(h);
}

static inline uint16_t out_bits(const run *x, int64_t idx)
{
    return ((const uint16_t *)x->r.out.data)[idx];
}

static inline float lse_val(const run *x, int64_t idx)
{
    float f;
    memcpy(&f, (const uint32_t *)x->r.lse.data + idx, sizeof f);
    return f;
}

/* ---- deterministic data ------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static inline uint64_t rng(void)
{
    return test_xorshift64(&rng_state);
}
/* multiples of 2^-8 in (-4, 4): exact in fp16 and bf16 */
static inline double rnd_val(void)
{
    return ldexp((double)((int64_t)(rng() % 2047) - 1023), -8);
}
static inline double *rnd_array(int64_t n)
{
    double *a = malloc((size_t)(n > 0 ? n : 1) * sizeof *a);
    for (int64_t i = 0; i < n; i++)
        a[i] = rnd_val();
    return a;
}

/* ---- long double reference --------------------------------------------- */

typedef int (*allow_fn)(const void *ctx, int64_t b, int64_t i, int64_t j);

static inline int allow_all(const void *ctx, int64_t b, int64_t i, int64_t j)
{
    (void)ctx, (void)b, (void)i, (void)j;
    return 1;
}

/* out [B][N][QS][D], lse [B][N][QS]; returns number of keys of row (b,n,i)
 * in nkeys (NULL ok). */
static inline void ld_attention(const tcase *t, double scale, allow_fn allow,
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
static inline void check_vs_ld(const run *x, const tcase *t, double scale,
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

/* causal-like masks, per mode, against the long double computation */
typedef struct geo {
    int mode;
    int64_t pre, next;
    const int64_t *q_len, *kv_len;
    const uint8_t *mask; /* [QS][KVS] for modes 0/1 */
    int64_t QS, KVS;
} geo;

static inline int allow_geo(const void *ctx, int64_t b, int64_t i, int64_t j)
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


/* ---- a case's reference, whole ----------------------------------------- */

/* Materializes c and computes its reference into *r (zeroed first). */
static inline fia_status ref_compute_case(const fia_case *c, fia_ref_result *r,
                                          fia_error *err)
{
    fia_case_data d;
    memset(r, 0, sizeof *r);
    fia_status st = fia_case_materialize(c, 1, &d, err);
    if (st != FIA_OK)
        return st;
    fia_ref_options o;
    fia_ref_options_default(&o);
    st = fia_ref_compute(c, &d, &o, r, err);
    fia_case_data_free(&d);
    return st;
}

/* 1 when both tensors hold data and their first n elements of `bytes`
 * bytes are the same bits. */
static inline int ref_same_bits(const fia_tensor *a, const fia_tensor *b,
                                int64_t n, int64_t bytes)
{
    return a->data && b->data &&
           memcmp(a->data, b->data, (size_t)(n * bytes)) == 0;
}


/* A case of B = 3, N = 4 on KV_N = 2 heads, KV_S = 70, D = 16 in layout
 * (BSH, BSND or BNSD), Q_S qs, lse on, inner_precise 3, the seed, and the
 * kv lengths line lens (or "") into text[n]: the base of the tests that
 * compare a second form of the same keys (paged, lists). */
static inline void ref_text_70(char *text, size_t n, const char *layout,
                               int64_t qs, const char *lens, uint64_t seed)
{
    if (strcmp(layout, "BSH") == 0)
        snprintf(text, n, "query = fp16 [3,%lld,64]\n"
                 "key = fp16 [3,70,32]\nvalue = fp16 [3,70,32]\n",
                 (long long)qs);
    else if (strcmp(layout, "BSND") == 0)
        snprintf(text, n, "query = fp16 [3,%lld,4,16]\n"
                 "key = fp16 [3,70,2,16]\nvalue = fp16 [3,70,2,16]\n",
                 (long long)qs);
    else
        snprintf(text, n, "query = fp16 [3,4,%lld,16]\n"
                 "key = fp16 [3,2,70,16]\nvalue = fp16 [3,2,70,16]\n",
                 (long long)qs);
    size_t k = strlen(text);
    snprintf(text + k, n - k,
             "input_layout = %s\nnum_heads = 4\nnum_key_value_heads = 2\n"
             "%ssoftmax_lse_flag = true\ninner_precise = 3\nseed = %llu\n",
             layout, lens, (unsigned long long)seed);
}

#endif
