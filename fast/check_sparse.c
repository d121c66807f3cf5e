/* sparse: sparse_mode 0-4, pre_tokens and next_tokens (which keys of the
 * band a query row may use; attention.c's row_band reads them). */
#include "validate.h"

static int64_t clamp_i32(int64_t x)
{
    return x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : x;
}

/* Layer 4.  002 sparseMode: Q_S > 1 supports 0..4; ignored when Q_S = 1,
 * as pre/next are.  Fills sparse.mode, .pre and .next (clamped to int32, so
 * the band arithmetic cannot overflow). */
fia_status fast_check_sparse(const fast_args *a, fast_plan *p, fia_error *err)
{
    if (p->tnd.on)
        return FIA_OK; /* 0 or 3 whatever Q_S: check_tnd.c */
    bool prefill = p->Q_S > 1;
    if (prefill && (a->sparse_mode < 0 || a->sparse_mode > 4))
        return FAST_REJECT("S_SPARSE_MODE", "sparse_mode %lld not in 0..4",
                           (long long)a->sparse_mode);
    p->sparse.mode = prefill ? (int)a->sparse_mode : 0;
    p->sparse.pre = prefill ? clamp_i32(a->pre) : INT32_MAX;
    p->sparse.next = prefill ? clamp_i32(a->next) : INT32_MAX;
    return FIA_OK;
}
