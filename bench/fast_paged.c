/* fiacheck-bench-fast --only paged (also in the full run): page attention
 * against the contiguous layout of the same keys. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_record.h"
#include "fast_runner.h"

static paged make_paged(const shape *s, const data *d, int64_t bs)
{
    paged pg = {.bs = bs, .cols = (s->KVS + bs - 1) / bs};
    pg.blocknum = s->B * pg.cols;
    pg.bt = malloc((size_t)pg.blocknum * sizeof *pg.bt);
    for (int64_t i = 0; i < pg.blocknum; i++)
        pg.bt[i] = (int32_t)i;
    for (int64_t i = pg.blocknum - 1; i > 0; i--) {
        int64_t j = rnd() % (uint32_t)(i + 1);
        int32_t t = pg.bt[i];
        pg.bt[i] = pg.bt[j], pg.bt[j] = t;
    }
    size_t n = (size_t)(pg.blocknum * s->KVN * bs * s->D);
    pg.k = calloc(n, 2), pg.v = calloc(n, 2);
    pg.kv_len = malloc((size_t)s->B * sizeof *pg.kv_len);
    for (int64_t b = 0; b < s->B; b++) {
        pg.kv_len[b] = s->KVS;
        for (int64_t h = 0; h < s->KVN; h++)
            for (int64_t j = 0; j < s->KVS; j++) {
                int64_t id = pg.bt[b * pg.cols + j / bs];
                size_t dst = (size_t)(((id * s->KVN + h) * bs + j % bs) * s->D);
                size_t src = (size_t)(((b * s->KVN + h) * s->KVS + j) * s->D);
                memcpy(pg.k + dst, d->k + src, (size_t)s->D * 2);
                memcpy(pg.v + dst, d->v + src, (size_t)s->D * 2);
            }
    }
    return pg;
}

static void free_paged(paged *pg)
{
    free(pg->bt), free(pg->k), free(pg->v), free(pg->kv_len);
}

/* Page attention against the contiguous layout of the same keys, in turns
 * (one run of each at a time, best of each), so that the host's moving
 * bandwidth does not decide the ratio: decode at block_size 128 and 16,
 * prefill at 128. */
void bench_paged(int reps)
{
    const shape *shapes[2] = {&DECODE, &PREFILL};
    for (int i = 0; i < 2; i++) {
        const shape *s = shapes[i];
        data d = make_data(s);
        const int64_t sizes[2] = {128, 16};
        const int nsizes = s->QS == 1 ? 2 : 1;
        paged pg[2];
        runner rc = {NULL, 0}, rp[2] = {{NULL, 0}, {NULL, 0}};
        double tc = INFINITY, tp[2] = {INFINITY, INFINITY};
        for (int j = 0; j < nsizes; j++)
            pg[j] = make_paged(s, &d, sizes[j]);
        const int turns = s->QS == 1 ? reps + 5 : reps;
        for (int r = 0; r < turns; r++) {
            double t = time_fast_pg(s, &d, NULL, 1, &rc);
            tc = t < tc ? t : tc;
            for (int j = 0; j < nsizes; j++) {
                t = time_fast_pg(s, &d, &pg[j], 1, &rp[j]);
                tp[j] = t < tp[j] ? t : tp[j];
            }
        }
        for (int j = 0; j < nsizes; j++) {
            char fig[64];
            snprintf(fig, sizeof fig, "%s paged bs%lld",
                     s->QS == 1 ? "decode" : "prefill", (long long)sizes[j]);
            bench_record(fig, s->QS == 1 ? kv_bytes(s) / tp[j] * 1e-9
                                         : flops(s) / tp[j] * 1e-9,
                         s->QS == 1 ? "GB/s" : "GFLOP/s", tc / tp[j],
                         "contiguous");
            if (s->QS == 1)
                printf("decode paged bs%lld: %.1f GB/s = %.0f%% of contiguous "
                       "decode (%.1f GB/s in the same turns)\n",
                       (long long)sizes[j], kv_bytes(s) / tp[j] * 1e-9,
                       100.0 * tc / tp[j], kv_bytes(s) / tc * 1e-9);
            else
                printf("prefill paged bs%lld: %.1f GFLOP/s = %.0f%% of "
                       "contiguous prefill (%.1f GFLOP/s in the same turns)\n",
                       (long long)sizes[j], flops(s) / tp[j] * 1e-9,
                       100.0 * tc / tp[j], flops(s) / tc * 1e-9);
            free_paged(&pg[j]);
            free(rp[j].ws);
        }
        free(rc.ws);
        free_data(&d);
    }
}
