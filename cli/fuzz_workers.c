/* `fiacheck fuzz`: running the libFuzzer workers of a campaign.
 *
 * Every worker is one libFuzzer process in in-process mode (no -fork),
 * started here in its own process group with -max_total_time set to the
 * campaign's time; this supervisor restarts a worker that ends early on a crash,
 * timeout or out-of-memory artifact (libFuzzer's -fork mode did that
 * restarting itself, at the price of a fresh process and a corpus reload
 * per job of a few seconds, and of the workers' output, which fork mode
 * keeps in temporary logs).  The workers of one target share its corpus
 * directory (libFuzzer's -reload picks up what the others found) and its
 * artifact directory.
 *
 * Scheduling (docs/cli.md): every target runs from the first second to
 * the end; nothing is restarted on a schedule, so no worker spends its time
 * reading a grown corpus again (a sanitized fuzz_numeric reads ~70 inputs
 * a second: turns of 10 s with a restart each were all corpus reading once
 * the corpus passed 700 inputs).  With jobs >= targets, target k gets
 * jobs/T workers (+1 for k < jobs % T).  With fewer jobs, every target gets
 * one worker (two with the no-sanitizer twins), all pinned to `jobs` CPUs
 * (sched_setaffinity), where the kernel shares the CPUs between them.
 *
 * Sanitizers: a target's first worker runs its sanitized binary fuzz_<t>;
 * the others run fuzz_<t>_nosan, built by fuzz/build.sh without ASan/UBSan,
 * several times faster, when it sits beside it.  So every target keeps a
 * sanitized worker, which also replays what the fast ones add to the
 * shared corpus (libFuzzer's -reload). */
#define _GNU_SOURCE /* sched_setaffinity, wait4 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "fuzz_runner.h"
#include "fia/sut_host.h"
#include "fuzz/signature.h"

#ifndef FIA_SOURCE_DIR
#define FIA_SOURCE_DIR "."
#endif

/* Seconds the workers get to end after SIGTERM before SIGKILL. */
#define STOP_GRACE 3.0
/* Seconds a worker may overrun the campaign's time before it is stopped:
 * more than one input may take (-timeout=30). */
#define OVERRUN 35.0
/* A worker that fails this soon after its start MAX_QUICK_FAILS times in
 * a row (an input of its corpus crashes it at once) is not restarted
 * again: restarting would only repeat the crash. */
#define QUICK_FAIL 2.0
#define MAX_QUICK_FAILS 5

volatile sig_atomic_t fuzz_stop_signal;

int fuzz_join_path(char *out, size_t len, const char *a, const char *b,
                   const char *c, const char *d)
{
    return snprintf(out, len, "%s%s%s%s", a, b, c, d) >= (int)len;
}

fia_status fuzz_make_dirs(const char *path, fia_error *err)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return fia_fail(err, FIA_ERR_IO, "the path %s is too long", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            (void)mkdir(buf, 0777);
            *p = '/';
        }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return fia_fail(err, FIA_ERR_IO, "cannot make the directory %s: %s",
                        path, strerror(errno));
    struct stat sb;
    if (stat(buf, &sb) != 0 || !S_ISDIR(sb.st_mode) || access(buf, W_OK) != 0)
        return fia_fail(err, FIA_ERR_IO, "cannot write in the directory %s: %s",
                        path, errno ? strerror(errno) : "not a directory");
    return FIA_OK;
}

static int remove_entry(const char *path, const struct stat *sb, int type,
                        struct FTW *ftw)
{
    (void)sb, (void)type, (void)ftw;
    remove(path);
    return 0;
}

void fuzz_remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

uint64_t fuzz_seed_add(uint64_t seed, uint64_t n)
{
    return (seed - 1 + n) % (uint64_t)FUZZ_SEED_MAX + 1;
}

