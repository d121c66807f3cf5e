/* store/: opening a store — recognising our files, refusing foreign and
 * damaged ones, and migrating older schemas to the current one.
 *
 * Schema history (PRAGMA user_version; PRAGMA application_id = "FIAC"):
 *   1  campaigns, findings (one row per signature), accuracy per
 *      campaign x bucket.
 *   2  findings gain minimized_text, last_revision, state_changed;
 *      sightings (finding x campaign x revision counts, filled from the v1
 *      rows) so that regressions can ask "seen at revision R?";
 *      rule_coverage per campaign x rule.
 *   3  campaigns gain uuid (UNIQUE): the identity a merge matches them by;
 *      existing campaigns get one hashed from their row (fia_row_uuid).
 *   4  accuracy_samples: one error-to-bound ratio per compared case (the
 *      regression query compares their distributions); accuracy_worst: the
 *      case text of the largest ratio per campaign x bucket.
 *   5  accuracy_samples gain case_key: a digest of the case's canonical
 *      text (fia_case_digest), so two revisions that ran the same case can
 *      be compared case by case (paired); NULL for older rows.
 *   6  campaigns gain ttff: seconds from the start of the `fiacheck fuzz`
 *      run to the campaign's first finding (NULL: none, or not measured).
 *   7  bench_figures: one row per figure of a benchmark run (`fiacheck
 *      bench --db`), the run's identity (UUID), revision and machine on
 *      every row, so that a merge copies them by (run, name).
 *   8  campaigns and findings gain sut: the system under test that ran
 *      them ('fast', or a plug-in's name: include/fia/sut.h); campaigns
 *      gain harness_revision, fiacheck's own revision (their revision is
 *      the system's: fiacheck's for fast/, the plug-in's version else).
 * A new file is created by running every migration from 0, so the upgrade
 * path of old files is the code path of every new file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "store_int.h"

static const char *const schema_v1[] = {
    "CREATE TABLE campaigns("
    " id INTEGER PRIMARY KEY,"
    " revision TEXT NOT NULL, target TEXT NOT NULL, profile TEXT NOT NULL,"
    " tolerance TEXT NOT NULL DEFAULT '', seed INTEGER NOT NULL DEFAULT 0,"
    " command TEXT NOT NULL DEFAULT '',"
    " started INTEGER NOT NULL, updated INTEGER NOT NULL,"
    " execs INTEGER NOT NULL DEFAULT 0, coverage INTEGER NOT NULL DEFAULT 0,"
    " seconds REAL NOT NULL DEFAULT 0, finished INTEGER NOT NULL DEFAULT 0)",
    "CREATE TABLE findings("
    " id INTEGER PRIMARY KEY,"
    " signature TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,"
    " target TEXT NOT NULL DEFAULT '', profile TEXT NOT NULL DEFAULT '',"
    " revision TEXT NOT NULL DEFAULT '',"
    " campaign_id INTEGER NOT NULL DEFAULT 0, seed INTEGER NOT NULL DEFAULT 0,"
    " case_text TEXT NOT NULL, metrics_json TEXT, message TEXT,"
    " first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL,"
    " count INTEGER NOT NULL DEFAULT 1,"
    " state TEXT NOT NULL DEFAULT 'open'"
    "  CHECK (state IN ('open', 'fixed', 'regressed')))",
    "CREATE TABLE accuracy("
    " campaign_id INTEGER NOT NULL, bucket TEXT NOT NULL,"
    " cases INTEGER NOT NULL, max_ulp REAL NOT NULL, sum_ulp REAL NOT NULL,"
    " max_rel_err REAL NOT NULL,"
    " PRIMARY KEY (campaign_id, bucket))",
    "PRAGMA application_id = 1179205955", /* 0x46494143 "FIAC" */
    NULL};

