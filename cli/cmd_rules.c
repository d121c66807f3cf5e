/* `fiacheck rules [--json]`: the interception rule catalogue;
 * `--profiles-differ`: only the rules whose two profiles disagree.
 * `fiacheck rules --coverage [--db PATH] [CASE...] [--profile doc|cann]
 *                           [--json]`:
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

/* r's index in the catalogue, -1 when it is not in it (a value, not an
 * error). */
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

/* Adds the store's counts; FIA_OK, or the store's status with a message. */
static fia_status add_store(const char *db, rule_count *cnt)
{
    fia_store *s = NULL;
    char err[600];
    fia_status rc = fia_store_open(db, FIA_STORE_OPEN_READONLY, &s, err,
                                   sizeof err);
    if (rc != FIA_OK) {
        fprintf(stderr, "fiacheck rules: %s\n", err);
        return rc;
    }
    db_count d = {cnt, 0, 0};
    rc = fia_store_list_rule_coverage(s, NULL, db_row, &d);
    if (rc != FIA_OK)
        fprintf(stderr, "fiacheck rules: %s\n", fia_store_errmsg(s));
    fia_store_close(s);
    return rc;
}

static const char *kind_name(const fia_rule *r)
{
    return r->kind == FIA_RULE_REJECT      ? "reject"
         : r->kind == FIA_RULE_NORMALIZE ? "normalize"
                                         : "not-modeled";
}

/* One JSON object per rule, then a summary object (docs/cli.md). */
static void print_json_row(const fia_rule *r, const rule_count *k,
                           const char *missing)
{
    printf("{\"rule\":");
    cli_json_string(stdout, r->id);
    printf(",\"feature\":");
    cli_json_string(stdout, r->feature);
    printf(",\"kind\":\"%s\",\"broken\":%lld", kind_name(r), k->broken);
    if (r->kind == FIA_RULE_REJECT)
        printf(",\"obeyed\":%lld", k->obeyed);
    printf(",\"missing\":");
    if (missing)
        printf("\"%s\"}\n", missing);
    else
        printf("null}\n");
}

