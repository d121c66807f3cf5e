/* tnd in the run: value's head dim below the query's (003 §约束说明, the
 * token layouts' list: TND Q_D = K_D = 192 with V_D 128; NTD_TND alike;
 * RELEASED "Layouts, head dims": 192/128, attention_out then of value's D).
 *
 * The attention of such a call is
 *
 *   s_j = scale * sum_{d < Dq} q[d] k_j[d],   out[d] = sum_j p_j v_j[d],
 *   d < Dv,
 *
 * the score over the query's and key's Dq columns, P.V and attention_out
 * over value's Dv < Dq.  That is MLA's computation (run_mla.c): a Q.K^T
 * reduction of Dk columns beside a V and an output of D columns, the Dk -
 * D columns past the D read from a second source at its own strides.
 * Here the second source is the query's and key's own row, Dv columns on:
 * rope.q = q + Dv and rope.k = k + Dv with the query's and key's strides
 * (fast_rope_plan).  So the
 * register-tiled Q.K^T, the dot form, kv_pre, the softmax, the splits and
 * their merge run unchanged at every ISA level; the fused decode kernel,
 * which reads K's D columns in place, is not taken (as with a rope:
 * attention.c task_keys).  Value's rows keep their own strides (v_own:
 * fast_v_row), attention_out has Dv (executor.c). */
#include "fast_internal.h"

void fast_plan_narrow_value(fast_plan *p)
{
    const int64_t Dq = p->D, Dv = p->tnd.Dv;
    /* value [T_kv, KV_N, Dv] or [KV_N, T_kv, Dv] */
    p->v_own = true;
    p->v_sn = p->tnd.q_ntd ? p->tnd.T_kv * Dv : Dv;
    p->v_ss = p->tnd.q_ntd ? Dv : p->KV_N * Dv;
    /* the Q and K columns [Dv, Dq): their own rows, Dv elements on (no
     * data in a status-only run: the phase-two check of q / k refuses it
     * first) */
    p->rope.D = Dq - Dv;
    p->rope.q = p->q ? (const uint16_t *)p->q + Dv : NULL;
    p->rope.k = p->k ? (const uint16_t *)p->k + Dv : NULL;
    p->rope.q_numel = p->q_numel, p->rope.k_numel = p->kv_numel;
    p->rope.q_sb = p->q_sb, p->rope.q_sn = p->q_sn, p->rope.q_ss = p->q_ss;
    p->rope.k_sb = p->k_sb, p->rope.k_sn = p->k_sn, p->rope.k_ss = p->k_ss;
    p->rope.k_sblk = 0; /* never a cache */
    p->D = Dv;
}
