/* fiacheck-bench-tolerance (`fiacheck bench --tolerance [--cases N]
 * [--seed S] [--perturb N]`): evidence for the bound tolerance profile.
 *
 * 1. False alarms: N random valid cases (layouts, GQA, masks, sparse modes,
 *    sequence lengths, lse, fp16/bf16, both precision modes) judged end to
 *    end by fia_check_case() against fast/ with the default tolerance; the
 *    distribution of the tightness ratio |got - exact| / (bound + ulp/2).
 * 2. Detection: a naive float32 attention written here (the permitted
 *    algorithm, max first, no online rescaling), and copies of it with one
 *    perturbation each, judged against the reference's bound; the naive
 *    kernel's pre-rounding error over the bound (the bound's tightness).
 * This is a harness program: it may call fast/ (through the harness) and
 * ref/'s public API; the kernels below are its own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fia/case.h"
#include "fia/check.h"
#include "fia/compare.h"
#include "fia/dtype.h"
#include "fia/ref.h"

static uint64_t rng;
static uint64_t next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static int rnd(int n) { return (int)(next_u64() % (uint64_t)n); }
static double unif(void) { return (double)(next_u64() >> 11) * 0x1p-53; }

/* A random valid case; long rows when `big`. */
static void random_case(char *buf, size_t len, int64_t idx, int big)
{
    static const char *layouts[] = {"BSH", "BSND", "BNSD", "BNSD_BSND"};
    static const char *gens[] = {"", "normal(0,3)", "uniform(-1,1)",
                                 "normal(0,0.01)", "normal(1,1)"};
    const char *lay = layouts[rnd(4)];
    const char *dt = rnd(2) ? "fp16" : "bf16";
    int kvn = 1 + rnd(2), g = 1 << rnd(2), n = kvn * g;
    int B = 1 + rnd(2);
    int qs = rnd(3) == 0 ? 1 : 1 + rnd(big ? 32 : 8);
    int kvs = 1 + rnd(big ? 512 : 48);
    int D = big ? 64 * (1 + rnd(2)) : 16 * (1 + rnd(2));
    int sm = qs == 1 ? 0 : rnd(5);
    char q[64], k[64];
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
    const char *gq = gens[rnd(5)], *gk = gens[rnd(5)], *gv = gens[rnd(5)];
    double scale = rnd(4) == 0 ? 2.0 * unif() : 1.0 / sqrt((double)D);
    size_t at = (size_t)snprintf(buf, len,
        "input_layout = %s\nnum_heads = %d\nnum_key_value_heads = %d\n"
        "scale = %.17g\nsparse_mode = %d\ninner_precise = %d\n"
        "softmax_lse_flag = %s\nquery = %s %s\nkey = %s %s\n"
        "value = %s %s\nseed = %lld\n", lay, n, kvn, scale, sm,
        qs == 1 ? rnd(2) : rnd(4), rnd(2) ? "true" : "false", dt, q, dt, k,
        dt, k, (long long)idx);
    if (*gq)
        at += (size_t)snprintf(buf + at, len - at, "query.gen = %s\n", gq);
    if (*gk)
        at += (size_t)snprintf(buf + at, len - at, "key.gen = %s\n", gk);
    if (*gv)
        at += (size_t)snprintf(buf + at, len - at, "value.gen = %s\n", gv);
    if (sm >= 2)
        at += (size_t)snprintf(buf + at, len - at,
                               "atten_mask = bool [2048,2048]\n");
    else if (qs == 1 ? rnd(3) == 0 : sm == 1 || rnd(2))
        at += (size_t)snprintf(buf + at, len - at,
                               "atten_mask = bool [%d,%d,%d]\n", B, qs, kvs);
    if (sm == 4 || (sm == 0 && rnd(3) == 0))
        at += (size_t)snprintf(buf + at, len - at,
                               "pre_tokens = %d\nnext_tokens = %d\n",
                               rnd(kvs + 2), rnd(kvs + 2));
    if (rnd(2) && qs > 1)
        at += (size_t)snprintf(buf + at, len - at,
                               "actual_seq_lengths = [%d]\n", 1 + rnd(qs));
    if (rnd(2))
        snprintf(buf + at, len - at, "actual_seq_lengths_kv = [%d]\n",
                 rnd(kvs + 1));
}

/* Tightness histogram: ratio buckets. */
#define NB 8
static const double edges[NB] = {0.0, 0.25, 0.5, 0.75, 0.9, 1.0, 2.0,
                                 INFINITY};
