/* store/: the SQLite findings store (default results/findings.db).
 *
 * One file holds campaigns, findings (deduplicated by semantic signature)
 * and per-campaign accuracy statistics per bucket.  The schema is versioned
 * with PRAGMA user_version and migrated on open; the journal is WAL with a
 * busy timeout so that several fuzz workers (processes) can write at once.
 * Closing a connection that wrote checkpoints the WAL into the file (a copy of the file alone is then the
 * whole store). */
#ifndef FIA_STORE_H
#define FIA_STORE_H

#include <stdint.h>
#include <stdio.h>
#include "fia/status.h"

typedef struct fia_store fia_store;

/* Every function returning fia_status returns FIA_OK or one of fiacheck's
 * codes (fia/status.h): FIA_ERR_IO (cannot open / read / write the file),
 * FIA_ERR_CORRUPT (not a database, or damaged), FIA_ERR_BUSY (locked
 * beyond the busy timeout), FIA_ERR_NOT_FOUND (no such campaign, finding,
 * revision), FIA_ERR_NOMEM, and FIA_ERR_BAD_INPUT (a database that is not
 * a fiacheck store or was written by a newer fiacheck, bad arguments, a
 * write through a read-only connection); fia_store_errmsg() says which. */

/* Opens and migrates to the current schema.  mode:
 *   FIA_STORE_OPEN_EXISTING  read-write, the file must exist;
 *   FIA_STORE_OPEN_CREATE    read-write, an empty store is made when the
 *                            file does not exist (its directory must: a
 *                            missing directory is FIA_ERR_IO naming
 *                            it, never made);
 *   FIA_STORE_OPEN_READONLY  for commands that only read: the file is never
 *                            written (SQLITE_OPEN_READONLY; works in a
 *                            directory without write permission); an older
 *                            schema is migrated in a private in-memory copy;
 *                            every write call fails with FIA_ERR_BAD_INPUT.
 * On failure *out is NULL and errbuf says why (e.g. "results/x.db: file is
 * not a database"). */
#define FIA_STORE_OPEN_EXISTING 0
#define FIA_STORE_OPEN_CREATE 1
#define FIA_STORE_OPEN_READONLY 2
fia_status fia_store_open(const char *path, int mode, fia_store **out,
                          char *errbuf, int errlen);
void fia_store_close(fia_store *s);
const char *fia_store_errmsg(const fia_store *s);
int fia_store_schema_version(void);

typedef struct fia_campaign_info {
    const char *revision;   /* git revision of the harness under test */
    const char *target;     /* fuzz_params, fuzz_numeric, ... or "run" */
    const char *profile;    /* doc | cann */
    const char *tolerance;  /* tolerance profile name */
    uint64_t seed;
    const char *command;    /* the command line, for reproduction */
    char uuid[40]; /* campaign UUID (36 chars); empty: the store makes one */
    const char *sut;        /* the system under test's name; NULL: fast */
    const char *harness_revision; /* fiacheck's revision (NULL: "") */
} fia_campaign_info;

/* A campaign is known everywhere by its UUID (a merge matches campaigns by
 * it): info->uuid when set, else a random version-4 UUID from /dev/urandom.
 * Campaigns of stores older than schema 3 were given one derived from their
 * row, so copies of one old store agree on it. */
fia_status fia_store_campaign_begin(fia_store *s, const fia_campaign_info *info,
                                    int64_t *campaign_id);
fia_status fia_store_campaign_update(fia_store *s, int64_t campaign_id,
                                     int64_t execs, int64_t coverage,
                                     double seconds, int finished);
/* The campaign's time to first finding: seconds from the start of the
 * `fiacheck fuzz` run it belongs to (its targets start together) to the
 * first finding seen.  Kept as the smallest given; none until set.
 * FIA_ERR_NOT_FOUND when there is no such campaign. */
fia_status fia_store_campaign_set_ttff(fia_store *s, int64_t campaign_id,
                                       double seconds);

