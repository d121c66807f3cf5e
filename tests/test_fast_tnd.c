/* fast/ token layouts (TND, NTD_TND): the arithmetic against the same rows
 * batched as BSND (bit for bit: the same rows in the same order through
 * the same kernels), on the decode path (one query row per batch, keys
 * split across threads) and the prefill path (tiled rows, sparse mode 3),
 * with a batch of no query rows and one of no keys; no write outside the
 * rows a batch owns (the output is surrounded by guard values).  Run once
 * per ISA level (CMakeLists.txt). */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fast_testlib.h"
#include "fia/dtype.h"
#include "fia/fast.h"
#include "test_rng.h"

enum { B = 3, N = 4, KVN = 2, D = 128, S = 300 };
#define GUARD 0x7bcdu

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint16_t rand_bf16(void)
{
    return fia_float_to_bf16(((float)(test_lcg64_hi31(&rng) % 4096) - 2048.0f) /
                             1024.0f);
}

static fia_tensor t3(int64_t a, int64_t b, int64_t c, void *data)
{
    return (fia_tensor){.dtype = FIA_DT_BF16, .ndim = 3, .shape = {a, b, c},
                        .data = data};
}

static fia_tensor t4(int64_t a, int64_t b, int64_t c, int64_t d, void *data)
{
    return (fia_tensor){.dtype = FIA_DT_BF16, .ndim = 4,
                        .shape = {a, b, c, d}, .data = data};
}

/* Both phases of one call; the lse (T, N, 1) or [B, N, Q_S, 1] with it. */
static fia_status run(const char *layout, fia_tensor *q, fia_tensor *k,
                      fia_tensor *v, fia_tensor *out, fia_tensor *lse,
                      fia_int_array *asl, fia_int_array *aslkv, int sparse,
                      fia_tensor *mask)
{
    const fia_tensor *kp[1] = {k}, *vp[1] = {v};
    fia_tensor_list kl = {1, kp}, vl = {1, vp};
    fast_executor *ex = NULL;
    uint64_t wss = 0;
    fia_status st = fastFusedInferAttentionScoreV2GetWorkspaceSize(
        q, &kl, &vl, NULL, mask, asl, aslkv, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        N, 0.0883883476, 2147483647, 2147483647, layout, KVN, sparse, 1, 0, 0,
        true, 0, 0, out, lse, &wss, &ex);
    if (st != FIA_OK) {
        fastExecutorDestroy(ex);
        return st;
    }
    st = ftl_phase_two(ex, wss);
    return st;
}

/* Batches of ql[b] query rows over kl[b] keys, batched (BSND, Q_S and KV_S
 * the longest) and packed (ntd: NTD_TND); outputs and lse compared row by
 * row, the packed output's guards checked. */
