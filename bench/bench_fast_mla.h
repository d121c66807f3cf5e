/* fiacheck-bench-fast --only mla (also at the end of the full run): MLA
 * decode (003: query D 512 + rope 64, one KV head, Q_S 1, bf16, a paged
 * cache of block_size 128; B 4 batches of 4096 keys) at N 32 and N 128,
 * and at N 32 from the NZ cache ([blockNum, 1, D/16, 128, 16]: a row's
 * tiles of 16 apart, widened by widen_nz) against the contiguous one.
 * Reported as GB/s of the K, V and key_rope rows read against the memory
 * bandwidth (measured in turns with the runs, as for decode) and as
 * GFLOP/s of Q.K^T over D + Dr plus P.V over D (2 * (576 + 512) flops per
 * score) against the FMA peak of the threads.  Its arithmetic intensity is
 * N flops per byte of K/V (every KV row serves all N heads): at N >= 32
 * far above this machine's balance (peak / bandwidth, ~10 flop/B), so
 * compute is the bound that applies.  Included by bench_fast.c after its
 * bandwidth reader. */
#ifndef FIA_BENCH_FAST_MLA_H
#define FIA_BENCH_FAST_MLA_H

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

/* One MLA decode run at N heads (both phases, the workspace kept in rn),
 * the cache contiguous or NZ (the same bytes read as tiles). */
static double time_mla(int64_t N, bool nz, const uint16_t *q,
                       const uint16_t *qr,
                       const uint16_t *k, const uint16_t *kr,
                       const uint16_t *v, uint16_t *o, const int32_t *bt,
                       runner *rn)
{
    const int64_t nblk = MLA_B * MLA_KVS / MLA_BS;
    fia_tensor tq = {FIA_DT_BF16, 4, {MLA_B, 1, N, MLA_D}, (void *)q};
    fia_tensor tqr = {FIA_DT_BF16, 4, {MLA_B, 1, N, MLA_DR}, (void *)qr};
    fia_tensor tk = {FIA_DT_BF16, 3, {nblk, MLA_BS, MLA_D}, (void *)k};
    fia_tensor tv = {FIA_DT_BF16, 3, {nblk, MLA_BS, MLA_D}, (void *)v};
    fia_tensor tkr = {FIA_DT_BF16, 3, {nblk, MLA_BS, MLA_DR}, (void *)kr};
    if (nz) {
        tk = (fia_tensor){FIA_DT_BF16, 5, {nblk, 1, MLA_D / 16, MLA_BS, 16},
                          (void *)k};
        tv = tk, tv.data = (void *)v;
        tkr = (fia_tensor){FIA_DT_BF16, 5,
                           {nblk, 1, MLA_DR / 16, MLA_BS, 16}, (void *)kr};
    }
    fia_tensor to = {FIA_DT_BF16, 4, {MLA_B, 1, N, MLA_D}, o};
    fia_tensor tbt = {FIA_DT_INT32, 2, {MLA_B, MLA_KVS / MLA_BS}, (void *)bt};
    int64_t lens[MLA_B];
    for (int b = 0; b < MLA_B; b++)
        lens[b] = MLA_KVS;
    fia_int_array kvl = {MLA_B, lens};
    const fia_tensor *kp[1] = {&tk}, *vp[1] = {&tv};
    fia_tensor_list kl = {1, kp}, vl = {1, vp};
    fast_v2_extras x = {.queryRopeOptional = &tqr, .keyRopeOptional = &tkr};
    double t0 = now();
    uint64_t wss = 0;
    fast_executor *ex = NULL;
    fia_status st = fastFusedInferAttentionScoreV2ExtGetWorkspaceSize(
        &tq, &kl, &vl, NULL, NULL, NULL, &kvl, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, &tbt, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, N, 1.0 / sqrt((double)(MLA_D + MLA_DR)), 2147483647,
        2147483647, "BSND", 1, 0, 0, MLA_BS, 0, false, 0, 0, &x, &to, NULL,
        &wss, &ex);
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

static void bench_mla(int reps)
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
        time_mla(N, nz, q, qr, k, kr, v, o, bt, &rn); /* warm-up */
        double t = INFINITY, bw = -1;
        for (int r = 0; r < reps + 5; r++) {
            const double b = bandwidth(buf);
            bw = b > bw ? b : bw;
            const double x = time_mla(N, nz, q, qr, k, kr, v, o, bt, &rn);
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
    free(buf), free(k), free(v), free(kr), free(bt);
}

#endif
