/* The memory bandwidth the decode figures are measured against: a read of
 * a buffer far larger than the last-level cache by the bench's threads. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include "fast_runner.h"

typedef struct rd_arg {
    const uint64_t *p;
    size_t n;
    uint64_t sum;
} rd_arg;

/* The sum of r->n words, 4 KiB ahead prefetched as fast/ does for K/V.
 * Vector loads where the CPU has them: a scalar loop of 8 loads per line
 * may itself limit the figure on a fast memory system. */
#if defined(__x86_64__)
#include <immintrin.h>
__attribute__((target("avx2"))) static uint64_t read_avx2(const uint64_t *p,
                                                          size_t n)
{
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        if (i + 512 < n)
            __builtin_prefetch(p + i + 512);
        a0 = _mm256_add_epi64(a0, _mm256_loadu_si256((const void *)(p + i)));
        a1 = _mm256_add_epi64(a1, _mm256_loadu_si256((const void *)(p + i + 4)));
        a2 = _mm256_add_epi64(a2, _mm256_loadu_si256((const void *)(p + i + 8)));
        a3 = _mm256_add_epi64(a3, _mm256_loadu_si256((const void *)(p + i + 12)));
    }
    a0 = _mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3));
    uint64_t w[4], sum = 0;
    _mm256_storeu_si256((void *)w, a0);
    for (int k = 0; k < 4; k++)
        sum += w[k];
    for (; i < n; i++)
        sum += p[i];
    return sum;
}
#endif

static void *read_part(void *a)
{
    rd_arg *r = a;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2")) {
        r->sum = read_avx2(r->p, r->n);
        return NULL;
    }
#endif
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    for (size_t i = 0; i + 8 <= r->n; i += 8) {
        if (i + 512 < r->n)
            __builtin_prefetch(r->p + i + 512);
        s0 += r->p[i], s1 += r->p[i + 1], s2 += r->p[i + 2];
        s3 += r->p[i + 3], s4 += r->p[i + 4], s5 += r->p[i + 5];
        s6 += r->p[i + 6], s7 += r->p[i + 7];
    }
    r->sum = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
    return NULL;
}


/* GB/s of one read of buf (BW_BYTES, >> LLC) by THREADS threads. */
double bandwidth(const uint64_t *buf)
{
    const size_t n = BW_BYTES / 8;
    uint64_t sink = 0;
    pthread_t t[THREADS];
    rd_arg a[THREADS];
    double t0 = now();
    for (int i = 0; i < THREADS; i++) {
        a[i] = (rd_arg){buf + i * (n / THREADS), n / THREADS, 0};
        pthread_create(&t[i], NULL, read_part, &a[i]);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        sink += a[i].sum;
    }
    double dt = now() - t0;
    if (sink == 42)
        printf(" ");
    return (double)BW_BYTES / dt * 1e-9;
}
