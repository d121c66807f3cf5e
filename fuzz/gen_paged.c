/* Paged KV in a generated case (not modeled yet): fuzz_params gives a
 * block_size now and then, which the rules reject until the feature is
 * modeled.  (A block_table tensor comes from fzp_tensors_optional.)
 * Fragment contract: fuzz/gen.h. */
#include "fuzz/gen.h"

void fzp_paged(fz_gen *g)
{
    if (fz_odd(g, 2))
        fb_attr(g->c, FIA_ATTR_BLOCK_SIZE,
                (int64_t[]){0, 16, 128, -1, 512}[fdp_pick(g->f, 5)]);
}
