/* softmax_lse_flag and the softmax_lse output in a generated case.
 * Fragment contract: fuzz/gen.h. */
#include "fuzz/gen.h"

/* The flag now and then (given false now and then); now and then a
 * softmax_lse tensor of its own, null or of a wrong dtype or shape. */
void fz_params_lse(fz_gen *g)
{
    fz_bytes *f = g->f;
    int lse = fz_bytes_chance(f, 30);
    if (lse || fz_bytes_chance(f, 5))
        fz_case_lse_flag(g->c, lse);
    if (!fz_odd(g, 6))
        return;
    int64_t lsh[4] = {g->B, g->N, g->Q_S, 1};
    switch (fz_bytes_pick(f, 5)) {
    case 0: fz_case_null(g->c, FIA_SLOT_SOFTMAX_LSE); break;
    case 1: fz_note(g, fz_case_tensor(g->c, FIA_SLOT_SOFTMAX_LSE, FIA_DT_FP16, 4, lsh));
        break;
    case 2: fz_note(g, fz_case_tensor(g->c, FIA_SLOT_SOFTMAX_LSE, FIA_DT_FP32, 3, lsh));
        break;
    case 3: lsh[3] = 2; /* fall through */
    default: fz_note(g, fz_case_tensor(g->c, FIA_SLOT_SOFTMAX_LSE, FIA_DT_FP32, 4, lsh));
        break;
    }
}

/* The flag half the time. */
void fz_numeric_lse(fz_gen *g)
{
    if (fz_bytes_bool(g->f))
        fz_case_lse_flag(g->c, 1);
}
