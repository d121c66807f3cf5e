/* ref/ reading, feature "seqlen": the effective lengths per batch.
 *
 * q_len[b] from actual_seq_lengths, kv_len[b] from actual_seq_lengths_kv
 * (one value for every batch, or at least B values; each within [0, S]);
 * the full Q_S / KV_S when absent.  Decode (Q_S = 1) ignores
 * actual_seq_lengths: q_len = 1.  Query rows i >= q_len[b] are padding rows
 * (ref_rows.c), keys j >= kv_len[b] take part in no row: with a shared
 * prefix, logical keys j >= P + kv_len[b] (read_prefix.c). */
#include <stdlib.h>
#include "ref_internal.h"

/* len[0..B) from array a, or S. */
static fia_status read_lengths(const fia_case_data *d, fia_array a,
                               int64_t B, int64_t S, int64_t *len,
                               const char *what, fia_error *err)
{
    if (!d->arr_present[a]) {
        for (int64_t b = 0; b < B; b++)
            len[b] = S;
        return FIA_OK;
    }
    const fia_int_array *ar = &d->arr[a];
    if (ar->count <= 0 || (ar->count != 1 && ar->count < B))
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "%s has %lld values for batch %lld", what,
                        (long long)ar->count, (long long)B);
    for (int64_t b = 0; b < B; b++) {
        int64_t v = ar->values[ar->count == 1 ? 0 : b];
        if (v < 0 || v > S)
            return fia_fail(err, FIA_ERR_PARAM_INVALID,
                            "%s[%lld] = %lld outside [0, %lld]", what,
                            (long long)b, (long long)v, (long long)S);
        len[b] = v;
    }
    return FIA_OK;
}

fia_status ref_read_seqlen(ref_problem *p, const fia_case *c,
                           const fia_case_data *d, fia_error *err)
{
    (void)c;
    if (p->tnd)
        return FIA_OK; /* cumulative counts, read with the dims (read_tnd.c) */
    /* B is bounded by the materialized sizes */
    p->q_len = malloc((size_t)p->B * sizeof *p->q_len);
    p->kv_len = malloc((size_t)p->B * sizeof *p->kv_len);
    if (!p->q_len || !p->kv_len)
        return fia_fail(err, FIA_ERR_NOMEM, "out of memory");
    if (p->decode) {
        for (int64_t b = 0; b < p->B; b++)
            p->q_len[b] = 1; /* actual_seq_lengths ignored */
    } else {
        fia_status st = read_lengths(d, FIA_ARR_ACTUAL_SEQ_LENGTHS, p->B,
                                     p->Q_S, p->q_len, "actual_seq_lengths",
                                     err);
        if (st != FIA_OK)
            return st;
    }
    return read_lengths(d, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, p->B, p->KV_S,
                        p->kv_len, "actual_seq_lengths_kv", err);
}

int ref_seqlen_admits(const ref_problem *p, int64_t b, int64_t i, int64_t j)
{
    (void)i;
    return j < ref_kv_len(p, b); /* the shared prefix's P included */
}
