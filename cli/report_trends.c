/* `fiacheck report`: accuracy and benchmark figures across revisions, as
 * plots (gnuplot, report_plot.c) and tables.  Revisions run left to right
 * in the order the store first saw them (fia/store_report.h); a section's
 * x axis holds the revisions that section has data for. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fia/store_report.h"
#include "report.h"

/* Plotted accuracy buckets besides "*" (all): the most populated ones. */
#define ACC_TOP_BUCKETS 5
/* Buckets listed in the accuracy table besides "*": the worst ones. */
#define ACC_TABLE_BUCKETS 40
/* Figures per benchmark plot (panels of a small-multiples grid). */
#define BENCH_PANELS 20
#define BENCH_COLS 4
/* Plot widths in pixels: two accuracy plots side by side on a wide page */
#define ACC_W 580
#define BENCH_W 960
/* The log axis of the ratios: 0 and +inf cannot be drawn, so they are
 * drawn at these (the captions say so). */
#define RATIO_FLOOR 1e-6
#define RATIO_CEIL 1e6

/* The revisions in the store's order, and which a section uses. */
typedef struct revs {
    char **name;
    int n, cap;
    int *x;    /* x position in the section, -1: not in it */
    int nx;
    int nomem;
} revs;

static int rev_cb(const char *revision, int64_t first_seen, void *ctx)
{
    (void)first_seen;
    revs *r = ctx;
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 16;
        char **v = realloc(r->name, (size_t)cap * sizeof *v);
        if (v == NULL) {
            r->nomem = 1;
            return 1;
        }
        r->name = v;
        r->cap = cap;
    }
    if ((r->name[r->n] = strdup(revision)) == NULL) {
        r->nomem = 1;
        return 1;
    }
    r->n++;
    return 0;
}

static void revs_free(revs *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->name[i]);
    free(r->name);
    free(r->x);
}

static int revs_find(const revs *r, const char *name);

/* Loads the revisions; FIA_OK, the store's code or FIA_ERR_NOMEM. */
static fia_status revs_load(fia_store *s, revs *r)
{
    memset(r, 0, sizeof *r);
    fia_status rc = fia_store_report_revisions(s, rev_cb, r);
    if (rc == FIA_OK && r->nomem)
        rc = FIA_ERR_NOMEM;
    /* rows outside any campaign carry revision "": last, as "(none)" */
    if (rc == FIA_OK && revs_find(r, "") < 0 && rev_cb("", 0, r) != 0)
        rc = FIA_ERR_NOMEM;
    if (rc == FIA_OK) {
        r->x = malloc((size_t)(r->n + 1) * sizeof *r->x);
        if (r->x == NULL)
            rc = FIA_ERR_NOMEM;
        for (int i = 0; r->x && i < r->n; i++)
            r->x[i] = -1;
    }
    return rc;
}

/* The index of name ("" included: rows outside any campaign), -1. */
static int revs_find(const revs *r, const char *name)
{
    for (int i = r->n - 1; i >= 0; i--)
        if (strcmp(r->name[i], name) == 0)
            return i;
    return -1;
}

/* Numbers the revisions marked (x >= 0) from 0, in order. */
static void revs_number(revs *r)
{
    r->nx = 0;
    for (int i = 0; i < r->n; i++)
        if (r->x[i] >= 0)
            r->x[i] = r->nx++;
}

/* "set xtics (...)" naming the section's revisions (12 characters; at
 * most about 12 labels, so they stay legible). */
static void xtics(FILE *g, const revs *r)
{
    const int step = r->nx > 12 ? (r->nx + 11) / 12 : 1;
    fprintf(g, "set xrange [-0.5:%g]\nset xtics noenhanced rotate by -30 "
               "(", r->nx - 0.5);
    int first = 1;
    for (int i = 0; i < r->n; i++) {
        if (r->x[i] < 0 || r->x[i] % step != 0)
            continue;
        char q[64], name[13];
        snprintf(name, sizeof name, "%s", r->name[i][0] ? r->name[i]
                                                        : "(none)");
        rp_quote(q, sizeof q, name);
        fprintf(g, "%s%s %d", first ? "" : ", ", q, r->x[i]);
        first = 0;
    }
    fputs(")\n", g);
}

