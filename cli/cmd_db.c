/* `fiacheck db ...`: the findings store (results/findings.db by default).
 * Timestamps are unix seconds in JSON and ISO-8601 UTC in text. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "fia/store.h"

#define DB_DEFAULT "results/findings.db"

static const char db_usage[] =
    "usage: fiacheck db COMMAND [--db PATH] [--json]   (PATH default "
    DB_DEFAULT ")\n"
    "  db init                         create an empty store\n"
    "  db findings [--state S] [--kind K] [--target T] [--revision R]\n"
    "  db show ID                      one finding with its case text\n"
    "  db stats                        campaigns, findings, accuracy\n"
    "  db regressions --base REV --head REV [--margin-rel X] "
    "[--margin-abs ULP]\n"
    "      new signatures at HEAD, fixed ones seen again, buckets whose max\n"
    "      or mean ULP at HEAD > BASE * (1 + X) + ULP (default X 0.05, "
    "ULP 0.5)\n"
    "      exit 1 when anything regressed (for CI gates)\n"
    "  db mark ID fixed|open           triage a finding\n"
    "  db merge INTO.db FROM.db...     add FROM into INTO (created if "
    "missing);\n"
    "                                  or: db merge --db INTO.db FROM.db...\n"
    "  db export --json                every row of every table, JSON lines\n"
    "exit status: 0 ok, 1 regressions found, 2 bad usage or input\n";

typedef struct db_opts {
    const char *db;
    int json;
    fia_store_filter filter;
    const char *base, *head;
    double margin_rel, margin_abs;
    const char *pos[64];
    int npos;
    int db_given;
} db_opts;

static int usage_error(const char *why)
{
    if (why)
        fprintf(stderr, "fiacheck db: %s\n", why);
    fputs(db_usage, stderr);
    return CLI_EXIT_USAGE;
}

static int parse_opts(int argc, char **argv, db_opts *o)
{
    memset(o, 0, sizeof *o);
    o->db = DB_DEFAULT;
    o->margin_rel = FIA_STORE_ULP_MARGIN_REL;
    o->margin_abs = FIA_STORE_ULP_MARGIN_ABS;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        const char **slot = NULL;
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
            continue;
        }
        if (strcmp(a, "--db") == 0) {
            slot = &o->db;
            o->db_given = 1;
        } else if (strcmp(a, "--state") == 0) {
            slot = &o->filter.state;
        } else if (strcmp(a, "--kind") == 0) {
            slot = &o->filter.kind;
        } else if (strcmp(a, "--target") == 0) {
            slot = &o->filter.target;
        } else if (strcmp(a, "--revision") == 0) {
            slot = &o->filter.revision;
        } else if (strcmp(a, "--base") == 0) {
            slot = &o->base;
        } else if (strcmp(a, "--head") == 0) {
            slot = &o->head;
        } else if (strcmp(a, "--margin-rel") == 0 ||
                   strcmp(a, "--margin-abs") == 0) {
            char *end;
            double d = v ? strtod(v, &end) : -1;
            if (v == NULL || *end != '\0' || !(d >= 0)) {
                fprintf(stderr, "fiacheck db: %s wants a number >= 0\n", a);
                return -1;
            }
            *(a[9] == 'r' ? &o->margin_rel : &o->margin_abs) = d;
            i++;
            continue;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "fiacheck db: unknown option %s\n", a);
            return -1;
        } else {
            if (o->npos == (int)(sizeof o->pos / sizeof o->pos[0])) {
                fprintf(stderr, "fiacheck db: too many arguments\n");
                return -1;
            }
            o->pos[o->npos++] = a;
            continue;
        }
        if (v == NULL) {
            fprintf(stderr, "fiacheck db: %s wants a value\n", a);
            return -1;
        }
        *slot = v;
        i++;
    }
    return 0;
}

static fia_store *open_store(const char *path, int create)
{
    fia_store *s = NULL;
    char err[600];
    int rc = fia_store_open(path, create, &s, err, sizeof err);
    if (rc != FIA_STORE_OK) {
        fprintf(stderr, "fiacheck db: %s\n", err);
        if (rc == FIA_STORE_ERR_IO && !create)
            fprintf(stderr, "fiacheck db: (a store is created by fiacheck "
                            "fuzz or fiacheck db init)\n");
        return NULL;
    }
    return s;
}

static int store_error(fia_store *s)
{
    fprintf(stderr, "fiacheck db: %s\n", fia_store_errmsg(s));
    fia_store_close(s);
    return CLI_EXIT_USAGE;
}

static void iso(char *buf, size_t n, int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (gmtime_r(&tt, &tm) == NULL || strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ",
                                               &tm) == 0)
        snprintf(buf, n, "%lld", (long long)t);
}

static void json_num(const char *key, double v)
{
    if (v == v && v - v == 0) /* finite */
        printf(",\"%s\":%.17g", key, v);
    else
        printf(",\"%s\":null", key);
}

