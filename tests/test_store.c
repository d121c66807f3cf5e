/* store/: open, schema version and migration, corrupt and foreign files,
 * upsert by signature, accuracy and coverage, triage, regressions, merge,
 * export. */
#include <fcntl.h>
#include <sqlite3.h>
#include "check.h"
#include "test_file.h"
#include "test_store_util.h"

static int64_t pragma_int(const char *path, const char *pragma)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, pragma, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static int raw_exec(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open(path, &db);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
    return rc;
}

/* FNV-1a of the file's bytes (-1 when unreadable). */
static uint64_t file_sum(const char *path)
{
    uint64_t h;
    return test_file_fnv1a64(path, &h) == 0 ? h : (uint64_t)-1;
}

static int open_code(const char *path, int create, char *err, int errlen)
{
    fia_store *s = NULL;
    int rc = fia_store_open(path, create, &s, err, errlen);
    CHECK(rc == FIA_OK ? s != NULL : s == NULL);
    fia_store_close(s);
    return rc;
}

static void test_open(void)
{
    char err[512];
    const char *p = scratch("sub/dir/a.db");
    CHECK_EQ_INT(open_code(p, 0, err, sizeof err), FIA_ERR_IO);
    CHECK(strstr(err, "a.db") != NULL);
    /* a missing directory is an error naming it, and is not made */
    CHECK_EQ_INT(open_code(p, 1, err, sizeof err), FIA_ERR_IO);
    CHECK_MSG(strstr(err, "sub/dir does not exist") != NULL, "%s", err);
    CHECK(access(scratch("sub"), F_OK) != 0);
    p = scratch("a.db");
    CHECK_EQ_INT(open_code(p, FIA_STORE_OPEN_READONLY, err, sizeof err),
                 FIA_ERR_IO); /* read-only never creates */
    fia_store *s = open_ok(p, 1);
    CHECK(s != NULL);
    fia_store_close(s);
    CHECK_EQ_INT(pragma_int(p, "PRAGMA user_version"),
                 fia_store_schema_version());
    CHECK_EQ_INT(fia_store_schema_version(), 8);
    CHECK_EQ_INT(pragma_int(p, "PRAGMA application_id"), 0x46494143);
    CHECK_EQ_INT(open_code(p, 0, err, sizeof err), FIA_OK);
    CHECK_EQ_INT(open_code(p, 1, err, sizeof err), FIA_OK);
    CHECK_EQ_INT(open_code(scratch_dir, 1, err, sizeof err),
                 FIA_ERR_IO);
    CHECK_EQ_INT(open_code("", 1, err, sizeof err), FIA_ERR_BAD_INPUT);
    CHECK_EQ_INT(open_code(p, 3, err, sizeof err), FIA_ERR_BAD_INPUT);
}

static const char v1_schema[] =
    "CREATE TABLE campaigns(id INTEGER PRIMARY KEY, revision TEXT NOT NULL,"
    " target TEXT NOT NULL, profile TEXT NOT NULL, tolerance TEXT NOT NULL"
    " DEFAULT '', seed INTEGER NOT NULL DEFAULT 0, command TEXT NOT NULL"
    " DEFAULT '', started INTEGER NOT NULL, updated INTEGER NOT NULL,"
    " execs INTEGER NOT NULL DEFAULT 0, coverage INTEGER NOT NULL DEFAULT 0,"
    " seconds REAL NOT NULL DEFAULT 0, finished INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE findings(id INTEGER PRIMARY KEY, signature TEXT NOT NULL"
    " UNIQUE, kind TEXT NOT NULL, target TEXT NOT NULL DEFAULT '', profile"
    " TEXT NOT NULL DEFAULT '', revision TEXT NOT NULL DEFAULT '',"
    " campaign_id INTEGER NOT NULL DEFAULT 0, seed INTEGER NOT NULL DEFAULT"
    " 0, case_text TEXT NOT NULL, metrics_json TEXT, message TEXT,"
    " first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL, count INTEGER"
    " NOT NULL DEFAULT 1, state TEXT NOT NULL DEFAULT 'open' CHECK (state IN"
    " ('open', 'fixed', 'regressed')));"
    "CREATE TABLE accuracy(campaign_id INTEGER NOT NULL, bucket TEXT NOT"
    " NULL, cases INTEGER NOT NULL, max_ulp REAL NOT NULL, sum_ulp REAL NOT"
    " NULL, max_rel_err REAL NOT NULL, PRIMARY KEY (campaign_id, bucket));"
    "PRAGMA application_id = 1179205955; PRAGMA user_version = 1;"
    "INSERT INTO campaigns VALUES (1, 'rev1', 'fuzz_params', 'doc', 'default',"
    " 5, 'fiacheck fuzz', 1000, 1100, 5000, 77, 100.0, 1);"
    "INSERT INTO findings VALUES (1, 'sig-a', 'status-mismatch', 'fuzz_params',"
    " 'doc', '', 1, 9, 'num_heads = 1', NULL, 'm', 1000, 1050, 3, 'open');"
    "INSERT INTO findings VALUES (2, 'sig-b', 'accuracy', 'run', 'cann',"
    " 'rev0', 0, 0, 'x = 1', '{}', NULL, 900, 950, 2, 'fixed');"
    "INSERT INTO accuracy VALUES (1, 'fp16/BNSD', 4, 2.0, 5.0, 1e-3);";

