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
    int nomem_said;
    char last_summary[256];
} target_run;

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

static void print_usage(FILE *f)
{
    fprintf(f, "usage: fiacheck fuzz [--target params|numeric|metamorphic|all] "
            "[--time SECONDS] [--jobs N] [--db PATH] [--profile doc|cann] "
            "[--seed N]\n");
}

static int usage(void)
{
    print_usage(stderr);
    return CLI_EXIT_USAGE;
}

/* The options of a campaign. */
typedef struct fuzz_opts {
    int want[FUZZ_TARGET_COUNT];
    int seconds, jobs;
    long seed;              /* -1: libFuzzer's own */
    const char *db;
    const char *profile;    /* NULL: both */
} fuzz_opts;

/* CLI_EXIT_OK, or the exit code after the usage was said. */
static int parse_args(int argc, char **argv, fuzz_opts *o)
{
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++)
        o->want[t] = 1;
    o->seconds = 60, o->jobs = 1, o->seed = -1;
    o->db = "results/findings.db", o->profile = NULL;
    for (int i = 0; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--target") == 0 && v) {
            if (strcmp(v, "all") != 0) {
                int t = fuzz_target_from_name(v);
                if (t < 0) {
                    fprintf(stderr, "fiacheck fuzz: unknown target '%s'\n", v);
                    return usage();
                }
                memset(o->want, 0, sizeof o->want);
                o->want[t] = 1;
            }
        } else if (strcmp(a, "--time") == 0 && v && atoi(v) > 0) {
            o->seconds = atoi(v);
        } else if (strcmp(a, "--jobs") == 0 && v && atoi(v) > 0) {
            o->jobs = atoi(v);
        } else if (strcmp(a, "--db") == 0 && v) {
            o->db = v;
        } else if (strcmp(a, "--profile") == 0 && v) {
            fia_profile p;
            if (fia_profile_parse(v, &p) != 0)
                return usage();
            o->profile = v;
        } else if (strcmp(a, "--seed") == 0 && v) {
            o->seed = atol(v);
        } else {
            return usage();
        }
    }
    return CLI_EXIT_OK;
}

/* The paths of the wanted targets' binaries beside this executable; the
 * number of targets, or -1 (said) when one is not built. */
static int find_binaries(const fuzz_opts *o, char bins[][PATH_MAX + 32])
{
    char dir[PATH_MAX];
    exe_dir(dir, sizeof dir);
    int ntargets = 0;
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++) {
        if (!o->want[t])
            continue;
        ntargets++;
        snprintf(bins[t], PATH_MAX + 32, "%s/%s", dir, fuzz_target_name(t));
        if (access(bins[t], X_OK) != 0) {
            fprintf(stderr, "fiacheck fuzz: the libFuzzer binary %s is not built.\n"
                    "  Build the fuzzers with clang (libFuzzer) beside fiacheck:\n"
                    "    CC=clang CFLAGS='-O1 -g -fsanitize=address,undefined,"
                    "fuzzer-no-link' LIB_FUZZING_ENGINE=-fsanitize=fuzzer "
                    "OUT=build/fuzz bash fuzz/build.sh\n"
                    "  then run build/fuzz/fiacheck fuzz (scripts/main.sh does "
                    "both).\n", bins[t]);
            return -1;
        }
    }
    return ntargets;
}

#ifdef FIA_HAVE_STORE
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
    fuzz_strset sigs;   /* distinct over the workers */
    fuzz_strset_init(&sigs);
    int nomem = 0;
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
                nomem |= fuzz_strset_add(&sigs, line + 4, NULL, NULL) != FIA_OK;
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
    tr->nsigs = (int)sigs.n;
    fuzz_strset_free(&sigs);
    if (nomem && !tr->nomem_said)
        fprintf(stderr, "fiacheck fuzz: out of memory counting the distinct "
                "findings of %s: the count is short\n", tn);
    tr->nomem_said |= nomem;
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

/* The kind of finding a libFuzzer artifact file is, NULL for other files. */
static const char *artifact_kind(const char *name)
{
    if (strncmp(name, "crash-", 6) == 0 || strncmp(name, "leak-", 5) == 0 ||
        strncmp(name, "oom-", 4) == 0)
        return "crash";
    return strncmp(name, "timeout-", 8) == 0 ? "timeout" : NULL;
}