static void json_kv(const char *key, const char *v)
{
    printf(",\"%s\":", key);
    if (v)
        cli_json_string(stdout, v);
    else
        fputs("null", stdout);
}

/* The fields of a finding, without braces (full: with the texts). */
static void finding_json(const fia_store_finding *f, int full)
{
    printf("\"id\":%lld", (long long)f->id);
    json_kv("signature", f->signature);
    json_kv("kind", f->kind);
    json_kv("state", f->state);
    json_kv("target", f->target);
    json_kv("profile", f->profile);
    json_kv("revision", f->revision);
    json_kv("last_revision", f->last_revision);
    printf(",\"campaign_id\":%lld,\"first_seen\":%lld,\"last_seen\":%lld,"
           "\"count\":%lld,\"seed\":%llu,\"minimized\":%s",
           (long long)f->campaign_id, (long long)f->first_seen,
           (long long)f->last_seen, (long long)f->count,
           (unsigned long long)f->seed, f->minimized_text ? "true" : "false");
    if (full) {
        printf(",\"state_changed\":%lld", (long long)f->state_changed);
        json_kv("metrics_json", f->metrics_json);
        json_kv("message", f->message);
        json_kv("case_text", f->case_text);
        json_kv("minimized_text", f->minimized_text);
    }
}

static void finding_header(void)
{
    printf("%5s %-9s %6s %-15s %-20s %s\n", "id", "state", "count", "kind",
           "last_seen", "signature");
}

static void finding_line(const fia_store_finding *f)
{
    char last[32];
    iso(last, sizeof last, f->last_seen);
    printf("%5lld %-9s %6lld %-15s %-20s %s\n", (long long)f->id, f->state,
           (long long)f->count, f->kind, last, f->signature);
}

static int list_cb(const fia_store_finding *f, void *ctx)
{
    int *n = ctx;
    if (n[1]) {
        putchar('{');
        finding_json(f, 0);
        puts("}");
    } else {
        if (n[0] == 0)
            finding_header();
        finding_line(f);
    }
    n[0]++;
    return 0;
}

static int do_findings(fia_store *s, const db_opts *o)
{
    int n[2] = {0, o->json};
    if (fia_store_list_findings(s, &o->filter, list_cb, n) != FIA_STORE_OK)
        return store_error(s);
    if (!o->json)
        printf("%d finding%s\n", n[0], n[0] == 1 ? "" : "s");
    return CLI_EXIT_OK;
}

static int parse_id(const char *a, int64_t *id)
{
    char *end;
    long long v = a ? strtoll(a, &end, 10) : 0;
    if (a == NULL || *a == '\0' || *end != '\0' || v <= 0)
        return -1;
    *id = v;
    return 0;
}