static int count_cb(const fia_store_finding *f, void *ctx)
{
    (void)f;
    ++*(int *)ctx;
    return 0;
}

static void test_migration(void)
{
    const char *p = scratch("v1.db");
    CHECK_EQ_INT(raw_exec(p, v1_schema), SQLITE_OK);
    CHECK_EQ_INT(pragma_int(p, "PRAGMA user_version"), 1);
    /* read-only: the upgrade happens in memory, the file stays v1 */
    uint64_t sum = file_sum(p);
    fia_store *s = open_ok(p, FIA_STORE_OPEN_READONLY);
    CHECK(s != NULL);
    if (s != NULL) {
        fia_store_finding f0;
        CHECK_EQ_INT(fia_store_get_finding(s, 1, &f0), FIA_OK);
        fia_store_finding_free(&f0);
        CHECK_EQ_INT(fia_store_set_state(s, 1, "fixed"), FIA_ERR_BAD_INPUT);
        CHECK(strstr(fia_store_errmsg(s), "read-only") != NULL);
        CHECK_EQ_INT(fia_store_batch_begin(s), FIA_ERR_BAD_INPUT);
        fia_store_close(s);
    }
    CHECK(file_sum(p) == sum);
    CHECK_EQ_INT(pragma_int(p, "PRAGMA user_version"), 1);
    s = open_ok(p, 0);
    CHECK(s != NULL);
    if (s == NULL)
        return;
    fia_store_finding f;
    CHECK_EQ_INT(fia_store_get_finding(s, 1, &f), FIA_OK);
    CHECK(strcmp(f.signature, "sig-a") == 0);
    CHECK_EQ_INT(f.count, 3);
    CHECK(f.minimized_text == NULL);
    CHECK_EQ_INT(f.state_changed, 1000);
    fia_store_finding_free(&f);
    /* the v1 findings became sightings: sig-a at its campaign's revision */
    fia_store_filter flt = {.revision = "rev1"};
    int n = 0;
    CHECK_EQ_INT(fia_store_list_findings(s, &flt, count_cb, &n),
                 FIA_OK);
    CHECK_EQ_INT(n, 1);
    flt.revision = "rev0";
    n = 0;
    CHECK_EQ_INT(fia_store_list_findings(s, &flt, count_cb, &n),
                 FIA_OK);
    CHECK_EQ_INT(n, 1);
    fia_store_close(s);
    CHECK_EQ_INT(pragma_int(p, "PRAGMA user_version"), 8);
    /* v6: the old campaign has no time to first finding */
    CHECK_EQ_INT(pragma_int(p, "SELECT count(*) FROM campaigns WHERE"
                               " ttff IS NULL"), 1);
    CHECK_EQ_INT(pragma_int(p, "SELECT count(*) FROM sightings"), 2);
    /* v5: samples have a case key (none for the old file's rows) */
    CHECK_EQ_INT(pragma_int(p, "SELECT count(*) FROM pragma_table_info("
                               "'accuracy_samples') WHERE name = 'case_key'"), 1);
    /* v3: the old campaign got a UUID derived from its row */
    CHECK_EQ_INT(pragma_int(p, "SELECT count(*) FROM campaigns WHERE"
                               " length(uuid) = 36"), 1);
    CHECK_EQ_INT(pragma_int(p, "SELECT count(*) FROM sightings WHERE"
                               " revision = 'rev1' AND finding_id = 1"
                               " AND count = 3"), 1);
    CHECK_EQ_INT(pragma_int(p, "SELECT count(*) FROM sightings WHERE"
                               " revision = 'rev0' AND finding_id = 2"), 1);
    /* migrated data still works with the current code */
    s = open_ok(p, 0);
    fia_finding_record r = record(1, "sig-a", "status-mismatch", NULL, "a");
    int outcome = 0;
    CHECK_EQ_INT(fia_store_add_finding_ex(s, &r, NULL, &outcome),
                 FIA_OK);
    CHECK_EQ_INT(outcome, FIA_STORE_SEEN_AGAIN);
    r = record(0, "sig-b", "accuracy", "rev2", "x = 1");
    CHECK_EQ_INT(fia_store_add_finding_ex(s, &r, NULL, &outcome),
                 FIA_OK);
    CHECK_EQ_INT(outcome, FIA_STORE_SEEN_REGRESSED);
    fia_store_close(s);
    CHECK_EQ_INT(pragma_int(p, "SELECT count FROM sightings WHERE"
                               " finding_id = 1 AND revision = 'rev1'"), 4);

    /* a store from a newer fiacheck is refused, untouched */
    const char *q = scratch("v99.db");
    CHECK_EQ_INT(raw_exec(q, "PRAGMA application_id = 1179205955;"
                             "PRAGMA user_version = 99;"
                             "CREATE TABLE future(x)"), SQLITE_OK);
    char err[512];
    CHECK_EQ_INT(open_code(q, 1, err, sizeof err), FIA_ERR_BAD_INPUT);
    CHECK(strstr(err, "newer") != NULL);
    CHECK_EQ_INT(pragma_int(q, "PRAGMA user_version"), 99);
}

