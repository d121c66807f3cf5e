/* cli/: the systems under test side by side, gathered from the store once
 * (systems.c) for the section of `fiacheck report` (report_systems.c) and
 * its text form `fiacheck db systems` (db_systems.c).  Each system is
 * taken at one revision (fia/store_report.h says which) and only on the
 * calls it covers: a plug-in's refusals are not-modeled, not samples. */
#ifndef FIA_CLI_SYSTEMS_H
#define FIA_CLI_SYSTEMS_H

#include <stddef.h>
#include <stdint.h>
#include "fia/store.h"

/* Error-to-bound ratios of a set of cases; cases 0: none. */
typedef struct sy_stats {
    int64_t cases;
    double p50, p90, p99, max, above_one;
} sy_stats;

typedef struct sy_finding {
    int64_t id;
    char *kind, *state, *signature;
} sy_finding;

typedef struct sy_kind {
    char *kind;
    int64_t n;
} sy_kind;

/* `bench --sut` against fast/: the median over the runs of the latest
 * revision measured of the figure "CALL vs fast" (suite sut-NAME). */
typedef struct sy_speed {
    char *call, *machine, *revision;
    int64_t runs;
    double ratio;  /* the plug-in's GFLOP/s over fast/'s, same run */
} sy_speed;

typedef struct sy_system {
    char *name, *revision;
    int64_t campaigns, revisions, execs;
    sy_stats all;             /* every case of the system at revision */
    sy_stats common;          /* the cases every sampled system computed
                                 (same case key); cases 0: none */
    sy_finding *findings;     /* by id */
    size_t nfindings;
    sy_kind *kinds;           /* its findings counted by kind, by name */
    size_t nkinds;
    sy_speed *speed;
    size_t nspeed;
} sy_system;

typedef struct sy_bucket {
    char *name;
    sy_stats *by;   /* one per system, in the model's order */
    int systems;    /* how many systems have cases in it */
    double worst;   /* the largest max of them */
} sy_bucket;

typedef struct sy_model {
    sy_system *sys;   /* "fast" first, then by name */
    size_t nsys;
    sy_bucket *b;     /* the buckets most systems cover first, then the
                         worst, then by name */
    size_t nb;
} sy_model;

/* Fills m from the store: FIA_OK, the store's code (its message in
 * the store) or FIA_ERR_NOMEM.  sy_free either way. */
fia_status sy_load(fia_store *s, sy_model *m);
void sy_free(sy_model *m);
/* "2 accuracy, 1 nan-leak" (or "none") into buf. */
void sy_kinds_text(const sy_system *y, char *buf, size_t n);
/* Systems with accuracy samples. */
size_t sy_sampled(const sy_model *m);

/* `fiacheck db systems [--json]` (db_systems.c): the model as text, or
 * JSON lines, on stdout: FIA_OK, or sy_load's status with the reason said
 * on stderr. */
fia_status cli_db_systems(fia_store *s, int json);

#endif
