/* store/store_report.c: read-only summaries for `fiacheck report`.
 *
 * Kept apart from store.h because nothing but the report reads them: each
 * function only SELECTs (it works on a store opened FIA_STORE_OPEN_READONLY)
 * and returns FIA_STORE_OK or an error code with fia_store_errmsg set.
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
int fia_store_report_revisions(fia_store *s,
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
int fia_store_report_ratios(fia_store *s,
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
int fia_store_report_bench(fia_store *s,
                           int (*cb)(const fia_store_bench_point *p,
                                     void *ctx),
                           void *ctx);

#endif