static const char *const schema_v2[] = {
    "ALTER TABLE findings ADD COLUMN minimized_text TEXT",
    "ALTER TABLE findings ADD COLUMN last_revision TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE findings ADD COLUMN state_changed INTEGER NOT NULL DEFAULT 0",
    "UPDATE findings SET last_revision = revision, state_changed = first_seen",
    "CREATE TABLE sightings("
    " finding_id INTEGER NOT NULL REFERENCES findings(id) ON DELETE CASCADE,"
    " campaign_id INTEGER NOT NULL, revision TEXT NOT NULL,"
    " count INTEGER NOT NULL, first_seen INTEGER NOT NULL,"
    " last_seen INTEGER NOT NULL,"
    " PRIMARY KEY (finding_id, campaign_id, revision)) WITHOUT ROWID",
    /* v1 knew one revision per finding: its own, else its campaign's */
    "INSERT INTO sightings SELECT f.id, f.campaign_id,"
    " COALESCE(NULLIF(f.revision, ''),"
    "  (SELECT c.revision FROM campaigns c WHERE c.id = f.campaign_id), ''),"
    " f.count, f.first_seen, f.last_seen FROM findings f",
    "CREATE INDEX sightings_revision ON sightings(revision, finding_id)",
    "CREATE INDEX campaigns_revision ON campaigns(revision)",
    "CREATE TABLE rule_coverage("
    " campaign_id INTEGER NOT NULL, rule_id TEXT NOT NULL,"
    " broken INTEGER NOT NULL DEFAULT 0, obeyed INTEGER NOT NULL DEFAULT 0,"
    " PRIMARY KEY (campaign_id, rule_id)) WITHOUT ROWID",
    NULL};

static const char *const schema_v3[] = {
    "ALTER TABLE campaigns ADD COLUMN uuid TEXT",
    "UPDATE campaigns SET uuid = fia_row_uuid(id, revision, target, profile,"
    " tolerance, seed, command, started)",
    "CREATE UNIQUE INDEX campaigns_uuid ON campaigns(uuid)",
    /* a row inserted without one (another tool, the sqlite3 shell) still
     * gets an identity: random version 4, in plain SQL */
    "CREATE TRIGGER campaigns_uuid AFTER INSERT ON campaigns"
    " WHEN NEW.uuid IS NULL BEGIN UPDATE campaigns SET uuid = lower("
    " hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' ||"
    " substr(hex(randomblob(2)), 2) || '-' ||"
    " substr('89ab', 1 + (abs(random()) % 4), 1) ||"
    " substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))"
    " WHERE id = NEW.id; END",
    NULL};

static const char *const schema_v4[] = {
    "CREATE TABLE accuracy_samples("
    " campaign_id INTEGER NOT NULL, bucket TEXT NOT NULL,"
    " ratio REAL NOT NULL)",
    "CREATE INDEX accuracy_samples_bucket"
    " ON accuracy_samples(campaign_id, bucket)",
    "CREATE TABLE accuracy_worst("
    " campaign_id INTEGER NOT NULL, bucket TEXT NOT NULL,"
    " ratio REAL NOT NULL, case_text TEXT NOT NULL,"
    " PRIMARY KEY (campaign_id, bucket)) WITHOUT ROWID",
    NULL};

static const char *const schema_v5[] = {
    "ALTER TABLE accuracy_samples ADD COLUMN case_key TEXT",
    "CREATE INDEX accuracy_samples_case ON accuracy_samples(bucket, case_key)"
    " WHERE case_key IS NOT NULL",
    NULL};

static const char *const schema_v6[] = {
    "ALTER TABLE campaigns ADD COLUMN ttff REAL",
    NULL};

static const char *const schema_v7[] = {
    "CREATE TABLE bench_figures("
    " run_uuid TEXT NOT NULL, revision TEXT NOT NULL, machine TEXT NOT NULL,"
    " suite TEXT NOT NULL, started INTEGER NOT NULL,"
    " command TEXT NOT NULL DEFAULT '',"
    " name TEXT NOT NULL, value REAL NOT NULL, unit TEXT NOT NULL DEFAULT '',"
    " ratio REAL, ratio_of TEXT NOT NULL DEFAULT '',"
    " PRIMARY KEY (run_uuid, name)) WITHOUT ROWID",
    "CREATE INDEX bench_figures_revision"
    " ON bench_figures(suite, machine, name, revision)",
    NULL};

