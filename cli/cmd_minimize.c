/* `fiacheck minimize ID|CASE [--db PATH] [--out FILE] [--profile doc|cann]
 *                   [--target T] [--max-attempts N] [--tolerance T] [--json]`
 *
 * Shrinks a failing case while the same signature still fails (fuzz/
 * minimize.c) and writes it, with its "# fiacheck-" header, to
 * tests/regress/<name>.case (or --out).  From the store, the minimized text
 * is saved with the finding too.  A tolerance other than bound (given with
 * --tolerance or read from the finding) is written as a
 * "# fiacheck-tolerance:" line, so repro judges it the same way.  Exit 0
 * written, or not failing (nothing to minimize: not a finding), 2 bad usage
 * or input. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "fuzz/fuzz.h"
#include "fuzz/signature.h"
#ifdef FIA_HAVE_STORE
#include "fia/store.h"
#endif

static void name_from_signature(const char *sig, char *out, size_t len)
{
    size_t k = 0;
    int dash = 0;
    for (const char *p = sig; *p && k + 1 < len && k < 80; p++) {
        if (isalnum((unsigned char)*p)) {
            out[k++] = (char)tolower((unsigned char)*p);
            dash = 0;
        } else if (!dash && k > 0) {
            out[k++] = '-';
            dash = 1;
        }
    }
    while (k > 0 && out[k - 1] == '-')
        k--;
    out[k] = '\0';
    unsigned h = 2166136261u;
    for (const char *p = sig; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    snprintf(out + k, len - k, "-%06x", h & 0xffffff);
}

/* a format: %s the tolerance names (cli_tolerance_names) */
static const char minimize_usage[] =
    "usage: fiacheck minimize ID|CASE [--db PATH] [--out FILE] "
    "[--profile doc|cann]\n"
    "                         [--target params|numeric|metamorphic] "
    "[--max-attempts N]\n"
    "                         [--tolerance %s]\n"
    "                         [--json]\n"
    "  ID|CASE         a finding of the store (its id) or a case file\n"
    "  --db PATH       the store (default results/findings.db)\n"
    "  --out FILE      where to write (default tests/regress/<name>.case)\n"
    "  --profile P     status codes: doc or cann (default: the finding's)\n"
    "  --target T      judge as this fuzz target (default: the finding's)\n"
    "  --max-attempts N  at most N trial cases (default 3000)\n"
    "  --tolerance T   the accuracy criterion (default: the finding's, or\n"
    "                  bound; docs/tolerance.md)\n"
    "  --json          one JSON object (docs/cli.md)\n"
    "  --sut PATH      the plug-in the finding was made with (docs/sut.md)\n"
    "  --no-isolate    call the plug-in in-process (default: each call in a\n"
    "                  child process, a crash or hang a finding; --isolate\n"
    "                  does so for fast/ too)\n"
    "  --timeout S     seconds a call out of process may take (default 60)\n"
    "exit status: 0 written, or nothing to minimize (it does not fail);\n"
    "2 bad usage or input\n";

/* The minimized case keeps the intents it still meets, judged as `run`
 * judges them, and drops the others (said on stderr unless json): the
 * shrinking may take away what an intent promised (ragged lengths, a GQA
 * group), and a kept unmet intent would make the case fail as
 * intent-unmet for ever, also once its bug is fixed, so it could not go
 * into tests/regress/.  An intent that cannot be checked (met -1) stays. */
static void rederive_intents(fia_case *c, const fia_check_options *o,
                             int json)
{
    if (c->intents == 0)
        return;
    fia_check_result *r = calloc(1, sizeof *r);
    if (r == NULL)
        return;
    fia_check_case(c, o, r);
    for (int i = 0; i < r->n_intents; i++) {
        const fia_intent_result *ir = &r->intents[i];
        if (ir->met != 0)
            continue;
        c->intents &= ~(1u << ir->intent);
        if (!json)
            fprintf(stderr, "fiacheck minimize: intent %s dropped: the "
                    "minimized case no longer has it (%s)\n",
                    fia_intent_name(ir->intent), ir->found);
    }
    fia_check_result_release(r);
    free(r);
}

/* Writes the minimized case c to out (and to the store when id > 0); the
 * exit code. */