void fuzz_read_stats(target_run *tr)
{
    const char *dir = tr->stats;
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
            double x;
            line[strcspn(line, "\n")] = '\0';
            if (strncmp(line, "sig ", 4) == 0) {
                nomem |= fuzz_strset_add(&sigs, line + 4, NULL, NULL) != FIA_OK;
            } else if (fuzz_reach_line(tr, line)) {
                continue;
            } else if (sscanf(line, "execs %lld", &v) == 1) tr->cnt.execs += v;
            else if (sscanf(line, "evaluated %lld", &v) == 1) tr->cnt.evaluated += v;
            else if (sscanf(line, "accepted %lld", &v) == 1) tr->cnt.accepted += v;
            else if (sscanf(line, "not_modeled %lld", &v) == 1) tr->cnt.not_modeled += v;
            else if (sscanf(line, "findings %lld", &v) == 1) tr->cnt.findings += v;
            else if (sscanf(line, "skipped %lld", &v) == 1) tr->cnt.skipped += v;
            else if (sscanf(line, "vacuous %lld", &v) == 1) tr->cnt.vacuous += v;
            else if (sscanf(line, "ref_elements %lld", &v) == 1) tr->cnt.ref_elements += v;
            else if (sscanf(line, "ref_escalated %lld", &v) == 1) tr->cnt.ref_escalated += v;
            else if (sscanf(line, "cpu_target %lf", &x) == 1) tr->cnt.cpu_target += x;
            else if (sscanf(line, "cpu_ref %lf", &x) == 1) tr->cnt.cpu_ref += x;
            else if (sscanf(line, "cpu_sut %lf", &x) == 1) tr->cnt.cpu_sut += x;
            else if (sscanf(line, "cpu_process %lf", &x) == 1) tr->cnt.cpu_process += x;
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

/* One libFuzzer process and what is read from it. */
typedef struct worker {
    target_run *tr;
    int slot;              /* its index in the plan's targets */
    int sanitized;
    int random;            /* the replay driver on a random stream */
    pid_t pid;             /* 0: not running */
    int fd;                /* its output; -1 closed */
    double started;        /* campaign seconds */
    int quick_fails;       /* runs in a row that failed within QUICK_FAIL s */
    char line[8192];
    size_t ll;
} worker;

/* The state of the workers' supervisor. */
typedef struct runner {
    const campaign_plan *p;
    FILE *log[FUZZ_TARGET_COUNT];   /* by plan slot */
    struct timespec t0;             /* the campaign's start */
    int pin;                        /* cpus holds the CPUs to pin to */
    cpu_set_t cpus;
    int tty;
    double last_print, last_stats;
} runner;

static double elapsed(const runner *r)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - r->t0.tv_sec) +
           (double)(now.tv_nsec - r->t0.tv_nsec) * 1e-9;
}

/* A finding of tr seen now: its time to first finding, once. */
static void found(const runner *r, target_run *tr)
{
    if (tr->ttff < 0)
        tr->ttff = elapsed(r);
}

/* An artifact written at path: the SUMMARY printed before it is its. */
static void pair_summary(target_run *tr, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (tr->last_summary[0] == '\0' || tr->n_art_summary >= 32)
        return;
    int i = tr->n_art_summary++;
    snprintf(tr->art_summary[i].name, sizeof tr->art_summary[i].name, "%.*s",
             (int)strcspn(name, " \n"), name);
    snprintf(tr->art_summary[i].summary, sizeof tr->art_summary[i].summary,
             "%s", tr->last_summary);
    tr->last_summary[0] = '\0';
}

const char *fuzz_artifact_summary(const target_run *tr, const char *name)
{
    for (int i = 0; i < tr->n_art_summary; i++)
        if (strcmp(tr->art_summary[i].name, name) == 0)
            return tr->art_summary[i].summary;
    return NULL;
}

/* A stack frame of a sanitizer report ("    #1 0x55d3 in f
 * /src/fast/run_output.c:24:5") in a source file of the tree: its path
 * into out (1); 0 for other lines and frames without a source file. */
