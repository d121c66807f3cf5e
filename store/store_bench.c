/* store/: benchmark figures (schema v7), and "did it get slower".
 *
 * A run's figures are rows of bench_figures sharing its UUID, revision,
 * machine and suite.  The comparison of two revisions works per (suite,
 * machine, name): the machine is part of the key because figures of two
 * machines say nothing of each other.  Each side's figure is the median of
 * its runs' metric; the metric is the ratio to the run's own baseline when
 * every run has one (a host whose speed moves moves the baseline with it),
 * else the raw value.  A difference counts only beyond the run-to-run
 * spread: the largest relative range (max - min) / median among the runs
 * of either revision, at least FIA_BENCH_MIN_SPREAD, and only with
 * FIA_BENCH_MIN_RUNS runs or more on each side (a single run of a noisy
 * host is off by tens of percent without saying so). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "store_int.h"

static const char *nz(const char *s)
{
    return s ? s : "";
}

fia_status fia_store_bench_add(fia_store *s, fia_bench_run *run,
                               const fia_bench_figure *figs, int n)
{
    if (s == NULL || run == NULL || (figs == NULL && n > 0) || n < 0)
        return FIA_ERR_BAD_INPUT;
    if (memchr(run->uuid, '\0', sizeof run->uuid) == NULL)
        return store_fail(s, FIA_ERR_BAD_INPUT, "run UUID too long");
    if (run->uuid[0] == '\0' &&
        store_uuid_v4(s, run->uuid) != FIA_OK)
        return FIA_ERR_IO;
    sqlite3_stmt *st = store_prepare(
        s, "INSERT INTO bench_figures(run_uuid, revision, machine, suite,"
           " started, command, name, value, unit, ratio, ratio_of)"
           " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (st == NULL)
        return FIA_ERR_IO;
    const int64_t now = store_now();
    int rc = store_begin(s);
    for (int i = 0; rc == FIA_OK && i < n; i++) {
        sqlite3_reset(st);
        store_bind_text(st, 1, run->uuid);
        store_bind_text(st, 2, nz(run->revision));
        store_bind_text(st, 3, nz(run->machine));
        store_bind_text(st, 4, nz(run->suite));
        sqlite3_bind_int64(st, 5, now);
        store_bind_text(st, 6, nz(run->command));
        store_bind_text(st, 7, nz(figs[i].name));
        sqlite3_bind_double(st, 8, figs[i].value);
        store_bind_text(st, 9, nz(figs[i].unit));
        if (isfinite(figs[i].ratio))
            sqlite3_bind_double(st, 10, figs[i].ratio);
        else
            sqlite3_bind_null(st, 10);
        store_bind_text(st, 11, nz(figs[i].ratio_of));
        const int r = store_step(s, st);
        if ((r & 0xff) == SQLITE_CONSTRAINT)
            rc = store_fail(s, FIA_ERR_BAD_INPUT, "figure '%s' twice in "
                            "one benchmark run", nz(figs[i].name));
        else if (r != SQLITE_DONE)
            rc = store_sqlfail(s, r, "adding a benchmark figure");
    }
    rc = store_finish(s, rc);
    sqlite3_finalize(st);
    return rc;
}

/* ---- comparison ------------------------------------------------------------ */
/* The runs of one figure at one revision. */
typedef struct side {
    double *v;          /* metric per run: ratio or value */
    int64_t n, cap;
    int all_ratio;      /* every run has a ratio */
    double *value;      /* the raw values, for a side without ratios */
} side;

static int side_push(side *x, double ratio, int has_ratio, double value)
{
    if (x->n == x->cap) {
        int64_t cap = x->cap ? 2 * x->cap : 8;
        double *a = realloc(x->v, (size_t)cap * sizeof *a);
        if (a == NULL)
            return -1;
        x->v = a;
        double *b = realloc(x->value, (size_t)cap * sizeof *b);
        if (b == NULL)
            return -1;
        x->value = b;
        x->cap = cap;
    }
    if (x->n == 0)
        x->all_ratio = 1;
    x->all_ratio &= has_ratio;
    x->v[x->n] = has_ratio ? ratio : NAN;
    x->value[x->n] = value;
    x->n++;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median and relative range of the n metrics (sorted in place). */
static void stats(double *v, int64_t n, double *median, double *range)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    *median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    *range = *median > 0 ? (v[n - 1] - v[0]) / *median : 0.0;
}

typedef struct group {
    char *suite, *machine, *name, *unit, *ratio_of;
    side base, head;
} group;

static void group_clear(group *g)
{
    free(g->suite), free(g->machine), free(g->name), free(g->unit);
    free(g->ratio_of);
    free(g->base.v), free(g->base.value);
    free(g->head.v), free(g->head.value);
    memset(g, 0, sizeof *g);
}

