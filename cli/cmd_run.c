/* `fiacheck run CASE... [--profile doc|cann] [--json] [--status-only]
 *                       [--precision BITS] [--pure-mpfr] [--max-work N]
 *                       [--progress] [--junit FILE]
 *                       [--tolerance bound|flash-attn|vendor|ulp|
 *                                    allclose RTOL ATOL]`
 *
 * --tolerance picks the accuracy criterion (docs/tolerance.md; default
 * bound: the per-element error bound of the permitted algorithm).
 * --pure-mpfr makes the reference skip its binary64 first pass.
 * --junit FILE also writes the cases as a JUnit XML report (junit.c).
 *
 * Per case: the oracle's expected status and the rules that fired, fast/'s
 * status, and for accepted cases the error of fast/'s outputs against the
 * MPFR reference, and the case's intents.  Exit 0 when every case passes, 1
 * on any finding or unmet intent, 2 on bad
 * usage or input (bad input wins: the run is not trustworthy as a whole). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "cli_junit.h"
#include "fia/check.h"
#include "fia/sut_host.h"

typedef struct run_options {
    fia_check_options check;
    int json;
    int progress;       /* --progress: also when stderr is no terminal */
    const char *junit;  /* --junit FILE, or NULL */
} run_options;

/* A case file checked: the parse error, or the harness's verdict. */
typedef struct run_result {
    const char *path;
    fia_check_result c;
} run_result;

static void run_one(const char *path, const run_options *o, run_result *r)
{
    fia_case c;
    fia_error err;
    r->path = path;
    if (fia_case_parse_file(path, &c, &err) != 0) {
        memset(&r->c, 0, sizeof r->c);
        r->c.v = FIA_V_BAD_INPUT;
        fia_fail(&r->c.reason, err.code, "%.200s:%d: %.255s", err.file,
                 err.line, err.msg);
        return;
    }
    fia_check_options co = o->check;
    if (o->progress || isatty(STDERR_FILENO)) {
        co.ref_progress = cli_ref_progress;
        co.ref_progress_ctx = (void *)path;
    }
    fia_check_case(&c, &co, &r->c);
    fia_case_free(&c);
}

static void print_cmp_text(const char *name, const fia_compare_result *m)
{
    printf("  %-14s %lld elements, %lld compared, %lld unspecified, "
           "%lld outside tolerance, %lld NaN/inf leaks; max %.3g ulp, "
           "max rel err %.3g", name, (long long)m->n_total,
           (long long)m->n_compared, (long long)m->n_unspecified,
           (long long)m->n_fail, (long long)m->n_nan_leak, m->max_ulp,
           m->max_rel_err);
    if (m->worst_index >= 0 && m->max_ulp > 0)
        printf(" (worst at %lld: ref %.9g, fast %.9g)",
               (long long)m->worst_index, m->worst_ref, m->worst_got);
    printf("; tolerance ratio %.3g\n", m->max_ratio);
}

