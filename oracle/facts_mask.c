/* oracle/facts_mask: whether atten_mask takes part (an empty one counts as
 * absent). */
#include "oracle_internal.h"

void orc_facts_mask(const fia_case *c, fia_oracle_facts *f)
{
    (void)c;
    f->mask_effective = f->given[FIA_SLOT_ATTEN_MASK] &&
                        f->numel[FIA_SLOT_ATTEN_MASK] != 0;
}

int orc_mask_opt_shape_bad(const fia_oracle_facts *f)
{
    const fia_tensor *m = f->t[FIA_SLOT_ATTEN_MASK];
    if (m->ndim < 2 || m->ndim > 4)
        return 1;
    for (int i = 0; i < m->ndim - 2; i++)
        if (m->shape[i] != 1)
            return 1;
    return m->shape[m->ndim - 2] != 2048 || m->shape[m->ndim - 1] != 2048;
}