/* Records one artifact as a finding, once per signature (seen). */
static void record_artifact(fia_store *st, const char *path, const char *name,
                            const char *kind, const target_run *tr,
                            const char *profile, const char *revision,
                            fuzz_strset *seen)
{
    uint8_t buf[4096];
    size_t n = 0;
    FILE *f = fopen(path, "rb");
    if (f != NULL) {
        n = fread(buf, 1, sizeof buf, f);
        fclose(f);
    }
    /* an incomplete case (out of memory) still names the crash */
    fia_case c;
    char transform[64] = "";
    if (tr->id == FUZZ_PARAMS)
        (void)fuzz_decode_params(buf, n, &c);
    else if (tr->id == FUZZ_NUMERIC)
        (void)fuzz_decode_numeric(buf, n, &c);
    else
        (void)fuzz_decode_metamorphic(buf, n, &c, transform, sizeof transform);
    fuzz_finding fd;
    fuzz_finding_of_artifact(&fd, &c, kind, tr->id, profile, transform, path,
                             tr->last_summary[0] ? tr->last_summary : name);
    int added = 1;
    if (fuzz_strset_add(seen, fd.signature, NULL, &added) != FIA_OK)
        added = 1;   /* out of memory: recorded again, the store counts it */
    if (added && fuzz_finding_attach_text(&fd, &c) == FIA_OK) {
        fia_finding_record r;
        fuzz_finding_record(&fd, tr->campaign, revision, &r);
        if (fia_store_add_finding(st, &r, NULL) != FIA_STORE_OK)
            fprintf(stderr, "fiacheck fuzz: cannot record %s: %s\n", path,
                    fia_store_errmsg(st));
    }
    fuzz_finding_free(&fd);
    fia_case_free(&c);
}

/* Crash/timeout/oom artifacts of this campaign become findings. */
static void collect_artifacts(fia_store *st, const char *dir, target_run *tr,
                              time_t since, const char *profile,
                              const char *revision)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    fuzz_strset seen;
    fuzz_strset_init(&seen);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *kind = artifact_kind(e->d_name);
        char path[PATH_MAX + 300];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (kind == NULL || stat(path, &sb) != 0 || sb.st_mtime < since)
            continue;
        tr->artifacts++;
        record_artifact(st, path, e->d_name, kind, tr, profile, revision, &seen);
    }
    closedir(d);
    tr->nsigs += (int)seen.n;
    fuzz_strset_free(&seen);
}

static int count_new(const fia_store_finding *f, void *ctx)
{
    target_run *tr = ctx;
    if (f->campaign_id == tr->campaign)
        tr->new_findings++;
    return 0;
}

/* The libFuzzer command line of one target, and the strings it points to. */
typedef struct fuzzer_cmd {
    const char *argv[32];
    char corpus[PATH_MAX], seeds[PATH_MAX], dict[PATH_MAX], arts[PATH_MAX],
         log[PATH_MAX];
    char a_fork[32], a_time[48], a_seed[48], a_dict[PATH_MAX + 8],
         a_art[PATH_MAX + 20];
} fuzzer_cmd;

/* Fork mode, the time budget, the seed corpus and dictionary from corpus/,
 * results/ for the working corpus, the artifacts and the log. */
static void fuzzer_command(const char *bin, fuzz_target_id id, int seconds,
                           int jobs, long seed, fuzzer_cmd *fc)
{
    const char *tn = fuzz_target_name(id);
    snprintf(fc->corpus, sizeof fc->corpus, "results/corpus/%s", tn);
    snprintf(fc->seeds, sizeof fc->seeds, "%s/corpus/%s", FIA_SOURCE_DIR, tn);
    snprintf(fc->dict, sizeof fc->dict, "%s/corpus/%s/%s.dict", FIA_SOURCE_DIR,
             tn, tn);
    snprintf(fc->arts, sizeof fc->arts, "results/artifacts/%s/", tn);
    snprintf(fc->log, sizeof fc->log, "results/logs/%s.log", tn);
    mkdirs(fc->corpus);
    mkdirs(fc->arts);
    mkdirs("results/logs");
    snprintf(fc->a_fork, sizeof fc->a_fork, "-fork=%d", jobs);
    snprintf(fc->a_time, sizeof fc->a_time, "-max_total_time=%d", seconds);
    snprintf(fc->a_seed, sizeof fc->a_seed, "-seed=%ld", seed);
    snprintf(fc->a_dict, sizeof fc->a_dict, "-dict=%s", fc->dict);
    snprintf(fc->a_art, sizeof fc->a_art, "-artifact_prefix=%s", fc->arts);
    const char **argv = fc->argv;
    int k = 0;
    argv[k++] = bin;
    argv[k++] = fc->a_fork;
    argv[k++] = fc->a_time;
    if (seed >= 0)
        argv[k++] = fc->a_seed;
    if (access(fc->dict, R_OK) == 0)
        argv[k++] = fc->a_dict;
    argv[k++] = fc->a_art;
    argv[k++] = "-ignore_crashes=1";
    argv[k++] = "-ignore_timeouts=1";
    argv[k++] = "-ignore_ooms=1";
    argv[k++] = "-timeout=30";
    argv[k++] = "-rss_limit_mb=4096";
    argv[k++] = id == FUZZ_PARAMS ? "-max_len=256" : "-max_len=512";
    argv[k++] = "-print_final_stats=1";
    argv[k++] = fc->corpus;
    if (access(fc->seeds, R_OK) == 0)
        argv[k++] = fc->seeds;
    argv[k] = NULL;
}

