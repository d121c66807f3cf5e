/* fiacheck-bench-fast (`fiacheck bench --fast [--quick]`): fast/'s speed
 * against baselines measured in the same run, on these shapes:
 *   prefill B=1 N=32 KV_N=8 S=2048 D=128 fp16 BNSD, no mask and causal
 *     (sparse_mode 3 with the compressed 2048x2048 mask): GFLOP/s over the
 *     scores that take part (4*D flops per score);
 *   decode B=8 N=32 KV_N=8 KV_S=8192 D=128 fp16 BNSD: GB/s of K/V read.
 * Baselines: OpenBLAS sgemm 2048^3 (the practical ceiling), the attention a
 * user would compose from oneDNN matmul + softmax primitives on the same
 * shapes (scale as an output scale, the causal mask added by a binary
 * primitive; f16 when this CPU's oneDNN has an optimized f16 matmul, else
 * f32 with the inputs converted before timing), and a streaming read of a buffer far larger
 * than the last-level cache (in turns with the decode runs), and the FMA
 * peak of the threads (bench/fma_peak.h), the real ceiling of the prefill.
 * (The baselines: baseline_openblas.c and baseline_onednn.c.)
 * Everything uses two threads.  Each figure is the best of a few runs.
 * Then the families, one file each on the common runner (fast_runner.h:
 * shapes, data, one timed call of fast/, the bandwidth): page attention,
 * left padding and pse_shift against the contiguous, right-padded, plain
 * path in the same turns (--only paged, --only padding, --only pse;
 * fast_paged.c, fast_padding.c, fast_pse.c), a shared prefix against the
 * keys concatenated (--only prefix, fast_prefix.c), int8 / int4 key and
 * value against fp16 (--only antiquant, fast_antiquant.c), full int8
 * quantization against fp16 (--only int8, fast_int8.c), MLA decode
 * against the bandwidth and the FMA peak (--only mla, fast_mla.c).
 * Ends with one line per shape, e.g.
 *   prefill causal: 101.2 GFLOP/s = 73% of sgemm, 1.80x onednn
 *   decode: 41.0 GB/s = 76% of bandwidth */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fia/fast.h"
#include "bench_record.h"
#include "baselines.h"
#include "fast_runner.h"
#include "fma_peak.h"

/* ---- main ------------------------------------------------------------------ */
/* --only NAME [REPS]: a comparison in turns alone (paged, padding, pse,
 * prefix), or fast/ alone on one shape (decode, causal, else prefill), for
 * profiling. */
static void run_only(const char *name, int reps)
{
    static const struct { const char *name; void (*run)(int); } only[] = {
        {"paged", bench_paged}, {"padding", bench_padding}, {"pse", bench_pse},
        {"prefix", bench_prefix}, {"antiquant", bench_antiquant},
        {"int8", bench_int8}, {"mla", bench_mla}};
    for (size_t i = 0; i < sizeof only / sizeof *only; i++)
        if (strcmp(name, only[i].name) == 0) {
            only[i].run(reps);
            return;
        }
    const shape *s = strcmp(name, "decode") == 0   ? &DECODE
                     : strcmp(name, "causal") == 0 ? &CAUSAL
                                                   : &PREFILL;
    data d = make_data(s);
    double t = time_fast(s, &d, reps);
    printf("fast %s: %.2f ms, %.1f GFLOP/s, %.1f GB/s K/V\n", s->name,
           t * 1e3, flops(s) / t * 1e-9, kv_bytes(s) / t * 1e-9);
    free_data(&d);
}

