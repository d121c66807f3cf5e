/* store/: reading — findings, campaigns, summary, accuracy and coverage.
 * The regression query is in store_regress.c. */
#include <stdlib.h>
#include <string.h>
#include "store_int.h"

/* Steps st calling row(st) for each row until it returns non-zero. */
static int each_row(fia_store *s, sqlite3_stmt *st,
                    int (*row)(sqlite3_stmt *st, void *ctx), void *ctx,
                    const char *what)
{
    int rc;
    while ((rc = store_step(s, st)) == SQLITE_ROW)
        if (row(st, ctx) != 0)
            return FIA_OK;
    if (rc != SQLITE_DONE)
        return store_sqlfail(s, rc, what);
    return FIA_OK;
}

fia_status fia_store_get_finding(fia_store *s, int64_t id, fia_store_finding *out)
{
    if (s == NULL || out == NULL)
        return FIA_ERR_BAD_INPUT;
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st = store_prepare(
        s, "SELECT " STORE_FINDING_COLS " FROM findings f WHERE f.id = ?");
    if (st == NULL)
        return FIA_ERR_IO;
    sqlite3_bind_int64(st, 1, id);
    int rc = store_step(s, st);
    if (rc == SQLITE_ROW) {
        rc = store_row_finding(st, out, 1) == 0
                 ? FIA_OK
                 : store_fail(s, FIA_ERR_NOMEM, "out of memory");
    } else if (rc == SQLITE_DONE) {
        rc = store_fail(s, FIA_ERR_NOT_FOUND, "no finding with id %lld",
                        (long long)id);
    } else {
        rc = store_sqlfail(s, rc, "reading a finding");
    }
    sqlite3_finalize(st);
    return rc;
}

typedef struct finding_ctx {
    fia_store_finding_cb cb;
    void *ctx;
} finding_ctx;

static int finding_row(sqlite3_stmt *st, void *ctx)
{
    finding_ctx *c = ctx;
    fia_store_finding f;
    store_row_finding(st, &f, 0);
    return c->cb(&f, c->ctx);
}

fia_status fia_store_list_findings(fia_store *s, const fia_store_filter *filter,
                                   fia_store_finding_cb cb, void *ctx)
{
    if (s == NULL || cb == NULL)
        return FIA_ERR_BAD_INPUT;
    fia_store_filter none = {0};
    if (filter == NULL)
        filter = &none;
    sqlite3_stmt *st = store_prepare(
        s, "SELECT " STORE_FINDING_COLS " FROM findings f"
           " WHERE (?1 IS NULL OR f.state = ?1)"
           " AND (?2 IS NULL OR f.kind = ?2)"
           " AND (?3 IS NULL OR f.target = ?3)"
           " AND (?4 IS NULL OR EXISTS (SELECT 1 FROM sightings g"
           "  WHERE g.finding_id = f.id AND g.revision = ?4))"
           " ORDER BY f.id");
    if (st == NULL)
        return FIA_ERR_IO;
    store_bind_text(st, 1, filter->state);
    store_bind_text(st, 2, filter->kind);
    store_bind_text(st, 3, filter->target);
    store_bind_text(st, 4, filter->revision);
    finding_ctx c = {cb, ctx};
    int rc = each_row(s, st, finding_row, &c, "listing findings");
    sqlite3_finalize(st);
    return rc;
}

typedef struct campaign_ctx {
    int (*cb)(const fia_store_campaign *c, void *ctx);
    void *ctx;
} campaign_ctx;

static int campaign_row(sqlite3_stmt *st, void *ctx)
{
    campaign_ctx *c = ctx;
    fia_store_campaign k = {
        .id = sqlite3_column_int64(st, 0),
        .revision = store_col_text(st, 1),
        .target = store_col_text(st, 2),
        .profile = store_col_text(st, 3),
        .tolerance = store_col_text(st, 4),
        .command = store_col_text(st, 5),
        .seed = (uint64_t)sqlite3_column_int64(st, 6),
        .started = sqlite3_column_int64(st, 7),
        .updated = sqlite3_column_int64(st, 8),
        .execs = sqlite3_column_int64(st, 9),
        .coverage = sqlite3_column_int64(st, 10),
        .seconds = sqlite3_column_double(st, 11),
        .finished = sqlite3_column_int(st, 12),
        .findings = sqlite3_column_int64(st, 13),
        .ttff = sqlite3_column_type(st, 14) == SQLITE_NULL
                    ? -1.0 : sqlite3_column_double(st, 14),
    };
    return c->cb(&k, c->ctx);
}

fia_status fia_store_list_campaigns(fia_store *s,
                                    int (*cb)(const fia_store_campaign *c, void *ctx),
                                    void *ctx)
{
    if (s == NULL || cb == NULL)
        return FIA_ERR_BAD_INPUT;
    sqlite3_stmt *st = store_prepare(
        s, "SELECT c.id, c.revision, c.target, c.profile, c.tolerance,"
           " c.command, c.seed, c.started, c.updated, c.execs, c.coverage,"
           " c.seconds, c.finished, (SELECT COALESCE(sum(g.count), 0)"
           "  FROM sightings g WHERE g.campaign_id = c.id), c.ttff"
           " FROM campaigns c ORDER BY c.id");
    if (st == NULL)
        return FIA_ERR_IO;
    campaign_ctx c = {cb, ctx};
    int rc = each_row(s, st, campaign_row, &c, "listing campaigns");
    sqlite3_finalize(st);
    return rc;
}

