/* `fiacheck fuzz [--target T|all] [--time SECONDS] [--jobs N] [--db PATH]
 *                [--workdir DIR] [--profile doc|cann] [--seed N]`
 *
 * Runs the libFuzzer binaries fuzz_<target> that sit beside this executable
 * (built by fuzz/build.sh with clang; fiacheck builds nothing itself) in
 * fork mode, one target after the other, each for its share of the time.
 * The workers record findings, rule coverage and accuracy in the store
 * themselves (FIACHECK_DB, FIACHECK_CAMPAIGN); this parent shows a progress
 * line parsed from libFuzzer's output, turns crash-/timeout-/oom- artifacts
 * into findings, and prints a summary.  Exit 0 no finding, 1 findings,
 * 2 usage, missing binaries, an unwritable working directory or findings
 * the store did not take (their case files are named), 128 + the signal
 * when SIGINT or SIGTERM stopped it.
 *
 * Each target's campaign has a UUID; its files sit in the working
 * directory (--workdir, else the store's folder), keyed by it, so that
 * campaigns of different stores never mix: stats/<uuid>/ (the workers'
 * counters), artifacts/<uuid>/, logs/<uuid>.log, tmp/<uuid>/ (libFuzzer's
 * TMPDIR, removed at the end) and unstored/<uuid>/ (findings the store
 * refused, spooled as case files).  The corpus, corpus/<target>/, is shared
 * by the campaigns: it is what they build on. */
#define _XOPEN_SOURCE 700 /* realpath, nftw */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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
    uint64_t seed;          /* libFuzzer's -seed */
    char uuid[40];
    /* the campaign's files in the work directory, named by its UUID */
    char stats[PATH_MAX], arts[PATH_MAX], log[PATH_MAX], tmpdir[PATH_MAX],
         unstored_dir[PATH_MAX];
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

static const char help_text[] =
    "usage: fiacheck fuzz [OPTIONS]\n"
    "Runs the libFuzzer targets beside fiacheck, one after the other, into a store.\n"
    "  --target params|numeric|metamorphic|all   the target (default all; once)\n"
    "  --time SECONDS    total time, shared by the targets, 1..31536000 (default 60)\n"
    "  --jobs N          libFuzzer fork-mode workers per target, 1..64 (default 1)\n"
    "  --db PATH         the store (default results/findings.db)\n"
    "  --workdir DIR     corpus, stats, artifacts, logs (default: the store's folder)\n"
    "  --profile doc|cann  the rule profile to check (default both)\n"
    "  --seed N          campaign seed, 1..4294967295 (default random; stored);\n"
    "                    target k of params, numeric, metamorphic runs with N + k\n"
    "  --revision NAME   the revision to store (default: the build's)\n"
    "  -h, --help        this help\n"
    "Exit 0 no finding, 1 findings, 2 usage, missing binaries, an unwritable\n"
    "working directory or findings the store did not take; 130 on SIGINT.\n";

static void print_usage(FILE *f)
{
    fputs(help_text, f);
}

static int usage(void)
{
    fprintf(stderr, "usage: fiacheck fuzz [--target params|numeric|metamorphic|all] "
            "[--time SECONDS] [--jobs N] [--db PATH] [--workdir DIR] "
            "[--profile doc|cann] [--seed N] [--revision NAME] "
            "(fiacheck fuzz --help)\n");
    return CLI_EXIT_USAGE;
}

/* The largest seed: libFuzzer takes an unsigned 32-bit seed, 0 meaning
 * "pick one", which a stored campaign could not be rerun with. */
#define SEED_MAX 4294967295LL

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

/* v as a whole decimal number within lo..hi into *out; 0, or -1 said. */
static int parse_number(const char *opt, const char *v, long long lo,
                        long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (v[0] == '\0' || *end != '\0' || errno != 0 || x < lo || x > hi) {
        fprintf(stderr, "fiacheck fuzz: %s takes a whole number of %lld..%lld, "
                "not '%s'\n", opt, lo, hi, v);
        return -1;
    }
    *out = x;
    return 0;
}

/* CLI_EXIT_OK; -1 when the help was printed (exit 0); else the exit code
 * after the usage was said. */
