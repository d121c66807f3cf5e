/* The loops of the fused decode kernels, for every level.  Included by
 * decode_<isa>.c after it has defined, for its vector width:
 *   DEC_KB  keys per block, DEC_PFV / DEC_PFK prefetch distances in keys
 *   DEC_RT  rows per tile (both steps), DEC_KT keys per Q.K^T tile,
 *   DEC_DV  units of 16 columns per P.V tile
 *   dec_qk_tile(q, ldq, rt, k, ldk, kt, D, s, bf, pv): the rt x kt dot
 *           products s[r*DEC_KB + c] of fp16 (bf 0) or bf16 (bf 1) K rows,
 *           prefetching the V rows at pv (NULL: none) during the loop over D
 *   dec_softmax(s, mr, nb, scale, round, m, l, alpha, bias, bf): the
 *           online-softmax step of one block, every key taking part, with
 *           the pse_bias step first when bias (the block's rows of the pse,
 *           bias[r][c], c < nb) is not NULL
 *   dec_pv_tile(p, rt, v, ldv, nb, dv, alpha, acc, ldacc, bf, pk): rt rows
 *           x dv units of 16 columns of acc, prefetching the K rows at pk
 *           (NULL: none; a tile gets it when it starts a 64-byte line).
 * Per block of DEC_KB keys: Q.K^T with the V rows DEC_PFV keys ahead
 * prefetched, the online-softmax step, P.V with the K rows DEC_PFK keys
 * ahead prefetched (decode streams K/V from memory; the distances are in
 * keys, not blocks: farther ones measured slower here).  The loops are the
 * framework; the three steps are the micro-kernels. */
#ifndef FIA_FAST_LOOP_DECODE_H
#define FIA_FAST_LOOP_DECODE_H

/* s[r*DEC_KB + c] = q_r . k_c, r < mr, c < nb */
INLINE void dec_qk(const float *q, int64_t ldq, int mr, const uint16_t *k,
                   int64_t ldk, int nb, int64_t D, float *s, const int bf,
                   const uint16_t *pv)
{
    for (int r0 = 0; r0 < mr; r0 += DEC_RT) {
        const int rt = FAST_TILE_EXTENT(mr, r0, 1, DEC_RT);
        for (int c0 = 0; c0 < nb; c0 += DEC_KT) {
            const int kt = FAST_TILE_EXTENT(nb, c0, 1, DEC_KT);
            const float *qq = q + r0 * ldq;
            const uint16_t *kk = k + c0 * ldk;
            float *ss = s + r0 * DEC_KB + c0;
            const uint16_t *pp = r0 == 0 && pv != NULL ? pv + c0 * ldk : NULL;
#define DQK_CASE(R, K)                                                     \
    case FAST_TILE(R, K):                                                  \
        dec_qk_tile(qq, ldq, R, kk, ldk, K, D, ss, bf, pp);                \
        break;
            switch (FAST_TILE(rt, kt)) {
            FAST_TILE_CASES(DEC_RT, DEC_KT, DQK_CASE)
            default: break;
            }
#undef DQK_CASE
        }
    }
}

/* acc[r][d] = acc * alpha[r] + sum_c p[r][c] v[c][d], r < mr, d < D (a
 * multiple of 16, the decode contract) */
INLINE void dec_pv(const float *p, int mr, const uint16_t *v, int64_t ldv,
                   int nb, int64_t D, const float *alpha, float *acc,
                   int64_t ldacc, const int bf, const uint16_t *pk)
{
    for (int r0 = 0; r0 < mr; r0 += DEC_RT) {
        const int rt = FAST_TILE_EXTENT(mr, r0, 1, DEC_RT);
        for (int64_t d0 = 0; d0 < D; d0 += 16 * DEC_DV) {
            const int dv = FAST_TILE_EXTENT(D, d0, 16, DEC_DV);
            const float *pp_ = p + r0 * DEC_KB, *al = alpha + r0;
            const uint16_t *vv = v + d0;
            float *ac = acc + r0 * ldacc + d0;
            /* one prefetch per 64-byte line (32 elements) of the K rows */
            const uint16_t *pp = r0 == 0 && pk != NULL && d0 % 32 == 0
                                     ? pk + d0 : NULL;
#define DPV_CASE(R, V)                                                     \
    case FAST_TILE(R, V):                                                  \
        dec_pv_tile(pp_, R, vv, ldv, nb, V, al, ac, ldacc, bf, pp);        \
        break;
            switch (FAST_TILE(rt, dv)) {
            FAST_TILE_CASES(DEC_RT, DEC_DV, DPV_CASE)
            default: break;
            }
#undef DPV_CASE
        }
    }
}

/* The two steps per K/V dtype, each its own function called once per
 * block (BLOCK_STEP): inlined into dec_run's four instances, 128 tile
 * bodies sat in one function. */
