/* store/: the SQLite findings store (default results/findings.db).
 *
 * One file holds campaigns, findings (deduplicated by semantic signature)
 * and per-campaign accuracy statistics per bucket.  The schema is versioned
 * with PRAGMA user_version and migrated on open; the journal is WAL with a
 * busy timeout so that several fuzz workers (processes) can write at once.
 * Every function returns FIA_STORE_OK or an error code, with a message
 * retrievable by fia_store_errmsg(). */
#ifndef FIA_STORE_H
#define FIA_STORE_H

#include <stdint.h>

typedef struct fia_store fia_store;

#define FIA_STORE_OK 0
#define FIA_STORE_ERR_IO 1        /* cannot open / read / write the file */
#define FIA_STORE_ERR_CORRUPT 2   /* not a database, or damaged */
#define FIA_STORE_ERR_FOREIGN 3   /* a database, but not a fiacheck store */
#define FIA_STORE_ERR_VERSION 4   /* written by a newer fiacheck */
#define FIA_STORE_ERR_BUSY 5      /* locked beyond the busy timeout */
#define FIA_STORE_ERR_NOTFOUND 6
#define FIA_STORE_ERR_MISUSE 7    /* bad arguments */

/* Opens (creating when `create` is set) and migrates to the current schema.
 * On failure *out is NULL and errbuf says why (e.g. "results/x.db: file is
 * not a database"). */
int fia_store_open(const char *path, int create, fia_store **out,
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
} fia_campaign_info;

int fia_store_campaign_begin(fia_store *s, const fia_campaign_info *info,
                             int64_t *campaign_id);
int fia_store_campaign_update(fia_store *s, int64_t campaign_id,
                              int64_t execs, int64_t coverage,
                              double seconds, int finished);

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
} fia_finding_record;

/* Inserts or, for a known signature, bumps count and last_seen (keeping the
 * smaller case text).  A finding marked fixed that is seen again is reopened
 * (state "regressed").  *finding_id may be NULL. */
int fia_store_add_finding(fia_store *s, const fia_finding_record *f,
                          int64_t *finding_id);

/* Accumulates accuracy statistics of one compared case into its bucket
 * (feature set x dtype x layout) for the campaign. */
int fia_store_add_accuracy(fia_store *s, int64_t campaign_id,
                           const char *bucket, double max_ulp,
                           double max_rel_err);

#endif
