/* `fiacheck db ...`: the findings store (results/findings.db by default).
 * Timestamps are unix seconds in JSON and ISO-8601 UTC in text. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "cli_bench.h"
#include "db_prune.h"
#include "fia/store.h"
#include "systems.h"

#define DB_DEFAULT "results/findings.db"

static const char db_usage[] =
    "usage: fiacheck db COMMAND [--db PATH] [--json]   (PATH default "
    DB_DEFAULT ")\n"
    "  db init                         create an empty store\n"
    "  db findings [--state S] [--kind K] [--target T] [--revision R]\n"
    "  db show ID                      one finding with its case text\n"
    "  db stats                        campaigns, findings, accuracy\n"
    "  db campaigns                    the campaigns: execs, findings, time\n"
    "                                  to first finding (ttff)\n"
    "  db bench [--revision R]         the benchmark figures (bench --db)\n"
    "  db systems                      the systems under test side by side:\n"
    "                                  cases, error / bound per bucket,\n"
    "                                  findings, speed vs fast/\n"
    "  db regressions --base REV --head REV [--alpha A] [--min-cases N]\n"
    "                 [--min-effect E] [--unpaired] [--all-buckets]\n"
    "      new signatures at HEAD, fixed ones seen again, and buckets whose\n"
    "      error-to-bound ratios are larger at HEAD on the cases run at\n"
    "      both revisions (fiacheck survey): one-sided sign test, Bonferroni\n"
    "      over the buckets compared (A 0.01), effect P(head > base) >= E\n"
    "      (0.56), N such cases at least (30); --unpaired: buckets with too\n"
    "      few of them compared as two samples (Mann-Whitney U); facets\n"
    "      (all cases, each path, feature, dtype, layout) are compared too\n"
    "      and benchmark figures (bench --db) of both revisions on one\n"
    "      machine: slower when the median ratio to the run's own baseline\n"
    "      drops by more than the run-to-run spread (at least 5%)\n"
    "      exit 1 when anything regressed (for CI gates)\n"
    "  db worst --revision REV --bucket B   the worst case of a bucket\n"
    "                                  (a case file: > w.case; fiacheck "
    "repro w.case)\n"
    "  db mark ID fixed|open           triage a finding\n"
    "  db merge INTO.db FROM.db...     add FROM into INTO (created if "
    "missing);\n"
    "                                  or: db merge --db INTO.db FROM.db...\n"
    "  db export --json                every row of every table, JSON lines\n"
    "  db prune [--revision R] [--before DATE|REV] [--system NAME] [--target T]\n"
    "           [--all] [--worst-cases]\n"
    "      drop the campaigns matching every option given (--before: started\n"
    "      before a date YYYY-MM-DD[THH:MM:SSZ] or a revision's first\n"
    "      campaign; --all: every campaign) with their samples, worst cases,\n"
    "      rule coverage and sightings (a finding with no sighting left goes\n"
    "      too); --worst-cases: only their worst cases\n"
    "  db vacuum                       give the space of what was dropped back\n"
    "  db import [--target T] [--revision R] [--timeout S] PATH...\n"
    "      a fuzzing engine's crash inputs (files or directories) replayed,\n"
    "      judged and stored as findings; importing again changes nothing\n"
    "exit status: 0 ok, 1 regressions found, 2 bad usage or input\n";

typedef struct db_opts {
    const char *db;
    int json;
    fia_store_filter filter;
    const char *base, *head, *bucket;
    fia_store_regress_options reg;
    const char *pos[64];
    int npos;
    int db_given;
    int all_buckets;  /* regressions: list the buckets not compared too */
    cli_prune_opts prune; /* prune's own options */
    int prune_given;      /* one of them was given */
} db_opts;

static int usage_error(const char *why)
{
    if (why)
        fprintf(stderr, "fiacheck db: %s\n", why);
    fputs(db_usage, stderr);
    return CLI_EXIT_USAGE;
}

/* --alpha in (0, 1), --min-cases >= 2, --min-effect in [0.5, 1]: FIA_OK,
 * or FIA_ERR_BAD_INPUT after saying why. */