static void print_text(const run_result *r, const run_options *o)
{
    printf("%s\n", r->path);
    if (r->c.evaluated) {
        printf("  expected       %d %s (profile %s)\n", r->c.ov.expected,
               fia_status_name(r->c.ov.expected), fia_profile_name(o->check.profile));
        printf("  rules fired    ");
        if (r->c.ov.n_fired == 0)
            printf("-");
        for (int i = 0; i < r->c.ov.n_fired; i++)
            printf("%s%s", i ? " " : "", r->c.ov.fired[i]->id);
        printf("\n");
        if (r->c.ov.n_normalized > 0) {
            printf("  normalized     ");
            for (int i = 0; i < r->c.ov.n_normalized; i++)
                printf("%s%s", i ? " " : "", r->c.ov.normalized[i]->id);
            printf("\n");
        }
    }
    if (r->c.fast_called)
        printf("  fast           %d %s\n", r->c.fast_status,
               fia_status_name(r->c.fast_status));
    if (r->c.computed) {
        print_cmp_text("attention_out", &r->c.out_cmp);
        if (r->c.has_lse)
            print_cmp_text("softmax_lse", &r->c.lse_cmp);
    }
    if (r->c.has_cann) {
        const fia_cann_result *k = &r->c.cann;
        printf("  cann-double    %s over %lld elements: kernel / benchmark "
               "max rel err %.3g / %.3g = %.3g (<= 2), mean rel err %.3g / "
               "%.3g = %.3g (<= 1.2), RMSE %.3g / %.3g = %.3g (<= 1.2)\n",
               k->pass ? "pass" : "FAIL", (long long)k->n, k->kernel.max_re,
               k->bench.max_re, k->ratio[0], k->kernel.mean_re,
               k->bench.mean_re, k->ratio[1], k->kernel.rmse, k->bench.rmse,
               k->ratio[2]);
    }
    for (int i = 0; i < r->c.n_intents; i++) {
        const fia_intent_result *ir = &r->c.intents[i];
        printf("  intent         %s%s: %s\n", fia_intent_name(ir->intent),
               ir->met > 0 ? " met" : ir->met == 0 ? " NOT MET" : "",
               ir->found); /* unchecked: found says "not checked: ..." */
    }
    printf("  verdict        %s%s%s\n", fia_verdict_name(r->c.v),
           r->c.reason.msg[0] ? ": " : "", r->c.reason.msg);
}

static void print_cmp_json(const char *prefix, const fia_compare_result *m)
{
    /* a NaN leak's max_ulp is inf: null, as JSON has no infinity */
    char key[64];
    snprintf(key, sizeof key, "%smax_ulp", prefix);
    cli_json_num(key, m->max_ulp);
    snprintf(key, sizeof key, "%smax_rel_err", prefix);
    cli_json_num(key, m->max_rel_err);
    printf(",\"%scompared\":%lld,"
           "\"%sunspecified\":%lld,\"%sfailed\":%lld,\"%snan_leaks\":%lld",
           prefix, (long long)m->n_compared, prefix,
           (long long)m->n_unspecified, prefix, (long long)m->n_fail, prefix,
           (long long)m->n_nan_leak);
}

static void print_json(const run_result *r, const run_options *o)
{
    printf("{\"case\":");
    cli_json_string(stdout, r->path);
    printf(",\"profile\":\"%s\"", fia_profile_name(o->check.profile));
    const fia_sut *sut = fia_sut_current();
    cli_json_kv("sut", sut->name);
    cli_json_kv("sut_version", sut->version);
    cli_json_kv("fast_kernels", cli_sut_option("kernel_level"));
    const char *th = cli_sut_option("threads");
    if (th != NULL)
        cli_json_num("fast_threads", atof(th));
    else
        cli_json_kv("fast_threads", NULL);
    if (r->c.evaluated) {
        printf(",\"expected_status\":%d,\"rules\":[", r->c.ov.expected);
        for (int i = 0; i < r->c.ov.n_fired; i++)
            printf("%s\"%s\"", i ? "," : "", r->c.ov.fired[i]->id);
        printf("],\"normalized\":[");
        for (int i = 0; i < r->c.ov.n_normalized; i++)
            printf("%s\"%s\"", i ? "," : "", r->c.ov.normalized[i]->id);
        printf("]");
    }
    if (r->c.fast_called)
        printf(",\"fast_status\":%d", r->c.fast_status);
    printf(",\"verdict\":\"%s\"", fia_verdict_name(r->c.v));
    if (r->c.computed) {
        print_cmp_json("", &r->c.out_cmp);
        if (r->c.has_lse)
            print_cmp_json("lse_", &r->c.lse_cmp);
    }
    if (r->c.has_cann) {
        const fia_cann_result *k = &r->c.cann;
        static const char *const keys[6] = {
            "kernel_max_re", "kernel_mean_re", "kernel_rmse",
            "bench_max_re",  "bench_mean_re",  "bench_rmse"};
        const double v[6] = {k->kernel.max_re, k->kernel.mean_re,
                             k->kernel.rmse,   k->bench.max_re,
                             k->bench.mean_re, k->bench.rmse};
        printf(",\"cann_double\":{\"pass\":%s,\"n\":%lld",
               k->pass ? "true" : "false", (long long)k->n);
        for (int i = 0; i < 6; i++)
            printf(",\"%s\":%.17g", keys[i], isfinite(v[i]) ? v[i] : -1.0);
        printf(",\"ratios\":[%.17g,%.17g,%.17g]}",
               isfinite(k->ratio[0]) ? k->ratio[0] : -1.0,
               isfinite(k->ratio[1]) ? k->ratio[1] : -1.0,
               isfinite(k->ratio[2]) ? k->ratio[2] : -1.0);
    }
    printf(",\"intents\":[");
    for (int i = 0; i < r->c.n_intents; i++) {
        const fia_intent_result *ir = &r->c.intents[i];
        printf("%s{\"intent\":\"%s\",\"met\":%s,\"found\":", i ? "," : "",
               fia_intent_name(ir->intent),
               ir->met > 0 ? "true" : ir->met == 0 ? "false" : "null");
        cli_json_string(stdout, ir->found);
        printf("}");
    }
    printf("],\"message\":");
    cli_json_string(stdout, r->c.reason.msg);
    printf("}\n");
}

