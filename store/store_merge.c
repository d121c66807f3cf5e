/* store/: merging one store into another, and exporting a store as JSON
 * lines. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "store_int.h"

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

/* Merges one finding row of src (current row of `from`) into main. */
static int merge_finding(fia_store *s, sqlite3_stmt *from, int64_t offset)
{
    fia_store_finding b;
    store_row_finding(from, &b, 0);
    int64_t campaign = b.campaign_id > 0 ? b.campaign_id + offset : 0;
    sqlite3_stmt *st = store_prepare(
        s, "SELECT " STORE_FINDING_COLS " FROM main.findings f"
           " WHERE f.signature = ?");
    if (st == NULL)
        return FIA_STORE_ERR_IO;
    store_bind_text(st, 1, b.signature);
    int rc = store_step(s, st);
    sqlite3_stmt *w = NULL;
    if (rc == SQLITE_DONE) {
        w = store_prepare(
            s, "INSERT INTO main.findings(signature, kind, state, target,"
               " profile, revision, last_revision, campaign_id, first_seen,"
               " last_seen, count, state_changed, seed, case_text,"
               " minimized_text, metrics_json, message) VALUES (?1, ?2, ?3,"
               " ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,"
               " ?17)");
        if (w != NULL) {
            const char *txt[] = {b.signature, b.kind, b.state, b.target,
                                 b.profile, b.revision, b.last_revision};
            for (int i = 0; i < 7; i++)
                store_bind_text(w, i + 1, txt[i]);
            sqlite3_bind_int64(w, 8, campaign);
            sqlite3_bind_int64(w, 9, b.first_seen);
            sqlite3_bind_int64(w, 10, b.last_seen);
            sqlite3_bind_int64(w, 11, b.count);
            sqlite3_bind_int64(w, 12, b.state_changed);
            sqlite3_bind_int64(w, 13, (int64_t)b.seed);
            store_bind_text(w, 14, b.case_text);
            store_bind_text(w, 15, b.minimized_text);
            store_bind_text(w, 16, b.metrics_json);
            store_bind_text(w, 17, b.message);
        }
    } else if (rc == SQLITE_ROW) {
        fia_store_finding a;
        store_row_finding(st, &a, 0);
        int64_t changed;
        const char *state =
            merged_state(a.state, a.state_changed, a.last_seen, b.state,
                         b.state_changed, b.last_seen, &changed);
        int b_first = b.first_seen < a.first_seen;
        int b_last = b.last_seen > a.last_seen;
        int b_case = strlen(b.case_text) < strlen(a.case_text);
        const char *mini = a.minimized_text;
        if (mini == NULL ||
            (b.minimized_text && strlen(b.minimized_text) < strlen(mini)))
            mini = b.minimized_text;
        const fia_store_finding *c = b_case ? &b : &a;
        w = store_prepare(
            s, "UPDATE main.findings SET count = count + ?1,"
               " first_seen = ?2, last_seen = ?3, revision = ?4,"
               " campaign_id = ?5, last_revision = ?6, state = ?7,"
               " state_changed = ?8, minimized_text = ?9, case_text = ?10,"
               " seed = ?11, metrics_json = ?12, message = ?13, target = ?14,"
               " profile = ?15 WHERE id = ?16");
        if (w != NULL) {
            sqlite3_bind_int64(w, 1, b.count);
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
    rc = FIA_STORE_ERR_IO;
    if (w != NULL) {
        int r = store_step(s, w);
        rc = r == SQLITE_DONE ? FIA_STORE_OK
                              : store_sqlfail(s, r, "merging a finding");
    }
    sqlite3_finalize(w);
    sqlite3_finalize(st);
    return rc;
}

static int merge_all(fia_store *s)
{
    int64_t offset = 0;
    sqlite3_stmt *st =
        store_prepare(s, "SELECT COALESCE(max(id), 0) FROM main.campaigns");
    if (st == NULL)
        return FIA_STORE_ERR_IO;
    int rc = store_step(s, st);
    if (rc == SQLITE_ROW)
        offset = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return store_sqlfail(s, rc, "merging");

    char sql[1024];
#define MAPPED "CASE WHEN campaign_id > 0 THEN campaign_id + %lld ELSE 0 END"
    snprintf(sql, sizeof sql,
             "INSERT INTO main.campaigns SELECT id + %lld, revision, target,"
             " profile, tolerance, seed, command, started, updated, execs,"
             " coverage, seconds, finished FROM src.campaigns",
             (long long)offset);
    rc = store_exec(s, sql);
    if (rc != FIA_STORE_OK)
        return rc;

    st = store_prepare(s, "SELECT " STORE_FINDING_COLS
                          " FROM src.findings f ORDER BY f.id");
    if (st == NULL)
        return FIA_STORE_ERR_IO;
    int r;
    while ((r = store_step(s, st)) == SQLITE_ROW)
        if ((rc = merge_finding(s, st, offset)) != FIA_STORE_OK)
            break;
    sqlite3_finalize(st);
    if (rc != FIA_STORE_OK)
        return rc;
    if (r != SQLITE_DONE)
        return store_sqlfail(s, r, "merging findings");

    snprintf(sql, sizeof sql,
             "INSERT INTO main.sightings SELECT m.id, "
             "CASE WHEN g.campaign_id > 0 THEN g.campaign_id + %lld ELSE 0 END,"
             " g.revision, g.count, g.first_seen, g.last_seen"
             " FROM src.sightings g JOIN src.findings f ON f.id = g.finding_id"
             " JOIN main.findings m ON m.signature = f.signature WHERE true"
             " ON CONFLICT (finding_id, campaign_id, revision) DO UPDATE SET"
             " count = count + excluded.count,"
             " first_seen = min(first_seen, excluded.first_seen),"
             " last_seen = max(last_seen, excluded.last_seen)",
             (long long)offset);
    rc = store_exec(s, sql);
    if (rc != FIA_STORE_OK)
        return rc;
    snprintf(sql, sizeof sql,
             "INSERT INTO main.accuracy SELECT " MAPPED ", bucket, cases,"
             " max_ulp, sum_ulp, max_rel_err FROM src.accuracy WHERE true"
             " ON CONFLICT (campaign_id, bucket) DO UPDATE SET"
             " cases = cases + excluded.cases,"
             " max_ulp = max(max_ulp, excluded.max_ulp),"
             " sum_ulp = sum_ulp + excluded.sum_ulp,"
             " max_rel_err = max(max_rel_err, excluded.max_rel_err)",
             (long long)offset);
    rc = store_exec(s, sql);
    if (rc != FIA_STORE_OK)
        return rc;
    snprintf(sql, sizeof sql,
             "INSERT INTO main.accuracy_samples SELECT " MAPPED ", bucket,"
             " ratio FROM src.accuracy_samples", (long long)offset);
    rc = store_exec(s, sql);
    if (rc != FIA_STORE_OK)
        return rc;
    snprintf(sql, sizeof sql,
             "INSERT INTO main.accuracy_worst SELECT " MAPPED ", bucket,"
             " ratio, case_text FROM src.accuracy_worst WHERE true"
             " ON CONFLICT (campaign_id, bucket) DO UPDATE SET"
             " ratio = excluded.ratio, case_text = excluded.case_text"
             " WHERE excluded.ratio > ratio", (long long)offset);
    rc = store_exec(s, sql);
    if (rc != FIA_STORE_OK)
        return rc;
    snprintf(sql, sizeof sql,
             "INSERT INTO main.rule_coverage SELECT " MAPPED ", rule_id,"
             " broken, obeyed FROM src.rule_coverage WHERE true"
             " ON CONFLICT (campaign_id, rule_id) DO UPDATE SET"
             " broken = broken + excluded.broken,"
             " obeyed = obeyed + excluded.obeyed",
             (long long)offset);
#undef MAPPED
    return store_exec(s, sql);
}

int fia_store_merge(fia_store *s, const char *from_path)
{
    if (s == NULL)
        return FIA_STORE_ERR_MISUSE;
    if (from_path == NULL)
        return store_fail(s, FIA_STORE_ERR_MISUSE, "nothing to merge");
    if (s->batch)
        return store_fail(s, FIA_STORE_ERR_MISUSE, "cannot merge in a batch");
    struct stat a, b;
    if (stat(s->path, &a) == 0 && stat(from_path, &b) == 0 &&
        a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        return store_fail(s, FIA_STORE_ERR_MISUSE,
                          "cannot merge a store into itself");
    /* validate (and upgrade) the source through the ordinary open */
    fia_store *src = NULL;
    char err[512];
    int rc = fia_store_open(from_path, 0, &src, err, sizeof err);
    if (rc != FIA_STORE_OK)
        return store_fail(s, rc, "merging: %s", err);
    fia_store_close(src);

    sqlite3_stmt *st = store_prepare(s, "ATTACH DATABASE ? AS src");
    if (st == NULL)
        return FIA_STORE_ERR_IO;
    store_bind_text(st, 1, from_path);
    int r = store_step(s, st);
    sqlite3_finalize(st);
    if (r != SQLITE_DONE)
        return store_sqlfail(s, r, "attaching the source");
    rc = store_begin(s);
    if (rc == FIA_STORE_OK) {
        rc = merge_all(s);
        if (rc == FIA_STORE_OK) {
            rc = store_commit(s);
        } else {
            char keep[sizeof s->msg];
            memcpy(keep, s->msg, sizeof keep);
            store_rollback(s);
            memcpy(s->msg, keep, sizeof keep);
        }
    }
    sqlite3_exec(s->db, "DETACH DATABASE src", NULL, NULL, NULL);
    return rc;
}

/* ---- export ----------------------------------------------------------- */

static void json_string(FILE *f, const char *v)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static int export_table(fia_store *s, FILE *out, const char *table,
                        const char *name)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT * FROM %s ORDER BY 1, 2", table);
    sqlite3_stmt *st = store_prepare(s, sql);
    if (st == NULL)
        return FIA_STORE_ERR_IO;
    int n = sqlite3_column_count(st), rc;
    while ((rc = store_step(s, st)) == SQLITE_ROW) {
        fprintf(out, "{\"table\":\"%s\"", name);
        for (int i = 0; i < n; i++) {
            const char *col = sqlite3_column_name(st, i);
            fprintf(out, ",\"%s\":", col);
            switch (sqlite3_column_type(st, i)) {
            case SQLITE_INTEGER:
                if (strcmp(col, "seed") == 0)
                    fprintf(out, "%llu",
                            (unsigned long long)sqlite3_column_int64(st, i));
                else
                    fprintf(out, "%lld",
                            (long long)sqlite3_column_int64(st, i));
                break;
            case SQLITE_FLOAT: {
                double d = sqlite3_column_double(st, i);
                if (isfinite(d))
                    fprintf(out, "%.17g", d);
                else
                    fputs("null", out);
                break;
            }
            case SQLITE_NULL:
                fputs("null", out);
                break;
            default:
                json_string(out, store_col_text(st, i));
            }
        }
        fputs("}\n", out);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sqlfail(s, rc, "exporting");
    return ferror(out) ? store_fail(s, FIA_STORE_ERR_IO, "write error")
                       : FIA_STORE_OK;
}

int fia_store_export_json(fia_store *s, FILE *out)
{
    if (s == NULL || out == NULL)
        return FIA_STORE_ERR_MISUSE;
    static const char *const tables[][2] = {
        {"campaigns", "campaign"},   {"findings", "finding"},
        {"sightings", "sighting"},   {"accuracy", "accuracy"},
        {"rule_coverage", "rule_coverage"},
        {"accuracy_samples", "accuracy_sample"},
        {"accuracy_worst", "accuracy_worst"}};
    int rc = store_read_begin(s); /* one snapshot */
    for (size_t i = 0;
         rc == FIA_STORE_OK && i < sizeof tables / sizeof tables[0]; i++)
        rc = export_table(s, out, tables[i][0], tables[i][1]);
    store_read_end(s);
    return rc;
}
