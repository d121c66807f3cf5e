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
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fia/fast.h"
#include "bench_record.h"
#include "fast_runner.h"
#include "fma_peak.h"
#ifdef FIA_HAVE_DNNL
#include <dnnl.h>
#endif

/* ---- OpenBLAS ------------------------------------------------------------- */
#ifdef FIA_HAVE_OPENBLAS
/* Declared here: the cblas header's directory differs between packagings. */
enum { CblasRowMajor = 101, CblasNoTrans = 111, CblasTrans = 112 };
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta,
                 float *c, int ldc);
void openblas_set_num_threads(int n);

/* GFLOP/s of C = A.B^T, M = N = n, K = k, best of reps. */
static double sgemm_gflops(int n, int k, int reps)
{
    openblas_set_num_threads(THREADS);
    float *a = malloc((size_t)n * k * 4), *b = malloc((size_t)n * k * 4);
    float *c = malloc((size_t)n * n * 4);
    for (size_t i = 0; i < (size_t)n * k; i++)
        a[i] = (float)(rnd() % 1000) * 1e-3f, b[i] = (float)(rnd() % 1000) * 1e-3f;
    double best = INFINITY;
    for (int r = 0; r < reps + 1; r++) { /* + a warm-up */
        double t0 = now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, k, 1.0f, a,
                    k, b, k, 0.0f, c, n);
        double dt = now() - t0;
        best = r > 0 && dt < best ? dt : best;
    }
    free(a), free(b), free(c);
    return 2.0 * n * (double)n * k / best * 1e-9;
}
#endif

#ifdef FIA_HAVE_DNNL
static float half_to_float(uint16_t h)
{
    uint32_t e = (h >> 10) & 31u, m = h & 0x3ffu;
    float f = e == 0 ? (float)m * 0x1p-24f : ldexpf((float)(m | 0x400u), (int)e - 25);
    return (h & 0x8000u) ? -f : f;
}

/* ---- oneDNN: matmul (scale) [+ mask] + softmax + matmul --------------------
 * GQA by batch broadcasting: Q [B*KV_N, G, S, D], K^T [B*KV_N, 1, D, KV_S]
 * (K's own rows, strided), scores [B*KV_N, G, S, KV_S]. */