static int write_minimized(const fia_case *c, const fuzz_sig_pred *pred,
                           const fia_check_options *o, const char *arg,
                           const char *db, int64_t id, const char *out)
{
    char kind[64], tol[96];
    const char *body = fuzz_signature_body(pred->signature);
    snprintf(kind, sizeof kind, "%.*s", (int)strcspn(body, "|"), body);
    char *mtext = fuzz_finding_text(c, pred->target,
                                    fia_profile_name(pred->profile), kind,
                                    pred->signature,
                                    pred->transform[0] ? pred->transform : NULL);
    FILE *f = mtext ? fopen(out, "w") : NULL;
    if (f == NULL) {
        fprintf(stderr, "fiacheck minimize: cannot write %s\n", out);
        free(mtext);
        return CLI_EXIT_USAGE;
    }
    /* the tolerance it fails under, for repro (the store's text keeps the
     * fuzz header alone: a campaign judges under the default) */
    cli_tolerance_text(o, tol, sizeof tol);
    fprintf(f, "# minimized by fiacheck minimize (built from %s%s) from %s\n",
            cli_build_revision(), cli_build_dirty() ? ", dirty" : "", arg);
    if (o->tolerance != FIA_TOL_BOUND)
        fprintf(f, "# fiacheck-tolerance: %s\n", tol);
    fputs(mtext, f);
    fclose(f);
#ifdef FIA_HAVE_STORE
    if (id > 0) {
        fia_store *st = NULL;
        char e[512];
        if (fia_store_open(db, 0, &st, e, sizeof e) == FIA_OK) {
            if (fia_store_set_minimized(st, id, mtext) != FIA_OK)
                fprintf(stderr, "fiacheck minimize: %s\n", fia_store_errmsg(st));
            fia_store_close(st);
        }
    }
#else
    (void)db, (void)id;
#endif
    free(mtext);
    return CLI_EXIT_OK;
}

int cmd_minimize(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (cli_is_help(argv[i])) {
            printf(minimize_usage, cli_tolerance_names());
            return CLI_EXIT_OK;
        }
    cli_finding_opts fo;
    if (cli_finding_args("minimize", 1, argc, argv, &fo) != 0) {
        fprintf(stderr, minimize_usage, cli_tolerance_names());
        return CLI_EXIT_USAGE;
    }
    char *text;
    int64_t id;
    fia_error err;
    if (cli_load_finding(fo.arg, fo.db, 0, &text, &id, &err) != FIA_OK) {
        char why[700];
        fprintf(stderr, "fiacheck minimize: %s\n",
                fia_error_text(&err, why, sizeof why));
        return CLI_EXIT_USAGE;
    }
    fuzz_sig_pred pred;
    memset(&pred, 0, sizeof pred);
    fia_check_options o;
    if (cli_finding_options(text, &fo, &pred.target, &o, pred.transform,
                            sizeof pred.transform) != FIA_OK) {
        free(text);
        return CLI_EXIT_USAGE;
    }
    pred.profile = o.profile;
    pred.check = &o;
    char recorded[256];
    fuzz_text_header(text, "signature", recorded, sizeof recorded);
    fia_case c;
    if (fia_case_parse_string(text, fo.arg, &c, &err) != 0) {
        fprintf(stderr, "fiacheck minimize: %s:%d: %s\n", fo.arg, err.line,
                err.msg);
        free(text);
        return CLI_EXIT_USAGE;
    }
    free(text);
    static fuzz_case_verdict v;
    if (fuzz_case_judge(&c, pred.target, &o, pred.transform, &v) != 1) {
        /* not a finding and not an error: the answer is "nothing to do" */
        if (fo.json) {
            printf("{\"case\":");
            cli_json_string(stdout, fo.arg);
            printf(",\"fails\":false,\"message\":");
            cli_json_string(stdout, v.message[0] ? v.message : "passes");
            printf("}\n");
        } else {
            printf("%s does not fail (%s): nothing to minimize\n", fo.arg,
                   v.message[0] ? v.message : "passes");
        }
        fia_case_free(&c);
        return CLI_EXIT_OK;
    }
    snprintf(pred.signature, sizeof pred.signature, "%s", v.signature);
    if (recorded[0] && strcmp(recorded, pred.signature) != 0 && !fo.json)
        printf("note: it now fails as %s (recorded %s); keeping the new one\n",
               pred.signature, recorded);
    double before = fuzz_case_size(&c);
    int steps = fuzz_minimize(&c, fuzz_same_signature, &pred,
                              (int)fo.max_attempts);
    double after = fuzz_case_size(&c);
    char path[512];
    const char *out = fo.out;
    if (out == NULL) {
        char name[128];
        name_from_signature(pred.signature, name, sizeof name);
        mkdir("tests", 0777);
        mkdir("tests/regress", 0777);
        snprintf(path, sizeof path, "tests/regress/%s.case", name);
        out = path;
    }
    rederive_intents(&c, &o, fo.json);
    int rc = write_minimized(&c, &pred, &o, fo.arg, fo.db, id, out);
    if (rc == CLI_EXIT_OK && fo.json) {
        printf("{\"case\":");
        cli_json_string(stdout, fo.arg);
        printf(",\"fails\":true,\"signature\":");
        cli_json_string(stdout, pred.signature);
        printf(",\"size_before\":%.0f,\"size_after\":%.0f,\"steps\":%d,"
               "\"out\":", before, after, steps);
        cli_json_string(stdout, out);
        printf("}\n");
    } else if (rc == CLI_EXIT_OK) {
        printf("%s: %s\n  size %.0f -> %.0f in %d steps; written to %s\n",
               fo.arg, pred.signature, before, after, steps, out);
    }
    fia_case_free(&c);
    return rc;
}
