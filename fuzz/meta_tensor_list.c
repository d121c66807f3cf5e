/* tensor_list (metamorphic, and fuzz_numeric's list cases): the same keys
 * as lists of B tensors of batch 1, one per batch.  Tensor b holds S_b =
 * KV_S + extra_b rows; the extra rows hold NaN, beyond the batch's length
 * (actual_seq_lengths_kv is then written out, or a kernel reading past it
 * shows).  Transform "list=<seed>": the extras from the seed (0 .. 3). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_internal.h"

fia_status fz_list_case(const fia_case *c, const fz_geom *g, uint64_t seed,
                        fia_case *out, fia_error *err)
{
    if (g->B < 2 || g->B > 256 || c->live_rows ||
        c->tensors[FIA_SLOT_BLOCK_TABLE].presence == FIA_PRESENT)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "the case cannot be listed");
    const int64_t B = g->B, H = g->KV_N, D = g->D, S = g->KV_S;
    const fz_layout l = g->layout == FZ_BNSD_BSND ? FZ_BNSD : g->layout;
    int64_t *sb = malloc((size_t)B * 2 * sizeof *sb), *kvl = sb + B;
    int64_t total = 0, extra_any = 0;
    if (sb == NULL)
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for a list");
    /* extra rows grow KV_S: only where a mask still covers it */
    const fia_tensor_spec *m = &c->tensors[FIA_SLOT_ATTEN_MASK];
    const int extra_ok = m->presence != FIA_PRESENT || m->count < 1 ||
                         m->t[0].ndim < 1 ||
                         m->t[0].shape[m->t[0].ndim - 1] >= S + 3;
    for (int64_t b = 0; b < B; b++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        sb[b] = S + (extra_ok ? (int64_t)((seed >> 33) % 4) : 0);
        extra_any |= sb[b] != S;
        kvl[b] = fz_kv_len(c, g, b);
        total += sb[b] * H * D;
    }
    static const fia_slot slots[2] = {FIA_SLOT_KEY, FIA_SLOT_VALUE};
    fia_status st = FIA_OK;
    for (int t = 0; t < 2 && st == FIA_OK; t++) {
        double *src = NULL, *dst = NULL;
        int64_t n;
        st = fz_slot_data(c, slots[t], &src, &n, err);
        if (st == FIA_OK &&
            (dst = malloc((size_t)(total > 0 ? total : 1) * sizeof *dst)) == NULL)
            st = fia_fail(err, FIA_ERR_NOMEM, "no memory for a list");
        /* tensor after tensor, each [1, S_b, ...] in the layout */
        for (int64_t b = 0, off = 0; st == FIA_OK && b < B;
             off += sb[b] * H * D, b++)
            for (int64_t h = 0; h < H; h++)
                for (int64_t j = 0; j < sb[b]; j++)
                    for (int64_t d = 0; d < D; d++)
                        dst[off + fz_index(l, 1, H, sb[b], D, 0, h, j, d)] =
                            j < S ? src[fz_index(l, B, H, S, D, b, h, j, d)]
                                  : NAN;
        free(src);
        if (st != FIA_OK) {
            free(dst);
            break;
        }
        fia_tensor_spec *sp = &out->tensors[slots[t]];
        fia_dtype dt = c->tensors[slots[t]].t[0].dtype;
        int64_t sh[4];
        int nd = fz_shape(l, 1, H, sb[0], D, sh);
        if (fz_case_tensor_list(out, slots[t], (int)B, dt, nd, sh) != FIA_OK) {
            free(dst);
            st = fia_fail(err, FIA_ERR_NOMEM, "no memory for a list");
            break;
        }
        for (int64_t b = 0; b < B; b++)
            fz_shape(l, 1, H, sb[b], D, sp->t[b].shape);
        fz_case_values(out, slots[t], dst, total);
    }
    /* the lengths as they were: extra rows are beyond them */
    if (st == FIA_OK && extra_any &&
        c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV].presence != FIA_PRESENT &&
        fz_case_array(out, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, B, kvl) != FIA_OK)
        st = fia_fail(err, FIA_ERR_NOMEM, "no memory for the lengths");
    free(sb);
    return st;
}

/* "list=<seed>": *out (a copy of c) becomes the list form. */
fia_status fz_meta_tensor_list(const fia_case *c, const fz_geom *g,
                               const char *arg, fia_case *out, fia_error *err)
{
    unsigned long long seed = 0;
    if (sscanf(arg, "%llu", &seed) != 1)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "list=%s: want <seed>", arg);
    return fz_list_case(c, g, seed, out, err);
}
