/* store/: read-only summaries for `fiacheck report` (fia/store_report.h):
 * the revisions in the order they were first seen, the quantiles of the
 * error-to-bound ratios per revision x bucket and per system under test x
 * bucket, the systems, and the benchmark figures' medians per revision.  Only SELECTs, in one read snapshot each, so a
 * campaign writing beside the report cannot give it half a row set. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fia/store_report.h"
#include "store_int.h"

/* The revision order (first seen, then name) as a CTE named rev_order:
 * (revision, t0, pos). */
#define REV_ORDER_CTE                                                       \
    "rev_seen(revision, t) AS ("                                            \
    " SELECT revision, started FROM campaigns"                              \
    " UNION ALL SELECT revision, started FROM bench_figures),"              \
    " rev_order(revision, t0) AS ("                                         \
    " SELECT revision, min(t) FROM rev_seen GROUP BY revision)"

/* A growing array of doubles. */
typedef struct dvec {
    double *v;
    size_t n, cap;
} dvec;

static int dvec_push(dvec *d, double x)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 256;
        double *v = realloc(d->v, cap * sizeof *v);
        if (v == NULL)
            return -1;
        d->v = v;
        d->cap = cap;
    }
    d->v[d->n++] = x;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest rank on sorted v: the smallest x with a share q of v <= x. */
static double rank_q(const double *v, size_t n, double q)
{
    if (n == 0)
        return 0;
    size_t k = (size_t)ceil(q * (double)n);
    return v[k > 0 ? k - 1 : 0];
}

/* Row r from sorted v[0..n). */
static void describe(const double *v, size_t n, fia_store_ratio_row *r)
{
    r->cases = (int64_t)n;
    r->p50 = rank_q(v, n, 0.5);
    r->p90 = rank_q(v, n, 0.9);
    r->p99 = rank_q(v, n, 0.99);
    r->max = n ? v[n - 1] : 0;
    size_t over = 0;
    for (size_t i = 0; i < n; i++)
        over += v[i] > 1.0;
    r->above_one = n ? (double)over / (double)n : 0;
}

fia_status fia_store_report_revisions(fia_store *s,
                                      int (*cb)(const char *revision,
                                         int64_t first_seen, void *ctx),
                                      void *ctx)
{
    if (s == NULL || cb == NULL)
        return FIA_ERR_BAD_INPUT;
    sqlite3_stmt *st = store_prepare(
        s, "WITH " REV_ORDER_CTE
           " SELECT revision, t0 FROM rev_order ORDER BY t0, revision");
    if (st == NULL)
        return FIA_ERR_IO;
    int rc;
    while ((rc = store_step(s, st)) == SQLITE_ROW)
        if (cb(store_col_text(st, 0), sqlite3_column_int64(st, 1), ctx) != 0)
            break;
    rc = rc == SQLITE_ROW || rc == SQLITE_DONE
             ? FIA_OK
             : store_sqlfail(s, rc, "listing revisions");
    sqlite3_finalize(st);
    return rc;
}

/* The state of the ratio scan: the current revision and bucket, the
 * bucket's ratios (arriving sorted) and all of the revision's (sorted at
 * the revision's end). */
typedef struct ratio_scan {
    char *rev, *bucket;
    dvec b, all;
    int (*cb)(const fia_store_ratio_row *r, void *ctx);
    void *ctx;
    int stop;
} ratio_scan;

static void flush_bucket(ratio_scan *rs)
{
    if (rs->bucket == NULL || rs->stop)
        return;
    fia_store_ratio_row r = {.revision = rs->rev, .bucket = rs->bucket};
    describe(rs->b.v, rs->b.n, &r);
    rs->stop = rs->cb(&r, rs->ctx) != 0;
}

static void flush_revision(ratio_scan *rs)
{
    if (rs->rev == NULL || rs->stop)
        return;
    qsort(rs->all.v, rs->all.n, sizeof *rs->all.v, cmp_double);
    fia_store_ratio_row r = {.revision = rs->rev, .bucket = "*"};
    describe(rs->all.v, rs->all.n, &r);
    rs->stop = rs->cb(&r, rs->ctx) != 0;
}

