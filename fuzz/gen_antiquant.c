/* Key/value antiquantization in a generated case (not modeled yet):
 * fuzz_params sets the modes now and then.  Fragment contract:
 * fuzz/gen.h. */
#include "fuzz/gen.h"

/* antiquant_mode or value_antiquant_mode, then key_antiquant_mode, each
 * -1..2 now and then. */
void fzp_antiquant(fz_gen *g)
{
    if (fz_odd(g, 2)) {
        /* which attribute, then its value: the order of clang, which
         * builds the libFuzzer targets that made the corpus (the two were
         * once arguments of one call, whose order C leaves open) */
        fia_attr a = fdp_bool(g->f) ? FIA_ATTR_ANTIQUANT_MODE
                                    : FIA_ATTR_VALUE_ANTIQUANT_MODE;
        fb_attr(g->c, a, fdp_range(g->f, -1, 2));
    }
    if (fz_odd(g, 1))
        fb_attr(g->c, FIA_ATTR_KEY_ANTIQUANT_MODE, fdp_range(g->f, -1, 2));
}
