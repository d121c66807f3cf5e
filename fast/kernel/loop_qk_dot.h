/* The loop of Q.K^T in the dot form (few rows: decode), for every level.
 * Included by qk_dot_<isa>.c after it has defined:
 *   QKD_RT rows per tile, QKD_KT keys per tile
 *   qkdot_tile(q, ldq, rt, k, ldk, kt, D, st, lds): the rt x kt dot
 *           products of a tile over the whole of D. */
#ifndef FIA_FAST_LOOP_QK_DOT_H
#define FIA_FAST_LOOP_QK_DOT_H

INLINE void qk_dot_loop(const float *q, int64_t ldq, int mr, const float *k,
                        int64_t ldk, int nk, int64_t D, float *st,
                        int64_t lds)
{
    for (int r0 = 0; r0 < mr; r0 += QKD_RT) {
        const int rt = FAST_TILE_EXTENT(mr, r0, 1, QKD_RT);
        for (int c0 = 0; c0 < nk; c0 += QKD_KT) {
            const int kt = FAST_TILE_EXTENT(nk, c0, 1, QKD_KT);
            const float *qq = q + r0 * ldq, *kk = k + c0 * ldk;
            float *s = st + c0 * lds + r0;
#define QKD_CASE(R, K)                                                     \
    case FAST_TILE(R, K):                                                  \
        qkdot_tile(qq, ldq, R, kk, ldk, K, D, s, lds);                     \
        break;
            switch (FAST_TILE(rt, kt)) {
            FAST_TILE_CASES(QKD_RT, QKD_KT, QKD_CASE)
            default: break;
            }
#undef QKD_CASE
        }
    }
}

#endif
