/* `fiacheck fuzz [--target T|all] [--time SECONDS] [--jobs N] [--db PATH]
 *                [--workdir DIR] [--profile doc|cann] [--seed N]`
 *
 * Runs the libFuzzer binaries fuzz_<target> that sit beside this executable
 * (built by fuzz/build.sh with clang; fiacheck builds nothing itself), the
 * targets side by side from the first second (fuzz_workers.c says how the
 * jobs are shared).  The workers record findings, rule coverage and
 * accuracy in the store themselves (FIACHECK_DB, FIACHECK_CAMPAIGN); this
 * command begins the campaigns, turns crash-/timeout-/oom- artifacts into
 * findings (fuzz_artifacts.c), records each target's time to first finding
 * and prints a summary.  Exit 0 no finding, 1 findings, 2 usage, missing
 * binaries, an unwritable working directory or findings the store did not
 * take (their case files are named), 128 + the signal when SIGINT or
 * SIGTERM stopped it.
 *
 * Each target's campaign has a UUID; its files sit in the working
 * directory (--workdir, else the store's folder), keyed by it, so that
 * campaigns of different stores never mix: stats/<uuid>/ (the workers'
 * counters), artifacts/<uuid>/, logs/<uuid>.log, tmp/<uuid>/ (the workers'
 * TMPDIR, removed at the end) and unstored/<uuid>/ (findings the store
 * refused, spooled as case files).  The corpus, corpus/<target>/, is shared
 * by the campaigns: it is what they build on. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "fuzz_runner.h"
#include "fia/sut_host.h"
#include "fuzz/fuzz.h"
#ifdef FIA_HAVE_STORE
#include "fia/store.h"
#endif


static void exe_dir(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    if (n <= 0) {
        snprintf(out, len, ".");
        return;
    }
    out[n] = '\0';
    char *slash = strrchr(out, '/');
    if (slash != NULL)
        *slash = '\0';
}

static const char help_text[] =
    "usage: fiacheck fuzz [OPTIONS]\n"
    "Runs the libFuzzer targets beside fiacheck side by side, into a store.\n"
    "  --target params|numeric|metamorphic|all   the target (default all; once)\n"
    "  --time SECONDS    the campaign's time, 1..31536000 (default 60)\n"
    "  --jobs N          CPUs for libFuzzer workers, 1..64 (default 1): one\n"
    "                    worker each, round-robin over the targets; fewer jobs\n"
    "                    than targets: the targets' workers share N CPUs\n"
    "  --db PATH         the store (default results/findings.db)\n"
    "  --workdir DIR     corpus, stats, artifacts, logs (default: the store's folder)\n"
    "  --profile doc|cann  the rule profile to check (default both)\n"
    "  --seed N          campaign seed, 1..4294967295 (default random; stored);\n"
    "                    target k of params, numeric, metamorphic runs with N + k\n"
    "  --revision NAME   the revision to store (default: the build's, or\n"
    "                    the --sut plug-in's version)\n"
    "  --sut PATH        fuzz the plug-in at PATH instead of fast/ "
    "(docs/sut.md)\n"
    "  -h, --help        this help\n"
    "Exit 0 no finding, 1 findings, 2 usage, missing binaries, an unwritable\n"
    "working directory or findings the store did not take; 130 on SIGINT.\n";

static void print_usage(FILE *f)
{
    fputs(help_text, f);
}

/* The usage on stderr, after an option's error: FIA_ERR_BAD_INPUT. */
static fia_status usage(void)
{
    fprintf(stderr, "usage: fiacheck fuzz [--target params|numeric|metamorphic|all] "
            "[--time SECONDS] [--jobs N] [--db PATH] [--workdir DIR] "
            "[--profile doc|cann] [--seed N] [--revision NAME] "
            "(fiacheck fuzz --help)\n");
    return FIA_ERR_BAD_INPUT;
}

/* The options of a campaign. */
typedef struct fuzz_opts {
    int want[FUZZ_TARGET_COUNT];
    int seconds, jobs;
    long long seed;         /* 0: none given, drawn at random */
    const char *db;
    const char *workdir;    /* NULL: the store's folder */
    const char *profile;    /* NULL: both */
    const char *revision;   /* NULL: the one fiacheck was built from */
} fuzz_opts;

