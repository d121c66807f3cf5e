/* store/: several processes writing one store at once lose nothing, and a
 * worker killed with SIGKILL in the middle of a campaign leaves a store
 * that opens cleanly and holds every finding it reported committed. */
#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <time.h>
#include "check.h"
#include "test_store_util.h"

#define WORKERS 4
#define PER_WORKER 500
#define SHARED 50 /* signatures every worker reports */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One worker: its own connection (never a parent's across fork). */
static int worker(const char *path, int w, int64_t campaign)
{
    fia_store *s = NULL;
    char err[512];
    if (fia_store_open(path, 1, &s, err, sizeof err) != FIA_OK) {
        fprintf(stderr, "worker %d: %s\n", w, err);
        return 1;
    }
    char sig[64], text[128];
    /* odd workers group their calls in batches of 25 */
    int batched = w % 2, rc = FIA_OK;
    for (int i = 0; i < PER_WORKER; i++) {
        if (batched && i % 25 == 0)
            rc = fia_store_batch_begin(s);
        /* every other finding is one of the shared signatures */
        if (i % 2 == 0)
            snprintf(sig, sizeof sig, "shared-%d", (i / 2) % SHARED);
        else
            snprintf(sig, sizeof sig, "w%d-%d", w, i);
        snprintf(text, sizeof text, "worker = %d\ni = %d\n", w, i);
        fia_finding_record r = record(campaign, sig, "status-mismatch",
                                      NULL, text);
        if (rc == FIA_OK)
            rc = fia_store_add_finding(s, &r, NULL);
        if (rc == FIA_OK)
            rc = fia_store_add_accuracy(s, campaign, i % 3 ? "fp16" : "bf16",
                                        (double)(i % 7), 1e-3);
        if (rc == FIA_OK && i % 50 == 0)
            rc = fia_store_add_rule_coverage(s, campaign, "MASK-001", 1, 2);
        if (rc == FIA_OK && batched && i % 25 == 24)
            rc = fia_store_batch_end(s, 1);
        if (rc != FIA_OK) {
            fprintf(stderr, "worker %d at %d: %s\n", w, i,
                    fia_store_errmsg(s));
            fia_store_close(s);
            return 1;
        }
    }
    fia_store_close(s);
    return 0;
}