fia_status fia_store_campaign_by_uuid(fia_store *s, const char *uuid, int64_t *id)
{
    if (s == NULL || uuid == NULL)
        return FIA_ERR_BAD_INPUT;
    sqlite3_stmt *st = store_prepare(s, "SELECT id FROM campaigns WHERE uuid = ?");
    if (st == NULL)
        return FIA_ERR_IO;
    store_bind_text(st, 1, uuid);
    int rc = store_step(s, st);
    if (rc == SQLITE_ROW && id != NULL)
        *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return FIA_OK;
    if (rc == SQLITE_DONE)
        return store_fail(s, FIA_ERR_NOT_FOUND, "no campaign %s", uuid);
    return store_sqlfail(s, rc, "looking up a campaign");
}

fia_status fia_store_get_summary(fia_store *s, fia_store_summary *out)
{
    if (s == NULL || out == NULL)
        return FIA_ERR_BAD_INPUT;
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st = store_prepare(
        s, "SELECT (SELECT count(*) FROM campaigns),"
           " (SELECT COALESCE(sum(execs), 0) FROM campaigns),"
           " (SELECT COALESCE(sum(seconds), 0) FROM campaigns),"
           " count(*), COALESCE(sum(state = 'open'), 0),"
           " COALESCE(sum(state = 'fixed'), 0),"
           " COALESCE(sum(state = 'regressed'), 0), COALESCE(sum(count), 0),"
           " (SELECT COALESCE(sum(cases), 0) FROM accuracy) FROM findings");
    if (st == NULL)
        return FIA_ERR_IO;
    int rc = store_step(s, st);
    if (rc == SQLITE_ROW) {
        out->campaigns = sqlite3_column_int64(st, 0);
        out->execs = sqlite3_column_int64(st, 1);
        out->seconds = sqlite3_column_double(st, 2);
        out->findings = sqlite3_column_int64(st, 3);
        out->open = sqlite3_column_int64(st, 4);
        out->fixed = sqlite3_column_int64(st, 5);
        out->regressed = sqlite3_column_int64(st, 6);
        out->sightings = sqlite3_column_int64(st, 7);
        out->accuracy_cases = sqlite3_column_int64(st, 8);
        rc = FIA_OK;
    } else {
        rc = store_sqlfail(s, rc, "summarizing");
    }
    sqlite3_finalize(st);
    return rc;
}

/* Accuracy per (revision, bucket) over the campaigns; ?1 NULL: every
 * revision.  Rows without a campaign have revision "". */
static const char accuracy_sql[] =
    "SELECT COALESCE(c.revision, '') AS rev,"
    " a.bucket, sum(a.cases), max(a.max_ulp), sum(a.sum_ulp) / sum(a.cases),"
    " max(a.max_rel_err) FROM accuracy a"
    " LEFT JOIN campaigns c ON c.id = a.campaign_id"
    " WHERE ?1 IS NULL OR c.revision = ?1"
    " GROUP BY rev, a.bucket ORDER BY rev, a.bucket";

static void accuracy_from(sqlite3_stmt *st, int col, fia_store_accuracy *a)
{
    a->cases = sqlite3_column_int64(st, col);
    a->max_ulp = sqlite3_column_double(st, col + 1);
    a->mean_ulp = sqlite3_column_double(st, col + 2);
    a->max_rel_err = sqlite3_column_double(st, col + 3);
}

typedef struct accuracy_ctx {
    int (*cb)(const fia_store_accuracy *a, void *ctx);
    void *ctx;
} accuracy_ctx;

static int accuracy_row(sqlite3_stmt *st, void *ctx)
{
    accuracy_ctx *c = ctx;
    fia_store_accuracy a = {.revision = store_col_text(st, 0),
                            .bucket = store_col_text(st, 1)};
    accuracy_from(st, 2, &a);
    return c->cb(&a, c->ctx);
}

fia_status fia_store_list_accuracy(fia_store *s, const char *revision,
                                   int (*cb)(const fia_store_accuracy *a, void *ctx),
                                   void *ctx)
{
    if (s == NULL || cb == NULL)
        return FIA_ERR_BAD_INPUT;
    sqlite3_stmt *st = store_prepare(s, accuracy_sql);
    if (st == NULL)
        return FIA_ERR_IO;
    store_bind_text(st, 1, revision);
    accuracy_ctx c = {cb, ctx};
    int rc = each_row(s, st, accuracy_row, &c, "listing accuracy");
    sqlite3_finalize(st);
    return rc;
}

typedef struct coverage_ctx {
    int (*cb)(const char *rule_id, int64_t broken, int64_t obeyed, void *ctx);
    void *ctx;
} coverage_ctx;

static int coverage_row(sqlite3_stmt *st, void *ctx)
{
    coverage_ctx *c = ctx;
    return c->cb(store_col_text(st, 0), sqlite3_column_int64(st, 1),
                 sqlite3_column_int64(st, 2), c->ctx);
}

fia_status fia_store_list_rule_coverage(fia_store *s, const char *revision,
                                        int (*cb)(const char *rule_id, int64_t broken,
                                           int64_t obeyed, void *ctx),
                                        void *ctx)
{
    if (s == NULL || cb == NULL)
        return FIA_ERR_BAD_INPUT;
    sqlite3_stmt *st = store_prepare(
        s, "SELECT r.rule_id, sum(r.broken), sum(r.obeyed)"
           " FROM rule_coverage r LEFT JOIN campaigns c"
           " ON c.id = r.campaign_id WHERE ?1 IS NULL OR c.revision = ?1"
           " GROUP BY r.rule_id ORDER BY r.rule_id");
    if (st == NULL)
        return FIA_ERR_IO;
    store_bind_text(st, 1, revision);
    coverage_ctx c = {cb, ctx};
    int rc = each_row(s, st, coverage_row, &c, "listing rule coverage");
    sqlite3_finalize(st);
    return rc;
}