static int do_show(fia_store *s, const db_opts *o)
{
    int64_t id;
    if (o->npos != 2 || parse_id(o->pos[1], &id) != 0) {
        fia_store_close(s);
        return usage_error("show wants one finding id");
    }
    fia_store_finding f;
    if (fia_store_get_finding(s, id, &f) != FIA_STORE_OK)
        return store_error(s);
    if (o->json) {
        putchar('{');
        finding_json(&f, 1);
        puts("}");
    } else {
        char first[32], last[32], changed[32];
        iso(first, sizeof first, f.first_seen);
        iso(last, sizeof last, f.last_seen);
        iso(changed, sizeof changed, f.state_changed);
        printf("finding %lld: %s\n  signature  %s\n  state      %s (since "
               "%s)\n  count      %lld\n  first seen %s at %s (campaign "
               "%lld)\n  last seen  %s at %s\n  target     %s, profile %s, "
               "seed %llu\n",
               (long long)f.id, f.kind, f.signature, f.state, changed,
               (long long)f.count, first, f.revision,
               (long long)f.campaign_id, last, f.last_revision, f.target,
               f.profile, (unsigned long long)f.seed);
        if (f.message)
            printf("  message    %s\n", f.message);
        if (f.metrics_json)
            printf("  metrics    %s\n", f.metrics_json);
        printf("--- case\n%s", f.case_text);
        if (f.case_text[0] && f.case_text[strlen(f.case_text) - 1] != '\n')
            putchar('\n');
        if (f.minimized_text)
            printf("--- minimized\n%s", f.minimized_text);
    }
    fia_store_finding_free(&f);
    return CLI_EXIT_OK;
}

static int campaign_cb(const fia_store_campaign *c, void *ctx)
{
    int *n = ctx;
    if (n[1]) {
        printf("{\"type\":\"campaign\",\"id\":%lld", (long long)c->id);
        json_kv("revision", c->revision);
        json_kv("target", c->target);
        json_kv("profile", c->profile);
        json_kv("tolerance", c->tolerance);
        json_kv("command", c->command);
        printf(",\"seed\":%llu,\"started\":%lld,\"updated\":%lld,"
               "\"execs\":%lld,\"coverage\":%lld",
               (unsigned long long)c->seed, (long long)c->started,
               (long long)c->updated, (long long)c->execs,
               (long long)c->coverage);
        json_num("seconds", c->seconds);
        printf(",\"finished\":%s,\"findings\":%lld}\n",
               c->finished ? "true" : "false", (long long)c->findings);
    } else {
        if (n[0] == 0)
            printf("\ncampaigns:\n%5s %-12s %-16s %-5s %-20s %10s %8s %8s\n",
                   "id", "revision", "target", "prof", "started", "execs",
                   "seconds", "findings");
        char started[32];
        iso(started, sizeof started, c->started);
        printf("%5lld %-12.12s %-16s %-5s %-20s %10lld %8.1f %8lld%s\n",
               (long long)c->id, c->revision, c->target, c->profile, started,
               (long long)c->execs, c->seconds, (long long)c->findings,
               c->finished ? "" : " (unfinished)");
    }
    n[0]++;
    return 0;
}

static int accuracy_cb(const fia_store_accuracy *a, void *ctx)
{
    int *n = ctx;
    if (n[1]) {
        printf("{\"type\":\"accuracy\"");
        json_kv("revision", a->revision);
        json_kv("bucket", a->bucket);
        printf(",\"cases\":%lld", (long long)a->cases);
        json_num("max_ulp", a->max_ulp);
        json_num("mean_ulp", a->mean_ulp);
        json_num("max_rel_err", a->max_rel_err);
        puts("}");
    } else {
        if (n[0] == 0)
            printf("\naccuracy per revision x bucket:\n%-12s %-32s %8s %10s "
                   "%10s %12s\n", "revision", "bucket", "cases", "max_ulp",
                   "mean_ulp", "max_rel_err");
        printf("%-12.12s %-32s %8lld %10.4g %10.4g %12.4g\n", a->revision,
               a->bucket, (long long)a->cases, a->max_ulp, a->mean_ulp,
               a->max_rel_err);
    }
    n[0]++;
    return 0;
}