static int report_frame(const char *line, char *out, size_t len)
{
    const char *p = line + strspn(line, " \t");
    if (p[0] != '#' || !(p[1] >= '0' && p[1] <= '9') || !strstr(p, " in "))
        return 0;
    const char *src = fuzz_source_ref(p);
    if (src == NULL)
        return 0;
    const char *start = src;
    while (start > p && start[-1] != ' ')
        start--;
    size_t n = strcspn(start, " \n");
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), start);
    return 1;
}

/* The plug-in under test, whose frames name its crashes; NULL for fast/
 * built in and for a worker process (its crashes are its own findings). */
static const char *plugin_under_test(void)
{
    const char *p = fia_sut_current_path();
    if (fia_sut_current_is_builtin() || p == NULL || p[0] == '\0' ||
        strncmp(p, FIA_SUT_EXEC_PREFIX, strlen(FIA_SUT_EXEC_PREFIX)) == 0)
        return NULL;
    return p;
}

/* A line of a sanitizer's report: its ERROR line (or libFuzzer's deadly
 * signal, whose stack it prints too) starts one, then the access and the
 * frames of its first stack are kept (report_frame), and a plug-in's
 * first frame in it. */
static void report_line(const char *line, target_run *tr)
{
    if (strstr(line, "ERROR: ") != NULL &&
        (strstr(line, "Sanitizer: ") != NULL ||
         strstr(line, "libFuzzer: deadly signal") != NULL)) {
        tr->frame_wanted = 1;
        tr->plugin_wanted = plugin_under_test() != NULL;
        tr->access[0] = tr->first_frame[0] = tr->outer_frame[0] = '\0';
        tr->plugin_frame[0] = '\0';
        return;
    }
    if (tr->plugin_wanted) {
        int k = fuzz_plugin_frame(line, plugin_under_test(), tr->plugin_frame,
                                  sizeof tr->plugin_frame);
        if (k != 0)
            tr->plugin_wanted = 0; /* the plug-in's, or the tree's first */
        if (k < 0)
            tr->plugin_frame[0] = '\0';
    }
    if (!tr->frame_wanted)
        return;
    const char *t = line + strspn(line, " \t");
    if (strncmp(t, "READ of size", 12) == 0 || strstr(line, "caused by a READ"))
        snprintf(tr->access, sizeof tr->access, "READ");
    else if (strncmp(t, "WRITE of size", 13) == 0 ||
             strstr(line, "caused by a WRITE"))
        snprintf(tr->access, sizeof tr->access, "WRITE");
    char frame[160];
    if (!report_frame(line, frame, sizeof frame))
        return;
    if (!tr->first_frame[0])
        snprintf(tr->first_frame, sizeof tr->first_frame, "%s", frame);
    if (strstr(frame, "/fast/kernel/") == NULL) {
        snprintf(tr->outer_frame, sizeof tr->outer_frame, "%s", frame);
        tr->frame_wanted = 0; /* the rest of the report: other stacks */
    }
}

/* The site a crash finding is named by (fuzz_crash_site reads the first
 * "Sanitizer: KIND" and the first source file of it): from an ASan report,
 * its access (else the SUMMARY's kind) at its first frame outside the
 * micro-kernels, where the bad offset was made (one out-of-bounds read
 * seen in widen and in widen_t is one bug), the SUMMARY kept behind it;
 * else the SUMMARY as it is. */