/* Moves the scan to (rev, bucket), flushing what ends there: -1 when out
 * of memory. */
static int ratio_key(ratio_scan *rs, const char *rev, const char *bucket)
{
    const int new_rev = rs->rev == NULL || strcmp(rs->rev, rev) != 0;
    if (!new_rev && strcmp(rs->bucket, bucket) == 0)
        return 0;
    flush_bucket(rs);
    free(rs->bucket);
    rs->bucket = NULL;
    rs->b.n = 0;
    if (new_rev) {
        flush_revision(rs);
        free(rs->rev);
        rs->all.n = 0;
        rs->rev = strdup(rev);
    }
    rs->bucket = strdup(bucket);
    return rs->rev && rs->bucket ? 0 : -1;
}

/* Runs sql, whose rows are (group, bucket, ratio) ordered by group,
 * bucket, ratio, through the scan: cb per group x bucket, then the group's
 * "*" row, with the group in r->revision. */
static int ratio_query(fia_store *s, const char *sql,
                       int (*cb)(const fia_store_ratio_row *r, void *ctx),
                       void *ctx)
{
    sqlite3_stmt *st = store_prepare(s, sql);
    if (st == NULL)
        return FIA_ERR_IO;
    ratio_scan rs = {.cb = cb, .ctx = ctx};
    int rc = store_read_begin(s);
    int step = SQLITE_DONE;
    while (rc == FIA_OK && !rs.stop &&
           (step = store_step(s, st)) == SQLITE_ROW) {
        const double x = sqlite3_column_double(st, 2);
        if (ratio_key(&rs, store_col_text(st, 0), store_col_text(st, 1)) != 0 ||
            dvec_push(&rs.b, x) != 0 || dvec_push(&rs.all, x) != 0)
            rc = store_fail(s, FIA_ERR_NOMEM, "out of memory");
    }
    if (rc == FIA_OK && step != SQLITE_ROW && step != SQLITE_DONE)
        rc = store_sqlfail(s, step, "reading accuracy samples");
    if (rc == FIA_OK) {
        flush_bucket(&rs);
        flush_revision(&rs);
    }
    store_read_end(s);
    sqlite3_finalize(st);
    free(rs.rev), free(rs.bucket), free(rs.b.v), free(rs.all.v);
    return rc;
}

fia_status fia_store_report_ratios(fia_store *s,
                                   int (*cb)(const fia_store_ratio_row *r, void *ctx),
                                   void *ctx)
{
    if (s == NULL || cb == NULL)
        return FIA_ERR_BAD_INPUT;
    return ratio_query(
        s,
        "WITH " REV_ORDER_CTE
        " SELECT COALESCE(c.revision, '') AS rev, a.bucket, a.ratio"
        " FROM accuracy_samples a"
        " LEFT JOIN campaigns c ON c.id = a.campaign_id"
        " LEFT JOIN rev_order o ON o.revision = c.revision"
        " ORDER BY COALESCE(o.t0, 0), rev, a.bucket, a.ratio",
        cb, ctx);
}

/* ---- systems side by side ----------------------------------------------- */

/* Each system's revision as a CTE named sys_rev: (sut, revision), the
 * revision of its latest campaign with accuracy samples, else of its
 * latest campaign. */
#define SYS_REV_CTE                                                         \
    "sampled(id) AS (SELECT DISTINCT campaign_id FROM accuracy_samples),"   \
    " sys_ranked(sut, revision, k) AS (SELECT sut, revision,"               \
    " row_number() OVER (PARTITION BY sut ORDER BY"                         \
    " id IN (SELECT id FROM sampled) DESC, started DESC, id DESC)"          \
    " FROM campaigns),"                                                     \
    " sys_rev(sut, revision) AS ("                                          \
    " SELECT sut, revision FROM sys_ranked WHERE k = 1)"

/* fast/ first (the others' baseline), then by name */
#define SYS_ORDER(col) col " = 'fast' DESC, " col