static const char *const schema_v8[] = {
    "ALTER TABLE campaigns ADD COLUMN sut TEXT NOT NULL DEFAULT 'fast'",
    "ALTER TABLE campaigns ADD COLUMN harness_revision TEXT NOT NULL"
    " DEFAULT ''",
    "ALTER TABLE findings ADD COLUMN sut TEXT NOT NULL DEFAULT 'fast'",
    NULL};

static const char *const *const migrations[STORE_SCHEMA_VERSION] = {
    schema_v1, schema_v2, schema_v3, schema_v4, schema_v5, schema_v6,
    schema_v7, schema_v8};

fia_status store_migrate(fia_store *s, int from)
{
    for (int v = from; v < STORE_SCHEMA_VERSION; v++) {
        for (const char *const *sql = migrations[v]; *sql; sql++) {
            int rc = store_exec(s, *sql);
            if (rc != FIA_OK)
                return rc;
        }
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", v + 1);
        int rc = store_exec(s, pragma);
        if (rc != FIA_OK)
            return rc;
    }
    return FIA_OK;
}

typedef struct probe {
    int64_t app, version, objects;
} probe;

/* The header fields and the schema size in one statement, so one snapshot:
 * another process may be creating the schema right now. */
static int read_probe(fia_store *s, probe *p)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(
        s->db, "SELECT (SELECT application_id FROM pragma_application_id),"
               " (SELECT user_version FROM pragma_user_version),"
               " (SELECT count(*) FROM sqlite_master)", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = store_step(s, st);
        if (rc == SQLITE_ROW) {
            p->app = sqlite3_column_int64(st, 0);
            p->version = sqlite3_column_int64(st, 1);
            p->objects = sqlite3_column_int64(st, 2);
            rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK)
        return store_sqlfail(s, rc, "reading the schema");
    return FIA_OK;
}

/* Ours, empty, or someone else's.  create: an empty file becomes a store. */
static int classify(fia_store *s, const probe *p, int create)
{
    if (p->app == STORE_APPLICATION_ID) {
        if (p->version > STORE_SCHEMA_VERSION)
            return store_fail(s, FIA_ERR_BAD_INPUT,
                              "written by a newer fiacheck (schema version "
                              "%lld, this build knows up to %d)",
                              (long long)p->version, STORE_SCHEMA_VERSION);
        if (p->version < 1)
            return store_fail(s, FIA_ERR_CORRUPT,
                              "fiacheck store with schema version %lld",
                              (long long)p->version);
        return FIA_OK;
    }
    if (p->app == 0 && p->version == 0 && p->objects == 0) {
        if (create)
            return FIA_OK;
        return store_fail(s, FIA_ERR_BAD_INPUT,
                          "empty database, not a fiacheck store");
    }
    return store_fail(s, FIA_ERR_BAD_INPUT,
                      "an SQLite database but not a fiacheck store "
                      "(application_id 0x%08llx, %lld schema objects)",
                      (unsigned long long)p->app, (long long)p->objects);
}

/* Damage that the header does not show (a truncated file): quick_check. */
static int check_integrity(fia_store *s)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA quick_check(1)", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = store_step(s, st);
    if (rc == SQLITE_ROW) {
        const char *r = store_col_text(st, 0);
        if (r == NULL || strcmp(r, "ok") != 0) {
            store_fail(s, FIA_ERR_CORRUPT,
                       "database is damaged (quick_check: %s)",
                       r ? r : "?");
            sqlite3_finalize(st);
            return FIA_ERR_CORRUPT;
        }
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? FIA_OK
                           : store_sqlfail(s, rc, "checking the database");
}

/* Creates or upgrades the schema in one write transaction, re-reading the
 * header under the lock: several workers may open a new file at once. */