static void crash_summary(target_run *tr, const char *summary)
{
    const char *frame = tr->outer_frame[0] ? tr->outer_frame : tr->first_frame;
    const char *k = strstr(summary, "Sanitizer: ");
    if (tr->plugin_frame[0]) {
        /* a plug-in's bug: its kind at its first frame in the plug-in
         * (fuzz_crash_site reads "plug-in crash: KIND at SITE; ...") */
        char kind[64];
        const char *d = strstr(summary, ": ");
        if (tr->access[0])
            snprintf(kind, sizeof kind, "%s", tr->access);
        else if (k != NULL)
            snprintf(kind, sizeof kind, "%.*s", (int)strcspn(k + 11, " "),
                     k + 11);
        else /* libFuzzer's: "deadly signal" */
            snprintf(kind, sizeof kind, "%.40s", d ? d + 2 : summary);
        for (char *c = kind; *c; c++)
            *c = *c == ' ' ? '-' : *c;
        if (snprintf(tr->last_summary, sizeof tr->last_summary,
                     "plug-in crash: %s at %s; %s", kind, tr->plugin_frame,
                     summary) >= (int)sizeof tr->last_summary) {
            /* cut at the summary's end: the site, first, is whole */
        }
        return;
    }
    if (!frame[0] || k == NULL) {
        snprintf(tr->last_summary, sizeof tr->last_summary, "%s", summary);
        return;
    }
    k += 11;
    size_t klen = strcspn(k, " ");
    snprintf(tr->last_summary, sizeof tr->last_summary,
             "%.*sSanitizer: %.*s %.140s (%s)", (int)(k - 11 - summary),
             summary, tr->access[0] ? 5 : (int)(klen < 60 ? klen : 60),
             tr->access[0] ? tr->access : k, frame, summary);
}

/* One line of a worker's output: libFuzzer's status lines ("#1234 NEW
 * cov: 10 ft: 20 corp: 3/99b exec/s: 100", fork mode's "... oom/timeout/
 * crash: 0/0/1"), an artifact written, a sanitizer's SUMMARY, a finding the
 * target reported ("fuzz: finding SIG: ..."). */
static void parse_line(const runner *r, const char *line, target_run *tr)
{
    const char *p;
    if (line[0] == '#' && (p = strstr(line, "cov: ")) != NULL) {
        long v = atol(p + 5);
        tr->execs_libfuzzer = atol(line + 1);
        tr->cov = v > tr->cov ? v : tr->cov;   /* the best of its workers */
        if ((p = strstr(line, "ft: ")) != NULL && (v = atol(p + 4)) > tr->ft)
            tr->ft = v;
        if ((p = strstr(line, "corp: ")) != NULL && (v = atol(p + 6)) > tr->corp)
            tr->corp = v;
        if ((p = strstr(line, "oom/timeout/crash: ")) != NULL &&
            sscanf(p + 19, "%ld/%ld/%ld", &tr->ooms, &tr->timeouts,
                   &tr->crashes) == 3 && tr->ooms + tr->timeouts + tr->crashes > 0)
            found(r, tr);
    }
    report_line(line, tr);
    if ((p = strstr(line, "SUMMARY: ")) != NULL) {
        crash_summary(tr, p + 9);
        tr->frame_wanted = tr->plugin_wanted = 0;
        tr->access[0] = tr->first_frame[0] = tr->outer_frame[0] = '\0';
        tr->plugin_frame[0] = '\0';
    }
    if ((p = strstr(line, " written to ")) != NULL)
        pair_summary(tr, p + 12);
    if ((p = strstr(line, "Test unit written to ")) != NULL) {
        /* libFuzzer also writes slow units (slow-unit-*): not findings */
        int crash = strstr(p, "/crash-") != NULL || strstr(p, "/leak-") != NULL;
        int timeout = strstr(p, "/timeout-") != NULL;
        int oom = strstr(p, "/oom-") != NULL;
        tr->crashes += crash, tr->timeouts += timeout, tr->ooms += oom;
        if (crash || timeout || oom)
            found(r, tr);
    }
    if (strncmp(line, "fuzz: finding ", 14) == 0)
        found(r, tr);
}


/* n in at most 6 characters: 123456, 1.2M, 12.3G. */
static void short_count(long long n, char *out, size_t len)
{
    const char *unit = "kMGTPE";
    double x = (double)n;
    if (n < 1000000) {
        snprintf(out, len, "%lld", n);
        return;
    }
    int u = -1;
    while (x >= 1000 && u < 5)
        x /= 1000, u++;
    snprintf(out, len, x < 10 ? "%.1f%c" : "%.0f%c", x, unit[u]);
}

/* The live lines: one per target of w (of the plan when w is NULL); on a
 * terminal the targets' lines take turns on one line, cut to its width
 * (cli_live_print). */