typedef struct hist {
    int64_t n[NB + 1];
    double max;
} hist;
static void hist_add(hist *h, double x)
{
    int b = 0;
    while (b < NB && x > edges[b])
        b++;
    h->n[b]++;
    if (x > h->max)
        h->max = x;
}
static void hist_print(const char *name, const hist *h)
{
    int64_t tot = 0;
    for (int b = 0; b <= NB; b++)
        tot += h->n[b];
    printf("  %-34s", name);
    for (int b = 0; b <= NB; b++)
        if (h->n[b])
            printf(" %s%.2g:%.4g%%", b == 0 ? "=" : "<=",
                   b < NB ? edges[b] : INFINITY,
                   100.0 * (double)h->n[b] / (double)(tot ? tot : 1));
    printf("  (max %.3g)\n", h->max);
}

/* The compressed 2048x2048 causal mask of sparse modes 2-4, built once:
 * materializing it per case (4M elements) would dominate the run.  Such a
 * case is judged like fia_check_case() does (oracle, fast/, reference,
 * bound comparison) with this mask put into the materialized data. */
static uint8_t *causal_bits;
static fia_tensor causal = {FIA_DT_BOOL, 2, {2048, 2048}, NULL};
static const char MASK_LINE[] = "atten_mask = bool [2048,2048]\n";

static void check_shared_mask(const fia_case *c, const char *text,
                              fia_check_result *r)
{
    memset(r, 0, sizeof *r);
    r->v = FIA_V_BAD_INPUT;
    if (!causal_bits) {
        causal_bits = malloc(2048 * 2048);
        for (int i = 0; i < 2048; i++)
            for (int j = 0; j < 2048; j++)
                causal_bits[i * 2048 + j] = j > i;
        causal.data = causal_bits;
    }
    if (fia_oracle_evaluate(c, FIA_PROFILE_DOC, &r->ov, NULL) != 0)
        return;
    r->evaluated = 1;
    if (!r->ov.accept || r->ov.not_modeled) {
        r->v = r->ov.not_modeled ? FIA_V_NOT_MODELED : FIA_V_PASS;
        return;
    }
    char buf[4096];
    const char *at = strstr(text, MASK_LINE);
    snprintf(buf, sizeof buf, "%.*s%s", (int)(at - text), text,
             at + sizeof MASK_LINE - 1);
    fia_case c2;
    fia_error err;
    fia_case_data d;
    if (fia_case_parse_string(buf, "nomask", &c2, &err) != 0)
        return;
    if (fia_case_materialize(&c2, 1, &d, &err) != 0) {
        fia_case_free(&c2);
        return;
    }
    d.t[FIA_SLOT_ATTEN_MASK] = &causal;
    d.n[FIA_SLOT_ATTEN_MASK] = 1;
    r->fast_status = fia_call_sut(c, &d, FIA_PROFILE_DOC, 1, &r->fast_error);
    r->fast_called = 1;
    fia_ref_result ref;
    if (r->fast_status != r->ov.expected) {
        r->v = FIA_V_STATUS_MISMATCH;
    } else if (fia_ref_compute(c, &d, NULL, &ref, NULL) != FIA_OK) {
        r->v = FIA_V_HARNESS_ERROR;
    } else {
        r->computed = 1;
        r->ref_escalated = ref.n_escalated;
        fia_compare_ref cr = {&ref.out, ref.out_exact, ref.out_unspecified,
                              ref.out_bound, NULL};
        fia_compare_profile(FIA_TOL_BOUND, 0, 0, &cr,
                            d.t[FIA_SLOT_ATTENTION_OUT], &r->out_cmp, NULL);
        int ok = r->out_cmp.pass;
        if (ref.has_lse && d.t[FIA_SLOT_SOFTMAX_LSE]) {
            fia_compare_ref lr = {&ref.lse, ref.lse_exact, ref.lse_unspecified,
                                  ref.lse_bound, NULL};
            r->has_lse = 1;
            fia_compare_profile(FIA_TOL_BOUND, 0, 0, &lr,
                                d.t[FIA_SLOT_SOFTMAX_LSE], &r->lse_cmp, NULL);
            ok = ok && r->lse_cmp.pass;
        }
        r->v = ok ? FIA_V_PASS : FIA_V_ACCURACY;
        fia_ref_result_free(&ref);
    }
    d.t[FIA_SLOT_ATTEN_MASK] = NULL;
    d.n[FIA_SLOT_ATTEN_MASK] = 0;
    fia_case_data_free(&d);
    fia_case_free(&c2);
}

