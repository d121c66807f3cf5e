/* store/: dropping what a user no longer wants (campaigns of a revision, a
 * system, a target, or older than a date or a revision; or only their
 * worst-case texts) and giving the space back (VACUUM).
 *
 * A campaign goes with everything that belongs to it: its accuracy rows,
 * samples, worst cases, rule coverage and sightings.  A finding loses the
 * sightings of the pruned campaigns (its count shrinks by them) and goes
 * when none is left; one sighted elsewhere too stays, with its triage. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "store_int.h"

/* The selected campaigns into temp.prune_ids, in the caller's
 * transaction. */
static int select_campaigns(fia_store *s, const fia_store_prune_filter *f)
{
    int rc = store_exec(s, "CREATE TEMP TABLE IF NOT EXISTS prune_ids("
                           " id INTEGER PRIMARY KEY);"
                           "DELETE FROM temp.prune_ids");
    if (rc != FIA_OK)
        return rc;
    int64_t before = f->before;
    if (f->before_revision != NULL) {
        sqlite3_stmt *q = store_prepare(
            s, "SELECT min(started) FROM campaigns WHERE revision = ?1");
        if (q == NULL)
            return FIA_ERR_IO;
        store_bind_text(q, 1, f->before_revision);
        int r = store_step(s, q);
        int none = r == SQLITE_ROW && sqlite3_column_type(q, 0) == SQLITE_NULL;
        if (r == SQLITE_ROW && !none)
            before = sqlite3_column_int64(q, 0);
        sqlite3_finalize(q);
        if (r != SQLITE_ROW)
            return store_sqlfail(s, r, "finding the revision's campaigns");
        if (none)
            return store_fail(s, FIA_ERR_NOT_FOUND,
                              "no campaign at revision '%s'",
                              f->before_revision);
    }
    sqlite3_stmt *st = store_prepare(
        s, "INSERT INTO temp.prune_ids SELECT id FROM campaigns"
           " WHERE (?1 IS NULL OR revision = ?1)"
           " AND (?2 = 0 OR started < ?2)"
           " AND (?3 IS NULL OR sut = ?3)"
           " AND (?4 IS NULL OR target = ?4)");
    if (st == NULL)
        return FIA_ERR_IO;
    store_bind_text(st, 1, f->revision);
    sqlite3_bind_int64(st, 2, before);
    store_bind_text(st, 3, f->sut);
    store_bind_text(st, 4, f->target);
    rc = store_step(s, st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? FIA_OK
                             : store_sqlfail(s, rc, "selecting campaigns");
}

/* One statement of the prune; *n (may be NULL) receives the rows it
 * changed. */
static int exec_count(fia_store *s, const char *sql, int64_t *n)
{
    int rc = store_exec(s, sql);
    if (rc == FIA_OK && n != NULL)
        *n = sqlite3_changes(s->db);
    return rc;
}

static int prune_txn(fia_store *s, const fia_store_prune_filter *f,
                     fia_store_prune_counts *c)
{
    int rc = select_campaigns(s, f);
    if (rc != FIA_OK)
        return rc;
    sqlite3_stmt *st = store_prepare(s, "SELECT count(*) FROM temp.prune_ids");
    if (st == NULL)
        return FIA_ERR_IO;
    if (store_step(s, st) == SQLITE_ROW)
        c->campaigns = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc == FIA_OK)
        rc = exec_count(s, "DELETE FROM accuracy_worst WHERE campaign_id IN"
                           " (SELECT id FROM temp.prune_ids)",
                        &c->worst_cases);
    if (rc != FIA_OK || f->worst_only)
        return rc;
    static const char *const per_campaign[] = {
        "DELETE FROM accuracy WHERE campaign_id IN"
        " (SELECT id FROM temp.prune_ids)",
        "DELETE FROM rule_coverage WHERE campaign_id IN"
        " (SELECT id FROM temp.prune_ids)",
        /* the findings that lose sightings, and how many */
        "CREATE TEMP TABLE IF NOT EXISTS prune_findings("
        " id INTEGER PRIMARY KEY, lost INTEGER NOT NULL);"
        "DELETE FROM temp.prune_findings;"
        "INSERT INTO temp.prune_findings SELECT finding_id, sum(count)"
        " FROM sightings WHERE campaign_id IN (SELECT id FROM temp.prune_ids)"
        " GROUP BY finding_id",
        "UPDATE findings SET count = max(count - (SELECT lost FROM"
        " temp.prune_findings p WHERE p.id = findings.id), 0),"
        " campaign_id = iif(campaign_id IN (SELECT id FROM temp.prune_ids),"
        "  0, campaign_id)"
        " WHERE id IN (SELECT id FROM temp.prune_findings)",
        NULL};
    for (const char *const *q = per_campaign; rc == FIA_OK && *q; q++)
        rc = store_exec(s, *q);
    if (rc == FIA_OK)
        rc = exec_count(s, "DELETE FROM accuracy_samples WHERE campaign_id IN"
                           " (SELECT id FROM temp.prune_ids)",
                        &c->samples);
    if (rc == FIA_OK)
        rc = exec_count(s, "DELETE FROM sightings WHERE campaign_id IN"
                           " (SELECT id FROM temp.prune_ids)",
                        &c->sightings);
    if (rc == FIA_OK)
        rc = exec_count(s, "DELETE FROM findings WHERE id IN"
                           " (SELECT id FROM temp.prune_findings) AND NOT"
                           " EXISTS (SELECT 1 FROM sightings g"
                           "  WHERE g.finding_id = findings.id)",
                        &c->findings);
    if (rc == FIA_OK)
        rc = store_exec(s, "DELETE FROM campaigns WHERE id IN"
                           " (SELECT id FROM temp.prune_ids)");
    return rc;
}

