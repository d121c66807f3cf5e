/* `fiacheck rules [--json]`: the interception rule catalogue.
 * `fiacheck rules --coverage CASE... [--profile doc|cann]`: for each rule,
 * how many of the cases break it and how many obey it (normalizations: how
 * many they apply to), and which rules the cases miss either way. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "fia/oracle.h"

typedef struct rule_count {
    int broken;   /* REJECT / NOT_MODELED fired; NORMALIZE applied */
    int obeyed;   /* applicable and not fired */
} rule_count;

static int rule_index(const fia_rule *r)
{
    size_t n = fia_rule_count();
    for (size_t i = 0; i < n; i++)
        if (fia_rule_at(i) == r)
            return (int)i;
    return -1;
}

static int coverage(const char **cases, int ncases, fia_profile profile)
{
    size_t n = fia_rule_count();
    rule_count *cnt = calloc(n, sizeof *cnt);
    if (cnt == NULL)
        return CLI_EXIT_USAGE;
    int bad = 0;
    for (int k = 0; k < ncases; k++) {
        fia_case c;
        fia_case_error err;
        fia_oracle_verdict v;
        if (fia_case_parse_file(cases[k], &c, &err) != 0) {
            fprintf(stderr, "%s:%d: %s\n", err.file, err.line, err.msg);
            bad = 1;
            continue;
        }
        if (fia_oracle_evaluate(&c, profile, &v) == 0) {
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
        char obeyed[16] = "-";
        if (is_reject)
            snprintf(obeyed, sizeof obeyed, "%d", cnt[i].obeyed);
        printf("%-10s %-10s %-12s %8d %8s%s\n", r->id, r->feature,
               r->kind == FIA_RULE_REJECT      ? "reject"
               : r->kind == FIA_RULE_NORMALIZE ? "normalize"
                                               : "not-modeled",
               cnt[i].broken, obeyed, mark);
    }
    printf("%zu rules over %d cases: %d covered, %d never broken/applied, "
           "%d never obeyed\n", n, ncases, both, miss_broken, miss_obeyed);
    free(cnt);
    return bad ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}

int cmd_rules(int argc, char **argv)
{
    int json = 0, cov = 0, ncases = 0;
    fia_profile profile = FIA_PROFILE_DOC;
    const char **cases = calloc((size_t)argc + 1, sizeof *cases);
    if (cases == NULL)
        return CLI_EXIT_USAGE;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--coverage") == 0) {
            cov = 1;
        } else if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc &&
                   fia_profile_parse(argv[i + 1], &profile) == 0) {
            i++;
        } else if (cov && argv[i][0] != '-') {
            cases[ncases++] = argv[i];
        } else {
            fprintf(stderr, "usage: fiacheck rules [--json]\n"
                            "       fiacheck rules --coverage CASE... "
                            "[--profile doc|cann]\n");
            free(cases);
            return CLI_EXIT_USAGE;
        }
    }
    int rc = CLI_EXIT_OK;
    if (cov && ncases == 0) {
        fprintf(stderr, "fiacheck rules --coverage: give the cases to count\n");
        rc = CLI_EXIT_USAGE;
    } else if (cov) {
        rc = coverage(cases, ncases, profile);
    } else {
        fia_rules_print(stdout, json);
    }
    free(cases);
    return rc;
}
