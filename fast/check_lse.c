/* lse: softmax_lse_flag and the softmax_lse output (its nullptr with the
 * flag is api.c's layer 1). */
#include "validate.h"

/* Layer 2.  REG_OP: softmax_lse is FLOAT32 only; a registered-list miss is
 * a dtype error (161002 in both profiles, RELEASED "Return codes").
 * Without the flag softmax_lse is not looked at. */
fia_status fast_check_lse_dtypes(const fast_args *a, fast_plan *p,
                                 fia_error *err)
{
    (void)p;
    if (a->lse_flag && a->lse && a->lse->dtype != FIA_DT_FP32)
        return FAST_BADTYPE("T_LSE", "softmax_lse dtype %s not in {fp32}",
                            fast_dtype_name(a->lse->dtype));
    return FIA_OK;
}

/* Layer 4.  002 softmaxLse: with the flag, fp32 [B, N, Q_S, 1].  Fills lse
 * and lse_numel. */
fia_status fast_check_lse(const fast_args *a, fast_plan *p, fia_error *err)
{
    if (!a->lse_flag)
        return FIA_OK;
    const fia_tensor *l = a->lse;
    if (l->dtype != FIA_DT_FP32)
        return FAST_REJECT("S_LSE_DTYPE", "softmax_lse dtype %s != fp32",
                           fast_dtype_name(l->dtype));
    p->lse = (float *)l->data;
    if (p->tnd.on) { /* 003 返回值说明: (T, N, 1) */
        if (l->ndim != 3 || l->shape[0] != p->tnd.T || l->shape[1] != p->N ||
            l->shape[2] != 1)
            return FAST_REJECT("S_LSE_SHAPE", "softmax_lse shape must be [T, N, 1]");
        p->lse_numel = p->tnd.T * p->N; /* <= numel(query) */
        return FIA_OK;
    }
    if (l->ndim != 4 || l->shape[0] != p->B || l->shape[1] != p->N ||
        l->shape[2] != p->Q_S || l->shape[3] != 1)
        return FAST_REJECT("S_LSE_SHAPE", "softmax_lse shape must be [B, N, Q_S, 1]");
    p->lse_numel = p->B * p->N * p->Q_S; /* <= numel(query) */
    return FIA_OK;
}