/* A figure holding svg (not NULL, width pixels wide) and its caption,
 * which wraps at the plot's width instead of widening the figure. */
static void figure(FILE *f, const char *id, const char *svg, int width,
                   const char *caption)
{
    fprintf(f, "<figure class=\"plot\" id=\"%s\" style=\"flex:0 1 %dpx\">"
            "%s<figcaption>", id, width, svg);
    rh_text(f, caption, SIZE_MAX);
    fputs("</figcaption></figure>\n", f);
}

/* ---- accuracy ----------------------------------------------------------- */

typedef struct acc_row {
    int rev;
    char *bucket;
    fia_store_ratio_row r;   /* its strings not kept */
} acc_row;

typedef struct acc_rows {
    acc_row *v;
    size_t n, cap;
    revs *revs;
    int nomem;
} acc_rows;

static int acc_cb(const fia_store_ratio_row *r, void *ctx)
{
    acc_rows *a = ctx;
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 64;
        acc_row *v = realloc(a->v, cap * sizeof *v);
        if (v == NULL) {
            a->nomem = 1;
            return 1;
        }
        a->v = v;
        a->cap = cap;
    }
    acc_row *x = &a->v[a->n];
    x->rev = revs_find(a->revs, r->revision);
    x->bucket = strdup(r->bucket);
    x->r = *r;
    x->r.revision = x->r.bucket = NULL;
    if (x->bucket == NULL) {
        a->nomem = 1;
        return 1;
    }
    if (x->rev < 0) { /* not a revision the store listed: cannot be */
        free(x->bucket);
        return 0;
    }
    a->n++;
    return 0;
}

/* A bucket across revisions: where its rows are, its cases and worst. */
typedef struct acc_bucket {
    const char *name;
    size_t first, n;   /* rows [first, first + n) of the sorted rows */
    int64_t cases;
    double worst;
} acc_bucket;

static int by_bucket_rev(const void *a, const void *b)
{
    const acc_row *x = a, *y = b;
    int c = strcmp(x->bucket, y->bucket);
    return c ? c : (x->rev > y->rev) - (x->rev < y->rev);
}

