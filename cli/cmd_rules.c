/* `fiacheck rules [--json]`: the interception rule catalogue.
 * `fiacheck rules --coverage [--db PATH] [CASE...] [--profile doc|cann]`:
 * for each rule, how many cases break it and how many obey it
 * (normalizations: how many they apply to), and which rules are missed
 * either way.  The counts are those of the store's rule_coverage table
 * (summed over its campaigns, written by the fuzz targets) plus the CASE
 * files evaluated here. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "fia/oracle.h"
#include "fia/store.h"

typedef struct rule_count {
    long long broken;   /* REJECT / NOT_MODELED fired; NORMALIZE applied */
    long long obeyed;   /* applicable and not fired */
} rule_count;

static int rule_index(const fia_rule *r)
{
    size_t n = fia_rule_count();
    for (size_t i = 0; i < n; i++)
        if (fia_rule_at(i) == r)
            return (int)i;
    return -1;
}

typedef struct db_count {
    rule_count *cnt;
    long long rows, unknown;
} db_count;

static int db_row(const char *rule_id, int64_t broken, int64_t obeyed,
                  void *ctx)
{
    db_count *d = ctx;
    const fia_rule *r = fia_rule_find(rule_id);
    d->rows++;
    if (r == NULL) {
        if (d->unknown++ < 5)
            fprintf(stderr, "fiacheck rules: the store counts rule '%s', "
                            "which the catalogue does not have\n", rule_id);
        return 0;
    }
    int i = rule_index(r);
    d->cnt[i].broken += broken;
    d->cnt[i].obeyed += obeyed;
    return 0;
}

/* Adds the store's counts; 0, or -1 with a message. */
static int add_store(const char *db, rule_count *cnt)
{
    fia_store *s = NULL;
    char err[600];
    if (fia_store_open(db, FIA_STORE_OPEN_READONLY, &s, err, sizeof err) != FIA_STORE_OK) {
        fprintf(stderr, "fiacheck rules: %s\n", err);
        return -1;
    }
    db_count d = {cnt, 0, 0};
    int rc = fia_store_list_rule_coverage(s, NULL, db_row, &d);
    if (rc != FIA_STORE_OK)
        fprintf(stderr, "fiacheck rules: %s\n", fia_store_errmsg(s));
    fia_store_close(s);
    return rc == FIA_STORE_OK ? 0 : -1;
}

static int coverage(const char **cases, int ncases, fia_profile profile,
                    const char *db)
{
    size_t n = fia_rule_count();
    rule_count *cnt = calloc(n, sizeof *cnt);
    if (cnt == NULL)
        return CLI_EXIT_USAGE;
    if (db != NULL && add_store(db, cnt) != 0) {
        free(cnt);
        return CLI_EXIT_USAGE;
    }
    int bad = 0;
    for (int k = 0; k < ncases; k++) {
        fia_case c;
        fia_error err;
        fia_oracle_verdict v;
        if (fia_case_parse_file(cases[k], &c, &err) != 0) {
            fprintf(stderr, "%s:%d: %s\n", err.file, err.line, err.msg);
            bad = 1;
            continue;
        }
        if (fia_oracle_evaluate(&c, profile, &v, NULL) == 0) {
            for (int i = 0; i < v.n_fired; i++)
                cnt[rule_index(v.fired[i])].broken++;
            for (int i = 0; i < v.n_normalized; i++)
                cnt[rule_index(v.normalized[i])].broken++;
            for (int i = 0; i < v.n_obeyed; i++)
                cnt[rule_index(v.obeyed[i])].obeyed++;
        }
        fia_case_free(&c);
    }
    int both = 0, miss_broken = 0, miss_obeyed = 0;
    printf("%-10s %-10s %-12s %8s %8s\n", "id", "feature", "kind", "broken",
           "obeyed");
    for (size_t i = 0; i < n; i++) {
        const fia_rule *r = fia_rule_at(i);
        int is_reject = r->kind == FIA_RULE_REJECT;
        const char *mark = "";
        if (cnt[i].broken == 0) {
            miss_broken++;
            mark = "  <- never broken";
        } else if (is_reject && cnt[i].obeyed == 0) {
            miss_obeyed++;
            mark = "  <- never obeyed";
        } else {
            both++;
        }
        char obeyed[24] = "-";
        if (is_reject)
            snprintf(obeyed, sizeof obeyed, "%lld", cnt[i].obeyed);
        printf("%-10s %-10s %-12s %8lld %8s%s\n", r->id, r->feature,
               r->kind == FIA_RULE_REJECT      ? "reject"
               : r->kind == FIA_RULE_NORMALIZE ? "normalize"
                                               : "not-modeled",
               cnt[i].broken, obeyed, mark);
    }
    printf("%zu rules over %d cases%s%s: %d covered, %d never "
           "broken/applied, %d never obeyed\n", n, ncases,
           db ? " and the store " : "", db ? db : "", both, miss_broken,
           miss_obeyed);
    free(cnt);
    return bad ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}

int cmd_rules(int argc, char **argv)
{
    int json = 0, cov = 0, ncases = 0;
    const char *db = NULL;
    fia_profile profile = FIA_PROFILE_DOC;
    const char **cases = calloc((size_t)argc + 1, sizeof *cases);
    if (cases == NULL)
        return CLI_EXIT_USAGE;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--coverage") == 0) {
            cov = 1;
        } else if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
            db = argv[++i];
        } else if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc &&
                   fia_profile_parse(argv[i + 1], &profile) == 0) {
            i++;
        } else if (cov && argv[i][0] != '-') {
            cases[ncases++] = argv[i];
        } else {
            fprintf(stderr, "usage: fiacheck rules [--json]\n"
                            "       fiacheck rules --coverage [--db PATH] "
                            "[CASE...] [--profile doc|cann]\n");
            free(cases);
            return CLI_EXIT_USAGE;
        }
    }
    int rc = CLI_EXIT_OK;
    if (db != NULL && !cov) {
        fprintf(stderr, "fiacheck rules: --db goes with --coverage\n");
        rc = CLI_EXIT_USAGE;
    } else if (cov && ncases == 0 && db == NULL) {
        fprintf(stderr, "fiacheck rules --coverage: give the cases to count "
                        "or a store (--db PATH)\n");
        rc = CLI_EXIT_USAGE;
    } else if (cov) {
        rc = coverage(cases, ncases, profile, db);
    } else {
        fia_rules_print(stdout, json);
    }
    free(cases);
    return rc;
}
