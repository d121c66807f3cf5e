/* tensor_list: key/value lists of more than one tensor (one per batch).
 * Not modeled yet: the refusal.  (An empty list, or more tensors than
 * FIA_MAX_TENSOR_LIST, is rejected as S_KV_LIST: check_tensors.c and
 * api.c.) */
#include "validate.h"

/* Layer 3. */
fia_status fast_check_tensor_list(const fast_args *a, fast_plan *p,
                                  fia_error *err)
{
    (void)p;
    if (a->key->count > 1 || a->value->count > 1)
        FAST_NOTMOD("M_TENSORLIST", "key/value lists with %d/%d tensors are "
                    "not modeled yet", (int)a->key->count,
                    (int)a->value->count);
    return FIA_OK;
}
