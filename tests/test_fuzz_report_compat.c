/* A worker records a finding under a compatible name it or the store has
 * already (fuzz_signature_compatible: one path, "spread" is no region
 * shown, accuracy / nan-leak / metamorphic alike), so one bug seen in cases
 * with and without the contrast of a region, or by another target, is one
 * finding; different regions and paths, and other kinds, stay apart. */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "fia/store.h"
#include "fuzz/fuzz.h"

static const char *small_case =
    "input_layout = BNSD\nnum_heads = 2\nscale = 0.5\n"
    "query = fp16 [1,2,1,16]\nkey = fp16 [1,2,8,16]\nvalue = fp16 [1,2,8,16]\n";

static void report(const fia_case *c, const char *kind, const char *sig)
{
    fuzz_finding fd;
    fuzz_finding_of_artifact(&fd, c, kind, FUZZ_NUMERIC, "doc", "", "", "m");
    snprintf(fd.kind, sizeof fd.kind, "%s", kind);
    snprintf(fd.signature, sizeof fd.signature, "%s", sig);
    fuzz_report_finding(c, &fd);
}

typedef struct seen {
    int n;
    char sig[8][96];
    int64_t count[8];
} seen;

static int collect(const fia_store_finding *f, void *ctx)
{
    seen *s = ctx;
    if (s->n < 8) {
        snprintf(s->sig[s->n], sizeof s->sig[0], "%s", f->signature);
        s->count[s->n++] = f->count;
    }
    return 0;
}

int main(void)
{
    char dir[] = "/tmp/fia_compat_XXXXXX", db[96], id[32];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(db, sizeof db, "%s/x.db", dir);
    fia_store *s = NULL;
    char e[256];
    CHECK(fia_store_open(db, FIA_STORE_OPEN_CREATE, &s, e, sizeof e) ==
          FIA_OK);
    fia_campaign_info info = {"r1", "fuzz_numeric", "doc", "bound", 1, "t",
                              "", NULL, NULL};
    int64_t camp = 0;
    CHECK(fia_store_campaign_begin(s, &info, &camp) == FIA_OK);
    /* another worker's finding, in the store only */
    fia_finding_record rec = {camp, "accuracy|decode|kv64", "accuracy",
                              "fuzz_numeric", "doc", "r1", small_case, 1,
                              NULL, "m", NULL};
    CHECK(fia_store_add_finding(s, &rec, NULL) == FIA_OK);
    fia_store_close(s);

    snprintf(id, sizeof id, "%lld", (long long)camp);
    setenv("FIACHECK_DB", db, 1);
    setenv("FIACHECK_CAMPAIGN", id, 1);
    unsetenv("FIACHECK_UNSTORED");
    unsetenv("FIACHECK_STATS");
    fuzz_report_init(FUZZ_NUMERIC);
    fuzz_report_quiet(1);
    fia_case c;
    fia_error err;
    CHECK(fia_case_parse_string(small_case, "small", &c, &err) == FIA_OK);
    report(&c, "accuracy", "accuracy|decode|spread");     /* -> kv64 */
    report(&c, "accuracy", "accuracy|prefill|spread");    /* new path */
    report(&c, "accuracy", "accuracy|decode|head>g0");    /* new region */
    report(&c, "accuracy", "accuracy|prefill|batch>0");   /* -> prefill */
    report(&c, "nan-leak", "nan-leak|decode|spread");     /* -> kv64 */
    report(&c, "metamorphic", "metamorphic|prefill|dtail"); /* -> prefill */
    report(&c, "metamorphic", "metamorphic|phase-two");   /* new */
    report(&c, "crash", "crash|fuzz_numeric|SEGV@fast/attention"); /* new */
    fia_case_free(&c);
    fuzz_report_flush();

    CHECK(fia_store_open(db, 0, &s, e, sizeof e) == FIA_OK);
    seen got = {0};
    CHECK(fia_store_list_findings(s, NULL, collect, &got) == FIA_OK);
    fia_store_close(s);
    static const char *const want[] = {
        "accuracy|decode|kv64", "accuracy|prefill|spread",
        "accuracy|decode|head>g0", "metamorphic|phase-two",
        "crash|fuzz_numeric|SEGV@fast/attention"};
    /* a worker stores a name once: decode|spread met kv64 in the store (a
     * sighting); prefill|batch>0 and metamorphic|prefill|dtail met
     * prefill|spread in its own set; nan-leak|decode|spread met kv64 */
    static const int64_t want_count[] = {2, 1, 1, 1, 1};
    CHECK_EQ_INT(got.n, 5);
    for (int i = 0; i < got.n && i < 5; i++) {
        CHECK_MSG(strcmp(got.sig[i], want[i]) == 0, "finding %d: %s, not %s",
                  i, got.sig[i], want[i]);
        CHECK_MSG(got.count[i] == want_count[i], "%s: count %lld, not %lld",
                  got.sig[i], (long long)got.count[i],
                  (long long)want_count[i]);
    }
    unlink(db);
    char side[120];
    snprintf(side, sizeof side, "%s-wal", db);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db);
    unlink(side);
    rmdir(dir);
    return check_summary();
}
