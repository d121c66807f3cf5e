/* fiacheck-bench-fast --only antiquant (also at the end of the full run):
 * int8 / int4 key and value (docs/features/antiquant.md) against the fp16
 * call of the same shape, in turns (one run of each at a time, best of
 * each, as for page attention): decode with int8 and int4 K/V (its time is
 * K/V's bytes: the ratio is what the narrower cache buys), prefill with
 * int8.  Per-channel scale and offset (fp16, a value per KV head and d):
 * the combined set (2, KV_N, 1, D) for int8, the separate one (1, KV_N, 1,
 * D) for int4 (002: int4 takes the separate set only). */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_record.h"
#include "fast_runner.h"

typedef struct aqdata {
    fia_dtype kdt;            /* int8 or int4 */
    void *k, *v;
    uint16_t *scale, *offset; /* 2 x KV_N x D (int8) or KV_N x D each */
} aqdata;

static aqdata make_aq(const shape *s, fia_dtype kdt)
{
    aqdata a = {.kdt = kdt};
    const int64_t n = s->B * s->KVN * s->KVS * s->D;
    const int64_t bytes = kdt == FIA_DT_INT8 ? n : n / 2;
    uint8_t *k = malloc((size_t)bytes), *v = malloc((size_t)bytes);
    for (int64_t i = 0; i < bytes; i++)
        k[i] = (uint8_t)rnd(), v[i] = (uint8_t)rnd();
    a.k = k, a.v = v;
    a.scale = rand_fp16(2 * s->KVN * s->D, 9);  /* 2^-6 .. 2^-3 */
    a.offset = rand_fp16(2 * s->KVN * s->D, 14); /* 0.5 .. 4 */
    return a;
}

static void free_aq(aqdata *a)
{
    free(a->k), free(a->v), free(a->scale), free(a->offset);
}

/* Best of reps runs of the antiquant call of shape s. */
static double time_fast_aq(const shape *s, const data *d, const aqdata *a,
                           int reps, runner *rn)
{
    fia_tensor q = {FIA_DT_FP16, 4, {s->B, s->N, s->QS, s->D}, d->q};
    fia_tensor k = {a->kdt, 4, {s->B, s->KVN, s->KVS, s->D}, a->k};
    fia_tensor v = k;
    v.data = a->v;
    fia_tensor o = {FIA_DT_FP16, 4, {s->B, s->N, s->QS, s->D}, d->o};
    const bool sep = a->kdt != FIA_DT_INT8;
    const int64_t hd = s->KVN * s->D;
    fia_tensor sc = {FIA_DT_FP16, 4, {2, s->KVN, 1, s->D}, a->scale};
    fia_tensor of = {FIA_DT_FP16, 4, {2, s->KVN, 1, s->D}, a->offset};
    fia_tensor ks = {FIA_DT_FP16, 4, {1, s->KVN, 1, s->D}, a->scale};
    fia_tensor ko = ks, vs = ks, vo = ks;
    ko.data = a->offset, vs.data = a->scale + hd, vo.data = a->offset + hd;
    const fia_tensor *kp[1] = {&k}, *vp[1] = {&v};
    fia_tensor_list kl = {1, kp}, vl = {1, vp};
    double best = INFINITY;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        uint64_t wss = 0;
        fast_executor *ex = NULL;
        fia_status st = fastFusedInferAttentionScoreV2GetWorkspaceSize(
            &q, &kl, &vl, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
            NULL, sep ? NULL : &sc, sep ? NULL : &of, NULL, NULL, NULL,
            sep ? &ks : NULL, sep ? &ko : NULL, sep ? &vs : NULL,
            sep ? &vo : NULL, NULL, NULL, NULL, s->N,
            1.0 / sqrt((double)s->D), 2147483647, 0, "BNSD", s->KVN, 0, 1,
            0, 0, false, 0, 0, &o, NULL, &wss, &ex);
        if (st != FIA_OK) {
            fprintf(stderr, "fast: %s %s kv: status %d (%s)\n", s->name,
                    sep ? "int4" : "int8", st, fastLastError());
            exit(1);
        }
        if (wss > rn->cap) { /* allocation kept out of the timing */
            free(rn->ws);
            rn->ws = aligned_alloc(64, (wss + 63) & ~(uint64_t)63);
            if (rn->ws == NULL) {
                fprintf(stderr, "fast: antiquant: out of memory\n");
                exit(1);
            }
            rn->cap = wss;
            t0 = now();
        }
        st = fastFusedInferAttentionScoreV2(rn->ws, wss, ex, NULL);
        double t = now() - t0;
        if (st != FIA_OK) {
            fprintf(stderr, "fast: antiquant: run status %d\n", st);
            exit(1);
        }
        best = t < best ? t : best;
    }
    return best;
}

void bench_antiquant(int reps)
{
    const shape *shapes[2] = {&DECODE, &PREFILL};
    for (int i = 0; i < 2; i++) {
        const shape *s = shapes[i];
        data d = make_data(s);
        const int nq = s->QS == 1 ? 2 : 1; /* decode: int8 and int4 */
        aqdata a[2];
        a[0] = make_aq(s, FIA_DT_INT8);
        if (nq > 1)
            a[1] = make_aq(s, FIA_DT_INT4);
        runner rf = {NULL, 0}, ra[2] = {{NULL, 0}, {NULL, 0}};
        double tf = INFINITY, ta[2] = {INFINITY, INFINITY};
        const int turns = s->QS == 1 ? reps + 5 : reps;
        for (int r = 0; r < turns; r++) {
            double t = time_fast_pd(s, &d, NULL, NULL, NULL, 1, &rf);
            tf = t < tf ? t : tf;
            for (int j = 0; j < nq; j++) {
                t = time_fast_aq(s, &d, &a[j], 1, &ra[j]);
                ta[j] = t < ta[j] ? t : ta[j];
            }
        }
        for (int j = 0; j < nq; j++) {
            printf("%s %s kv: %.2fx fp16 %s time (%.2f ms vs %.2f ms in the "
                   "same turns)\n", s->name, j ? "int4" : "int8",
                   ta[j] / tf, s->name, ta[j] * 1e3, tf * 1e3);
            free_aq(&a[j]);
            free(ra[j].ws);
        }
        free(rf.ws);
        free_data(&d);
    }
}
