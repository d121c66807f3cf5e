/* pse: pse_shift, the positional bias added to the scores.  Its registered
 * dtypes; its shape and the dtype it pairs with, checked like any semantic
 * rule, and the plan's view of it (attention.c adds it, run_pse.c). */
#include "validate.h"

/* Layer 2.  REG_OP: pse_shift fp16 or bf16. */
fia_status fast_check_pse_dtypes(const fast_args *a, fast_plan *p,
                                 fia_error *err)
{
    (void)p;
    if (a->pse && !fast_dtype_in(a->pse->dtype,
                                 FAST_DTYPES(FIA_DT_FP16, FIA_DT_BF16)))
        return FAST_BADTYPE("T_PSE", "pse_shift dtype %s not in {fp16, bf16}",
                            fast_dtype_name(a->pse->dtype));
    return FIA_OK;
}

/* Layer 5, after the layout, the cache and the mask (the plan holds B, N,
 * Q_S, D and KV_S, page attention's maxBlockNumPerSeq x block_size).  An
 * empty pse is absent (RELEASED); a token layout refused it already.
 * 002 pseShiftOptional and 约束说明: Q_S > 1 pairs an fp16 pse with an fp16
 * or int8 query and a bf16 one with a bf16 query, shape (B or 1, N, >= Q_S,
 * >= KV_S); Q_S = 1 the query's dtype, (B or 1, N, 1, >= KV_S), D a
 * multiple of 16. */
fia_status fast_check_pse_shape(const fast_args *a, fast_plan *p,
                                fia_error *err)
{
    const fia_tensor *t = a->pse;
    if (!fast_present(t) || p->tnd.on)
        return FIA_OK;
    const fia_dtype qd = a->query->dtype;
    const bool decode = p->Q_S == 1;
    if (!decode && ((t->dtype == FIA_DT_FP16 && qd != FIA_DT_FP16 &&
                     qd != FIA_DT_INT8) ||
                    (t->dtype == FIA_DT_BF16 && qd != FIA_DT_BF16)))
        return FAST_REJECT("S_PSE_DTYPE", "pse_shift %s with a %s query",
                           fast_dtype_name(t->dtype), fast_dtype_name(qd));
    if (decode && t->dtype != qd)
        return FAST_REJECT("S_PSE_DTYPE", "Q_S = 1: pse_shift %s with a %s query",
                           fast_dtype_name(t->dtype), fast_dtype_name(qd));
    /* the released code also takes one head for all (a public report,
     * vllm-ascend #15503); check_pse_heads refuses to compute it */
    const bool one_head = a->profile == FIA_PROFILE_CANN && t->ndim == 4 &&
                          t->shape[1] == 1;
    if (t->ndim != 4 || (t->shape[0] != 1 && t->shape[0] != p->B) ||
        (t->shape[1] != p->N && !one_head))
        return FAST_REJECT("S_PSE_SHAPE", "pse_shift is not (B or 1, N=%lld, ., .)",
                           (long long)p->N);
    const int64_t rows = t->shape[2], cols = t->shape[3];
    const bool broadcast_heads = one_head && p->N > 1;
    if (!broadcast_heads && (decode ? rows != 1 || cols < p->KV_S
                                    : rows < p->Q_S || cols < p->KV_S))
        return FAST_REJECT("S_PSE_SHAPE", "pse_shift's S dims (%lld, %lld) do not "
                           "cover (Q_S, KV_S) = (%lld, %lld)", (long long)rows,
                           (long long)cols, (long long)p->Q_S, (long long)p->KV_S);
    if (decode && p->D % 16 != 0)
        return FAST_REJECT("S_PSE_D", "Q_S = 1 with pse_shift: D %lld is not a "
                           "multiple of 16", (long long)p->D);
    if (broadcast_heads)
        return FIA_OK; /* refused at layer 6 (fast_check_pse_heads) */
    /* The plan's view (no data read here; phase two checks it has data).
     * The pse's dtype is dt (an int8 query's plan sets dt fp16, the
     * pse's: fast_plan_int8_quant).  Rows
     * past Q_S and columns past KV_S are never read. */
    p->pse.on = true;
    p->pse.data = (const uint16_t *)t->data;
    p->pse.sn = rows * cols;
    p->pse.sb = t->shape[0] == 1 ? 0 : p->N * rows * cols;
    p->pse.ss = decode ? 0 : cols;
    /* 002 (Q_S > 1), 000, RELEASED (both paths): an fp16 query with pse
     * runs in high precision whatever inner_precise bit 0 says, so P is
     * not rounded to fp16 before P.V (bf16 always rounds). */
    if (p->dt == FIA_DT_FP16)
        p->round_p = false;
    return FIA_OK;
}

/* Layer 6 (profile cann).  A pse_shift of one head for N > 1 heads: the
 * released code accepts it, no document says what it computes. */
fia_status fast_check_pse_heads(const fast_args *a, fast_plan *p,
                                fia_error *err)
{
    const fia_tensor *t = a->pse;
    if (a->profile == FIA_PROFILE_CANN && fast_present(t) && !p->tnd.on &&
        t->ndim == 4 && t->shape[1] == 1 && p->N > 1)
        return FAST_NOTMOD("M_PSE_HEADS", "a pse_shift of one head for %lld heads "
                           "is not computed", (long long)p->N);
    return FIA_OK;
}