static void write_bytes(const char *path, const void *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return;
    fwrite(b, 1, n, f);
    fclose(f);
}

static void test_bad_files(void)
{
    char err[512];
    /* random bytes */
    unsigned char junk[8192];
    srand(42);
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)rand();
    const char *p = scratch("junk.db");
    write_bytes(p, junk, sizeof junk);
    CHECK_EQ_INT(open_code(p, 0, err, sizeof err), FIA_ERR_CORRUPT);
    CHECK(strstr(err, "not a database") != NULL);
    CHECK_EQ_INT(open_code(p, 1, err, sizeof err), FIA_ERR_CORRUPT);
    /* a short text file */
    write_bytes(p, "hello\n", 6);
    CHECK_EQ_INT(open_code(p, 0, err, sizeof err), FIA_ERR_CORRUPT);

    /* a real store, truncated */
    const char *t = scratch("trunc.db");
    fia_store *s = open_ok(t, 1);
    int64_t cid = 0;
    fia_campaign_info info = {"r", "fuzz_params", "doc", "default", 1, "c", "", NULL, NULL};
    CHECK_EQ_INT(fia_store_campaign_begin(s, &info, &cid), FIA_OK);
    char sig[64], text[600];
    memset(text, 'x', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    for (int i = 0; i < 400; i++) {
        snprintf(sig, sizeof sig, "sig-%d", i);
        fia_finding_record r = record(cid, sig, "crash", NULL, text);
        fia_store_add_finding(s, &r, NULL);
    }
    fia_store_close(s);
    FILE *f = fopen(t, "rb");
    long size = 0;
    if (f) {
        fseek(f, 0, SEEK_END);
        size = ftell(f);
        fclose(f);
    }
    CHECK(size > 100000);
    CHECK_EQ_INT(truncate(t, size / 2), 0);
    CHECK_EQ_INT(open_code(t, 0, err, sizeof err), FIA_ERR_CORRUPT);
    CHECK(strstr(err, "damaged") != NULL || strstr(err, "malformed"));
    CHECK_EQ_INT(truncate(t, 50), 0); /* not even a header */
    CHECK_EQ_INT(open_code(t, 0, err, sizeof err), FIA_ERR_CORRUPT);

    /* someone else's SQLite database */
    const char *g = scratch("foreign.db");
    CHECK_EQ_INT(raw_exec(g, "CREATE TABLE users(name TEXT);"
                             "INSERT INTO users VALUES ('x')"), SQLITE_OK);
    CHECK_EQ_INT(open_code(g, 0, err, sizeof err), FIA_ERR_BAD_INPUT);
    CHECK(strstr(err, "not a fiacheck store") != NULL);
    CHECK_EQ_INT(open_code(g, 1, err, sizeof err), FIA_ERR_BAD_INPUT);
    CHECK_EQ_INT(pragma_int(g, "SELECT count(*) FROM sqlite_master"), 1);
    const char *o = scratch("otherapp.db");
    CHECK_EQ_INT(raw_exec(o, "PRAGMA application_id = 12345"), SQLITE_OK);
    CHECK_EQ_INT(open_code(o, 1, err, sizeof err), FIA_ERR_BAD_INPUT);
    /* an empty file: a store when creating, foreign otherwise */
    const char *e = scratch("empty.db");
    write_bytes(e, "", 0);
    CHECK_EQ_INT(open_code(e, 0, err, sizeof err), FIA_ERR_BAD_INPUT);
    CHECK_EQ_INT(open_code(e, 1, err, sizeof err), FIA_OK);
}

