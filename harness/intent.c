/* Case intents: does a case exercise what its `intent` line says?
 *
 * Each intent (include/fia/case.h FIA_INTENT_LIST, defined in
 * docs/case-format.md "Intents") is a property of the problem as the
 * REFERENCE reads it (fia_ref_visit_keys: which keys take part in each
 * row, the effective lengths, the heads) and of the case's data, or, for
 * `rejected`, of the oracle's verdict.  fast/ is never asked: a case must
 * not be judged by the implementation it tests.  One walk over the rows
 * gathers everything; the checkers then read the tallies.
 *
 * The key block: the spec documents no block size for the NPU kernel, so
 * beyond_key_block and split_decode use 64, the common key block of flash
 * attention kernels (fast/'s block too, but the harness does not read
 * fast/'s internals, and fast/ has no public accessor for it). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fia/check.h"
#include "fia/ref.h"

#define KEY_BLOCK 64

/* What the walk over the rows found (first occurrences, with where). */
typedef struct tally {
    fia_ref_dims dims;
    int64_t rows;                  /* rows taking part (not padding) */
    int64_t fully_masked;          /* of those, rows with no key */
    fia_ref_key_row fm;            /* the first fully masked row */
    int64_t max_nk;
    int ragged_row;                /* a row with > 64 keys, not k*64 */
    fia_ref_key_row rr;
    int live;                      /* a NaN/inf element taking part */
    char live_where[96];
    int64_t nonfinite_keys;        /* keys holding NaN/inf (any row) */
    int masked_read;               /* one read by a row, masked in another */
    char masked_where[128];
    int64_t q_min, q_max, kv_min, kv_max;
    /* the current (batch, KV head): per key j < kv_len */
    int64_t gb, gh, glen;
    uint8_t *bad, *taken, *masked; /* NaN/inf; takes part; excluded */
    int64_t cap;
} tally;

static int nonfinite_row(const double *x, int64_t D)
{
    for (int64_t d = 0; d < D; d++)
        if (!isfinite(x[d]))
            return 1;
    return 0;
}

/* The keys of the previous (batch, KV head): one read by a row and
 * masked for another, holding NaN/inf. */
static void flush_group(tally *t)
{
    for (int64_t j = 0; j < t->glen && !t->masked_read; j++)
        if (t->bad[j] && t->taken[j] && t->masked[j]) {
            t->masked_read = 1;
            snprintf(t->masked_where, sizeof t->masked_where, "key %lld of "
                     "batch %lld, KV head %lld holds NaN/inf, takes part in "
                     "a row and is masked for another", (long long)j,
                     (long long)t->gb, (long long)t->gh);
        }
    t->glen = 0;
}

/* A new (batch, KV head): its key rows' NaN/inf flags, once. */
static int start_group(tally *t, const fia_ref_key_row *row)
{
    flush_group(t);
    if (row->kv_len > t->cap) {
        int64_t n = row->kv_len;
        uint8_t *m = realloc(t->bad, (size_t)n * 3);
        if (m == NULL)
            return FIA_ERR_NOMEM;
        t->bad = m, t->taken = m + n, t->masked = m + 2 * n, t->cap = n;
    }
    t->gb = row->b, t->gh = row->kv_head, t->glen = row->kv_len;
    int64_t D = t->dims.D, Dv = t->dims.Dv;
    for (int64_t j = 0; j < t->glen; j++) {
        t->bad[j] = nonfinite_row(row->k + j * D, D) ||
                    nonfinite_row(row->v + j * Dv, Dv);
        t->nonfinite_keys += t->bad[j];
        t->taken[j] = t->masked[j] = 0;
    }
    return 0;
}