static int64_t query_int(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static void test_concurrent_writers(int fresh)
{
    const char *path = scratch(fresh ? "conc_fresh.db" : "conc.db");
    int64_t cid = 1;
    if (!fresh) {
        /* the parent makes the store and the campaign first */
        fia_store *s = open_ok(path, 1);
        fia_campaign_info info = {"rev", "fuzz_params", "doc", "default", 1,
                                  "test", "", NULL, NULL};
        CHECK_EQ_INT(fia_store_campaign_begin(s, &info, &cid), FIA_OK);
        fia_store_close(s);
    } else {
        cid = 0; /* no campaign: the workers race to create the file */
    }
    double t0 = now_s();
    pid_t pids[WORKERS];
    for (int w = 0; w < WORKERS; w++) {
        pids[w] = fork();
        if (pids[w] == 0)
            _exit(worker(path, w, cid));
    }
    int ok = 1;
    for (int w = 0; w < WORKERS; w++) {
        int st = 0;
        waitpid(pids[w], &st, 0);
        ok &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    double dt = now_s() - t0;
    CHECK(ok);
    printf("concurrent writers (%s file): %d processes x %d findings + %d "
           "accuracy rows in %.2f s (%.0f transactions/s)\n",
           fresh ? "new" : "existing", WORKERS, PER_WORKER, PER_WORKER, dt,
           WORKERS * (2 * PER_WORKER + PER_WORKER / 50) / dt);

    int total = WORKERS * PER_WORKER;
    int unique = WORKERS * (PER_WORKER / 2);
    CHECK_EQ_INT(query_int(path, "SELECT sum(count) FROM findings"), total);
    CHECK_EQ_INT(query_int(path, "SELECT count(*) FROM findings"),
                 unique + SHARED);
    /* each worker reports each shared signature PER_WORKER/2/SHARED times */
    CHECK_EQ_INT(query_int(path, "SELECT count(*) FROM findings WHERE"
                                 " signature LIKE 'shared-%' AND count = "
                                 "20"), SHARED);
    CHECK_EQ_INT(query_int(path, "SELECT sum(count) FROM sightings"), total);
    CHECK_EQ_INT(query_int(path, "SELECT sum(cases) FROM accuracy"), total);
    /* sum of i % 7 over i < 500, times the workers: exact in a double */
    long long ulps = 0;
    for (int i = 0; i < PER_WORKER; i++)
        ulps += i % 7;
    CHECK_EQ_INT(query_int(path, "SELECT CAST(sum(sum_ulp) AS INTEGER)"
                                 " FROM accuracy"), WORKERS * ulps);
    CHECK_EQ_INT(query_int(path, "SELECT sum(broken) * 1000 + sum(obeyed)"
                                 " FROM rule_coverage"),
                 WORKERS * 10 * 1000 + WORKERS * 10 * 2);
    fia_store *s = open_ok(path, 0);
    CHECK(s != NULL);
    fia_store_close(s);
}

/* The child adds findings until killed, reporting on the pipe the number
 * it has seen committed (fia_store_add_finding returned OK). */
static void killed_child(const char *path, int fd, int64_t cid, int round)
{
    fia_store *s = NULL;
    char err[512];
    if (fia_store_open(path, 0, &s, err, sizeof err) != FIA_OK)
        _exit(3);
    char sig[64], text[256];
    for (int32_t i = 0;; i++) {
        snprintf(sig, sizeof sig, "kill%d-%d", round, i);
        snprintf(text, sizeof text, "i = %d\n%0200d\n", i, 0);
        fia_finding_record r = record(cid, sig, "crash", NULL, text);
        if (fia_store_add_finding(s, &r, NULL) != FIA_OK)
            _exit(4);
        fia_store_add_accuracy(s, cid, "fp32", 1.0, 0.0);
        int32_t n = i + 1;
        if (write(fd, &n, sizeof n) != (ssize_t)sizeof n)
            _exit(5);
    }
}

static void test_kill(void)
{
    const char *path = scratch("kill.db");
    fia_store *s = open_ok(path, 1);
    fia_campaign_info info = {"rev", "fuzz_numeric", "doc", "default", 1, "", "", NULL, NULL};
    int64_t cid = 0;
    CHECK_EQ_INT(fia_store_campaign_begin(s, &info, &cid), FIA_OK);
    fia_store_close(s);
    for (int round = 0; round < 3; round++) {
        int fds[2];
        if (pipe(fds) != 0)
            return;
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            killed_child(path, fds[1], cid, round);
        }
        close(fds[1]);
        /* let it run a while: until it reports 300 (+ a different delay
         * each round), then kill it wherever it is */
        int32_t last = 0, n;
        while (last < 300 + 97 * round &&
               read(fds[0], &n, sizeof n) == (ssize_t)sizeof n)
            last = n;
        kill(pid, SIGKILL);
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
        while (read(fds[0], &n, sizeof n) == (ssize_t)sizeof n)
            last = n; /* the reports written before the kill */
        close(fds[0]);

        char err[512];
        s = NULL;
        CHECK_EQ_INT(fia_store_open(path, 0, &s, err, sizeof err),
                     FIA_OK);
        fia_store_close(s);
        CHECK_EQ_INT(query_int(path, "SELECT count(*) FROM"
                                     " pragma_integrity_check WHERE"
                                     " integrity_check <> 'ok'"), 0);
        char sql[200];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM findings WHERE"
                 " signature LIKE 'kill%d-%%' AND CAST(substr(signature, %d)"
                 " AS INTEGER) < %d", round, round < 10 ? 7 : 8, last);
        int64_t have = query_int(path, sql);
        snprintf(sql, sizeof sql, "SELECT count(*) FROM findings WHERE"
                 " signature LIKE 'kill%d-%%'", round);
        int64_t total = query_int(path, sql);
        CHECK_EQ_INT(have, last);
        /* at most the one in flight beyond what was reported */
        CHECK_MSG(total == last || total == last + 1,
                  "%lld findings, %d reported", (long long)total, last);
        printf("kill round %d: %d findings reported committed, %lld in the "
               "store\n", round, last, (long long)total);
        CHECK_EQ_INT(query_int(path, "SELECT count(*) FROM findings"
                                     " WHERE count <> 1"), 0);
    }
}

int main(void)
{
    test_concurrent_writers(0);
    test_concurrent_writers(1);
    test_kill();
    scratch_cleanup();
    return check_summary();
}
