/* store/: what keeps a store small and whole — the cap on worst cases per
 * campaign (written and merged), pruning campaigns (every selector, the
 * findings they leave, worst cases only), VACUUM, and a connection that
 * wrote leaving no rows in the WAL when it closes while another stays
 * open (a survey's case: its fuzz target holds a second one). */
#include <sys/stat.h>
#include "check.h"
#include "test_store_util.h"

static int64_t campaign(fia_store *s, const char *rev, const char *target,
                        const char *sut)
{
    fia_campaign_info info = {rev, target, "doc", "bound", 1, "", "", sut,
                              NULL};
    int64_t id = 0;
    CHECK_EQ_INT(fia_store_campaign_begin(s, &info, &id), FIA_OK);
    return id;
}

/* The accuracy samples counted (db stats' cases). */
static int64_t cases(fia_store *s)
{
    fia_store_summary sum;
    CHECK_EQ_INT(fia_store_get_summary(s, &sum), FIA_OK);
    return sum.accuracy_cases;
}

static int64_t file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (int64_t)sb.st_size : -1;
}

/* Worst cases of buckets b0..b(n-1) with ratio i / n each. */
static void worsts(fia_store *s, int64_t cid, int n, const char *text)
{
    CHECK_EQ_INT(fia_store_batch_begin(s), FIA_OK);
    for (int i = 0; i < n; i++) {
        char b[32];
        snprintf(b, sizeof b, "b%05d", i);
        CHECK_EQ_INT(fia_store_add_accuracy_sample(s, cid, b, 1, 0.1,
                                                   (double)i / n, NULL, text),
                     FIA_OK);
    }
    CHECK_EQ_INT(fia_store_batch_end(s, 1), FIA_OK);
}

static int has_worst(fia_store *s, const char *rev, int i)
{
    char b[32], *text = NULL;
    snprintf(b, sizeof b, "b%05d", i);
    int rc = fia_store_worst_case(s, rev, b, &text, NULL, NULL);
    free(text);
    return rc == FIA_OK;
}

static void test_cap(void)
{
    const int cap = FIA_STORE_WORST_PER_CAMPAIGN, n = cap + 50;
    fia_store *s = open_ok(scratch("cap.db"), FIA_STORE_OPEN_CREATE);
    CHECK(s != NULL);
    if (s == NULL)
        return;
    int64_t c = campaign(s, "r1", "survey", NULL);
    worsts(s, c, n, "# a case\n");
    /* the largest ratios win */
    CHECK(!has_worst(s, "r1", 0));
    CHECK(!has_worst(s, "r1", 49));
    CHECK(has_worst(s, "r1", 50));
    CHECK(has_worst(s, "r1", n - 1));
    /* a larger ratio for a bucket that fell out comes back in */
    CHECK_EQ_INT(fia_store_add_accuracy_sample(s, c, "b00000", 1, 0.1, 5.0,
                                               NULL, "# back\n"),
                 FIA_OK);
    CHECK(has_worst(s, "r1", 0));
    CHECK(!has_worst(s, "r1", 50));
    fia_store_close(s);

    /* a merge keeps the cap: two copies of one campaign with other
     * buckets each give the cap's worst of their union */
    fia_store *a = open_ok(scratch("cap_a.db"), FIA_STORE_OPEN_CREATE);
    fia_store *b = open_ok(scratch("cap_b.db"), FIA_STORE_OPEN_CREATE);
    CHECK(a != NULL && b != NULL);
    if (a == NULL || b == NULL)
        return;
    fia_campaign_info info = {"r2", "survey", "doc", "bound", 1, "", "", NULL,
                              NULL};
    snprintf(info.uuid, sizeof info.uuid,
             "00000000-0000-4000-8000-000000000001");
    int64_t ca = 0, cb = 0;
    CHECK_EQ_INT(fia_store_campaign_begin(a, &info, &ca), FIA_OK);
    CHECK_EQ_INT(fia_store_campaign_begin(b, &info, &cb), FIA_OK);
    CHECK_EQ_INT(fia_store_batch_begin(b), FIA_OK);
    for (int i = 0; i < cap; i++) {
        char bk[32];
        snprintf(bk, sizeof bk, "c%05d", i);
        CHECK_EQ_INT(fia_store_add_accuracy_sample(b, cb, bk, 1, 0.1,
                                                   2.0 + i, NULL, "# c\n"),
                     FIA_OK);
    }
    CHECK_EQ_INT(fia_store_batch_end(b, 1), FIA_OK);
    worsts(a, ca, 10, "# a\n");
    fia_store_close(b);
    CHECK_EQ_INT(fia_store_merge(a, scratch("cap_b.db")), FIA_OK);
    CHECK(!has_worst(a, "r2", 9)); /* b's are all larger */
    char *text = NULL;
    CHECK_EQ_INT(fia_store_worst_case(a, "r2", "c00000", &text, NULL, NULL),
                 FIA_OK);
    free(text);
    fia_store_close(a);
}