/* v as a whole decimal number within lo..hi into *out; FIA_OK, or
 * FIA_ERR_BAD_INPUT said. */
static fia_status parse_number(const char *opt, const char *v, long long lo,
                               long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (v[0] == '\0' || *end != '\0' || errno != 0 || x < lo || x > hi) {
        fprintf(stderr, "fiacheck fuzz: %s takes a whole number of %lld..%lld, "
                "not '%s'\n", opt, lo, hi, v);
        return FIA_ERR_BAD_INPUT;
    }
    *out = x;
    return FIA_OK;
}

/* FIA_OK, or FIA_ERR_BAD_INPUT after the usage was said (-h and --help are
 * cmd_fuzz's, before). */
static fia_status parse_args(int argc, char **argv, fuzz_opts *o)
{
    memset(o, 0, sizeof *o); /* every option unset (revision was not) */
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++)
        o->want[t] = 1;
    o->seconds = 60, o->jobs = 1, o->seed = 0;
    o->db = "results/findings.db", o->workdir = NULL, o->profile = NULL;
    /* every option takes a value and may be given once (cli_once) */
    static const char *const value_opts[] = {
        "--target", "--time",    "--jobs",     "--db",
        "--workdir", "--profile", "--revision", "--seed"};
    int seen[sizeof value_opts / sizeof value_opts[0]] = {0};
    for (int i = 0; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long long x;
        if (v == NULL) {
            fprintf(stderr, "fiacheck fuzz: %s needs a value\n", a);
            return usage();
        }
        for (size_t k = 0; k < sizeof value_opts / sizeof value_opts[0]; k++)
            if (strcmp(a, value_opts[k]) == 0 &&
                cli_once("fuzz", a, &seen[k]) != 0)
                return usage();
        if (strcmp(a, "--target") == 0) {
            if (strcmp(v, "all") != 0) {
                int t = fuzz_target_from_name(v);
                if (t < 0) {
                    fprintf(stderr, "fiacheck fuzz: unknown target '%s'\n", v);
                    return usage();
                }
                memset(o->want, 0, sizeof o->want);
                o->want[t] = 1;
            }
        } else if (strcmp(a, "--time") == 0) {
            if (parse_number(a, v, 1, 31536000, &x) != FIA_OK)
                return usage();
            o->seconds = (int)x;
        } else if (strcmp(a, "--jobs") == 0) {
            if (parse_number(a, v, 1, 64, &x) != FIA_OK)
                return usage();
            o->jobs = (int)x;
        } else if (strcmp(a, "--db") == 0) {
            o->db = v;
        } else if (strcmp(a, "--workdir") == 0) {
            o->workdir = v;
        } else if (strcmp(a, "--profile") == 0) {
            fia_profile p;
            if (fia_profile_parse(v, &p) != 0) {
                fprintf(stderr, "fiacheck fuzz: unknown profile '%s'\n", v);
                return usage();
            }
            o->profile = v;
        } else if (strcmp(a, "--revision") == 0 && v && *v) {
            o->revision = v;
        } else if (strcmp(a, "--seed") == 0) {
            if (parse_number(a, v, 1, FUZZ_SEED_MAX, &o->seed) != FIA_OK)
                return usage();
        } else {
            fprintf(stderr, "fiacheck fuzz: unknown option '%s'\n", a);
            return usage();
        }
    }
    return FIA_OK;
}

/* The paths of the wanted targets' binaries beside this executable (and
 * of their no-sanitizer twins fuzz_<t>_nosan, when built) into runs;
 * *ntargets the number of targets.  FIA_OK, or FIA_ERR_IO (said) when one
 * is not built. */