static int coverage(const char **cases, int ncases, fia_profile profile,
                    const char *db, int json)
{
    size_t n = fia_rule_count();
    rule_count *cnt = calloc(n, sizeof *cnt);
    if (cnt == NULL)
        return CLI_EXIT_USAGE;
    if (db != NULL && add_store(db, cnt) != FIA_OK) {
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
            bad++;
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
    if (!json)
        printf("%-10s %-10s %-12s %8s %8s\n", "id", "feature", "kind",
               "broken", "obeyed");
    for (size_t i = 0; i < n; i++) {
        const fia_rule *r = fia_rule_at(i);
        int is_reject = r->kind == FIA_RULE_REJECT;
        const char *mark = "", *missing = NULL;
        if (r->cann_only && profile != FIA_PROFILE_CANN) {
            /* not evaluated in profile doc: nothing to miss there */
            mark = "  (profile cann only)";
        } else if (cnt[i].broken == 0) {
            miss_broken++;
            mark = "  <- never broken";
            missing = "broken";
        } else if (is_reject && cnt[i].obeyed == 0) {
            miss_obeyed++;
            mark = "  <- never obeyed";
            missing = "obeyed";
        } else {
            both++;
        }
        if (json) {
            print_json_row(r, &cnt[i], missing);
            continue;
        }
        char obeyed[24] = "-";
        if (is_reject)
            snprintf(obeyed, sizeof obeyed, "%lld", cnt[i].obeyed);
        printf("%-10s %-10s %-12s %8lld %8s%s\n", r->id, r->feature,
               kind_name(r), cnt[i].broken, obeyed, mark);
    }
    if (json) {
        printf("{\"summary\":{\"rules\":%zu,\"cases\":%d,\"store\":", n,
               ncases);
        if (db)
            cli_json_string(stdout, db);
        else
            printf("null");
        printf(",\"covered\":%d,\"never_broken\":%d,\"never_obeyed\":%d,"
               "\"bad_inputs\":%d}}\n", both, miss_broken, miss_obeyed, bad);
    } else {
        printf("%zu rules over %d cases%s%s: %d covered, %d never "
               "broken/applied, %d never obeyed\n", n, ncases,
               db ? " and the store " : "", db ? db : "", both, miss_broken,
               miss_obeyed);
    }
    free(cnt);
    return bad ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}

static const char rules_usage[] =
    "usage: fiacheck rules [--profiles-differ] [--json]\n"
    "       fiacheck rules --api NAME [--present] [--json]\n"
    "       fiacheck rules --coverage [--db PATH] [CASE...] "
    "[--profile doc|cann] [--json]\n"
    "  --json          the catalogue, or the coverage, as JSON (docs/cli.md)\n"
    "  --api NAME      the catalogue as an interface sees it (aclnn_v2,\n"
    "                  torch_npu_v2, mindspore, incre_flash_attention,\n"
    "                  torchair_v2): its parameter names, and whether each\n"
    "                  rule concerns what it has\n"
    "  --present       with --api: only the rules that do\n"
    "  --profiles-differ  only the rules whose profiles disagree (accept,\n"
    "                  reject or not modeled: doc beside cann), each with\n"
    "                  its document section and why\n"
    "  --coverage      per rule, how many cases break and obey it: the CASE\n"
    "                  files evaluated here plus the store's counts (--db)\n"
    "  --db PATH       a findings store (with --coverage)\n"
    "  --profile P     the status codes of the documents (doc, default) or\n"
    "                  of the released code (cann)\n";

static int usage(const char *why)
{
    if (why)
        fprintf(stderr, "fiacheck rules: %s\n", why);
    fputs(rules_usage, stderr);
    return CLI_EXIT_USAGE;
}

int cmd_rules(int argc, char **argv)
{
    int json = 0, cov = 0, ncases = 0, n_db = 0, n_prof = 0, n_api = 0;
    int present = 0, differ = 0;
    const char *db = NULL, *api = NULL;
    fia_profile profile = FIA_PROFILE_DOC;
    for (int i = 0; i < argc; i++)
        if (cli_is_help(argv[i])) {
            fputs(rules_usage, stdout);
            return CLI_EXIT_OK;
        }
    const char **cases = calloc((size_t)argc + 1, sizeof *cases);
    if (cases == NULL)
        return CLI_EXIT_USAGE;
    int rc = CLI_EXIT_OK;
    for (int i = 0; i < argc && rc == CLI_EXIT_OK; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--coverage") == 0) {
            cov = 1;
        } else if (strcmp(argv[i], "--profiles-differ") == 0) {
            differ = 1;
        } else if (strcmp(argv[i], "--present") == 0) {
            present = 1;
        } else if (strcmp(argv[i], "--api") == 0) {
            if (cli_once("rules", "--api", &n_api) ||
                cli_value("rules", argc, argv, &i, &api))
                rc = CLI_EXIT_USAGE;
        } else if (strcmp(argv[i], "--db") == 0) {
            if (cli_once("rules", "--db", &n_db) ||
                cli_value("rules", argc, argv, &i, &db))
                rc = CLI_EXIT_USAGE;
        } else if (strcmp(argv[i], "--profile") == 0) {
            if (cli_profile("rules", argc, argv, &i, &profile, &n_prof))
                rc = CLI_EXIT_USAGE;
        } else if (argv[i][0] != '-') {
            cases[ncases++] = argv[i];
        } else {
            fprintf(stderr, "fiacheck rules: unknown option %s\n", argv[i]);
            rc = usage(NULL);
        }
    }
    if (rc != CLI_EXIT_OK) {
    } else if (api != NULL && fia_api_from_name(api) < 0) {
        fprintf(stderr, "fiacheck rules: --api: unknown interface '%s' "
                        "(aclnn_v2, torch_npu_v2, mindspore, "
                        "incre_flash_attention, torchair_v2)\n", api);
        rc = CLI_EXIT_USAGE;
    } else if (differ && (api != NULL || cov)) {
        rc = usage("--profiles-differ goes with --json only");
    } else if (api != NULL && cov) {
        rc = usage("--api and --coverage do not go together");
    } else if (present && api == NULL) {
        rc = usage("--present goes with --api");
    } else if (!cov && (db != NULL || ncases > 0)) {
        rc = usage("--db and cases go with --coverage");
    } else if (cov && ncases == 0 && db == NULL) {
        fprintf(stderr, "fiacheck rules --coverage: give the cases to count "
                        "or a store (--db PATH)\n");
        rc = CLI_EXIT_USAGE;
    } else if (api != NULL) {
        rc = cli_rules_api((fia_api)fia_api_from_name(api), present, json);
    } else if (cov) {
        rc = coverage(cases, ncases, profile, db, json);
    } else {
        fia_rules_print_some(stdout, json, differ);
    }
    free(cases);
    return rc;
}
