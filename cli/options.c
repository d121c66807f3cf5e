/* Option parsing shared by the subcommands: help, values that must parse,
 * options that may be given once, the tolerance profile.  Every function
 * that can fail says why on stderr (prefixed "fiacheck CMD: ": the user is
 * the one to tell) and returns FIA_ERR_BAD_INPUT; the caller then exits with
 * CLI_EXIT_USAGE. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"

int cli_is_help(const char *a)
{
    return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
}

fia_status cli_once(const char *cmd, const char *opt, int *seen)
{
    if ((*seen)++ == 0)
        return FIA_OK;
    fprintf(stderr, "fiacheck %s: %s given twice\n", cmd, opt);
    return FIA_ERR_BAD_INPUT;
}

fia_status cli_value(const char *cmd, int argc, char **argv, int *i,
                     const char **v)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "fiacheck %s: %s wants a value\n", cmd, argv[*i]);
        return FIA_ERR_BAD_INPUT;
    }
    *v = argv[++*i];
    return FIA_OK;
}

fia_status cli_long(const char *cmd, const char *opt, const char *v, long lo,
                    long hi, long *out)
{
    char *end = NULL;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || *end != '\0' || errno != 0 || x < lo || x > hi) {
        fprintf(stderr, "fiacheck %s: %s takes a whole number in %ld..%ld, "
                "not '%s'\n", cmd, opt, lo, hi, v);
        return FIA_ERR_BAD_INPUT;
    }
    *out = x;
    return FIA_OK;
}

fia_status cli_profile(const char *cmd, int argc, char **argv, int *i,
                       fia_profile *p, int *seen)
{
    const char *v;
    if (cli_once(cmd, "--profile", seen) || cli_value(cmd, argc, argv, i, &v))
        return FIA_ERR_BAD_INPUT;
    if (fia_profile_parse(v, p) != 0) {
        fprintf(stderr, "fiacheck %s: --profile takes doc or cann, not '%s'\n",
                cmd, v);
        return FIA_ERR_BAD_INPUT;
    }
    return FIA_OK;
}

const char *cli_tolerance_names(void)
{
    static char names[160];
    if (names[0] == '\0') {
        size_t k = 0;
        for (int i = 0; i < FIA_TOL_COUNT; i++)
            if (i != FIA_TOL_ALLCLOSE)
                k += (size_t)snprintf(names + k, sizeof names - k, "%s|",
                                      fia_tol_profile_name((fia_tol_profile)i));
        snprintf(names + k, sizeof names - k, "%s RTOL ATOL",
                 fia_tol_profile_name(FIA_TOL_ALLCLOSE));
    }
    return names;
}

/* --tolerance NAME, or --tolerance allclose RTOL ATOL. */
fia_status cli_tolerance(const char *cmd, int argc, char **argv, int *i,
                         fia_check_options *o, int *seen)
{
    const char *v;
    if (cli_once(cmd, "--tolerance", seen) || cli_value(cmd, argc, argv, i, &v))
        return FIA_ERR_BAD_INPUT;
    if (fia_tol_profile_parse(v, &o->tolerance) != 0) {
        fprintf(stderr, "fiacheck %s: --tolerance takes one of %s, not "
                "'%s'\n", cmd, cli_tolerance_names(), v);
        return FIA_ERR_BAD_INPUT;
    }
    if (o->tolerance != FIA_TOL_ALLCLOSE)
        return FIA_OK;
    char *e1 = NULL, *e2 = NULL;
    if (*i + 2 < argc) {
        o->rtol = strtod(argv[*i + 1], &e1);
        o->atol = strtod(argv[*i + 2], &e2);
    }
    if (*i + 2 >= argc || e1 == argv[*i + 1] || *e1 != '\0' ||
        e2 == argv[*i + 2] || *e2 != '\0' || !(o->rtol >= 0) ||
        !(o->atol >= 0)) {
        fprintf(stderr, "fiacheck %s: --tolerance allclose takes RTOL ATOL "
                "(numbers >= 0)\n", cmd);
        return FIA_ERR_BAD_INPUT;
    }
    *i += 2;
    return FIA_OK;
}

