/* The shared prefix's benchmark (`fiacheck-bench-fast --only prefix`, and
 * at the end of the full run): a call whose keys are a shared prefix
 * (key_shared_prefix / value_shared_prefix) plus each batch's own keys
 * against the plain call with the same keys concatenated per batch, in
 * turns (one run of each at a time, best of each), fp16 BNSD, two threads:
 *   prefill B=2 N=32 KV_N=8 Q_S=1024, P=1024 + 1024 own, D=128, no mask
 *     and causal (sparse 3): GFLOP/s over the scores that take part;
 *   decode B=8 N=32 KV_N=8, P=4096 + 4096 own: GB/s over the K/V bytes each
 *     call must read (the prefix once for the prefix form, B times for the
 *     plain call);
 *   decode B=8, P=4096 + 256 own: K/V bytes read per token (per batch's
 *     query: the prefix counted once, shared by the B tokens) against the
 *     plain call's (B copies of the prefix), and the times;
 *   decode B=8, P=4096 + 4096 own with a pse_shift (B, N, 1, P + own) fp16,
 *     the same tensor for both forms (column j of logical key j): the
 *     prefix's tasks read each row's own batch's pse row (the pse's 4 MB
 *     not counted in the bytes).
 * Self-contained: of the common runner (fast_runner.h) it uses only the
 * families' entry point. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fia/fast.h"
#include "bench_record.h"
#include "fast_runner.h"

typedef struct pfx_shape {
    const char *name;
    int64_t B, N, KVN, QS, P, KVS, D; /* KVS: each batch's own keys */
    int sparse;                       /* 0 or 3 (causal) */
    bool pse;                         /* decode: a pse_shift */
} pfx_shape;

static double pfx_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t pfx_rng = 0x13198a2e03707344ull;

/* fp16 values of magnitude [2^(e0-15), 2^(e0-12)), random sign. */
static void pfx_fill(uint16_t *p, int64_t n, int e0)
{
    for (int64_t i = 0; i < n; i++) {
        pfx_rng = pfx_rng * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(pfx_rng >> 33);
        p[i] = (uint16_t)(((r & 1u) << 15) |
                          ((uint32_t)(e0 + (r >> 1) % 3) << 10) |
                          ((r >> 8) & 0x3ffu));
    }
}

/* The data of both forms: q; the prefix kp, vp [1, KV_N, P, D]; the own
 * keys k, v [B, KV_N, KVS, D]; the plain call's kc, vc [B, KV_N, P + KVS,
 * D] (the prefix's rows, then the batch's own); the causal 2048 x 2048
 * mask. */
typedef struct pfx_data {
    uint16_t *q, *kp, *vp, *k, *v, *kc, *vc, *o, *pse;
    uint8_t *mask;
} pfx_data;

static pfx_data pfx_make(const pfx_shape *s)
{
    const int64_t D = s->D, S = s->P + s->KVS, nh = s->B * s->KVN;
    pfx_data d;
    d.q = malloc((size_t)(s->B * s->N * s->QS * D) * 2);
    d.o = malloc((size_t)(s->B * s->N * s->QS * D) * 2);
    d.kp = malloc((size_t)(s->KVN * s->P * D) * 2 + 2);
    d.vp = malloc((size_t)(s->KVN * s->P * D) * 2 + 2);
    d.k = malloc((size_t)(nh * s->KVS * D) * 2 + 2);
    d.v = malloc((size_t)(nh * s->KVS * D) * 2 + 2);
    d.kc = malloc((size_t)(nh * S * D) * 2);
    d.vc = malloc((size_t)(nh * S * D) * 2);
    d.mask = malloc(2048 * 2048);
    const int64_t np = s->pse ? s->B * s->N * s->QS * S : 0;
    d.pse = malloc((size_t)np * 2 + 2);
    if (!d.pse || !d.q || !d.o || !d.kp || !d.vp || !d.k || !d.v || !d.kc || !d.vc ||
        !d.mask) {
        fprintf(stderr, "prefix bench: out of memory\n");
        exit(1);
    }
    pfx_fill(d.q, s->B * s->N * s->QS * D, 12);
    pfx_fill(d.kp, s->KVN * s->P * D, 12);
    pfx_fill(d.vp, s->KVN * s->P * D, 13);
    pfx_fill(d.k, nh * s->KVS * D, 12);
    pfx_fill(d.v, nh * s->KVS * D, 13);
    pfx_fill(d.pse, np, 12);
    for (int64_t b = 0; b < s->B; b++)
        for (int64_t h = 0; h < s->KVN; h++) {
            const size_t pre = (size_t)(s->P * D), own = (size_t)(s->KVS * D);
            const size_t c = (size_t)((b * s->KVN + h) * S * D);
            memcpy(d.kc + c, d.kp + h * pre, pre * 2);
            memcpy(d.vc + c, d.vp + h * pre, pre * 2);
            memcpy(d.kc + c + pre, d.k + (b * s->KVN + h) * own, own * 2);
            memcpy(d.vc + c + pre, d.v + (b * s->KVN + h) * own, own * 2);
        }
    for (int64_t i = 0; i < 2048 * 2048; i++)
        d.mask[i] = (i % 2048) > (i / 2048);
    return d;
}