static int run_false_alarms(int64_t ncases)
{
    fia_check_options o;
    fia_check_options_default(&o);
    int64_t n_pass = 0, n_find = 0, n_invalid = 0, n_nm = 0, n_el = 0;
    int64_t n_esc = 0;
    hist ho = {0}, hl = {0};
    char buf[4096];
    for (int64_t i = 0; i < ncases; i++) {
        random_case(buf, sizeof buf, i, 0);
        fia_case c;
        fia_error err;
        if (fia_case_parse_string(buf, "random", &c, &err) != 0) {
            fprintf(stderr, "generator: %s\n%s", err.msg, buf);
            return 2;
        }
        fia_check_result r;
        if (strstr(buf, MASK_LINE))
            check_shared_mask(&c, buf, &r);
        else
            fia_check_case(&c, &o, &r);
        fia_case_free(&c);
        if (r.evaluated && !r.ov.accept) {
            n_invalid++;
            continue;
        }
        if (r.v == FIA_V_NOT_MODELED) {
            n_nm++;
        } else if (r.v == FIA_V_PASS) {
            n_pass++;
        } else {
            n_find++;
            if (n_find <= 5)
                printf("FALSE ALARM (%s): %s\n%s\n", fia_verdict_name(r.v),
                       r.reason.msg, buf);
        }
        if (r.computed) {
            hist_add(&ho, r.out_cmp.max_ratio);
            if (r.has_lse)
                hist_add(&hl, r.lse_cmp.max_ratio);
            n_el += r.out_cmp.n_compared + r.lse_cmp.n_compared;
            n_esc += r.ref_escalated;
        }
    }
    printf("false alarms: %lld / %lld valid cases (%lld passed, %lld not "
           "modeled; %lld generated cases rejected by the oracle, skipped); "
           "%lld elements compared, %lld escalated to MPFR\n",
           (long long)n_find, (long long)(n_pass + n_find + n_nm),
           (long long)n_pass, (long long)n_nm, (long long)n_invalid,
           (long long)n_el, (long long)n_esc);
    printf("tightness, per case max |got - exact| / (bound + ulp/2):\n");
    hist_print("attention_out (fast/)", &ho);
    hist_print("softmax_lse (fast/)", &hl);
    free(causal_bits);
    return n_find != 0;
}

/* ---- the naive kernel and its perturbations ----------------------------- */

enum { K_NAIVE = 0, K_PV_DTYPE, K_SCORE_ROUND, K_NUM_ROUND, K_SUM_DTYPE,
       K_COUNT };
static const char *const knames[K_COUNT] = {
    "naive float32 (permitted)", "P.V accumulated in input dtype",
    "scores rounded to input dtype", "numerator rounded before division",
    "row sum accumulated in input dtype"};

typedef struct kctx {
    int kind, round_p;
    fia_dtype dt;
    uint16_t *out;
    float *lse;
    double *pre;      /* pre-rounding output (naive) */
    float *p;
    int64_t cap;
} kctx;

static float rd(fia_dtype dt, float x)
{
    return dt == FIA_DT_BF16 ? fia_bf16_to_float(fia_float_to_bf16(x))
                             : fia_fp16_to_float(fia_float_to_fp16(x));
}

static int kernel_row(const fia_ref_row *row, void *vc)
{
    kctx *c = vc;
    int64_t D = row->D, nk = row->nk;
    if (nk > c->cap) {
        free(c->p);
        c->p = malloc((size_t)nk * sizeof(float));
        c->cap = nk;
        if (!c->p)
            return 1;
    }
    float scale = (float)row->scale, m = -INFINITY;
    for (int64_t t = 0; t < nk; t++) {
        float acc = 0.0f;
        for (int64_t d = 0; d < D; d++)
            acc += (float)row->q[d] * (float)row->k[t * D + d];
        float s = acc * scale;
        if (c->kind == K_SCORE_ROUND)
            s = rd(c->dt, s);
        c->p[t] = s;
        m = s > m ? s : m;
    }
    float sum = 0.0f;
    for (int64_t t = 0; t < nk; t++) {
        float p = expf(c->p[t] - m);
        sum += p;
        if (c->kind == K_SUM_DTYPE)
            sum = rd(c->dt, sum);
        c->p[t] = c->round_p ? rd(c->dt, p) : p;
    }
    for (int64_t d = 0; d < D; d++) {
        float acc = 0.0f;
        for (int64_t t = 0; t < nk; t++) {
            acc += c->p[t] * (float)row->v[t * D + d];
            if (c->kind == K_PV_DTYPE)
                acc = rd(c->dt, acc);
        }
        if (c->kind == K_NUM_ROUND)
            acc = rd(c->dt, acc);
        double o = (double)acc / (double)sum;
        c->pre[row->out_index[d]] = o;
        c->out[row->out_index[d]] = c->dt == FIA_DT_BF16
                                        ? fia_double_to_bf16(o)
                                        : fia_double_to_fp16(o);
    }
    if (c->lse && row->lse_index >= 0)
        c->lse[row->lse_index] = m + logf(sum);
    return 0;
}

