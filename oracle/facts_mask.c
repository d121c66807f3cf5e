/* oracle/facts_mask: whether atten_mask takes part (an empty one counts as
 * absent). */
#include "oracle_internal.h"

void orc_facts_mask(const fia_case *c, fia_oracle_facts *f)
{
    (void)c;
    f->mask_effective = f->given[FIA_SLOT_ATTEN_MASK] &&
                        f->numel[FIA_SLOT_ATTEN_MASK] != 0;
}
