/* The tensors' part of a generated case: presence, dtypes and shapes of
 * query, key and value, and of the optional tensors nobody models yet.
 * Fragment contract: fuzz/gen.h. */
#include <string.h>
#include "fuzz/gen.h"

/* ---- fuzz_params ------------------------------------------------------------ */

/* fp16 or bf16, else (odd_pct % of the non-strict inputs) any dtype. */
static fia_dtype pick_float_dtype(fz_gen *g, int odd_pct)
{
    if (fz_odd(g, odd_pct))
        return (fia_dtype)fz_bytes_range(g->f, FIA_DT_FP16, FIA_DT_COUNT - 1);
    return fz_bytes_bool(g->f) ? FIA_DT_BF16 : FIA_DT_FP16;
}

/* Sets qdt and kvdt (now and then another dtype than the query's). */
void fz_params_tensors_dtype(fz_gen *g)
{
    g->qdt = pick_float_dtype(g, 5);
    g->kvdt = !fz_odd(g, 6) ? g->qdt : pick_float_dtype(g, 60);
}

/* Sets qsh/qnd, ksh/knd, vsh/vnd from the geometry: the layout's shapes,
 * now and then a dim off by one or a rank off. */
void fz_params_tensors_shapes(fz_gen *g)
{
    fz_bytes *f = g->f;
    g->qnd = fz_shape(g->L, g->B, g->N, g->Q_S, g->D, g->qsh);
    g->knd = fz_shape(g->L, g->B, g->KV_N, g->KV_S, g->D, g->ksh);
    memcpy(g->vsh, g->ksh, sizeof g->ksh);
    g->vnd = g->knd;
    /* The step is read before the dim it moves (the order the decoder has
     * always had, with gcc and clang alike). */
    if (fz_odd(g, 2)) {   /* a dim of the key that must agree */
        int64_t step = fz_bytes_bool(f) ? 1 : -1;
        g->ksh[fz_bytes_pick(f, g->knd)] += step;
    }
    if (fz_odd(g, 2))
        g->vsh[fz_bytes_pick(f, g->vnd)] += 1;
    if (fz_odd(g, 2)) {
        int64_t step = fz_bytes_bool(f) ? 1 : -1;
        g->qsh[fz_bytes_pick(f, g->qnd)] += step;
    }
    if (fz_odd(g, 2))
        g->qnd = g->qnd == 3 ? 4 : 3, g->qsh[3] = g->D;
    if (fz_odd(g, 2))
        g->knd = g->vnd = g->knd == 3 ? 4 : 3, g->ksh[3] = g->vsh[3] = g->D;
}

/* query, key, value (lists of kv_count), now and then with a value dtype
 * of its own (TENS-040: key and value must share one) or a null one. */
void fz_params_tensors_qkv(fz_gen *g)
{
    fia_case *c = g->c;
    fz_note(g, fz_case_tensor(c, FIA_SLOT_QUERY, g->qdt, g->qnd, g->qsh));
    fz_note(g, fz_case_tensor_list(c, FIA_SLOT_KEY, g->kv_count, g->kvdt, g->knd,
                              g->ksh));
    fia_dtype vdt = !fz_odd(g, 3) ? g->kvdt : pick_float_dtype(g, 30);
    fz_note(g, fz_case_tensor_list(c, FIA_SLOT_VALUE, g->kv_count, vdt, g->vnd,
                              g->vsh));
    if (fz_odd(g, 1))
        fz_case_null(c, FIA_SLOT_QUERY);
    if (fz_odd(g, 1))
        fz_case_null(c, fz_bytes_bool(g->f) ? FIA_SLOT_KEY : FIA_SLOT_VALUE);
}

/* Now and then one of the optional tensors nobody models yet (pse_shift
 * to dequant_scale_query but the mask), of any dtype, or null.  A feature
 * that comes to be modeled generates its tensors in its own fragment. */
void fz_params_tensors_optional(fz_gen *g)
{
    if (!fz_odd(g, 4))
        return;
    fz_bytes *f = g->f;
    fia_slot s = (fia_slot)fz_bytes_range(f, FIA_SLOT_PSE_SHIFT,
                                     FIA_SLOT_DEQUANT_SCALE_QUERY);
    if (s == FIA_SLOT_ATTEN_MASK)
        s = FIA_SLOT_PSE_SHIFT;
    int64_t sh[4] = {g->B, g->N, g->Q_S, g->KV_S};
    int nd = fz_bytes_bool(f) ? 4 : 1;
    if (nd == 1)
        sh[0] = fz_bytes_chance(f, 20) ? 0 : 1;
    fia_dtype dt = (fia_dtype)fz_bytes_range(f, FIA_DT_FP16, FIA_DT_COUNT - 1);
    if (fz_bytes_chance(f, 10))
        fz_case_null(g->c, s);
    else
        fz_note(g, fz_case_tensor(g->c, s, dt, nd, sh));
}

/* ---- fuzz_numeric ----------------------------------------------------------- */

/* Sets qdt = kvdt: fp16 or bf16. */
void fz_numeric_tensors_dtype(fz_gen *g)
{
    g->qdt = g->kvdt = fz_bytes_bool(g->f) ? FIA_DT_BF16 : FIA_DT_FP16;
}

/* query, key, value in the layout's shapes (their data comes later). */
void fz_numeric_tensors_qkv(fz_gen *g)
{
    int64_t sh[FIA_MAX_RANK];
    int nd = g->L == FZ_BSH ? 3 : 4;
    fz_shape(g->L, g->B, g->N, g->Q_S, g->D, sh);
    fz_note(g, fz_case_tensor(g->c, FIA_SLOT_QUERY, g->qdt, nd, sh));
    fz_shape(g->L, g->B, g->KV_N, g->KV_S, g->D, sh);
    fz_note(g, fz_case_tensor(g->c, FIA_SLOT_KEY, g->kvdt, nd, sh));
    fz_note(g, fz_case_tensor(g->c, FIA_SLOT_VALUE, g->kvdt, nd, sh));
}
