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

/* a format: %s the tolerance names (cli_tolerance_names) */
static const char run_usage[] =
    "usage: fiacheck run CASE... [--profile doc|cann] [--json] "
    "[--status-only]\n"
    "                    [--precision BITS] [--pure-mpfr] [--max-work N] "
    "[--progress] [--junit FILE]\n"
    "                    [--tolerance %s]\n"
    "  --profile P     status codes of the documents (doc, default) or of the\n"
    "                  released code (cann)\n"
    "  --json          one JSON object per case (docs/cli.md)\n"
    "  --sut PATH      test the plug-in at PATH instead of fast/ (docs/sut.md)\n"
    "  --no-isolate    call the plug-in in-process (default: each call in a\n"
    "                  child process, a crash or hang a finding; --isolate\n"
    "                  does so for fast/ too)\n"
    "  --timeout S     seconds a call out of process may take (default 60)\n"
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
    fprintf(stderr, run_usage, cli_tolerance_names());
    return CLI_EXIT_USAGE;
}

/* The options into *o and the case paths into cases; FIA_OK, or
 * FIA_ERR_BAD_INPUT (said). */
static fia_status parse_args(int argc, char **argv, run_options *o,
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
                return FIA_ERR_BAD_INPUT;
        } else if (strcmp(a, "--profile") == 0) {
            if (cli_profile("run", argc, argv, &i, &o->check.profile, &n_prof))
                return FIA_ERR_BAD_INPUT;
        } else if (strcmp(a, "--tolerance") == 0) {
            if (cli_tolerance("run", argc, argv, &i, &o->check, &n_tol))
                return FIA_ERR_BAD_INPUT;
        } else if (strcmp(a, "--precision") == 0) {
            if (cli_once("run", a, &n_prec) ||
                cli_value("run", argc, argv, &i, &v) ||
                cli_long("run", a, v, 64, 100000, &o->check.precision))
                return FIA_ERR_BAD_INPUT;
        } else if (strcmp(a, "--max-work") == 0) {
            char *end = NULL;
            if (cli_once("run", a, &n_work) ||
                cli_value("run", argc, argv, &i, &v))
                return FIA_ERR_BAD_INPUT;
            o->check.max_ref_work = strtod(v, &end);
            if (end == v || *end != '\0' || !(o->check.max_ref_work > 0)) {
                fprintf(stderr, "fiacheck run: --max-work takes a positive "
                        "number of multiply-adds (e.g. 1e11), not '%s'\n", v);
                return FIA_ERR_BAD_INPUT;
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "fiacheck run: unknown option %s\n", a);
            usage();
            return FIA_ERR_BAD_INPUT;
        } else {
            cases[(*ncases)++] = a;
        }
    }
    return FIA_OK;
}

int cmd_run(int argc, char **argv)
{
    run_options o;
    memset(&o, 0, sizeof o);
    fia_check_options_default(&o.check);
    for (int i = 0; i < argc; i++)
        if (cli_is_help(argv[i])) {
            printf(run_usage, cli_tolerance_names());
            return CLI_EXIT_OK;
        }
    const char **cases = calloc((size_t)argc + 1, sizeof *cases);
    int ncases = 0;
    if (cases == NULL)
        return CLI_EXIT_USAGE;
    if (parse_args(argc, argv, &o, cases, &ncases) != FIA_OK) {
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
            cli_print_verdict_json(r.path, &r.c, o.check.profile);
        else
            cli_print_verdict_text(r.path, &r.c, o.check.profile);
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
    if (junit != NULL && cli_junit_close(junit) != FIA_OK)
        return CLI_EXIT_USAGE; /* the report CI asked for is missing */
    if (n_bad)
        return CLI_EXIT_USAGE;
    /* an unmet intent is no finding of fast/, but the run failed: the case
     * did not check what it says */
    return n_find || n_unmet ? CLI_EXIT_FINDING : CLI_EXIT_OK;
}