static fia_status find_binaries(const fuzz_opts *o, target_run *runs,
                                int *ntargets)
{
    char dir[PATH_MAX];
    exe_dir(dir, sizeof dir);
    *ntargets = 0;
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++) {
        if (!o->want[t])
            continue;
        (*ntargets)++;
        char *bin = runs[t].bin, *nosan = runs[t].bin_nosan;
        snprintf(bin, sizeof runs[t].bin, "%s/%s", dir, fuzz_target_name(t));
        snprintf(nosan, sizeof runs[t].bin_nosan, "%s_nosan", bin);
        if (access(nosan, X_OK) != 0)
            nosan[0] = '\0';
        /* the data-path target also runs a random stream (fuzz_runner.h) */
        char *rnd = runs[t].bin_random;
        snprintf(rnd, sizeof runs[t].bin_random, "%s_replay", bin);
        if (t != FUZZ_NUMERIC || access(rnd, X_OK) != 0)
            rnd[0] = '\0';
        if (access(bin, X_OK) != 0) {
            fprintf(stderr, "fiacheck fuzz: the libFuzzer binary %s is not built.\n"
                    "  Build the fuzzers with clang (libFuzzer) beside fiacheck:\n"
                    "    CC=clang CFLAGS='-O1 -g -fsanitize=address,undefined,"
                    "fuzzer-no-link' LIB_FUZZING_ENGINE=-fsanitize=fuzzer "
                    "OUT=build/fuzz bash fuzz/build.sh\n"
                    "  then run build/fuzz/fiacheck fuzz (scripts/main.sh does "
                    "both).\n", bin);
            return FIA_ERR_IO;
        }
    }
    return FIA_OK;
}

#ifdef FIA_HAVE_STORE
/* A version 4 UUID from /dev/urandom into out (37 bytes).  FIA_OK or
 * FIA_ERR_IO. */
static fia_status make_uuid(char *out, fia_error *err)
{
    uint8_t b[16];
    FILE *f = fopen("/dev/urandom", "rb");
    size_t n = f != NULL ? fread(b, 1, sizeof b, f) : 0;
    if (f != NULL)
        fclose(f);
    if (n != sizeof b)
        return fia_fail(err, FIA_ERR_IO, "cannot read /dev/urandom");
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);   /* version 4 */
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);   /* the RFC 4122 variant */
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
             "%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3], b[4], b[5],
             b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return FIA_OK;
}

/* A campaign seed drawn at random, 1..FUZZ_SEED_MAX.  FIA_OK or FIA_ERR_IO. */
static fia_status random_seed(long long *seed, fia_error *err)
{
    uint32_t x = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    size_t n = f != NULL ? fread(&x, 1, sizeof x, f) : 0;
    if (f != NULL)
        fclose(f);
    if (n != sizeof x)
        return fia_fail(err, FIA_ERR_IO, "cannot read /dev/urandom");
    *seed = x == 0 ? 1 : (long long)x;
    return FIA_OK;
}

/* The seed libFuzzer gets for target t: the campaign seed moved by t,
 * within 1..FUZZ_SEED_MAX, so that each target of a rerun with the stored
 * --seed runs as before, whichever targets are chosen. */
static uint64_t target_seed(long long seed, int t)
{
    return (uint64_t)((seed - 1 + t) % FUZZ_SEED_MAX) + 1;
}

/* The first SIGINT or SIGTERM: the campaign stops, its results kept. */
static void on_stop_signal(int sig)
{
    if (fuzz_stop_signal == 0)
        fuzz_stop_signal = sig;
}

/* Opens (creating) the store at db, its folder too; *abs its absolute path
 * for the workers.  FIA_OK, or the store's status said. */
static fia_status open_store(const char *db, fia_store **st, char *abs,
                             size_t len)
{
    char dbdir[PATH_MAX];
    snprintf(dbdir, sizeof dbdir, "%s", db);
    char *sl = strrchr(dbdir, '/');
    if (sl != NULL && sl != dbdir) {
        *sl = '\0';
        (void)fuzz_make_dirs(dbdir, NULL);   /* the store's open says what fails */
    }
    char err[512];
    fia_status rc = fia_store_open(db, 1, st, err, sizeof err);
    if (rc != FIA_OK) {
        fprintf(stderr, "fiacheck fuzz: %s\n", err);
        return rc;
    }
    if (db[0] == '/' || realpath(db, abs) == NULL)
        snprintf(abs, len, "%s", db);
    return FIA_OK;
}

/* The working directory: --workdir, else the store's folder. */
static void work_dir(const fuzz_opts *o, char *out, size_t len)
{
    if (o->workdir != NULL) {
        snprintf(out, len, "%s", o->workdir);
        return;
    }
    snprintf(out, len, "%s", o->db);
    char *sl = strrchr(out, '/');
    if (sl == NULL)
        snprintf(out, len, ".");
    else if (sl == out)
        out[1] = '\0';
    else
        *sl = '\0';
}

