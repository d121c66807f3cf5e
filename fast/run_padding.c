/* padding: at run time, where each batch's rows lie under query / kv left
 * padding (docs/features/padding.md).  The padding values are device data:
 * phase one only knows which scenes take effect (check_padding.c); here,
 * before anything runs, element 0 of each scene's tensor is read and every
 * batch gets the physical row of its row 0,
 *     q_start[b]  = Q_S  - p_q  - q_len[b],
 *     kv_start[b] = KV_S - p_kv - kv_len[b],
 * in the executor's storage (the executor is consumed by the run).  The
 * kernel reads query row i at q_start + i, key j at kv_start + j (the
 * fast_q_phys / fast_kv_row of fast_internal.h, run_output.c, run_mask.c);
 * everything else stays in the logical rows. */
#include "fast_internal.h"

/* The first row of len valid rows followed by pad padding rows on an axis
 * of S rows: S - pad - len, or -1 when that lies before row 0.  pad is
 * whatever the device holds (INT64_MIN .. INT64_MAX): below 0 it is 0 (002:
 * "小于0时将被置为0"), and pad > S - len decides "before row 0" without
 * forming S - pad - len (len is in [0, S]: check_seqlen.c). */
static int64_t start_row(int64_t S, int64_t pad, int64_t len)
{
    const int64_t room = S - len;
    if (pad < 0)
        pad = 0;
    return pad > room ? -1 : room - pad;
}

fia_status fast_padding_apply(fast_plan *p, fia_error *err)
{
    if (p->empty || (!p->padding.q_scene && !p->padding.kv_scene))
        return FIA_OK;
    /* a status-only run carries no data (executor.c's checks alike) */
    if ((p->padding.q_scene && p->padding.q_pad == NULL) ||
        (p->padding.kv_scene && p->padding.kv_pad == NULL))
        return fast_fail(err, FIA_ERR_RUNTIME_ERROR, "R_NO_DATA",
                         "%s has no data",
                         p->padding.q_scene && p->padding.q_pad == NULL
                             ? "query_padding_size"
                             : "kv_padding_size");
    /* one value for every batch (the documents give the tensor no shape) */
    const int64_t pq = p->padding.q_scene ? p->padding.q_pad[0] : 0;
    const int64_t pkv = p->padding.kv_scene ? p->padding.kv_pad[0] : 0;
    for (int64_t b = 0; b < p->B; b++) {
        int64_t qs =
            p->padding.q_scene ? start_row(p->Q_S, pq, p->q_len[b]) : 0;
        int64_t ks =
            p->padding.kv_scene ? start_row(p->KV_S, pkv, p->kv_len[b]) : 0;
        if (qs < 0 || ks < 0) {
            /* A start below 0: at Q_S = 1 the batch's output is 0 (002
             * "搬运起点或终点小于0时，返回数据结果为全0"; 001), the path of
             * an empty key sequence; at Q_S > 1 its rows are unspecified
             * (002 / 000 "否则结果将不符合预期"): no row of it is computed,
             * its rows are written as padding rows (zeros), in bounds. */
            if (p->Q_S == 1)
                p->kv_len[b] = 0;
            else
                p->q_len[b] = 0;
            qs = ks = 0;
        }
        if (p->padding.q_start)
            p->padding.q_start[b] = qs;
        if (p->padding.kv_start)
            p->padding.kv_start[b] = ks;
    }
    return FIA_OK;
}
