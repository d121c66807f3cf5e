/* The block loop of the fused decode kernels, shared by kernel_avx2.c and
 * kernel_avx512.c (each includes it once it has defined, for its vector
 * width: INLINE, DEC_KB, DEC_PFV, DEC_PFK and dec_qk, dec_softmax, dec_pv):
 * per block of DEC_KB keys, Q.K^T with the V rows DEC_PFV keys ahead
 * prefetched, the online-softmax step, P.V with the K rows DEC_PFK keys
 * ahead prefetched (decode streams K/V from memory; the distances are in
 * keys, not blocks: farther ones measured slower here).  The loop is the
 * framework; the three steps are the micro-kernels. */
#ifndef FIA_FAST_DECODE_RUN_H
#define FIA_FAST_DECODE_RUN_H

INLINE void dec_run(const float *q, int64_t ldq, int mr, const uint16_t *k,
                    const uint16_t *v, int64_t ldkv, int64_t nk, int64_t D,
                    float scale, int round, float *m, float *l, float *acc,
                    int64_t ldacc, const int bf)
{
    /* zeroed: the softmax loads whole vectors (lanes past nb are masked) */
    float s[FAST_DOT_MAX * DEC_KB] __attribute__((aligned(64))) = {0};
    float alpha[16];
    for (int64_t j0 = 0; j0 < nk; j0 += DEC_KB) {
        const int nb = nk - j0 < DEC_KB ? (int)(nk - j0) : DEC_KB;
        const uint16_t *kb = k + j0 * ldkv, *vb = v + j0 * ldkv;
        const bool pfv = j0 + nb + DEC_PFV <= nk;
        const bool pfk = j0 + nb + DEC_PFK <= nk;
        dec_qk(q, ldq, mr, kb, ldkv, nb, D, s, bf,
               pfv ? vb + DEC_PFV * ldkv : NULL);
        if (round == 1)
            dec_softmax(s, mr, nb, scale, 1, m, l, alpha);
        else if (round == 2)
            dec_softmax(s, mr, nb, scale, 2, m, l, alpha);
        else
            dec_softmax(s, mr, nb, scale, 0, m, l, alpha);
        dec_pv(s, mr, vb, ldkv, nb, D, alpha, acc, ldacc, bf,
               pfk ? kb + DEC_PFK * ldkv : NULL);
    }
}

/* The whole range for fp16 (bf = 0) or bf16 (bf = 1) K/V. */
INLINE void dec_run_dt(const float *q, int64_t ldq, int mr,
                       const uint16_t *k, const uint16_t *v, int64_t ldkv,
                       int64_t nk, int64_t D, fia_dtype dt, float scale,
                       int round, float *m, float *l, float *acc,
                       int64_t ldacc)
{
    if (dt == FIA_DT_BF16)
        dec_run(q, ldq, mr, k, v, ldkv, nk, D, scale, round, m, l, acc,
                ldacc, 1);
    else
        dec_run(q, ldq, mr, k, v, ldkv, nk, D, scale, round, m, l, acc,
                ldacc, 0);
}

#endif