/* A finding as reported by a fuzz target, repro or run. */
typedef struct fia_finding_record {
    int64_t campaign_id;    /* 0 when not part of a campaign */
    const char *signature;  /* semantic: kind + rule ids / feature bucket +
                               dtype + layout */
    const char *kind;       /* status-mismatch, accuracy, nan-leak, crash,
                               timeout, harness-error */
    const char *target;
    const char *profile;
    const char *revision;
    const char *case_text;  /* the full .case text (reproducible alone) */
    uint64_t seed;
    const char *metrics_json; /* {"max_ulp":..,"max_rel_err":..} or NULL */
    const char *message;
    const char *sut;        /* the system under test's name; NULL: fast */
} fia_finding_record;

/* Inserts or, for a known signature, bumps count and last_seen (keeping the
 * smaller case text).  A finding marked fixed that is seen again is reopened
 * (state "regressed").  *finding_id may be NULL. */
fia_status fia_store_add_finding(fia_store *s, const fia_finding_record *f,
                                 int64_t *finding_id);

/* Accumulates accuracy statistics of one compared case into its bucket
 * (feature set x dtype x layout) for the campaign. */
fia_status fia_store_add_accuracy(fia_store *s, int64_t campaign_id,
                                  const char *bucket, double max_ulp,
                                  double max_rel_err);

/* ---- additions (schema v2) ------------------------------------------------
 * Timestamps are unix seconds (UTC) in the database and in every struct;
 * the CLI prints them as ISO-8601 UTC ("2025-01-31T12:00:00Z").
 * Every function below returns FIA_OK or an error code and sets the
 * message (fia_store_errmsg). */

/* Like fia_store_add_finding, and tells what happened to the signature:
 * FIA_STORE_SEEN_NEW (first time), FIA_STORE_SEEN_AGAIN (known, open or
 * already regressed) or FIA_STORE_SEEN_REGRESSED (was fixed, now reopened).
 * outcome may be NULL. */
#define FIA_STORE_SEEN_NEW 1
#define FIA_STORE_SEEN_AGAIN 2
#define FIA_STORE_SEEN_REGRESSED 3
fia_status fia_store_add_finding_ex(fia_store *s, const fia_finding_record *f,
                                    int64_t *finding_id, int *outcome);

/* Adds broken / obeyed to the counts of (campaign, rule): a fuzz target
 * flushes its in-memory counts every few seconds and resets them. */
fia_status fia_store_add_rule_coverage(fia_store *s, int64_t campaign_id,
                                       const char *rule_id, int64_t broken,
                                       int64_t obeyed);

/* The minimized case text of a finding (fiacheck minimize). */
fia_status fia_store_set_minimized(fia_store *s, int64_t finding_id,
                                   const char *case_text);

/* state: "open" or "fixed".  Marking fixed records the time; a fixed finding
 * seen again becomes "regressed". */
fia_status fia_store_set_state(fia_store *s, int64_t finding_id, const char *state);

/* One finding.  Strings are NUL-terminated; minimized_text, metrics_json and
 * message may be NULL.  From fia_store_get_finding the strings are owned by
 * the struct (release with fia_store_finding_free); in list callbacks they
 * are valid during the call only. */
typedef struct fia_store_finding {
    int64_t id;
    char *signature;
    char *kind;
    char *state;          /* open | fixed | regressed */
    char *target;         /* of the kept (smallest) case */
    char *profile;        /* of the kept (smallest) case */
    char *revision;       /* revision at first sighting */
    char *last_revision;  /* revision at the latest sighting */
    int64_t campaign_id;  /* campaign of the first sighting (0: none) */
    int64_t first_seen;
    int64_t last_seen;
    int64_t count;        /* sightings, all campaigns and revisions */
    int64_t state_changed;/* when the state last changed */
    uint64_t seed;        /* of the kept case */
    char *case_text;      /* the smallest case seen with this signature */
    char *minimized_text;
    char *metrics_json;
    char *message;
    char *sut;            /* the system under test that found it */
} fia_store_finding;

