/* atten_mask in a generated case: its shape and dtype, and (fuzz_numeric)
 * which keys it masks.  Fragment contract: fuzz/gen.h. */
#include <stdlib.h>
#include "fuzz/gen.h"

/* ---- fuzz_params ------------------------------------------------------------ */

/* One of the mask shapes, valid or one step off; returns its rank. */
static int mask_shape(fz_gen *g, int64_t *sh)
{
    int64_t B = g->B, Q_S = g->Q_S, KV_S = g->KV_S;
    /* The unsupported modes 5..8 get the compressed mask too: with any
     * other mask a validator that let them through would still reject
     * the call for the mask, and the status alone would not show it. */
    if (!g->qs1 && g->sparse >= 2) {
        static const int w[] = {45, 18, 18, 2, 2, 2, 2, 1};
        switch (fz_wpick(g, w, FZ_ARRLEN(w), 3)) {
        case 0: sh[0] = 2048, sh[1] = 2048; return 2;
        case 1: sh[0] = 1, sh[1] = 2048, sh[2] = 2048; return 3;
        case 2: sh[0] = sh[1] = 1, sh[2] = sh[3] = 2048; return 4;
        case 3: sh[0] = 2047, sh[1] = 2048; return 2;
        case 4: sh[0] = 2048, sh[1] = 2049; return 2;
        case 5: sh[0] = 2, sh[1] = 2048, sh[2] = 2048; return 3;
        case 6: sh[0] = Q_S, sh[1] = KV_S; return 2;
        default: sh[0] = 2048; return 1;
        }
    }
    if (g->qs1) {
        static const int w[] = {30, 20, 20, 4, 4, 4, 4, 3, 3};
        switch (fz_wpick(g, w, FZ_ARRLEN(w), 3)) {
        case 0: sh[0] = B, sh[1] = KV_S; return 2;
        case 1: sh[0] = B, sh[1] = 1, sh[2] = KV_S; return 3;
        case 2: sh[0] = B, sh[1] = 1, sh[2] = 1, sh[3] = KV_S; return 4;
        case 3: sh[0] = B, sh[1] = KV_S - 1; return 2;
        case 4: sh[0] = B, sh[1] = KV_S + 16; return 2;
        case 5: sh[0] = B + 1, sh[1] = KV_S; return 2;
        case 6: sh[0] = B, sh[1] = 2, sh[2] = KV_S; return 3;
        case 7: sh[0] = KV_S; return 1;
        default: sh[0] = B, sh[1] = 1, sh[2] = 1, sh[3] = 1, sh[4] = KV_S;
            return 5;
        }
    }
    static const int w[] = {25, 15, 10, 15, 8, 6, 3, 3, 3, 3, 2, 2, 2};
    switch (fz_wpick(g, w, FZ_ARRLEN(w), 6)) {
    case 0: sh[0] = Q_S, sh[1] = KV_S; return 2;
    case 1: sh[0] = B, sh[1] = Q_S, sh[2] = KV_S; return 3;
    case 2: sh[0] = 1, sh[1] = Q_S, sh[2] = KV_S; return 3;
    case 3: sh[0] = B, sh[1] = 1, sh[2] = Q_S, sh[3] = KV_S; return 4;
    case 4: sh[0] = 1, sh[1] = 1, sh[2] = Q_S, sh[3] = KV_S; return 4;
    case 5: sh[0] = (Q_S + 15) / 16 * 16, sh[1] = (KV_S + 31) / 32 * 32;
        return 2;
    case 6: sh[0] = Q_S - 1, sh[1] = KV_S; return 2;
    case 7: sh[0] = Q_S, sh[1] = KV_S - 1; return 2;
    case 8: sh[0] = B + 1, sh[1] = Q_S, sh[2] = KV_S; return 3;
    case 9: sh[0] = B, sh[1] = 2, sh[2] = Q_S, sh[3] = KV_S; return 4;
    case 10: sh[0] = KV_S; return 1;
    case 11: sh[0] = 0, sh[1] = KV_S; return 2;
    default: sh[0] = 1, sh[1] = B, sh[2] = 1, sh[3] = Q_S, sh[4] = KV_S;
        return 5;
    }
}

/* Mostly for modes 1-4 in prefill (which need one), else now and then;
 * mostly bool, now and then another dtype; null now and then. */
void fz_params_mask(fz_gen *g)
{
    fz_bytes *f = g->f;
    int want_mask;
    if (!g->qs1 && g->sparse >= 1 && g->sparse <= 4)
        want_mask = fz_bytes_chance(f, 92);
    else
        want_mask = fz_bytes_chance(f, g->qs1 ? 30 : 40);
    if (want_mask) {
        int64_t msh[FIA_MAX_RANK];
        int mnd = mask_shape(g, msh);
        static const int dw[] = {70, 10, 10, 4, 2, 2, 2};
        static const fia_dtype md[] = {FIA_DT_BOOL, FIA_DT_INT8, FIA_DT_UINT8,
                                       FIA_DT_FP16, FIA_DT_FP32, FIA_DT_INT32,
                                       FIA_DT_BF16};
        fz_note(g, fz_case_tensor(g->c, FIA_SLOT_ATTEN_MASK,
                             md[fz_wpick(g, dw, FZ_ARRLEN(dw), 3)], mnd, msh));
    } else if (fz_bytes_chance(f, 5)) {
        fz_case_null(g->c, FIA_SLOT_ATTEN_MASK);
    }
}

