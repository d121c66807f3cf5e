/* The shared system prefix in generated cases (not computed yet).
 *
 * fuzz_params: actual_shared_prefix_len now and then (fzp_prefix, in its
 * old place of the list) and, at the end of the list, now and then a pair
 * of prefix tensors shaped like the key in the query's layout — batch 1,
 * their own S, the key's heads — with a length array within their S, and
 * one of the prefix rules broken now and then: one tensor only, another
 * dtype, batch 2, other heads, S that differ, a length past S or of two
 * values, an S that with the key's passes the key's limit.  The calls
 * check that the rules are decided before the prefix's refusal.
 * Fragment contract: fuzz/gen.h. */
#include "fuzz/gen.h"

void fzp_prefix(fz_gen *g)
{
    if (fz_odd(g, 1))
        fzp_seq_array(g, FIA_ARR_ACTUAL_SHARED_PREFIX_LEN, 100, g->KV_S);
}

void fzp_prefix_tensors(fz_gen *g)
{
    fdp *f = g->f;
    fia_case *c = g->c;
    if (!fdp_rare(f, 10))
        return;
    const fia_tensor_spec *k = &c->tensors[FIA_SLOT_KEY];
    if (k->presence != FIA_PRESENT || k->count < 1 || k->t[0].ndim < 3 ||
        k->t[0].ndim > 4)
        return;
    const fia_tensor *kt = &k->t[0];
    const int bnsd = kt->ndim == 4 && g->L != FZ_BSND;
    const int sa = bnsd ? 2 : 1;
    int64_t sh[4], vsh[4];
    for (int i = 0; i < kt->ndim; i++)
        sh[i] = kt->shape[i];
    sh[0] = 1;
    sh[sa] = fdp_chance(f, 20) ? fdp_range(f, 0, 4) : fdp_range(f, 1, 300);
    for (int i = 0; i < kt->ndim; i++)
        vsh[i] = sh[i];
    fia_dtype kdt = kt->dtype, vdt = kt->dtype;
    int nvp = 1, nlen = fdp_bool(f) ? 1 : 0;
    int64_t len[2] = {fdp_range(f, 0, sh[sa]), 1};
    switch (fz_odd(g, 40) ? fdp_pick(f, 8) : -1) {
    case 0: nvp = 0; break;
    case 1: kdt = vdt = kdt == FIA_DT_FP16 ? FIA_DT_BF16 : FIA_DT_FP16; break;
    case 2: sh[0] = vsh[0] = 2; break;
    case 3: sh[kt->ndim - 1] += 16; break;
    case 4: vsh[sa] += 1; break;
    case 5: nlen = 1, len[0] = sh[sa] + 1; break;
    case 6: nlen = 2; break;
    case 7: sh[sa] = vsh[sa] = g->qs1 ? 262144 : 20971520; break;
    default: break;
    }
    fz_note(g, fb_tensor(c, FIA_SLOT_KEY_SHARED_PREFIX, kdt, kt->ndim, sh));
    if (nvp)
        fz_note(g, fb_tensor(c, FIA_SLOT_VALUE_SHARED_PREFIX, vdt, kt->ndim,
                             vsh));
    if (nlen)
        fz_note(g, fb_array(c, FIA_ARR_ACTUAL_SHARED_PREFIX_LEN, nlen, len));
}