static int upgrade(fia_store *s, int create)
{
    int rc = store_begin(s);
    if (rc != FIA_OK)
        return rc;
    probe p;
    rc = read_probe(s, &p);
    if (rc == FIA_OK)
        rc = classify(s, &p, create);
    if (rc == FIA_OK && p.version < STORE_SCHEMA_VERSION)
        rc = store_migrate(s, (int)p.version);
    return store_finish(s, rc);
}

/* A new file needs its directory: a typo in --db must not silently make
 * a tree of directories (nor a store where nobody looks for it). */
static int check_parent(fia_store *s, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL || slash == path)
        return FIA_OK;
    size_t n = (size_t)(slash - path);
    char dir[4096];
    if (n >= sizeof dir)
        return store_fail(s, FIA_ERR_IO, "path too long");
    memcpy(dir, path, n);
    dir[n] = '\0';
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return store_fail(s, FIA_ERR_IO,
                          "directory %s does not exist (%s)", dir,
                          strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return store_fail(s, FIA_ERR_IO, "%s is not a directory", dir);
    return FIA_OK;
}

/* "file:" URI of path with immutable=1 (percent-encoding what a URI
 * reserves). */
static char *immutable_uri(const char *path)
{
    size_t n = strlen(path);
    char *u = malloc(3 * n + 32);
    if (u == NULL)
        return NULL;
    char *q = u + sprintf(u, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        q += (*p == '%' || *p == '?' || *p == '#')
                 ? sprintf(q, "%%%02X", *p)
                 : sprintf(q, "%c", *p);
    strcpy(q, "?immutable=1");
    return u;
}

/* Read-only, and SQLite cannot open the WAL index (no -shm and -wal, and a
 * directory we may not write to make them: CANTOPEN or READONLY_CANTINIT).  No -wal file means no
 * writer has uncommitted-to-file pages, so the file alone is the store;
 * read it as immutable (no locks, no side files). */
static int reopen_immutable(fia_store *s, const char *path, int rc)
{
    char wal[4200];
    struct stat sb;
    snprintf(wal, sizeof wal, "%s-wal", path);
    if (((rc & 0xff) != SQLITE_CANTOPEN && (rc & 0xff) != SQLITE_READONLY) ||
        stat(wal, &sb) == 0)
        return rc;
    char *uri = immutable_uri(path);
    if (uri == NULL)
        return rc;
    sqlite3_close_v2(s->db);
    s->db = NULL;
    int r = sqlite3_open_v2(uri, &s->db,
                            SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    return r;
}

/* Read-only and an older schema: the migrations run on a private copy in
 * memory, so the reading commands see the current schema and the file is
 * not touched. */
static int migrate_in_memory(fia_store *s)
{
    sqlite3 *mem = NULL;
    int rc = sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE, NULL);
    sqlite3_backup *b =
        rc == SQLITE_OK ? sqlite3_backup_init(mem, "main", s->db, "main")
                        : NULL;
    if (b != NULL) {
        rc = sqlite3_backup_step(b, -1);
        sqlite3_backup_finish(b);
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    } else if (rc == SQLITE_OK) {
        rc = sqlite3_errcode(mem);
    }
    if (rc != SQLITE_OK) {
        sqlite3_close_v2(mem);
        return store_sqlfail(s, rc, "copying an older store to upgrade it");
    }
    sqlite3_close_v2(s->db);
    s->db = mem;
    store_add_functions(s->db);
    return FIA_OK;
}

static int open_db(fia_store *s, const char *path, int mode)
{
    int create = mode == FIA_STORE_OPEN_CREATE;
    int readonly = mode == FIA_STORE_OPEN_READONLY;
    struct stat sb;
    if (stat(path, &sb) != 0) {
        if (errno != ENOENT || !create)
            return store_fail(s, FIA_ERR_IO, "%s", strerror(errno));
        int rc = check_parent(s, path);
        if (rc != FIA_OK)
            return rc;
    } else if (S_ISDIR(sb.st_mode)) {
        return store_fail(s, FIA_ERR_IO, "is a directory");
    }
    int flags = readonly ? SQLITE_OPEN_READONLY
                         : SQLITE_OPEN_READWRITE |
                               (create ? SQLITE_OPEN_CREATE : 0);
    int rc = sqlite3_open_v2(path, &s->db, flags, NULL);
    if (rc != SQLITE_OK)
        return store_sqlfail(s, rc, "cannot open");
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, STORE_BUSY_MS);
    store_add_functions(s->db);

    probe p;
    rc = read_probe(s, &p);
    if (rc != FIA_OK && readonly) {
        int r = reopen_immutable(s, path, sqlite3_errcode(s->db));
        if (r == SQLITE_OK) {
            sqlite3_extended_result_codes(s->db, 1);
            store_add_functions(s->db);
            rc = read_probe(s, &p);
        }
    }
    if (rc == FIA_OK)
        rc = classify(s, &p, create);
    if (rc == FIA_OK && p.objects > 0)
        rc = check_integrity(s);
    if (rc != FIA_OK)
        return rc;
    if (readonly) {
        if (p.version < STORE_SCHEMA_VERSION) {
            rc = migrate_in_memory(s);
            if (rc == FIA_OK)
                rc = upgrade(s, 0);
        }
        s->readonly = 1;
        return rc;
    }
    /* Ours (or empty and wanted): now we may write.  WAL lets readers and
     * one writer work at once; NORMAL sync keeps every commit across a
     * killed process (not across power loss, which is not our threat). */
    rc = store_exec(s, "PRAGMA journal_mode = WAL");
    if (rc == FIA_OK)
        rc = store_exec(s, "PRAGMA synchronous = NORMAL");
    if (rc == FIA_OK)
        rc = store_exec(s, "PRAGMA foreign_keys = ON");
    if (rc == FIA_OK && p.version < STORE_SCHEMA_VERSION)
        rc = upgrade(s, create);
    return rc;
}

