/* MLA's rope in the run (check_mla.c; fast_internal.h, the plan's rope):
 * the score is (q.k + q_rope.k_rope) * scale (RELEASED "Numeric
 * pipeline"), computed as one reduction over Dk = D + rope.D columns: the
 * rope's columns widened right after the D columns of every Q and K float
 * row (attention.c: the task's Q, the per-block K, kv_pre's K; key rows
 * through fast_mla_widen_k, attention_task.h), so the register-tiled
 * Q.K^T, the softmax, the splits and the merge are those of any call.  V
 * and attention_out keep D.  The fused decode kernel reads K's D columns
 * in place and is not taken with a rope.  An NZ cache's rows (each D / 16
 * tiles of 16, block_size * 16 apart) are widened a block's run at a
 * time, tile by tile (fast_mla_nz_rows). */
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
                      : (const uint16_t *)p->rope.q + fast_qr_row(p, b, n, i);
    }
    if (!k->dot) { /* Q^T: rows D .. Dk - 1, columns r0 .. r0 + 15 */
        kern->widen_t(p->dt, rows, rn, p->rope.D, w->q + p->D * p->sched.L + r0,
                      p->sched.L);
        return;
    }
    for (int r = 0; r < rn; r++)
        if (rows[r] != NULL)
            kern->widen(p->dt, rows[r], w->q + (r0 + r) * p->sched.Dp + p->D,
                        p->rope.D);
}

/* An NZ cache's run of rows of one block, own keys j .. j + run - 1 of
 * (b, kvh), widened into the rows of kd, vd (stride ldd), the key's rope
 * after its D columns: tile by tile, each tile's rows one contiguous
 * stream (kernels.h widen_mla_nz), which the hardware prefetcher follows.
 * Returns whether every V row is finite; vbad (NULL: not wanted) gets
 * each V row's own answer. */
bool fast_mla_nz_rows(const fast_plan *p, const fast_kernels *kern,
                      int64_t b, int64_t kvh, int64_t j, int run, float *kd,
                      float *vd, int64_t ldd, uint8_t *vbad)
{
    const uint16_t *kr, *vr;
    fast_kv_src(p, b, kvh, j, &kr, &vr);
    kern->widen_mla_nz(p->dt, kr, p->page.k_sd, run, kd, ldd, p->D);
    if (p->rope.D > 0)
        kern->widen_mla_nz(
            p->dt, (const uint16_t *)p->rope.k + fast_kr_row(p, b, kvh, j),
            p->page.kr_sd, run, kd + p->D, ldd, p->rope.D);
    const bool fin =
        kern->widen_mla_nz(p->dt, vr, p->page.k_sd, run, vd, ldd, p->D);
    for (int r = 0; vbad != NULL && r < run; r++) /* rare: row by row */
        vbad[r] =
            !fin && !kern->widen_mla_nz(p->dt, vr + r * p->k_ss, p->page.k_sd,
                                        1, vd + r * ldd, ldd, p->D);
    return fin;
}
