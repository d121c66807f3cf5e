/* fiacheck-bench-fast --only padding (also at the end of the full run):
 * left padding against right padding of the same lengths and the plain
 * call. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_record.h"
#include "fast_runner.h"

/* Left padding against right padding of the same lengths (S - 128, the
 * left-padded rows starting at 64: the same work) and against the plain
 * call (no lengths: all S rows), in turns as for page attention: prefill
 * (no mask, causal) in GFLOP/s of the scores that take part, decode in
 * GB/s of the K/V rows read. */
void bench_padding(int reps)
{
    const shape *shapes[3] = {&PREFILL, &CAUSAL, &DECODE};
    for (int i = 0; i < 3; i++) {
        const shape *s = shapes[i];
        data d = make_data(s);
        padcall pc[2];
        for (int k = 0; k < 2; k++) {
            pc[k] = (padcall){.pq = 64, .pkv = 64, .left = k == 1};
            for (int64_t b = 0; b < s->B; b++) {
                pc[k].q_len[b] = s->QS > 1 ? s->QS - 128 : 1;
                pc[k].kv_len[b] = s->KVS - 128;
            }
        }
        shape w = *s; /* the work of the lengths */
        w.QS = pc[0].q_len[0], w.KVS = pc[0].kv_len[0];
        runner rn[3] = {{NULL, 0}, {NULL, 0}, {NULL, 0}};
        double t[3] = {INFINITY, INFINITY, INFINITY}, rate[3];
        const int turns = s->QS == 1 ? reps + 5 : reps;
        for (int r = 0; r < turns; r++)
            for (int k = 0; k < 3; k++) {
                double x = time_fast_pd(s, &d, NULL, k < 2 ? &pc[k] : NULL,
                                        NULL, 1, &rn[k]);
                t[k] = x < t[k] ? x : t[k];
            }
        for (int k = 0; k < 3; k++) {
            const shape *wk = k < 2 ? &w : s;
            rate[k] = (s->QS == 1 ? kv_bytes(wk) : flops(wk)) / t[k] * 1e-9;
            free(rn[k].ws);
        }
        printf("%s left padding: %.1f %s = %.0f%% of right padding, %.0f%% "
               "of plain (%.1f, %.1f in the same turns)\n", s->name, rate[1],
               s->QS == 1 ? "GB/s" : "GFLOP/s", 100.0 * rate[1] / rate[0],
               100.0 * rate[1] / rate[2], rate[0], rate[2]);
        free_data(&d);
    }
}