static int by_cases(const void *a, const void *b)
{
    const acc_bucket *x = a, *y = b;
    if (x->cases != y->cases)
        return x->cases < y->cases ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int by_worst(const void *a, const void *b)
{
    const acc_bucket *x = a, *y = b;
    if (x->worst != y->worst)
        return x->worst < y->worst ? 1 : -1;
    return by_cases(a, b);
}

static double clamp_log(double v)
{
    return v < RATIO_FLOOR ? RATIO_FLOOR : v > RATIO_CEIL ? RATIO_CEIL : v;
}

/* The plot of one bucket: p50, p90 and max per revision. */
static void acc_plot(FILE *f, rp_plotter *p, const revs *r,
                     const acc_rows *rows, const acc_bucket *b, int k)
{
    FILE *d = rp_data(p, "acc.dat");
    if (d == NULL) {
        p->skipped++;
        return;
    }
    for (size_t i = b->first; i < b->first + b->n; i++) {
        const acc_row *x = &rows->v[i];
        fprintf(d, "%d %.9g %.9g %.9g\n", r->x[x->rev], clamp_log(x->r.p50),
                clamp_log(x->r.p90), clamp_log(x->r.max));
    }
    fclose(d);
    const char *label = strcmp(b->name, "*") == 0 ? "all buckets" : b->name;
    char *script = NULL, q[600];
    size_t len = 0;
    FILE *g = open_memstream(&script, &len);
    if (g == NULL)
        return;
    rp_quote(q, sizeof q, label);
    fprintf(g, "set title %s noenhanced\n", q);
    xtics(g, r);
    fprintf(g, "set logscale y 10\nset format y '10^{%%L}'\n"
               "set yrange [*:*]\nset ylabel 'error / bound'\n"
               "set grid ytics\nset key below horizontal\n"
               "set offsets 0, 0, graph 0.1, graph 0.1\n"
               "plot 'acc.dat' using 1:4 title 'max' with linespoints lw 2 "
               "pt 7 ps 0.6 lc rgb '#b31d28', "
               "'' using 1:3 title 'p90' with linespoints lw 2 pt 7 ps 0.6 "
               "lc rgb '#9a6700', "
               "'' using 1:2 title 'p50' with linespoints lw 2 pt 7 ps 0.6 "
               "lc rgb '#0b5cad', "
               "1 title 'bound' with lines dt 2 lc rgb '#555555'\n");
    fclose(g);
    char *svg = rp_render(p, script, ACC_W, 340, label);
    free(script);
    if (svg == NULL)
        return;
    char id[32], cap[700];
    snprintf(id, sizeof id, "plot-acc-%d", k);
    snprintf(cap, sizeof cap, "%s: %lld cases; error-to-bound ratio per "
             "case (1 = at the bound), its median, 90th percentile and "
             "maximum per revision (log scale; 0 drawn at %g, inf at %g).",
             label, (long long)b->cases, RATIO_FLOOR, RATIO_CEIL);
    figure(f, id, svg, ACC_W, cap);
    free(svg);
}

static void acc_table_row(FILE *f, const revs *r, const char *bucket,
                          const acc_row *x)
{
    char p50[32], p90[32], p99[32], mx[32];
    rh_num(p50, sizeof p50, x->r.p50, 3);
    rh_num(p90, sizeof p90, x->r.p90, 3);
    rh_num(p99, sizeof p99, x->r.p99, 3);
    rh_num(mx, sizeof mx, x->r.max, 3);
    fputs("<tr><td class=\"bucket sig\">", f);
    rh_text(f, strcmp(bucket, "*") == 0 ? "* (all)" : bucket, SIZE_MAX);
    fputs("</td><td class=\"revision\">", f);
    rh_revision(f, r->name[x->rev]);
    fprintf(f, "</td><td class=\"n cases\">%lld</td><td class=\"n p50\">%s"
            "</td><td class=\"n p90\">%s</td><td class=\"n p99\">%s</td>"
            "<td class=\"n max%s\">%s</td><td class=\"n over\">%.1f%%</td>"
            "</tr>\n", (long long)x->r.cases, p50, p90, p99,
            x->r.max > 1 ? " bad" : "", mx, 100.0 * x->r.above_one);
}

/* Groups the sorted rows into buckets (malloc'ed array, *nb). */
static acc_bucket *acc_buckets(const acc_rows *rows, size_t *nb)
{
    acc_bucket *b = malloc((rows->n + 1) * sizeof *b);
    *nb = 0;
    for (size_t i = 0; b && i < rows->n; i++) {
        const acc_row *x = &rows->v[i];
        if (*nb == 0 || strcmp(b[*nb - 1].name, x->bucket) != 0)
            b[(*nb)++] = (acc_bucket){x->bucket, i, 0, 0, 0};
        acc_bucket *c = &b[*nb - 1];
        c->n++;
        c->cases += x->r.cases;
        if (c->n == 1 || x->r.max > c->worst)
            c->worst = x->r.max;
    }
    return b;
}

static void acc_write(FILE *f, rp_plotter *p, revs *r, acc_rows *rows)
{
    qsort(rows->v, rows->n, sizeof *rows->v, by_bucket_rev);
    size_t nb = 0;
    acc_bucket *b = acc_buckets(rows, &nb);
    if (b == NULL)
        return;
    /* "*" sorts first ('*' < letters); the others by cases for plots */
    size_t all = nb && strcmp(b[0].name, "*") == 0 ? 1 : 0;
    qsort(b + all, nb - all, sizeof *b, by_cases);
    fputs("<div class=\"plots\">\n", f);
    for (size_t i = 0; i < nb && i < all + ACC_TOP_BUCKETS; i++)
        acc_plot(f, p, r, rows, &b[i], (int)i);
    fputs("</div>\n", f);
    qsort(b + all, nb - all, sizeof *b, by_worst);
    const size_t shown = nb - all > ACC_TABLE_BUCKETS ? ACC_TABLE_BUCKETS
                                                      : nb - all;
    fprintf(f, "<details open><summary>Error-to-bound ratios per bucket and "
            "revision: all cases, then the %zu bucket%s with the largest "
            "ratios%s</summary>\n<table class=\"accuracy\"><thead><tr>"
            "<th>bucket</th><th>revision</th><th class=\"n\">cases</th>"
            "<th class=\"n\">p50</th><th class=\"n\">p90</th>"
            "<th class=\"n\">p99</th><th class=\"n\">max</th>"
            "<th class=\"n\">&gt; bound</th></tr></thead>\n<tbody>\n", shown,
            shown == 1 ? "" : "s", shown < nb - all ? " (of all)" : "");
    for (size_t i = 0; i < all + shown; i++)
        for (size_t j = b[i].first; j < b[i].first + b[i].n; j++)
            acc_table_row(f, r, b[i].name, &rows->v[j]);
    fputs("</tbody></table></details>\n", f);
    if (shown < nb - all)
        fprintf(f, "<p class=\"dim\">%zu more buckets not listed "
                "(<code>fiacheck db stats</code> lists them all).</p>\n",
                nb - all - shown);
    free(b);
}

fia_status rr_accuracy(FILE *f, fia_store *s, rp_plotter *p)
{
    revs r;
    fia_status rc = revs_load(s, &r);
    acc_rows rows = {NULL, 0, 0, &r, 0};
    if (rc == FIA_OK)
        rc = fia_store_report_ratios(s, acc_cb, &rows);
    if (rc == FIA_OK && rows.nomem)
        rc = FIA_ERR_NOMEM;
    fputs("<h2 id=\"accuracy\">Accuracy</h2>\n<p>Each compared case's "
          "error-to-bound ratio (its worst element's error over the "
          "tolerance bound there: above 1 is outside the tolerance), per "
          "bucket (feature set | dtype | layout) and revision, revisions "
          "left to right in the order the store first saw them. "
          "<code>fiacheck db regressions</code> tests whether a change "
          "is real.</p>\n", f);
    if (rc == FIA_OK && rows.n == 0)
        fputs("<p class=\"dim\">No accuracy samples in the store (fiacheck "
              "survey or fuzz --target numeric add them).</p>\n", f);
    if (rc == FIA_OK && rows.n > 0) {
        for (size_t i = 0; i < rows.n; i++)
            r.x[rows.v[i].rev] = 0;
        revs_number(&r);
        acc_write(f, p, &r, &rows);
    }
    for (size_t i = 0; i < rows.n; i++)
        free(rows.v[i].bucket);
    free(rows.v);
    revs_free(&r);
    return rc;
}

/* ---- benchmarks --------------------------------------------------------- */

typedef struct bench_pt {
    char *suite, *machine, *name, *metric;
    int rev, is_ratio;
    int64_t runs;
    double median, min, max;
} bench_pt;

typedef struct bench_pts {
    bench_pt *v;
    size_t n, cap;
    revs *revs;
    int nomem;
} bench_pts;

static int bench_cb(const fia_store_bench_point *p, void *ctx)
{
    bench_pts *b = ctx;
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        bench_pt *v = realloc(b->v, cap * sizeof *v);
        if (v == NULL) {
            b->nomem = 1;
            return 1;
        }
        b->v = v;
        b->cap = cap;
    }
    const int rev = revs_find(b->revs, p->revision);
    if (rev < 0)
        return 0;
    bench_pt x = {strdup(p->suite), strdup(p->machine), strdup(p->name),
                  strdup(p->metric), rev, p->is_ratio, p->runs, p->median,
                  p->min, p->max};
    b->v[b->n++] = x;
    if (!x.suite || !x.machine || !x.name || !x.metric) {
        b->nomem = 1;
        return 1;
    }
    return 0;
}