static void test_upsert(void)
{
    const char *p = scratch("upsert.db");
    fia_store *s = open_ok(p, 1);
    if (s == NULL)
        return;
    fia_campaign_info info = {"r1", "fuzz_params", "doc", "default", 3,
                              "fiacheck fuzz", "", NULL, NULL};
    int64_t cid = 0, id1 = 0, id2 = 0, id3 = 0;
    CHECK_EQ_INT(fia_store_campaign_begin(s, &info, &cid), FIA_OK);
    CHECK(cid > 0);
    int out = 0;
    fia_finding_record r =
        record(cid, "status|MASK-003|fp16|BNSD", "status-mismatch", NULL,
               "a long case text\nnum_heads = 8\n");
    CHECK_EQ_INT(fia_store_add_finding_ex(s, &r, &id1, &out), FIA_OK);
    CHECK_EQ_INT(out, FIA_STORE_SEEN_NEW);
    r.case_text = "short\n";
    r.seed = 99;
    CHECK_EQ_INT(fia_store_add_finding_ex(s, &r, &id2, &out), FIA_OK);
    CHECK_EQ_INT(out, FIA_STORE_SEEN_AGAIN);
    CHECK_EQ_INT(id1, id2);
    r.case_text = "a much longer case text that must not replace the kept one";
    CHECK_EQ_INT(fia_store_add_finding(s, &r, &id3), FIA_OK);
    CHECK_EQ_INT(id3, id1);
    fia_store_finding f;
    CHECK_EQ_INT(fia_store_get_finding(s, id1, &f), FIA_OK);
    CHECK_EQ_INT(f.count, 3);
    CHECK(strcmp(f.case_text, "short\n") == 0);
    CHECK_EQ_INT(f.seed, 99);
    CHECK(strcmp(f.state, "open") == 0);
    CHECK(strcmp(f.revision, "r1") == 0); /* from the campaign */
    CHECK(f.first_seen <= f.last_seen && f.first_seen > 1600000000);
    CHECK_EQ_INT(f.campaign_id, cid);
    fia_store_finding_free(&f);

    /* another signature; a finding without a campaign */
    fia_finding_record r2 = record(0, "nan-leak|fp32|BSH", "nan-leak", "r1",
                                   "case 2");
    CHECK_EQ_INT(fia_store_add_finding(s, &r2, &id2), FIA_OK);
    CHECK(id2 != id1);
    /* triage: fixed, then seen again -> regressed */
    CHECK_EQ_INT(fia_store_set_state(s, id2, "fixed"), FIA_OK);
    CHECK_EQ_INT(fia_store_add_finding_ex(s, &r2, NULL, &out), FIA_OK);
    CHECK_EQ_INT(out, FIA_STORE_SEEN_REGRESSED);
    CHECK_EQ_INT(fia_store_add_finding_ex(s, &r2, NULL, &out), FIA_OK);
    CHECK_EQ_INT(out, FIA_STORE_SEEN_AGAIN);
    CHECK_EQ_INT(fia_store_get_finding(s, id2, &f), FIA_OK);
    CHECK(strcmp(f.state, "regressed") == 0);
    CHECK_EQ_INT(f.count, 3);
    fia_store_finding_free(&f);
    CHECK_EQ_INT(fia_store_set_state(s, id2, "open"), FIA_OK);
    CHECK_EQ_INT(fia_store_set_state(s, id2, "regressed"),
                 FIA_ERR_BAD_INPUT);
    CHECK_EQ_INT(fia_store_set_state(s, 9999, "fixed"),
                 FIA_ERR_NOT_FOUND);
    CHECK(strstr(fia_store_errmsg(s), "9999") != NULL);
    CHECK_EQ_INT(fia_store_set_minimized(s, id1, "min\n"), FIA_OK);
    CHECK_EQ_INT(fia_store_set_minimized(s, 9999, "min\n"),
                 FIA_ERR_NOT_FOUND);
    CHECK_EQ_INT(fia_store_get_finding(s, id1, &f), FIA_OK);
    CHECK(f.minimized_text && strcmp(f.minimized_text, "min\n") == 0);
    fia_store_finding_free(&f);
    CHECK_EQ_INT(fia_store_get_finding(s, 9999, &f), FIA_ERR_NOT_FOUND);

    /* bad arguments */
    fia_finding_record bad = r;
    bad.signature = "";
    CHECK_EQ_INT(fia_store_add_finding(s, &bad, NULL), FIA_ERR_BAD_INPUT);
    bad = r;
    bad.campaign_id = 12345;
    CHECK_EQ_INT(fia_store_add_finding(s, &bad, NULL),
                 FIA_ERR_NOT_FOUND);
    CHECK_EQ_INT(fia_store_add_accuracy(s, cid, "b", NAN, 0),
                 FIA_ERR_BAD_INPUT);
    CHECK_EQ_INT(fia_store_campaign_update(s, 777, 1, 1, 1, 1),
                 FIA_ERR_NOT_FOUND);

    /* accuracy: cases, max, mean (sum / cases), max relative error */
    CHECK_EQ_INT(fia_store_add_accuracy(s, cid, "fp16/BNSD", 1.0, 1e-4),
                 FIA_OK);
    CHECK_EQ_INT(fia_store_add_accuracy(s, cid, "fp16/BNSD", 3.0, 2e-4),
                 FIA_OK);
    CHECK_EQ_INT(fia_store_add_accuracy(s, cid, "fp16/BNSD", 2.0, 1e-5),
                 FIA_OK);
    CHECK_EQ_INT(pragma_int(p, "SELECT cases FROM accuracy"), 3);
    CHECK_EQ_INT(pragma_int(p, "SELECT max_ulp = 3.0 AND sum_ulp = 6.0 AND"
                               " max_rel_err = 2e-4 FROM accuracy"), 1);
    /* coverage accumulates */
    CHECK_EQ_INT(fia_store_add_rule_coverage(s, cid, "MASK-003", 2, 5),
                 FIA_OK);
    CHECK_EQ_INT(fia_store_add_rule_coverage(s, cid, "MASK-003", 1, 0),
                 FIA_OK);
    CHECK_EQ_INT(pragma_int(p, "SELECT broken * 100 + obeyed FROM"
                               " rule_coverage"), 305);
    CHECK_EQ_INT(fia_store_campaign_update(s, cid, 1000, 50, 2.5, 1),
                 FIA_OK);
    fia_store_summary sum;
    CHECK_EQ_INT(fia_store_get_summary(s, &sum), FIA_OK);
    CHECK_EQ_INT(sum.campaigns, 1);
    CHECK_EQ_INT(sum.execs, 1000);
    CHECK_EQ_INT(sum.findings, 2);
    CHECK_EQ_INT(sum.sightings, 6);
    CHECK_EQ_INT(sum.open, 2);
    CHECK_EQ_INT(sum.accuracy_cases, 3);

    /* batches: rolled back entirely, or committed at once; a failing call
     * inside a batch undoes only itself */
    fia_finding_record r3 = record(cid, "batch-1", "crash", NULL, "b");
    CHECK_EQ_INT(fia_store_batch_begin(s), FIA_OK);
    CHECK_EQ_INT(fia_store_batch_begin(s), FIA_ERR_BAD_INPUT);
    CHECK_EQ_INT(fia_store_add_finding(s, &r3, NULL), FIA_OK);
    CHECK_EQ_INT(fia_store_add_accuracy(s, cid, "batch", 1, 0), FIA_OK);
    CHECK_EQ_INT(fia_store_merge(s, p), FIA_ERR_BAD_INPUT);
    CHECK_EQ_INT(fia_store_batch_end(s, 0), FIA_OK);
    CHECK_EQ_INT(fia_store_batch_end(s, 1), FIA_ERR_BAD_INPUT);
    CHECK_EQ_INT(fia_store_get_summary(s, &sum), FIA_OK);
    CHECK_EQ_INT(sum.findings, 2);
    CHECK_EQ_INT(sum.accuracy_cases, 3);
    CHECK_EQ_INT(fia_store_batch_begin(s), FIA_OK);
    CHECK_EQ_INT(fia_store_add_finding(s, &r3, NULL), FIA_OK);
    CHECK_EQ_INT(fia_store_add_finding(s, &bad, NULL), FIA_ERR_NOT_FOUND);
    CHECK_EQ_INT(fia_store_add_finding(s, &r3, NULL), FIA_OK);
    CHECK_EQ_INT(fia_store_add_accuracy(s, cid, "batch", 1, 0), FIA_OK);
    CHECK_EQ_INT(fia_store_get_summary(s, &sum), FIA_OK); /* sees it */
    CHECK_EQ_INT(sum.findings, 3);
    CHECK_EQ_INT(fia_store_batch_end(s, 1), FIA_OK);
    fia_store_close(s);
    CHECK_EQ_INT(pragma_int(p, "SELECT count FROM findings WHERE"
                               " signature = 'batch-1'"), 2);
    CHECK_EQ_INT(pragma_int(p, "SELECT sum(cases) FROM accuracy"), 4);
}