static fia_status parse_number(const char *opt, const char *v,
                        fia_store_regress_options *r)
{
    char *end = NULL;
    double d = v ? strtod(v, &end) : 0;
    int good = v != NULL && *v != '\0' && *end == '\0';
    if (strcmp(opt, "--alpha") == 0 && good && d > 0 && d < 1) {
        r->alpha = d;
    } else if (strcmp(opt, "--min-effect") == 0 && good && d >= 0.5 &&
               d <= 1) {
        r->min_effect = d;
    } else if (strcmp(opt, "--min-cases") == 0 && good && d >= 2 &&
               d <= 1e12 && d == (double)(int64_t)d) {
        r->min_cases = (int64_t)d;
    } else {
        fprintf(stderr, "fiacheck db: %s wants %s\n", opt,
                opt[2] == 'a'   ? "a number in (0, 1)"
                : opt[6] == 'c' ? "a whole number >= 2"
                                : "a number in [0.5, 1]");
        return FIA_ERR_BAD_INPUT;
    }
    return FIA_OK;
}

/* A filter value that matches nothing is a typo: said, not an empty list
 * (FIA_ERR_BAD_INPUT). */
static fia_status check_filter(const fia_store_filter *f)
{
    static const char *const states[] = {"open", "fixed", "regressed", NULL};
    static const char *const kinds[] = {
        "status-mismatch", "accuracy", "nan-leak", "harness-error",
        "metamorphic",     "crash",    "timeout",  NULL};
    const char *const *lists[2] = {states, kinds};
    const char *vals[2] = {f->state, f->kind}, *names[2] = {"state", "kind"};
    for (int k = 0; k < 2; k++) {
        if (vals[k] == NULL)
            continue;
        const char *const *l = lists[k];
        while (*l && strcmp(*l, vals[k]) != 0)
            l++;
        if (*l == NULL) {
            fprintf(stderr, "fiacheck db: unknown %s '%s'; one of:", names[k],
                    vals[k]);
            for (l = lists[k]; *l; l++)
                fprintf(stderr, " %s", *l);
            fputc('\n', stderr);
            return FIA_ERR_BAD_INPUT;
        }
    }
    return FIA_OK;
}

/* FIA_OK, or FIA_ERR_BAD_INPUT after saying why. */
static fia_status parse_opts(int argc, char **argv, db_opts *o)
{
    memset(o, 0, sizeof *o);
    o->db = DB_DEFAULT;
    fia_store_regress_options_default(&o->reg);
    /* a value option may be given once (cli_once), as in every command */
    static const char *const value_opts[] = {
        "--db",   "--state", "--kind",  "--target",    "--revision",
        "--base", "--head",  "--bucket", "--alpha",    "--min-cases",
        "--min-effect"};
    int seen[sizeof value_opts / sizeof value_opts[0]] = {0};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        const char **slot = NULL;
        for (size_t k = 0; k < sizeof value_opts / sizeof value_opts[0]; k++)
            if (strcmp(a, value_opts[k]) == 0 &&
                cli_once("db", a, &seen[k]) != 0)
                return FIA_ERR_BAD_INPUT;
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
            continue;
        }
        if (strcmp(a, "--unpaired") == 0) {
            o->reg.unpaired = 1;
            continue;
        }
        if (strcmp(a, "--all-buckets") == 0) {
            o->all_buckets = 1;
            continue;
        }
        if (strcmp(a, "--all") == 0 || strcmp(a, "--worst-cases") == 0) {
            *(a[2] == 'a' ? &o->prune.all : &o->prune.worst_only) = 1;
            o->prune_given = 1;
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
        } else if (strcmp(a, "--bucket") == 0) {
            slot = &o->bucket;
        } else if (strcmp(a, "--before") == 0 || strcmp(a, "--system") == 0) {
            slot = a[2] == 'b' ? &o->prune.before : &o->prune.sut;
            o->prune_given = 1;
        } else if (strcmp(a, "--alpha") == 0 ||
                   strcmp(a, "--min-cases") == 0 ||
                   strcmp(a, "--min-effect") == 0) {
            if (parse_number(a, v, &o->reg) != FIA_OK)
                return FIA_ERR_BAD_INPUT;
            i++;
            continue;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "fiacheck db: unknown option %s\n", a);
            return FIA_ERR_BAD_INPUT;
        } else {
            if (o->npos == (int)(sizeof o->pos / sizeof o->pos[0])) {
                fprintf(stderr, "fiacheck db: too many arguments\n");
                return FIA_ERR_BAD_INPUT;
            }
            o->pos[o->npos++] = a;
            continue;
        }
        if (v == NULL) {
            fprintf(stderr, "fiacheck db: %s wants a value\n", a);
            return FIA_ERR_BAD_INPUT;
        }
        *slot = v;
        i++;
    }
    return check_filter(&o->filter);
}