static void pfx_free(pfx_data *d)
{
    free(d->q), free(d->o), free(d->kp), free(d->vp), free(d->k);
    free(d->v), free(d->kc), free(d->vc), free(d->mask), free(d->pse);
}

/* The workspace, kept from run to run of one form. */
typedef struct pfx_runner {
    void *ws;
    uint64_t cap;
} pfx_runner;

/* One run of both phases, the prefix form (prefixed) or the plain call;
 * seconds (the workspace allocation outside the timing). */
static double pfx_time(const pfx_shape *s, const pfx_data *d, bool prefixed,
                       pfx_runner *rn)
{
    const int64_t S = prefixed ? s->KVS : s->P + s->KVS;
    fia_tensor q = {FIA_DT_FP16, 4, {s->B, s->N, s->QS, s->D}, d->q};
    fia_tensor o = {FIA_DT_FP16, 4, {s->B, s->N, s->QS, s->D}, d->o};
    fia_tensor k = {FIA_DT_FP16, 4, {s->B, s->KVN, S, s->D},
                    prefixed ? d->k : d->kc};
    fia_tensor v = {FIA_DT_FP16, 4, {s->B, s->KVN, S, s->D},
                    prefixed ? d->v : d->vc};
    fia_tensor kp = {FIA_DT_FP16, 4, {1, s->KVN, s->P, s->D}, d->kp};
    fia_tensor vp = {FIA_DT_FP16, 4, {1, s->KVN, s->P, s->D}, d->vp};
    fia_tensor m = {FIA_DT_BOOL, 2, {2048, 2048}, d->mask};
    fia_tensor pse = {FIA_DT_FP16, 4, {s->B, s->N, s->QS, s->P + s->KVS},
                      d->pse};
    const fia_tensor *kl1[1] = {&k}, *vl1[1] = {&v};
    fia_tensor_list kl = {1, kl1}, vl = {1, vl1};
    double t0 = pfx_now();
    uint64_t wss = 0;
    fast_executor *ex = NULL;
    fia_status st = fastFusedInferAttentionScoreV2GetWorkspaceSize(
        &q, &kl, &vl, s->pse ? &pse : NULL, s->sparse ? &m : NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, prefixed ? &kp : NULL, prefixed ? &vp : NULL, NULL, s->N,
        1.0 / sqrt((double)s->D), 2147483647, 0, "BNSD", s->KVN, s->sparse,
        1, 0, 0, false, 0, 0, &o, NULL, &wss, &ex);
    if (st != FIA_OK) {
        fprintf(stderr, "prefix bench: %s: status %d (%s)\n", s->name, st,
                fastLastError());
        exit(1);
    }
    if (wss > rn->cap) {
        free(rn->ws);
        rn->ws = aligned_alloc(64, (wss + 63) & ~(uint64_t)63);
        if (rn->ws == NULL) {
            fprintf(stderr, "prefix bench: out of memory\n");
            exit(1);
        }
        rn->cap = wss;
        t0 = pfx_now();
    }
    st = fastFusedInferAttentionScoreV2(rn->ws, wss, ex, NULL);
    if (st != FIA_OK) {
        fprintf(stderr, "prefix bench: %s: run status %d\n", s->name, st);
        exit(1);
    }
    return pfx_now() - t0;
}

/* Scores that take part over the logical keys (right-down causal when
 * sparse = 3), times 4 D flops. */