BLOCK_STEP void dec_qk_fp16(const float *q, int64_t ldq, int mr,
                            const uint16_t *k, int64_t ldk, int nb,
                            int64_t D, float *s, const uint16_t *pv)
{
    dec_qk(q, ldq, mr, k, ldk, nb, D, s, 0, pv);
}
BLOCK_STEP void dec_qk_bf16(const float *q, int64_t ldq, int mr,
                            const uint16_t *k, int64_t ldk, int nb,
                            int64_t D, float *s, const uint16_t *pv)
{
    dec_qk(q, ldq, mr, k, ldk, nb, D, s, 1, pv);
}
BLOCK_STEP void dec_pv_fp16(const float *p, int mr, const uint16_t *v,
                            int64_t ldv, int nb, int64_t D,
                            const float *alpha, float *acc, int64_t ldacc,
                            const uint16_t *pk)
{
    dec_pv(p, mr, v, ldv, nb, D, alpha, acc, ldacc, 0, pk);
}
BLOCK_STEP void dec_pv_bf16(const float *p, int mr, const uint16_t *v,
                            int64_t ldv, int nb, int64_t D,
                            const float *alpha, float *acc, int64_t ldacc,
                            const uint16_t *pk)
{
    dec_pv(p, mr, v, ldv, nb, D, alpha, acc, ldacc, 1, pk);
}

/* The block pointers of the contract are per FAST_DEC_KB keys: the loops'
 * blocks and prefetch distances must be whole numbers of them. */
_Static_assert(DEC_KB == FAST_DEC_KB && DEC_PFV % DEC_KB == 0 &&
                   DEC_PFK % DEC_KB == 0,
               "decode blocks and prefetch distances in FAST_DEC_KB keys");

/* bias: NULL (a literal in the calls without a pse, so that its steps
 * compile away) or the mr rows of the pse for keys 0 .. nk - 1. */
INLINE void dec_run(const float *q, int64_t ldq, int mr,
                    const uint16_t *const *k, const uint16_t *const *v,
                    int64_t ldkv, const uint16_t *const *bias, int64_t nk,
                    int64_t D, float scale, int round, float *m, float *l,
                    float *acc, int64_t ldacc, const int bf)
{
    /* zeroed: the softmax loads whole vectors (lanes past nb are masked) */
    float s[FAST_DOT_MAX * DEC_KB] __attribute__((aligned(64))) = {0};
    float alpha[16];
    const uint16_t *bb[FAST_DOT_MAX]; /* the block's bias rows */
    for (int64_t j0 = 0; j0 < nk; j0 += DEC_KB) {
        const int nb = nk - j0 < DEC_KB ? (int)(nk - j0) : DEC_KB;
        const int64_t i = j0 / DEC_KB;
        const uint16_t *kb = k[i], *vb = v[i];
        const bool pfv = j0 + nb + DEC_PFV <= nk;
        const bool pfk = j0 + nb + DEC_PFK <= nk;
        (bf ? dec_qk_bf16 : dec_qk_fp16)(
            q, ldq, mr, kb, ldkv, nb, D, s,
            pfv ? v[i + DEC_PFV / DEC_KB] : NULL);
        if (bias != NULL)
            for (int r = 0; r < mr; r++)
                bb[r] = bias[r] + j0;
        const uint16_t *const *br = bias != NULL ? bb : NULL;
        if (round == 1)
            dec_softmax(s, mr, nb, scale, 1, m, l, alpha, br, bf);
        else if (round == 2)
            dec_softmax(s, mr, nb, scale, 2, m, l, alpha, br, bf);
        else
            dec_softmax(s, mr, nb, scale, 0, m, l, alpha, br, bf);
        (bf ? dec_pv_bf16 : dec_pv_fp16)(
            s, mr, vb, ldkv, nb, D, alpha, acc, ldacc,
            pfk ? k[i + DEC_PFK / DEC_KB] : NULL);
    }
}

/* The whole range for fp16 (bf = 0) or bf16 (bf = 1) K/V, with or
 * without a bias: four instances of the loop. */
INLINE void dec_run_dt(const float *q, int64_t ldq, int mr,
                       const uint16_t *const *k, const uint16_t *const *v,
                       int64_t ldkv, const uint16_t *const *bias,
                       int64_t nk, int64_t D, fia_dtype dt, float scale,
                       int round, float *m, float *l, float *acc,
                       int64_t ldacc)
{
    const int bf = dt == FIA_DT_BF16;
    if (bias == NULL && bf)
        dec_run(q, ldq, mr, k, v, ldkv, NULL, nk, D, scale, round, m, l,
                acc, ldacc, 1);
    else if (bias == NULL)
        dec_run(q, ldq, mr, k, v, ldkv, NULL, nk, D, scale, round, m, l,
                acc, ldacc, 0);
    else if (bf)
        dec_run(q, ldq, mr, k, v, ldkv, bias, nk, D, scale, round, m, l,
                acc, ldacc, 1);
    else
        dec_run(q, ldq, mr, k, v, ldkv, bias, nk, D, scale, round, m, l,
                acc, ldacc, 0);
}

#endif
