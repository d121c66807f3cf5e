/* MLA's rope in the run (check_mla.c; fast_internal.h, the plan's Dr):
 * the score is (q.k + q_rope.k_rope) * scale (RELEASED "Numeric
 * pipeline"), computed as one reduction over Dk = D + Dr columns: the
 * rope's columns widened right after the D columns of every Q and K float
 * row (attention.c: the task's Q, the per-block K, kv_pre's K; key rows
 * through fast_mla_widen_k, attention_task.h), so the register-tiled
 * Q.K^T, the softmax, the splits and the merge are those of any call.  V
 * and attention_out keep D.  The fused decode kernel reads K's D columns
 * in place and is not taken with a rope. */
#include "attention_task.h"

void fast_mla_load_q(const fast_plan *p, const fast_kernels *kern,
                     const task *k, scratch *w, int r0, int rn,
                     const uint16_t *const *qrows)
{
    const uint16_t *rows[16];
    for (int r = 0; r < rn; r++) {
        int64_t b, n, i;
        task_row(p, k, r0 + r, &b, &n, &i);
        rows[r] = qrows[r] == NULL
                      ? NULL
                      : (const uint16_t *)p->qr + fast_qr_row(p, b, n, i);
    }
    if (!k->dot) { /* Q^T: rows D .. Dk - 1, columns r0 .. r0 + 15 */
        kern->widen_t(p->dt, rows, rn, p->Dr, w->q + p->D * p->L + r0, p->L);
        return;
    }
    for (int r = 0; r < rn; r++)
        if (rows[r] != NULL)
            kern->widen(p->dt, rows[r], w->q + (r0 + r) * p->Dp + p->D,
                        p->Dr);
}