int main(int argc, char **argv)
{
#ifdef FIA_HAVE_OPENBLAS
    /* OpenBLAS starts its threads when it loads, and an idle one spins
     * (sched_yield) for 2^28 cycles before it sleeps: after every call and
     * at start, taking CPU from whatever is measured next (8 % of the
     * samples of a prefill run here).  The timeout is read from the
     * environment at load, so set it and start again (once). */
    if (getenv("OPENBLAS_THREAD_TIMEOUT") == NULL) {
        setenv("OPENBLAS_THREAD_TIMEOUT", "4", 1); /* 2^4 cycles */
        execv("/proc/self/exe", argv);
        /* not fatal: the figures are only noisier */
    }
#endif
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int reps = quick ? 1 : 3;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 2 && strcmp(argv[1], "--only") == 0) {
        run_only(argv[2], argc > 3 ? atoi(argv[3]) : 3);
        return 0;
    }
    printf("fiacheck bench --fast: %d threads%s\n", THREADS,
           quick ? " (quick: one run each)" : "");

    /* Decode and the memory bandwidth are measured in turns, one run of
     * each at a time, best of each: this machine's bandwidth moves over
     * seconds (shared host), and a bandwidth taken at another moment than
     * decode can put decode far above or below it.  OpenBLAS last. */
    const int dec_reps = reps + 5;
    double bw = -1;
    const shape *shapes[3] = {&PREFILL, &CAUSAL, &DECODE};
    double fast_t[3], dnnl_t[3] = {-1, -1, -1};
    for (int i = 0; i < 3; i++) {
        const shape *s = shapes[i];
        data d = make_data(s);
        if (s->QS == 1) {
            uint64_t *buf = malloc(BW_BYTES);
            if (buf == NULL) {
                fprintf(stderr, "bandwidth: out of memory\n");
                return 1;
            }
            memset(buf, 1, BW_BYTES);
            runner rn = {NULL, 0};
            time_fast_in(s, &d, 1, &rn); /* warm-up: the workspace */
            fast_t[i] = INFINITY;
            for (int r = 0; r < dec_reps; r++) {
                double b = bandwidth(buf);
                bw = b > bw ? b : bw;
                double t = time_fast_in(s, &d, 1, &rn);
                fast_t[i] = t < fast_t[i] ? t : fast_t[i];
            }
            free(rn.ws);
            free(buf);
            printf("memory read bandwidth (1 GiB, %d threads, in turns with "
                   "decode): %.1f GB/s\n", THREADS, bw);
        } else {
            fast_t[i] = time_fast(s, &d, reps);
        }
        printf("fast %-15s %8.2f ms  %7.1f GFLOP/s  %6.1f GB/s K/V\n", s->name,
               fast_t[i] * 1e3, flops(s) / fast_t[i] * 1e-9,
               kv_bytes(s) / fast_t[i] * 1e-9);
        char what[160];
        dnnl_t[i] = baseline_onednn_attention(s, &d, reps, what, sizeof what);
        if (dnnl_t[i] > 0)
            printf("onednn %-13s %8.2f ms  %7.1f GFLOP/s  (%s)\n", s->name,
                   dnnl_t[i] * 1e3, flops(s) / dnnl_t[i] * 1e-9, what);
        else
            printf("onednn %-13s baseline not available (%s)\n", s->name, what);
        free_data(&d);
    }

    double gemm = baseline_sgemm_gflops(2048, 2048, reps);
    if (gemm > 0) {
        printf("openblas sgemm 2048^3 (%d threads): %.1f GFLOP/s\n", THREADS,
               gemm);
        printf("openblas sgemm 2048x2048x128 (Q.K^T shape): %.1f GFLOP/s\n",
               baseline_sgemm_gflops(2048, 128, reps));
    } else {
        printf("openblas sgemm: baseline not available (built without "
               "OpenBLAS)\n");
    }

    /* the real ceiling: FMA throughput of all the threads, the best of a
     * few runs (one run can catch the shared host busy) */
    int level = FMA_PEAK_AVX512;
    double peak = fma_peak(level, THREADS);
    if (peak < 0)
        peak = fma_peak(level = FMA_PEAK_AVX2, THREADS);
    for (int r = 1; peak > 0 && r < reps + 2; r++) {
        double again = fma_peak(level, THREADS);
        peak = again > peak ? again : peak;
    }
    if (peak > 0) {
        printf("fma peak (%s, %d threads): %.1f GFLOP/s;", level ==
               FMA_PEAK_AVX512 ? "avx512" : "avx2", THREADS, peak);
        for (int i = 0; i < 2; i++) {
            printf(" %s %.0f%%", shapes[i]->name,
                   100.0 * flops(shapes[i]) / fast_t[i] * 1e-9 / peak);
            bench_record(shapes[i]->name, flops(shapes[i]) / fast_t[i] * 1e-9,
                         "GFLOP/s",
                         flops(shapes[i]) / fast_t[i] * 1e-9 / peak,
                         "fma-peak");
            if (dnnl_t[i] > 0)
                printf(" (onednn %.0f%%)",
                       100.0 * flops(shapes[i]) / dnnl_t[i] * 1e-9 / peak);
            printf(i == 0 ? "," : "\n");
        }
    } else {
        printf("fma peak: not measured (no AVX2/AVX-512 here)\n");
    }

    for (int i = 0; i < 2; i++) {
        const shape *s = shapes[i];
        double g = flops(s) / fast_t[i] * 1e-9;
        printf("%s: %.1f GFLOP/s", s->name, g);
        if (gemm > 0)
            printf(" = %.0f%% of sgemm", 100.0 * g / gemm);
        else
            printf(", sgemm not available");
        if (dnnl_t[i] > 0)
            printf(", %.2fx onednn\n", dnnl_t[i] / fast_t[i]);
        else
            printf(", onednn not available\n");
    }
    double gb = kv_bytes(&DECODE) / fast_t[2] * 1e-9;
    printf("decode: %.1f GB/s = %.0f%% of bandwidth", gb, 100.0 * gb / bw);
    bench_record("decode", gb, "GB/s", gb / bw, "bandwidth");
    if (dnnl_t[2] > 0)
        printf(", %.2fx onednn\n", dnnl_t[2] / fast_t[2]);
    else
        printf("\n");
    bench_paged(reps);
    bench_padding(reps);
    bench_pse(reps);
    bench_prefix(reps);
    bench_antiquant(reps);
    bench_int8(reps);
    bench_mla(reps);
    return 0;
}
