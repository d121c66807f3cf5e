/* store/: merging stores into one, all or nothing, idempotently.
 *
 * Each source is opened read-only on its own connection and its rows are
 * copied by identity (see fia_store_merge_files in include/fia/store.h):
 * campaigns by UUID, findings by signature, sightings by finding x campaign
 * x revision, accuracy by campaign x bucket, coverage by campaign x rule,
 * benchmark figures by run x name.
 * Rows of one campaign in two files are two snapshots of one growing
 * history: the larger is kept, never the sum, so merging a file again (or
 * a copy of it) changes nothing.  No ATTACH: it is refused inside a
 * transaction, and the whole command must be one transaction. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "store_int.h"

/* Campaign ids of the source -> ids in s, sorted by source id. */
typedef struct campaign_map {
    int64_t (*pair)[2];
    size_t n, cap;
} campaign_map;

static int64_t map_campaign(const campaign_map *m, int64_t id)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->pair[mid][0] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* 0 (no campaign) and ids of campaigns the source does not have */
    return lo < m->n && m->pair[lo][0] == id ? m->pair[lo][1] : 0;
}

/* Steps a write statement of s to its end; the message names what. */
static int step_done(fia_store *s, sqlite3_stmt *st, const char *what)
{
    int r = store_step(s, st);
    if (r != SQLITE_DONE && r != SQLITE_ROW)
        return store_sqlfail(s, r, what);
    sqlite3_reset(st);
    return FIA_OK;
}

/* The state after merging two histories of one signature.  A fixed mark
 * wins over sightings older than it; a sighting newer than the mark means
 * the signature came back (regressed). */
static const char *merged_state(const char *a, int64_t a_changed,
                                int64_t a_last, const char *b,
                                int64_t b_changed, int64_t b_last,
                                int64_t *changed)
{
    int ar = strcmp(a, "regressed") == 0, br = strcmp(b, "regressed") == 0;
    int af = strcmp(a, "fixed") == 0, bf = strcmp(b, "fixed") == 0;
    *changed = a_changed > b_changed ? a_changed : b_changed;
    if (ar || br) {
        *changed = ar && br ? *changed : ar ? a_changed : b_changed;
        return "regressed";
    }
    if (af && bf)
        return "fixed";
    if (af || bf) {
        int64_t fixed_at = af ? a_changed : b_changed;
        int64_t other_last = af ? b_last : a_last;
        if (other_last > fixed_at) {
            *changed = other_last;
            return "regressed";
        }
        *changed = fixed_at;
        return "fixed";
    }
    *changed = a_changed < b_changed ? a_changed : b_changed;
    return "open";
}

/* Inserts or updates the finding of the current row of `from` (its
 * columns STORE_FINDING_COLS, then the sum of its sightings in the source);
 * *id receives its id in s.  The count is settled with the sightings. */