static int reg_cb(const fia_store_regression *r, void *ctx)
{
    char *seen = ctx;
    char item[128];
    if (r->finding)
        snprintf(item, sizeof item, "%d:%s;", r->kind, r->finding->signature);
    else if (r->kind == FIA_STORE_REG_ACCURACY)
        snprintf(item, sizeof item, "%d:%s;", r->kind, r->bucket->bucket);
    else
        return 0; /* buckets not worse: test_store_regress.c */
    strncat(seen, item, 1023 - strlen(seen));
    return 0;
}

static int64_t campaign(fia_store *s, const char *rev)
{
    fia_campaign_info info = {rev, "fuzz_numeric", "doc", "default", 1, "", "", NULL, NULL};
    int64_t id = 0;
    CHECK_EQ_INT(fia_store_campaign_begin(s, &info, &id), FIA_OK);
    return id;
}

static void add(fia_store *s, int64_t cid, const char *sig)
{
    fia_finding_record r = record(cid, sig, "accuracy", NULL, sig);
    CHECK_EQ_INT(fia_store_add_finding(s, &r, NULL), FIA_OK);
}

static void test_regressions(void)
{
    fia_store *s = open_ok(scratch("reg.db"), 1);
    if (s == NULL)
        return;
    int64_t base = campaign(s, "base"), head = campaign(s, "head");
    add(s, base, "old");      /* at both: not reported */
    add(s, head, "old");
    add(s, base, "gone");     /* only at base: not reported */
    add(s, head, "new");      /* only at head: NEW */
    add(s, base, "back");     /* fixed after base, seen at head: REGRESSED */
    fia_store_finding f;
    CHECK_EQ_INT(fia_store_get_finding(s, 4, &f), FIA_OK);
    CHECK(strcmp(f.signature, "back") == 0);
    CHECK_EQ_INT(fia_store_set_state(s, f.id, "fixed"), FIA_OK);
    fia_store_finding_free(&f);
    add(s, head, "back");
    /* accuracy buckets: test_store_regress.c */
    fia_store_add_accuracy(s, head, "only-head", 100, 0);
    char seen[1024] = "";
    int64_t n = -1;
    CHECK_EQ_INT(fia_store_regressions(s, "base", "head", NULL, reg_cb, seen,
                                       &n),
                 FIA_OK);
    CHECK_MSG(strcmp(seen, "2:back;1:new;") == 0, "%s", seen);
    CHECK_EQ_INT(n, 2);
    /* nothing got worse from head to head */
    CHECK_EQ_INT(fia_store_regressions(s, "head", "head", NULL, NULL, NULL,
                                       &n), FIA_OK);
    CHECK_EQ_INT(n, 1); /* "back" stays regressed until marked */
    CHECK_EQ_INT(fia_store_regressions(s, "base", "nope", NULL, NULL, NULL,
                                       &n), FIA_ERR_NOT_FOUND);
    CHECK(strstr(fia_store_errmsg(s), "nope") != NULL);
    fia_store_close(s);
}

