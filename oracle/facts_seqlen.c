/* oracle/facts_seqlen: actual_seq_lengths and actual_seq_lengths_kv, and the
 * effective length of each batch they give. */
#include "oracle_internal.h"

int64_t orc_used_count(int64_t count, int64_t B)
{
    if (count == 1)
        return 1;
    if (B >= 0 && count >= B && count > 0)
        return B;
    return 0;
}

static int64_t eff_len(int given, int64_t count, const int64_t *v, int64_t b,
                       int64_t B, int64_t dflt)
{
    if (!given || v == NULL)
        return dflt;
    if (count == 1)
        return v[0];
    if (count >= B && b >= 0 && b < count)
        return v[b];
    return dflt;
}

/* A token layout's batch b: the difference of two cumulative counts. */
static int64_t tnd_len(const int64_t *v, int64_t b)
{
    return v[b] - (b > 0 ? v[b - 1] : 0);
}

int64_t orc_q_len(const fia_oracle_facts *f, int64_t b)
{
    if (f->tnd)
        return f->cum_ok && b >= 0 && b < f->B ? tnd_len(f->seq, b) : 0;
    if (f->path == ORC_PATH_DECODE)
        return 1; /* ignored on the decode path */
    return eff_len(f->seq_given, f->seq_count, f->seq, b, f->B, f->Q_S);
}

int64_t orc_kv_len(const fia_oracle_facts *f, int64_t b)
{
    if (f->tnd && !f->paged)
        return f->cum_ok && b >= 0 && b < f->B ? tnd_len(f->kv_seq, b) : 0;
    if (f->tnd) /* a paged token layout: per-batch lengths (facts_tnd.c) */
        return f->cum_ok && b >= 0 && b < f->B ? f->kv_seq[b] : 0;
    /* a list's batch reads its own tensor's S by default */
    int64_t dflt = f->list_ok && b >= 0 && b < ORC_LIST_MAX ? f->list_s[b]
                                                             : f->KV_S;
    return eff_len(f->kv_seq_given, f->kv_seq_count, f->kv_seq, b, f->B,
                   dflt);
}

void orc_facts_seqlen(const fia_case *c, fia_oracle_facts *f)
{
    const fia_int_array_spec *a = &c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS];
    f->seq_given = a->presence == FIA_PRESENT;
    f->seq_count = f->seq_given ? a->count : 0;
    f->seq = f->seq_given ? a->values : NULL;
    if (f->seq == NULL)
        f->seq_count = 0;
    a = &c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    f->kv_seq_given = a->presence == FIA_PRESENT;
    f->kv_seq_count = f->kv_seq_given ? a->count : 0;
    f->kv_seq = f->kv_seq_given ? a->values : NULL;
    if (f->kv_seq == NULL)
        f->kv_seq_count = 0;
}
