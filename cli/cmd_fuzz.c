/* `fiacheck fuzz [--target T|all] [--time SECONDS] [--jobs N] [--db PATH]
 *                [--profile doc|cann] [--seed N]`
 *
 * Runs the libFuzzer binaries fuzz_<target> that sit beside this executable
 * (built by fuzz/build.sh with clang; fiacheck builds nothing itself) in
 * fork mode, one target after the other, each for its share of the time.
 * The workers record findings, rule coverage and accuracy in the store
 * themselves (FIACHECK_DB, FIACHECK_CAMPAIGN); this parent shows a progress
 * line parsed from libFuzzer's output, turns crash-/timeout-/oom- artifacts
 * into findings, and prints a summary.  Exit 0 no finding, 1 findings,
 * 2 usage or missing binaries. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "fia/fast.h"
#include "fuzz/fuzz.h"
#ifdef FIA_HAVE_STORE
#include "fia/store.h"
#endif

#ifndef FIA_SOURCE_DIR
#define FIA_SOURCE_DIR "."
#endif

typedef struct target_run {
    int id;
    int64_t campaign;
    long execs_libfuzzer, cov, ft, corp, crashes, timeouts, ooms;
    double seconds;
    fuzz_counters cnt;   /* summed over the workers' stats files */
    int nsigs;
    int new_findings, artifacts;
    char last_summary[256];
} target_run;

static int mkdirs(const char *path)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0777);
            *p = '/';
        }
    return mkdir(buf, 0777) == 0 || errno == EEXIST ? 0 : -1;
}

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

void cli_git_revision(char *out, size_t len)
{
    snprintf(out, len, "unknown");
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "git -C '%s' rev-parse HEAD 2>/dev/null", FIA_SOURCE_DIR);
    FILE *p = popen(cmd, "r");
    if (p == NULL)
        return;
    char buf[128];
    if (fgets(buf, sizeof buf, p) != NULL && strlen(buf) >= 40) {
        buf[strcspn(buf, "\n")] = '\0';
        snprintf(out, len, "%s", buf);
    }
    pclose(p);
}

/* Removes the files left in dir: the stats directory is named by the
 * campaign id, and a store made afresh (the old one deleted) gives out the
 * same ids again, whose old counts would otherwise be summed in. */
static void clear_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}

/* Sums the workers' stats files of one target. */
static void read_stats(const char *dir, target_run *tr)
{
    memset(&tr->cnt, 0, sizeof tr->cnt);
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    const char *tn = fuzz_target_name(tr->id);
    static char *sigs[4096];
    int nsigs = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, tn, strlen(tn)) != 0 || e->d_name[strlen(tn)] != '.' ||
            strstr(e->d_name, ".tmp") != NULL)
            continue;
        char path[PATH_MAX + 300], line[600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        while (fgets(line, sizeof line, f) != NULL) {
            long long v;
            line[strcspn(line, "\n")] = '\0';
            if (strncmp(line, "sig ", 4) == 0) {
                int dup = 0;
                for (int i = 0; i < nsigs && !dup; i++)
                    dup = strcmp(sigs[i], line + 4) == 0;
                if (!dup && nsigs < 4096 && (sigs[nsigs] = strdup(line + 4)))
                    nsigs++;
            } else if (sscanf(line, "execs %lld", &v) == 1) tr->cnt.execs += v;
            else if (sscanf(line, "evaluated %lld", &v) == 1) tr->cnt.evaluated += v;
            else if (sscanf(line, "accepted %lld", &v) == 1) tr->cnt.accepted += v;
            else if (sscanf(line, "not_modeled %lld", &v) == 1) tr->cnt.not_modeled += v;
            else if (sscanf(line, "findings %lld", &v) == 1) tr->cnt.findings += v;
            else if (sscanf(line, "skipped %lld", &v) == 1) tr->cnt.skipped += v;
        }
        fclose(f);
    }
    closedir(d);
    for (int i = 0; i < nsigs; i++)
        free(sigs[i]);
    tr->nsigs = nsigs;
}

