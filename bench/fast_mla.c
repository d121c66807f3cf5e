/* fiacheck-bench-fast --only mla (also at the end of the full run): MLA
 * decode (003: query D 512 + rope 64, one KV head, Q_S 1, bf16, a paged
 * cache of block_size 128; B 4 batches of 4096 keys) at N 32 and N 128,
 * and at N 32 from the NZ cache ([blockNum, 1, D/16, 128, 16]: a row's
 * tiles of 16 apart, widened by widen_mla_nz) against the contiguous one;
 * then full quantization at N 32 (003 "支持全量化场景": int8 query, key
 * and value, bf16 ropes and output, dequant_scale_query per token-head,
 * dequant_scale_key / _value per tensor) from an int8 cache, contiguous
 * (rows through widen_antiquant) and NZ ([blockNum, 1, D/32, 128, 32],
 * widen_query_quant_nz), each against the bf16 contiguous time of the same run
 * (the int8 cache is half the bytes; the arithmetic the same floats).
 * Reported as GB/s of the K, V and key_rope rows read against the memory
 * bandwidth (measured in turns with the runs, as for decode) and as
 * GFLOP/s of Q.K^T over D + Dr plus P.V over D (2 * (576 + 512) flops per
 * score) against the FMA peak of the threads.  Its arithmetic intensity is
 * N flops per byte of K/V (every KV row serves all N heads): at N >= 32
 * far above this machine's balance (peak / bandwidth, ~10 flop/B), so
 * compute is the bound that applies. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_record.h"
#include "fma_peak.h"
#include "fast_runner.h"

enum { MLA_B = 4, MLA_KVS = 4096, MLA_D = 512, MLA_DR = 64, MLA_BS = 128 };

static uint16_t *rand_bf16(int64_t n)
{
    uint16_t *p = malloc((size_t)n * 2);
    for (int64_t i = 0; i < n; i++) { /* |x| < 2, 7 bits */
        const float x = ((float)(rnd() % 512) - 256.0f) / 128.0f;
        uint32_t u;
        memcpy(&u, &x, 4);
        p[i] = (uint16_t)(u >> 16);
    }
    return p;
}

/* Full quantization's scales: dequant_scale_query (B, 1, N) per
 * token-head, dequant_scale_key / _value [1]. */
typedef struct mla_query_quant {
    const float *dsq;
    float dsk, dsv;
} mla_query_quant;

/* One MLA decode run at N heads (both phases, the workspace kept in rn),
 * the cache contiguous or NZ (the same bytes read as tiles); quant non-NULL:
 * full quantization, q, k and v int8 (the NZ tiles then of 32). */