/* The verdict of a complete group into cb; 1 when cb asks to stop. */
static int emit(const group *g, int (*cb)(const fia_bench_delta *, void *),
                void *ctx, int64_t *slower)
{
    if (g->base.n == 0 || g->head.n == 0)
        return 0;
    side b = g->base, h = g->head;
    const int by_ratio = b.all_ratio && h.all_ratio;
    double *bv = by_ratio ? b.v : b.value, *hv = by_ratio ? h.v : h.value;
    fia_bench_delta d = {g->suite, g->machine, g->name,
                         by_ratio ? g->ratio_of : g->unit,
                         b.n, h.n, 0, 0, 0, 0, 0};
    double rb, rh;
    stats(bv, b.n, &d.base, &rb);
    stats(hv, h.n, &d.head, &rh);
    d.spread = rb > rh ? rb : rh;
    d.spread = d.spread > FIA_BENCH_MIN_SPREAD ? d.spread
                                               : FIA_BENCH_MIN_SPREAD;
    d.judged = b.n >= FIA_BENCH_MIN_RUNS && h.n >= FIA_BENCH_MIN_RUNS;
    d.verdict = !d.judged                            ? 0
                : d.head < d.base * (1.0 - d.spread) ? -1
                : d.head > d.base * (1.0 + d.spread) ? 1
                                                      : 0;
    if (d.verdict < 0 && slower)
        (*slower)++;
    return cb ? cb(&d, ctx) != 0 : 0;
}

static int same(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

fia_status fia_store_bench_compare(fia_store *s, const char *base, const char *head,
                                   int (*cb)(const fia_bench_delta *d, void *ctx),
                                   void *ctx, int64_t *slower)
{
    if (s == NULL || base == NULL || head == NULL)
        return FIA_ERR_BAD_INPUT;
    if (slower)
        *slower = 0;
    sqlite3_stmt *st = store_prepare(
        s, "SELECT suite, machine, name, revision = ?1, ratio, value, unit,"
           " ratio_of FROM bench_figures WHERE revision IN (?1, ?2)"
           " ORDER BY suite, machine, name");
    if (st == NULL)
        return FIA_ERR_IO;
    store_bind_text(st, 1, base);
    store_bind_text(st, 2, head);
    group g;
    memset(&g, 0, sizeof g);
    int rc = FIA_OK, r, stop = 0;
    while (!stop && (r = store_step(s, st)) == SQLITE_ROW) {
        const char *suite = store_col_text(st, 0);
        const char *machine = store_col_text(st, 1);
        const char *name = store_col_text(st, 2);
        if (!same(g.suite, suite) || !same(g.machine, machine) ||
            !same(g.name, name)) {
            stop = emit(&g, cb, ctx, slower);
            group_clear(&g);
            g.suite = strdup(suite), g.machine = strdup(machine);
            g.name = strdup(name);
            g.unit = strdup(store_col_text(st, 6));
            g.ratio_of = strdup(store_col_text(st, 7));
            if (!g.suite || !g.machine || !g.name || !g.unit || !g.ratio_of) {
                rc = store_fail(s, FIA_ERR_NOMEM, "out of memory");
                break;
            }
        }
        const int is_base = sqlite3_column_int(st, 3) != 0 &&
                            strcmp(base, head) != 0;
        const int has_ratio = sqlite3_column_type(st, 4) != SQLITE_NULL;
        /* base == head: every run on both sides (no difference) */
        side *x = is_base ? &g.base : &g.head;
        if (side_push(x, sqlite3_column_double(st, 4), has_ratio,
                      sqlite3_column_double(st, 5)) != 0 ||
            (strcmp(base, head) == 0 &&
             side_push(&g.base, sqlite3_column_double(st, 4), has_ratio,
                       sqlite3_column_double(st, 5)) != 0)) {
            rc = store_fail(s, FIA_ERR_NOMEM, "out of memory");
            break;
        }
    }
    if (rc == FIA_OK && !stop) {
        if (r != SQLITE_DONE)
            rc = store_sqlfail(s, r, "reading benchmark figures");
        else
            emit(&g, cb, ctx, slower);
    }
    group_clear(&g);
    sqlite3_finalize(st);
    return rc;
}

fia_status fia_store_bench_list(fia_store *s, const char *revision,
                                int (*cb)(const fia_bench_row *r, void *ctx),
                                void *ctx)
{
    if (s == NULL || cb == NULL)
        return FIA_ERR_BAD_INPUT;
    sqlite3_stmt *st = store_prepare(
        s, "SELECT run_uuid, revision, machine, suite, started, name, value,"
           " unit, ratio, ratio_of FROM bench_figures"
           " WHERE ?1 IS NULL OR revision = ?1"
           " ORDER BY started, run_uuid, name");
    if (st == NULL)
        return FIA_ERR_IO;
    store_bind_text(st, 1, revision);
    int r;
    while ((r = store_step(s, st)) == SQLITE_ROW) {
        fia_bench_row row = {
            store_col_text(st, 0), store_col_text(st, 1),
            store_col_text(st, 2), store_col_text(st, 3),
            sqlite3_column_int64(st, 4),
            {store_col_text(st, 5), sqlite3_column_double(st, 6),
             store_col_text(st, 7),
             sqlite3_column_type(st, 8) == SQLITE_NULL
                 ? NAN : sqlite3_column_double(st, 8),
             store_col_text(st, 9)}};
        if (cb(&row, ctx) != 0)
            break;
    }
    const int rc = r == SQLITE_ROW || r == SQLITE_DONE
                       ? FIA_OK
                       : store_sqlfail(s, r, "listing benchmark figures");
    sqlite3_finalize(st);
    return rc;
}
