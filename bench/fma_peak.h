/* The float32 FMA peak of this machine, measured: independent accumulator
 * chains in registers (24 of 16 lanes for AVX-512, 12 of 8 for AVX2), more
 * than latency x pipes on any current core, so the loop runs at the FMA
 * throughput.  This is the real ceiling of a float32 kernel here (OpenBLAS's
 * sgemm is not one on every CPU).  Header-only, for the bench binaries:
 * fma_peak(level, threads) -> GFLOP/s over all threads, or -1 when the CPU
 * lacks the level (or it is not an x86-64 build). */
#ifndef FIA_BENCH_FMA_PEAK_H
#define FIA_BENCH_FMA_PEAK_H

#include <pthread.h>
#include <stdbool.h>
#include <time.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

enum { FMA_PEAK_AVX2 = 1, FMA_PEAK_AVX512 = 2, FMA_PEAK_MAX_THREADS = 16 };
#define FMA_PEAK_ITERS 20000000L

static double fma_peak_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#if defined(__x86_64__)
/* The start values come through a volatile so that the compiler cannot
 * merge chains it proves equal (it did, with constants). */
static volatile float fma_peak_seed = 1.0f;

/* Returns the flops done. */
__attribute__((target("avx512f,fma"))) static double fma_peak_avx512(void)
{
    __m512 x[24]; /* every loop unrolled: x stays in registers */
#pragma GCC unroll 24
    for (int i = 0; i < 24; i++)
        x[i] = _mm512_set1_ps(fma_peak_seed + (float)i * 1e-3f);
    const __m512 m = _mm512_set1_ps(0.9999999f), c = _mm512_set1_ps(1e-7f);
    for (long it = 0; it < FMA_PEAK_ITERS; it++) {
#pragma GCC unroll 24
        for (int k = 0; k < 24; k++)
            x[k] = _mm512_fmadd_ps(x[k], m, c);
    }
#pragma GCC unroll 24
    for (int i = 1; i < 24; i++)
        x[0] = _mm512_add_ps(x[0], x[i]);
    fma_peak_seed = _mm512_reduce_add_ps(x[0]) * 0.0f + 1.0f;
    return (double)FMA_PEAK_ITERS * 24 * 32;
}

__attribute__((target("avx2,fma"))) static double fma_peak_avx2(void)
{
    __m256 x[12];
#pragma GCC unroll 12
    for (int i = 0; i < 12; i++)
        x[i] = _mm256_set1_ps(fma_peak_seed + (float)i * 1e-3f);
    const __m256 m = _mm256_set1_ps(0.9999999f), c = _mm256_set1_ps(1e-7f);
    for (long it = 0; it < FMA_PEAK_ITERS; it++) {
#pragma GCC unroll 12
        for (int k = 0; k < 12; k++)
            x[k] = _mm256_fmadd_ps(x[k], m, c);
    }
#pragma GCC unroll 12
    for (int i = 1; i < 12; i++)
        x[0] = _mm256_add_ps(x[0], x[i]);
    float s[8];
    _mm256_storeu_ps(s, x[0]);
    fma_peak_seed = s[0] * 0.0f + 1.0f;
    return (double)FMA_PEAK_ITERS * 12 * 16;
}

typedef struct fma_peak_arg {
    int level;
    double flops;
} fma_peak_arg;

static void *fma_peak_thread(void *p)
{
    fma_peak_arg *a = p;
    a->flops = a->level == FMA_PEAK_AVX512 ? fma_peak_avx512()
                                            : fma_peak_avx2();
    return NULL;
}
#endif

static double fma_peak(int level, int threads)
{
#if defined(__x86_64__)
    if (level == FMA_PEAK_AVX512 ? !__builtin_cpu_supports("avx512f")
                                 : !__builtin_cpu_supports("avx2") ||
                                       !__builtin_cpu_supports("fma"))
        return -1;
    if (threads < 1 || threads > FMA_PEAK_MAX_THREADS)
        return -1;
    pthread_t t[FMA_PEAK_MAX_THREADS];
    fma_peak_arg a[FMA_PEAK_MAX_THREADS];
    bool started[FMA_PEAK_MAX_THREADS] = {false};
    double t0 = fma_peak_now();
    for (int i = 1; i < threads; i++) {
        a[i] = (fma_peak_arg){level, 0};
        started[i] = pthread_create(&t[i], NULL, fma_peak_thread, &a[i]) == 0;
    }
    a[0] = (fma_peak_arg){level, 0};
    fma_peak_thread(&a[0]);
    double flops = a[0].flops;
    for (int i = 1; i < threads; i++)
        if (started[i]) {
            pthread_join(t[i], NULL);
            flops += a[i].flops;
        }
    return flops / (fma_peak_now() - t0) * 1e-9;
#else
    (void)level, (void)threads;
    return -1;
#endif
}

#endif