static double pfx_flops(const pfx_shape *s)
{
    const int64_t kv = s->P + s->KVS;
    double per = 0;
    for (int64_t i = 0; i < s->QS; i++) {
        int64_t h = s->sparse == 3 ? i + kv - s->QS + 1 : kv;
        per += (double)(h < 0 ? 0 : h > kv ? kv : h);
    }
    return 4.0 * (double)s->D * per * (double)(s->B * s->N);
}

/* K/V bytes a call must read: the prefix once or B times, the own keys. */
static double pfx_bytes(const pfx_shape *s, bool prefixed)
{
    const double row = 2.0 * 2.0 * (double)s->D * (double)s->KVN;
    return row * ((prefixed ? 1.0 : (double)s->B) * (double)s->P +
                  (double)s->B * (double)s->KVS);
}

/* Best times of both forms, in turns. */
static void pfx_turns(const pfx_shape *s, int turns, double *t_pfx,
                      double *t_plain)
{
    pfx_data d = pfx_make(s);
    pfx_runner r1 = {NULL, 0}, r2 = {NULL, 0};
    *t_pfx = *t_plain = INFINITY;
    pfx_time(s, &d, true, &r1); /* warm-up: workspaces, pages */
    pfx_time(s, &d, false, &r2);
    for (int r = 0; r < turns; r++) {
        double a = pfx_time(s, &d, true, &r1);
        double b = pfx_time(s, &d, false, &r2);
        *t_pfx = a < *t_pfx ? a : *t_pfx;
        *t_plain = b < *t_plain ? b : *t_plain;
    }
    free(r1.ws), free(r2.ws);
    pfx_free(&d);
}

static void pfx_machine(void)
{
    char line[256], model[128] = "?";
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            const char *c = strchr(line, ':');
            snprintf(model, sizeof model, "%.127s", c ? c + 2 : line);
            model[strcspn(model, "\n")] = '\0';
            break;
        }
    if (f)
        fclose(f);
    printf("prefix bench: %s, %d fast/ threads, ISA %s\n", model,
           fastThreadCount(), getenv("FIA_FAST_ISA") ? getenv("FIA_FAST_ISA")
                                                     : "auto");
}

void bench_prefix(int reps)
{
    static const pfx_shape prefill[2] = {
        {"prefill", 2, 32, 8, 1024, 1024, 1024, 128, 0, false},
        {"prefill causal", 2, 32, 8, 1024, 1024, 1024, 128, 3, false}};
    static const pfx_shape decode[3] = {
        {"decode", 8, 32, 8, 1, 4096, 4096, 128, 0, false},
        {"decode 4k prefix + 256 own", 8, 32, 8, 1, 4096, 256, 128, 0, false},
        {"decode + pse", 8, 32, 8, 1, 4096, 4096, 128, 0, true}};
    pfx_machine();
    for (int i = 0; i < 2; i++) {
        const pfx_shape *s = &prefill[i];
        double tp, tc;
        pfx_turns(s, reps, &tp, &tc);
        printf("%s with a prefix (B=%lld, P=%lld + %lld own): %.1f GFLOP/s "
               "= %.2fx the plain call with the keys concatenated (%.1f "
               "GFLOP/s in the same turns)\n", s->name, (long long)s->B,
               (long long)s->P, (long long)s->KVS, pfx_flops(s) / tp * 1e-9,
               tc / tp, pfx_flops(s) / tc * 1e-9);
    }
    for (int i = 0; i < 3; i++) {
        const pfx_shape *s = &decode[i];
        double tp, tc;
        pfx_turns(s, reps + 5, &tp, &tc);
        const double bp = pfx_bytes(s, true), bc = pfx_bytes(s, false);
        printf("%s with a prefix (B=%lld, P=%lld + %lld own): %.2f ms = "
               "%.2fx the plain call (%.2f ms); K/V read per token %.2f MB "
               "(prefix once) vs %.2f MB (B copies) = %.2fx fewer bytes; "
               "%.1f GB/s over the bytes read (plain %.1f GB/s)\n", s->name,
               (long long)s->B, (long long)s->P, (long long)s->KVS, tp * 1e3,
               tc / tp, tc * 1e3, bp / (double)s->B * 1e-6,
               bc / (double)s->B * 1e-6, bc / bp, bp / tp * 1e-9,
               bc / tc * 1e-9);
    }
}