static void test_merge(void)
{
    const char *pa = scratch("ma.db"), *pb = scratch("mb.db");
    fia_store *a = open_ok(pa, 1), *b = open_ok(pb, 1);
    if (a == NULL || b == NULL)
        return;
    int64_t ca = campaign(a, "r1"), cb = campaign(b, "r2");
    campaign(b, "r2");
    add(a, ca, "shared");
    add(a, ca, "only-a");
    add(b, cb, "shared");
    add(b, cb, "shared");
    add(b, cb, "only-b");
    fia_store_add_accuracy(a, ca, "fp16", 2, 0.1);
    fia_store_add_accuracy(b, cb, "fp16", 4, 0.2);
    fia_store_add_rule_coverage(a, ca, "R-1", 1, 1);
    fia_store_add_rule_coverage(b, cb, "R-1", 2, 3);
    fia_store_set_minimized(b, 1, "m");
    fia_store_close(b);
    CHECK_EQ_INT(fia_store_merge(a, pb), FIA_OK);
    CHECK_EQ_INT(fia_store_merge(a, pa), FIA_ERR_BAD_INPUT);
    CHECK_EQ_INT(fia_store_merge(a, scratch("missing.db")), FIA_ERR_IO);
    CHECK_EQ_INT(fia_store_merge(a, scratch("junk.db")),
                 FIA_ERR_CORRUPT);
    fia_store_summary sum;
    CHECK_EQ_INT(fia_store_get_summary(a, &sum), FIA_OK);
    CHECK_EQ_INT(sum.campaigns, 3);
    CHECK_EQ_INT(sum.findings, 3);
    CHECK_EQ_INT(sum.sightings, 5);
    fia_store_finding f;
    CHECK_EQ_INT(fia_store_get_finding(a, 1, &f), FIA_OK);
    CHECK(strcmp(f.signature, "shared") == 0);
    CHECK_EQ_INT(f.count, 3);
    CHECK(strcmp(f.last_revision, "r2") == 0 || f.last_seen == f.first_seen);
    CHECK(f.minimized_text && strcmp(f.minimized_text, "m") == 0);
    fia_store_finding_free(&f);
    /* the merged history answers regression queries across both files */
    char seen[1024] = "";
    int64_t n = 0;
    CHECK_EQ_INT(fia_store_regressions(a, "r1", "r2", NULL, reg_cb, seen,
                                       &n), FIA_OK);
    CHECK_MSG(strcmp(seen, "1:only-b;") == 0, "%s", seen);
    fia_store_close(a);
    CHECK_EQ_INT(pragma_int(pa, "SELECT sum(broken) * 100 + sum(obeyed)"
                                " FROM rule_coverage"), 304);
    CHECK_EQ_INT(pragma_int(pa, "SELECT count(*) FROM accuracy"), 2);
    CHECK_EQ_INT(pragma_int(pa, "SELECT count(*) FROM sightings s JOIN"
                                " campaigns c ON c.id = s.campaign_id"
                                " WHERE c.revision = 'r2'"), 2);
}