static int do_stats(fia_store *s, const db_opts *o)
{
    fia_store_summary sum;
    if (fia_store_get_summary(s, &sum) != FIA_STORE_OK)
        return store_error(s);
    if (o->json)
        printf("{\"type\":\"summary\",\"campaigns\":%lld,\"execs\":%lld,"
               "\"seconds\":%.3f,\"findings\":%lld,\"open\":%lld,"
               "\"fixed\":%lld,\"regressed\":%lld,\"sightings\":%lld,"
               "\"accuracy_cases\":%lld}\n",
               (long long)sum.campaigns, (long long)sum.execs, sum.seconds,
               (long long)sum.findings, (long long)sum.open,
               (long long)sum.fixed, (long long)sum.regressed,
               (long long)sum.sightings, (long long)sum.accuracy_cases);
    else
        printf("%lld campaigns, %lld execs in %.1f s; %lld findings (%lld "
               "open, %lld fixed, %lld regressed) from %lld sightings; "
               "%lld cases in accuracy statistics\n",
               (long long)sum.campaigns, (long long)sum.execs, sum.seconds,
               (long long)sum.findings, (long long)sum.open,
               (long long)sum.fixed, (long long)sum.regressed,
               (long long)sum.sightings, (long long)sum.accuracy_cases);
    int n[2] = {0, o->json};
    if (fia_store_list_campaigns(s, campaign_cb, n) != FIA_STORE_OK)
        return store_error(s);
    n[0] = 0;
    if (fia_store_list_accuracy(s, o->filter.revision, accuracy_cb, n) !=
        FIA_STORE_OK)
        return store_error(s);
    return CLI_EXIT_OK;
}

typedef struct reg_out {
    int json;
    const char *base, *head;
} reg_out;

static const char *const reg_names[] = {"", "new", "regressed", "accuracy"};

static int regression_cb(const fia_store_regression *r, void *ctx)
{
    const reg_out *o = ctx;
    const char *what = reg_names[r->kind];
    if (o->json) {
        printf("{\"regression\":\"%s\",", what);
        if (r->finding) {
            finding_json(r->finding, 0);
        } else {
            printf("\"bucket\":");
            cli_json_string(stdout, r->head->bucket);
            const fia_store_accuracy *a[2] = {r->base, r->head};
            for (int k = 0; k < 2; k++) {
                printf(",\"%s\":{\"revision\":", k ? "head" : "base");
                cli_json_string(stdout, a[k]->revision);
                printf(",\"cases\":%lld", (long long)a[k]->cases);
                json_num("max_ulp", a[k]->max_ulp);
                json_num("mean_ulp", a[k]->mean_ulp);
                json_num("max_rel_err", a[k]->max_rel_err);
                putchar('}');
            }
        }
        puts("}");
    } else if (r->finding) {
        printf("%-9s finding %lld: %s (%s, count %lld)\n", what,
               (long long)r->finding->id, r->finding->signature,
               r->finding->kind, (long long)r->finding->count);
    } else {
        printf("%-9s bucket %s: max ulp %.4g -> %.4g, mean ulp %.4g -> %.4g "
               "(%lld -> %lld cases)\n", what, r->head->bucket,
               r->base->max_ulp, r->head->max_ulp, r->base->mean_ulp,
               r->head->mean_ulp, (long long)r->base->cases,
               (long long)r->head->cases);
    }
    return 0;
}

static int do_regressions(fia_store *s, const db_opts *o)
{
    if (o->base == NULL || o->head == NULL || o->npos != 1) {
        fia_store_close(s);
        return usage_error("regressions wants --base REV --head REV");
    }
    reg_out ro = {o->json, o->base, o->head};
    int64_t n = 0;
    if (fia_store_regressions(s, o->base, o->head, o->margin_rel,
                              o->margin_abs, regression_cb, &ro,
                              &n) != FIA_STORE_OK)
        return store_error(s);
    if (!o->json)
        printf("%lld regression%s from %s to %s\n", (long long)n,
               n == 1 ? "" : "s", o->base, o->head);
    return n > 0 ? CLI_EXIT_FINDING : CLI_EXIT_OK;
}

