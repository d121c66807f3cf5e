/* store/: errors, retries, statements — the plumbing under every call. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "store_int.h"

int64_t store_now(void)
{
    return (int64_t)time(NULL);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* A short randomized back-off so that retrying workers do not march in
 * step; rand() is fine for jitter. */
static void backoff(int attempt)
{
    int base = attempt < 6 ? 1 << attempt : 64;
    sleep_ms(base + rand() % (base + 1));
}

fia_status store_fail(fia_store *s, fia_status code, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(s->msg, sizeof s->msg, "%s: ", s->path ? s->path : "");
    if (n < 0 || (size_t)n >= sizeof s->msg)
        n = 0;
    va_start(ap, fmt);
    vsnprintf(s->msg + n, sizeof s->msg - (size_t)n, fmt, ap);
    va_end(ap);
    return code;
}

fia_status store_code_of(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_OK:
    case SQLITE_ROW:
    case SQLITE_DONE:
        return FIA_OK;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return FIA_ERR_BUSY;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
        return FIA_ERR_CORRUPT;
    case SQLITE_NOMEM:
        return FIA_ERR_NOMEM;
    case SQLITE_MISUSE:
    case SQLITE_RANGE:
    case SQLITE_CONSTRAINT:
    case SQLITE_TOOBIG:
        return FIA_ERR_BAD_INPUT;
    default:
        return FIA_ERR_IO;
    }
}

fia_status store_sqlfail(fia_store *s, int rc, const char *what)
{
    int code = store_code_of(rc);
    const char *m = s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
    if ((rc & 0xff) == SQLITE_NOTADB)
        m = "file is not a database";
    else if ((rc & 0xff) == SQLITE_CORRUPT)
        m = "database disk image is malformed (damaged or truncated)";
    if (code == FIA_ERR_BUSY)
        return store_fail(s, code, "%s: %s (locked for more than %d s)",
                          what, m, STORE_BUSY_MS / 1000);
    return store_fail(s, code, "%s: %s", what, m);
}

static int is_busy(int rc)
{
    return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
}

fia_status store_exec(fia_store *s, const char *sql)
{
    int64_t deadline = now_ms() + STORE_BUSY_MS;
    for (int attempt = 0;; attempt++) {
        int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return FIA_OK;
        if (!is_busy(rc) || now_ms() > deadline)
            return store_sqlfail(s, rc, sql);
        backoff(attempt);
    }
}

fia_status store_begin(fia_store *s)
{
    if (s->readonly)
        return store_fail(s, FIA_ERR_BAD_INPUT, "opened read-only");
    s->wrote = 1;
    return store_exec(s, s->batch ? "SAVEPOINT fia_op" : "BEGIN IMMEDIATE");
}

fia_status store_commit(fia_store *s)
{
    int rc = store_exec(s, s->batch ? "RELEASE fia_op" : "COMMIT");
    if (rc != FIA_OK)
        store_rollback(s);
    return rc;
}