static int64_t summary_key(fia_store *s)
{
    fia_store_summary u;
    if (fia_store_get_summary(s, &u) != FIA_OK)
        return -1;
    return ((u.campaigns * 1000 + u.findings) * 1000 + u.sightings) * 1000 +
           u.accuracy_cases;
}

/* Merging what is already there changes nothing; a merge of several files
 * is all or nothing; a store cannot be merged into itself. */
static void test_merge_idempotent(void)
{
    const char *pa = scratch("ia.db"), *pb = scratch("ib.db");
    const char *pc = scratch("ic.db"), *pj = scratch("ijunk.db");
    fia_store *b = open_ok(pb, 1), *c = open_ok(pc, 1);
    if (b == NULL || c == NULL)
        return;
    fia_campaign_info given = {"r9", "fuzz_params", "doc", "default", 1, "",
                               "0a1b2c3d-0000-4000-8000-000000000001", NULL, NULL};
    int64_t cb = 0;
    CHECK_EQ_INT(fia_store_campaign_begin(b, &given, &cb), FIA_OK);
    CHECK_EQ_INT(fia_store_campaign_begin(b, &given, NULL),
                 FIA_ERR_BAD_INPUT); /* UUIDs are unique */
    add(b, cb, "x");
    add(b, cb, "x");
    add(b, 0, "y");
    fia_store_add_accuracy(b, cb, "fp16", 2, 0.1);
    fia_store_add_rule_coverage(b, cb, "R-1", 1, 2);
    int64_t cc = campaign(c, "r9");
    add(c, cc, "x");
    fia_store_add_accuracy(c, cc, "fp16", 1, 0.1);
    fia_store_close(c);
    write_bytes(pj, "garbage, not a database at all.", 31);

    fia_store *a = open_ok(pa, 1);
    if (a == NULL)
        return;
    const char *both[] = {pb, pc};
    CHECK_EQ_INT(fia_store_merge_files(a, both, 2), FIA_OK);
    int64_t key = summary_key(a);
    CHECK_EQ_INT(key, ((2LL * 1000 + 2) * 1000 + 4) * 1000 + 2);
    CHECK_EQ_INT(fia_store_merge_files(a, both, 2), FIA_OK);
    CHECK_EQ_INT(fia_store_merge(a, pb), FIA_OK);
    CHECK_EQ_INT(summary_key(a), key);
    /* the campaign kept its UUID */
    CHECK_EQ_INT(pragma_int(pa, "SELECT count(*) FROM campaigns WHERE uuid ="
                                " '0a1b2c3d-0000-4000-8000-000000000001'"), 1);
    /* b grows; merged again, s takes the growth only */
    add(b, cb, "x");
    fia_store_add_accuracy(b, cb, "fp16", 3, 0.1);
    CHECK_EQ_INT(fia_store_merge(a, pb), FIA_OK);
    CHECK_EQ_INT(summary_key(a), key + 1000 + 1);
    fia_store_finding f;
    CHECK_EQ_INT(fia_store_get_finding(a, 1, &f), FIA_OK);
    CHECK_EQ_INT(f.count, 4); /* 3 in b, 1 in c */
    fia_store_finding_free(&f);
    /* all or nothing */
    key = summary_key(a);
    add(b, cb, "z");
    fia_store_close(b);
    uint64_t sum = file_sum(pb);
    const char *bad[] = {pb, pc, pj};
    CHECK_EQ_INT(fia_store_merge_files(a, bad, 3), FIA_ERR_CORRUPT);
    CHECK(strstr(fia_store_errmsg(a), "ijunk.db") != NULL);
    CHECK_EQ_INT(summary_key(a), key);
    CHECK(file_sum(pb) == sum); /* sources are only read */
    const char *self[] = {pb, pa};
    CHECK_EQ_INT(fia_store_merge_files(a, self, 2), FIA_ERR_BAD_INPUT);
    CHECK(strstr(fia_store_errmsg(a), "into itself") != NULL);
    CHECK_EQ_INT(summary_key(a), key);
    fia_store_close(a);
}