static int visit(const fia_ref_key_row *row, void *ctx)
{
    tally *t = ctx;
    if (row->b != t->gb || row->kv_head != t->gh) {
        int st = start_group(t, row);
        if (st != 0)
            return st;
    }
    if (t->q_max < 0 || row->q_len < t->q_min) t->q_min = row->q_len;
    if (t->q_max < 0 || row->q_len > t->q_max) t->q_max = row->q_len;
    if (t->kv_max < 0 || row->kv_len < t->kv_min) t->kv_min = row->kv_len;
    if (t->kv_max < 0 || row->kv_len > t->kv_max) t->kv_max = row->kv_len;
    if (row->padding)
        return 0;
    t->rows++;
    if (row->nk == 0 && t->fully_masked++ == 0)
        t->fm = *row;
    if (row->nk > t->max_nk)
        t->max_nk = row->nk;
    if (!t->ragged_row && row->nk > KEY_BLOCK && row->nk % KEY_BLOCK != 0)
        t->ragged_row = 1, t->rr = *row;
    if (!t->live && row->nk > 0 && nonfinite_row(row->q, t->dims.D)) {
        t->live = 1;
        snprintf(t->live_where, sizeof t->live_where, "query row (b %lld, "
                 "n %lld, i %lld) holds NaN/inf", (long long)row->b,
                 (long long)row->n, (long long)row->i);
    }
    /* keys ascending: the ones between them are excluded from this row */
    int64_t at = 0;
    for (int64_t j = 0; j < row->kv_len; j++) {
        if (at < row->nk && row->keys[at] == j) {
            at++;
            t->taken[j] = 1;
            if (t->bad[j] && !t->live) {
                t->live = 1;
                snprintf(t->live_where, sizeof t->live_where, "key %lld of "
                         "batch %lld, KV head %lld holds NaN/inf and takes "
                         "part in row %lld", (long long)j, (long long)row->b,
                         (long long)row->kv_head, (long long)row->i);
            }
        } else {
            t->masked[j] = 1;
        }
    }
    return 0;
}

static void say(fia_intent_result *ir, int met, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ir->met = met;
    vsnprintf(ir->found, sizeof ir->found, fmt, ap);
    va_end(ap);
}

static void judge_fully_masked(const tally *t, fia_intent_result *ir)
{
    if (t->fully_masked > 0)
        say(ir, 1, "%lld of %lld rows have no key taking part, the first "
            "(b %lld, n %lld, i %lld) with lse %s", (long long)t->fully_masked,
            (long long)t->rows, (long long)t->fm.b, (long long)t->fm.n,
            (long long)t->fm.i, t->fm.lse_inf ? "+inf" : "unspecified");
    else
        say(ir, 0, "every one of the %lld rows that take part keeps at least "
            "one key", (long long)t->rows);
}

static void judge_ragged_seqlen(const tally *t, fia_intent_result *ir)
{
    /* lengths that differ: the shorter are below the S they are read from
     * (the key tensor's, or P + its with a shared prefix, whose P keys the
     * visited kv_len counts) */
    int q = t->q_min != t->q_max;
    int kv = t->kv_min != t->kv_max;
    say(ir, q || kv, "actual_seq_lengths %lld..%lld of Q_S %lld, keys "
        "%lld..%lld (KV_S %lld) over %lld batches",
        (long long)t->q_min, (long long)t->q_max, (long long)t->dims.Q_S,
        (long long)t->kv_min, (long long)t->kv_max, (long long)t->dims.KV_S,
        (long long)t->dims.B);
}

