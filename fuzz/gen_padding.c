/* Left padding in generated cases.
 *
 * fuzz_params: at the end of the list, now and then a left-padding scene
 * (002: a padding tensor with its lengths; query padding counts only when
 * Q_S > 1) together with one of the combinations the documents refuse with
 * it — int4 key/value under an fp16/bf16 query, a shared prefix, key/value
 * antiquant scales, per-channel output quantization — or, as often, the
 * tensor without its lengths (right padding: no scene).  The padding
 * arithmetic is not modeled yet: these calls check that its exclusions
 * are decided before "not modeled".
 * Fragment contract: fuzz/gen.h. */
#include "fuzz/gen.h"

void fzp_padding(fz_gen *g)
{
    fdp *f = g->f;
    fia_case *c = g->c;
    if (!fdp_rare(f, 8))
        return;
    const int query = fdp_bool(f);
    const fia_slot ps = query ? FIA_SLOT_QUERY_PADDING_SIZE
                              : FIA_SLOT_KV_PADDING_SIZE;
    const fia_array pa = query ? FIA_ARR_ACTUAL_SEQ_LENGTHS
                               : FIA_ARR_ACTUAL_SEQ_LENGTHS_KV;
    int64_t one = 1, len = query ? g->Q_S : g->KV_S;
    fz_note(g, fb_tensor(c, ps, FIA_DT_INT64, 1, &one));
    if (fdp_bool(f)) /* with its lengths: a left-padding scene */
        fz_note(g, fb_array(c, pa, 1, &len));
    const fia_tensor_spec *k = &c->tensors[FIA_SLOT_KEY];
    switch (fdp_pick(f, 4)) {
    case 0: /* int4 key/value (under the query's dtype) */
        if (k->presence == FIA_PRESENT && k->count == 1 &&
            c->tensors[FIA_SLOT_VALUE].presence == FIA_PRESENT &&
            c->tensors[FIA_SLOT_VALUE].count == 1) {
            k->t[0].dtype = FIA_DT_INT4;
            c->tensors[FIA_SLOT_VALUE].t[0].dtype = FIA_DT_INT4;
        }
        break;
    case 1: /* a shared prefix of the key's shape, batch 1 */
        if (k->presence == FIA_PRESENT && k->count >= 1 &&
            k->t[0].ndim >= 2) {
            int64_t sh[FIA_MAX_RANK];
            for (int i = 0; i < k->t[0].ndim; i++)
                sh[i] = k->t[0].shape[i];
            sh[0] = 1;
            fz_note(g, fb_tensor(c, FIA_SLOT_KEY_SHARED_PREFIX, g->kvdt,
                                 k->t[0].ndim, sh));
            fz_note(g, fb_tensor(c, FIA_SLOT_VALUE_SHARED_PREFIX, g->kvdt,
                                 k->t[0].ndim, sh));
        }
        break;
    case 2: { /* key/value antiquant scales, per token */
        int64_t sh[2] = {g->B > 0 ? g->B : 1, g->KV_S > 0 ? g->KV_S : 1};
        fz_note(g, fb_tensor(c, FIA_SLOT_KEY_ANTIQUANT_SCALE, FIA_DT_FP32, 2,
                             sh));
        fz_note(g, fb_tensor(c, FIA_SLOT_VALUE_ANTIQUANT_SCALE, FIA_DT_FP32,
                             2, sh));
        break;
    }
    default: { /* output quantization, per channel or per tensor ([1]) */
        int64_t sh[2] = {g->N > 0 ? g->N : 1, g->D > 0 ? g->D : 1};
        if (fdp_bool(f))
            fz_note(g, fb_tensor(c, FIA_SLOT_QUANT_SCALE2, FIA_DT_FP32, 2, sh));
        else
            fz_note(g, fb_tensor(c, FIA_SLOT_QUANT_SCALE2, FIA_DT_FP32, 1,
                                 &one));
        break;
    }
    }
}
