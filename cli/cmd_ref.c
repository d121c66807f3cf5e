/* `fiacheck ref CASE --out FILE [--precision BITS] [--progress]`
 *
 * Writes the reference output as text: one value per line in row-major order
 * of attention_out (the correctly rounded value, %.9g, which round-trips
 * fp16/bf16/fp32), the word `unspecified` where the documents leave the
 * element undefined; then, when softmax_lse is requested, a line `lse` and
 * its values the same way. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "fia/check.h"
#include "fia/oracle.h"
#include "fia/ref.h"

static void write_values(FILE *f, const fia_tensor *t, int64_t n,
                         const uint8_t *unspecified)
{
    for (int64_t i = 0; i < n; i++) {
        if (unspecified && unspecified[i])
            fputs("unspecified\n", f);
        else
            fprintf(f, "%.9g\n", fia_load_as_double(t->dtype, t->data, i));
    }
}

static const char ref_usage[] =
    "usage: fiacheck ref CASE --out FILE [--precision BITS] [--progress]\n"
    "  --out FILE      where the values go: one per line, row-major, "
    "\"unspecified\"\n"
    "                  where the documents leave an element undefined; then\n"
    "                  \"lse\" and softmax_lse's values when requested\n"
    "  --precision B   the first MPFR precision in bits (64..100000)\n"
    "  --progress      progress on stderr (default when stderr is a "
    "terminal)\n";

static int usage(void)
{
    fputs(ref_usage, stderr);
    return CLI_EXIT_USAGE;
}

int cmd_ref(int argc, char **argv)
{
    const char *case_path = NULL, *out_path = NULL, *pv;
    long precision = 0;
    int n_out = 0, n_prec = 0, progress = isatty(STDERR_FILENO);
    for (int i = 0; i < argc; i++)
        if (cli_is_help(argv[i])) {
            fputs(ref_usage, stdout);
            return CLI_EXIT_OK;
        }
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0) {
            if (cli_once("ref", "--out", &n_out) ||
                cli_value("ref", argc, argv, &i, &out_path))
                return CLI_EXIT_USAGE;
        } else if (strcmp(argv[i], "--precision") == 0) {
            if (cli_once("ref", "--precision", &n_prec) ||
                cli_value("ref", argc, argv, &i, &pv) ||
                cli_long("ref", "--precision", pv, 64, 100000, &precision))
                return CLI_EXIT_USAGE;
        } else if (strcmp(argv[i], "--progress") == 0) {
            progress = 1;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "fiacheck ref: unknown option %s\n", argv[i]);
            return usage();
        } else if (case_path != NULL) {
            fprintf(stderr, "fiacheck ref: one case at a time\n");
            return usage();
        } else {
            case_path = argv[i];
        }
    }
    if (case_path == NULL || out_path == NULL) {
        fprintf(stderr, "fiacheck ref: %s\n", case_path ? "no --out FILE"
                                                         : "no CASE");
        return usage();
    }
    fia_case c;
    fia_error err;
    if (fia_case_parse_file(case_path, &c, &err) != 0) {
        fprintf(stderr, "%s:%d: %s\n", err.file, err.line, err.msg);
        return CLI_EXIT_USAGE;
    }
    fia_oracle_verdict v;
    if (fia_oracle_evaluate(&c, FIA_PROFILE_DOC, &v, NULL) != 0 || !v.accept) {
        fprintf(stderr, "fiacheck ref: %s: the operator rejects this case "
                "(expected %d %s%s%s); there is no output to compute\n",
                case_path, v.expected, fia_status_name(v.expected),
                v.n_fired ? ", rule " : "", v.n_fired ? v.fired[0]->id : "");
        fia_case_free(&c);
        return CLI_EXIT_USAGE;
    }
    double work = fia_check_reference_work(&c);
    if (work > FIA_CHECK_MAX_REF_WORK) {
        fprintf(stderr, "fiacheck ref: %s: too large for the reference: about "
                "%.3g multiply-adds (limit %.3g)\n", case_path, work,
                FIA_CHECK_MAX_REF_WORK);
        fia_case_free(&c);
        return CLI_EXIT_USAGE;
    }
    fia_case_data d;
    if (fia_case_materialize(&c, 1, &d, &err) != 0) {
        fprintf(stderr, "fiacheck ref: %s: %s\n", case_path, err.msg);
        fia_case_free(&c);
        return CLI_EXIT_USAGE;
    }
    fia_ref_options ro;
    fia_ref_options_default(&ro);
    if (precision > 0)
        ro.precision_bits = precision;
    if (progress) {
        ro.progress = cli_ref_progress;
        ro.progress_ctx = (void *)case_path;
    }
    fia_ref_result r;
    memset(&r, 0, sizeof r);
    fia_error rerr;
    fia_status st = fia_ref_compute(&c, &d, &ro, &r, &rerr);
    int rc = CLI_EXIT_OK;
    if (st != FIA_OK) {
        fprintf(stderr, "fiacheck ref: %s: %d %s: %s\n", case_path, st,
                fia_status_name(st), rerr.msg);
        rc = CLI_EXIT_USAGE;
    } else {
        FILE *f = fopen(out_path, "w");
        if (f == NULL) {
            perror(out_path);
            rc = CLI_EXIT_USAGE;
        } else {
            write_values(f, &r.out, r.out_numel, r.out_unspecified);
            if (r.has_lse) {
                fputs("lse\n", f);
                write_values(f, &r.lse, r.lse_numel, r.lse_unspecified);
            }
            if (fclose(f) != 0) {
                perror(out_path);
                rc = CLI_EXIT_USAGE;
            }
        }
    }
    fia_ref_result_free(&r);
    fia_case_data_free(&d);
    fia_case_free(&c);
    return rc;
}
