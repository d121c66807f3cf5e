/* Paged KV in a generated case (not modeled yet): fuzz_params gives a
 * block_size now and then, ignored without a block_table (PAGED-N01) and
 * refused as not modeled with one (NM-006).  (A block_table tensor comes
 * from fzp_tensors_optional.)
 * Fragment contract: fuzz/gen.h. */
#include "fuzz/gen.h"

void fzp_paged(fz_gen *g)
{
    if (fz_odd(g, 2))
        fb_attr(g->c, FIA_ATTR_BLOCK_SIZE,
                (int64_t[]){0, 16, 128, -1, 512}[fdp_pick(g->f, 5)]);
}
