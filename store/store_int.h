/* store/: private declarations shared by the store's source files. */
#ifndef FIA_STORE_INT_H
#define FIA_STORE_INT_H

#include <sqlite3.h>
#include "fia/store.h"

/* Marks our files: "FIAC".  PRAGMA application_id. */
#define STORE_APPLICATION_ID 0x46494143
#define STORE_SCHEMA_VERSION 8
/* How long a writer waits for the lock before FIA_ERR_BUSY: the
 * SQLite busy handler, then our own retry loop around the same deadline. */
#define STORE_BUSY_MS 10000
/* How long closing a connection that wrote waits for other writers before
 * it leaves the checkpoint to them (fia_store_close). */
#define STORE_CLOSE_CHECKPOINT_MS 2000

/* Cached prepared statements of the hot paths (one per connection). */
enum {
    ST_FIND_SIG,
    ST_INS_FINDING,
    ST_SEEN_AGAIN,
    ST_REPLACE_CASE,
    ST_UPSERT_SIGHTING,
    ST_CAMPAIGN_REV,
    ST_UPSERT_ACCURACY,
    ST_UPSERT_COVERAGE,
    ST_INS_RATIO,
    ST_UPSERT_WORST,
    ST_TRIM_WORST,
    ST_N
};

struct fia_store {
    sqlite3 *db;
    char *path;
    char msg[512];
    sqlite3_stmt *cache[ST_N];
    int batch; /* inside fia_store_batch_begin: calls are savepoints */
    int readonly; /* FIA_STORE_OPEN_READONLY: store_begin refuses */
    int wrote;    /* a write transaction began: checkpoint on close */
};

/* Sets the message (prefixed with the file name) and returns code. */
fia_status store_fail(fia_store *s, fia_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Maps an SQLite result code to ours and sets the message from the
 * connection: "what: sqlite message". */
fia_status store_sqlfail(fia_store *s, int rc, const char *what);
fia_status store_code_of(int sqlite_rc);
int64_t store_now(void);

/* BEGIN IMMEDIATE / COMMIT / ROLLBACK with retry on SQLITE_BUSY; inside a
 * batch, SAVEPOINT / RELEASE / ROLLBACK TO instead. */
fia_status store_begin(fia_store *s);
fia_status store_commit(fia_store *s);
/* Commit when rc is OK, else roll back keeping the first message; rc. */
fia_status store_finish(fia_store *s, int rc);
void store_rollback(fia_store *s);
/* A read snapshot (BEGIN ... ROLLBACK), nothing inside a batch. */
fia_status store_read_begin(fia_store *s);
void store_read_end(fia_store *s);
/* Runs SQL without results, retrying while busy. */
fia_status store_exec(fia_store *s, const char *sql);
/* sqlite3_step, retrying SQLITE_BUSY on a statement that has not produced
 * a row yet (reset and step again) until the deadline. */
int store_step(fia_store *s, sqlite3_stmt *st);
/* The cached statement idx (prepared on first use), reset and unbound. */
sqlite3_stmt *store_cached(fia_store *s, int idx, const char *sql);
/* A fresh statement (caller finalizes); NULL with the message set. */
sqlite3_stmt *store_prepare(fia_store *s, const char *sql);
/* Binds text, or NULL for a NULL pointer. */
void store_bind_text(sqlite3_stmt *st, int i, const char *v);
/* Copies of a column (NULL for SQL NULL); "" instead of NULL when nn. */
char *store_col_dup(sqlite3_stmt *st, int i, int nn);
const char *store_col_text(sqlite3_stmt *st, int i);

/* The findings columns in the order store_row_finding reads them. */
#define STORE_FINDING_COLS                                                  \
    "f.id, f.signature, f.kind, f.state, f.target, f.profile, f.revision, " \
    "f.last_revision, f.campaign_id, f.first_seen, f.last_seen, f.count, "  \
    "f.state_changed, f.seed, f.case_text, f.minimized_text, "              \
    "f.metrics_json, f.message, f.sut"
/* Fills f from the current row; with copy the strings are strdup'ed
 * (FIA_ERR_NOMEM when out of memory), otherwise they point into the row. */
fia_status store_row_finding(sqlite3_stmt *st, fia_store_finding *f, int copy);

/* A random version-4 UUID (RFC 9562) from /dev/urandom into out[37]. */
fia_status store_uuid_v4(fia_store *s, char out[37]);
/* Registers fia_row_uuid(...) on the connection: a UUID (version 8, "custom")
 * hashed from its arguments, so that migrating copies of one old store gives
 * their campaigns the same identities. */
int store_add_functions(sqlite3 *db);

/* Drops the worst cases of campaign_id past FIA_STORE_WORST_PER_CAMPAIGN
 * (the smallest ratios), inside the caller's transaction. */
fia_status store_trim_worst(fia_store *s, int64_t campaign_id);

/* The schema migrations, from user_version `from` to the current version,
 * inside the caller's transaction. */
fia_status store_migrate(fia_store *s, int from);

#endif