/* One intent that needs the rows, judged from the tallies. */
static void judge_rows(fia_intent i, const tally *t, fia_intent_result *ir)
{
    const fia_ref_dims *g = &t->dims;
    switch (i) {
    case FIA_INTENT_FULLY_MASKED_ROWS:
        judge_fully_masked(t, ir);
        break;
    case FIA_INTENT_MASKED_NONFINITE_READ:
        if (t->masked_read)
            say(ir, 1, "%s", t->masked_where);
        else
            say(ir, 0, "%lld keys hold NaN/inf; none takes part in a row and "
                "is masked for another", (long long)t->nonfinite_keys);
        break;
    case FIA_INTENT_NONFINITE_LIVE:
        if (t->live)
            say(ir, 1, "%s", t->live_where);
        else
            say(ir, 0, "no query, key or value row taking part holds NaN/inf");
        break;
    case FIA_INTENT_BEYOND_KEY_BLOCK:
        if (t->ragged_row)
            say(ir, 1, "row (b %lld, n %lld, i %lld) reads %lld keys "
                "(%lld blocks of %d + %lld)", (long long)t->rr.b,
                (long long)t->rr.n, (long long)t->rr.i, (long long)t->rr.nk,
                (long long)(t->rr.nk / KEY_BLOCK), KEY_BLOCK,
                (long long)(t->rr.nk % KEY_BLOCK));
        else
            say(ir, 0, "no row reads more than %d keys with a ragged tail "
                "(the most: %lld)", KEY_BLOCK, (long long)t->max_nk);
        break;
    case FIA_INTENT_SPLIT_DECODE:
        say(ir, g->Q_S == 1 && t->max_nk >= 2 * KEY_BLOCK, "Q_S %lld, at "
            "most %lld keys in a row (split decode: Q_S 1 and >= %d)",
            (long long)g->Q_S, (long long)t->max_nk, 2 * KEY_BLOCK);
        break;
    case FIA_INTENT_RAGGED_SEQLEN:
        judge_ragged_seqlen(t, ir);
        break;
    case FIA_INTENT_GQA_GROUP:
        say(ir, g->KV_N > 0 && g->N / g->KV_N > 1, "N %lld, KV_N %lld",
            (long long)g->N, (long long)g->KV_N);
        break;
    default:
        break;
    }
}

/* The walk over the rows into *t: FIA_OK, or why the rows cannot be read
 * (*err). */
static fia_status walk(const fia_case *c, const fia_case_data *d, tally *t,
                       fia_error *err)
{
    memset(t, 0, sizeof *t);
    t->q_max = t->kv_max = -1;
    t->gb = t->gh = -1;
    fia_status st = fia_ref_visit_keys(c, d, &t->dims, visit, t, err);
    if (st == FIA_ERR_NOMEM && err->msg[0] == '\0')
        fia_fail(err, st, "out of memory (intent tallies)");
    if (st == FIA_OK)
        flush_group(t);
    free(t->bad);
    t->bad = NULL;
    return st;
}

void fia_check_intents(const fia_case *c, const fia_case_data *d,
                       const char *not_read, fia_check_result *r)
{
    r->n_intents = 0;
    if (c->intents == 0 || !r->evaluated)
        return;
    int rows_needed = (c->intents & ~(1u << FIA_INTENT_REJECTED)) != 0;
    int rejected = r->ov.expected != FIA_OK &&
                   r->ov.expected != FIA_ERR_NOT_MODELED;
    tally t;
    fia_error err;
    fia_error_clear(&err);
    fia_status st = FIA_OK;
    if (rows_needed && r->ov.accept && d != NULL)
        st = walk(c, d, &t, &err);
    for (int i = 0; i < FIA_INTENT_COUNT; i++) {
        if (!(c->intents & (1u << i)))
            continue;
        fia_intent_result *ir = &r->intents[r->n_intents++];
        memset(ir, 0, sizeof *ir);
        ir->intent = (fia_intent)i;
        if (i == FIA_INTENT_REJECTED)
            say(ir, rejected, "expected %d %s", r->ov.expected,
                fia_status_name(r->ov.expected));
        else if (r->ov.not_modeled)
            say(ir, -1, "not checked: not modeled yet");
        else if (!r->ov.accept)
            say(ir, 0, "the operator rejects the case (expected %d %s): no "
                "row is computed", r->ov.expected,
                fia_status_name(r->ov.expected));
        else if (d == NULL)
            say(ir, -1, "not checked: %s", not_read);
        else if (st != FIA_OK)
            say(ir, -1, "not checked: the reference does not read the case: "
                "%s", err.msg);
        else
            judge_rows((fia_intent)i, &t, ir);
    }
}
