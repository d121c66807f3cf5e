/* The loop of Q.K^T in the transposed form (qk_t, and qk_t_max with the
 * first pass of the softmax fused in), for every level.  Included by
 * qk_t_tile_<isa>.h after it has defined:
 *   QKT_W   query rows per vector
 *   QKT_RV  vectors of rows per tile, QKT_KT keys per tile
 *   qkt_tile(qt, ldq, rv, k, ldk, kt, D, st, lds, fuse, scale, bmax):
 *           the tile of kt keys x rv vectors of rows; fuse: store
 *           fl(s * scale) and fold the tile's maximum per row into bmax.
 * Rows are computed up to a whole vector (up to round_up(mr, 16) with
 * fuse: qk_t_max's contract), keys exactly. */
#ifndef FIA_FAST_LOOP_QK_T_H
#define FIA_FAST_LOOP_QK_T_H

INLINE void qk_t_loop(const float *qt, int64_t ldq, int mr, const float *k,
                      int64_t ldk, int nk, int64_t D, float *st, int64_t lds,
                      const int fuse, float scale, float *bmax)
{
    const int rows = fuse ? (mr + 15) & ~15 : (mr + QKT_W - 1) & ~(QKT_W - 1);
    if (fuse)
        for (int r = 0; r < rows; r += 16)
            UNROLL for (int j = 0; j < 16; j++)
                bmax[r + j] = -INFINITY;
    for (int r0 = 0; r0 < rows; r0 += QKT_W * QKT_RV) {
        const int rv = FAST_TILE_EXTENT(rows, r0, QKT_W, QKT_RV);
        for (int c0 = 0; c0 < nk; c0 += QKT_KT) {
            const int kt = FAST_TILE_EXTENT(nk, c0, 1, QKT_KT);
            const float *q = qt + r0, *kk = k + c0 * ldk;
            float *s = st + c0 * lds + r0;
            float *bm = fuse ? bmax + r0 : NULL;
#define QKT_CASE(R, K)                                                     \
    case FAST_TILE(R, K):                                                  \
        qkt_tile(q, ldq, R, kk, ldk, K, D, s, lds, fuse, scale, bm);       \
        break;
            switch (FAST_TILE(rv, kt)) {
            FAST_TILE_CASES(QKT_RV, QKT_KT, QKT_CASE)
            default: break;
            }
#undef QKT_CASE
        }
    }
}

#endif