static int merge_finding(fia_store *s, sqlite3_stmt *from,
                         const campaign_map *map, int64_t *id)
{
    fia_store_finding b;
    store_row_finding(from, &b, 0);
    int64_t b_sighted = sqlite3_column_int64(from, 19);
    int64_t campaign = map_campaign(map, b.campaign_id);
    sqlite3_stmt *st = store_prepare(
        s, "SELECT " STORE_FINDING_COLS " FROM main.findings f"
           " WHERE f.signature = ?");
    if (st == NULL)
        return FIA_ERR_IO;
    store_bind_text(st, 1, b.signature);
    int rc = store_step(s, st);
    sqlite3_stmt *w = NULL;
    if (rc == SQLITE_DONE) {
        *id = 0;
        w = store_prepare(
            s, "INSERT INTO main.findings(signature, kind, state, target,"
               " profile, revision, last_revision, campaign_id, first_seen,"
               " last_seen, count, state_changed, seed, case_text,"
               " minimized_text, metrics_json, message, sut) VALUES (?1, ?2,"
               " ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,"
               " ?16, ?17, ?18)");
        if (w != NULL) {
            const char *txt[] = {b.signature, b.kind, b.state, b.target,
                                 b.profile, b.revision, b.last_revision};
            for (int i = 0; i < 7; i++)
                store_bind_text(w, i + 1, txt[i]);
            sqlite3_bind_int64(w, 8, campaign);
            sqlite3_bind_int64(w, 9, b.first_seen);
            sqlite3_bind_int64(w, 10, b.last_seen);
            /* the part of the count its sightings do not carry; they are
             * added after */
            sqlite3_bind_int64(w, 11, b.count - b_sighted);
            sqlite3_bind_int64(w, 12, b.state_changed);
            sqlite3_bind_int64(w, 13, (int64_t)b.seed);
            store_bind_text(w, 14, b.case_text);
            store_bind_text(w, 15, b.minimized_text);
            store_bind_text(w, 16, b.metrics_json);
            store_bind_text(w, 17, b.message);
            store_bind_text(w, 18, b.sut);
        }
    } else if (rc == SQLITE_ROW) {
        fia_store_finding a;
        store_row_finding(st, &a, 0);
        *id = a.id;
        int64_t changed;
        const char *state =
            merged_state(a.state, a.state_changed, a.last_seen, b.state,
                         b.state_changed, b.last_seen, &changed);
        /* strict comparisons: on a tie s keeps its own, so a second merge
         * of the same file changes nothing */
        int b_first = b.first_seen < a.first_seen;
        int b_last = b.last_seen > a.last_seen;
        int b_case = strlen(b.case_text) < strlen(a.case_text);
        const char *mini = a.minimized_text;
        if (mini == NULL ||
            (b.minimized_text && strlen(b.minimized_text) < strlen(mini)))
            mini = b.minimized_text;
        const fia_store_finding *c = b_case ? &b : &a;
        w = store_prepare(
            s, "UPDATE main.findings SET"
               " first_seen = ?2, last_seen = ?3, revision = ?4,"
               " campaign_id = ?5, last_revision = ?6, state = ?7,"
               " state_changed = ?8, minimized_text = ?9, case_text = ?10,"
               " seed = ?11, metrics_json = ?12, message = ?13, target = ?14,"
               " profile = ?15 WHERE id = ?16");
        if (w != NULL) {
            sqlite3_bind_int64(w, 2, b_first ? b.first_seen : a.first_seen);
            sqlite3_bind_int64(w, 3, b_last ? b.last_seen : a.last_seen);
            store_bind_text(w, 4, b_first ? b.revision : a.revision);
            sqlite3_bind_int64(w, 5, b_first ? campaign : a.campaign_id);
            store_bind_text(w, 6, b_last ? b.last_revision : a.last_revision);
            store_bind_text(w, 7, state);
            sqlite3_bind_int64(w, 8, changed);
            store_bind_text(w, 9, mini);
            store_bind_text(w, 10, c->case_text);
            sqlite3_bind_int64(w, 11, (int64_t)c->seed);
            store_bind_text(w, 12, c->metrics_json);
            store_bind_text(w, 13, c->message);
            store_bind_text(w, 14, c->target);
            store_bind_text(w, 15, c->profile);
            sqlite3_bind_int64(w, 16, a.id);
        }
    } else {
        sqlite3_finalize(st);
        return store_sqlfail(s, rc, "merging a finding");
    }
    /* w is stepped while st still holds the row a's strings point into */
    rc = FIA_ERR_IO;
    if (w != NULL) {
        rc = step_done(s, w, "merging a finding");
        if (rc == FIA_OK && *id == 0)
            *id = sqlite3_last_insert_rowid(s->db);
    }
    sqlite3_finalize(w);
    sqlite3_finalize(st);
    return rc;
}