fia_status fia_store_prune(fia_store *s, const fia_store_prune_filter *f,
                           fia_store_prune_counts *out)
{
    if (s == NULL)
        return FIA_ERR_BAD_INPUT;
    if (f == NULL ||
        (!f->all && f->revision == NULL && f->before == 0 &&
         f->before_revision == NULL && f->sut == NULL && f->target == NULL))
        return store_fail(s, FIA_ERR_BAD_INPUT,
                          "prune wants which campaigns (a revision, a date, "
                          "a system, a target, or all)");
    if (f->before < 0 || (f->before != 0 && f->before_revision != NULL))
        return store_fail(s, FIA_ERR_BAD_INPUT,
                          "prune takes one date or one revision to prune "
                          "before");
    fia_store_prune_counts c;
    memset(&c, 0, sizeof c);
    int rc = store_begin(s);
    if (rc != FIA_OK)
        return rc;
    rc = store_finish(s, prune_txn(s, f, &c));
    if (rc == FIA_OK && out != NULL)
        *out = c;
    return rc;
}

/* The bytes of the file and its WAL on disk. */
static int64_t bytes_on_disk(const char *path)
{
    struct stat sb;
    char wal[4200];
    int64_t n = stat(path, &sb) == 0 ? (int64_t)sb.st_size : 0;
    snprintf(wal, sizeof wal, "%s-wal", path);
    if (stat(wal, &sb) == 0)
        n += (int64_t)sb.st_size;
    return n;
}

fia_status fia_store_vacuum(fia_store *s, int64_t *before, int64_t *after)
{
    if (s == NULL)
        return FIA_ERR_BAD_INPUT;
    if (s->readonly)
        return store_fail(s, FIA_ERR_BAD_INPUT, "opened read-only");
    if (s->batch)
        return store_fail(s, FIA_ERR_BAD_INPUT, "cannot vacuum in a batch");
    if (before)
        *before = bytes_on_disk(s->path);
    s->wrote = 1;
    /* VACUUM rewrites the file through the WAL; the checkpoint then
     * copies it back and truncates both */
    int rc = store_exec(s, "VACUUM");
    if (rc == FIA_OK) {
        int r = sqlite3_wal_checkpoint_v2(s->db, NULL,
                                          SQLITE_CHECKPOINT_TRUNCATE, NULL,
                                          NULL);
        if (r != SQLITE_OK)
            rc = store_sqlfail(s, r, "checkpointing after the vacuum");
    }
    if (after)
        *after = bytes_on_disk(s->path);
    return rc;
}