fia_status fia_store_get_finding(fia_store *s, int64_t id, fia_store_finding *out);
void fia_store_finding_free(fia_store_finding *f);

/* Listing, ordered by id.  NULL filter fields match everything.  The
 * callback returns 0 to continue, non-zero to stop (not an error). */
typedef struct fia_store_filter {
    const char *state;
    const char *kind;
    const char *target;
    const char *revision;  /* findings seen at this revision */
} fia_store_filter;
typedef int (*fia_store_finding_cb)(const fia_store_finding *f, void *ctx);
fia_status fia_store_list_findings(fia_store *s, const fia_store_filter *filter,
                                   fia_store_finding_cb cb, void *ctx);

typedef struct fia_store_campaign {
    int64_t id;
    const char *revision, *target, *profile, *tolerance, *command;
    uint64_t seed;
    int64_t started, updated;   /* unix seconds */
    int64_t execs, coverage;
    double seconds;
    int finished;
    int64_t findings;           /* sightings recorded in this campaign */
    double ttff;                /* time to first finding, s; < 0: none */
} fia_store_campaign;
fia_status fia_store_list_campaigns(fia_store *s,
                                    int (*cb)(const fia_store_campaign *c, void *ctx),
                                    void *ctx);

/* The id of the campaign of that UUID into *id (may be NULL):
 * FIA_OK, or FIA_ERR_NOT_FOUND when there is none. */
fia_status fia_store_campaign_by_uuid(fia_store *s, const char *uuid, int64_t *id);
typedef struct fia_store_summary {
    int64_t campaigns, execs;
    double seconds;
    int64_t findings;          /* distinct signatures */
    int64_t open, fixed, regressed;
    int64_t sightings;         /* sum of counts */
    int64_t accuracy_cases;
} fia_store_summary;
fia_status fia_store_get_summary(fia_store *s, fia_store_summary *out);

/* Accuracy per revision x bucket, aggregated over the campaigns of that
 * revision; only `revision` when not NULL.  Rows stored with campaign 0
 * have revision "".  mean_ulp = sum of the cases' max ULP / cases. */
typedef struct fia_store_accuracy {
    const char *revision;
    const char *bucket;
    int64_t cases;
    double max_ulp, mean_ulp, max_rel_err;
} fia_store_accuracy;
fia_status fia_store_list_accuracy(fia_store *s, const char *revision,
                                   int (*cb)(const fia_store_accuracy *a, void *ctx),
                                   void *ctx);

/* Rule coverage summed over campaigns (of one revision, or all when NULL),
 * ordered by rule id. */
fia_status fia_store_list_rule_coverage(fia_store *s, const char *revision,
                                        int (*cb)(const char *rule_id, int64_t broken,
                                           int64_t obeyed, void *ctx),
                                        void *ctx);

/* One compared case for the regression query: its aggregate row (as
 * fia_store_add_accuracy), its error-to-bound ratio (fia_compare_result
 * .max_ratio: 1 = at the bound), the case's identity case_key (NULL when
 * unknown; fia_case_digest: two revisions that ran the same case are
 * compared on it case by case) and, when case_text is not NULL and the
 * ratio is the largest of the bucket in this campaign so far, its case text
 * as the bucket's worst case (a caller passes the text only when the ratio
 * beats what it already sent; at most FIA_STORE_WORST_PER_CAMPAIGN are
 * kept).  ratio must be >= 0 (may be +inf). */
fia_status fia_store_add_accuracy_sample(fia_store *s, int64_t campaign_id,
                                         const char *bucket, double max_ulp,
                                         double max_rel_err, double ratio,
                                         const char *case_key, const char *case_text);

/* How many worst cases a campaign keeps: one per bucket, for at most this
 * many buckets, those of the largest ratios (a bucket that falls out of
 * them loses its text; merges keep the cap).  A fuzz target stores a case
 * it can regenerate in its generator form, a few hundred bytes
 * (fuzz/worst_text.c), else the full case text. */