static double time_mla(int64_t N, bool nz, const mla_query_quant *quant,
                       const void *q, const uint16_t *qr, const void *k,
                       const uint16_t *kr, const void *v, uint16_t *o,
                       const int32_t *bt, runner *rn)
{
    const int64_t nblk = MLA_B * MLA_KVS / MLA_BS;
    const fia_dtype dt = quant ? FIA_DT_INT8 : FIA_DT_BF16;
    const int64_t w = quant ? 32 : 16; /* the NZ tile */
    fia_tensor tq = {dt, 4, {MLA_B, 1, N, MLA_D}, (void *)q};
    fia_tensor tqr = {FIA_DT_BF16, 4, {MLA_B, 1, N, MLA_DR}, (void *)qr};
    fia_tensor tk = {dt, 3, {nblk, MLA_BS, MLA_D}, (void *)k};
    fia_tensor tv = {dt, 3, {nblk, MLA_BS, MLA_D}, (void *)v};
    fia_tensor tkr = {FIA_DT_BF16, 3, {nblk, MLA_BS, MLA_DR}, (void *)kr};
    if (nz) {
        tk = (fia_tensor){dt, 5, {nblk, 1, MLA_D / w, MLA_BS, w}, (void *)k};
        tv = tk, tv.data = (void *)v;
        tkr = (fia_tensor){FIA_DT_BF16, 5,
                           {nblk, 1, MLA_DR / 16, MLA_BS, 16}, (void *)kr};
    }
    fia_tensor tdsq = {FIA_DT_FP32, 3, {MLA_B, 1, N},
                       quant ? (void *)quant->dsq : NULL};
    fia_tensor tdsk = {FIA_DT_FP32, 1, {1}, quant ? (void *)&quant->dsk : NULL};
    fia_tensor tdsv = {FIA_DT_FP32, 1, {1}, quant ? (void *)&quant->dsv : NULL};
    fia_tensor to = {FIA_DT_BF16, 4, {MLA_B, 1, N, MLA_D}, o};
    fia_tensor tbt = {FIA_DT_INT32, 2, {MLA_B, MLA_KVS / MLA_BS}, (void *)bt};
    int64_t lens[MLA_B];
    for (int b = 0; b < MLA_B; b++)
        lens[b] = MLA_KVS;
    fia_int_array kvl = {MLA_B, lens};
    const fia_tensor *kp[1] = {&tk}, *vp[1] = {&tv};
    fia_tensor_list kl = {1, kp}, vl = {1, vp};
    fast_v2_extras x = {.queryRopeOptional = &tqr, .keyRopeOptional = &tkr,
                        .dequantScaleQueryOptional = quant ? &tdsq : NULL,
                        .queryQuantMode = quant ? 3 : 0};
    double t0 = now();
    uint64_t wss = 0;
    fast_executor *ex = NULL;
    fia_status st = fastFusedInferAttentionScoreV2ExtGetWorkspaceSize(
        &tq, &kl, &vl, NULL, NULL, NULL, &kvl, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, &tbt, NULL, NULL, quant ? &tdsk : NULL, NULL,
        quant ? &tdsv : NULL, NULL, NULL, NULL, NULL, N,
        1.0 / sqrt((double)(MLA_D + MLA_DR)), 2147483647, 2147483647, "BSND", 1,
        0, 0, MLA_BS, 0, false, 0, 0, &x, &to, NULL, &wss, &ex);
    if (st != FIA_OK) {
        fprintf(stderr, "fast: mla N%lld: status %d (%s)\n", (long long)N,
                st, fastLastError());
        exit(1);
    }
    if (wss > rn->cap) { /* allocation kept out of the timing */
        free(rn->ws);
        rn->ws = aligned_alloc(64, (wss + 63) & ~(uint64_t)63);
        if (rn->ws == NULL) {
            fprintf(stderr, "fast: mla: out of memory\n");
            exit(1);
        }
        rn->cap = wss;
        t0 = now();
    }
    st = fastFusedInferAttentionScoreV2(rn->ws, wss, ex, NULL);
    if (st != FIA_OK) {
        fprintf(stderr, "fast: mla: run status %d\n", st);
        exit(1);
    }
    return now() - t0;
}

static int8_t *rand_int8(int64_t n)
{
    int8_t *p = malloc((size_t)n);
    for (int64_t i = 0; i < n; i++)
        p[i] = (int8_t)((int)(rnd() % 255) - 127);
    return p;
}

/* Full quantization at N 32 from an int8 cache, contiguous then NZ, the
 * same keys' bf16 rope, block table and bandwidth reader as bench_mla's;
 * t_bf16: the bf16 contiguous N 32 time of the same run. */
static void bench_mla_query_quant(int reps, uint64_t *buf, double peak,
                                  const int32_t *bt, const uint16_t *kr,
                                  double t_bf16)
{
    const int64_t N = 32, nkeys = (int64_t)MLA_B * MLA_KVS;
    int8_t *k = rand_int8(nkeys * MLA_D), *v = rand_int8(nkeys * MLA_D);
    int8_t *q = rand_int8(MLA_B * N * MLA_D);
    uint16_t *qr = rand_bf16(MLA_B * N * MLA_DR);
    uint16_t *o = malloc((size_t)(MLA_B * N * MLA_D) * 2);
    float *dsq = malloc((size_t)(MLA_B * N) * sizeof(float));
    for (int64_t i = 0; i < MLA_B * N; i++) /* scores of a few units */
        dsq[i] = 0.01f + (float)(rnd() % 61) * 0.001f;
    const mla_query_quant quant = {dsq, 0.02f, 0.01f};
    const double bytes = (double)nkeys * (2 * MLA_D + 2 * MLA_DR);
    for (int nz = 0; nz < 2; nz++) {
        runner rn = {NULL, 0};
        time_mla(N, nz, &quant, q, qr, k, kr, v, o, bt, &rn); /* warm-up */
        double t = INFINITY, bw = -1;
        for (int r = 0; r < reps + 5; r++) {
            const double b = bandwidth(buf);
            bw = b > bw ? b : bw;
            const double x =
                time_mla(N, nz, &quant, q, qr, k, kr, v, o, bt, &rn);
            t = x < t ? x : t;
        }
        const double flop = (double)nkeys * (double)N *
                            (2.0 * (MLA_D + MLA_DR) + 2.0 * MLA_D);
        const double gb = bytes / t * 1e-9, gf = flop / t * 1e-9;
        printf("mla decode N%lld full quant (B=%d, KV_S=%d, int8 q/k/v, "
               "bf16 rope and out, paged bs%d%s): %.2f ms, %.1f GB/s = %.0f%% "
               "of bandwidth (%.1f GB/s), %.1f GFLOP/s = %.0f%% of the fma "
               "peak (%.1f); %.2fx the bf16 contiguous cache's time\n",
               (long long)N, MLA_B, MLA_KVS, MLA_BS, nz ? " NZ int8" : " int8",
               t * 1e3, gb, 100.0 * gb / bw, bw, gf,
               peak > 0 ? 100.0 * gf / peak : 0.0, peak, t / t_bf16);
        free(rn.ws);
    }
    free(k), free(v), free(q), free(qr), free(o), free(dsq);
}

