/* fiacheck-bench-sut (`fiacheck bench --sut PATH`): a plug-in system under
 * test (include/fia/sut.h) timed on the same calls as fast/, through the
 * same table, in one run -- so the ratio plug-in : fast/ and the plug-in's
 * share of the FMA peak are figures of one machine state.  The calls are
 * the plain ones every system covers (float16 BNSD with GQA, no mask): a
 * prefill and a decode, small enough for a naive kernel to finish.
 *
 * The plug-in comes from FIACHECK_SUT (fiacheck sets it for --sut).  A call
 * the plug-in does not cover prints "not covered" and records nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_record.h"
#include "fia/dtype.h"
#include "fia/sut_host.h"
#include "fma_peak.h"

typedef struct call_shape {
    const char *name;
    int64_t B, N, KV_N, QS, KVS, D;
} call_shape;

static const call_shape SHAPES[] = {
    {"prefill", 1, 8, 2, 256, 256, 64},
    {"decode", 4, 16, 4, 1, 4096, 128},
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 4 D flops per (query row, key): Q.K^T and P.V, one multiply-add each. */
static double flops(const call_shape *s)
{
    return 4.0 * (double)s->D * (double)(s->B * s->N * s->QS * s->KVS);
}

typedef struct call_data {
    fia_tensor q, k, v, out;
    const fia_tensor *kp, *vp;
    fia_tensor_list kl, vl;
} call_data;

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static void fill(fia_tensor *t, fia_dtype dt, int64_t a, int64_t b,
                 int64_t c, int64_t d, int random)
{
    *t = (fia_tensor){.dtype = dt, .ndim = 4, .shape = {a, b, c, d}};
    int64_t n = a * b * c * d;
    uint16_t *p = malloc((size_t)n * 2);
    for (int64_t i = 0; p != NULL && i < n; i++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        double x = random ? ((double)(rng >> 40) / (double)(1 << 24) - 0.5)
                          : 0.0;
        p[i] = fia_double_to_fp16(x);
    }
    t->data = p;
}

static int make_call(const call_shape *s, call_data *d)
{
    fill(&d->q, FIA_DT_FP16, s->B, s->N, s->QS, s->D, 1);
    fill(&d->k, FIA_DT_FP16, s->B, s->KV_N, s->KVS, s->D, 1);
    fill(&d->v, FIA_DT_FP16, s->B, s->KV_N, s->KVS, s->D, 1);
    fill(&d->out, FIA_DT_FP16, s->B, s->N, s->QS, s->D, 0);
    d->kp = &d->k, d->vp = &d->v;
    d->kl = (fia_tensor_list){1, &d->kp};
    d->vl = (fia_tensor_list){1, &d->vp};
    return d->q.data && d->k.data && d->v.data && d->out.data ? 0 : -1;
}

static void free_call(call_data *d)
{
    free(d->q.data), free(d->k.data), free(d->v.data), free(d->out.data);
}

/* Seconds of the best of reps calls (both phases, workspace included),
 * or -1 with the system's message in why when it refuses the call. */
