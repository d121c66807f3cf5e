/* `judge --db`: the judged cases as a campaign of the device's system at
 * its version, through the fuzz targets' own reporting (fuzz_report_*), as
 * `survey` stores its cases: the same findings and signatures, accuracy
 * samples keyed by the case's digest (so `db regressions` pairs the same
 * case at two driver versions), rule coverage. */
#define _XOPEN_SOURCE 700 /* realpath, setenv */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "cli_judge_store.h"
#include "fia/store.h"

static struct {
    fia_store *st;
    int64_t campaign;
    time_t t0;
    char db[PATH_MAX], spool[PATH_MAX + 64];
} J;

fia_status cli_judge_store_begin(const char *db, const char *system,
                                 const char *version, fia_profile profile,
                                 const fia_check_options *tol,
                                 const char *command)
{
    char err[512], tolerance[96], id[32];
    fia_status rc = fia_store_open(db, FIA_STORE_OPEN_CREATE, &J.st, err,
                                   sizeof err);
    if (rc != FIA_OK) {
        fprintf(stderr, "fiacheck judge: %s\n", err);
        return rc;
    }
    cli_tolerance_text(tol, tolerance, sizeof tolerance);
    fia_campaign_info ci = {version, "judge", fia_profile_name(profile),
                            tolerance, 0, command, "", system,
                            cli_build_revision()};
    if ((rc = fia_store_campaign_begin(J.st, &ci, &J.campaign)) != FIA_OK) {
        fprintf(stderr, "fiacheck judge: %s\n", fia_store_errmsg(J.st));
        fia_store_close(J.st);
        J.st = NULL;
        return rc;
    }
    J.t0 = time(NULL);
    if (db[0] == '/' || realpath(db, J.db) == NULL)
        snprintf(J.db, sizeof J.db, "%s", db);
    snprintf(id, sizeof id, "%lld", (long long)J.campaign);
    /* the reporting reads its store, campaign and settings from these */
    setenv("FIACHECK_DB", J.db, 1);
    setenv("FIACHECK_CAMPAIGN", id, 1);
    setenv("FIACHECK_REVISION", version, 1);
    setenv("FIACHECK_ON_FINDING", "record", 1);
    setenv("FIACHECK_PROFILE", fia_profile_name(profile), 1);
    setenv("FIACHECK_TOLERANCE", tolerance, 1);
    unsetenv("FIACHECK_FAST_PROFILE");
    unsetenv("FIACHECK_STATS");
    unsetenv("FIACHECK_SUT"); /* the replay is the system, set per case */
    /* a finding the store refuses is spooled beside it, as survey's */
    snprintf(J.spool, sizeof J.spool, "%s", J.db);
    char *sl = strrchr(J.spool, '/');
    size_t at = sl ? (size_t)(sl + 1 - J.spool) : 0;
    snprintf(J.spool + at, sizeof J.spool - at, "unstored");
    (void)mkdir(J.spool, 0777);
    at = strlen(J.spool);
    snprintf(J.spool + at, sizeof J.spool - at, "/judge-%lld",
             (long long)J.campaign);
    if (mkdir(J.spool, 0777) == 0)
        setenv("FIACHECK_UNSTORED", J.spool, 1);
    else
        unsetenv("FIACHECK_UNSTORED");
    fuzz_report_init(FUZZ_NUMERIC);
    fuzz_report_quiet(1); /* judge prints its own verdicts */
    return FIA_OK;
}

int cli_judge_store_active(void)
{
    return J.st != NULL;
}

void cli_judge_store_case(const fia_case *c, const fia_check_result *r,
                          fia_profile profile)
{
    if (J.st == NULL)
        return;
    fuzz_report_verdict(c, r, profile);
    fuzz_report_exec();
}

fia_status cli_judge_store_end(const char *db)
{
    if (J.st == NULL)
        return FIA_OK;
    fuzz_report_flush();
    const fuzz_counters *n = fuzz_report_counters();
    size_t unstored = fuzz_report_unstored();
    fia_status rc = fia_store_campaign_update(J.st, J.campaign, n->execs, 0,
                                       difftime(time(NULL), J.t0), 1);
    if (rc != FIA_OK)
        fprintf(stderr, "fiacheck judge: %s\n", fia_store_errmsg(J.st));
    fia_store_close(J.st);
    J.st = NULL;
    if (unstored == 0)
        (void)rmdir(J.spool);
    fprintf(stderr, "fiacheck judge: stored as campaign %lld in %s: %lld "
            "cases, %lld findings\n",
           (long long)J.campaign, db, (long long)n->execs,
           (long long)n->findings);
    if (unstored > 0 || rc != FIA_OK) {
        fprintf(stderr, "fiacheck judge: %zu finding(s) could not be stored "
                "in %s (their case files: %s)\n", unstored, db, J.spool);
        return rc != FIA_OK ? rc : FIA_ERR_IO;
    }
    return FIA_OK;
}
