/* The common runner of fiacheck-bench-fast's families (bench_fast.c and
 * fast_<family>.c): its shapes, their data and one timed call of fast/
 * through the documented two-phase API (fast_runner.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fast_runner.h"

double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const shape PREFILL = {"prefill", 1, 32, 8, 2048, 2048, 128, 0};
const shape CAUSAL = {"prefill causal", 1, 32, 8, 2048, 2048, 128, 3};
const shape DECODE = {"decode", 8, 32, 8, 1, 8192, 128, 0};

/* Scores that take part (right-down causal when sparse = 3). */
double scores(const shape *s)
{
    double per;
    if (s->sparse == 3) {
        per = 0;
        for (int64_t i = 0; i < s->QS; i++) {
            int64_t h = i + s->KVS - s->QS + 1;
            per += (double)(h < 0 ? 0 : h > s->KVS ? s->KVS : h);
        }
    } else {
        per = (double)s->QS * (double)s->KVS;
    }
    return per * (double)(s->B * s->N);
}

double flops(const shape *s) { return 4.0 * (double)s->D * scores(s); }
double kv_bytes(const shape *s)
{
    return 2.0 * 2.0 * (double)(s->B * s->KVN * s->KVS * s->D);
}

/* ---- data ---------------------------------------------------------------- */
/* One stream for every family, so that the data of a run does not depend
 * on which file draws it. */
static uint64_t rng = 0x243f6a8885a308d3ull;
uint32_t rnd(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33);
}

/* fp16 values of magnitude [2^(e0-15), 2^(e0-12)), random sign. */
uint16_t *rand_fp16(int64_t n, int e0)
{
    uint16_t *p = malloc((size_t)n * 2);
    for (int64_t i = 0; i < n; i++) {
        uint32_t r = rnd();
        p[i] = (uint16_t)(((r & 1u) << 15) | ((uint32_t)(e0 + (r >> 1) % 3) << 10) |
                          ((r >> 8) & 0x3ffu));
    }
    return p;
}

data make_data(const shape *s)
{
    data d;
    d.q = rand_fp16(s->B * s->N * s->QS * s->D, 12);
    d.k = rand_fp16(s->B * s->KVN * s->KVS * s->D, 12);
    d.v = rand_fp16(s->B * s->KVN * s->KVS * s->D, 13);
    d.o = malloc((size_t)(s->B * s->N * s->QS * s->D) * 2);
    d.mask = malloc(2048 * 2048);
    for (int64_t i = 0; i < 2048 * 2048; i++)
        d.mask[i] = (i % 2048) > (i / 2048);
    return d;
}

void free_data(data *d)
{
    free(d->q), free(d->k), free(d->v), free(d->o), free(d->mask);
}

/* ---- fast ---------------------------------------------------------------- */

/* Best of reps runs of fast/ on shape s (paged through pg, with lengths
 * and padding pd, with pse_shift pse, when not NULL); the workspace is
 * allocated outside the timing and kept in rn. */
double time_fast_pd(const shape *s, const data *d, const paged *pg,
                           const padcall *pd, const fia_tensor *pse,
                           int reps, runner *rn)
{
    fia_tensor q = {FIA_DT_FP16, 4, {s->B, s->N, s->QS, s->D}, d->q};
    fia_tensor k = {FIA_DT_FP16, 4, {s->B, s->KVN, s->KVS, s->D}, d->k};
    fia_tensor v = {FIA_DT_FP16, 4, {s->B, s->KVN, s->KVS, s->D}, d->v};
    fia_tensor bt = {FIA_DT_INT32, 2, {s->B, 0}, NULL};
    fia_int_array kvl = {s->B, NULL};
    if (pg != NULL) {
        k = (fia_tensor){FIA_DT_FP16, 4, {pg->blocknum, s->KVN, pg->bs, s->D},
                         pg->k};
        v = k;
        v.data = pg->v;
        bt.shape[1] = pg->cols;
        bt.data = pg->bt;
        kvl.values = pg->kv_len;
    }
    fia_int_array ql = {s->B, pd ? pd->q_len : NULL};
    fia_tensor qpad = {FIA_DT_INT64, 1, {1}, pd ? (void *)&pd->pq : NULL};
    fia_tensor kvpad = {FIA_DT_INT64, 1, {1}, pd ? (void *)&pd->pkv : NULL};
    if (pd != NULL)
        kvl.values = pd->kv_len;
    const bool left = pd && pd->left, asl = pd && s->QS > 1;
    fia_tensor o = {FIA_DT_FP16, 4, {s->B, s->N, s->QS, s->D}, d->o};
    fia_tensor m = {FIA_DT_BOOL, 2, {2048, 2048}, d->mask};
    const fia_tensor *kp[1] = {&k}, *vp[1] = {&v};
    fia_tensor_list kl = {1, kp}, vl = {1, vp};
    double best = INFINITY;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        uint64_t wss = 0;
        fast_executor *ex = NULL;
        fia_status st = fastFusedInferAttentionScoreV2GetWorkspaceSize(
            &q, &kl, &vl, pse, s->sparse ? &m : NULL, asl ? &ql : NULL,
            pg || pd ? &kvl : NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
            pg ? &bt : NULL, left && asl ? &qpad : NULL, left ? &kvpad : NULL,
            NULL, NULL, NULL, NULL, NULL, NULL, NULL, s->N, 1.0 / sqrt((double)s->D), 2147483647, 0, "BNSD",
            s->KVN, s->sparse, 1, pg ? pg->bs : 0, 0, false, 0, 0, &o, NULL,
            &wss, &ex);
        if (st != FIA_OK) {
            fprintf(stderr, "fast: %s: status %d (%s)\n", s->name, st,
                    fastLastError());
            exit(1);
        }
        if (wss > rn->cap) { /* allocation kept out of the timing */
            free(rn->ws);
            rn->ws = aligned_alloc(64, (wss + 63) & ~(uint64_t)63);
            if (rn->ws == NULL) {
                fprintf(stderr, "fast: %s: out of memory\n", s->name);
                exit(1);
            }
            rn->cap = wss;
            t0 = now();
        }
        st = fastFusedInferAttentionScoreV2(rn->ws, wss, ex, NULL);
        double t = now() - t0;
        if (st != FIA_OK) {
            fprintf(stderr, "fast: %s: run status %d\n", s->name, st);
            exit(1);
        }
        best = t < best ? t : best;
    }
    return best;
}

double time_fast_pg(const shape *s, const data *d, const paged *pg,
                           int reps, runner *rn)
{
    return time_fast_pd(s, d, pg, NULL, NULL, reps, rn);
}

double time_fast_in(const shape *s, const data *d, int reps,
                           runner *rn)
{
    return time_fast_pg(s, d, NULL, reps, rn);
}

double time_fast(const shape *s, const data *d, int reps)
{
    runner rn = {NULL, 0};
    double t = time_fast_in(s, d, reps, &rn);
    free(rn.ws);
    return t;
}