#define DNNL_OK(x)                                                      \
    do {                                                                \
        if ((x) != dnnl_success) {                                      \
            snprintf(what, wlen, "%s failed", #x);                      \
            goto out;                                                   \
        }                                                               \
    } while (0)

static void md4(dnnl_memory_desc_t *md, dnnl_data_type_t dt, int64_t a,
                int64_t b, int64_t c, int64_t d, int64_t sa, int64_t sb,
                int64_t sc, int64_t sd)
{
    dnnl_dims_t dims = {a, b, c, d}, st = {sa, sb, sc, sd};
    dnnl_memory_desc_init_by_strides(md, 4, dims, dt, st);
}

/* Best time, or -1 with the reason in what; what says the data type. */
static double onednn_try(const shape *s, const data *d, int reps,
                         dnnl_data_type_t dt, char *what, size_t wlen)
{
    double best = -1;
    const int64_t G = s->N / s->KVN, BK = s->B * s->KVN, S = s->QS;
    const int64_t T = s->KVS, D = s->D;
    const size_t es = dt == dnnl_f16 ? 2 : 4;
    dnnl_engine_t eng = NULL;
    dnnl_stream_t str = NULL;
    dnnl_primitive_desc_t pd1 = NULL, pd2 = NULL, pd3 = NULL, pdb = NULL;
    dnnl_primitive_t p1 = NULL, p2 = NULL, p3 = NULL, pb = NULL;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_memory_t mq = NULL, mk = NULL, mv = NULL, ms = NULL, mo = NULL,
                  mm = NULL;
    void *q = NULL, *k = NULL, *v = NULL, *sc = NULL, *o = NULL;
    float *mask = NULL;
    int64_t nq = BK * G * S * D, nkv = BK * T * D, ns = BK * G * S * T;
    q = malloc((size_t)nq * es), k = malloc((size_t)nkv * es);
    v = malloc((size_t)nkv * es), o = malloc((size_t)nq * es);
    sc = malloc((size_t)ns * es);
    if (!q || !k || !v || !o || !sc) {
        snprintf(what, wlen, "out of memory");
        goto out;
    }
    if (dt == dnnl_f16) {
        memcpy(q, d->q, (size_t)nq * 2), memcpy(k, d->k, (size_t)nkv * 2);
        memcpy(v, d->v, (size_t)nkv * 2);
    } else { /* converted before timing */
        for (int64_t i = 0; i < nq; i++)
            ((float *)q)[i] = half_to_float(d->q[i]);
        for (int64_t i = 0; i < nkv; i++) {
            ((float *)k)[i] = half_to_float(d->k[i]);
            ((float *)v)[i] = half_to_float(d->v[i]);
        }
    }
    DNNL_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    DNNL_OK(dnnl_stream_create(&str, eng, dnnl_stream_default_flags));
    dnnl_memory_desc_t dq, dk, dv, ds, dop, dm;
    md4(&dq, dt, BK, G, S, D, G * S * D, S * D, D, 1);
    md4(&dk, dt, BK, 1, D, T, T * D, T * D, 1, D); /* K^T, in place */
    md4(&dv, dt, BK, 1, T, D, T * D, T * D, D, 1);
    md4(&ds, dt, BK, G, S, T, G * S * T, S * T, T, 1);
    md4(&dop, dt, BK, G, S, D, G * S * D, S * D, D, 1);
    md4(&dm, dnnl_f32, 1, 1, S, T, S * T, S * T, T, 1);
    float scale = (float)(1.0 / sqrt((double)D));
    DNNL_OK(dnnl_primitive_attr_create(&attr));
    DNNL_OK(dnnl_primitive_attr_set_output_scales(attr, 1, 0, &scale));
    if (s->sparse == 3) { /* scores += mask (0 / -1e9), a binary primitive */
        mask = malloc((size_t)(S * T) * 4);
        for (int64_t i = 0; i < S; i++)
            for (int64_t j = 0; j < T; j++)
                mask[i * T + j] = j <= i + T - S ? 0.0f : -1e9f;
        dnnl_binary_desc_t bd;
        DNNL_OK(dnnl_binary_desc_init(&bd, dnnl_binary_add, &ds, &dm, &ds));
        DNNL_OK(dnnl_primitive_desc_create(&pdb, &bd, NULL, eng, NULL));
        DNNL_OK(dnnl_primitive_create(&pb, pdb));
        DNNL_OK(dnnl_memory_create(&mm, &dm, eng, mask));
    }
    dnnl_matmul_desc_t mmd1, mmd2;
    dnnl_softmax_desc_t smd;
    DNNL_OK(dnnl_matmul_desc_init(&mmd1, &dq, &dk, NULL, &ds));
    DNNL_OK(dnnl_primitive_desc_create(&pd1, &mmd1, attr, eng, NULL));
    DNNL_OK(dnnl_softmax_forward_desc_init(&smd, dnnl_forward_inference, &ds, 3));
    DNNL_OK(dnnl_primitive_desc_create(&pd2, &smd, NULL, eng, NULL));
    DNNL_OK(dnnl_matmul_desc_init(&mmd2, &ds, &dv, NULL, &dop));
    DNNL_OK(dnnl_primitive_desc_create(&pd3, &mmd2, NULL, eng, NULL));
    const char *impl1 = "?", *impl3 = "?";
    dnnl_primitive_desc_query(pd1, dnnl_query_impl_info_str, 0, &impl1);
    dnnl_primitive_desc_query(pd3, dnnl_query_impl_info_str, 0, &impl3);
    if (strncmp(impl1, "ref", 3) == 0 || strncmp(impl3, "ref", 3) == 0) {
        /* a reference (unoptimized) matmul: not what a user would keep */
        snprintf(what, wlen, "%s matmul only as %s", dt == dnnl_f16 ? "f16" : "f32",
                 impl1);
        goto out;
    }
    DNNL_OK(dnnl_primitive_create(&p1, pd1));
    DNNL_OK(dnnl_primitive_create(&p2, pd2));
    DNNL_OK(dnnl_primitive_create(&p3, pd3));
    DNNL_OK(dnnl_memory_create(&mq, &dq, eng, q));
    DNNL_OK(dnnl_memory_create(&mk, &dk, eng, k));
    DNNL_OK(dnnl_memory_create(&mv, &dv, eng, v));
    DNNL_OK(dnnl_memory_create(&ms, &ds, eng, sc));
    DNNL_OK(dnnl_memory_create(&mo, &dop, eng, o));
    dnnl_exec_arg_t a1[3] = {{DNNL_ARG_SRC, mq}, {DNNL_ARG_WEIGHTS, mk},
                             {DNNL_ARG_DST, ms}};
    dnnl_exec_arg_t ab[3] = {{DNNL_ARG_SRC_0, ms}, {DNNL_ARG_SRC_1, mm},
                             {DNNL_ARG_DST, ms}};
    dnnl_exec_arg_t a2[2] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, ms}};
    dnnl_exec_arg_t a3[3] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mv},
                             {DNNL_ARG_DST, mo}};
    double tbest = INFINITY;
    for (int r = 0; r < reps + 1; r++) { /* + a warm-up */
        double t0 = now();
        DNNL_OK(dnnl_primitive_execute(p1, str, 3, a1));
        if (pb)
            DNNL_OK(dnnl_primitive_execute(pb, str, 3, ab));
        DNNL_OK(dnnl_primitive_execute(p2, str, 2, a2));
        DNNL_OK(dnnl_primitive_execute(p3, str, 3, a3));
        DNNL_OK(dnnl_stream_wait(str));
        double dt = now() - t0;
        tbest = r > 0 && dt < tbest ? dt : tbest;
    }
    best = tbest;
    snprintf(what, wlen, "%s matmul (%s) + softmax + matmul",
             dt == dnnl_f16 ? "f16" : "f32", impl1);