/* What the workers are told through their environment. */
typedef struct worker_env {
    const char *db, *profile, *revision, *statsdir;
    int64_t campaign;
} worker_env;

/* Starts the fuzzer in its own process group, its stdout and stderr into
 * the pipe's write end out; its pid, or -1. */
static pid_t spawn_fuzzer(const fuzzer_cmd *fc, const worker_env *we, int fds[2])
{
    char camp[32];
    snprintf(camp, sizeof camp, "%lld", (long long)we->campaign);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    dup2(fds[1], 2);
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    setpgid(0, 0);
    if (we->db)
        setenv("FIACHECK_DB", we->db, 1);
    setenv("FIACHECK_CAMPAIGN", camp, 1);
    setenv("FIACHECK_REVISION", we->revision, 1);
    setenv("FIACHECK_STATS", we->statsdir, 1);
    if (we->profile)
        setenv("FIACHECK_PROFILE", we->profile, 1);
    else
        unsetenv("FIACHECK_PROFILE");
    execv(fc->argv[0], (char *const *)fc->argv);
    fprintf(stderr, "cannot run %s: %s\n", fc->argv[0], strerror(errno));
    _exit(127);
}

/* Reads the fuzzer's output (to the log, its lines to tr) and shows the
 * progress until it exits; stops it when it overruns its budget by a
 * minute.  Its wait status. */
