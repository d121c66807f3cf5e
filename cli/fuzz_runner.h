/* The worker-running half of `fiacheck fuzz` (fuzz_workers.c: spawning
 * the libFuzzer processes, their process groups, their output and stats;
 * fuzz_artifacts.c: artifacts and refused findings into the store).  The
 * command itself (options, store, summary) is cmd_fuzz.c. */
#ifndef FIA_CLI_FUZZ_RUNNER_H
#define FIA_CLI_FUZZ_RUNNER_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "fia/error.h"
#include "fia/oracle.h"
#include "fuzz/fuzz.h"

/* The largest seed: libFuzzer takes an unsigned 32-bit seed, 0 meaning
 * "pick one", which a stored campaign could not be rerun with. */
#define FUZZ_SEED_MAX 4294967295LL

/* The most distinct path words a target's summary counts. */
#define FUZZ_MAX_PATHS 64

/* One target of a campaign (a campaign row of its own in the store). */
typedef struct target_run {
    int id;
    int64_t campaign;
    uint64_t seed;          /* libFuzzer's -seed of the target's first run */
    char uuid[40];
    char bin[PATH_MAX + 32], bin_nosan[PATH_MAX + 48]; /* nosan: "" if none */
    /* the replay driver for the random worker ("" if none or not wanted) */
    char bin_random[PATH_MAX + 48];
    /* the campaign's files in the work directory, named by its UUID */
    char stats[PATH_MAX], arts[PATH_MAX], log[PATH_MAX], tmpdir[PATH_MAX],
         unstored_dir[PATH_MAX];
    long execs_libfuzzer, cov, ft, corp, crashes, timeouts, ooms;
    double seconds;         /* time its workers ran (wall, not summed) */
    double worker_seconds;  /* CPU seconds of its workers (rusage) */
    double ttff;            /* seconds from the campaign's start to its
                               first finding; < 0: none */
    /* when each rule of the catalogue (by fia_rule_index) first decided
     * a call of this target alone (fia_oracle_sole_rule), over its
     * workers: wall clock seconds since the epoch, 0 not yet; started:
     * the campaign's start on the same clock (fuzz_reach.c) */
    double alone_first[FIA_ORACLE_MAX_RULES], started;
    /* the paths computed (fuzz_report_computed's words), each at its
     * first time over the workers (the same clock); paths_dropped: more
     * words than FUZZ_MAX_PATHS */
    struct {
        char word[48];
        double first;
    } paths[FUZZ_MAX_PATHS];
    int npaths, paths_dropped;
    long runs, runs_sanitized; /* libFuzzer processes started */
    fuzz_counters cnt;      /* summed over the workers' stats files */
    int nsigs;
    int new_findings, artifacts;
    int nomem_said;
    char last_summary[256];
    /* From an AddressSanitizer report (its ERROR line to its SUMMARY): the
     * access ("READ" / "WRITE", "" when it names none), the first frame
     * of its stack in a source file and the first outside the
     * micro-kernels (fast/kernel/: they read where their caller points);
     * frame_wanted until that frame is seen */
    char access[8], first_frame[160], outer_frame[160];
    int frame_wanted;
    /* with a plug-in under test: its first frame in that stack, when no
     * frame of the tree's own code comes before it (fuzz_plugin_frame);
     * plugin_wanted until the stack says which */
    char plugin_frame[128];
    int plugin_wanted;
    /* the sanitizer SUMMARY a worker printed before each artifact it
     * wrote ("Test unit written to PATH", the random driver's "written to
     * PATH"), by file name: a crash finding names its own site */
    struct {
        char name[96], summary[256];
    } art_summary[32];
    int n_art_summary;
} target_run;

/* How soon the campaign reaches the rules and the paths (fuzz_reach.c).
 * fuzz_reach_line takes one line of a worker's stats file, "alone RULE-ID
 * SECONDS" or "reach WORD SECONDS" (fuzz/report.c), into tr: 1 when it
 * was such a line.  fuzz_print_reach prints, over the targets of want[],
 * how many of the rules that can reject were broken alone and when first
 * (the slowest, the never), and the paths computed and when first. */
int fuzz_reach_line(target_run *tr, const char *line);
void fuzz_print_reach(const target_run *runs, const int *want);

/* What the workers are told through their environment. */
typedef struct worker_env {
    const char *db, *profile, *revision;
} worker_env;

/* A campaign's schedule: targets side by side, see fuzz_run_workers. */
typedef struct campaign_plan {
    target_run *runs[FUZZ_TARGET_COUNT];
    int ntargets;
    int seconds, jobs;
    const char *workdir;
    worker_env env;
} campaign_plan;

/* Set by the command's SIGINT/SIGTERM handler: the workers stop. */
extern volatile sig_atomic_t fuzz_stop_signal;

/* Runs the plan's targets side by side for p->seconds, all from the first
 * second: with jobs >= the targets, target k gets jobs/ntargets workers
 * (one more for the first jobs % ntargets); with fewer jobs, one worker per
 * target (two with the no-sanitizer twins) share `jobs` CPUs (docs/cli.md).
 * A target's first worker runs its sanitized binary, the others its
 * no-sanitizer twin when built.  A target with a bin_random gets one more
 * worker: its replay driver on a fixed random stream (seeded like the
 * libFuzzer runs), not coverage-guided, for the paths coverage does not
 * tell apart.  FIA_OK, or FIA_ERR_IO when a worker could not start. */
fia_status fuzz_run_workers(const campaign_plan *p, fia_error *err);

/* The SUMMARY recorded for artifact file `name` of tr, or NULL. */
const char *fuzz_artifact_summary(const target_run *tr, const char *name);

/* Sums the workers' stats files of one target into tr->cnt, tr->nsigs. */
void fuzz_read_stats(target_run *tr);

/* mkdir -p path.  FIA_OK or FIA_ERR_IO. */
fia_status fuzz_make_dirs(const char *path, fia_error *err);
/* out = a b c d; nonzero when it did not fit. */
int fuzz_join_path(char *out, size_t len, const char *a, const char *b,
                   const char *c, const char *d);
/* rm -r dir (libFuzzer's temp directories). */
void fuzz_remove_tree(const char *dir);
/* The seed of libFuzzer run n (0, 1, ...) of a target whose first is
 * seed: 1..FUZZ_SEED_MAX. */
uint64_t fuzz_seed_add(uint64_t seed, uint64_t n);

#ifdef FIA_HAVE_STORE
#include "fia/store.h"
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

/* Crash/timeout/oom artifacts of this campaign become findings. */
void fuzz_collect_artifacts(fia_store *st, target_run *tr, const char *profile,
                            const char *revision, unstored_list *u);
/* Tries the spooled findings again; those stored leave u. */
void fuzz_retry_unstored(fia_store *st, unstored_list *u, const char *revision);
/* Frees u (the spooled files stay). */
void fuzz_unstored_free(unstored_list *u);
/* tr->new_findings: the findings first seen in tr's campaign. */
void fuzz_count_new(fia_store *st, target_run *tr);
/* The number of spooled case files in dir (the workers' and ours). */
int fuzz_count_case_files(const char *dir);
#endif

#endif