static const char run_usage[] =
    "usage: fiacheck run CASE... [--profile doc|cann] [--json] "
    "[--status-only]\n"
    "                    [--precision BITS] [--pure-mpfr] [--max-work N] "
    "[--progress] [--junit FILE]\n"
    "                    [--tolerance bound|flash-attn|vendor|ulp|"
    "allclose RTOL ATOL]\n"
    "  --profile P     status codes of the documents (doc, default) or of the\n"
    "                  released code (cann)\n"
    "  --json          one JSON object per case (docs/cli.md)\n"
    "  --sut PATH      test the plug-in at PATH instead of fast/ (docs/sut.md)\n"
    "  --status-only   statuses only: no data, nothing computed\n"
    "  --precision B   the reference's first MPFR precision (64..100000)\n"
    "  --pure-mpfr     the reference without its binary64 first pass\n"
    "  --max-work N    refuse cases whose reference would take more than N\n"
    "                  (estimated multiply-adds; default 2e10, about a "
    "minute)\n"
    "  --progress      the reference's progress on stderr (default when\n"
    "                  stderr is a terminal)\n"
    "  --tolerance T   the accuracy criterion (docs/tolerance.md)\n"
    "  --junit FILE    also a JUnit XML report: a case per test, findings\n"
    "                  and unmet intents as failures with the case text\n"
    "exit status: 0 all passed, 1 a finding or an unmet intent, 2 bad usage "
    "or a bad input\n"
    "(2 wins over 1: a run with a bad input is not trustworthy as a "
    "whole)\n";

static int usage(void)
{
    fputs(run_usage, stderr);
    return CLI_EXIT_USAGE;
}

/* The options into *o and the case paths into cases; 0, or -1 (said). */
static int parse_args(int argc, char **argv, run_options *o,
                      const char **cases, int *ncases)
{
    int n_prof = 0, n_tol = 0, n_prec = 0, n_work = 0, n_junit = 0;
    const char *v;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(a, "--status-only") == 0) {
            o->check.status_only = 1;
        } else if (strcmp(a, "--pure-mpfr") == 0) {
            o->check.pure_mpfr = 1;
        } else if (strcmp(a, "--progress") == 0) {
            o->progress = 1;
        } else if (strcmp(a, "--junit") == 0) {
            if (cli_once("run", a, &n_junit) ||
                cli_value("run", argc, argv, &i, &o->junit))
                return -1;
        } else if (strcmp(a, "--profile") == 0) {
            if (cli_profile("run", argc, argv, &i, &o->check.profile, &n_prof))
                return -1;
        } else if (strcmp(a, "--tolerance") == 0) {
            if (cli_tolerance("run", argc, argv, &i, &o->check, &n_tol))
                return -1;
        } else if (strcmp(a, "--precision") == 0) {
            if (cli_once("run", a, &n_prec) ||
                cli_value("run", argc, argv, &i, &v) ||
                cli_long("run", a, v, 64, 100000, &o->check.precision))
                return -1;
        } else if (strcmp(a, "--max-work") == 0) {
            char *end = NULL;
            if (cli_once("run", a, &n_work) ||
                cli_value("run", argc, argv, &i, &v))
                return -1;
            o->check.max_ref_work = strtod(v, &end);
            if (end == v || *end != '\0' || !(o->check.max_ref_work > 0)) {
                fprintf(stderr, "fiacheck run: --max-work takes a positive "
                        "number of multiply-adds (e.g. 1e11), not '%s'\n", v);
                return -1;
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "fiacheck run: unknown option %s\n", a);
            usage();
            return -1;
        } else {
            cases[(*ncases)++] = a;
        }
    }
    return 0;
}

