/* `fiacheck minimize ID|CASE [--db PATH] [--out FILE] [--profile doc|cann]
 *                   [--target T] [--max-attempts N]`
 *
 * Shrinks a failing case while the same signature still fails (fuzz/
 * minimize.c) and writes it, with its "# fiacheck-" header, to
 * tests/regress/<name>.case (or --out).  From the store, the minimized text
 * is saved with the finding too.  Exit 0 written, 1 not failing (nothing to
 * minimize), 2 bad usage. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "fuzz/fuzz.h"
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

int cmd_minimize(int argc, char **argv)
{
    const char *arg = NULL, *db = "results/findings.db", *out = NULL,
               *prof = NULL, *tgt = NULL;
    int max_attempts = 3000;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) db = argv[++i];
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) out = argv[++i];
        else if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc) prof = argv[++i];
        else if (strcmp(argv[i], "--target") == 0 && i + 1 < argc) tgt = argv[++i];
        else if (strcmp(argv[i], "--max-attempts") == 0 && i + 1 < argc)
            max_attempts = atoi(argv[++i]);
        else if (argv[i][0] != '-' && arg == NULL) arg = argv[i];
        else arg = NULL, i = argc;
    }
    if (arg == NULL || max_attempts <= 0) {
        fprintf(stderr, "usage: fiacheck minimize ID|CASE [--db PATH] [--out FILE] "
                "[--profile doc|cann] [--target T] [--max-attempts N]\n");
        return CLI_EXIT_USAGE;
    }
    char *text;
    int64_t id;
    fia_error lerr;
    if (cli_load_finding(arg, db, 0, &text, &id, &lerr) != FIA_OK) {
        fprintf(stderr, "fiacheck: %s\n", lerr.msg);
        return CLI_EXIT_USAGE;
    }
    fuzz_sig_pred pred;
    memset(&pred, 0, sizeof pred);
    cli_finding_context(text, &pred.target, &pred.profile, pred.transform,
                        sizeof pred.transform);
    if (prof && fia_profile_parse(prof, &pred.profile) != 0)
        return free(text), CLI_EXIT_USAGE;
    if (tgt && fuzz_target_from_name(tgt) >= 0)
        pred.target = (fuzz_target_id)fuzz_target_from_name(tgt);
    char recorded[256], kind[64];
    fuzz_text_header(text, "signature", recorded, sizeof recorded);
    fia_case c;
    fia_error err;
    if (fia_case_parse_string(text, arg, &c, &err) != 0) {
        fprintf(stderr, "fiacheck minimize: %s:%d: %s\n", arg, err.line, err.msg);
        free(text);
        return CLI_EXIT_USAGE;
    }
    free(text);
    static fuzz_case_verdict v;
    if (fuzz_case_signature(&c, pred.target, pred.profile, pred.transform,
                            &v) != 1) {
        printf("%s does not fail (%s): nothing to minimize\n", arg,
               v.message[0] ? v.message : "passes");
        fia_case_free(&c);
        return CLI_EXIT_FINDING;
    }
    snprintf(pred.signature, sizeof pred.signature, "%s", v.signature);
    if (recorded[0] && strcmp(recorded, pred.signature) != 0)
        printf("note: it now fails as %s (recorded %s); keeping the new one\n",
               pred.signature, recorded);
    double before = fuzz_case_size(&c);
    int steps = fuzz_minimize(&c, fuzz_same_signature, &pred, max_attempts);
    double after = fuzz_case_size(&c);
    snprintf(kind, sizeof kind, "%.*s", (int)strcspn(pred.signature, "|"),
             pred.signature);
    char *mtext = fuzz_finding_text(&c, pred.target, fia_profile_name(pred.profile),
                                    kind, pred.signature,
                                    pred.transform[0] ? pred.transform : NULL);
    char path[512], name[128];
    if (out == NULL) {
        name_from_signature(pred.signature, name, sizeof name);
        mkdir("tests", 0777);
        mkdir("tests/regress", 0777);
        snprintf(path, sizeof path, "tests/regress/%s.case", name);
        out = path;
    }
    FILE *f = mtext ? fopen(out, "w") : NULL;
    if (f == NULL) {
        fprintf(stderr, "fiacheck minimize: cannot write %s\n", out);
        free(mtext);
        fia_case_free(&c);
        return CLI_EXIT_USAGE;
    }
    fprintf(f, "# minimized by fiacheck minimize (built from %s%s) from %s\n%s",
            cli_build_revision(), cli_build_dirty() ? ", dirty" : "", arg, mtext);
    fclose(f);
#ifdef FIA_HAVE_STORE
    if (id > 0) {
        fia_store *st = NULL;
        char e[512];
        if (fia_store_open(db, 0, &st, e, sizeof e) == FIA_STORE_OK) {
            if (fia_store_set_minimized(st, id, mtext) != FIA_STORE_OK)
                fprintf(stderr, "fiacheck minimize: %s\n", fia_store_errmsg(st));
            fia_store_close(st);
        }
    }
#endif
    printf("%s: %s\n  size %.0f -> %.0f in %d steps; written to %s\n", arg,
           pred.signature, before, after, steps, out);
    free(mtext);
    fia_case_free(&c);
    return CLI_EXIT_OK;
}