#define FIA_STORE_WORST_PER_CAMPAIGN 1000

/* The worst case kept for (revision, bucket) over the campaigns of that
 * revision: *case_text is malloc'ed (caller frees); ratio and campaign_id
 * may be NULL.  FIA_ERR_NOT_FOUND when none was kept. */
fia_status fia_store_worst_case(fia_store *s, const char *revision,
                                const char *bucket, char **case_text, double *ratio,
                                int64_t *campaign_id);

/* "What got worse" from revision base to head (store/store_regress.c,
 * method in docs/tolerance.md "Accuracy regressions"):
 *  NEW        a signature sighted at head and never at base;
 *  REGRESSED  a signature in state regressed (marked fixed, seen again)
 *             sighted at head (reported as REGRESSED only, even when new);
 *  ACCURACY   a bucket (feature set x dtype x layout), or a facet (a
 *             group of buckets: all "*", one path, feature, dtype or
 *             layout; reported first), whose per-case
 *             error-to-bound ratios at head are larger than at base.
 *             Paired (the default): on the cases run at both revisions
 *             (same case digest), an exact one-sided sign test rejects
 *             "not larger" at level alpha / m (Bonferroni over the m
 *             buckets compared), AND the effect A = P(head > base) +
 *             P(tie)/2 over the pairs is at least min_effect.  Unpaired
 *             (opt->unpaired, when a bucket has too few pairs): the same
 *             with a one-sided Mann-Whitney U test (normal approximation,
 *             tie and continuity corrections) and A (Vargha-Delaney).
 * Not regressions, reported to the callback for the record:
 *  SAME       a bucket compared and not found worse;
 *  TOO_FEW    fewer than min_cases cases at base or head: not compared;
 *  UNPAIRED   enough cases at each revision but fewer than min_cases run
 *             at both (and opt->unpaired not set): not compared, since
 *             the cases of two fuzz campaigns are not samples of one
 *             distribution (run `fiacheck survey` at both revisions);
 *  ONLY_BASE, ONLY_HEAD  a bucket with cases at one revision only.
 * Revisions are matched exactly.  FIA_ERR_NOT_FOUND when no campaign
 * and no sighting carries base (or head).  *count receives the number of
 * regressions, NEW + REGRESSED + ACCURACY (may be NULL). */
#define FIA_STORE_REG_NEW 1
#define FIA_STORE_REG_REGRESSED 2
#define FIA_STORE_REG_ACCURACY 3
#define FIA_STORE_REG_SAME 4
#define FIA_STORE_REG_TOO_FEW 5
#define FIA_STORE_REG_ONLY_BASE 6
#define FIA_STORE_REG_ONLY_HEAD 7
#define FIA_STORE_REG_UNPAIRED 8

typedef struct fia_store_regress_options {
    double alpha;       /* family-wise false alarm rate, (0, 1); 0.01 */
    int64_t min_cases;  /* pairs (or, unpaired, cases per side) >= 2; 30 */
    double min_effect;  /* A in [0.5, 1]; 0.56 ("small", Vargha-Delaney) */
    int unpaired;       /* compare unpaired samples when pairs are too few */
} fia_store_regress_options;
void fia_store_regress_options_default(fia_store_regress_options *o);

/* The distribution of one bucket's ratios at one revision.  above_half and
 * above_one: share of the cases whose ratio exceeds 0.5 and 1 (a case's
 * ratio is its largest element's; the store keeps no per-element counts). */
typedef struct fia_store_ratio_stats {
    const char *revision;
    int64_t cases;
    double p50, p90, p99, max;  /* nearest-rank quantiles; 0 without cases */
    double above_half, above_one;
} fia_store_ratio_stats;

