/* fiacheck-bench-fast --only pse (also at the end of the full run):
 * pse_shift against the plain call of the same shape, in turns (one run of
 * each at a time, best of each, as for page attention): prefill (no mask,
 * causal) in GFLOP/s of the scores that take part, decode in GB/s of the
 * K/V rows read (the pse's own bytes not counted, so the ratio is the
 * whole cost of the pse), with the bytes the pse adds per key of a token.
 * The pse is (B, N, Q_S, KV_S) fp16 (decode (B, N, 1, KV_S)), values in
 * +-[1/4, 2). */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_record.h"
#include "fast_runner.h"

void bench_pse(int reps)
{
    const shape *shapes[3] = {&PREFILL, &CAUSAL, &DECODE};
    for (int i = 0; i < 3; i++) {
        const shape *s = shapes[i];
        data d = make_data(s);
        const int64_t rows = s->QS > 1 ? s->QS : 1;
        const int64_t np = s->B * s->N * rows * s->KVS;
        uint16_t *p = rand_fp16(np, 13); /* |x| in [1/4, 2) */
        fia_tensor pse = {FIA_DT_FP16, 4, {s->B, s->N, rows, s->KVS}, p};
        runner rn[2] = {{NULL, 0}, {NULL, 0}};
        double t[2] = {INFINITY, INFINITY}, rate[2];
        const int turns = s->QS == 1 ? reps + 5 : reps;
        for (int r = 0; r < turns; r++)
            for (int k = 0; k < 2; k++) {
                double x = time_fast_pd(s, &d, NULL, NULL, k ? &pse : NULL,
                                        1, &rn[k]);
                t[k] = x < t[k] ? x : t[k];
            }
        for (int k = 0; k < 2; k++) {
            rate[k] = (s->QS == 1 ? kv_bytes(s) : flops(s)) / t[k] * 1e-9;
            free(rn[k].ws);
        }
        /* per key of a query token: the pse's N fp16 values against the
         * K and V rows of the KV heads */
        printf("%s pse: %.1f %s = %.0f%% of plain (%.1f in the same turns); "
               "pse %.1f MB read, %lld bytes per key per token (K/V %lld)\n",
               s->name, rate[1], s->QS == 1 ? "GB/s" : "GFLOP/s",
               100.0 * rate[1] / rate[0], rate[0], (double)np * 2e-6,
               (long long)(2 * s->N), (long long)(4 * s->KVN * s->D));
        free(p);
        free_data(&d);
    }
}