/* Makes the campaign's directories under workdir, named by its UUID.
 * FIA_OK or FIA_ERR_IO. */
static fia_status campaign_dirs(const char *workdir, target_run *tr,
                                fia_error *err)
{
    char logs[PATH_MAX];
    if (fuzz_join_path(tr->stats, sizeof tr->stats, workdir, "/stats/", tr->uuid, "") ||
        fuzz_join_path(tr->arts, sizeof tr->arts, workdir, "/artifacts/", tr->uuid, "") ||
        fuzz_join_path(tr->log, sizeof tr->log, workdir, "/logs/", tr->uuid, ".log") ||
        fuzz_join_path(tr->tmpdir, sizeof tr->tmpdir, workdir, "/tmp/", tr->uuid, "") ||
        fuzz_join_path(tr->unstored_dir, sizeof tr->unstored_dir, workdir,
                  "/unstored/", tr->uuid, "") ||
        fuzz_join_path(logs, sizeof logs, workdir, "/logs", "", ""))
        return fia_fail(err, FIA_ERR_IO, "the work directory's path %s is too "
                        "long", workdir);
    const char *dirs[] = {tr->stats, tr->arts, logs, tr->tmpdir, tr->unstored_dir};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        fia_status rc = fuzz_make_dirs(dirs[i], err);
        if (rc != FIA_OK)
            return rc;
    }
    return FIA_OK;
}

/* The campaign of one target in the store (tr->campaign); FIA_OK, or the
 * store's status said. */
static fia_status begin_campaign(fia_store *st, const fuzz_opts *o,
                                 const char *command, const char *revision,
                                 target_run *tr)
{
    fia_campaign_info ci = {revision, fuzz_target_name(tr->id),
                            o->profile ? o->profile : "doc+cann", "default",
                            tr->seed, command, "", fia_sut_current()->name,
                            cli_build_revision()};
    snprintf(ci.uuid, sizeof ci.uuid, "%s", tr->uuid);
    fia_status rc = fia_store_campaign_begin(st, &ci, &tr->campaign);
    if (rc != FIA_OK) {
        fprintf(stderr, "fiacheck fuzz: %s\n", fia_store_errmsg(st));
        return rc;
    }
    return FIA_OK;
}

/* One target's campaign after its workers ended: its artifacts collected,
 * its counts and time to first finding recorded, the refused findings
 * retried. */
static void finish_campaign(fia_store *st, const fuzz_opts *o,
                            const char *revision, target_run *tr,
                            unstored_list *u)
{
    const char *pname = o->profile ? o->profile : "doc+cann";
    fuzz_remove_tree(tr->tmpdir);
    u->store_busy = 0;
    fuzz_collect_artifacts(st, tr, pname, revision, u);
    if (fia_store_campaign_update(st, tr->campaign, tr->cnt.execs, tr->cov,
                                  tr->seconds, 1) != FIA_OK ||
        (tr->ttff >= 0 &&
         fia_store_campaign_set_ttff(st, tr->campaign, tr->ttff) != FIA_OK))
        fprintf(stderr, "fiacheck fuzz: cannot record the counts of campaign "
                "%lld: %s\n", (long long)tr->campaign, fia_store_errmsg(st));
    else if (u->n > 0)
        fuzz_retry_unstored(st, u, revision);   /* the store writes again */
    fuzz_count_new(st, tr);
}