fia_status fia_store_open(const char *path, int mode, fia_store **out,
                          char *errbuf, int errlen)
{
    if (out == NULL)
        return FIA_ERR_BAD_INPUT;
    *out = NULL;
    fia_store *s = calloc(1, sizeof *s);
    if (s == NULL) {
        if (errbuf && errlen > 0)
            snprintf(errbuf, (size_t)errlen, "out of memory");
        return FIA_ERR_NOMEM;
    }
    int rc;
    if (path == NULL || path[0] == '\0') {
        rc = store_fail(s, FIA_ERR_BAD_INPUT, "no database path given");
    } else if ((s->path = strdup(path)) == NULL) {
        rc = store_fail(s, FIA_ERR_NOMEM, "out of memory");
    } else {
        rc = mode < FIA_STORE_OPEN_EXISTING || mode > FIA_STORE_OPEN_READONLY
                 ? store_fail(s, FIA_ERR_BAD_INPUT, "bad open mode %d",
                              mode)
                 : open_db(s, path, mode);
    }
    if (rc != FIA_OK) {
        if (errbuf && errlen > 0)
            snprintf(errbuf, (size_t)errlen, "%s", s->msg);
        fia_store_close(s);
        return rc;
    }
    s->msg[0] = '\0';
    *out = s;
    return FIA_OK;
}

/* A connection that wrote leaves the file whole: the WAL's pages copied
 * into the database and the WAL emptied, so that a copy of the .db alone
 * (to merge or mail) holds every row.  SQLite does this by itself only
 * when the last connection of the file closes, and a command may exit
 * with a second one open (survey's fuzz target keeps its own).  Another
 * process in the middle of a write makes it wait a little, then give up:
 * that writer's own close checkpoints. */
static void checkpoint_on_close(fia_store *s)
{
    if (s->db == NULL || s->readonly || !s->wrote)
        return;
    sqlite3_busy_timeout(s->db, STORE_CLOSE_CHECKPOINT_MS);
    (void)sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE,
                                    NULL, NULL);
}

void fia_store_close(fia_store *s)
{
    if (s == NULL)
        return;
    for (int i = 0; i < ST_N; i++)
        sqlite3_finalize(s->cache[i]);
    checkpoint_on_close(s);
    if (s->db)
        sqlite3_close_v2(s->db);
    free(s->path);
    free(s);
}