typedef struct fia_store_bucket_cmp {
    const char *bucket;
    int facet;          /* 1: a group of buckets ("*", path=, feature=,
                           dtype=, layout=), not one bucket */
    const char *worst_bucket; /* the bucket holding the worst case at head
                                 (the bucket itself unless a facet) */
    fia_store_ratio_stats base, head;
    int compared;       /* the test below was run */
    int paired;         /* ... on pairs (sign test), else Mann-Whitney */
    int64_t pairs;      /* cases run at both revisions */
    int64_t worse, better; /* pairs where head's ratio is larger / smaller */
    double effect;      /* A = P(head > base) + P(tie)/2 */
    double p_value;     /* one-sided, head larger */
    double alpha;       /* threshold the p-value met or missed: alpha / m */
    int64_t buckets_compared; /* m */
} fia_store_bucket_cmp;

typedef struct fia_store_regression {
    int kind;
    const fia_store_finding *finding;   /* NEW, REGRESSED */
    const fia_store_bucket_cmp *bucket; /* the other kinds */
} fia_store_regression;
/* opt NULL: the defaults. */
fia_status fia_store_regressions(fia_store *s, const char *base, const char *head,
                                 const fia_store_regress_options *opt,
                                 int (*cb)(const fia_store_regression *r, void *ctx),
                                 void *ctx, int64_t *count);

/* Merges the stores at paths[0..n) into s, all or nothing: one
 * transaction over all the files; when any file fails (missing, damaged,
 * foreign, s itself) nothing is merged and the message names the file.
 * The sources are opened read-only and never written (an older schema is
 * migrated in memory).  Idempotent: merging what s already holds changes
 * nothing.  Identities: a campaign is its UUID (a campaign present in both
 * keeps one row, with the later progress); a finding is its signature
 * (earliest first_seen, latest last_seen, smaller case kept, a fixed
 * finding sighted after it was marked fixed becomes regressed); a sighting
 * is finding x campaign x revision, an accuracy row campaign x bucket, a
 * coverage row campaign x rule.  Rows of one campaign are snapshots of one
 * growing history, so a row present in both keeps the larger one (more
 * sightings / cases / rule checks) instead of adding them; a finding's count
 * grows by what its sightings grew.  Rows outside any campaign (id 0) have
 * no identity beyond their key and are treated the same way. */
fia_status fia_store_merge_files(fia_store *s, const char *const *paths, int n);
/* fia_store_merge_files of one file. */
fia_status fia_store_merge(fia_store *s, const char *from_path);

/* ---- pruning ----------------------------------------------------------------
 * The campaigns that match every field set (at least one, or all): their
 * accuracy rows, samples, worst cases, rule coverage and sightings go with
 * them; a finding loses those sightings (its count shrinks by them) and
 * goes when it has none left.  worst_only: only the worst cases of those
 * campaigns go, everything else stays.  One transaction.  The file does
 * not shrink until fia_store_vacuum. */
typedef struct fia_store_prune_filter {
    const char *revision;        /* campaigns of this revision (exact) */
    int64_t before;              /* started before (unix s); 0: any time */
    const char *before_revision; /* started before this revision's first
                                    campaign (NOTFOUND when it has none) */
    const char *sut;             /* of this system under test */
    const char *target;          /* of this target (fuzz_numeric, survey) */
    int all;                     /* every campaign */
    int worst_only;
} fia_store_prune_filter;
typedef struct fia_store_prune_counts {
    int64_t campaigns, findings, sightings, samples, worst_cases;
} fia_store_prune_counts;
fia_status fia_store_prune(fia_store *s, const fia_store_prune_filter *f,
                           fia_store_prune_counts *out);
/* VACUUM and a truncating checkpoint: the file gives back the space of
 * what was deleted.  *before and *after (may be NULL): the bytes of the
 * file and its WAL. */
fia_status fia_store_vacuum(fia_store *s, int64_t *before, int64_t *after);

/* Optional batching: between batch_begin and batch_end every call above
 * joins one write transaction (each call still all-or-nothing, as a
 * savepoint), so a worker flushing many rows takes the lock once.
 * batch_end(s, 1) commits, batch_end(s, 0) rolls the whole batch back.
 * Keep batches short (other writers wait up to the 10 s busy timeout);
 * a killed process loses its uncommitted batch.  No merge inside. */
