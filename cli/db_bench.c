/* `fiacheck db bench` and the benchmark part of `db regressions`: the
 * figures `bench --db` stored (store/store_bench.c), as text or JSON. */
#include <math.h>
#include <stdio.h>
#include "cli.h"
#include "cli_bench.h"
#include "fia/store.h"

/* A benchmark figure's row: text or JSON. */
typedef struct list_ctx {
    int json;
    int64_t n;
} list_ctx;

static int bench_cb(const fia_bench_row *r, void *ctx)
{
    list_ctx *l = ctx;
    const fia_bench_figure *f = &r->figure;
    if (l->json) {
        printf("{\"type\":\"bench_figure\"");
        cli_json_kv("run", r->run_uuid);
        cli_json_kv("revision", r->revision);
        cli_json_kv("machine", r->machine);
        cli_json_kv("suite", r->suite);
        printf(",\"started\":%lld", (long long)r->started);
        cli_json_kv("name", f->name);
        cli_json_num("value", f->value);
        cli_json_kv("unit", f->unit);
        if (isfinite(f->ratio))
            cli_json_num("ratio", f->ratio);
        else
            printf(",\"ratio\":null");
        cli_json_kv("ratio_of", f->ratio_of);
        printf("}\n");
    } else {
        if (l->n == 0)
            printf("%-12s %-20s %-8s %-28s %12s %-9s %s\n", "revision",
                   "started", "suite", "figure", "value", "unit",
                   "ratio (same run)");
        char started[32], ratio[64] = "-";
        cli_iso_time(started, sizeof started, r->started);
        if (isfinite(f->ratio))
            snprintf(ratio, sizeof ratio, "%.3f of %s", f->ratio, f->ratio_of);
        char rev[160];
        printf("%-12s %-20s %-8s %-28s %12.4g %-9s %s\n",
               cli_revision_short(r->revision, rev, sizeof rev),
               started, r->suite, f->name, f->value, f->unit, ratio);
    }
    l->n++;
    return 0;
}

/* The benchmark part of regressions: figures measured at both revisions
 * on one machine, slower or faster beyond the run-to-run spread. */
static int bench_delta_cb(const fia_bench_delta *d, void *ctx)
{
    cli_db_bench *b = ctx;
    const char *what = !d->judged        ? "too-few"
                       : d->verdict < 0 ? "slower"
                       : d->verdict > 0 ? "faster"
                                        : "same";
    b->compared++;
    b->too_few += !d->judged;
    if (b->json) {
        printf("{\"regression\":\"bench-%s\"", what);
        cli_json_kv("suite", d->suite);
        cli_json_kv("machine", d->machine);
        cli_json_kv("figure", d->name);
        cli_json_kv("metric", d->metric);
        cli_json_num("base", d->base);
        cli_json_num("head", d->head);
        cli_json_num("spread", d->spread);
        printf(",\"base_runs\":%lld,\"head_runs\":%lld}\n",
               (long long)d->base_runs, (long long)d->head_runs);
    } else if (d->verdict != 0 || b->all) {
        printf("%-9s bench %s %s: %.4g -> %.4g %s (%+.1f%%; spread %.1f%%, "
               "%lld / %lld runs; %s)\n", what, d->suite, d->name, d->base,
               d->head, d->metric, 100.0 * (d->head / d->base - 1.0),
               100.0 * d->spread, (long long)d->base_runs,
               (long long)d->head_runs, d->machine);
    }
    return 0;
}

fia_status cli_db_bench_list(fia_store *s, const char *revision, int json,
                             int64_t *count)
{
    list_ctx l = {json, 0};
    const fia_status rc = fia_store_bench_list(s, revision, bench_cb, &l);
    *count = l.n;
    return rc;
}

fia_status cli_db_bench_compare(fia_store *s, const char *base,
                                const char *head, cli_db_bench *b)
{
    return fia_store_bench_compare(s, base, head, bench_delta_cb, b,
                                   &b->slower);
}
