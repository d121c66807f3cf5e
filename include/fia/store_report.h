/* store/store_report.c: read-only summaries for `fiacheck report`.
 *
 * Kept apart from store.h because nothing but the report (and `db systems`,
 * the text form of its systems section) reads them: each
 * function only SELECTs (it works on a store opened FIA_STORE_OPEN_READONLY)
 * and returns FIA_OK or an error code with fia_store_errmsg set.
 * Callbacks return 0 to go on, non-zero to stop (not an error); the strings
 * they get live until they return.
 *
 * Revision order.  A store knows revisions by name, not by history, so the
 * report orders them by the time they were first seen: the earliest start of
 * a campaign or a benchmark run carrying the revision (ties by name).  Every
 * function below uses that one order, so the plots of accuracy and of
 * benchmarks share their x axis. */
#ifndef FIA_STORE_REPORT_H
#define FIA_STORE_REPORT_H

#include <stdint.h>
#include "fia/store.h"

/* The revisions of campaigns and benchmark runs, oldest first:
 * cb(revision, first_seen, ctx). */
fia_status fia_store_report_revisions(fia_store *s,
                                      int (*cb)(const char *revision,
                                         int64_t first_seen, void *ctx),
                                      void *ctx);

/* The error-to-bound ratios of accuracy_samples per revision x bucket:
 * nearest-rank quantiles (as db regressions computes them).  Per revision,
 * in revision order: its buckets by name, then the row of bucket "*" (every
 * case of the revision).  Samples outside any campaign have revision "". */
typedef struct fia_store_ratio_row {
    const char *revision;
    const char *bucket;       /* "*": all the revision's cases */
    int64_t cases;
    double p50, p90, p99, max; /* may be +inf */
    double above_one;          /* share of the cases over the bound */
} fia_store_ratio_row;
fia_status fia_store_report_ratios(fia_store *s,
                                   int (*cb)(const fia_store_ratio_row *r, void *ctx),
                                   void *ctx);

/* Benchmark figures per (suite, machine, name) x revision: the median over
 * the revision's runs of the figure's metric, which is the ratio to the
 * run's baseline when every run of the figure (all revisions) has one, else
 * the raw value (the rule db regressions follows).  Ordered by suite,
 * machine, name, then revision order. */
typedef struct fia_store_bench_point {
    const char *suite, *machine, *name, *revision;
    const char *metric;       /* ratio_of ("fma-peak"), or the unit */
    int is_ratio;
    int64_t runs;
    double median, min, max;
} fia_store_bench_point;
fia_status fia_store_report_bench(fia_store *s,
                                  int (*cb)(const fia_store_bench_point *p,
                                     void *ctx),
                                  void *ctx);

/* ---- systems under test side by side -------------------------------------
 * A system is a name of campaigns.sut or findings.sut ("fast": fast/, the
 * built-in).  Each is compared at one revision: that of its latest
 * campaign with accuracy samples (else of its latest campaign; "" when it
 * has none).  Both lists put "fast" first, then the others by name. */
typedef struct fia_store_system {
    const char *sut;
    const char *revision;      /* the one its ratios are of */
    int64_t campaigns;         /* all its campaigns, every revision */
    int64_t revisions;         /* distinct revisions of its campaigns */
    int64_t execs;
    int64_t findings;          /* signatures found with it */
} fia_store_system;
fia_status fia_store_report_systems(fia_store *s,
                                    int (*cb)(const fia_store_system *y, void *ctx),
                                    void *ctx);

/* The error-to-bound ratios of each system's accuracy samples at its
 * revision (above), all its campaigns of that revision together: per
 * system its buckets by name, then its row of bucket "*".  Only the calls
 * a system computed are samples (a refused call is not-modeled), so each
 * row is of the calls the system covers.  Quantiles as
 * fia_store_report_ratios. */
typedef struct fia_store_system_ratio {
    const char *sut;
    const char *bucket;        /* "*": all the system's cases */
    int64_t cases;
    double p50, p90, p99, max; /* may be +inf */
    double above_one;
} fia_store_system_ratio;
fia_status fia_store_report_system_ratios(
    fia_store *s, int (*cb)(const fia_store_system_ratio *r, void *ctx),
    void *ctx);

/* The same over the common calls only: the cases (by case key) that every
 * system with samples computed, when there are two such systems or more
 * (`fiacheck survey` with one seed runs one stream of cases for each, so
 * these are the calls they all cover).  Per system a row of bucket "" and
 * one of bucket "*", of the same cases; nothing when no case is common. */
fia_status fia_store_report_system_common(
    fia_store *s, int (*cb)(const fia_store_system_ratio *r, void *ctx),
    void *ctx);

#endif