/* The length of the group prefix of a figure's name: "avx2/qk_t" plots
 * with the other "avx2/" figures; a name without '/' with its suite. */
static size_t prefix_len(const char *name)
{
    const char *slash = strchr(name, '/');
    return slash ? (size_t)(slash - name) : 0;
}

static int same_group(const bench_pt *a, const bench_pt *b)
{
    const size_t n = prefix_len(a->name);
    return strcmp(a->suite, b->suite) == 0 &&
           strcmp(a->machine, b->machine) == 0 && prefix_len(b->name) == n &&
           strncmp(a->name, b->name, n) == 0;
}

/* One plot: a grid of panels, one per figure, of points v[from, to)
 * (whole figures of one group); panels named without the group's prefix. */
static void bench_plot(FILE *f, rp_plotter *p, const revs *r,
                       const bench_pt *v, size_t from, size_t to, int k)
{
    int figs = 0;
    for (size_t i = from; i < to; i++)
        figs += i == from || strcmp(v[i].name, v[i - 1].name) != 0;
    const int cols = figs < BENCH_COLS ? figs : BENCH_COLS;
    const int rows = (figs + cols - 1) / cols;
    FILE *d = rp_data(p, "bench.dat");
    if (d == NULL) {
        p->skipped++;
        return;
    }
    char *script = NULL, q[600], title[600];
    size_t len = 0;
    FILE *g = open_memstream(&script, &len);
    if (g == NULL) {
        fclose(d);
        return;
    }
    const size_t pre = prefix_len(v[from].name);
    snprintf(title, sizeof title, "%s%s%.*s - %s", v[from].suite,
             pre ? " / " : "", (int)pre, v[from].name, v[from].machine);
    rp_quote(q, sizeof q, title);
    fprintf(g, "set multiplot layout %d,%d title %s noenhanced\n", rows,
            cols, q);
    xtics(g, r);
    fputs("set key off\nset grid ytics\nset format y '%g'\n"
          "set offsets 0, 0, graph 0.08, graph 0.08\n", g);
    int block = 0;
    for (size_t i = from; i < to; i++) {
        const int first = i == from || strcmp(v[i].name, v[i - 1].name) != 0;
        if (first && i > from)
            fputs("\n\n", d); /* the next gnuplot index */
        fprintf(d, "%d %.9g %.9g %.9g\n", r->x[v[i].rev], v[i].median,
                v[i].min, v[i].max);
        if (!first)
            continue;
        char t[300];
        snprintf(t, sizeof t, "%s (%s%s)", v[i].name + (pre ? pre + 1 : 0),
                 v[i].is_ratio ? "of " : "", v[i].metric);
        rp_quote(q, sizeof q, t);
        fprintf(g, "set title %s noenhanced\nplot 'bench.dat' index %d "
                   "using 1:2:3:4 with yerrorbars pt 7 ps 0.5 "
                   "lc rgb '#0b5cad', '' index %d using 1:2 with lines "
                   "lw 1.5 lc rgb '#0b5cad'\n", q, block, block);
        block++;
    }
    fputs("unset multiplot\n", g);
    fclose(d);
    fclose(g);
    char *svg = rp_render(p, script, BENCH_W, 50 + 190 * rows, title);
    free(script);
    if (svg == NULL)
        return;
    char id[32], cap[900];
    snprintf(id, sizeof id, "plot-bench-%d", k);
    snprintf(cap, sizeof cap, "%s: per figure, the median over each "
             "revision's runs of its ratio to a baseline measured in the "
             "same run (or its value, when it has none); bars from the "
             "smallest to the largest run.", title);
    figure(f, id, svg, BENCH_W, cap);
    free(svg);
}

