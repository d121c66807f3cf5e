/* The loop of P.V, for every level.  Included by pv_<isa>.c after it has
 * defined:
 *   PV_RT rows per tile, PV_DV units of 16 columns per tile
 *   pv_tile(pt, ldp, rt, v, ldv, nk, dv, alpha, acc, ldacc): rt rows x
 *           dv units of 16 columns of acc, over every key.
 * D is a multiple of 16 (the pv contract). */
#ifndef FIA_FAST_LOOP_PV_H
#define FIA_FAST_LOOP_PV_H

INLINE void pv_loop(const float *pt, int64_t ldp, int mr, const float *v,
                    int64_t ldv, int nk, int64_t D, const float *alpha,
                    float *acc, int64_t ldacc)
{
    for (int r0 = 0; r0 < mr; r0 += PV_RT) {
        const int rt = FAST_TILE_EXTENT(mr, r0, 1, PV_RT);
        for (int64_t d0 = 0; d0 < D; d0 += 16 * PV_DV) {
            const int dv = FAST_TILE_EXTENT(D, d0, 16, PV_DV);
            const float *p = pt + r0, *vv = v + d0, *al = alpha + r0;
            float *ac = acc + r0 * ldacc + d0;
#define PV_CASE(R, V)                                                      \
    case FAST_TILE(R, V):                                                  \
        pv_tile(p, ldp, R, vv, ldv, nk, V, al, ac, ldacc);                 \
        break;
            switch (FAST_TILE(rt, dv)) {
            FAST_TILE_CASES(PV_RT, PV_DV, PV_CASE)
            default: break;
            }
#undef PV_CASE
        }
    }
}

#endif