static int run_perturb(int64_t ncases)
{
    int64_t flagged[K_COUNT] = {0}, n_ok = 0;
    hist pre = {0}, post = {0};
    char buf[4096];
    for (int64_t i = 0; i < ncases; i++) {
        random_case(buf, sizeof buf, 1000000 + i, 1);
        fia_case c;
        fia_error err;
        fia_case_data d;
        if (fia_case_parse_string(buf, "perturb", &c, &err) != 0)
            return 2;
        fia_oracle_verdict ov;
        if (strstr(buf, MASK_LINE) || /* its 4M-element mask is slow */
            fia_oracle_evaluate(&c, FIA_PROFILE_DOC, &ov, NULL) != 0 || !ov.accept ||
            ov.not_modeled || fia_case_materialize(&c, 1, &d, &err) != 0) {
            fia_case_free(&c);
            continue;
        }
        fia_ref_result ref;
        if (fia_ref_compute(&c, &d, NULL, &ref, NULL) != FIA_OK) {
            fia_case_data_free(&d);
            fia_case_free(&c);
            continue;
        }
        n_ok++;
        int64_t n = ref.out_numel;
        for (int kind = 0; kind < K_COUNT; kind++) {
            kctx kc = {.kind = kind, .dt = ref.out.dtype,
                       .round_p = ref.out.dtype == FIA_DT_BF16 ||
                                  (c.attrs.inner_precise & 1)};
            kc.out = malloc((size_t)(n ? n : 1) * 2);
            kc.pre = malloc((size_t)(n ? n : 1) * sizeof(double));
            kc.lse = ref.has_lse ? calloc((size_t)ref.lse_numel + 1, 4) : NULL;
            memcpy(kc.out, ref.out.data, (size_t)n * 2);
            if (kc.lse)
                memcpy(kc.lse, ref.lse.data, (size_t)ref.lse_numel * 4);
            for (int64_t e = 0; e < n; e++)
                kc.pre[e] = ref.out_exact[e];
            fia_ref_visit_rows(&c, &d, kernel_row, &kc, NULL);
            fia_tensor got = ref.out, gl = ref.lse;
            got.data = kc.out;
            gl.data = kc.lse;
            fia_compare_ref cr = {&ref.out, ref.out_exact, ref.out_unspecified,
                                  ref.out_bound, NULL};
            fia_compare_result r, rl;
            fia_compare_profile(FIA_TOL_BOUND, 0, 0, &cr, &got, &r, NULL);
            int bad = !r.pass;
            if (kc.lse) {
                fia_compare_ref lr = {&ref.lse, ref.lse_exact,
                                      ref.lse_unspecified, ref.lse_bound, NULL};
                fia_compare_profile(FIA_TOL_BOUND, 0, 0, &lr, &gl, &rl, NULL);
                bad = bad || !rl.pass;
            }
            flagged[kind] += bad;
            if (kind == K_NAIVE) {
                double mx = 0.0;
                for (int64_t e = 0; e < n; e++)
                    if (!ref.out_unspecified[e] && ref.out_bound[e] > 0 &&
                        isfinite(ref.out_bound[e])) {
                        double x = fabs(kc.pre[e] - ref.out_exact[e]) /
                                   ref.out_bound[e];
                        mx = x > mx ? x : mx;
                    }
                hist_add(&pre, mx);
                hist_add(&post, r.max_ratio);
                if (bad && flagged[K_NAIVE] <= 3)
                    printf("NAIVE FLAGGED:\n%s\n", buf);
            }
            free(kc.out), free(kc.pre), free(kc.lse), free(kc.p);
        }
        fia_ref_result_free(&ref);
        fia_case_data_free(&d);
        fia_case_free(&c);
    }
    printf("detection over %lld valid cases (KV_S up to 512, D 64/128):\n",
           (long long)n_ok);
    for (int kind = 0; kind < K_COUNT; kind++)
        printf("  %-40s flagged in %6.2f %% of cases\n", knames[kind],
               100.0 * (double)flagged[kind] / (double)(n_ok ? n_ok : 1));
    printf("tightness of the bound, per case max over elements:\n");
    hist_print("naive: |o^ - exact| / bound", &pre);
    hist_print("naive: |got - exact| / (bound+ulp/2)", &post);
    return flagged[K_NAIVE] != 0;
}

int main(int argc, char **argv)
{
    int64_t ncases = 1000000, nperturb = 2000;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cases") == 0 && i + 1 < argc)
            ncases = strtoll(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--perturb") == 0 && i + 1 < argc)
            nperturb = strtoll(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: fiacheck bench --tolerance [--cases N] "
                    "[--perturb N] [--seed S]\n");
            return 2;
        }
    }
    rng = 0x9E3779B97F4A7C15u ^ (seed * 0xBF58476D1CE4E5B9u);
    int rc = 0;
    if (nperturb > 0)
        rc |= run_perturb(nperturb);
    if (ncases > 0)
        rc |= run_false_alarms(ncases);
    return rc;
}
