/* oracle/facts: what the rules may know about a case, computed once.
 *
 * Reads only the case's descriptors (shapes, dtypes), attributes and host int
 * arrays.  Each derived dimension is guarded by a flag; when the layout or a
 * rank is wrong the dims stay unknown (-1) and the rules that need them do not
 * fire.
 *
 * The facts are derived per feature (facts_<feature>.c, beside the feature's
 * rules_<feature>.c); this driver runs the steps in an order where each reads
 * only what the steps before it derived: the tensors first, then the outputs
 * (the empty query needs the query's element count), the head counts, the
 * layout (BSH reads D through num_heads and the key's through
 * num_key_value_heads), the mask and sequence lengths, and last the paged
 * cache (its KV_S comes from the lengths), the token layouts, and the
 * left-padding scenes (the path and the lengths) and the shared prefix
 * (through the layout); and last whether any batch reads a key (order.c:
 * the lengths, the layout and the cache all known). */
#include <string.h>
#include "oracle_internal.h"

static void (*const steps[])(const fia_case *, fia_oracle_facts *) = {
    orc_facts_tensors, orc_facts_output, orc_facts_lse,  orc_facts_gqa,
    orc_facts_layout,  orc_facts_tensor_list, orc_facts_mask,
    orc_facts_seqlen,  orc_facts_paged,       orc_facts_tnd,
    orc_facts_padding, orc_facts_prefix,      orc_facts_antiquant,
    orc_facts_mla,     orc_facts_order,
};

void orc_facts_compute(const fia_case *c, fia_oracle_facts *f)
{
    memset(f, 0, sizeof *f);
    f->c = c;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        steps[i](c, f);
}
