/* store/: writing — campaigns, findings deduplicated by signature,
 * accuracy per campaign x bucket, rule coverage, triage (state, minimized).
 * Each call is one BEGIN IMMEDIATE transaction: a worker killed at any
 * moment leaves every returned call committed and nothing half-written. */
#include <math.h>
#include <string.h>
#include "store_int.h"

static const char *nz(const char *v)
{
    return v ? v : "";
}

/* Steps a write statement to completion. */
static int run(fia_store *s, sqlite3_stmt *st, const char *what)
{
    if (st == NULL)
        return FIA_ERR_IO; /* message set by the prepare */
    int rc = store_step(s, st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return store_sqlfail(s, rc, what);
    sqlite3_reset(st);
    return FIA_OK;
}

fia_status fia_store_campaign_begin(fia_store *s, const fia_campaign_info *info,
                                    int64_t *campaign_id)
{
    if (s == NULL || info == NULL)
        return FIA_ERR_BAD_INPUT;
    char uuid[sizeof info->uuid];
    if (memchr(info->uuid, '\0', sizeof info->uuid) == NULL)
        return store_fail(s, FIA_ERR_BAD_INPUT, "campaign UUID too long");
    if (info->uuid[0] != '\0')
        memcpy(uuid, info->uuid, sizeof uuid);
    else if (store_uuid_v4(s, uuid) != FIA_OK)
        return FIA_ERR_IO;
    sqlite3_stmt *st = store_prepare(
        s, "INSERT INTO campaigns(revision, target, profile, tolerance, seed,"
           " command, started, updated, uuid, sut, harness_revision)"
           " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (st == NULL)
        return FIA_ERR_IO;
    int64_t now = store_now();
    store_bind_text(st, 1, nz(info->revision));
    store_bind_text(st, 2, nz(info->target));
    store_bind_text(st, 3, nz(info->profile));
    store_bind_text(st, 4, nz(info->tolerance));
    sqlite3_bind_int64(st, 5, (int64_t)info->seed);
    store_bind_text(st, 6, nz(info->command));
    sqlite3_bind_int64(st, 7, now);
    sqlite3_bind_int64(st, 8, now);
    store_bind_text(st, 9, uuid);
    store_bind_text(st, 10, info->sut && *info->sut ? info->sut : "fast");
    store_bind_text(st, 11, nz(info->harness_revision));
    int rc = store_begin(s);
    if (rc == FIA_OK) {
        rc = run(s, st, "adding a campaign");
        if (rc == FIA_OK && campaign_id)
            *campaign_id = sqlite3_last_insert_rowid(s->db);
        rc = store_finish(s, rc);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Checks that a row exists: FIA_ERR_NOT_FOUND otherwise. */
static int changed_one(fia_store *s, const char *what, int64_t id)
{
    if (sqlite3_changes(s->db) == 0)
        return store_fail(s, FIA_ERR_NOT_FOUND, "no %s with id %lld",
                          what, (long long)id);
    return FIA_OK;
}

fia_status fia_store_campaign_update(fia_store *s, int64_t campaign_id,
                                     int64_t execs, int64_t coverage,
                                     double seconds, int finished)
{
    if (s == NULL)
        return FIA_ERR_BAD_INPUT;
    sqlite3_stmt *st = store_prepare(
        s, "UPDATE campaigns SET execs = ?, coverage = ?, seconds = ?,"
           " finished = ?, updated = ? WHERE id = ?");
    if (st == NULL)
        return FIA_ERR_IO;
    sqlite3_bind_int64(st, 1, execs);
    sqlite3_bind_int64(st, 2, coverage);
    sqlite3_bind_double(st, 3, isfinite(seconds) ? seconds : 0.0);
    sqlite3_bind_int(st, 4, finished != 0);
    sqlite3_bind_int64(st, 5, store_now());
    sqlite3_bind_int64(st, 6, campaign_id);
    int rc = store_begin(s);
    if (rc == FIA_OK) {
        rc = run(s, st, "updating a campaign");
        if (rc == FIA_OK)
            rc = changed_one(s, "campaign", campaign_id);
        rc = store_finish(s, rc);
    }
    sqlite3_finalize(st);
    return rc;
}

fia_status fia_store_campaign_set_ttff(fia_store *s, int64_t campaign_id,
                                       double seconds)
{
    if (s == NULL || !isfinite(seconds) || seconds < 0)
        return FIA_ERR_BAD_INPUT;
    sqlite3_stmt *st = store_prepare(
        s, "UPDATE campaigns SET ttff = min(COALESCE(ttff, ?1), ?1),"
           " updated = ?2 WHERE id = ?3");
    if (st == NULL)
        return FIA_ERR_IO;
    sqlite3_bind_double(st, 1, seconds);
    sqlite3_bind_int64(st, 2, store_now());
    sqlite3_bind_int64(st, 3, campaign_id);
    int rc = store_begin(s);
    if (rc == FIA_OK) {
        rc = run(s, st, "recording a time to first finding");
        if (rc == FIA_OK)
            rc = changed_one(s, "campaign", campaign_id);
        rc = store_finish(s, rc);
    }
    sqlite3_finalize(st);
    return rc;
}

/* The revision a sighting counts for: the record's, else its campaign's.
 * Inside the transaction. */
static int sighting_revision(fia_store *s, const fia_finding_record *f,
                             char *rev, size_t revlen)
{
    snprintf(rev, revlen, "%s", nz(f->revision));
    if (f->campaign_id == 0)
        return FIA_OK;
    sqlite3_stmt *st = store_cached(
        s, ST_CAMPAIGN_REV, "SELECT revision FROM campaigns WHERE id = ?");
    if (st == NULL)
        return FIA_ERR_IO;
    sqlite3_bind_int64(st, 1, f->campaign_id);
    int rc = store_step(s, st);
    if (rc == SQLITE_ROW) {
        if (rev[0] == '\0')
            snprintf(rev, revlen, "%s", nz(store_col_text(st, 0)));
        sqlite3_reset(st);
        return FIA_OK;
    }
    sqlite3_reset(st);
    if (rc == SQLITE_DONE)
        return store_fail(s, FIA_ERR_NOT_FOUND, "no campaign with id %lld",
                          (long long)f->campaign_id);
    return store_sqlfail(s, rc, "looking up the campaign");
}

static int add_finding_txn(fia_store *s, const fia_finding_record *f,
                           int64_t *id, int *outcome)
{
    char rev[256];
    int rc = sighting_revision(s, f, rev, sizeof rev);
    if (rc != FIA_OK)
        return rc;
    int64_t now = store_now();
    sqlite3_stmt *st = store_cached(
        s, ST_FIND_SIG,
        "SELECT id, length(CAST(case_text AS BLOB)), state FROM findings"
        " WHERE signature = ?");
    if (st == NULL)
        return FIA_ERR_IO;
    store_bind_text(st, 1, f->signature);
    rc = store_step(s, st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        sqlite3_reset(st);
        return store_sqlfail(s, rc, "looking up the signature");
    }
    int known = rc == SQLITE_ROW;
    int64_t old_len = 0;
    if (known) {
        *id = sqlite3_column_int64(st, 0);
        old_len = sqlite3_column_int64(st, 1);
        const char *state = store_col_text(st, 2);
        *outcome = state && strcmp(state, "fixed") == 0
                       ? FIA_STORE_SEEN_REGRESSED
                       : FIA_STORE_SEEN_AGAIN;
    }
    sqlite3_reset(st);

    if (!known) {
        st = store_cached(
            s, ST_INS_FINDING,
            "INSERT INTO findings(signature, kind, target, profile, revision,"
            " last_revision, campaign_id, seed, case_text, metrics_json,"
            " message, first_seen, last_seen, count, state, state_changed,"
            " sut)"
            " VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11,"
            " 1, 'open', ?11, ?12)");
        if (st == NULL)
            return FIA_ERR_IO;
        store_bind_text(st, 1, f->signature);
        store_bind_text(st, 2, f->kind);
        store_bind_text(st, 3, nz(f->target));
        store_bind_text(st, 4, nz(f->profile));
        store_bind_text(st, 5, rev);
        sqlite3_bind_int64(st, 6, f->campaign_id);
        sqlite3_bind_int64(st, 7, (int64_t)f->seed);
        store_bind_text(st, 8, f->case_text);
        store_bind_text(st, 9, f->metrics_json);
        store_bind_text(st, 10, f->message);
        sqlite3_bind_int64(st, 11, now);
        store_bind_text(st, 12, f->sut && *f->sut ? f->sut : "fast");
        rc = run(s, st, "adding a finding");
        if (rc != FIA_OK)
            return rc;
        *id = sqlite3_last_insert_rowid(s->db);
        *outcome = FIA_STORE_SEEN_NEW;
    } else {
        st = store_cached(
            s, ST_SEEN_AGAIN,
            "UPDATE findings SET count = count + 1,"
            " last_seen = max(last_seen, ?1), last_revision = ?2,"
            " state_changed = CASE state WHEN 'fixed' THEN ?1"
            "  ELSE state_changed END,"
            " state = CASE state WHEN 'fixed' THEN 'regressed' ELSE state END"
            " WHERE id = ?3");
        if (st == NULL)
            return FIA_ERR_IO;
        sqlite3_bind_int64(st, 1, now);
        store_bind_text(st, 2, rev);
        sqlite3_bind_int64(st, 3, *id);
        rc = run(s, st, "updating a finding");
        if (rc != FIA_OK)
            return rc;
        if ((int64_t)strlen(f->case_text) < old_len) {
            /* keep the smallest reproducer, with what belongs to it */
            st = store_cached(
                s, ST_REPLACE_CASE,
                "UPDATE findings SET case_text = ?, seed = ?,"
                " metrics_json = ?, message = ?, target = ?, profile = ?"
                " WHERE id = ?");
            if (st == NULL)
                return FIA_ERR_IO;
            store_bind_text(st, 1, f->case_text);
            sqlite3_bind_int64(st, 2, (int64_t)f->seed);
            store_bind_text(st, 3, f->metrics_json);
            store_bind_text(st, 4, f->message);
            store_bind_text(st, 5, nz(f->target));
            store_bind_text(st, 6, nz(f->profile));
            sqlite3_bind_int64(st, 7, *id);
            rc = run(s, st, "updating a finding's case");
            if (rc != FIA_OK)
                return rc;
        }
    }
    st = store_cached(
        s, ST_UPSERT_SIGHTING,
        "INSERT INTO sightings(finding_id, campaign_id, revision, count,"
        " first_seen, last_seen) VALUES (?1, ?2, ?3, 1, ?4, ?4)"
        " ON CONFLICT (finding_id, campaign_id, revision) DO UPDATE SET"
        " count = count + 1, last_seen = max(last_seen, excluded.last_seen)");
    if (st == NULL)
        return FIA_ERR_IO;
    sqlite3_bind_int64(st, 1, *id);
    sqlite3_bind_int64(st, 2, f->campaign_id);
    store_bind_text(st, 3, rev);
    sqlite3_bind_int64(st, 4, now);
    return run(s, st, "recording a sighting");
}

fia_status fia_store_add_finding_ex(fia_store *s, const fia_finding_record *f,
                                    int64_t *finding_id, int *outcome)
{
    if (s == NULL)
        return FIA_ERR_BAD_INPUT;
    if (f == NULL || f->signature == NULL || f->signature[0] == '\0' ||
        f->kind == NULL || f->kind[0] == '\0' || f->case_text == NULL ||
        f->campaign_id < 0)
        return store_fail(s, FIA_ERR_BAD_INPUT,
                          "a finding needs a signature, a kind and a case");
    if (f->revision != NULL && strlen(f->revision) >= 256)
        return store_fail(s, FIA_ERR_BAD_INPUT, "revision too long");
    int64_t id = 0;
    int out = 0;
    int rc = store_begin(s);
    if (rc != FIA_OK)
        return rc;
    rc = store_finish(s, add_finding_txn(s, f, &id, &out));
    if (rc == FIA_OK) {
        if (finding_id)
            *finding_id = id;
        if (outcome)
            *outcome = out;
    }
    return rc;
}

fia_status fia_store_add_finding(fia_store *s, const fia_finding_record *f,
                                 int64_t *finding_id)
{
    return fia_store_add_finding_ex(s, f, finding_id, NULL);
}

/* The aggregate row of one case, inside the caller's transaction. */
static int upsert_accuracy(fia_store *s, int64_t campaign_id,
                           const char *bucket, double max_ulp,
                           double max_rel_err)
{
    if (bucket == NULL || bucket[0] == '\0' || campaign_id < 0 ||
        isnan(max_ulp) || isnan(max_rel_err) || max_ulp < 0 ||
        max_rel_err < 0)
        return store_fail(s, FIA_ERR_BAD_INPUT,
                          "accuracy needs a bucket and non-negative, "
                          "non-NaN errors");
    sqlite3_stmt *st = store_cached(
        s, ST_UPSERT_ACCURACY,
        "INSERT INTO accuracy(campaign_id, bucket, cases, max_ulp, sum_ulp,"
        " max_rel_err) VALUES (?1, ?2, 1, ?3, ?3, ?4)"
        " ON CONFLICT (campaign_id, bucket) DO UPDATE SET"
        " cases = cases + 1, max_ulp = max(max_ulp, excluded.max_ulp),"
        " sum_ulp = sum_ulp + excluded.sum_ulp,"
        " max_rel_err = max(max_rel_err, excluded.max_rel_err)");
    if (st == NULL)
        return FIA_ERR_IO;
    sqlite3_bind_int64(st, 1, campaign_id);
    store_bind_text(st, 2, bucket);
    sqlite3_bind_double(st, 3, max_ulp);
    sqlite3_bind_double(st, 4, max_rel_err);
    return run(s, st, "adding accuracy");
}

fia_status fia_store_add_accuracy(fia_store *s, int64_t campaign_id,
                                  const char *bucket, double max_ulp,
                                  double max_rel_err)
{
    if (s == NULL)
        return FIA_ERR_BAD_INPUT;
    int rc = store_begin(s);
    if (rc != FIA_OK)
        return rc;
    return store_finish(s, upsert_accuracy(s, campaign_id, bucket, max_ulp,
                                            max_rel_err));
}

/* The aggregate row (db stats), the ratio (db regressions) and, when given
 * and larger than the kept one, the worst case of the bucket: one
 * transaction, so the three never disagree on which cases they counted. */
fia_status fia_store_add_accuracy_sample(fia_store *s, int64_t campaign_id,
                                         const char *bucket, double max_ulp,
                                         double max_rel_err, double ratio,
                                         const char *case_key, const char *case_text)
{
    if (s == NULL)
        return FIA_ERR_BAD_INPUT;
    if (isnan(ratio) || ratio < 0)
        return store_fail(s, FIA_ERR_BAD_INPUT,
                          "an accuracy sample needs a ratio >= 0");
    int rc = store_begin(s);
    if (rc != FIA_OK)
        return rc;
    rc = upsert_accuracy(s, campaign_id, bucket, max_ulp, max_rel_err);
    if (rc == FIA_OK) {
        sqlite3_stmt *st = store_cached(
            s, ST_INS_RATIO,
            "INSERT INTO accuracy_samples(campaign_id, bucket, ratio,"
            " case_key) VALUES (?1, ?2, ?3, ?4)");
        if (st != NULL) {
            sqlite3_bind_int64(st, 1, campaign_id);
            store_bind_text(st, 2, bucket);
            sqlite3_bind_double(st, 3, ratio);
            if (case_key != NULL)
                store_bind_text(st, 4, case_key);
            else
                sqlite3_bind_null(st, 4);
        }
        rc = run(s, st, "adding an accuracy sample");
    }
    if (rc == FIA_OK && case_text != NULL) {
        sqlite3_stmt *st = store_cached(
            s, ST_UPSERT_WORST,
            "INSERT INTO accuracy_worst(campaign_id, bucket, ratio, case_text)"
            " VALUES (?1, ?2, ?3, ?4) ON CONFLICT (campaign_id, bucket)"
            " DO UPDATE SET ratio = excluded.ratio,"
            " case_text = excluded.case_text WHERE excluded.ratio > ratio");
        if (st != NULL) {
            sqlite3_bind_int64(st, 1, campaign_id);
            store_bind_text(st, 2, bucket);
            sqlite3_bind_double(st, 3, ratio);
            store_bind_text(st, 4, case_text);
        }
        rc = run(s, st, "keeping the worst case");
        if (rc == FIA_OK)
            rc = store_trim_worst(s, campaign_id);
    }
    return store_finish(s, rc);
}

/* At most FIA_STORE_WORST_PER_CAMPAIGN worst cases per campaign: those of
 * the smallest ratios go (ties: the later bucket name), inside the
 * caller's transaction. */
fia_status store_trim_worst(fia_store *s, int64_t campaign_id)
{
    /* the sort only when over the cap: counting the campaign's rows of
     * the primary key is cheap, sorting them at every new worst case is
     * not */
    sqlite3_stmt *st = store_cached(
        s, ST_TRIM_WORST,
        "DELETE FROM accuracy_worst WHERE campaign_id = ?1 AND"
        " (SELECT count(*) FROM accuracy_worst WHERE campaign_id = ?1) > ?2"
        " AND bucket IN (SELECT bucket FROM accuracy_worst"
        "  WHERE campaign_id = ?1 ORDER BY ratio DESC, bucket"
        "  LIMIT -1 OFFSET ?2)");
    if (st == NULL)
        return FIA_ERR_IO;
    sqlite3_bind_int64(st, 1, campaign_id);
    sqlite3_bind_int(st, 2, FIA_STORE_WORST_PER_CAMPAIGN);
    return run(s, st, "capping the worst cases");
}

fia_status fia_store_add_rule_coverage(fia_store *s, int64_t campaign_id,
                                       const char *rule_id, int64_t broken,
                                       int64_t obeyed)
{
    if (s == NULL)
        return FIA_ERR_BAD_INPUT;
    if (rule_id == NULL || rule_id[0] == '\0' || campaign_id < 0 ||
        broken < 0 || obeyed < 0)
        return store_fail(s, FIA_ERR_BAD_INPUT,
                          "coverage needs a rule id and counts >= 0");
    sqlite3_stmt *st = store_cached(
        s, ST_UPSERT_COVERAGE,
        "INSERT INTO rule_coverage(campaign_id, rule_id, broken, obeyed)"
        " VALUES (?1, ?2, ?3, ?4) ON CONFLICT (campaign_id, rule_id)"
        " DO UPDATE SET broken = broken + excluded.broken,"
        " obeyed = obeyed + excluded.obeyed");
    if (st == NULL)
        return FIA_ERR_IO;
    sqlite3_bind_int64(st, 1, campaign_id);
    store_bind_text(st, 2, rule_id);
    sqlite3_bind_int64(st, 3, broken);
    sqlite3_bind_int64(st, 4, obeyed);
    int rc = store_begin(s);
    if (rc != FIA_OK)
        return rc;
    return store_finish(s, run(s, st, "adding rule coverage"));
}

static int update_finding(fia_store *s, int64_t id, const char *sql,
                          const char *text, int64_t now)
{
    sqlite3_stmt *st = store_prepare(s, sql);
    if (st == NULL)
        return FIA_ERR_IO;
    store_bind_text(st, 1, text);
    sqlite3_bind_int64(st, 2, now);
    sqlite3_bind_int64(st, 3, id);
    int rc = store_begin(s);
    if (rc == FIA_OK) {
        rc = run(s, st, "updating a finding");
        if (rc == FIA_OK)
            rc = changed_one(s, "finding", id);
        rc = store_finish(s, rc);
    }
    sqlite3_finalize(st);
    return rc;
}

fia_status fia_store_set_minimized(fia_store *s, int64_t finding_id,
                                   const char *case_text)
{
    if (s == NULL)
        return FIA_ERR_BAD_INPUT;
    if (case_text == NULL)
        return store_fail(s, FIA_ERR_BAD_INPUT, "no minimized case");
    return update_finding(s, finding_id,
                          "UPDATE findings SET minimized_text = ?1"
                          " WHERE id = ?3 AND ?2 = ?2",
                          case_text, 0);
}

fia_status fia_store_set_state(fia_store *s, int64_t finding_id, const char *state)
{
    if (s == NULL)
        return FIA_ERR_BAD_INPUT;
    if (state == NULL ||
        (strcmp(state, "open") != 0 && strcmp(state, "fixed") != 0))
        return store_fail(s, FIA_ERR_BAD_INPUT,
                          "state must be open or fixed, not '%s'", nz(state));
    /* changed() counts matched rows even when the value is unchanged */
    return update_finding(s, finding_id,
                          "UPDATE findings SET state = ?1, state_changed = ?2"
                          " WHERE id = ?3",
                          state, store_now());
}
