/* mla: the MLA rope inputs (query_rope, key_rope).  Not modeled yet.  The
 * V2 entry fast/ implements has no such inputs, so there is nothing to
 * refuse: the row is here so the feature's checks have their place (the
 * entry that takes the rope tensors refuses them here first). */
#include "validate.h"

/* Layer 3. */
fia_status fast_check_mla(const fast_args *a, fast_plan *p, fia_error *err)
{
    (void)a;
    (void)p;
    (void)err;
    return FIA_OK;
}