static void bench_table(FILE *f, const revs *r, const bench_pts *b)
{
    fprintf(f, "<details><summary>The %zu figure medians per revision"
            "</summary>\n<table class=\"bench\"><thead><tr><th>suite</th>"
            "<th>machine</th><th>figure</th><th>revision</th>"
            "<th class=\"n\">runs</th><th class=\"n\">median</th>"
            "<th class=\"n\">min</th><th class=\"n\">max</th><th>of</th>"
            "</tr></thead>\n<tbody>\n", b->n);
    for (size_t i = 0; i < b->n; i++) {
        const bench_pt *x = &b->v[i];
        char med[32], lo[32], hi[32];
        rh_num(med, sizeof med, x->median, 4);
        rh_num(lo, sizeof lo, x->min, 4);
        rh_num(hi, sizeof hi, x->max, 4);
        fputs("<tr><td class=\"suite\">", f);
        rh_text(f, x->suite, SIZE_MAX);
        fputs("</td><td class=\"machine\">", f);
        rh_text(f, x->machine, SIZE_MAX);
        fputs("</td><td class=\"name\">", f);
        rh_text(f, x->name, SIZE_MAX);
        fputs("</td><td class=\"revision\">", f);
        rh_revision(f, r->name[x->rev]);
        fprintf(f, "</td><td class=\"n runs\">%lld</td><td class=\"n "
                "median\">%s</td><td class=\"n min\">%s</td><td class=\"n "
                "max\">%s</td><td class=\"metric\">", (long long)x->runs, med,
                lo, hi);
        rh_text(f, x->metric, SIZE_MAX);
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table></details>\n", f);
}

fia_status rr_bench(FILE *f, fia_store *s, rp_plotter *p)
{
    revs r;
    fia_status rc = revs_load(s, &r);
    bench_pts b = {NULL, 0, 0, &r, 0};
    if (rc == FIA_OK)
        rc = fia_store_report_bench(s, bench_cb, &b);
    if (rc == FIA_OK && b.nomem)
        rc = FIA_ERR_NOMEM;
    fputs("<h2 id=\"bench\">Benchmarks</h2>\n", f);
    if (rc == FIA_OK && b.n == 0)
        fputs("<p class=\"dim\">No benchmark figures in the store "
              "(<code>fiacheck bench --fast|--kernels --db PATH</code> "
              "stores them).</p>\n", f);
    if (rc == FIA_OK && b.n > 0) {
        fputs("<p>The figures of <code>fiacheck bench --db</code> runs per "
              "revision, one panel per figure, figures grouped by suite, "
              "machine and kind (the part of the name before '/'). Runs of "
              "one machine only are comparable; <code>fiacheck db "
              "regressions</code> judges a change against the run-to-run "
              "spread.</p>\n<div class=\"plots\">\n", f);
        for (size_t i = 0; i < b.n; i++)
            r.x[b.v[i].rev] = 0;
        revs_number(&r);
        int k = 0;
        for (size_t from = 0; from < b.n;) {
            /* a group's figures, in plots of at most BENCH_PANELS, shared
             * out evenly (18 figures: one plot, 24: two of 12) */
            int figs = 0;
            size_t end = from;
            for (; end < b.n && same_group(&b.v[from], &b.v[end]); end++)
                figs += end == from ||
                        strcmp(b.v[end].name, b.v[end - 1].name) != 0;
            const int plots = (figs + BENCH_PANELS - 1) / BENCH_PANELS;
            const int per = (figs + plots - 1) / plots;
            while (from < end) {
                size_t to = from;
                int n = 0;
                for (; to < end; to++) {
                    const int first = to == from ||
                        strcmp(b.v[to].name, b.v[to - 1].name) != 0;
                    if (first && n == per)
                        break;
                    n += first;
                }
                bench_plot(f, p, &r, b.v, from, to, k++);
                from = to;
            }
        }
        fputs("</div>\n", f);
        bench_table(f, &r, &b);
    }
    for (size_t i = 0; i < b.n; i++) {
        free(b.v[i].suite), free(b.v[i].machine);
        free(b.v[i].name), free(b.v[i].metric);
    }
    free(b.v);
    revs_free(&r);
    return rc;
}

void rr_plot_note(FILE *f, const rp_plotter *p)
{
    if (p->skipped == 0)
        return;
    fprintf(f, "<p class=\"note\" id=\"plot-note\">%d plot%s not drawn: ",
            p->skipped, p->skipped == 1 ? "" : "s");
    rh_text(f, p->why, SIZE_MAX);
    fputs(". The plots need gnuplot (Debian package gnuplot-nox); the "
          "tables hold the same numbers.</p>\n", f);
}
