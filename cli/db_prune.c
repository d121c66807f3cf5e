/* `fiacheck db prune` and `fiacheck db vacuum`: dropping what a user no
 * longer wants from a store, and giving its space back (store/store_prune.c
 * does the work; this reads the options and says what happened). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "db_prune.h"

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const int64_t yoe = y - era * 400;
    const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* "YYYY-MM-DD" (midnight UTC) or "YYYY-MM-DDTHH:MM:SSZ" into unix
 * seconds; 0 when v is not such a date. */
static int parse_date(const char *v, int64_t *t)
{
    int y, mo, d, h = 0, mi = 0, s = 0, n = 0;
    if (sscanf(v, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10)
        return 0;
    if (v[n] != '\0') {
        int k = 0;
        if (sscanf(v + n, "T%2d:%2d:%2dZ%n", &h, &mi, &s, &k) != 3 ||
            v[n + k] != '\0' || k != 10)
            return 0;
    }
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
        h > 23 || mi > 59 || s > 59)
        return 0;
    *t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
    return *t > 0;
}

int cli_db_prune(fia_store *s, const cli_prune_opts *o)
{
    fia_store_prune_filter f;
    memset(&f, 0, sizeof f);
    f.revision = o->revision;
    f.sut = o->sut;
    f.target = o->target;
    f.all = o->all;
    f.worst_only = o->worst_only;
    if (o->all && (o->revision || o->before || o->sut || o->target)) {
        fprintf(stderr, "fiacheck db: prune --all takes no --revision, "
                "--before, --system or --target\n");
        return CLI_EXIT_USAGE;
    }
    char *rev = NULL;
    if (o->before != NULL && !parse_date(o->before, &f.before)) {
        fia_error err;
        if (cli_resolve_revision(s, o->before, &rev, &err) != FIA_OK) {
            fprintf(stderr, "fiacheck db: prune --before wants a date "
                    "(YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, UTC) or a revision "
                    "of the store: %s\n", err.msg);
            return CLI_EXIT_USAGE;
        }
        f.before_revision = rev;
    }
    if (!o->all && !o->revision && !o->before && !o->sut && !o->target) {
        fprintf(stderr, "fiacheck db: prune wants which campaigns: "
                "--revision, --before, --system, --target, or --all\n");
        return CLI_EXIT_USAGE;
    }
    fia_store_prune_counts c;
    int rc = fia_store_prune(s, &f, &c);
    free(rev);
    if (rc != FIA_OK) {
        fprintf(stderr, "fiacheck db: %s\n", fia_store_errmsg(s));
        return CLI_EXIT_USAGE;
    }
    if (o->json)
        printf("{\"campaigns\":%lld,\"findings\":%lld,\"sightings\":%lld,"
               "\"samples\":%lld,\"worst_cases\":%lld,\"worst_only\":%s}\n",
               (long long)c.campaigns, (long long)c.findings,
               (long long)c.sightings, (long long)c.samples,
               (long long)c.worst_cases, o->worst_only ? "true" : "false");
    else if (o->worst_only)
        printf("pruned the worst cases of %lld campaign(s): %lld worst "
               "case(s) dropped (fiacheck db vacuum gives the space back)\n",
               (long long)c.campaigns, (long long)c.worst_cases);
    else
        printf("pruned %lld campaign(s): %lld finding(s) with no sighting "
               "left, %lld sighting(s), %lld accuracy sample(s), %lld worst "
               "case(s) dropped (fiacheck db vacuum gives the space back)\n",
               (long long)c.campaigns, (long long)c.findings,
               (long long)c.sightings, (long long)c.samples,
               (long long)c.worst_cases);
    return CLI_EXIT_OK;
}

int cli_db_vacuum(fia_store *s, const char *path, int json)
{
    int64_t before = 0, after = 0;
    if (fia_store_vacuum(s, &before, &after) != FIA_OK) {
        fprintf(stderr, "fiacheck db: %s\n", fia_store_errmsg(s));
        return CLI_EXIT_USAGE;
    }
    if (json)
        printf("{\"bytes_before\":%lld,\"bytes_after\":%lld}\n",
               (long long)before, (long long)after);
    else
        printf("vacuumed %s: %.1f MB -> %.1f MB\n", path, before / 1e6,
               after / 1e6);
    return CLI_EXIT_OK;
}