/* A store of four campaigns: r1 survey fast (old), r2 survey example,
 * r2 fuzz_numeric fast, r3 survey fast; a finding sighted in r1 only and
 * one sighted in r1 and r3. */
static fia_store *four(const char *name, int64_t id[4])
{
    fia_store *s = open_ok(scratch(name), FIA_STORE_OPEN_CREATE);
    CHECK(s != NULL);
    if (s == NULL)
        return NULL;
    id[0] = campaign(s, "r1", "survey", NULL);
    id[1] = campaign(s, "r2", "survey", "example");
    id[2] = campaign(s, "r2", "fuzz_numeric", NULL);
    id[3] = campaign(s, "r3", "survey", NULL);
    for (int k = 0; k < 4; k++)
        worsts(s, id[k], 5, "# w\n");
    fia_finding_record f = record(id[0], "sig-only-r1", "accuracy", NULL,
                                  "# case\n");
    CHECK_EQ_INT(fia_store_add_finding(s, &f, NULL), FIA_OK);
    f = record(id[0], "sig-both", "accuracy", NULL, "# case\n");
    CHECK_EQ_INT(fia_store_add_finding(s, &f, NULL), FIA_OK);
    f.campaign_id = id[3];
    CHECK_EQ_INT(fia_store_add_finding(s, &f, NULL), FIA_OK);
    CHECK_EQ_INT(fia_store_add_rule_coverage(s, id[0], "R-1", 1, 2),
                 FIA_OK);
    return s;
}

static int64_t campaigns(fia_store *s)
{
    fia_store_summary sum;
    CHECK_EQ_INT(fia_store_get_summary(s, &sum), FIA_OK);
    return sum.campaigns;
}

static void test_prune(void)
{
    int64_t id[4];
    fia_store_prune_counts c;
    fia_store_prune_filter f;

    /* by revision: the campaign, its rows, and the finding it alone saw */
    fia_store *s = four("p1.db", id);
    if (s == NULL)
        return;
    memset(&f, 0, sizeof f);
    f.revision = "r1";
    CHECK_EQ_INT(fia_store_prune(s, &f, &c), FIA_OK);
    CHECK_EQ_INT(c.campaigns, 1);
    CHECK_EQ_INT(c.findings, 1);
    CHECK_EQ_INT(c.sightings, 2);
    CHECK_EQ_INT(c.samples, 5);
    CHECK_EQ_INT(c.worst_cases, 5);
    CHECK_EQ_INT(campaigns(s), 3);
    CHECK_EQ_INT(cases(s), 15);
    fia_store_finding fd;
    CHECK_EQ_INT(fia_store_get_finding(s, 1, &fd), FIA_ERR_NOT_FOUND);
    CHECK_EQ_INT(fia_store_get_finding(s, 2, &fd), FIA_OK);
    CHECK_EQ_INT(fd.count, 1);         /* the r3 sighting is left */
    CHECK_EQ_INT(fd.campaign_id, 0);   /* its first campaign is gone */
    fia_store_finding_free(&fd);
    fia_store_close(s);

    /* by system, by target, both at once (every field must match) */
    s = four("p2.db", id);
    if (s == NULL)
        return;
    memset(&f, 0, sizeof f);
    f.sut = "example";
    CHECK_EQ_INT(fia_store_prune(s, &f, &c), FIA_OK);
    CHECK_EQ_INT(c.campaigns, 1);
    f.sut = "fast";
    f.target = "fuzz_numeric";
    CHECK_EQ_INT(fia_store_prune(s, &f, &c), FIA_OK);
    CHECK_EQ_INT(c.campaigns, 1);
    CHECK_EQ_INT(campaigns(s), 2);
    f.target = "nothing-like-it";
    CHECK_EQ_INT(fia_store_prune(s, &f, &c), FIA_OK);
    CHECK_EQ_INT(c.campaigns, 0);
    fia_store_close(s);

    /* before a revision's first campaign, before a date, worst cases only */
    s = four("p3.db", id);
    if (s == NULL)
        return;
    memset(&f, 0, sizeof f);
    f.before_revision = "nope";
    CHECK_EQ_INT(fia_store_prune(s, &f, &c), FIA_ERR_NOT_FOUND);
    CHECK(strstr(fia_store_errmsg(s), "no campaign at revision") != NULL);
    f.before_revision = "r3"; /* all started within the same second */
    CHECK_EQ_INT(fia_store_prune(s, &f, &c), FIA_OK);
    CHECK_EQ_INT(c.campaigns, 0);
    memset(&f, 0, sizeof f);
    f.before = 1; /* 1970: nothing */
    CHECK_EQ_INT(fia_store_prune(s, &f, &c), FIA_OK);
    CHECK_EQ_INT(c.campaigns, 0);
    f.before = 4102444800; /* 2100: everything */
    f.worst_only = 1;
    CHECK_EQ_INT(fia_store_prune(s, &f, &c), FIA_OK);
    CHECK_EQ_INT(c.campaigns, 4);
    CHECK_EQ_INT(c.worst_cases, 20);
    CHECK_EQ_INT(c.findings, 0);
    CHECK_EQ_INT(campaigns(s), 4);
    CHECK_EQ_INT(cases(s), 20); /* samples stay */
    CHECK(!has_worst(s, "r1", 4));
    /* all */
    memset(&f, 0, sizeof f);
    f.all = 1;
    CHECK_EQ_INT(fia_store_prune(s, &f, &c), FIA_OK);
    CHECK_EQ_INT(c.campaigns, 4);
    CHECK_EQ_INT(c.findings, 2);
    CHECK_EQ_INT(campaigns(s), 0);
    /* nothing selected, two "before"s: refused, nothing done */
    memset(&f, 0, sizeof f);
    CHECK_EQ_INT(fia_store_prune(s, &f, &c), FIA_ERR_BAD_INPUT);
    f.before = 5;
    f.before_revision = "r1";
    CHECK_EQ_INT(fia_store_prune(s, &f, &c), FIA_ERR_BAD_INPUT);
    CHECK_EQ_INT(fia_store_prune(s, NULL, &c), FIA_ERR_BAD_INPUT);
    CHECK_EQ_INT(fia_store_prune(NULL, &f, &c), FIA_ERR_BAD_INPUT);
    fia_store_close(s);
}

