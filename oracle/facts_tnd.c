/* oracle/facts_tnd: the 003 token layouts (TND, TND_NTD, NTD_TND and the
 * released code's NTD).  No batch axis: the query is [T, N, D] (TND,
 * TND_NTD) or [N, T, D] (NTD, NTD_TND), key and value the same with their
 * own T and D, and the length arrays are cumulative token counts (003
 * §参数说明 > actual_seq_qlen: "每个元素的值表示当前Batch与之前所有Batch的
 * seqlen和"), their count the batch B -- but for a paged cache (MLA, D =
 * 512), where actual_seq_lengths_kv holds per-batch lengths.  Runs after
 * facts_seqlen.c and facts_paged.c. */
#include <string.h>
#include "oracle_internal.h"

/* The array is a cumulative count over count >= 1 batches ending at T. */
static int cumulative_ok(const int64_t *v, int64_t count, int64_t T)
{
    if (v == NULL || count < 1)
        return 0;
    for (int64_t i = 0; i < count; i++)
        if (v[i] < 0 || (i > 0 && v[i] < v[i - 1]))
            return 0;
    return v[count - 1] == T;
}

/* Per-batch lengths (a paged token layout): count >= 1, none negative. */
static int lengths_ok(const int64_t *v, int64_t count)
{
    if (v == NULL || count < 1)
        return 0;
    for (int64_t i = 0; i < count; i++)
        if (v[i] < 0)
            return 0;
    return 1;
}

static int64_t longest(const int64_t *v, int64_t count)
{
    int64_t m = 0;
    for (int64_t i = 0; i < count; i++) {
        int64_t len = v[i] - (i > 0 ? v[i - 1] : 0);
        m = len > m ? len : m;
    }
    return m;
}

void orc_facts_tnd(const fia_case *c, fia_oracle_facts *f)
{
    (void)c;
    f->VD = f->VT = f->VN = f->T = f->T_kv = -1;
    if (!f->tnd)
        return;
    f->path = ORC_PATH_TND;
    const fia_tensor *q = f->t[FIA_SLOT_QUERY];
    const fia_tensor *k = f->t[FIA_SLOT_KEY], *v = f->t[FIA_SLOT_VALUE];
    int ti = f->q_ntd ? 1 : 0, ni = f->q_ntd ? 0 : 1;
    if (q && q->ndim == 3) {
        f->T = q->shape[ti];
        f->QN = q->shape[ni];
        f->D = q->shape[2];
        f->q_d_ok = 1;
    }
    if (k && !f->paged && k->ndim == 3) {
        f->T_kv = k->shape[ti];
        f->KN = k->shape[ni];
        f->KD = k->shape[2];
        f->k_d_ok = 1;
    }
    if (v && !f->paged && v->ndim == 3) {
        f->VT = v->shape[ti];
        f->VN = v->shape[ni];
        f->VD = v->shape[2];
        f->v_d_ok = 1;
    }
    /* page attention (MLA's D = 512 only, rules_mla.c): the key is a
     * cache and actual_seq_lengths_kv holds each batch's own length (003
     * TND list, D = 512: "代表每个batch的实际长度") */
    f->cum_ok = f->q_d_ok && (f->k_d_ok || f->paged) && f->seq_given &&
                f->kv_seq_given && f->seq_count == f->kv_seq_count &&
                cumulative_ok(f->seq, f->seq_count, f->T) &&
                (f->paged ? lengths_ok(f->kv_seq, f->kv_seq_count)
                          : cumulative_ok(f->kv_seq, f->kv_seq_count, f->T_kv));
    if (!f->cum_ok)
        return;
    f->B = f->KB = f->seq_count;
    f->Q_S = longest(f->seq, f->seq_count);
    f->q_rank_ok = 1;
    if (f->paged) {
        orc_paged_blocks(f); /* KV_S, k_rank_ok */
        return;
    }
    f->KV_S = longest(f->kv_seq, f->kv_seq_count);
    f->k_rank_ok = 1;
}
