/* pse_shift in generated cases.
 *
 * fuzz_params: at the end of the list, now and then a pse_shift shaped for
 * the call's path — (B or 1, N, Q_S, KV_S) at Q_S > 1, (B or 1, N, 1,
 * KV_S) at Q_S = 1, S dims padded beyond the key's now and then (002
 * allows it), the query's dtype — with one of its rules broken now and
 * then: the other half-precision dtype, a batch neither B nor 1, other
 * heads, rank 3, S dims short of the query's or the key's, two rows at
 * Q_S = 1, or an empty tensor (absent).  The bias is not computed yet: the
 * calls check that its rules are decided before its refusal.
 * Fragment contract: fuzz/gen.h. */
#include "fuzz/gen.h"

void fzp_pse(fz_gen *g)
{
    fdp *f = g->f;
    if (!fdp_rare(f, 10))
        return;
    const int decode = g->qs1;
    int64_t B = g->B > 0 ? g->B : 1, N = g->N > 0 ? g->N : 1;
    int64_t sh[4] = {fdp_bool(f) ? B : 1, N, decode ? 1 : g->Q_S, g->KV_S};
    if (fdp_rare(f, 30)) /* padded past the key's S (not read) */
        sh[3] += fdp_range(f, 1, 40);
    int nd = 4;
    fia_dtype dt = g->qdt == FIA_DT_BF16 ? FIA_DT_BF16 : FIA_DT_FP16;
    switch (fz_odd(g, 40) ? fdp_pick(f, 7) : -1) {
    case 0: dt = dt == FIA_DT_FP16 ? FIA_DT_BF16 : FIA_DT_FP16; break;
    case 1: sh[0] = B + 1; break;
    case 2: sh[1] = N + (fdp_bool(f) ? 1 : -1); break;
    case 3: nd = 3, sh[0] = N, sh[1] = sh[2], sh[2] = sh[3]; break;
    case 4:
        if (fdp_bool(f) || decode)
            sh[3] = g->KV_S - 1;
        else
            sh[2] = g->Q_S - 1;
        break;
    case 5: sh[2] = decode ? 2 : sh[2]; break;
    case 6: sh[2] = 0; break; /* empty: absent */
    default: break;
    }
    fz_note(g, fb_tensor(g->c, FIA_SLOT_PSE_SHIFT, dt, nd, sh));
}