fia_status fia_store_report_systems(fia_store *s,
                                    int (*cb)(const fia_store_system *y, void *ctx),
                                    void *ctx)
{
    if (s == NULL || cb == NULL)
        return FIA_ERR_BAD_INPUT;
    sqlite3_stmt *st = store_prepare(
        s, "WITH " SYS_REV_CTE ","
           " names(sut) AS (SELECT sut FROM campaigns"
           " UNION SELECT sut FROM findings)"
           " SELECT n.sut, COALESCE(r.revision, ''),"
           " (SELECT count(*) FROM campaigns c WHERE c.sut = n.sut),"
           " (SELECT count(DISTINCT revision) FROM campaigns c"
           "  WHERE c.sut = n.sut),"
           " (SELECT COALESCE(sum(execs), 0) FROM campaigns c"
           "  WHERE c.sut = n.sut),"
           " (SELECT count(*) FROM findings f WHERE f.sut = n.sut)"
           " FROM names n LEFT JOIN sys_rev r ON r.sut = n.sut"
           " ORDER BY " SYS_ORDER("n.sut"));
    if (st == NULL)
        return FIA_ERR_IO;
    int rc = store_read_begin(s), step = SQLITE_DONE;
    while (rc == FIA_OK && (step = store_step(s, st)) == SQLITE_ROW) {
        fia_store_system y = {
            store_col_text(st, 0), store_col_text(st, 1),
            sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
            sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5)};
        if (cb(&y, ctx) != 0)
            break;
    }
    if (rc == FIA_OK && step != SQLITE_ROW && step != SQLITE_DONE)
        rc = store_sqlfail(s, step, "listing the systems under test");
    store_read_end(s);
    sqlite3_finalize(st);
    return rc;
}

/* The ratio scan's rows (the system in r->revision) as system rows. */
typedef struct sys_adapt {
    int (*cb)(const fia_store_system_ratio *r, void *ctx);
    void *ctx;
} sys_adapt;

static int sys_ratio_row(const fia_store_ratio_row *r, void *ctx)
{
    const sys_adapt *a = ctx;
    fia_store_system_ratio y = {r->revision, r->bucket, r->cases, r->p50,
                                r->p90, r->p99, r->max, r->above_one};
    return a->cb(&y, a->ctx);
}

fia_status fia_store_report_system_ratios(
    fia_store *s, int (*cb)(const fia_store_system_ratio *r, void *ctx),
    void *ctx)
{
    if (s == NULL || cb == NULL)
        return FIA_ERR_BAD_INPUT;
    sys_adapt a = {cb, ctx};
    return ratio_query(
        s,
        "WITH " SYS_REV_CTE
        " SELECT c.sut, a.bucket, a.ratio FROM accuracy_samples a"
        " JOIN campaigns c ON c.id = a.campaign_id"
        " JOIN sys_rev r ON r.sut = c.sut AND r.revision = c.revision"
        " ORDER BY " SYS_ORDER("c.sut") ", a.bucket, a.ratio",
        sys_ratio_row, &a);
}

fia_status fia_store_report_system_common(
    fia_store *s, int (*cb)(const fia_store_system_ratio *r, void *ctx),
    void *ctx)
{
    if (s == NULL || cb == NULL)
        return FIA_ERR_BAD_INPUT;
    sys_adapt a = {cb, ctx};
    /* every row comes twice from the scan (bucket "" and "*"): both of
     * the same cases */
    return ratio_query(
        s,
        "WITH " SYS_REV_CTE ","
        " keyed(sut, ck, ratio) AS (SELECT c.sut, a.case_key, a.ratio"
        " FROM accuracy_samples a JOIN campaigns c ON c.id = a.campaign_id"
        " JOIN sys_rev r ON r.sut = c.sut AND r.revision = c.revision"
        " WHERE a.case_key IS NOT NULL),"
        " common(ck) AS (SELECT ck FROM keyed GROUP BY ck"
        " HAVING count(DISTINCT sut) = (SELECT count(DISTINCT sut) FROM keyed)"
        " AND (SELECT count(DISTINCT sut) FROM keyed) > 1)"
        " SELECT k.sut, '', k.ratio FROM keyed k JOIN common m ON m.ck = k.ck"
        " ORDER BY " SYS_ORDER("k.sut") ", k.ratio",
        sys_ratio_row, &a);
}

