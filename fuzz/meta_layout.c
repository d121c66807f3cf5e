/* layout (metamorphic): the same problem in another layout, the same data
 * permuted (transform "layout=<L>"); with K/V heads repeated it is also
 * the GQA transform (meta_gqa.c). */
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_internal.h"

/* q/k/v data of c permuted into layout l2, with KV heads repeated rep times
 * (rep = N / KV_N for "mha", else 1). */
fia_status fz_meta_relayout(const fia_case *c, const fz_geom *g, fz_layout l2,
                           int mha, fia_case *out, fia_error *err)
{
    static const fia_slot slots[] = {FIA_SLOT_QUERY, FIA_SLOT_KEY, FIA_SLOT_VALUE};
    fz_layout l1 = g->layout == FZ_BNSD_BSND ? FZ_BNSD : g->layout;
    fz_layout l2in = l2 == FZ_BNSD_BSND ? FZ_BNSD : l2;
    for (int t = 0; t < 3; t++) {
        int64_t n = 0;
        double *src;
        fia_status st = fz_slot_data(c, slots[t], &src, &n, err);
        if (st != FIA_OK)
            return st;
        int64_t H = t == 0 ? g->N : g->KV_N, H2 = t == 0 || !mha ? H : g->N;
        int64_t S = t == 0 ? g->Q_S : g->KV_S, grp = g->N / g->KV_N;
        int64_t total = g->B * H2 * S * g->D;
        double *dst = calloc((size_t)(total > 0 ? total : 1), sizeof *dst);
        if (dst == NULL) {
            free(src);
            return fia_fail(err, FIA_ERR_NOMEM, "no memory for the new %s",
                            fia_slot_name(slots[t]));
        }
        for (int64_t b = 0; b < g->B; b++)
            for (int64_t h = 0; h < H2; h++)
                for (int64_t s = 0; s < S; s++)
                    for (int64_t d = 0; d < g->D; d++) {
                        int64_t hs = H2 != H ? h / grp : h;
                        dst[fz_index(l2in, g->B, H2, S, g->D, b, h, s, d)] =
                            src[fz_index(l1, g->B, H, S, g->D, b, hs, s, d)];
                    }
        free(src);
        int64_t sh[4];
        int nd = fz_shape(l2in, g->B, H2, S, g->D, sh);
        fia_dtype dt = c->tensors[slots[t]].t[0].dtype;
        if (fz_case_tensor(out, slots[t], dt, nd, sh) != FIA_OK) {
            free(dst);
            return fia_fail(err, FIA_ERR_NOMEM, "no memory for the new %s",
                            fia_slot_name(slots[t]));
        }
        fz_case_values(out, slots[t], dst, total);
    }
    fz_case_layout(out, fz_layout_name(l2));
    if (mha)
        fz_case_attr(out, FIA_ATTR_NUM_KEY_VALUE_HEADS, g->N);
    return FIA_OK;
}

/* "layout=<L>": another of the four layouts (not BNSD_BSND for decode,
 * which rejects it). */
fia_status fz_meta_layout(const fia_case *c, const fz_geom *g,
                          const char *arg, fia_case *out, fia_error *err)
{
    fz_layout l2 = fz_layout_of(arg);
    if (l2 == FZ_OTHER || l2 == g->layout ||
        (l2 == FZ_BNSD_BSND && g->Q_S == 1))
        return FIA_ERR_BAD_INPUT;
    return fz_meta_relayout(c, g, l2, 0, out, err);
}