void cli_tolerance_text(const fia_check_options *o, char *out, size_t len)
{
    if (o->tolerance == FIA_TOL_ALLCLOSE)
        snprintf(out, len, "allclose %.17g %.17g", o->rtol, o->atol);
    else
        snprintf(out, len, "%s", fia_tol_profile_name(o->tolerance));
}

fia_status cli_tolerance_from_text(const char *text, fia_check_options *o)
{
    char name[32];
    double r = 0, a = 0;
    int n = sscanf(text, "%31s %lf %lf", name, &r, &a);
    if (n < 1 || fia_tol_profile_parse(name, &o->tolerance) != 0)
        return FIA_ERR_BAD_INPUT;
    if (o->tolerance == FIA_TOL_ALLCLOSE) {
        if (n != 3 || !(r >= 0) || !(a >= 0))
            return FIA_ERR_BAD_INPUT;
        o->rtol = r, o->atol = a;
    }
    return FIA_OK;
}

/* At most one live line a second (cli_live_print); the last row ends
 * the line.  A short computation prints nothing: the first report waits
 * for two seconds to pass. */
void cli_ref_progress(int64_t done, int64_t total, void *ctx)
{
    static time_t started, last;
    static const void *current;
    time_t now = time(NULL);
    if (current != ctx || done == 1) {
        current = ctx;
        started = last = now;
    }
    int end = done >= total;
    if ((now == last || now - started < 2) && !(end && last != started))
        return;
    last = now;
    char line[1200];
    snprintf(line, sizeof line, "fiacheck: reference of %s: row %lld of %lld "
             "(%.0f%%), %lld s", (const char *)ctx, (long long)done,
             (long long)total,
             total > 0 ? 100.0 * (double)done / (double)total : 100.0,
             (long long)(now - started));
    cli_live_print(line);
    if (end)
        cli_live_end();
}

fia_status cli_finding_args(const char *cmd, int minimize, int argc,
                            char **argv, cli_finding_opts *o)
{
    memset(o, 0, sizeof *o);
    o->db = "results/findings.db";
    o->target = -1;
    o->max_attempts = 3000;
    fia_check_options_default(&o->check);
    int n_db = 0, n_out = 0, n_tgt = 0, n_max = 0;
    const char *v;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(a, "--db") == 0) {
            if (cli_once(cmd, a, &n_db) || cli_value(cmd, argc, argv, &i, &o->db))
                return FIA_ERR_BAD_INPUT;
        } else if (strcmp(a, "--profile") == 0) {
            if (cli_profile(cmd, argc, argv, &i, &o->profile, &o->profile_given))
                return FIA_ERR_BAD_INPUT;
        } else if (strcmp(a, "--tolerance") == 0) {
            if (cli_tolerance(cmd, argc, argv, &i, &o->check,
                              &o->tolerance_given))
                return FIA_ERR_BAD_INPUT;
        } else if (strcmp(a, "--target") == 0) {
            if (cli_once(cmd, a, &n_tgt) || cli_value(cmd, argc, argv, &i, &v))
                return FIA_ERR_BAD_INPUT;
            if ((o->target = fuzz_target_from_name(v)) < 0) {
                fprintf(stderr, "fiacheck %s: --target takes params, numeric "
                        "or metamorphic, not '%s'\n", cmd, v);
                return FIA_ERR_BAD_INPUT;
            }
        } else if (minimize && strcmp(a, "--out") == 0) {
            if (cli_once(cmd, a, &n_out) ||
                cli_value(cmd, argc, argv, &i, &o->out))
                return FIA_ERR_BAD_INPUT;
        } else if (minimize && strcmp(a, "--max-attempts") == 0) {
            if (cli_once(cmd, a, &n_max) ||
                cli_value(cmd, argc, argv, &i, &v) ||
                cli_long(cmd, a, v, 1, 100000000, &o->max_attempts))
                return FIA_ERR_BAD_INPUT;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "fiacheck %s: unknown option %s\n", cmd, a);
            return FIA_ERR_BAD_INPUT;
        } else if (o->arg != NULL) {
            fprintf(stderr, "fiacheck %s: one finding at a time\n", cmd);
            return FIA_ERR_BAD_INPUT;
        } else {
            o->arg = a;
        }
    }
    if (o->arg == NULL) {
        fprintf(stderr, "fiacheck %s: give a finding id or a case file\n",
                cmd);
        return FIA_ERR_BAD_INPUT;
    }
    return FIA_OK;
}
