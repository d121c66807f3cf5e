/* 003 query quantization in a generated case (not modeled yet):
 * fuzz_params sets query_quant_mode now and then.  Fragment contract:
 * fuzz/gen.h. */
#include "fuzz/gen.h"

void fzp_query_quant(fz_gen *g)
{
    if (fz_odd(g, 1))
        fb_attr(g->c, FIA_ATTR_QUERY_QUANT_MODE, fdp_range(g->f, 0, 3));
}