out:
    if (p1) dnnl_primitive_destroy(p1);
    if (p2) dnnl_primitive_destroy(p2);
    if (p3) dnnl_primitive_destroy(p3);
    if (pd1) dnnl_primitive_desc_destroy(pd1);
    if (pd2) dnnl_primitive_desc_destroy(pd2);
    if (pd3) dnnl_primitive_desc_destroy(pd3);
    if (pb) dnnl_primitive_destroy(pb);
    if (pdb) dnnl_primitive_desc_destroy(pdb);
    if (attr) dnnl_primitive_attr_destroy(attr);
    dnnl_memory_t mems[6] = {mq, mk, mv, ms, mo, mm};
    for (int i = 0; i < 6; i++)
        if (mems[i])
            dnnl_memory_destroy(mems[i]);
    if (str) dnnl_stream_destroy(str);
    if (eng) dnnl_engine_destroy(eng);
    free(q), free(k), free(v), free(sc), free(o), free(mask);
    return best;
}

/* f16 when oneDNN supports it here, else f32. */
static double onednn_attention(const shape *s, const data *d, int reps,
                               char *what, size_t wlen)
{
    /* oneDNN's OpenMP runtime: two threads, like everything else. */
    void (*set_threads)(int) =
        (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    if (set_threads)
        set_threads(THREADS);
    char why[128];
    double t = onednn_try(s, d, reps, dnnl_f16, why, sizeof why);
    if (t > 0) {
        snprintf(what, wlen, "%s", why);
        return t;
    }
    t = onednn_try(s, d, reps, dnnl_f32, what, wlen);
    if (t > 0) {
        size_t n = strlen(what);
        snprintf(what + n, wlen - n, "; f16: %s", why);
    }
    return t;
}
#endif

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
#ifdef FIA_HAVE_DNNL
        char what[160];
        dnnl_t[i] = onednn_attention(s, &d, reps, what, sizeof what);
        if (dnnl_t[i] > 0)
            printf("onednn %-13s %8.2f ms  %7.1f GFLOP/s  (%s)\n", s->name,
                   dnnl_t[i] * 1e3, flops(s) / dnnl_t[i] * 1e-9, what);
        else
            printf("onednn %-13s baseline not available (%s)\n", s->name, what);
#else
        printf("onednn %-13s baseline not available (built without oneDNN)\n",
               s->name);
#endif
        free_data(&d);
    }

    double gemm = -1;
#ifdef FIA_HAVE_OPENBLAS
    gemm = sgemm_gflops(2048, 2048, reps);
    printf("openblas sgemm 2048^3 (%d threads): %.1f GFLOP/s\n", THREADS, gemm);
    printf("openblas sgemm 2048x2048x128 (Q.K^T shape): %.1f GFLOP/s\n",
           sgemm_gflops(2048, 128, reps));
#else
    printf("openblas sgemm: baseline not available (built without OpenBLAS)\n");
#endif

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