static int64_t sighted(fia_store *s, int64_t id)
{
    sqlite3_stmt *st = store_prepare(
        s, "SELECT COALESCE(sum(count), 0) FROM main.sightings"
           " WHERE finding_id = ?");
    int64_t n = -1;
    if (st == NULL)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    if (store_step(s, st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    else
        store_sqlfail(s, sqlite3_errcode(s->db), "counting sightings");
    sqlite3_finalize(st);
    return n;
}

/* The sightings of source finding src_id into finding id of s, keeping the
 * larger of two snapshots of one key; the finding's count grows by what
 * its sightings grew. */
static int merge_sightings(fia_store *s, fia_store *src, int64_t src_id,
                           int64_t id, const campaign_map *map)
{
    int64_t before = sighted(s, id);
    if (before < 0)
        return FIA_ERR_IO;
    sqlite3_stmt *r = store_prepare(
        src, "SELECT campaign_id, revision, count, first_seen, last_seen"
             " FROM sightings WHERE finding_id = ?");
    if (r == NULL)
        return store_fail(s, FIA_ERR_IO, "%s", fia_store_errmsg(src));
    sqlite3_stmt *w = store_prepare(
        s, "INSERT INTO main.sightings(finding_id, campaign_id, revision,"
           " count, first_seen, last_seen) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
           " ON CONFLICT (finding_id, campaign_id, revision) DO UPDATE SET"
           " count = max(count, excluded.count),"
           " first_seen = min(first_seen, excluded.first_seen),"
           " last_seen = max(last_seen, excluded.last_seen)");
    int rc = w == NULL ? FIA_ERR_IO : FIA_OK, k = SQLITE_DONE;
    sqlite3_bind_int64(r, 1, src_id);
    while (rc == FIA_OK && (k = store_step(src, r)) == SQLITE_ROW) {
        sqlite3_bind_int64(w, 1, id);
        sqlite3_bind_int64(w, 2,
                           map_campaign(map, sqlite3_column_int64(r, 0)));
        store_bind_text(w, 3, store_col_text(r, 1));
        for (int i = 2; i < 5; i++)
            sqlite3_bind_int64(w, i + 2, sqlite3_column_int64(r, i));
        rc = step_done(s, w, "merging sightings");
    }
    if (rc == FIA_OK && k != SQLITE_DONE) {
        store_sqlfail(src, k, "reading sightings");
        rc = store_fail(s, store_code_of(k), "%s", fia_store_errmsg(src));
    }
    sqlite3_finalize(w);
    sqlite3_finalize(r);
    int64_t after = rc == FIA_OK ? sighted(s, id) : -1;
    if (after < 0)
        return rc != FIA_OK ? rc : FIA_ERR_IO;
    if (after == before)
        return FIA_OK;
    w = store_prepare(s, "UPDATE main.findings SET count = count + ?"
                         " WHERE id = ?");
    if (w == NULL)
        return FIA_ERR_IO;
    sqlite3_bind_int64(w, 1, after - before);
    sqlite3_bind_int64(w, 2, id);
    rc = step_done(s, w, "merging a finding's count");
    sqlite3_finalize(w);
    return rc;
}

/* Copies rows of one source query into s by a write statement: column i of
 * the query is bound to parameter i + 1, column 0 being a campaign id that
 * is mapped first. */
static int copy_rows(fia_store *s, fia_store *src, const char *query,
                     const char *write, const campaign_map *map,
                     const char *what)
{
    sqlite3_stmt *r = store_prepare(src, query);
    if (r == NULL)
        return store_fail(s, FIA_ERR_IO, "%s", fia_store_errmsg(src));
    sqlite3_stmt *w = store_prepare(s, write);
    int rc = w == NULL ? FIA_ERR_IO : FIA_OK, k = SQLITE_DONE;
    while (rc == FIA_OK && (k = store_step(src, r)) == SQLITE_ROW) {
        for (int i = 0; i < sqlite3_column_count(r); i++) {
            if (i == 0 && map != NULL)
                sqlite3_bind_int64(
                    w, 1, map_campaign(map, sqlite3_column_int64(r, 0)));
            else
                sqlite3_bind_value(w, i + 1, sqlite3_column_value(r, i));
        }
        rc = step_done(s, w, what);
    }
    if (rc == FIA_OK && k != SQLITE_DONE) {
        store_sqlfail(src, k, what);
        rc = store_fail(s, store_code_of(k), "%s", fia_store_errmsg(src));
    }
    sqlite3_finalize(w);
    sqlite3_finalize(r);
    return rc;
}

/* Campaigns by UUID: a new one is added, a known one takes the progress of
 * the later snapshot.  Fills map (source id -> id in s). */
static int merge_campaigns(fia_store *s, fia_store *src, campaign_map *map)
{
    sqlite3_stmt *r = store_prepare(
        src, "SELECT id, COALESCE(uuid, fia_row_uuid(id, revision, target,"
             " profile, tolerance, seed, command, started)), revision, target, profile, tolerance, seed,"
             " command, started, updated, execs, coverage, seconds, finished,"
             " ttff, sut, harness_revision FROM campaigns ORDER BY id");
    if (r == NULL)
        return store_fail(s, FIA_ERR_IO, "%s", fia_store_errmsg(src));
    sqlite3_stmt *w = store_prepare(
        s, "INSERT INTO main.campaigns(uuid, revision, target, profile,"
           " tolerance, seed, command, started, updated, execs, coverage,"
           " seconds, finished, ttff, sut, harness_revision) VALUES (?1, ?2,"
           " ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"
           " ON CONFLICT (uuid) DO UPDATE SET"
           " execs = iif(excluded.updated > updated, excluded.execs, execs),"
           " coverage = iif(excluded.updated > updated, excluded.coverage,"
           "  coverage),"
           " seconds = iif(excluded.updated > updated, excluded.seconds,"
           "  seconds),"
           " finished = max(finished, excluded.finished),"
           " ttff = COALESCE(min(ttff, excluded.ttff), ttff, excluded.ttff),"
           " updated = max(updated, excluded.updated)"
           " RETURNING id");
    int rc = w == NULL ? FIA_ERR_IO : FIA_OK, k = SQLITE_DONE;
    while (rc == FIA_OK && (k = store_step(src, r)) == SQLITE_ROW) {
        for (int i = 1; i < 17; i++)
            sqlite3_bind_value(w, i, sqlite3_column_value(r, i));
        int step = store_step(s, w);
        if (step != SQLITE_ROW) {
            rc = store_sqlfail(s, step, "merging a campaign");
            break;
        }
        if (map->n == map->cap) {
            size_t cap = map->cap ? 2 * map->cap : 64;
            void *p = realloc(map->pair, cap * sizeof *map->pair);
            if (p == NULL) {
                rc = store_fail(s, FIA_ERR_NOMEM, "out of memory");
                break;
            }
            map->pair = p;
            map->cap = cap;
        }
        map->pair[map->n][0] = sqlite3_column_int64(r, 0);
        map->pair[map->n][1] = sqlite3_column_int64(w, 0);
        map->n++;
        rc = step_done(s, w, "merging a campaign");
    }
    if (rc == FIA_OK && k != SQLITE_DONE) {
        store_sqlfail(src, k, "reading campaigns");
        rc = store_fail(s, store_code_of(k), "%s", fia_store_errmsg(src));
    }
    sqlite3_finalize(w);
    sqlite3_finalize(r);
    return rc;
}

static int merge_findings(fia_store *s, fia_store *src,
                          const campaign_map *map)
{
    sqlite3_stmt *r = store_prepare(
        src, "SELECT " STORE_FINDING_COLS ", (SELECT COALESCE(sum(g.count),"
             " 0) FROM sightings g WHERE g.finding_id = f.id)"
             " FROM findings f ORDER BY f.id");
    if (r == NULL)
        return store_fail(s, FIA_ERR_IO, "%s", fia_store_errmsg(src));
    int rc = FIA_OK, k = SQLITE_DONE;
    while (rc == FIA_OK && (k = store_step(src, r)) == SQLITE_ROW) {
        int64_t id = 0;
        rc = merge_finding(s, r, map, &id);
        if (rc == FIA_OK)
            rc = merge_sightings(s, src, sqlite3_column_int64(r, 0), id, map);
    }
    if (rc == FIA_OK && k != SQLITE_DONE) {
        store_sqlfail(src, k, "reading findings");
        rc = store_fail(s, store_code_of(k), "%s", fia_store_errmsg(src));
    }
    sqlite3_finalize(r);
    return rc;
}

/* The accuracy samples of one source: per (campaign, bucket) the larger of
 * the two snapshots replaces the other (samples have no identity of their
 * own, so merging what is already there must not add them twice). */
static int merge_accuracy_samples(fia_store *s, fia_store *src,
                                  const campaign_map *map)
{
    int rc = store_exec(s, "CREATE TEMP TABLE IF NOT EXISTS merge_samples("
                           "campaign_id INTEGER, bucket TEXT, ratio REAL,"
                           " case_key TEXT);"
                           "DELETE FROM temp.merge_samples");
    if (rc == FIA_OK)
        rc = copy_rows(s, src,
                       "SELECT campaign_id, bucket, ratio, case_key"
                       " FROM accuracy_samples",
                       "INSERT INTO temp.merge_samples VALUES (?1, ?2, ?3, ?4)",
                       map, "merging accuracy samples");
    if (rc == FIA_OK)
        rc = store_exec(
            s,
            "CREATE TEMP TABLE merge_keys AS SELECT campaign_id, bucket"
            " FROM temp.merge_samples t GROUP BY campaign_id, bucket"
            " HAVING count(*) > (SELECT count(*) FROM main.accuracy_samples m"
            "  WHERE m.campaign_id = t.campaign_id AND m.bucket = t.bucket);"
            "DELETE FROM main.accuracy_samples WHERE (campaign_id, bucket)"
            " IN (SELECT campaign_id, bucket FROM temp.merge_keys);"
            "INSERT INTO main.accuracy_samples(campaign_id, bucket, ratio,"
            " case_key) SELECT t.campaign_id, t.bucket, t.ratio, t.case_key"
            " FROM temp.merge_samples t"
            " JOIN temp.merge_keys k USING (campaign_id, bucket);"
            "DROP TABLE temp.merge_keys; DELETE FROM temp.merge_samples");
    return rc;
}

static int merge_one(fia_store *s, fia_store *src)
{
    campaign_map map = {NULL, 0, 0};
    int rc = merge_campaigns(s, src, &map);
    if (rc == FIA_OK)
        rc = merge_findings(s, src, &map);
    if (rc == FIA_OK)
        rc = copy_rows(
            s, src,
            "SELECT campaign_id, bucket, cases, max_ulp, sum_ulp, max_rel_err"
            " FROM accuracy",
            "INSERT INTO main.accuracy VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
            " ON CONFLICT (campaign_id, bucket) DO UPDATE SET"
            " max_ulp = iif(excluded.cases > cases, excluded.max_ulp,"
            "  max_ulp),"
            " sum_ulp = iif(excluded.cases > cases, excluded.sum_ulp,"
            "  sum_ulp),"
            " max_rel_err = iif(excluded.cases > cases, excluded.max_rel_err,"
            "  max_rel_err),"
            " cases = max(cases, excluded.cases)",
            &map, "merging accuracy");
    if (rc == FIA_OK)
        rc = copy_rows(
            s, src,
            "SELECT campaign_id, rule_id, broken, obeyed FROM rule_coverage",
            "INSERT INTO main.rule_coverage VALUES (?1, ?2, ?3, ?4)"
            " ON CONFLICT (campaign_id, rule_id) DO UPDATE SET"
            " broken = iif(excluded.broken + excluded.obeyed > broken + obeyed,"
            "  excluded.broken, broken),"
            " obeyed = iif(excluded.broken + excluded.obeyed > broken + obeyed,"
            "  excluded.obeyed, obeyed)",
            &map, "merging rule coverage");
    if (rc == FIA_OK)
        rc = merge_accuracy_samples(s, src, &map);
    if (rc == FIA_OK) /* a run's figures are written once, whole */
        rc = copy_rows(
            s, src,
            "SELECT run_uuid, revision, machine, suite, started, command,"
            " name, value, unit, ratio, ratio_of FROM bench_figures",
            "INSERT OR IGNORE INTO main.bench_figures VALUES (?1, ?2, ?3, ?4,"
            " ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            NULL, "merging benchmark figures");
    if (rc == FIA_OK)
        rc = copy_rows(
            s, src,
            "SELECT campaign_id, bucket, ratio, case_text FROM accuracy_worst",
            "INSERT INTO main.accuracy_worst VALUES (?1, ?2, ?3, ?4)"
            " ON CONFLICT (campaign_id, bucket) DO UPDATE SET"
            " ratio = excluded.ratio, case_text = excluded.case_text"
            " WHERE excluded.ratio > ratio",
            &map, "merging the worst cases");
    /* the cap holds for a merged campaign as for one written here */
    for (size_t i = 0; rc == FIA_OK && i < map.n; i++)
        rc = store_trim_worst(s, map.pair[i][1]);
    free(map.pair);
    return rc;
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

fia_status fia_store_merge_files(fia_store *s, const char *const *paths, int n)
{
    if (s == NULL)
        return FIA_ERR_BAD_INPUT;
    if (paths == NULL || n < 1)
        return store_fail(s, FIA_ERR_BAD_INPUT, "nothing to merge");
    if (s->batch)
        return store_fail(s, FIA_ERR_BAD_INPUT, "cannot merge in a batch");
    for (int i = 0; i < n; i++) {
        if (paths[i] == NULL)
            return store_fail(s, FIA_ERR_BAD_INPUT, "nothing to merge");
        if (same_file(s->path, paths[i]))
            return store_fail(s, FIA_ERR_BAD_INPUT,
                              "cannot merge a store into itself (%s)",
                              paths[i]);
    }
    int rc = store_begin(s);
    for (int i = 0; rc == FIA_OK && i < n; i++) {
        fia_store *src = NULL;
        char err[sizeof s->msg];
        rc = fia_store_open(paths[i], FIA_STORE_OPEN_READONLY, &src, err,
                            sizeof err);
        if (rc != FIA_OK) {
            store_fail(s, rc, "merging: %s", err);
            break;
        }
        rc = merge_one(s, src);
        fia_store_close(src);
    }
    return store_finish(s, rc);
}

fia_status fia_store_merge(fia_store *s, const char *from_path)
{
    return fia_store_merge_files(s, &from_path, 1);
}