static void progress(runner *r, const worker *w, int nw, double left)
{
    const campaign_plan *p = r->p;
    for (int k = 0; k < p->ntargets; k++) {
        const target_run *tr = p->runs[k];
        int running = w == NULL;   /* NULL: every target */
        for (int i = 0; i < nw; i++)
            running += w[i].tr == tr;
        if (!running)
            continue;
        double rate = tr->seconds > 0 ? (double)tr->cnt.execs / tr->seconds : 0;
        char ex[32], rt[32], cov[32], ft[32], fi[32], line[256];
        short_count(tr->cnt.execs, ex, sizeof ex);
        short_count((long long)rate, rt, sizeof rt);
        short_count(tr->cov, cov, sizeof cov);
        short_count(tr->ft, ft, sizeof ft);
        short_count(tr->cnt.findings, fi, sizeof fi);
        snprintf(line, sizeof line, "%-16s %s execs %s/s cov %s ft %s findings "
                 "%s/%d distinct crashes %ld %.0fs left", fuzz_target_name(tr->id),
                 ex, rt, cov, ft, fi, tr->nsigs, tr->crashes, left);
        cli_live_print(line);
    }
}

/* The libFuzzer command line of one worker, and the strings it points to. */
typedef struct fuzzer_cmd {
    const char *argv[32];
    char corpus[PATH_MAX], seeds[PATH_MAX], dict[PATH_MAX];
    char a_time[48], a_seed[48], a_dict[PATH_MAX + 8], a_art[PATH_MAX + 20];
} fuzzer_cmd;

/* In-process mode, the time budget, the seed, the seed corpus and
 * dictionary from corpus/, the working corpus (first: where new inputs go)
 * and the artifacts in the work directory.  FIA_OK or FIA_ERR_IO. */
static fia_status fuzzer_command(const campaign_plan *p, const worker *w,
                                 int seconds, uint64_t seed, fuzzer_cmd *fc,
                                 fia_error *err)
{
    const target_run *tr = w->tr;
    const char *tn = fuzz_target_name(tr->id);
    if (fuzz_join_path(fc->corpus, sizeof fc->corpus, p->workdir, "/corpus/", tn, ""))
        return fia_fail(err, FIA_ERR_IO, "the path %s is too long", p->workdir);
    snprintf(fc->seeds, sizeof fc->seeds, "%s/corpus/%s", FIA_SOURCE_DIR, tn);
    snprintf(fc->dict, sizeof fc->dict, "%s/corpus/%s/%s.dict", FIA_SOURCE_DIR,
             tn, tn);
    fia_status rc = fuzz_make_dirs(fc->corpus, err);
    if (rc != FIA_OK)
        return rc;
    const char **argv = fc->argv;
    int k = 0;
    if (w->random) {
        /* the replay driver: --random N --seed S --time T, crash inputs
         * written like libFuzzer's artifacts */
        snprintf(fc->a_time, sizeof fc->a_time, "%d", seconds);
        snprintf(fc->a_seed, sizeof fc->a_seed, "%llu", (unsigned long long)seed);
        snprintf(fc->a_art, sizeof fc->a_art, "%s/", tr->arts);
        argv[k++] = tr->bin_random;
        argv[k++] = "--random";
        argv[k++] = "2000000000";
        argv[k++] = "--seed";
        argv[k++] = fc->a_seed;
        argv[k++] = "--time";
        argv[k++] = fc->a_time;
        argv[k++] = "--artifact-prefix";
        argv[k++] = fc->a_art;
        argv[k] = NULL;
        return FIA_OK;
    }
    snprintf(fc->a_time, sizeof fc->a_time, "-max_total_time=%d", seconds);
    snprintf(fc->a_seed, sizeof fc->a_seed, "-seed=%llu", (unsigned long long)seed);
    snprintf(fc->a_dict, sizeof fc->a_dict, "-dict=%s", fc->dict);
    snprintf(fc->a_art, sizeof fc->a_art, "-artifact_prefix=%s/", tr->arts);
    argv[k++] = w->sanitized ? tr->bin : tr->bin_nosan;
    argv[k++] = fc->a_time;
    argv[k++] = fc->a_seed;
    if (access(fc->dict, R_OK) == 0)
        argv[k++] = fc->a_dict;
    argv[k++] = fc->a_art;
    argv[k++] = "-timeout=30";
    argv[k++] = "-rss_limit_mb=4096";
    argv[k++] = tr->id == FUZZ_PARAMS ? "-max_len=256" : "-max_len=512";
    argv[k++] = "-print_final_stats=1";
    argv[k++] = fc->corpus;
    if (access(fc->seeds, R_OK) == 0)
        argv[k++] = fc->seeds;
    argv[k] = NULL;
    return FIA_OK;
}

