/* Key/value tensor lists in a generated case (not modeled yet): fuzz_params
 * asks now and then for lists of two, which the rules reject until the
 * feature is modeled.  Fragment contract: fuzz/gen.h. */
#include "fuzz/gen.h"

/* Sets kv_count, the length of the key and value lists. */
void fzp_tensor_list(fz_gen *g) { g->kv_count = fz_odd(g, 1) ? 2 : 1; }