fia_status fia_store_batch_begin(fia_store *s);
fia_status fia_store_batch_end(fia_store *s, int commit);

/* Every row of every table as JSON lines: {"table":"campaign",...},
 * {"table":"finding",...} (with case_text), {"table":"sighting",...},
 * {"table":"accuracy",...}, {"table":"rule_coverage",...},
 * {"table":"accuracy_sample",...}, {"table":"accuracy_worst",...},
 * {"table":"bench_figure",...}. */
fia_status fia_store_export_json(fia_store *s, FILE *out);

/* ---- benchmark figures (schema v7) -----------------------------------------
 * A benchmark run (`fiacheck bench --fast|--kernels --db`) is a set of
 * figures measured together on one machine at one revision.  A figure's
 * ratio is the figure over a baseline measured in the same run (the FMA
 * peak, the memory bandwidth, ...): on a noisy host that, not the raw
 * value, is what compares across runs.  NAN: the figure has none. */
typedef struct fia_bench_figure {
    const char *name;       /* "prefill", "avx512/qk_t", ... */
    double value;
    const char *unit;       /* "GFLOP/s", "GB/s", ... */
    double ratio;           /* NAN when none */
    const char *ratio_of;   /* "fma-peak", "bandwidth", ... ("" when none) */
} fia_bench_figure;

typedef struct fia_bench_run {
    const char *revision, *machine, *suite, *command;
    char uuid[40];          /* empty: the store makes one (filled in) */
} fia_bench_run;

/* Stores the n figures of one run in one transaction (a name twice in one
 * run is FIA_ERR_BAD_INPUT, nothing written). */
fia_status fia_store_bench_add(fia_store *s, fia_bench_run *run,
                               const fia_bench_figure *figs, int n);

/* One figure's history at two revisions: per (suite, machine, name) the
 * median of its runs' metric (the ratio when every run of both revisions
 * has one, else the value) and the run-to-run spread, the largest relative
 * range of the runs at either revision, never below FIA_BENCH_MIN_SPREAD.
 * One run says nothing of its own noise: a figure with fewer than
 * FIA_BENCH_MIN_RUNS runs at either revision is not judged (judged 0,
 * verdict 0).  verdict -1: slower beyond the spread (head < base x (1 -
 * spread)), +1 faster beyond it, 0 within. */
#define FIA_BENCH_MIN_SPREAD 0.05
#define FIA_BENCH_MIN_RUNS 2
typedef struct fia_bench_delta {
    const char *suite, *machine, *name, *metric; /* metric: ratio_of, or the
                                                    unit for a raw value */
    int64_t base_runs, head_runs;
    double base, head, spread;
    int judged, verdict;
} fia_bench_delta;
/* Calls cb for every figure measured at both revisions on one machine (in
 * suite, machine, name order) until it returns non-zero; *slower counts
 * the verdicts -1 (may be NULL). */
fia_status fia_store_bench_compare(fia_store *s, const char *base, const char *head,
                                   int (*cb)(const fia_bench_delta *d, void *ctx),
                                   void *ctx, int64_t *slower);

/* The figures stored (of one revision, or all for NULL), oldest run first:
 * cb until it returns non-zero (the strings live until cb returns). */
typedef struct fia_bench_row {
    const char *run_uuid, *revision, *machine, *suite;
    int64_t started;
    fia_bench_figure figure;
} fia_bench_row;
fia_status fia_store_bench_list(fia_store *s, const char *revision,
                                int (*cb)(const fia_bench_row *r, void *ctx),
                                void *ctx);

/* Every revision the store knows (of a campaign, a sighting or a benchmark
 * run), once
 * each, the most recently seen first: cb(revision, last_seen, ctx) until
 * it returns non-zero (the string lives until cb returns). */
typedef int (*fia_store_revision_cb)(const char *revision, int64_t last_seen,
                                     void *ctx);
fia_status fia_store_list_revisions(fia_store *s, fia_store_revision_cb cb,
                                    void *ctx);

#endif
