/* ref/ reading, feature "lse": softmax_lse_flag and the softmax_lse output,
 * fp32 [B, N, Q_S, 1] (002 softmaxLse), or the case's own descriptor when
 * it is fp32 with the same number of elements.  Element (b, n, i) is at
 * (b N + n) Q_S + i either way, i the physical row (left padding:
 * ref_pad_q_row). */
#include <string.h>
#include "ref_internal.h"

fia_status ref_read_lse(ref_problem *p, const fia_case *c,
                        const fia_case_data *d, fia_error *err)
{
    p->has_lse = c->attrs.softmax_lse_flag;
    if (!p->has_lse)
        return FIA_OK;
    const fia_tensor *l = fia_case_data_tensor(d, FIA_SLOT_SOFTMAX_LSE);
    int64_t want;
    if (p->tnd ? __builtin_mul_overflow(p->T, p->N, &want)
               : (__builtin_mul_overflow(p->B, p->N, &want) ||
                  __builtin_mul_overflow(want, p->Q_S, &want)))
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "softmax_lse size overflows");
    /* value, exact double and flag per element */
    if (want > FIA_MATERIALIZE_LIMIT / 13)
        return fia_fail(err, FIA_ERR_NOMEM,
                        "softmax_lse of %lld elements is beyond the "
                        "reference's memory limit", (long long)want);
    if (l) {
        if (l->dtype != FIA_DT_FP32 || fia_tensor_numel(l) != want)
            return fia_fail(err, FIA_ERR_PARAM_INVALID,
                            "softmax_lse must be fp32 with B*N*Q_S elements");
        p->lse_ndim = l->ndim;
        memcpy(p->lse_shape, l->shape, sizeof p->lse_shape);
    } else if (p->tnd) {
        p->lse_ndim = 3; /* 003 §返回值说明: (T, N, 1) */
        p->lse_shape[0] = p->T, p->lse_shape[1] = p->N, p->lse_shape[2] = 1;
    } else {
        p->lse_ndim = 4;
        p->lse_shape[0] = p->B, p->lse_shape[1] = p->N;
        p->lse_shape[2] = p->Q_S, p->lse_shape[3] = 1;
    }
    return FIA_OK;
}

int64_t ref_lse_index(const ref_problem *p, int64_t b, int64_t n, int64_t i)
{
    if (p->tnd)
        return (p->q_tok[b] + i) * p->N + n;
    return (b * p->N + n) * p->Q_S + ref_pad_q_row(p, b, i);
}
