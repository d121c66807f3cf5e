/* actual_seq_lengths and actual_seq_lengths_kv in a generated case.
 * Fragment contract: fuzz/gen.h. */
#include "fuzz/gen.h"

/* fuzz_params' arrays are at most this long (a length around B, which
 * may be huge: clamped, which the edges around B do not need). */
#define SEQ_ARRAY_MAX 64

/* ---- fuzz_params ------------------------------------------------------------ */

void fz_params_seq_array(fz_gen *g, fia_array a, int pct, int64_t S)
{
    fz_bytes *f = g->f;
    if (!fz_bytes_chance(f, pct))
        return;
    if (fz_odd(g, 4)) {
        fz_case_array_null(g->c, a);
        return;
    }
    static const int w[] = {30, 45, 5, 5, 4};
    int64_t len, B = g->B;
    switch (fz_wpick(g, w, FZ_ARRLEN(w), 2)) {
    case 0: len = 1; break;
    case 1: len = B; break;
    case 2: len = B + 1; break;
    case 3: len = B - 1; break;
    default: len = 0; break;
    }
    if (len < 0 || len > SEQ_ARRAY_MAX)
        len = len < 0 ? 0 : SEQ_ARRAY_MAX;
    int64_t v[SEQ_ARRAY_MAX];
    for (int64_t i = 0; i < len; i++) {
        static const int vw[] = {80, 6, 5, 4, 5};
        switch (fz_wpick(g, vw, FZ_ARRLEN(vw), 2)) {
        case 0: v[i] = fz_bytes_range(f, 0, S < 4096 ? S : 4096); break;
        case 1: v[i] = S; break;
        case 2: v[i] = S + 1; break;
        case 3: v[i] = -1; break;
        default: v[i] = 0; break;
        }
    }
    fz_note(g, fz_case_array(g->c, a, len, v));
}

/* Each absent mostly (the query's more so in decode), else a length
 * around B and values around the limit. */
void fz_params_seqlen(fz_gen *g)
{
    fz_params_seq_array(g, FIA_ARR_ACTUAL_SEQ_LENGTHS, g->qs1 ? 10 : 25, g->Q_S);
    fz_params_seq_array(g, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, 25, g->KV_S);
}

/* ---- fuzz_numeric ----------------------------------------------------------- */

/* Each now and then (the query's not in decode): per batch the full length
 * or less; one value for all batches now and then (more often for the
 * metamorphic target, whose seqlen-expand writes it out). */
void fz_numeric_seqlen(fz_gen *g)
{
    fz_bytes *f = g->f;
    int64_t ql[FZ_NUM_MAX_B], kl[FZ_NUM_MAX_B];
    for (int a = 0; a < 2; a++) {
        int64_t S = a ? g->KV_S : g->Q_S, *len = a ? kl : ql;
        int present = !(a == 0 && g->qs1) && fz_bytes_chance(f, 35);
        int one = fz_bytes_chance(f, g->meta ? 50 : 30);
        for (int64_t b = 0; b < g->B; b++)
            len[b] = present ? (fz_bytes_chance(f, 30) ? S : fz_bytes_range(f, 0, S)) : S;
        if (a == 1 && g->reach == FZ_REACH_HUGE) {
            /* a few live rows per batch: the last batch's lie past 2^32 */
            present = 1;
            one = 0;
            for (int64_t b = 0; b < g->B; b++)
                len[b] = 1 + (len[b] & 31);
        }
        if (present && one)
            for (int64_t b = 1; b < g->B; b++)
                len[b] = len[0];
        if (present)
            fz_note(g, fz_case_array(g->c, a ? FIA_ARR_ACTUAL_SEQ_LENGTHS_KV
                                        : FIA_ARR_ACTUAL_SEQ_LENGTHS,
                                one ? 1 : g->B, len));
    }
}
