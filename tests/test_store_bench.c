/* Benchmark figures in the store (store/store_bench.c): a run stored
 * whole or not at all, the comparison of two revisions per (suite,
 * machine, figure) by the median ratio beyond the run-to-run spread, only
 * with two runs or more on each side, by value when a run lacks a ratio;
 * merge and export carry the figures. */
#include <math.h>
#include "check.h"
#include "test_store_util.h"

/* One run of figures "prefill" (ratio r) and "widen" (value v, no ratio)
 * at revision rev on machine m. */
static void add_run(fia_store *s, const char *rev, const char *m, double r,
                    double v)
{
    fia_bench_figure f[2] = {{"prefill", 400.0 * r, "GFLOP/s", r, "fma-peak"},
                             {"widen", v, "Gelem/s", NAN, ""}};
    fia_bench_run run = {rev, m, "fast", "fiacheck bench --fast", ""};
    CHECK_EQ_INT(fia_store_bench_add(s, &run, f, 2), FIA_OK);
    CHECK(run.uuid[0] != '\0');
}

typedef struct seen {
    int n, judged;
    int verdict[8];
    char name[8][32];
    double base[8], head[8], spread[8];
} seen;

static int delta_cb(const fia_bench_delta *d, void *ctx)
{
    seen *x = ctx;
    if (x->n < 8) {
        snprintf(x->name[x->n], 32, "%s", d->name);
        x->verdict[x->n] = d->verdict;
        x->base[x->n] = d->base, x->head[x->n] = d->head;
        x->spread[x->n] = d->spread;
    }
    x->judged += d->judged;
    x->n++;
    return 0;
}

static seen compare(fia_store *s, const char *a, const char *b,
                    int64_t *slower)
{
    seen x;
    memset(&x, 0, sizeof x);
    CHECK_EQ_INT(fia_store_bench_compare(s, a, b, delta_cb, &x, slower),
                 FIA_OK);
    return x;
}

static void test_compare(void)
{
    fia_store *s = open_ok(scratch("bench.db"), FIA_STORE_OPEN_CREATE);
    CHECK(s != NULL);
    if (s == NULL)
        return;
    /* one run a side: not judged, whatever the difference */
    add_run(s, "A", "m1", 0.80, 10.0);
    add_run(s, "B", "m1", 0.40, 10.0);
    int64_t slower = -1;
    seen x = compare(s, "A", "B", &slower);
    CHECK_EQ_INT(x.n, 2);
    CHECK_EQ_INT(x.judged, 0);
    CHECK_EQ_INT(slower, 0);
    /* two a side: prefill's median 0.81 -> 0.405, beyond a 5 % spread */
    add_run(s, "A", "m1", 0.82, 10.2);
    add_run(s, "B", "m1", 0.41, 10.1);
    x = compare(s, "A", "B", &slower);
    CHECK_EQ_INT(x.judged, 2);
    CHECK_EQ_INT(slower, 1);
    CHECK(strcmp(x.name[0], "prefill") == 0 && x.verdict[0] == -1);
    CHECK_NEAR(x.base[0], 0.81, 1e-12);
    CHECK_NEAR(x.head[0], 0.405, 1e-12);
    CHECK_NEAR(x.spread[0], 0.05, 1e-12); /* ranges 2.5 %, 2.5 %: floor */
    /* widen has no ratio: its values, within the spread */
    CHECK(strcmp(x.name[1], "widen") == 0 && x.verdict[1] == 0);
    CHECK_NEAR(x.base[1], 10.1, 1e-12);
    /* the other way: faster */
    x = compare(s, "B", "A", &slower);
    CHECK_EQ_INT(slower, 0);
    CHECK_EQ_INT(x.verdict[0], 1);
    /* a noisy side widens the spread: C's runs 0.5 and 0.9 (range 57 %)
     * hide the drop from 0.81 to 0.7 */
    add_run(s, "C", "m1", 0.5, 10.0);
    add_run(s, "C", "m1", 0.9, 10.0);
    x = compare(s, "A", "C", &slower);
    CHECK_EQ_INT(slower, 0);
    CHECK_NEAR(x.spread[0], 0.4 / 0.7, 1e-12);
    /* another machine's figures are not compared with m1's */
    add_run(s, "D", "m2", 0.1, 1.0);
    add_run(s, "D", "m2", 0.1, 1.0);
    x = compare(s, "A", "D", &slower);
    CHECK_EQ_INT(x.n, 0);
    /* one name twice in a run: refused, nothing written */
    fia_bench_figure dup[2] = {{"x", 1, "u", NAN, ""}, {"x", 2, "u", NAN, ""}};
    fia_bench_run run = {"E", "m1", "fast", "", ""};
    CHECK_EQ_INT(fia_store_bench_add(s, &run, dup, 2), FIA_ERR_BAD_INPUT);
    int rows = 0;
    CHECK_EQ_INT(fia_store_bench_list(s, "E", NULL, &rows),
                 FIA_ERR_BAD_INPUT); /* no callback */
    fia_store_close(s);
}

static int count_cb(const fia_bench_row *r, void *ctx)
{
    (void)r;
    (*(int *)ctx)++;
    return 0;
}

static void test_merge_export(void)
{
    fia_store *a = open_ok(scratch("a.db"), FIA_STORE_OPEN_CREATE);
    fia_store *b = open_ok(scratch("b.db"), FIA_STORE_OPEN_CREATE);
    CHECK(a != NULL && b != NULL);
    if (a == NULL || b == NULL)
        return;
    add_run(a, "A", "m1", 0.8, 1.0);
    add_run(b, "B", "m1", 0.7, 1.0);
    add_run(b, "B", "m1", 0.7, 1.0);
    fia_store_close(b);
    for (int again = 0; again < 2; again++) /* idempotent */
        CHECK_EQ_INT(fia_store_merge(a, scratch("b.db")), FIA_OK);
    int n = 0;
    CHECK_EQ_INT(fia_store_bench_list(a, NULL, count_cb, &n), FIA_OK);
    CHECK_EQ_INT(n, 6); /* 3 runs x 2 figures */
    n = 0;
    CHECK_EQ_INT(fia_store_bench_list(a, "B", count_cb, &n), FIA_OK);
    CHECK_EQ_INT(n, 4);
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f != NULL) {
        CHECK_EQ_INT(fia_store_export_json(a, f), FIA_OK);
        rewind(f);
        char line[1024];
        int rowsx = 0;
        while (fgets(line, sizeof line, f) != NULL)
            rowsx += strstr(line, "\"table\":\"bench_figure\"") != NULL;
        CHECK_EQ_INT(rowsx, 6);
        fclose(f);
    }
    fia_store_close(a);
}

int main(void)
{
    (void)record; /* test_store_util.h's, for the finding tests */
    test_compare();
    test_merge_export();
    scratch_cleanup();
    return check_summary();
}
