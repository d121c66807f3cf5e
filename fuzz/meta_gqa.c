/* gqa (metamorphic): GQA against the same problem with every K/V head
 * repeated for its query heads (transform "mha"). */
#include "fuzz/fuzz_internal.h"

fia_status fz_meta_mha(const fia_case *c, const fz_geom *g, const char *arg,
                       fia_case *out, fia_error *err)
{
    (void)arg;
    if (g->KV_N == g->N)
        return FIA_ERR_BAD_INPUT;
    return fz_meta_relayout(c, g, g->layout, 1, out, err);
}