static int parse_args(int argc, char **argv, fuzz_opts *o)
{
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++)
        o->want[t] = 1;
    o->seconds = 60, o->jobs = 1, o->seed = 0;
    o->db = "results/findings.db", o->workdir = NULL, o->profile = NULL;
    int have_target = 0;
    for (int i = 0; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long long x;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(help_text, stdout);
            return -1;
        }
        if (v == NULL) {
            fprintf(stderr, "fiacheck fuzz: %s needs a value\n", a);
            return usage();
        }
        if (strcmp(a, "--target") == 0) {
            if (have_target++) {
                fprintf(stderr, "fiacheck fuzz: --target given twice (one "
                        "target, or all)\n");
                return usage();
            }
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
            if (parse_number(a, v, 1, 31536000, &x) != 0)
                return usage();
            o->seconds = (int)x;
        } else if (strcmp(a, "--jobs") == 0) {
            if (parse_number(a, v, 1, 64, &x) != 0)
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
            if (parse_number(a, v, 1, SEED_MAX, &o->seed) != 0)
                return usage();
        } else {
            fprintf(stderr, "fiacheck fuzz: unknown option '%s'\n", a);
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
/* out = a b c d; nonzero when it did not fit. */
static int join_path(char *out, size_t len, const char *a, const char *b,
                     const char *c, const char *d)
{
    return snprintf(out, len, "%s%s%s%s", a, b, c, d) >= (int)len;
}

/* mkdir -p path.  FIA_OK or FIA_ERR_IO. */
static fia_status make_dirs(const char *path, fia_error *err)
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

/* rm -r dir (libFuzzer's temp directories). */
static void remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

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

/* A campaign seed drawn at random, 1..SEED_MAX.  FIA_OK or FIA_ERR_IO. */
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
 * within 1..SEED_MAX, so that each target of a rerun with the stored
 * --seed runs as before, whichever targets are chosen. */
static uint64_t target_seed(long long seed, int t)
{
    return (uint64_t)((seed - 1 + t) % SEED_MAX) + 1;
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
            else if (sscanf(line, "vacuous %lld", &v) == 1) tr->cnt.vacuous += v;
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

/* The live line, cut to 79 columns so that it stays one terminal line. */
static void progress(const target_run *tr, double left, int tty)
{
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
    line[79] = '\0';
    fprintf(stderr, tty ? "\r%-79s" : "%s\n", line);
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

/* Findings the store refused: each spooled to a case file at once (so that
 * nothing is lost whatever happens next), kept to retry, its file removed
 * once stored. */
typedef struct unstored_finding {
    fuzz_finding fd;
    int64_t campaign;
    char path[PATH_MAX + 64];
} unstored_finding;

typedef struct unstored_list {
    unstored_finding *items;
    size_t n, cap;
    int store_busy;    /* a write failed: the rest of this pass is spooled */
} unstored_list;

/* Spools fd's text under dir and keeps fd (taking what it holds) in u.
 * FIA_OK, or FIA_ERR_IO / FIA_ERR_NOMEM when not even that worked. */
static fia_status spool_finding(unstored_list *u, fuzz_finding *fd,
                                int64_t campaign, const char *dir,
                                fia_error *err)
{
    if (u->n == u->cap) {
        size_t cap = u->cap ? 2 * u->cap : 8;
        unstored_finding *ni = realloc(u->items, cap * sizeof *ni);
        if (ni == NULL)
            return fia_fail(err, FIA_ERR_NOMEM, "out of memory keeping a finding");
        u->items = ni, u->cap = cap;
    }
    unstored_finding *x = &u->items[u->n];
    snprintf(x->path, sizeof x->path, "%s/parent.%ld.%zu.case", dir,
             (long)getpid(), u->n);
    FILE *f = fopen(x->path, "w");
    if (f == NULL || fputs(fd->text, f) < 0 || fclose(f) != 0)
        return fia_fail(err, FIA_ERR_IO, "cannot write %s: %s", x->path,
                        strerror(errno));
    x->fd = *fd;
    x->campaign = campaign;
    fd->text = NULL;   /* now u's */
    u->n++;
    return FIA_OK;
}

/* Tries the spooled findings again; those stored leave u, their files
 * removed.  Stops at the first refusal (the store is still locked: each
 * try waits its busy timeout). */
static void retry_unstored(fia_store *st, unstored_list *u, const char *revision)
{
    size_t k = 0;
    for (size_t i = 0; i < u->n; i++) {
        unstored_finding *x = &u->items[i];
        fia_finding_record r;
        fuzz_finding_record(&x->fd, x->campaign, revision, &r);
        if (k == i && fia_store_add_finding(st, &r, NULL) == FIA_STORE_OK) {
            unlink(x->path);
            fuzz_finding_free(&x->fd);
            k++;
            continue;
        }
        u->items[i - k] = *x;
    }
    u->n -= k;
}

/* Records one artifact as a finding, once per signature (seen); what the
 * store refuses goes to u. */
static void record_artifact(fia_store *st, const char *path, const char *name,
                            const char *kind, const target_run *tr,
                            const char *profile, const char *revision,
                            fuzz_strset *seen, unstored_list *u)
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
    if (added && fuzz_finding_attach_text(&fd, &c) != FIA_OK) {
        fprintf(stderr, "fiacheck fuzz: out of memory for the finding of %s; "
                "the artifact stays\n", path);
    } else if (added) {
        fia_finding_record r;
        fuzz_finding_record(&fd, tr->campaign, revision, &r);
        int src = u->store_busy ? FIA_STORE_ERR_BUSY
                                : fia_store_add_finding(st, &r, NULL);
        if (src != FIA_STORE_OK) {
            fia_error err = {0};
            if (!u->store_busy)
                fprintf(stderr, "fiacheck fuzz: cannot record %s: %s; kept to "
                        "retry\n", path, fia_store_errmsg(st));
            u->store_busy |= src == FIA_STORE_ERR_BUSY;
            if (spool_finding(u, &fd, tr->campaign, tr->unstored_dir, &err) != FIA_OK)
                fprintf(stderr, "fiacheck fuzz: %s; the artifact %s stays\n",
                        err.msg, path);
        }
    }
    fuzz_finding_free(&fd);
    fia_case_free(&c);
}

/* Crash/timeout/oom artifacts of this campaign become findings. */
static void collect_artifacts(fia_store *st, target_run *tr, const char *profile,
                              const char *revision, unstored_list *u)
{
    DIR *d = opendir(tr->arts);
    if (d == NULL)
        return;
    fuzz_strset seen;
    fuzz_strset_init(&seen);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *kind = artifact_kind(e->d_name);
        char path[PATH_MAX + 300];
        if (kind == NULL)
            continue;
        snprintf(path, sizeof path, "%s/%s", tr->arts, e->d_name);
        tr->artifacts++;
        record_artifact(st, path, e->d_name, kind, tr, profile, revision, &seen, u);
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

/* The number of spooled case files in dir (the workers' and ours). */
static int count_case_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        n += l > 5 && strcmp(e->d_name + l - 5, ".case") == 0;
    }
    closedir(d);
    return n;
}

/* The libFuzzer command line of one target, and the strings it points to. */
typedef struct fuzzer_cmd {
    const char *argv[32];
    char corpus[PATH_MAX], seeds[PATH_MAX], dict[PATH_MAX];
    char a_fork[32], a_time[48], a_seed[48], a_dict[PATH_MAX + 8],
         a_art[PATH_MAX + 20];
} fuzzer_cmd;

/* Fork mode, the time budget, the seed, the seed corpus and dictionary
 * from corpus/, the working corpus and the artifacts in the work
 * directory.  FIA_OK or FIA_ERR_IO (the corpus folder). */
static fia_status fuzzer_command(const char *bin, const char *workdir,
                                 const target_run *tr, int seconds, int jobs,
                                 fuzzer_cmd *fc, fia_error *err)
{
    const char *tn = fuzz_target_name(tr->id);
    if (join_path(fc->corpus, sizeof fc->corpus, workdir, "/corpus/", tn, ""))
        return fia_fail(err, FIA_ERR_IO, "the path %s is too long", workdir);
    snprintf(fc->seeds, sizeof fc->seeds, "%s/corpus/%s", FIA_SOURCE_DIR, tn);
    snprintf(fc->dict, sizeof fc->dict, "%s/corpus/%s/%s.dict", FIA_SOURCE_DIR,
             tn, tn);
    fia_status rc = make_dirs(fc->corpus, err);
    if (rc != FIA_OK)
        return rc;
    snprintf(fc->a_fork, sizeof fc->a_fork, "-fork=%d", jobs);
    snprintf(fc->a_time, sizeof fc->a_time, "-max_total_time=%d", seconds);
    snprintf(fc->a_seed, sizeof fc->a_seed, "-seed=%llu",
             (unsigned long long)tr->seed);
    snprintf(fc->a_dict, sizeof fc->a_dict, "-dict=%s", fc->dict);
    snprintf(fc->a_art, sizeof fc->a_art, "-artifact_prefix=%s/", tr->arts);
    const char **argv = fc->argv;
    int k = 0;
    argv[k++] = bin;
    argv[k++] = fc->a_fork;
    argv[k++] = fc->a_time;
    argv[k++] = fc->a_seed;
    if (access(fc->dict, R_OK) == 0)
        argv[k++] = fc->a_dict;
    argv[k++] = fc->a_art;
    argv[k++] = "-ignore_crashes=1";
    argv[k++] = "-ignore_timeouts=1";
    argv[k++] = "-ignore_ooms=1";
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

/* What the workers are told through their environment. */
typedef struct worker_env {
    const char *db, *profile, *revision;
} worker_env;

/* Starts the fuzzer in its own process group (so that a Ctrl-C reaches
 * only this parent, which stops the group itself), its stdout and stderr
 * into the pipe's write end; its pid, or -1. */
static pid_t spawn_fuzzer(const fuzzer_cmd *fc, const worker_env *we,
                          const target_run *tr, int fds[2])
{
    char camp[32];
    snprintf(camp, sizeof camp, "%lld", (long long)tr->campaign);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    dup2(fds[1], 2);
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    setpgid(0, 0);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (we->db)
        setenv("FIACHECK_DB", we->db, 1);
    setenv("FIACHECK_CAMPAIGN", camp, 1);
    setenv("FIACHECK_REVISION", we->revision, 1);
    setenv("FIACHECK_STATS", tr->stats, 1);
    setenv("FIACHECK_UNSTORED", tr->unstored_dir, 1);
    setenv("TMPDIR", tr->tmpdir, 1);   /* libFuzzer's fork-mode files */
    if (we->profile)
        setenv("FIACHECK_PROFILE", we->profile, 1);
    else
        unsetenv("FIACHECK_PROFILE");
    execv(fc->argv[0], (char *const *)fc->argv);
    fprintf(stderr, "cannot run %s: %s\n", fc->argv[0], strerror(errno));
    _exit(127);
}

/* The first SIGINT or SIGTERM: the campaign stops, its results kept. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    if (stop_signal == 0)
        stop_signal = sig;
}

/* Seconds the workers get to end after SIGTERM before SIGKILL. */
#define STOP_GRACE 3.0

/* Reads the fuzzer's output (to the log, its lines to tr) and shows the
 * progress until it exits; stops its process group on a stop signal or
 * when it overruns its budget by a minute (SIGTERM, then SIGKILL after
 * STOP_GRACE).  Its wait status. */
static int follow_fuzzer(pid_t pid, int fd, int seconds, target_run *tr)
{
    FILE *log = fopen(tr->log, "w");
    int tty = isatty(2);
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char buf[8192], line[8192];
    size_t ll = 0;
    double last_print = -100, term_at = -1;
    int open_pipe = 1, status = 0, reaped = 0;
    while (!reaped) {
        struct pollfd pf = {fd, POLLIN, 0};
        int pr = open_pipe ? poll(&pf, 1, 200) : (nanosleep(&(struct timespec){0, 100000000}, NULL), 0);
        if (pr > 0) {
            ssize_t n = read(fd, buf, sizeof buf);
            if (n <= 0 && !(n < 0 && errno == EINTR)) {
                open_pipe = 0;
            } else if (n > 0) {
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
        double t = (double)(now.tv_sec - t0.tv_sec) +
                   (double)(now.tv_nsec - t0.tv_nsec) * 1e-9;
        if (term_at < 0)
            tr->seconds = t;   /* the time fuzzed, not the time stopping */
        if (term_at < 0 && t - last_print >= (tty ? 1.0 : 10.0)) {
            read_stats(tr->stats, tr);
            double left = seconds - t;
            progress(tr, left > 0 ? left : 0, tty);
            last_print = t;
        }
        if (term_at < 0 && (stop_signal || t > seconds + 60)) {
            kill(-pid, SIGTERM);
            term_at = t;
        } else if (term_at >= 0 && t > term_at + STOP_GRACE) {
            kill(-pid, SIGKILL);
        }
        /* the pipe may stay open while a straggler of the group lives */
        if ((!open_pipe || term_at >= 0) && waitpid(pid, &status, WNOHANG) == pid)
            reaped = 1;
    }
    /* what is left of the group (libFuzzer's fork-mode jobs) ends with it */
    kill(-pid, SIGKILL);
    if (log)
        fclose(log);
    read_stats(tr->stats, tr);
    progress(tr, 0, tty);
    if (tty)
        fputc('\n', stderr);
    return status;
}

/* Runs one target; FIA_OK, or an error when it could not start. */
static fia_status run_target(const char *bin, const char *workdir,
                             target_run *tr, int seconds, int jobs,
                             const worker_env *we, fia_error *err)
{
    static fuzzer_cmd fc;
    fia_status rc = fuzzer_command(bin, workdir, tr, seconds, jobs, &fc, err);
    if (rc != FIA_OK)
        return rc;
    int fds[2];
    if (pipe(fds) != 0)
        return fia_fail(err, FIA_ERR_IO, "pipe: %s", strerror(errno));
    pid_t pid = spawn_fuzzer(&fc, we, tr, fds);
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return fia_fail(err, FIA_ERR_IO, "fork: %s", strerror(errno));
    }
    close(fds[1]);
    int status = follow_fuzzer(pid, fds[0], seconds, tr);
    close(fds[0]);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return fia_fail(err, FIA_ERR_IO, "cannot run %s", bin);
    return FIA_OK;
}

/* Opens (creating) the store at db, its folder too; *abs its absolute path
 * for the workers.  0, or -1 said. */
static int open_store(const char *db, fia_store **st, char *abs, size_t len)
{
    char dbdir[PATH_MAX];
    snprintf(dbdir, sizeof dbdir, "%s", db);
    char *sl = strrchr(dbdir, '/');
    if (sl != NULL && sl != dbdir) {
        *sl = '\0';
        (void)make_dirs(dbdir, NULL);   /* the store's open says what fails */
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
    if (join_path(tr->stats, sizeof tr->stats, workdir, "/stats/", tr->uuid, "") ||
        join_path(tr->arts, sizeof tr->arts, workdir, "/artifacts/", tr->uuid, "") ||
        join_path(tr->log, sizeof tr->log, workdir, "/logs/", tr->uuid, ".log") ||
        join_path(tr->tmpdir, sizeof tr->tmpdir, workdir, "/tmp/", tr->uuid, "") ||
        join_path(tr->unstored_dir, sizeof tr->unstored_dir, workdir,
                  "/unstored/", tr->uuid, "") ||
        join_path(logs, sizeof logs, workdir, "/logs", "", ""))
        return fia_fail(err, FIA_ERR_IO, "the work directory's path %s is too "
                        "long", workdir);
    const char *dirs[] = {tr->stats, tr->arts, logs, tr->tmpdir, tr->unstored_dir};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        fia_status rc = make_dirs(dirs[i], err);
        if (rc != FIA_OK)
            return rc;
    }
    return FIA_OK;
}

/* The campaign of one target in the store (tr->campaign); 0, or -1
 * said. */
static int begin_campaign(fia_store *st, const fuzz_opts *o, const char *command,
                          const char *revision, target_run *tr)
{
    fia_campaign_info ci = {revision, fuzz_target_name(tr->id),
                            o->profile ? o->profile : "doc+cann", "default",
                            tr->seed, command, ""};
    snprintf(ci.uuid, sizeof ci.uuid, "%s", tr->uuid);
    if (fia_store_campaign_begin(st, &ci, &tr->campaign) != FIA_STORE_OK) {
        fprintf(stderr, "fiacheck fuzz: %s\n", fia_store_errmsg(st));
        return -1;
    }
    return 0;
}

/* One target's begun campaign: run, its artifacts collected, its counts
 * recorded, the refused findings retried.  CLI_EXIT_OK or CLI_EXIT_USAGE
 * (said). */
static int run_campaign(fia_store *st, const fuzz_opts *o, const char *bin,
                        int per, const char *absdb, const char *workdir,
                        const char *revision, target_run *tr, unstored_list *u)
{
    const char *pname = o->profile ? o->profile : "doc+cann";
    int rc = CLI_EXIT_OK;
    fia_error err = {0};
    worker_env we = {absdb, o->profile, revision};
    if (campaign_dirs(workdir, tr, &err) != FIA_OK ||
        run_target(bin, workdir, tr, per, o->jobs, &we, &err) != FIA_OK) {
        fprintf(stderr, "fiacheck fuzz: %s\n", err.msg);
        rc = CLI_EXIT_USAGE;
    }
    remove_tree(tr->tmpdir);
    u->store_busy = 0;
    collect_artifacts(st, tr, pname, revision, u);
    if (fia_store_campaign_update(st, tr->campaign, tr->cnt.execs, tr->cov,
                                  tr->seconds, 1) != FIA_STORE_OK)
        fprintf(stderr, "fiacheck fuzz: cannot record the counts of campaign "
                "%lld: %s\n", (long long)tr->campaign, fia_store_errmsg(st));
    else if (u->n > 0)
        retry_unstored(st, u, revision);   /* the store writes again */
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
        const target_run *tr = &runs[t];
        if (!o->want[t] || tr->campaign == 0)
            continue;
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
        if (tr->cnt.vacuous > 0)
            printf("  vacuous (accepted, but no output element compared): "
                   "%lld\n", (long long)tr->cnt.vacuous);
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
        int n = count_case_files(tr->unstored_dir);
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
        return rc < 0 ? CLI_EXIT_OK : rc;
    char bins[FUZZ_TARGET_COUNT][PATH_MAX + 32];
    int ntargets = find_binaries(&o, bins);
    if (ntargets < 0)
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
        if (make_dirs(d, &err) != FIA_OK) {
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
    if (open_store(o.db, &st, absdb, sizeof absdb) != 0)
        return CLI_EXIT_USAGE;
    /* the command as run, with what fast/ computes with in front (the
     * workers inherit the environment) and the seed drawn: reproducible
     * from the store */
    char command[1024];
    int seed_given = 0;
    snprintf(command, sizeof command,
             "FIA_FAST_ISA=%s FIA_FAST_THREADS=%d fiacheck fuzz",
             fastKernelLevel(), fastThreadCount());
    const char *revision = o.revision ? o.revision : cli_build_revision();
    for (int i = 0; i < argc; i++) {
        size_t l = strlen(command);
        seed_given |= strcmp(argv[i], "--seed") == 0;
        snprintf(command + l, sizeof command - l, " %s", argv[i]);
    }
    if (!seed_given) {
        size_t l = strlen(command);
        snprintf(command + l, sizeof command - l, " --seed %lld", o.seed);
    }
    int per = o.seconds / ntargets > 0 ? o.seconds / ntargets : 1;
    target_run runs[FUZZ_TARGET_COUNT];
    memset(runs, 0, sizeof runs);
    unstored_list unstored = {0};
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;   /* no SA_RESTART: poll returns */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    fprintf(stderr, "fiacheck fuzz: revision %.12s%s, %d target(s), %d s each, "
            "%d job(s), seed %lld, store %s, work directory %s\n", revision,
            !o.revision && cli_build_dirty() ? " (a dirty build)" : "",
            ntargets, per, o.jobs, o.seed, o.db, workdir);
    for (int t = 0; t < FUZZ_TARGET_COUNT && !stop_signal; t++) {
        if (!o.want[t])
            continue;
        runs[t].id = t;
        runs[t].seed = target_seed(o.seed, t);
        if (make_uuid(runs[t].uuid, &err) != FIA_OK) {
            fprintf(stderr, "fiacheck fuzz: %s\n", err.msg);
            rc = CLI_EXIT_USAGE;
            break;
        }
        if (begin_campaign(st, &o, command, revision, &runs[t]) != 0) {
            rc = CLI_EXIT_USAGE;
            break;
        }
        if (run_campaign(st, &o, bins[t], per, absdb, workdir, revision,
                         &runs[t], &unstored) != CLI_EXIT_OK) {
            rc = CLI_EXIT_USAGE;
            break;
        }
    }
    int64_t total = print_summary(&o, runs);
    printf("store %s (revision %.12s); details: fiacheck db findings --db %s\n",
           o.db, revision, o.db);
    for (size_t i = 0; i < unstored.n; i++)
        fuzz_finding_free(&unstored.items[i].fd);   /* their files stay */
    free(unstored.items);
    fia_store_close(st);
    if (report_unstored(&o, runs) > 0)
        rc = CLI_EXIT_USAGE;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (stop_signal)
        return 128 + stop_signal;
    if (rc == CLI_EXIT_OK && total > 0)
        rc = CLI_EXIT_FINDING;
    return rc;
#endif
}