/* An older source is read (and upgraded in memory) without being written,
 * and merging it twice gives its campaigns the same identity each time. */
static void test_merge_old_source(void)
{
    const char *pv = scratch("old1.db"), *pa = scratch("from_old.db");
    CHECK_EQ_INT(raw_exec(pv, v1_schema), SQLITE_OK);
    uint64_t sum = file_sum(pv);
    fia_store *a = open_ok(pa, 1);
    if (a == NULL)
        return;
    CHECK_EQ_INT(fia_store_merge(a, pv), FIA_OK);
    int64_t key = summary_key(a);
    CHECK_EQ_INT(fia_store_merge(a, pv), FIA_OK);
    CHECK_EQ_INT(summary_key(a), key);
    CHECK(file_sum(pv) == sum);
    CHECK_EQ_INT(pragma_int(pv, "PRAGMA user_version"), 1);
    fia_store_close(a);
}

static void test_export(void)
{
    fia_store *s = open_ok(scratch("reg.db"), 0);
    if (s == NULL)
        return;
    FILE *f = tmpfile();
    CHECK_EQ_INT(fia_store_export_json(s, f), FIA_OK);
    rewind(f);
    char line[4096];
    int lines = 0, findings = 0;
    while (fgets(line, sizeof line, f)) {
        lines++;
        CHECK(line[0] == '{' && strstr(line, "}\n") != NULL);
        if (strstr(line, "\"table\":\"finding\""))
            findings++;
    }
    fclose(f);
    CHECK_EQ_INT(findings, 4);
    CHECK(lines > 10);
    fia_store_close(s);
}

static int ttff_cb(const fia_store_campaign *c, void *ctx)
{
    double *out = ctx;
    out[c->id - 1] = c->ttff;
    return 0;
}

/* A campaign's time to first finding: none until set, then the smallest
 * set (workers and the parent may each report one); merged as the
 * smaller. */
static void test_ttff(void)
{
    fia_store *s = open_ok(scratch("ttff.db"), 1);
    if (s == NULL)
        return;
    int64_t a = campaign(s, "r1"), b = campaign(s, "r1");
    double t[2] = {0, 0};
    CHECK_EQ_INT(fia_store_list_campaigns(s, ttff_cb, t), FIA_OK);
    CHECK(t[0] < 0 && t[1] < 0);
    CHECK_EQ_INT(fia_store_campaign_set_ttff(s, a, 12.5), FIA_OK);
    CHECK_EQ_INT(fia_store_campaign_set_ttff(s, a, 30.0), FIA_OK);
    CHECK_EQ_INT(fia_store_list_campaigns(s, ttff_cb, t), FIA_OK);
    CHECK(t[0] == 12.5 && t[1] < 0);
    CHECK_EQ_INT(fia_store_campaign_set_ttff(s, a, 3.0), FIA_OK);
    CHECK_EQ_INT(fia_store_campaign_set_ttff(s, 99, 3.0), FIA_ERR_NOT_FOUND);
    CHECK_EQ_INT(fia_store_list_campaigns(s, ttff_cb, t), FIA_OK);
    CHECK(t[0] == 3.0 && t[1] < 0);
    (void)b;
    fia_store_close(s);
}

int main(void)
{
    test_open();
    test_migration();
    test_bad_files();
    test_upsert();
    test_regressions();
    test_merge();
    test_merge_idempotent();
    test_merge_old_source();
    test_export();
    test_ttff();
    scratch_cleanup();
    return check_summary();
}