void bench_mla(int reps)
{
    const int64_t nkeys = (int64_t)MLA_B * MLA_KVS, nblk = nkeys / MLA_BS;
    uint16_t *k = rand_bf16(nkeys * MLA_D), *v = rand_bf16(nkeys * MLA_D);
    uint16_t *kr = rand_bf16(nkeys * MLA_DR);
    int32_t *bt = malloc((size_t)nblk * 4);
    for (int64_t i = 0; i < nblk; i++) /* a shuffle: blocks anywhere */
        bt[i] = (int32_t)i;
    for (int64_t i = nblk - 1; i > 0; i--) {
        const int64_t j = rnd() % (uint64_t)(i + 1);
        const int32_t t = bt[i];
        bt[i] = bt[j], bt[j] = t;
    }
    uint64_t *buf = malloc(BW_BYTES);
    if (buf == NULL) {
        fprintf(stderr, "mla: out of memory\n");
        exit(1);
    }
    memset(buf, 1, BW_BYTES);
    int level = FMA_PEAK_AVX512;
    double peak = fma_peak(level, THREADS);
    if (peak < 0)
        peak = fma_peak(level = FMA_PEAK_AVX2, THREADS);
    for (int r = 1; peak > 0 && r < reps + 2; r++) { /* a busy host */
        const double again = fma_peak(level, THREADS);
        peak = again > peak ? again : peak;
    }
    const double bytes = (double)nkeys * (2 * MLA_D + MLA_DR) * 2;
    const int64_t heads[3] = {32, 32, 128};
    double t_nd = 0.0; /* N 32's contiguous time */
    for (int h = 0; h < 3; h++) {
        const int64_t N = heads[h];
        const bool nz = h == 1;
        uint16_t *q = rand_bf16(MLA_B * N * MLA_D);
        uint16_t *qr = rand_bf16(MLA_B * N * MLA_DR);
        uint16_t *o = malloc((size_t)(MLA_B * N * MLA_D) * 2);
        runner rn = {NULL, 0};
        time_mla(N, nz, NULL, q, qr, k, kr, v, o, bt, &rn); /* warm-up */
        double t = INFINITY, bw = -1;
        for (int r = 0; r < reps + 5; r++) {
            const double b = bandwidth(buf);
            bw = b > bw ? b : bw;
            const double x = time_mla(N, nz, NULL, q, qr, k, kr, v, o, bt,
                                      &rn);
            t = x < t ? x : t;
        }
        const double flop = (double)nkeys * (double)N *
                            (2.0 * (MLA_D + MLA_DR) + 2.0 * MLA_D);
        const double gb = bytes / t * 1e-9, gf = flop / t * 1e-9;
        printf("mla decode N%lld (B=%d, KV_S=%d, D 512 + rope 64, bf16, "
               "paged bs%d%s): %.2f ms, %.1f GB/s = %.0f%% of bandwidth "
               "(%.1f GB/s), %.1f GFLOP/s = %.0f%% of the fma peak (%.1f); "
               "%lld flop/B: compute-bound",
               (long long)N, MLA_B, MLA_KVS, MLA_BS, nz ? " NZ" : "",
               t * 1e3, gb, 100.0 * gb / bw, bw, gf,
               peak > 0 ? 100.0 * gf / peak : 0.0, peak, (long long)N);
        if (nz)
            printf("; %.2fx the contiguous cache's time", t / t_nd);
        printf("\n");
        if (h == 0)
            t_nd = t;
        free(rn.ws), free(q), free(qr), free(o);
    }
    bench_mla_query_quant(reps, buf, peak, bt, kr, t_nd);
    free(buf), free(k), free(v), free(kr), free(bt);
}