/* Starts worker w for `seconds` in its own process group (so that a
 * Ctrl-C reaches only this parent, which stops the group itself), its
 * stdout and stderr into a pipe.  A worker outside this process's group
 * gets no signal when this process is killed outright (SIGKILL, the OOM
 * killer): the kernel kills it then (PR_SET_PDEATHSIG, which survives its
 * exec), so that no worker fuzzes on into the store of a campaign that is
 * gone; the getppid check covers a parent that died before the prctl.
 * FIA_OK or FIA_ERR_IO. */
static fia_status spawn_worker(runner *r, worker *w, int seconds, fia_error *err)
{
    static fuzzer_cmd fc;
    target_run *tr = w->tr;
    uint64_t seed = fuzz_seed_add(tr->seed, (uint64_t)tr->runs);
    fia_status rc = fuzzer_command(r->p, w, seconds, seed, &fc, err);
    if (rc != FIA_OK)
        return rc;
    const worker_env *we = &r->p->env;
    char camp[32];
    snprintf(camp, sizeof camp, "%lld", (long long)tr->campaign);
    int fds[2];
    if (pipe(fds) != 0)
        return fia_fail(err, FIA_ERR_IO, "pipe: %s", strerror(errno));
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return fia_fail(err, FIA_ERR_IO, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        dup2(fds[1], 2);
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        setpgid(0, 0);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(1);
        if (r->pin)
            (void)sched_setaffinity(0, sizeof r->cpus, &r->cpus);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        if (we->db)
            setenv("FIACHECK_DB", we->db, 1);
        setenv("FIACHECK_CAMPAIGN", camp, 1);
        setenv("FIACHECK_REVISION", we->revision, 1);
        setenv("FIACHECK_STATS", tr->stats, 1);
        setenv("FIACHECK_UNSTORED", tr->unstored_dir, 1);
        /* a campaign records its findings and goes on, whatever the
         * user's environment says (crash mode is for engines alone) */
        setenv("FIACHECK_ON_FINDING", "record", 1);
        setenv("TMPDIR", tr->tmpdir, 1);
        if (we->profile)
            setenv("FIACHECK_PROFILE", we->profile, 1);
        else
            unsetenv("FIACHECK_PROFILE");
        execv(fc.argv[0], (char *const *)fc.argv);
        fprintf(stderr, "cannot run %s: %s\n", fc.argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);   /* also here: no kill(-pid) before the child's own */
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    w->pid = pid;
    w->fd = fds[0];
    w->ll = 0;
    w->started = elapsed(r);
    tr->runs++;
    tr->runs_sanitized += w->sanitized;
    return FIA_OK;
}

/* Reads what worker w wrote: to its target's log, its lines parsed. */
static void drain(runner *r, worker *w)
{
    char buf[8192];
    ssize_t n;
    while (w->fd >= 0 && (n = read(w->fd, buf, sizeof buf)) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                close(w->fd);
                w->fd = -1;
            }
            return;
        }
        FILE *log = r->log[w->slot];
        if (log != NULL)
            fwrite(buf, 1, (size_t)n, log);
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == '\n' || w->ll + 1 >= sizeof w->line) {
                w->line[w->ll] = '\0';
                parse_line(r, w->line, w->tr);
                w->ll = 0;
            } else {
                w->line[w->ll++] = buf[i];
            }
        }
    }
    close(w->fd);   /* end of file: every writer of the group is gone */
    w->fd = -1;
}

