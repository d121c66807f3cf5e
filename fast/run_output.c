/* output (and lse): where the results of row (b, n, i) go
 * (docs/features/output.md, lse.md).  attention_out's strides come from the
 * layout (executor.c); softmax_lse is [B, N, Q_S, 1] float32.  Row i is
 * physical row fast_q_phys (left padding: docs/features/padding.md). */
#include "fast_internal.h"

uint16_t *fast_out_row(const fast_plan *p, int64_t b, int64_t n, int64_t i)
{
    const int64_t base = p->tnd ? p->q_tok[b] * p->o_ss : b * p->o_sb;
    return (uint16_t *)p->out + base + n * p->o_sn +
           fast_q_phys(p, b, i) * p->o_ss;
}

void fast_store_lse(const fast_plan *p, int64_t b, int64_t n, int64_t i,
                    double x)
{
    if (p->lse != NULL && p->tnd) /* (T, N, 1) */
        p->lse[(p->q_tok[b] + i) * p->N + n] = (float)x;
    else if (p->lse != NULL)
        p->lse[(b * p->N + n) * p->Q_S + fast_q_phys(p, b, i)] = (float)x;
}

/* Output 0 exactly, lse +inf. */
void fast_store_zero(const fast_plan *p, int64_t b, int64_t n, int64_t i)
{
    memset(fast_out_row(p, b, n, i), 0, (size_t)p->D * sizeof(uint16_t));
    fast_store_lse(p, b, n, i, INFINITY);
}