static int do_mark(fia_store *s, const db_opts *o)
{
    int64_t id;
    if (o->npos != 3 || parse_id(o->pos[1], &id) != 0) {
        fia_store_close(s);
        return usage_error("mark wants a finding id and fixed or open");
    }
    if (fia_store_set_state(s, id, o->pos[2]) != FIA_STORE_OK)
        return store_error(s);
    printf("finding %lld marked %s\n", (long long)id, o->pos[2]);
    return CLI_EXIT_OK;
}

static int do_export(fia_store *s, const db_opts *o)
{
    if (!o->json || o->npos != 1) {
        fia_store_close(s);
        return usage_error("export writes JSON lines: db export --json");
    }
    if (fia_store_export_json(s, stdout) != FIA_STORE_OK)
        return store_error(s);
    return CLI_EXIT_OK;
}

static int do_merge(const db_opts *o)
{
    /* merge INTO FROM... ; or merge --db INTO FROM... */
    int first = o->db_given ? 1 : 2;
    const char *into = o->db_given ? o->db : o->npos > 1 ? o->pos[1] : NULL;
    if (into == NULL || o->npos <= first)
        return usage_error("merge wants INTO.db and at least one FROM.db");
    fia_store *s = open_store(into, 1);
    if (s == NULL)
        return CLI_EXIT_USAGE;
    for (int i = first; i < o->npos; i++) {
        if (fia_store_merge(s, o->pos[i]) != FIA_STORE_OK)
            return store_error(s);
        printf("merged %s into %s\n", o->pos[i], into);
    }
    fia_store_close(s);
    return CLI_EXIT_OK;
}

int cmd_db(int argc, char **argv)
{
    db_opts o;
    if (argc < 1)
        return usage_error(NULL);
    if (strcmp(argv[0], "help") == 0) {
        fputs(db_usage, stdout);
        return CLI_EXIT_OK;
    }
    for (int i = 0; i < argc; i++)
        if (cli_is_help(argv[i])) {
            fputs(db_usage, stdout);
            return CLI_EXIT_OK;
        }
    if (parse_opts(argc, argv, &o) != 0)
        return usage_error(NULL);
    if (o.npos == 0)
        return usage_error("no command given");
    const char *cmd = o.pos[0];
    if (strcmp(cmd, "merge") == 0)
        return do_merge(&o);
    static const char *const known[] = {"init",        "findings", "show",
                                        "stats",       "regressions",
                                        "mark",        "export"};
    size_t k = 0;
    while (k < sizeof known / sizeof known[0] && strcmp(cmd, known[k]) != 0)
        k++;
    if (k == sizeof known / sizeof known[0]) {
        fprintf(stderr, "fiacheck db: unknown command '%s'\n", cmd);
        return usage_error(NULL);
    }
    if ((k == 0 || k == 1 || k == 3) && o.npos != 1)
        return usage_error("unexpected argument");
    fia_store *s = open_store(o.db, k == 0);
    if (s == NULL)
        return CLI_EXIT_USAGE;
    int rc = CLI_EXIT_OK;
    switch (k) {
    case 0:
        printf("%s: fiacheck store, schema version %d\n", o.db,
               fia_store_schema_version());
        break;
    case 1:
        rc = do_findings(s, &o);
        break;
    case 2:
        rc = do_show(s, &o);
        break;
    case 3:
        rc = do_stats(s, &o);
        break;
    case 4:
        rc = do_regressions(s, &o);
        break;
    case 5:
        rc = do_mark(s, &o);
        break;
    default:
        rc = do_export(s, &o);
    }
    /* the do_* close the store themselves on their error paths */
    if (rc == CLI_EXIT_OK || rc == CLI_EXIT_FINDING)
        fia_store_close(s);
    return rc;
}