static int follow_fuzzer(pid_t pid, int fd, const char *logpath, int seconds,
                         const char *statsdir, target_run *tr)
{
    FILE *log = fopen(logpath, "w");
    int tty = isatty(2);
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char buf[8192], line[8192];
    size_t ll = 0;
    double last_print = -100;
    int open_pipe = 1, status = 0, killed = 0;
    for (;;) {
        struct pollfd pf = {fd, POLLIN, 0};
        int pr = open_pipe ? poll(&pf, 1, 1000) : (nanosleep(&(struct timespec){0, 200000000}, NULL), 0);
        if (pr > 0) {
            ssize_t n = read(fd, buf, sizeof buf);
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
    if (log)
        fclose(log);
    read_stats(statsdir, tr);
    progress(tr, 0, tty);
    if (tty)
        fputc('\n', stderr);
    return status;
}

/* Runs one target; returns 0, or -1 when it could not start. */
static int run_target(const char *bin, target_run *tr, int seconds, int jobs,
                      long seed, const worker_env *we)
{
    static fuzzer_cmd fc;
    fuzzer_command(bin, tr->id, seconds, jobs, seed, &fc);
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = spawn_fuzzer(&fc, we, fds);
    if (pid < 0)
        return -1;
    close(fds[1]);
    int status = follow_fuzzer(pid, fds[0], fc.log, seconds, we->statsdir, tr);
    close(fds[0]);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return -1;
    return 0;
}

/* Opens (creating) the store at db, its folder too; *abs its absolute path
 * for the workers.  0, or -1 said. */
static int open_store(const char *db, fia_store **st, char *abs, size_t len)
{
    char dbdir[PATH_MAX];
    snprintf(dbdir, sizeof dbdir, "%s", db);
    char *sl = strrchr(dbdir, '/');
    if (sl != NULL) {
        *sl = '\0';
        mkdirs(dbdir);
    }
    char err[512];
    if (fia_store_open(db, 1, st, err, sizeof err) != FIA_STORE_OK) {
        fprintf(stderr, "fiacheck fuzz: %s\n", err);
        return -1;
    }
    if (db[0] == '/' || realpath(db, abs) == NULL)
        snprintf(abs, len, "%s", db);
    return 0;
}

/* The campaign of one target in the store (tr->campaign); 0, or -1
 * said. */
static int begin_campaign(fia_store *st, const fuzz_opts *o, const char *command,
                          const char *revision, target_run *tr)
{
    fia_campaign_info ci = {revision, fuzz_target_name(tr->id),
                            o->profile ? o->profile : "doc+cann", "default",
                            o->seed >= 0 ? (uint64_t)o->seed : 0, command};
    if (fia_store_campaign_begin(st, &ci, &tr->campaign) != FIA_STORE_OK) {
        fprintf(stderr, "fiacheck fuzz: %s\n", fia_store_errmsg(st));
        return -1;
    }
    return 0;
}

/* One target's begun campaign: run, its artifacts collected, ended.
 * CLI_EXIT_OK or CLI_EXIT_USAGE (said). */
static int run_campaign(fia_store *st, const fuzz_opts *o, const char *bin,
                        int per, const char *absdb, const char *revision,
                        time_t started, target_run *tr)
{
    const char *pname = o->profile ? o->profile : "doc+cann";
    int rc = CLI_EXIT_OK;
    char statsdir[PATH_MAX];
    snprintf(statsdir, sizeof statsdir, "results/stats/%lld",
             (long long)tr->campaign);
    mkdirs(statsdir);
    clear_files(statsdir);
    worker_env we = {absdb, o->profile, revision, statsdir, tr->campaign};
    if (run_target(bin, tr, per, o->jobs, o->seed, &we) != 0) {
        fprintf(stderr, "fiacheck fuzz: cannot run %s\n", bin);
        rc = CLI_EXIT_USAGE;
    }
    char arts[PATH_MAX];
    snprintf(arts, sizeof arts, "results/artifacts/%s", fuzz_target_name(tr->id));
    collect_artifacts(st, arts, tr, started, pname, revision);
    fia_store_campaign_update(st, tr->campaign, tr->cnt.execs, tr->cov,
                              tr->seconds, 1);
    fia_store_list_findings(st, NULL, count_new, tr);
    return rc;
}

/* The table of the targets run; the number of findings and artifacts. */
static int64_t print_summary(const fuzz_opts *o, const target_run *runs)
{
    printf("\n%-17s %10s %9s %7s %9s %6s %9s %9s\n", "target", "execs", "execs/s",
           "cov", "findings", "new", "distinct", "artifacts");
    int64_t total = 0;
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++) {
        if (!o->want[t])
            continue;
        const target_run *tr = &runs[t];
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
    return total;
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
    int rc = parse_args(argc, argv, &o);
    if (rc != CLI_EXIT_OK)
        return rc;
    char bins[FUZZ_TARGET_COUNT][PATH_MAX + 32];
    int ntargets = find_binaries(&o, bins);
    if (ntargets < 0)
        return CLI_EXIT_USAGE;
#ifndef FIA_HAVE_STORE
    fprintf(stderr, "fiacheck fuzz: this fiacheck was built without the SQLite "
            "store (libsqlite3-dev missing)\n");
    return CLI_EXIT_USAGE;
#else
    fia_store *st = NULL;
    char absdb[PATH_MAX];
    if (open_store(o.db, &st, absdb, sizeof absdb) != 0)
        return CLI_EXIT_USAGE;
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
    int per = o.seconds / ntargets > 0 ? o.seconds / ntargets : 1;
    target_run runs[FUZZ_TARGET_COUNT];
    memset(runs, 0, sizeof runs);
    time_t started = time(NULL);
    fprintf(stderr, "fiacheck fuzz: revision %.12s, %d target(s), %d s each, "
            "%d job(s), store %s\n", revision, ntargets, per, o.jobs, o.db);
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++) {
        if (!o.want[t])
            continue;
        runs[t].id = t;
        if (begin_campaign(st, &o, command, revision, &runs[t]) != 0) {
            rc = CLI_EXIT_USAGE;
            break;
        }
        if (run_campaign(st, &o, bins[t], per, absdb, revision, started,
                         &runs[t]) != CLI_EXIT_OK)
            rc = CLI_EXIT_USAGE;
    }
    int64_t total = print_summary(&o, runs);
    printf("store %s (revision %.12s); details: fiacheck db findings --db %s\n",
           o.db, revision, o.db);
    fia_store_close(st);
    if (rc == CLI_EXIT_OK && total > 0)
        rc = CLI_EXIT_FINDING;
    return rc;
#endif
}