/* ---- fuzz_numeric ----------------------------------------------------------- */

/* Sets mnd (0: no mask), msh, mask_b, mrows, mcols: the compressed
 * 2048x2048 mask for modes 2-4; for modes 0/1 (0 now and then) one of
 * the documented shapes, its rows and columns sometimes padded up. */
void fz_numeric_mask_shape(fz_gen *g)
{
    fz_bytes *f = g->f;
    int64_t *msh = g->msh;
    g->mnd = 0, g->mask_b = 0, g->mrows = g->Q_S, g->mcols = g->KV_S;
    if (g->reach == FZ_REACH_HUGE && g->sparse < 2)
        return; /* a [Q_S, KV_S] mask of huge KV_S: none */
    if (g->sparse >= 2) {
        int k = fz_bytes_pick(f, 3);
        msh[0] = msh[1] = 1;
        msh[k] = msh[k + 1] = 2048;
        g->mnd = k + 2;
    } else if (g->sparse == 1 || fz_bytes_chance(f, 45)) {
        if (fz_bytes_chance(f, 20))
            g->mcols = (g->KV_S + 31) / 32 * 32;
        if (g->qs1) {
            g->mnd = 2 + fz_bytes_pick(f, 3);
            msh[0] = g->B, msh[1] = msh[2] = 1, msh[g->mnd - 1] = g->mcols;
            g->mask_b = 1, g->mrows = 1;
        } else {
            int64_t B = g->B, rows, cols = g->mcols;
            if (fz_bytes_chance(f, 20))
                g->mrows = (g->Q_S + 15) / 16 * 16;
            rows = g->mrows;
            switch (fz_bytes_pick(f, 5)) {
            case 0: g->mnd = 2, msh[0] = rows, msh[1] = cols; break;
            case 1: g->mnd = 3, msh[0] = B, msh[1] = rows, msh[2] = cols;
                g->mask_b = 1; break;
            case 2: g->mnd = 3, msh[0] = 1, msh[1] = rows, msh[2] = cols; break;
            case 3: g->mnd = 4, msh[0] = B, msh[1] = 1, msh[2] = rows,
                msh[3] = cols; g->mask_b = 1; break;
            default: g->mnd = 4, msh[0] = msh[1] = 1, msh[2] = rows,
                msh[3] = cols; break;
            }
        }
    }
}

/* atten_mask of the chosen shape: bool for the compressed mask, else
 * bool, int8 or uint8. */
void fz_numeric_mask_dtype(fz_gen *g)
{
    if (g->mnd == 0)
        return;
    fia_dtype dt = FIA_DT_BOOL;
    if (g->sparse < 2) {
        static const fia_dtype md[] = {FIA_DT_BOOL, FIA_DT_INT8, FIA_DT_UINT8};
        dt = md[fz_bytes_pick(g->f, 3)];
    }
    fz_note(g, fz_case_tensor(g->c, FIA_SLOT_ATTEN_MASK, dt, g->mnd, g->msh));
}

/* The content of a mode 0/1 mask (the compressed one is fixed): random,
 * whole rows off, whole columns off (recorded in masked_col, for the data
 * that poisons masked keys), or nothing masked. */
void fz_numeric_mask_values(fz_gen *g)
{
    if (g->mnd == 0 || g->sparse >= 2)
        return;
    fz_bytes *f = g->f;
    int pattern = fz_bytes_pick(f, 4); /* random, rows off, cols off, none */
    if (pattern == 0 && fz_bytes_bool(f)) {
        fz_case_gen(g->c, FIA_SLOT_ATTEN_MASK, FIA_GEN_RANDOM,
               (double[]){0.1, 0.3, 0.7}[fz_bytes_pick(f, 3)], 0);
        return;
    }
    int64_t nb = g->mask_b ? g->B : 1, rows = g->mrows, cols = g->mcols;
    int64_t n = nb * rows * cols;
    double *m = calloc((size_t)(n > 0 ? n : 1), sizeof *m);
    uint64_t rowbits = fuzz_rng_next(&g->rng), colbits = fuzz_rng_next(&g->rng);
    for (int64_t b = 0; b < nb && m; b++)
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) {
                int x = pattern == 0 ? (fuzz_rng_next(&g->rng) % 4 == 0)
                      : pattern == 1 ? (int)((rowbits >> ((i + 7 * b) % 64)) & 1)
                      : pattern == 2 ? (int)((colbits >> ((j + 5 * b) % 64)) & 1)
                      : 0;
                m[(b * rows + i) * cols + j] = x;
            }
    if (pattern == 2)
        for (int64_t b = 0; b < g->B && b < FZ_NUM_MAX_B; b++)
            for (int64_t j = 0; j < g->KV_S && j < FZ_NUM_MAX_KV_S; j++)
                g->masked_col[b][j] =
                    (colbits >> ((j + 5 * (g->mask_b ? b : 0)) % 64)) & 1;
    if (m != NULL)
        fz_case_values(g->c, FIA_SLOT_ATTEN_MASK, m, n);
    else
        fz_note(g, FIA_ERR_NOMEM);
}
