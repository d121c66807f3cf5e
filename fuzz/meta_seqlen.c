/* seqlen (metamorphic): a length-1 sequence-length array against the same
 * lengths written out per batch (transform "seqlen-expand"). */
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_internal.h"

/* Each length-1 sequence-length array written out per batch. */
static fia_status seqlen_expand(const fz_geom *g, fia_case *out,
                                fia_error *err)
{
    fia_status st = fia_fail(err, FIA_ERR_BAD_INPUT, "no length-1 "
                             "sequence-length array to expand");
    for (int a = 0; a < 2 && g->B > 1; a++) {
        fia_int_array_spec *sp = &out->arrays[a];
        if (sp->presence != FIA_PRESENT || sp->count != 1)
            continue;
        int64_t *v = malloc((size_t)g->B * sizeof *v);
        if (v == NULL)
            return fia_fail(err, FIA_ERR_NOMEM, "no memory for %lld lengths",
                            (long long)g->B);
        for (int64_t b = 0; b < g->B; b++)
            v[b] = sp->values[0];
        st = fz_case_array(out, (fia_array)a, g->B, v);
        free(v);
        if (st != FIA_OK)
            return fia_fail(err, st, "no memory for %lld lengths",
                            (long long)g->B);
        fia_error_clear(err);
    }
    return st;
}

fia_status fz_meta_seqlen_expand(const fia_case *c, const fz_geom *g,
                                 const char *arg, fia_case *out,
                                 fia_error *err)
{
    (void)c, (void)arg;
    return seqlen_expand(g, out, err);
}
