/* The shared system prefix in a generated case (not modeled yet):
 * fuzz_params gives actual_shared_prefix_len now and then.  Fragment
 * contract: fuzz/gen.h. */
#include "fuzz/gen.h"

void fzp_prefix(fz_gen *g)
{
    if (fz_odd(g, 1))
        fzp_seq_array(g, FIA_ARR_ACTUAL_SHARED_PREFIX_LEN, 100, g->KV_S);
}