/* "#1234: cov: 10 ft: 20 corp: 3 exec/s: 100 oom/timeout/crash: 0/0/1 time: 5s" */
static void parse_line(const char *line, target_run *tr)
{
    const char *p;
    if (line[0] == '#' && (p = strstr(line, "cov: ")) != NULL) {
        tr->execs_libfuzzer = atol(line + 1);
        tr->cov = atol(p + 5);
        if ((p = strstr(line, "ft: ")) != NULL) tr->ft = atol(p + 4);
        if ((p = strstr(line, "corp: ")) != NULL) tr->corp = atol(p + 6);
        if ((p = strstr(line, "oom/timeout/crash: ")) != NULL)
            sscanf(p + 19, "%ld/%ld/%ld", &tr->ooms, &tr->timeouts, &tr->crashes);
    }
    if ((p = strstr(line, "SUMMARY: ")) != NULL)
        snprintf(tr->last_summary, sizeof tr->last_summary, "%s", p + 9);
}

static void progress(const target_run *tr, double left, int tty)
{
    double rate = tr->seconds > 0 ? (double)tr->cnt.execs / tr->seconds : 0;
    fprintf(stderr, "%s%-17s execs %lld (%.0f/s)  cov %ld  ft %ld  findings %lld "
            "(%d distinct)  crashes %ld  %.0fs left%s", tty ? "\r" : "",
            fuzz_target_name(tr->id), (long long)tr->cnt.execs, rate, tr->cov,
            tr->ft, (long long)tr->cnt.findings, tr->nsigs, tr->crashes, left,
            tty ? "   " : "\n");
    fflush(stderr);
}

#ifdef FIA_HAVE_STORE
/* Crash/timeout/oom artifacts of this campaign become findings. */
static void collect_artifacts(fia_store *st, const char *dir, target_run *tr,
                              time_t since, const char *profile,
                              const char *revision)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    static char *seen[256];
    int nseen = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *kind = strncmp(e->d_name, "crash-", 6) == 0 ? "crash"
                         : strncmp(e->d_name, "leak-", 5) == 0 ? "crash"
                         : strncmp(e->d_name, "oom-", 4) == 0 ? "crash"
                         : strncmp(e->d_name, "timeout-", 8) == 0 ? "timeout" : NULL;
        char path[PATH_MAX + 300];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (kind == NULL || stat(path, &sb) != 0 || sb.st_mtime < since)
            continue;
        tr->artifacts++;
        uint8_t buf[4096];
        size_t n = 0;
        FILE *f = fopen(path, "rb");
        if (f != NULL) {
            n = fread(buf, 1, sizeof buf, f);
            fclose(f);
        }
        fia_case c;
        char transform[64] = "", bucket[200], sig[300];
        if (tr->id == FUZZ_PARAMS)
            fuzz_decode_params(buf, n, &c);
        else if (tr->id == FUZZ_NUMERIC)
            fuzz_decode_numeric(buf, n, &c);
        else
            fuzz_decode_metamorphic(buf, n, &c, transform, sizeof transform);
        fuzz_bucket(&c, bucket, sizeof bucket);
        snprintf(sig, sizeof sig, "%s|%s|%s", kind, fuzz_target_name(tr->id), bucket);
        int dup = 0;
        for (int i = 0; i < nseen && !dup; i++)
            dup = strcmp(seen[i], sig) == 0;
        if (!dup && nseen < 256)
            seen[nseen++] = strdup(sig);
        char *text = fuzz_finding_text(&c, tr->id, profile, kind, sig,
                                       transform[0] ? transform : NULL);
        size_t tl = (text ? strlen(text) : 0) + strlen(path) + 64;
        char *full = malloc(tl);
        if (full != NULL && text != NULL) {
            snprintf(full, tl, "# fiacheck-artifact: %s\n%s", path, text);
            fia_finding_record r;
            memset(&r, 0, sizeof r);
            r.campaign_id = tr->campaign;
            r.signature = sig;
            r.kind = kind;
            r.target = fuzz_target_name(tr->id);
            r.profile = profile;
            r.revision = revision;
            r.case_text = full;
            r.seed = c.seed;
            r.message = tr->last_summary[0] ? tr->last_summary : e->d_name;
            if (!dup && fia_store_add_finding(st, &r, NULL) != FIA_STORE_OK)
                fprintf(stderr, "fiacheck fuzz: cannot record %s: %s\n", path,
                        fia_store_errmsg(st));
        }
        free(full);
        free(text);
        fia_case_free(&c);
    }
    closedir(d);
    for (int i = 0; i < nseen; i++)
        free(seen[i]);
    tr->nsigs += nseen;
}