/* Ends worker w's bookkeeping once reaped with wait status st at t, ru
 * its CPU time; may restart it (a crash, timeout or out-of-memory ended it
 * before the deadline).  FIA_OK or an error (it could not be run). */
static fia_status reaped(runner *r, worker *w, int st, const struct rusage *ru,
                         double t, double deadline, int stopping, fia_error *err)
{
    drain(r, w);
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
    kill(-w->pid, SIGKILL);   /* what is left of its group ends with it */
    w->pid = 0;
    w->tr->worker_seconds += (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) +
                             (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1e-6;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
        return fia_fail(err, FIA_ERR_IO, "cannot run %s",
                        w->random ? w->tr->bin_random
                        : w->sanitized ? w->tr->bin : w->tr->bin_nosan);
    if (stopping || fuzz_stop_signal || (WIFEXITED(st) && WEXITSTATUS(st) == 0) ||
        deadline - t < 1)
        return FIA_OK;
    w->quick_fails = t - w->started < QUICK_FAIL ? w->quick_fails + 1 : 0;
    if (w->quick_fails >= MAX_QUICK_FAILS) {
        fprintf(stderr, "fiacheck fuzz: %s failed at its start %d times in a "
                "row; not restarted (see %s)\n",
                fuzz_target_name(w->tr->id), w->quick_fails, w->tr->log);
        return FIA_OK;
    }
    return spawn_worker(r, w, (int)(deadline - t + 0.5), err);
}

/* Runs the nw workers until deadline (campaign seconds);
 * stops them on a stop signal or when they overrun it (SIGTERM, then
 * SIGKILL after STOP_GRACE).  FIA_OK, or an error when one could not
 * start. */
static fia_status run_all(runner *r, worker *w, int nw, double deadline,
                           fia_error *err)
{
    const campaign_plan *p = r->p;
    double start = elapsed(r), base[FUZZ_TARGET_COUNT];
    int has_workers[FUZZ_TARGET_COUNT] = {0};
    fia_status rc = FIA_OK;
    for (int k = 0; k < p->ntargets; k++)
        base[k] = p->runs[k]->seconds;
    for (int i = 0; i < nw; i++)
        w[i].pid = 0, w[i].fd = -1, w[i].quick_fails = 0, has_workers[w[i].slot] = 1;
    double term_at = -1;
    for (int i = 0; i < nw && rc == FIA_OK; i++) {
        int left = (int)(deadline - start + 0.5);
        rc = spawn_worker(r, &w[i], left > 0 ? left : 1, err);
    }
    if (rc != FIA_OK)
        term_at = start;
    for (;;) {
        struct pollfd pf[64];
        int idx[64], np = 0, alive = 0;
        for (int i = 0; i < nw; i++) {
            alive += w[i].pid > 0;
            if (w[i].fd >= 0 && np < 64)
                pf[np] = (struct pollfd){w[i].fd, POLLIN, 0}, idx[np++] = i;
        }
        if (alive == 0)
            break;
        if (term_at >= 0)
            for (int i = 0; i < nw; i++)
                if (w[i].pid > 0)
                    kill(-w[i].pid, elapsed(r) > term_at + STOP_GRACE ? SIGKILL
                                                                       : SIGTERM);
        if (np > 0 && poll(pf, (nfds_t)np, 200) > 0) {
            for (int j = 0; j < np; j++)
                if (pf[j].revents)
                    drain(r, &w[idx[j]]);
        } else if (np == 0) {
            nanosleep(&(struct timespec){0, 100000000}, NULL);
        }
        double t = elapsed(r);
        if (term_at < 0)   /* the time fuzzed, not the time stopping */
            for (int k = 0; k < p->ntargets; k++)
                if (has_workers[k])
                    p->runs[k]->seconds = base[k] + (t - start);
        for (int i = 0; i < nw; i++) {
            int st;
            struct rusage ru;
            if (w[i].pid > 0 && wait4(w[i].pid, &st, WNOHANG, &ru) == w[i].pid) {
                fia_status x = reaped(r, &w[i], st, &ru, t, deadline,
                                      term_at >= 0, err);
                if (x != FIA_OK && rc == FIA_OK)
                    rc = x, term_at = t;
            }
        }
        if (t - r->last_stats >= 0.5) {
            for (int k = 0; k < p->ntargets; k++)
                if (has_workers[k]) {
                    fuzz_read_stats(p->runs[k]);
                    if (p->runs[k]->cnt.findings > 0)
                        found(r, p->runs[k]);
                }
            r->last_stats = t;
        }
        if (term_at < 0 && t - r->last_print >= (r->tty ? 1.0 : 10.0)) {
            progress(r, w, nw, t < p->seconds ? p->seconds - t : 0);
            r->last_print = t;
        }
        if (term_at < 0 && (fuzz_stop_signal || t > deadline + OVERRUN))
            term_at = t;
    }
    return rc;
}

/* With fewer jobs than workers: the first `jobs` CPUs this process may
 * use into r->cpus (r->pin set), unless it may use no more than that. */
static void pin_cpus(runner *r, int jobs)
{
    cpu_set_t mine;
    if (sched_getaffinity(0, sizeof mine, &mine) != 0 || CPU_COUNT(&mine) <= jobs)
        return;
    CPU_ZERO(&r->cpus);
    for (int c = 0, n = 0; c < CPU_SETSIZE && n < jobs; c++)
        if (CPU_ISSET(c, &mine))
            CPU_SET(c, &r->cpus), n++;
    r->pin = 1;
}

fia_status fuzz_run_workers(const campaign_plan *p, fia_error *err)
{
    int nt = p->ntargets, jobs = p->jobs;
    runner r = {.p = p, .tty = cli_live_tty(), .last_print = -100, .last_stats = -100};
    clock_gettime(CLOCK_MONOTONIC, &r.t0);
    int cap = (jobs > 2 * nt ? jobs : 2 * nt) + nt, nw = 0;
    worker *w = calloc((size_t)cap, sizeof *w);
    if (w == NULL)
        return fia_fail(err, FIA_ERR_NOMEM, "out of memory for %d workers", cap);
    for (int k = 0; k < nt; k++) {
        r.log[k] = fopen(p->runs[k]->log, "w");
        p->runs[k]->ttff = -1;
    }
    if (jobs >= nt) {
        /* target s % nt; each target's first worker sanitized */
        for (; nw < jobs; nw++)
            w[nw].slot = nw % nt, w[nw].sanitized = nw < nt;
    } else {
        /* one sanitized worker per target, one without when built; all
         * on `jobs` CPUs */
        for (int k = 0; k < nt; k++)
            w[nw].slot = k, w[nw++].sanitized = 1;
        for (int k = 0; k < nt; k++)
            if (p->runs[k]->bin_nosan[0] != '\0')
                w[nw].slot = k, w[nw++].sanitized = 0;
        pin_cpus(&r, jobs);
    }
    for (int i = 0; i < nw; i++) {
        w[i].tr = p->runs[w[i].slot];
        w[i].sanitized |= w[i].tr->bin_nosan[0] == '\0';
    }
    for (int k = 0; k < nt; k++)
        if (p->runs[k]->bin_random[0] != '\0') {
            w[nw].slot = k, w[nw].tr = p->runs[k];
            w[nw].sanitized = w[nw].random = 1;
            nw++;
        }
    fia_status rc = run_all(&r, w, nw, p->seconds, err);
    for (int k = 0; k < nt; k++) {
        fuzz_read_stats(p->runs[k]);
        if (p->runs[k]->cnt.findings > 0)
            found(&r, p->runs[k]);
        if (r.log[k] != NULL)
            fclose(r.log[k]);
    }
    progress(&r, NULL, 0, 0);
    cli_live_end();
    free(w);
    return rc;
}