/* The table of the targets run; the number of findings and artifacts. */
static int64_t print_summary(const fuzz_opts *o, const target_run *runs)
{
    printf("\n%-17s %10s %9s %7s %9s %6s %9s %9s %7s %7s\n", "target", "execs",
           "execs/s", "cov", "findings", "new", "distinct", "artifacts",
           "/s/core", "ttff");
    int64_t total = 0;
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++) {
        const target_run *tr = &runs[t];
        if (!o->want[t] || tr->campaign == 0)
            continue;
        char ttff[32] = "-";
        if (tr->ttff >= 0)
            snprintf(ttff, sizeof ttff, "%.1fs", tr->ttff);
        printf("%-17s %10lld %9.0f %7ld %9lld %6d %9d %9d %7.0f %7s\n",
               fuzz_target_name(t), (long long)tr->cnt.execs,
               tr->seconds > 0 ? (double)tr->cnt.execs / tr->seconds : 0.0,
               tr->cov, (long long)tr->cnt.findings, tr->new_findings, tr->nsigs,
               tr->artifacts, tr->worker_seconds > 0
                   ? (double)tr->cnt.execs / tr->worker_seconds : 0.0, ttff);
        total += tr->cnt.findings + tr->artifacts;
        if (tr->runs > tr->runs_sanitized)
            printf("  sanitizers: %ld of %ld worker runs sanitized (%s), the "
                   "others without (%s_nosan)\n", tr->runs_sanitized, tr->runs,
                   fuzz_target_name(t), fuzz_target_name(t));
        if (t == FUZZ_PARAMS && tr->cnt.evaluated > 0)
            printf("  validity rate (cases the rules accept): %.1f %% of %lld "
                   "judged (not modeled %.1f %%)\n",
                   100.0 * (double)tr->cnt.accepted / (double)tr->cnt.evaluated,
                   (long long)tr->cnt.evaluated,
                   100.0 * (double)tr->cnt.not_modeled / (double)tr->cnt.evaluated);
        if (t != FUZZ_PARAMS && tr->cnt.execs > 0)
            printf("  inputs not judged (generator gave a case outside the "
                   "target's domain): %.1f %%\n",
                   100.0 * (double)tr->cnt.skipped / (double)tr->cnt.execs);
        if (tr->cnt.vacuous > 0)
            printf("  vacuous (accepted, but no output element compared): "
                   "%lld\n", (long long)tr->cnt.vacuous);
        fuzz_print_time_split("  ", &tr->cnt);
    }
    return total;
}

/* Says, per campaign, how many findings the store did not take and where
 * their case files are; their number.  Empty spool folders are removed. */
static int report_unstored(const fuzz_opts *o, const target_run *runs)
{
    int total = 0;
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++) {
        const target_run *tr = &runs[t];
        if (!o->want[t] || tr->unstored_dir[0] == '\0')
            continue;
        int n = fuzz_count_case_files(tr->unstored_dir);
        if (n == 0) {
            rmdir(tr->unstored_dir);
            continue;
        }
        fprintf(stderr, "fiacheck fuzz: %s: %d finding(s) could not be stored; "
                "their case files are in %s\n", fuzz_target_name(t), n,
                tr->unstored_dir);
        total += n;
    }
    return total;
}

/* The command as run, with what fast/ computes with in front (the workers
 * inherit the environment) and the seed drawn: reproducible from the
 * store. */
static void command_line(int argc, char **argv, long long seed, char *out,
                         size_t len)
{
    int seed_given = 0;
    const char *lv = cli_sut_option("kernel_level");
    const char *th = cli_sut_option("threads");
    const char *sut = fia_sut_current_path();
    if (fia_sut_current_is_builtin())
        snprintf(out, len, "FIA_FAST_ISA=%s FIA_FAST_THREADS=%s fiacheck fuzz",
                 lv ? lv : "auto", th ? th : "2");
    else
        snprintf(out, len, "fiacheck fuzz --sut %s", sut);
    for (int i = 0; i < argc; i++) {
        size_t l = strlen(out);
        seed_given |= strcmp(argv[i], "--seed") == 0;
        snprintf(out + l, len - l, " %s", argv[i]);
    }
    if (!seed_given) {
        size_t l = strlen(out);
        snprintf(out + l, len - l, " --seed %lld", seed);
    }
}

/* Begins the campaign of every wanted target (one store row each, its
 * directories made) into plan.  CLI_EXIT_OK or CLI_EXIT_USAGE (said). */
static int begin_campaigns(fia_store *st, const fuzz_opts *o,
                           const char *command, const char *revision,
                           target_run *runs, campaign_plan *plan)
{
    fia_error err = {0};
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++) {
        if (!o->want[t])
            continue;
        target_run *tr = &runs[t];
        tr->id = t;
        tr->seed = target_seed(o->seed, t);
        tr->ttff = -1;
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        tr->started = (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
        if (make_uuid(tr->uuid, &err) != FIA_OK ||
            campaign_dirs(plan->workdir, tr, &err) != FIA_OK) {
            fprintf(stderr, "fiacheck fuzz: %s\n", err.msg);
            return CLI_EXIT_USAGE;
        }
        if (begin_campaign(st, o, command, revision, tr) != FIA_OK)
            return CLI_EXIT_USAGE;
        plan->runs[plan->ntargets++] = tr;
    }
    return CLI_EXIT_OK;
}
#endif