void store_rollback(fia_store *s)
{
    if (s->batch)
        sqlite3_exec(s->db, "ROLLBACK TO fia_op; RELEASE fia_op", NULL, NULL,
                     NULL);
    else if (!sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

fia_status store_read_begin(fia_store *s)
{
    return s->batch ? FIA_OK : store_exec(s, "BEGIN");
}

void store_read_end(fia_store *s)
{
    if (!s->batch && !sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

fia_status fia_store_batch_begin(fia_store *s)
{
    if (s == NULL)
        return FIA_ERR_BAD_INPUT;
    if (s->batch)
        return store_fail(s, FIA_ERR_BAD_INPUT, "already in a batch");
    if (s->readonly)
        return store_fail(s, FIA_ERR_BAD_INPUT, "opened read-only");
    s->wrote = 1;
    int rc = store_exec(s, "BEGIN IMMEDIATE");
    if (rc == FIA_OK)
        s->batch = 1;
    return rc;
}

fia_status fia_store_batch_end(fia_store *s, int commit)
{
    if (s == NULL)
        return FIA_ERR_BAD_INPUT;
    if (!s->batch)
        return store_fail(s, FIA_ERR_BAD_INPUT, "not in a batch");
    s->batch = 0;
    if (!commit) {
        store_rollback(s);
        return FIA_OK;
    }
    return store_commit(s);
}

int store_step(fia_store *s, sqlite3_stmt *st)
{
    (void)s;
    int64_t deadline = now_ms() + STORE_BUSY_MS;
    for (int attempt = 0;; attempt++) {
        int rc = sqlite3_step(st);
        /* Retry only where it is safe: a busy statement has done nothing,
         * and inside our write transactions (which hold the write lock from
         * BEGIN IMMEDIATE) busy cannot happen. */
        if (!is_busy(rc) || now_ms() > deadline)
            return rc;
        sqlite3_reset(st);
        backoff(attempt);
    }
}

sqlite3_stmt *store_prepare(fia_store *s, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t deadline = now_ms() + STORE_BUSY_MS;
    for (int attempt = 0;; attempt++) {
        int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
        if (rc == SQLITE_OK)
            return st;
        if (!is_busy(rc) || now_ms() > deadline) {
            store_sqlfail(s, rc, "prepare");
            return NULL;
        }
        backoff(attempt);
    }
}

sqlite3_stmt *store_cached(fia_store *s, int idx, const char *sql)
{
    if (s->cache[idx] == NULL) {
        int rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
                                    &s->cache[idx], NULL);
        if (rc != SQLITE_OK) {
            store_sqlfail(s, rc, "prepare");
            s->cache[idx] = NULL;
            return NULL;
        }
    }
    sqlite3_reset(s->cache[idx]);
    sqlite3_clear_bindings(s->cache[idx]);
    return s->cache[idx];
}

void store_bind_text(sqlite3_stmt *st, int i, const char *v)
{
    if (v == NULL)
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
}

const char *store_col_text(sqlite3_stmt *st, int i)
{
    return (const char *)sqlite3_column_text(st, i);
}

char *store_col_dup(sqlite3_stmt *st, int i, int nn)
{
    const char *t = store_col_text(st, i);
    if (t == NULL && !nn)
        return NULL;
    return strdup(t ? t : "");
}

fia_status store_row_finding(sqlite3_stmt *st, fia_store_finding *f, int copy)
{
    memset(f, 0, sizeof *f);
    f->id = sqlite3_column_int64(st, 0);
    f->campaign_id = sqlite3_column_int64(st, 8);
    f->first_seen = sqlite3_column_int64(st, 9);
    f->last_seen = sqlite3_column_int64(st, 10);
    f->count = sqlite3_column_int64(st, 11);
    f->state_changed = sqlite3_column_int64(st, 12);
    f->seed = (uint64_t)sqlite3_column_int64(st, 13);
    /* column index of each string field, NOT NULL ones first */
    static const int col[] = {1, 2, 3, 4, 5, 6, 7, 14, 18, 15, 16, 17};
    char **dst[] = {&f->signature, &f->kind,         &f->state,
                    &f->target,    &f->profile,      &f->revision,
                    &f->last_revision, &f->case_text, &f->sut,
                    &f->minimized_text, &f->metrics_json, &f->message};
    for (size_t k = 0; k < sizeof col / sizeof col[0]; k++) {
        int nn = k < 9;
        if (copy) {
            *dst[k] = store_col_dup(st, col[k], nn);
            if (*dst[k] == NULL && (nn || store_col_text(st, col[k]))) {
                fia_store_finding_free(f);
                return FIA_ERR_NOMEM;
            }
        } else {
            const char *t = store_col_text(st, col[k]);
            *dst[k] = (char *)(t == NULL && nn ? "" : t);
        }
    }
    return FIA_OK;
}

void fia_store_finding_free(fia_store_finding *f)
{
    if (f == NULL)
        return;
    char *p[] = {f->signature, f->kind,      f->state,          f->target,
                 f->profile,   f->revision,  f->last_revision,  f->case_text,
                 f->minimized_text, f->metrics_json, f->message, f->sut};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; k++)
        free(p[k]);
    memset(f, 0, sizeof *f);
}

const char *fia_store_errmsg(const fia_store *s)
{
    return s ? s->msg : "no store";
}

int fia_store_schema_version(void)
{
    return STORE_SCHEMA_VERSION;
}

/* Ends the transaction: commit on success, else roll back keeping the
 * message of the first failure. */
fia_status store_finish(fia_store *s, int rc)
{
    if (rc == FIA_OK)
        return store_commit(s);
    char keep[sizeof s->msg];
    memcpy(keep, s->msg, sizeof keep);
    store_rollback(s);
    memcpy(s->msg, keep, sizeof keep);
    return rc;
}