static double time_call(const fia_sut *sut, const call_shape *s,
                        call_data *d, int reps, char *why, size_t wlen,
                        fia_status *status)
{
    fia_sut_args a = {
        .size = sizeof a, .profile = FIA_PROFILE_DOC, .query = &d->q,
        .key = &d->kl, .value = &d->vl, .num_heads = s->N,
        .scale = 1.0 / 8.0, .pre_tokens = 2147483647,
        .next_tokens = 2147483647, .input_layout = "BNSD",
        .num_key_value_heads = s->KV_N, .inner_precise = 1,
        .attention_out = &d->out};
    double best = -1;
    for (int r = 0; r < reps; r++) {
        uint64_t ws_size = 0;
        void *ex = NULL;
        double t0 = now();
        fia_sut_announce_compute(1); /* a worker gets one exchange */
        fia_status st = sut->get_workspace_size(&a, &ws_size, &ex);
        void *ws = st == FIA_OK && ws_size ? malloc(ws_size) : NULL;
        if (st == FIA_OK && ws_size && ws == NULL) {
            sut->destroy(ex);
            snprintf(why, wlen, "no memory for a %llu-byte workspace",
                     (unsigned long long)ws_size);
            return -1;
        }
        if (st == FIA_OK)
            st = sut->run(ws, ws_size, ex);
        double t = now() - t0;
        free(ws);
        if (st != FIA_OK) {
            snprintf(why, wlen, "%d %s", st, sut->last_error());
            *status = st;
            return -1;
        }
        best = best < 0 || t < best ? t : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    int reps = 3;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: fiacheck bench --sut PATH [--reps N]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 1000) {
        fprintf(stderr, "bench: --reps wants 1..1000\n");
        return 2;
    }
    fia_error err;
    if (fia_sut_use_env(&err) != FIA_OK) {
        fprintf(stderr, "bench: FIACHECK_SUT: %s\n", err.msg);
        return 2;
    }
    const fia_sut *sut = fia_sut_current(), *fast = fia_sut_builtin();
    if (sut == fast) {
        fprintf(stderr, "bench: no plug-in (fiacheck bench --sut PATH)\n");
        return 2;
    }
    const char *th = fast->get_option("threads");
    int threads = th ? atoi(th) : 2;
    double peak = fma_peak(FMA_PEAK_AVX512, threads);
    if (peak <= 0)
        peak = fma_peak(FMA_PEAK_AVX2, threads);
    printf("plug-in %s %s against fast/ (%s kernels, %d threads); FMA peak "
           "%.1f GFLOP/s on %d threads\n", sut->name, sut->version,
           fast->get_option("kernel_level"), threads, peak, threads);
    printf("%-8s %12s %12s %10s %10s\n", "call", "plug-in GF/s",
           "fast/ GF/s", "vs fast/", "vs peak");
    int covered = 0;
    for (size_t i = 0; i < sizeof SHAPES / sizeof *SHAPES; i++) {
        const call_shape *s = &SHAPES[i];
        call_data d;
        char why[512] = "";
        if (make_call(s, &d) != 0) {
            fprintf(stderr, "bench: out of memory\n");
            free_call(&d);
            return 2;
        }
        /* alternately, so that both see the same machine state */
        double tf = -1, tp = -1;
        fia_status st = FIA_OK;
        for (int r = 0; r < reps; r++) {
            double f = time_call(fast, s, &d, 1, why, sizeof why, &st);
            double p = time_call(sut, s, &d, 1, why, sizeof why, &st);
            tf = f > 0 && (tf < 0 || f < tf) ? f : tf;
            if (p < 0) {
                tp = -1;
                break;
            }
            tp = tp < 0 || p < tp ? p : tp;
        }
        free_call(&d);
        if (tp < 0 && (st == FIA_ERR_SUT_CRASH || st == FIA_ERR_SUT_TIMEOUT)) {
            /* a worker that died or hung times nothing more */
            fprintf(stderr, "bench: %s on %s: %.400s\n", st ==
                    FIA_ERR_SUT_CRASH ? "crash" : "timeout", s->name, why);
            return 1;
        }
        if (tp < 0) {
            printf("%-8s not covered: %.200s\n", s->name, why);
            continue;
        }
        covered++;
        double gp = flops(s) / tp * 1e-9, gf = tf > 0 ? flops(s) / tf * 1e-9 : 0;
        printf("%-8s %12.2f %12.2f %9.1f%% %9.1f%%\n", s->name, gp, gf,
               gf > 0 ? 100.0 * gp / gf : 0.0,
               peak > 0 ? 100.0 * gp / peak : 0.0);
        bench_record(s->name, gp, "GFLOP/s", peak > 0 ? gp / peak : NAN,
                     "FMA peak");
        char name[64];
        snprintf(name, sizeof name, "%s vs fast", s->name);
        if (gf > 0)
            bench_record(name, gp / gf, "ratio", gp / gf, "fast/");
    }
    return covered > 0 ? 0 : 1;
}