/* mode: FIA_STORE_OPEN_READONLY for the commands that only read (they
 * work on a store we may not write, and never touch the file). */
static fia_store *open_store(const char *path, int mode)
{
    fia_store *s = NULL;
    char err[600];
    int rc = fia_store_open(path, mode, &s, err, sizeof err);
    if (rc != FIA_OK) {
        fprintf(stderr, "fiacheck db: %s\n", err);
        if (rc == FIA_ERR_IO && mode != FIA_STORE_OPEN_CREATE)
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

/* The fields of a finding, without braces (full: with the texts). */
static void finding_json(const fia_store_finding *f, int full)
{
    printf("\"id\":%lld", (long long)f->id);
    cli_json_kv("signature", f->signature);
    cli_json_kv("kind", f->kind);
    cli_json_kv("state", f->state);
    cli_json_kv("target", f->target);
    cli_json_kv("profile", f->profile);
    cli_json_kv("revision", f->revision);
    cli_json_kv("last_revision", f->last_revision);
    cli_json_kv("sut", f->sut);
    printf(",\"campaign_id\":%lld,\"first_seen\":%lld,\"last_seen\":%lld,"
           "\"count\":%lld,\"seed\":%llu,\"minimized\":%s",
           (long long)f->campaign_id, (long long)f->first_seen,
           (long long)f->last_seen, (long long)f->count,
           (unsigned long long)f->seed, f->minimized_text ? "true" : "false");
    if (full) {
        printf(",\"state_changed\":%lld", (long long)f->state_changed);
        cli_json_kv("metrics_json", f->metrics_json);
        cli_json_kv("message", f->message);
        cli_json_kv("case_text", f->case_text);
        cli_json_kv("minimized_text", f->minimized_text);
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
    cli_iso_time(last, sizeof last, f->last_seen);
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
    if (fia_store_list_findings(s, &o->filter, list_cb, n) != FIA_OK)
        return store_error(s);
    if (!o->json)
        printf("%d finding%s\n", n[0], n[0] == 1 ? "" : "s");
    return CLI_EXIT_OK;
}

/* A finding id (> 0) into *id: FIA_OK, or FIA_ERR_BAD_INPUT (not said: the
 * caller says what it wants). */
static fia_status parse_id(const char *a, int64_t *id)
{
    char *end;
    long long v = a ? strtoll(a, &end, 10) : 0;
    if (a == NULL || *a == '\0' || *end != '\0' || v <= 0)
        return FIA_ERR_BAD_INPUT;
    *id = v;
    return FIA_OK;
}

static int do_show(fia_store *s, const db_opts *o)
{
    int64_t id;
    if (o->npos != 2 || parse_id(o->pos[1], &id) != FIA_OK) {
        fia_store_close(s);
        return usage_error("show wants one finding id");
    }
    fia_store_finding f;
    if (fia_store_get_finding(s, id, &f) != FIA_OK)
        return store_error(s);
    if (o->json) {
        putchar('{');
        finding_json(&f, 1);
        puts("}");
    } else {
        char first[32], last[32], changed[32];
        cli_iso_time(first, sizeof first, f.first_seen);
        cli_iso_time(last, sizeof last, f.last_seen);
        cli_iso_time(changed, sizeof changed, f.state_changed);
        printf("finding %lld: %s\n  signature  %s\n  state      %s (since "
               "%s)\n  count      %lld\n  first seen %s at %s (campaign "
               "%lld)\n  last seen  %s at %s\n  target     %s, profile %s, "
               "seed %llu\n",
               (long long)f.id, f.kind, f.signature, f.state, changed,
               (long long)f.count, first, f.revision,
               (long long)f.campaign_id, last, f.last_revision, f.target,
               f.profile, (unsigned long long)f.seed);
        printf("  system     %s\n", f.sut);
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
        cli_json_kv("revision", c->revision);
        cli_json_kv("target", c->target);
        cli_json_kv("profile", c->profile);
        cli_json_kv("tolerance", c->tolerance);
        cli_json_kv("command", c->command);
        printf(",\"seed\":%llu,\"started\":%lld,\"updated\":%lld,"
               "\"execs\":%lld,\"coverage\":%lld",
               (unsigned long long)c->seed, (long long)c->started,
               (long long)c->updated, (long long)c->execs,
               (long long)c->coverage);
        cli_json_num("seconds", c->seconds);
        printf(",\"finished\":%s,\"findings\":%lld",
               c->finished ? "true" : "false", (long long)c->findings);
        if (c->ttff >= 0)
            cli_json_num("ttff", c->ttff);
        else
            printf(",\"ttff\":null");
        printf("}\n");
    } else {
        if (n[0] == 0)
            printf("\ncampaigns:\n%5s %-12s %-16s %-5s %-20s %10s %8s %8s "
                   "%7s\n", "id", "revision", "target", "prof", "started",
                   "execs", "seconds", "findings", "ttff");
        char started[32], ttff[32] = "-";
        cli_iso_time(started, sizeof started, c->started);
        if (c->ttff >= 0)
            snprintf(ttff, sizeof ttff, "%.1fs", c->ttff);
        char rev[160];
        printf("%5lld %-12s %-16s %-5s %-20s %10lld %8.1f %8lld %7s%s\n",
               (long long)c->id,
               cli_revision_short(c->revision, rev, sizeof rev), c->target, c->profile, started,
               (long long)c->execs, c->seconds, (long long)c->findings, ttff,
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
        cli_json_kv("revision", a->revision);
        cli_json_kv("bucket", a->bucket);
        printf(",\"cases\":%lld", (long long)a->cases);
        cli_json_num("max_ulp", a->max_ulp);
        cli_json_num("mean_ulp", a->mean_ulp);
        cli_json_num("max_rel_err", a->max_rel_err);
        puts("}");
    } else {
        if (n[0] == 0)
            printf("\naccuracy per revision x bucket:\n%-12s %-32s %8s %10s "
                   "%10s %12s\n", "revision", "bucket", "cases", "max_ulp",
                   "mean_ulp", "max_rel_err");
        char rev[160];
        printf("%-12s %-32s %8lld %10.4g %10.4g %12.4g\n",
               cli_revision_short(a->revision, rev, sizeof rev),
               a->bucket, (long long)a->cases, a->max_ulp, a->mean_ulp,
               a->max_rel_err);
    }
    n[0]++;
    return 0;
}

static int do_stats(fia_store *s, const db_opts *o)
{
    fia_store_summary sum;
    if (fia_store_get_summary(s, &sum) != FIA_OK)
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
    if (fia_store_list_campaigns(s, campaign_cb, n) != FIA_OK)
        return store_error(s);
    n[0] = 0;
    if (fia_store_list_accuracy(s, o->filter.revision, accuracy_cb, n) !=
        FIA_OK)
        return store_error(s);
    return CLI_EXIT_OK;
}

typedef struct reg_out {
    const db_opts *o;
    int64_t compared;
    int64_t too_few;   /* buckets not compared and not listed */
} reg_out;

static const char *const reg_names[] = {
    "",          "new",       "regressed", "accuracy", "same", "too-few",
    "only-base", "only-head", "unpaired"};

static void ratio_json(const char *key, const fia_store_ratio_stats *r)
{
    printf(",\"%s\":{\"revision\":", key);
    cli_json_string(stdout, r->revision);
    printf(",\"cases\":%lld", (long long)r->cases);
    cli_json_num("p50", r->p50);
    cli_json_num("p90", r->p90);
    cli_json_num("p99", r->p99);
    cli_json_num("max", r->max);
    cli_json_num("above_half", r->above_half);
    cli_json_num("above_one", r->above_one);
    putchar('}');
}

static void bucket_json(const fia_store_bucket_cmp *c)
{
    printf("\"bucket\":");
    cli_json_string(stdout, c->bucket);
    printf(",\"facet\":%s", c->facet ? "true" : "false");
    ratio_json("base", &c->base);
    ratio_json("head", &c->head);
    printf(",\"compared\":%s", c->compared ? "true" : "false");
    printf(",\"pairs\":%lld,\"worse\":%lld,\"better\":%lld",
           (long long)c->pairs, (long long)c->worse, (long long)c->better);
    if (c->compared) {
        printf(",\"test\":\"%s\"", c->paired ? "sign" : "mann-whitney");
        cli_json_num("effect", c->effect);
        cli_json_num("p_value", c->p_value);
        cli_json_num("alpha", c->alpha);
    }
}

/* "p50 0.25 -> 0.31, ..." for a compared bucket */
static void bucket_text(const fia_store_bucket_cmp *c)
{
    const fia_store_ratio_stats *b = &c->base, *h = &c->head;
    printf(": ratio p50 %.3g -> %.3g, p90 %.3g -> %.3g, p99 %.3g -> %.3g, "
           "max %.3g -> %.3g; cases > 0.5 %.1f%% -> %.1f%%, > 1 %.1f%% -> "
           "%.1f%%; A %.3f, p %.2g (alpha %.2g); %lld -> %lld cases",
           b->p50, h->p50, b->p90, h->p90, b->p99, h->p99, b->max, h->max,
           100 * b->above_half, 100 * h->above_half, 100 * b->above_one,
           100 * h->above_one, c->effect, c->p_value, c->alpha,
           (long long)b->cases, (long long)h->cases);
    if (c->paired)
        printf("; %lld paired: %lld worse, %lld better (sign test)\n",
               (long long)c->pairs, (long long)c->worse,
               (long long)c->better);
    else
        printf(" (unpaired: Mann-Whitney U)\n");
}

static int regression_cb(const fia_store_regression *r, void *ctx)
{
    reg_out *ro = ctx;
    const db_opts *o = ro->o;
    const char *what = reg_names[r->kind];
    const fia_store_bucket_cmp *c = r->bucket;
    if (c && c->compared)
        ro->compared = c->buckets_compared;
    if (o->json) {
        printf("{\"regression\":\"%s\",", what);
        if (r->finding)
            finding_json(r->finding, 0);
        else
            bucket_json(c);
        puts("}");
    } else if (r->finding) {
        printf("%-9s finding %lld: %s (%s, count %lld)\n", what,
               (long long)r->finding->id, r->finding->signature,
               r->finding->kind, (long long)r->finding->count);
    } else if (c->compared) {
        printf("%-9s %s %s", what, c->facet ? "facet" : "bucket", c->bucket);
        bucket_text(c);
        if (r->kind == FIA_STORE_REG_ACCURACY && c->worst_bucket)
            printf("          worst case: fiacheck db worst --revision %s "
                   "--bucket '%s'%s%s > worst.case\n", c->head.revision,
                   c->worst_bucket, o->db_given ? " --db " : "",
                   o->db_given ? o->db : "");
    } else if (!o->all_buckets && (r->kind == FIA_STORE_REG_TOO_FEW ||
                                   r->kind == FIA_STORE_REG_UNPAIRED)) {
        ro->too_few++;
    } else if (r->kind == FIA_STORE_REG_UNPAIRED) {
        printf("%-9s bucket %s: %lld -> %lld cases but %lld run at both "
               "revisions, fewer than %lld: not compared (fiacheck survey at "
               "both, or --unpaired)\n", what, c->bucket,
               (long long)c->base.cases, (long long)c->head.cases,
               (long long)c->pairs, (long long)o->reg.min_cases);
    } else if (r->kind == FIA_STORE_REG_TOO_FEW) {
        printf("%-9s %s %s: %lld -> %lld cases, fewer than %lld: not "
               "compared\n", what, c->facet ? "facet" : "bucket", c->bucket, (long long)c->base.cases,
               (long long)c->head.cases, (long long)o->reg.min_cases);
    } else {
        const fia_store_ratio_stats *at =
            r->kind == FIA_STORE_REG_ONLY_BASE ? &c->base : &c->head;
        printf("%-9s bucket %s: %lld cases at %s only (max ratio %.3g)\n",
               what, c->bucket, (long long)at->cases, at->revision, at->max);
    }
    return 0;
}

static int do_regressions(fia_store *s, const db_opts *o)
{
    if (o->base == NULL || o->head == NULL || o->npos != 1) {
        fia_store_close(s);
        return usage_error("regressions wants --base REV --head REV");
    }
    reg_out ro = {o, 0, 0};
    int64_t n = 0;
    if (fia_store_regressions(s, o->base, o->head, &o->reg, regression_cb,
                              &ro, &n) != FIA_OK)
        return store_error(s);
    if (!o->json && ro.too_few > 0)
        printf("(%lld bucket%s and facets with fewer than %lld cases run at "
               "both revisions not compared: --all-buckets lists them)\n",
               (long long)ro.too_few, ro.too_few == 1 ? "" : "s",
               (long long)o->reg.min_cases);
    cli_db_bench bo = {o->json, o->all_buckets, 0, 0, 0};
    if (cli_db_bench_compare(s, o->base, o->head, &bo) != FIA_OK)
        return store_error(s);
    const int64_t slower = bo.slower;
    if (!o->json && bo.compared > 0)
        printf("(%lld benchmark figure%s measured at both revisions on one "
               "machine, %lld with fewer than %d runs on a side not judged: "
               "%lld slower beyond the run-to-run spread (at least %.0f%%); "
               "--all-buckets lists them all)\n",
               (long long)bo.compared, bo.compared == 1 ? "" : "s",
               (long long)bo.too_few, FIA_BENCH_MIN_RUNS, (long long)slower,
               100.0 * FIA_BENCH_MIN_SPREAD);
    n += slower;
    if (!o->json)
        printf("%lld regression%s from %s to %s (accuracy: error-to-bound "
               "ratio per case, one-sided sign test on the cases run at both "
               "revisions%s per bucket and facet, Bonferroni over %lld group%s "
               "compared at family alpha %g, effect A >= %g, >= %lld "
               "cases)\n",
               (long long)n, n == 1 ? "" : "s", o->base, o->head,
               o->reg.unpaired ? " (else Mann-Whitney U)" : "",
               (long long)ro.compared, ro.compared == 1 ? "" : "s",
               o->reg.alpha, o->reg.min_effect, (long long)o->reg.min_cases);
    return n > 0 ? CLI_EXIT_FINDING : CLI_EXIT_OK;
}

static int do_worst(fia_store *s, const db_opts *o)
{
    if (o->filter.revision == NULL || o->bucket == NULL || o->npos != 1) {
        fia_store_close(s);
        return usage_error("worst wants --revision REV --bucket BUCKET");
    }
    int rc = cli_db_worst(s, o->filter.revision, o->bucket);
    if (rc != CLI_EXIT_OK)
        fia_store_close(s);
    return rc;
}

static int do_mark(fia_store *s, const db_opts *o)
{
    int64_t id;
    if (o->npos != 3 || parse_id(o->pos[1], &id) != FIA_OK) {
        fia_store_close(s);
        return usage_error("mark wants a finding id and fixed or open");
    }
    if (fia_store_set_state(s, id, o->pos[2]) != FIA_OK)
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
    if (fia_store_export_json(s, stdout) != FIA_OK)
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
    fia_store *s = open_store(into, FIA_STORE_OPEN_CREATE);
    if (s == NULL)
        return CLI_EXIT_USAGE;
    /* all the files or none: one transaction */
    if (fia_store_merge_files(s, o->pos + first, o->npos - first) !=
        FIA_OK)
        return store_error(s);
    for (int i = first; i < o->npos; i++)
        printf("merged %s into %s\n", o->pos[i], into);
    fia_store_close(s);
    return CLI_EXIT_OK;
}

/* --revision, --base and --head as the store spells them: a unique prefix
 * (listings show 12 characters) or a git name is replaced by the full
 * revision (full[] owns the strings).  FIA_OK, or cli_resolve_revision's
 * status after saying why (the store closed). */
static fia_status resolve_revisions(fia_store *s, db_opts *o, char *full[3])
{
    const char **slot[3] = {&o->filter.revision, &o->base, &o->head};
    for (int i = 0; i < 3; i++) {
        fia_error err;
        if (*slot[i] == NULL)
            continue;
        fia_status st = cli_resolve_revision(s, *slot[i], &full[i], &err);
        if (st != FIA_OK) {
            fprintf(stderr, "fiacheck db: %s\n", err.msg);
            for (int j = 0; j < i; j++)
                free(full[j]);
            fia_store_close(s);
            return st;
        }
        *slot[i] = full[i];
    }
    return FIA_OK;
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
    /* import has options of its own: db [--db PATH] import ... */
    if (strcmp(argv[0], "import") == 0)
        return cmd_db_import(argc - 1, argv + 1);
    if (argc > 2 && strcmp(argv[0], "--db") == 0 &&
        strcmp(argv[2], "import") == 0) {
        argv[2] = argv[1];
        argv[1] = argv[0];
        return cmd_db_import(argc - 1, argv + 1);
    }
    for (int i = 0; i < argc; i++)
        if (cli_is_help(argv[i])) {
            fputs(db_usage, stdout);
            return CLI_EXIT_OK;
        }
    if (parse_opts(argc, argv, &o) != FIA_OK)
        return usage_error(NULL);
    if (o.npos == 0)
        return usage_error("no command given");
    const char *cmd = o.pos[0];
    if (strcmp(cmd, "merge") == 0)
        return do_merge(&o);
    static const char *const known[] = {"init",        "findings", "show",
                                        "stats",       "regressions",
                                        "mark",        "export",   "worst",
                                        "campaigns",   "bench",
                                        "systems",     "prune",
                                        "vacuum"};
    size_t k = 0;
    while (k < sizeof known / sizeof known[0] && strcmp(cmd, known[k]) != 0)
        k++;
    if (k == sizeof known / sizeof known[0]) {
        fprintf(stderr, "fiacheck db: unknown command '%s'\n", cmd);
        return usage_error(NULL);
    }
    if ((k == 0 || k == 1 || k == 3 || k >= 8) && o.npos != 1)
        return usage_error("unexpected argument");
    if (o.prune_given && k != 11)
        return usage_error("--before, --system, --all and --worst-cases are "
                           "prune's");
    if (k == 11 && (o.filter.state || o.filter.kind || o.bucket || o.base ||
                    o.head))
        return usage_error("prune selects campaigns: --revision, --before, "
                           "--system, --target or --all");
    /* init creates; mark, prune and vacuum write; the others only read */
    fia_store *s = open_store(o.db, k == 0 ? FIA_STORE_OPEN_CREATE
                                    : k == 5 || k >= 11
                                        ? FIA_STORE_OPEN_EXISTING
                                        : FIA_STORE_OPEN_READONLY);
    if (s == NULL)
        return CLI_EXIT_USAGE;
    char *full[3] = {NULL, NULL, NULL};
    if (resolve_revisions(s, &o, full) != FIA_OK)
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
    case 7:
        rc = do_worst(s, &o);
        break;
    case 8: {
        int n[2] = {0, o.json};
        if (fia_store_list_campaigns(s, campaign_cb, n) != FIA_OK)
            rc = store_error(s);
        break;
    }
    case 9: {
        int64_t n = 0;
        if (cli_db_bench_list(s, o.filter.revision, o.json, &n) !=
            FIA_OK)
            rc = store_error(s);
        else if (n == 0 && !o.json)
            printf("no benchmark figures%s%s (fiacheck bench --fast|--kernels "
                   "--db %s)\n", o.filter.revision ? " at " : "",
                   o.filter.revision ? o.filter.revision : "", o.db);
        break;
    }
    case 10:
        if (cli_db_systems(s, o.json) != FIA_OK) {
            fia_store_close(s);
            rc = CLI_EXIT_USAGE;
        }
        break;
    case 11:
        o.prune.revision = o.filter.revision;
        o.prune.target = o.filter.target;
        o.prune.json = o.json;
        rc = cli_db_prune(s, &o.prune);
        if (rc != CLI_EXIT_OK)
            fia_store_close(s);
        break;
    case 12:
        rc = cli_db_vacuum(s, o.db, o.json);
        if (rc != CLI_EXIT_OK)
            fia_store_close(s);
        break;
    default:
        rc = do_export(s, &o);
    }
    /* the do_* close the store themselves on their error paths */
    if (rc == CLI_EXIT_OK || rc == CLI_EXIT_FINDING)
        fia_store_close(s);
    for (int i = 0; i < 3; i++)
        free(full[i]);
    return rc;
}