int cmd_run(int argc, char **argv)
{
    run_options o;
    memset(&o, 0, sizeof o);
    fia_check_options_default(&o.check);
    for (int i = 0; i < argc; i++)
        if (cli_is_help(argv[i])) {
            fputs(run_usage, stdout);
            return CLI_EXIT_OK;
        }
    const char **cases = calloc((size_t)argc + 1, sizeof *cases);
    int ncases = 0;
    if (cases == NULL)
        return CLI_EXIT_USAGE;
    if (parse_args(argc, argv, &o, cases, &ncases) != 0) {
        free(cases);
        return CLI_EXIT_USAGE;
    }
    if (ncases == 0) {
        free(cases);
        return usage();
    }
    int n_pass = 0, n_find = 0, n_bad = 0, n_skip = 0, n_vacuous = 0;
    int n_unmet = 0;
    cli_junit *junit = NULL;
    if (o.junit != NULL && (junit = cli_junit_open(o.junit)) == NULL) {
        fprintf(stderr, "fiacheck run: out of memory (the JUnit report)\n");
        free(cases);
        return CLI_EXIT_USAGE;
    }
    run_result r;
    for (int i = 0; i < ncases; i++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        run_one(cases[i], &o, &r);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (junit != NULL)
            cli_junit_case(junit, cases[i], r.c.v, r.c.reason.msg,
                           (double)(t1.tv_sec - t0.tv_sec) +
                               1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
        if (o.json)
            print_json(&r, &o);
        else
            print_text(&r, &o);
        fflush(stdout);
        if (r.c.v == FIA_V_BAD_INPUT)
            n_bad++;
        else if (fia_verdict_is_finding(r.c.v))
            n_find++;
        else if (r.c.v == FIA_V_NOT_MODELED)
            n_skip++;
        else if (r.c.v == FIA_V_VACUOUS)
            n_vacuous++;
        else if (r.c.v == FIA_V_INTENT_UNMET)
            n_unmet++;
        else
            n_pass++;
    }
    if (!o.json)
        printf("%d cases: %d passed, %d vacuous, %d findings, %d not "
               "modeled, %d bad input, %d intent unmet\n", ncases, n_pass,
               n_vacuous, n_find, n_skip, n_bad, n_unmet);
    if (!o.json) { /* what the numbers depend on besides the cases */
        char sut[256];
        const char *lv = cli_sut_option("kernel_level");
        const char *th = cli_sut_option("threads");
        if (fia_sut_current_is_builtin())
            snprintf(sut, sizeof sut, "fast/ kernels %s, %s threads",
                     lv ? lv : "?", th ? th : "?");
        else
            cli_sut_describe(sut, sizeof sut);
        printf("%s (unless a case's threads / kernel_level lines say "
               "otherwise)\n", sut);
    }
    free(cases);
    if (junit != NULL && cli_junit_close(junit) != 0)
        return CLI_EXIT_USAGE; /* the report CI asked for is missing */
    if (n_bad)
        return CLI_EXIT_USAGE;
    /* an unmet intent is no finding of fast/, but the run failed: the case
     * did not check what it says */
    return n_find || n_unmet ? CLI_EXIT_FINDING : CLI_EXIT_OK;
}