/* One (suite, machine, name, revision) group of the benchmark scan. */
typedef struct bench_group {
    char *key[4];        /* suite, machine, name, revision */
    char *metric;
    int is_ratio;
    dvec v;
} bench_group;

static int bench_flush(bench_group *g,
                       int (*cb)(const fia_store_bench_point *p, void *ctx),
                       void *ctx)
{
    if (g->key[0] == NULL || g->v.n == 0)
        return 0;
    qsort(g->v.v, g->v.n, sizeof *g->v.v, cmp_double);
    const size_t n = g->v.n;
    fia_store_bench_point p = {
        g->key[0], g->key[1], g->key[2], g->key[3], g->metric, g->is_ratio,
        (int64_t)n,
        n % 2 ? g->v.v[n / 2] : 0.5 * (g->v.v[n / 2 - 1] + g->v.v[n / 2]),
        g->v.v[0], g->v.v[n - 1]};
    return cb(&p, ctx);
}

/* Starts the group of the current row when its key differs: -1 out of
 * memory, else 0 (*stop set when the callback asked to stop). */
static int bench_key(bench_group *g, sqlite3_stmt *st,
                     int (*cb)(const fia_store_bench_point *p, void *ctx),
                     void *ctx, int *stop)
{
    int same = g->key[0] != NULL;
    for (int i = 0; same && i < 4; i++)
        same = strcmp(g->key[i], store_col_text(st, i)) == 0;
    if (same)
        return 0;
    *stop = bench_flush(g, cb, ctx) != 0;
    for (int i = 0; i < 4; i++) {
        free(g->key[i]);
        g->key[i] = strdup(store_col_text(st, i));
    }
    free(g->metric);
    g->metric = strdup(store_col_text(st, 5));
    g->is_ratio = sqlite3_column_int(st, 6);
    g->v.n = 0;
    for (int i = 0; i < 4; i++)
        if (g->key[i] == NULL)
            return -1;
    return g->metric ? 0 : -1;
}

fia_status fia_store_report_bench(fia_store *s,
                                  int (*cb)(const fia_store_bench_point *p,
                                     void *ctx),
                                  void *ctx)
{
    if (s == NULL || cb == NULL)
        return FIA_ERR_BAD_INPUT;
    /* the metric of a figure is chosen over all its runs, so one figure
     * is drawn in one unit across revisions */
    sqlite3_stmt *st = store_prepare(
        s, "WITH " REV_ORDER_CTE ","
           " fig(suite, machine, name, all_ratio) AS ("
           " SELECT suite, machine, name, min(ratio IS NOT NULL)"
           " FROM bench_figures GROUP BY suite, machine, name)"
           " SELECT b.suite, b.machine, b.name, b.revision,"
           " CASE WHEN f.all_ratio THEN b.ratio ELSE b.value END,"
           " CASE WHEN f.all_ratio THEN b.ratio_of ELSE b.unit END,"
           " f.all_ratio"
           " FROM bench_figures b"
           " JOIN fig f ON f.suite = b.suite AND f.machine = b.machine"
           "  AND f.name = b.name"
           " JOIN rev_order o ON o.revision = b.revision"
           " ORDER BY b.suite, b.machine, b.name, o.t0, b.revision");
    if (st == NULL)
        return FIA_ERR_IO;
    bench_group g = {{NULL}, NULL, 0, {NULL, 0, 0}};
    int rc = store_read_begin(s), step = SQLITE_DONE, stop = 0;
    while (rc == FIA_OK && !stop &&
           (step = store_step(s, st)) == SQLITE_ROW) {
        if (bench_key(&g, st, cb, ctx, &stop) != 0 ||
            (!stop && dvec_push(&g.v, sqlite3_column_double(st, 4)) != 0))
            rc = store_fail(s, FIA_ERR_NOMEM, "out of memory");
    }
    if (rc == FIA_OK && step != SQLITE_ROW && step != SQLITE_DONE)
        rc = store_sqlfail(s, step, "reading benchmark figures");
    if (rc == FIA_OK && !stop)
        bench_flush(&g, cb, ctx);
    store_read_end(s);
    sqlite3_finalize(st);
    for (int i = 0; i < 4; i++)
        free(g.key[i]);
    free(g.metric), free(g.v.v);
    return rc;
}