static void test_vacuum(void)
{
    fia_store *s = open_ok(scratch("v.db"), FIA_STORE_OPEN_CREATE);
    CHECK(s != NULL);
    if (s == NULL)
        return;
    char big[20000];
    memset(big, '#', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    int64_t c = campaign(s, "r1", "survey", NULL);
    worsts(s, c, 200, big);
    fia_store_prune_filter f = {.all = 1};
    CHECK_EQ_INT(fia_store_prune(s, &f, NULL), FIA_OK);
    int64_t before = 0, after = 0;
    CHECK_EQ_INT(fia_store_vacuum(s, &before, &after), FIA_OK);
    CHECK_MSG(before > 2000000 && after < 200000, "%lld -> %lld bytes",
              (long long)before, (long long)after);
    CHECK_EQ_INT(file_size(scratch("v.db")), after);
    fia_store_close(s);
    fia_store *r = open_ok(scratch("v.db"), FIA_STORE_OPEN_READONLY);
    CHECK(r != NULL);
    CHECK_EQ_INT(fia_store_vacuum(r, NULL, NULL), FIA_ERR_BAD_INPUT);
    fia_store_close(r);
}

/* Closing a connection that wrote while another (idle) one stays open:
 * the file alone then holds every row, its WAL is empty. */
static void test_checkpoint_on_close(void)
{
    const char *path = scratch("wal.db");
    fia_store *a = open_ok(path, FIA_STORE_OPEN_CREATE);
    fia_store *b = open_ok(path, FIA_STORE_OPEN_EXISTING);
    CHECK(a != NULL && b != NULL);
    if (a == NULL || b == NULL)
        return;
    int64_t c = campaign(a, "r1", "survey", NULL);
    worsts(b, c, 100, "# w\n");
    CHECK_EQ_INT(fia_store_campaign_update(a, c, 100, 0, 1, 1), FIA_OK);
    fia_store_close(a); /* b stays open, as a survey's fuzz target's */
    char wal[300], cmd[700];
    snprintf(wal, sizeof wal, "%s-wal", path);
    CHECK_MSG(file_size(wal) <= 0, "%lld bytes left in the WAL",
              (long long)file_size(wal));
    /* a copy of the file alone */
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/copy' && cp '%s' '%s/copy/'",
             scratch_dir, path, scratch_dir);
    CHECK(system(cmd) == 0);
    fia_store *cp = open_ok(scratch("copy/wal.db"), FIA_STORE_OPEN_READONLY);
    CHECK(cp != NULL);
    if (cp != NULL) {
        CHECK_EQ_INT(cases(cp), 100);
        CHECK_EQ_INT(campaigns(cp), 1);
        fia_store_close(cp);
    }
    fia_store_close(b);
    /* a connection that only read leaves the file alone */
    fia_store *r = open_ok(path, FIA_STORE_OPEN_EXISTING);
    CHECK(r != NULL);
    CHECK_EQ_INT(campaigns(r), 1);
    fia_store_close(r);
}

int main(void)
{
    test_cap();
    test_prune();
    test_vacuum();
    test_checkpoint_on_close();
    scratch_cleanup();
    return check_summary();
}