static void packed_vs_batched(const int64_t *ql, const int64_t *kvl,
                              int sparse, int ntd, int threads)
{
    fastSetThreadCount(threads);
    int64_t QS = 1, KS = 1, T = 0, Tk = 0, cq[B], ck[B];
    for (int b = 0; b < B; b++) {
        QS = ql[b] > QS ? ql[b] : QS, KS = kvl[b] > KS ? kvl[b] : KS;
        cq[b] = T += ql[b], ck[b] = Tk += kvl[b];
    }
    const int64_t nq = B * QS * N * D, nk = B * KS * KVN * D;
    uint16_t *q = malloc((size_t)nq * 2), *k = malloc((size_t)nk * 2);
    uint16_t *v = malloc((size_t)nk * 2), *o1 = calloc((size_t)nq, 2);
    float *l1 = calloc((size_t)(B * N * QS), 4);
    for (int64_t i = 0; i < nq; i++) q[i] = rand_bf16();
    for (int64_t i = 0; i < nk; i++) k[i] = rand_bf16(), v[i] = rand_bf16();
    int64_t qlen[B], klen[B];
    memcpy(qlen, ql, sizeof qlen), memcpy(klen, kvl, sizeof klen);
    fia_int_array a1 = {B, qlen}, a2 = {B, klen};
    fia_tensor mask = {.dtype = FIA_DT_BOOL, .ndim = 2, .shape = {2048, 2048}};
    uint8_t *mbits = calloc(2048 * 2048, 1);
    for (int64_t i = 0; i < 2048; i++)
        for (int64_t j = i + 1; j < 2048; j++)
            mbits[i * 2048 + j] = 1;
    mask.data = mbits;
    fia_tensor tq = t4(B, QS, N, D, q), tk = t4(B, KS, KVN, D, k);
    fia_tensor tv = t4(B, KS, KVN, D, v), to = t4(B, QS, N, D, o1);
    fia_tensor tl = {.dtype = FIA_DT_FP32, .ndim = 4, .shape = {B, N, QS, 1},
                     .data = l1};
    CHECK_EQ_INT(run("BSND", &tq, &tk, &tv, &to, &tl, QS > 1 ? &a1 : NULL,
                     &a2, sparse, sparse ? &mask : NULL), FIA_OK);
    /* packed: [T, N, D] or [N, T, D]; output [T, N, D] with guards */
    uint16_t *pq = malloc((size_t)(T * N * D + 1) * 2);
    uint16_t *pk = malloc((size_t)(Tk * KVN * D + 1) * 2);
    uint16_t *pv = malloc((size_t)(Tk * KVN * D + 1) * 2);
    uint16_t *po = malloc((size_t)(T * N * D + 64) * 2);
    float *pl = malloc((size_t)(T * N + 16) * 4);
    for (int b = 0; b < B; b++) {
        int64_t t0 = b ? cq[b - 1] : 0, s0 = b ? ck[b - 1] : 0;
        for (int64_t n = 0; n < N; n++)
            for (int64_t i = 0; i < ql[b]; i++)
                memcpy(pq + (ntd ? n * T + t0 + i : (t0 + i) * N + n) * D,
                       q + ((b * QS + i) * N + n) * D, D * 2);
        for (int64_t h = 0; h < KVN; h++)
            for (int64_t j = 0; j < kvl[b]; j++) {
                int64_t at = (ntd ? h * Tk + s0 + j : (s0 + j) * KVN + h) * D;
                memcpy(pk + at, k + ((b * KS + j) * KVN + h) * D, D * 2);
                memcpy(pv + at, v + ((b * KS + j) * KVN + h) * D, D * 2);
            }
    }
    for (int64_t i = 0; i < T * N * D + 64; i++)
        po[i] = GUARD;
    for (int64_t i = 0; i < T * N + 16; i++)
        pl[i] = -7.0f;
    fia_int_array p1 = {B, cq}, p2 = {B, ck};
    tq = ntd ? t3(N, T, D, pq) : t3(T, N, D, pq);
    tk = ntd ? t3(KVN, Tk, D, pk) : t3(Tk, KVN, D, pk);
    tv = ntd ? t3(KVN, Tk, D, pv) : t3(Tk, KVN, D, pv);
    to = t3(T, N, D, po);
    tl = (fia_tensor){.dtype = FIA_DT_FP32, .ndim = 3, .shape = {T, N, 1},
                      .data = pl};
    CHECK_EQ_INT(run(ntd ? "NTD_TND" : "TND", &tq, &tk, &tv, &to, &tl, &p1,
                     &p2, sparse, sparse ? &mask : NULL), FIA_OK);
    int64_t bad = 0, lbad = 0;
    for (int b = 0; b < B; b++) {
        int64_t t0 = b ? cq[b - 1] : 0;
        for (int64_t n = 0; n < N; n++)
            for (int64_t i = 0; i < ql[b]; i++) {
                bad += memcmp(po + ((t0 + i) * N + n) * D,
                              o1 + ((b * QS + i) * N + n) * D, D * 2) != 0;
                lbad += memcmp(pl + (t0 + i) * N + n,
                               l1 + (b * N + n) * QS + i, 4) != 0;
            }
    }
    int guards = 0;
    for (int64_t i = T * N * D; i < T * N * D + 64; i++)
        guards += po[i] != GUARD;
    for (int64_t i = T * N; i < T * N + 16; i++)
        guards += pl[i] != -7.0f;
    CHECK_MSG(bad == 0 && lbad == 0 && guards == 0, "%s sparse %d threads "
              "%d: %lld rows' outputs and %lld lse differ from the batched "
              "call's, %d guards overwritten", ntd ? "NTD_TND" : "TND", sparse,
              threads, (long long)bad, (long long)lbad, guards);
    free(q), free(k), free(v), free(o1), free(l1), free(mbits);
    free(pq), free(pk), free(pv), free(po), free(pl);
    fastSetThreadCount(0);
}

int main(void)
{
    /* decode: one query row, or none, per batch; a long batch splits */
    static const int64_t dq[B] = {1, 0, 1}, dk[B] = {S, 40, 0};
    /* prefill: tiled rows, a batch without query rows */
    static const int64_t pq[B] = {40, 0, 7}, pk[B] = {S, 9, 70};
    for (int ntd = 0; ntd < 2; ntd++) {
        packed_vs_batched(dq, dk, 0, ntd, 2);
        packed_vs_batched(dq, dk, 0, ntd, 3);
        packed_vs_batched(pq, pk, 0, ntd, 1);
        packed_vs_batched(pq, pk, 0, ntd, 2);
        packed_vs_batched(pq, pk, 3, ntd, 2);
    }
    return check_summary();
}