static int count_new(const fia_store_finding *f, void *ctx)
{
    target_run *tr = ctx;
    if (f->campaign_id == tr->campaign)
        tr->new_findings++;
    return 0;
}
#endif

static int usage(void)
{
    fprintf(stderr, "usage: fiacheck fuzz [--target params|numeric|metamorphic|all] "
            "[--time SECONDS] [--jobs N] [--db PATH] [--profile doc|cann] "
            "[--seed N]\n");
    return CLI_EXIT_USAGE;
}

/* Runs one target; returns 0, or -1 when it could not start. */
static int run_target(const char *bin, target_run *tr, int seconds, int jobs,
                      const char *db, const char *profile_env, long seed,
                      const char *revision, const char *statsdir)
{
    const char *tn = fuzz_target_name(tr->id);
    char corpus[PATH_MAX], seeds[PATH_MAX], dict[PATH_MAX], arts[PATH_MAX],
         logp[PATH_MAX];
    snprintf(corpus, sizeof corpus, "results/corpus/%s", tn);
    snprintf(seeds, sizeof seeds, "%s/corpus/%s", FIA_SOURCE_DIR, tn);
    snprintf(dict, sizeof dict, "%s/corpus/%s/%s.dict", FIA_SOURCE_DIR, tn, tn);
    snprintf(arts, sizeof arts, "results/artifacts/%s/", tn);
    snprintf(logp, sizeof logp, "results/logs/%s.log", tn);
    mkdirs(corpus);
    mkdirs(arts);
    mkdirs("results/logs");
    char a_fork[32], a_time[48], a_seed[48], a_dict[PATH_MAX + 8],
         a_art[PATH_MAX + 20];
    snprintf(a_fork, sizeof a_fork, "-fork=%d", jobs);
    snprintf(a_time, sizeof a_time, "-max_total_time=%d", seconds);
    snprintf(a_seed, sizeof a_seed, "-seed=%ld", seed);
    snprintf(a_dict, sizeof a_dict, "-dict=%s", dict);
    snprintf(a_art, sizeof a_art, "-artifact_prefix=%s", arts);
    const char *argv[32];
    int k = 0;
    argv[k++] = bin;
    argv[k++] = a_fork;
    argv[k++] = a_time;
    if (seed >= 0)
        argv[k++] = a_seed;
    if (access(dict, R_OK) == 0)
        argv[k++] = a_dict;
    argv[k++] = a_art;
    argv[k++] = "-ignore_crashes=1";
    argv[k++] = "-ignore_timeouts=1";
    argv[k++] = "-ignore_ooms=1";
    argv[k++] = "-timeout=30";
    argv[k++] = "-rss_limit_mb=4096";
    argv[k++] = tr->id == FUZZ_PARAMS ? "-max_len=256" : "-max_len=512";
    argv[k++] = "-print_final_stats=1";
    argv[k++] = corpus;
    if (access(seeds, R_OK) == 0)
        argv[k++] = seeds;
    argv[k] = NULL;

    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    char camp[32];
    snprintf(camp, sizeof camp, "%lld", (long long)tr->campaign);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(fds[1], 2);
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        setpgid(0, 0);
        if (db)
            setenv("FIACHECK_DB", db, 1);
        setenv("FIACHECK_CAMPAIGN", camp, 1);
        setenv("FIACHECK_REVISION", revision, 1);
        setenv("FIACHECK_STATS", statsdir, 1);
        if (profile_env)
            setenv("FIACHECK_PROFILE", profile_env, 1);
        else
            unsetenv("FIACHECK_PROFILE");
        execv(bin, (char *const *)argv);
        fprintf(stderr, "cannot run %s: %s\n", bin, strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    FILE *log = fopen(logp, "w");
    int tty = isatty(2);
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char buf[8192], line[8192];
    size_t ll = 0;
    double last_print = -100;
    int open_pipe = 1, status = 0, killed = 0;
    for (;;) {
        struct pollfd pf = {fds[0], POLLIN, 0};
        int pr = open_pipe ? poll(&pf, 1, 1000) : (nanosleep(&(struct timespec){0, 200000000}, NULL), 0);
        if (pr > 0) {
            ssize_t n = read(fds[0], buf, sizeof buf);
            if (n <= 0) {
                open_pipe = 0;
            } else {
                if (log)
                    fwrite(buf, 1, (size_t)n, log);
                for (ssize_t i = 0; i < n; i++) {
                    if (buf[i] == '\n' || ll + 1 >= sizeof line) {
                        line[ll] = '\0';
                        parse_line(line, tr);
                        ll = 0;
                    } else {
                        line[ll++] = buf[i];
                    }
                }
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        tr->seconds = (double)(now.tv_sec - t0.tv_sec) +
                      (double)(now.tv_nsec - t0.tv_nsec) * 1e-9;
        if (tr->seconds - last_print >= (tty ? 1.0 : 10.0)) {
            read_stats(statsdir, tr);
            double left = seconds - tr->seconds;
            progress(tr, left > 0 ? left : 0, tty);
            last_print = tr->seconds;
        }
        if (!killed && tr->seconds > seconds + 60) {
            kill(-pid, SIGTERM);   /* libFuzzer overran its time budget */
            killed = 1;
        }
        if (!open_pipe && waitpid(pid, &status, WNOHANG) == pid)
            break;
    }
    close(fds[0]);
    if (log)
        fclose(log);
    read_stats(statsdir, tr);
    progress(tr, 0, tty);
    if (tty)
        fputc('\n', stderr);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return -1;
    return 0;
}

int cmd_fuzz(int argc, char **argv)
{
    int want[FUZZ_TARGET_COUNT] = {1, 1, 1};
    int seconds = 60, jobs = 1;
    long seed = -1;
    const char *db = "results/findings.db", *profile = NULL;
    for (int i = 0; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--target") == 0 && v) {
            if (strcmp(v, "all") != 0) {
                int t = fuzz_target_from_name(v);
                if (t < 0) {
                    fprintf(stderr, "fiacheck fuzz: unknown target '%s'\n", v);
                    return usage();
                }
                memset(want, 0, sizeof want);
                want[t] = 1;
            }
        } else if (strcmp(a, "--time") == 0 && v && atoi(v) > 0) {
            seconds = atoi(v);
        } else if (strcmp(a, "--jobs") == 0 && v && atoi(v) > 0) {
            jobs = atoi(v);
        } else if (strcmp(a, "--db") == 0 && v) {
            db = v;
        } else if (strcmp(a, "--profile") == 0 && v) {
            fia_profile p;
            if (fia_profile_parse(v, &p) != 0)
                return usage();
            profile = v;
        } else if (strcmp(a, "--seed") == 0 && v) {
            seed = atol(v);
        } else {
            return usage();
        }
    }
    char dir[PATH_MAX], bins[FUZZ_TARGET_COUNT][PATH_MAX + 32];
    exe_dir(dir, sizeof dir);
    int ntargets = 0;
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++) {
        if (!want[t])
            continue;
        ntargets++;
        snprintf(bins[t], sizeof bins[t], "%s/%s", dir, fuzz_target_name(t));
        if (access(bins[t], X_OK) != 0) {
            fprintf(stderr, "fiacheck fuzz: the libFuzzer binary %s is not built.\n"
                    "  Build the fuzzers with clang (libFuzzer) beside fiacheck:\n"
                    "    CC=clang CFLAGS='-O1 -g -fsanitize=address,undefined,"
                    "fuzzer-no-link' LIB_FUZZING_ENGINE=-fsanitize=fuzzer "
                    "OUT=build/fuzz bash fuzz/build.sh\n"
                    "  then run build/fuzz/fiacheck fuzz (scripts/main.sh does "
                    "both).\n", bins[t]);
            return CLI_EXIT_USAGE;
        }
    }
#ifndef FIA_HAVE_STORE
    (void)db, (void)run_target, (void)jobs, (void)seed, (void)profile;
    fprintf(stderr, "fiacheck fuzz: this fiacheck was built without the SQLite "
            "store (libsqlite3-dev missing)\n");
    return CLI_EXIT_USAGE;
#else
    char dbdir[PATH_MAX], absdb[PATH_MAX];
    snprintf(dbdir, sizeof dbdir, "%s", db);
    char *sl = strrchr(dbdir, '/');
    if (sl != NULL) {
        *sl = '\0';
        mkdirs(dbdir);
    }
    fia_store *st = NULL;
    char err[512];
    if (fia_store_open(db, 1, &st, err, sizeof err) != FIA_STORE_OK) {
        fprintf(stderr, "fiacheck fuzz: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    if (db[0] == '/' || realpath(db, absdb) == NULL)
        snprintf(absdb, sizeof absdb, "%s", db);
    /* the command as run, with what fast/ computes with in front (the
     * workers inherit the environment): reproducible from the store */
    char revision[128], command[1024];
    snprintf(command, sizeof command,
             "FIA_FAST_ISA=%s FIA_FAST_THREADS=%d fiacheck fuzz",
             fastKernelLevel(), fastThreadCount());
    cli_git_revision(revision, sizeof revision);
    for (int i = 0; i < argc; i++) {
        size_t l = strlen(command);
        snprintf(command + l, sizeof command - l, " %s", argv[i]);
    }
    const char *pname = profile ? profile : "doc+cann";
    int per = seconds / ntargets > 0 ? seconds / ntargets : 1;
    target_run runs[FUZZ_TARGET_COUNT];
    memset(runs, 0, sizeof runs);
    int rc = CLI_EXIT_OK;
    time_t started = time(NULL);
    fprintf(stderr, "fiacheck fuzz: revision %.12s, %d target(s), %d s each, "
            "%d job(s), store %s\n", revision, ntargets, per, jobs, db);
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++) {
        if (!want[t])
            continue;
        target_run *tr = &runs[t];
        tr->id = t;
        fia_campaign_info ci = {revision, fuzz_target_name(t), pname, "default",
                                seed >= 0 ? (uint64_t)seed : 0, command};
        if (fia_store_campaign_begin(st, &ci, &tr->campaign) != FIA_STORE_OK) {
            fprintf(stderr, "fiacheck fuzz: %s\n", fia_store_errmsg(st));
            rc = CLI_EXIT_USAGE;
            break;
        }
        char statsdir[PATH_MAX];
        snprintf(statsdir, sizeof statsdir, "results/stats/%lld",
                 (long long)tr->campaign);
        mkdirs(statsdir);
        clear_files(statsdir);
        if (run_target(bins[t], tr, per, jobs, absdb, profile, seed, revision,
                       statsdir) != 0) {
            fprintf(stderr, "fiacheck fuzz: cannot run %s\n", bins[t]);
            rc = CLI_EXIT_USAGE;
        }
        char arts[PATH_MAX];
        snprintf(arts, sizeof arts, "results/artifacts/%s", fuzz_target_name(t));
        collect_artifacts(st, arts, tr, started, pname, revision);
        fia_store_campaign_update(st, tr->campaign, tr->cnt.execs, tr->cov,
                                  tr->seconds, 1);
        fia_store_list_findings(st, NULL, count_new, tr);
    }
    printf("\n%-17s %10s %9s %7s %9s %6s %9s %9s\n", "target", "execs", "execs/s",
           "cov", "findings", "new", "distinct", "artifacts");
    int64_t total = 0;
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++) {
        if (!want[t])
            continue;
        target_run *tr = &runs[t];
        printf("%-17s %10lld %9.0f %7ld %9lld %6d %9d %9d\n", fuzz_target_name(t),
               (long long)tr->cnt.execs,
               tr->seconds > 0 ? (double)tr->cnt.execs / tr->seconds : 0.0,
               tr->cov, (long long)tr->cnt.findings, tr->new_findings, tr->nsigs,
               tr->artifacts);
        total += tr->cnt.findings + tr->artifacts;
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
    }
    printf("store %s (revision %.12s); details: fiacheck db findings --db %s\n",
           db, revision, db);
    fia_store_close(st);
    if (rc == CLI_EXIT_OK && total > 0)
        rc = CLI_EXIT_FINDING;
    return rc;
#endif
}
