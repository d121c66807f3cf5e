/* oracle/facts_gqa: the head counts.  num_key_value_heads = 0 means "as many
 * as num_heads" (002 §参数说明 > numKeyValueHeads). */
#include "oracle_internal.h"

void orc_facts_gqa(const fia_case *c, fia_oracle_facts *f)
{
    f->N = c->attrs.num_heads;
    f->KV_N = c->attrs.num_key_value_heads == 0 ? c->attrs.num_heads
                                                : c->attrs.num_key_value_heads;
}
