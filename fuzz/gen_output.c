/* The attention_out output in a generated case.  Fragment contract:
 * fuzz/gen.h. */
#include "fuzz/gen.h"

/* fuzz_params: now and then an attention_out of its own: null, of another
 * dtype, one dim off, right, or empty (int8 now and then). */
void fz_params_output(fz_gen *g)
{
    /* 004's out_dtype now and then (NM-017 refuses a given one once every
     * rule has judged the call); a strict input keeps its valid call */
    if (!g->strict && fz_bytes_rare(g->f, 2))
        fz_case_attr(g->c, FIA_ATTR_OUT_DTYPE, fz_bytes_pick(g->f, 40));
    if (!fz_odd(g, 5))
        return;
    fia_case *c = g->c;
    fia_dtype qdt = g->qdt;
    int64_t osh[FIA_MAX_RANK];
    int ond = fz_shape(fz_out_layout(g->L), g->B, g->N, g->Q_S, g->D, osh);
    switch (fz_bytes_pick(g->f, 5)) {
    case 0: fz_case_null(c, FIA_SLOT_ATTENTION_OUT); break;
    case 1:
        fz_note(g, fz_case_tensor(c, FIA_SLOT_ATTENTION_OUT,
                             qdt == FIA_DT_FP16 ? FIA_DT_BF16 : FIA_DT_FP16,
                             ond, osh));
        break;
    case 2: osh[ond - 1] += 1; /* fall through */
    case 3: fz_note(g, fz_case_tensor(c, FIA_SLOT_ATTENTION_OUT, qdt, ond, osh)); break;
    default:
        osh[0] = 0;
        fz_note(g, fz_case_tensor(c, FIA_SLOT_ATTENTION_OUT,
                             fz_bytes_bool(g->f) ? FIA_DT_INT8 : qdt, ond, osh));
        break;
    }
}