int cmd_fuzz(int argc, char **argv)
{
    fuzz_opts o;
    for (int i = 0; i < argc; i++)
        if (cli_is_help(argv[i])) {
            print_usage(stdout);
            return CLI_EXIT_OK;
        }
    if (parse_args(argc, argv, &o) != FIA_OK)
        return CLI_EXIT_USAGE;
    static target_run runs[FUZZ_TARGET_COUNT];
    memset(runs, 0, sizeof runs);
    int ntargets = 0;
    if (find_binaries(&o, runs, &ntargets) != FIA_OK)
        return CLI_EXIT_USAGE;
#ifndef FIA_HAVE_STORE
    fprintf(stderr, "fiacheck fuzz: this fiacheck was built without the SQLite "
            "store (libsqlite3-dev missing)\n");
    return CLI_EXIT_USAGE;
#else
    fia_error err = {0};
    char workdir[PATH_MAX];
    work_dir(&o, workdir, sizeof workdir);
    const char *kinds[] = {"stats", "artifacts", "logs", "tmp", "unstored", "corpus"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        char d[PATH_MAX + 16];
        snprintf(d, sizeof d, "%s/%s", workdir, kinds[i]);
        if (fuzz_make_dirs(d, &err) != FIA_OK) {
            fprintf(stderr, "fiacheck fuzz: %s (the working directory; "
                    "--workdir DIR)\n", err.msg);
            return CLI_EXIT_USAGE;
        }
    }
    if (o.seed == 0 && random_seed(&o.seed, &err) != FIA_OK) {
        fprintf(stderr, "fiacheck fuzz: %s\n", err.msg);
        return CLI_EXIT_USAGE;
    }
    fia_store *st = NULL;
    char absdb[PATH_MAX];
    if (open_store(o.db, &st, absdb, sizeof absdb) != FIA_OK)
        return CLI_EXIT_USAGE;
    char command[1024];
    command_line(argc, argv, o.seed, command, sizeof command);
    const char *revision = o.revision ? o.revision : cli_sut_revision();
    campaign_plan plan = {.seconds = o.seconds, .jobs = o.jobs,
                          .workdir = workdir,
                          .env = {absdb, o.profile, revision}};
    unstored_list unstored = {0};
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;   /* no SA_RESTART: poll returns */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    char rev[160];
    cli_revision_short(revision, rev, sizeof rev);
    fprintf(stderr, "fiacheck fuzz: revision %s%s, %d target(s) side by "
            "side for %d s, %d job(s)%s, seed %lld, store %s, work directory "
            "%s\n", rev,
            !o.revision && cli_build_dirty() ? " (a dirty build)" : "",
            ntargets, o.seconds, o.jobs,
            o.jobs < ntargets ? " (the targets' workers share them)" : "",
            o.seed, o.db, workdir);
    int rc = begin_campaigns(st, &o, command, revision, runs, &plan);
    if (rc == CLI_EXIT_OK && fuzz_run_workers(&plan, &err) != FIA_OK) {
        fprintf(stderr, "fiacheck fuzz: %s\n", err.msg);
        rc = CLI_EXIT_USAGE;
    }
    for (int k = 0; k < plan.ntargets; k++)
        finish_campaign(st, &o, revision, plan.runs[k], &unstored);
    int64_t total = print_summary(&o, runs);
    fuzz_print_reach(runs, o.want);
    printf("store %s (revision %s); details: fiacheck db findings --db %s\n",
           o.db, rev, o.db);
    fuzz_unstored_free(&unstored);
    fia_store_close(st);
    if (report_unstored(&o, runs) > 0)
        rc = CLI_EXIT_USAGE;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (fuzz_stop_signal)
        return 128 + fuzz_stop_signal;
    if (rc == CLI_EXIT_OK && total > 0)
        rc = CLI_EXIT_FINDING;
    return rc;
#endif
}
