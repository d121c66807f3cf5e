/* How soon a campaign reaches what it must test, from the workers' stats
 * files (fuzz/report.c):
 *  - each rule broken alone, on a call every other rule accepts: the one
 *    input that tests that check of the system under test by itself
 *    (fia_oracle_sole_rule; "alone RULE-ID SECONDS").  The summary counts,
 *    over a campaign's targets, the rules that can reject (a REJECT or
 *    NOT_MODELED row with a status in some profile), how many were broken
 *    alone within the first 30 s, the slowest of them, and the rules never
 *    broken so (a rule another always accompanies, or one the decoders
 *    never draw);
 *  - each path computed: the words of a computed case's bucket
 *    (fuzz_bucket: decode, prefill, sparse3, mask, paged, int8kv, rope,
 *    bf16, BNSD, ...; "reach WORD SECONDS"), the first time a case taking
 *    it had its outputs compared, and how many within the first 10 s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_runner.h"

/* A path's first time into tr->paths (a word past FUZZ_MAX_PATHS is
 * dropped: the summary says the count is short). */
static void path_line(target_run *tr, const char word[48], double t)
{
    int k = 0;
    while (k < tr->npaths && strcmp(tr->paths[k].word, word) != 0)
        k++;
    if (k == tr->npaths) {
        if (k == FUZZ_MAX_PATHS) {
            tr->paths_dropped = 1;
            return;
        }
        snprintf(tr->paths[k].word, sizeof tr->paths[k].word, "%s", word);
        tr->paths[k].first = 0;
        tr->npaths++;
    }
    if (tr->paths[k].first == 0 || t < tr->paths[k].first)
        tr->paths[k].first = t;
}

int fuzz_reach_line(target_run *tr, const char *line)
{
    char id[64], word[48];
    double t;
    if (sscanf(line, "reach %47s %lf", word, &t) == 2) {
        if (t > 0)
            path_line(tr, word, t);
        return 1;
    }
    if (sscanf(line, "alone %63s %lf", id, &t) != 2)
        return 0;
    const size_t i = fia_rule_index(fia_rule_find(id));
    if (i < FIA_ORACLE_MAX_RULES && t > 0 &&
        (tr->alone_first[i] == 0 || t < tr->alone_first[i]))
        tr->alone_first[i] = t;
    return 1;
}

static int can_reject(const fia_rule *r)
{
    return r->kind != FIA_RULE_NORMALIZE &&
           (r->doc_status != FIA_OK || r->cann_status != FIA_OK);
}

typedef struct reach {
    const char *id;
    double seconds; /* into the campaign; < 0 never */
} reach;

static int slowest_first(const void *a, const void *b)
{
    const reach *x = a, *y = b;
    return x->seconds < y->seconds ? 1 : x->seconds > y->seconds ? -1
                                                                 : strcmp(x->id, y->id);
}

/* The earliest start of the wanted targets' campaigns. */
static double campaign_start(const target_run *runs, const int *want)
{
    double start = 0;
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++)
        if (want[t] && runs[t].campaign != 0 &&
            (start == 0 || runs[t].started < start))
            start = runs[t].started;
    return start;
}

/* Rule i's first time alone over the wanted targets, in seconds from the
 * campaign's start; -1 when none broke it alone. */
static double first_time(const target_run *runs, const int *want, size_t i)
{
    double first = 0;
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++) {
        if (!want[t] || runs[t].campaign == 0)
            continue;
        const double x = runs[t].alone_first[i];
        if (x > 0 && (first == 0 || x < first))
            first = x;
    }
    if (first == 0)
        return -1;
    const double start = campaign_start(runs, want);
    return first > start ? first - start : 0;
}

static void print_rules(const target_run *runs, const int *want,
                        double within)
{
    const size_t n = fia_rule_count();
    reach *all = calloc(n + 1, sizeof *all);
    if (all == NULL) {
        fprintf(stderr, "fiacheck fuzz: out of memory for the rules' reach\n");
        return;
    }
    size_t m = 0, reached = 0, early = 0;
    for (size_t i = 0; i < n && i < FIA_ORACLE_MAX_RULES; i++) {
        const fia_rule *r = fia_rule_at(i);
        if (!can_reject(r))
            continue;
        all[m].id = r->id;
        all[m].seconds = first_time(runs, want, i);
        reached += all[m].seconds >= 0;
        early += all[m].seconds >= 0 && all[m].seconds <= within;
        m++;
    }
    qsort(all, m, sizeof *all, slowest_first);
    printf("rules broken alone (every other rule accepting the call): %zu of "
           "the %zu that can reject, %zu within %.0f s\n", reached, m, early,
           within);
    if (reached > 0) {
        printf("  slowest:");
        for (size_t i = 0, k = 0; i < m && k < 8; i++)
            if (all[i].seconds >= 0)
                printf(" %s %.1fs", all[i].id, all[i].seconds), k++;
        printf("\n");
    }
    if (reached < m) {
        printf("  never (%zu):", m - reached);
        size_t k = 0;
        for (size_t i = reached; i < m && k < 12; i++, k++)
            printf(" %s", all[i].id);
        printf("%s\n", m - reached > k ? " ..." : "");
    }
    free(all);
}

/* The paths over the wanted targets, each at its earliest time. */
static void print_paths(const target_run *runs, const int *want,
                        double within)
{
    reach all[FUZZ_TARGET_COUNT * FUZZ_MAX_PATHS];
    size_t m = 0, early = 0;
    int dropped = 0;
    const double start = campaign_start(runs, want);
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++) {
        if (!want[t] || runs[t].campaign == 0)
            continue;
        dropped |= runs[t].paths_dropped;
        for (int k = 0; k < runs[t].npaths; k++) {
            const double s = runs[t].paths[k].first > start
                                 ? runs[t].paths[k].first - start : 0;
            size_t j = 0;
            while (j < m && strcmp(all[j].id, runs[t].paths[k].word) != 0)
                j++;
            if (j == m)
                all[m++] = (reach){runs[t].paths[k].word, s};
            else if (s < all[j].seconds)
                all[j].seconds = s;
        }
    }
    if (m == 0)
        return;
    for (size_t j = 0; j < m; j++)
        early += all[j].seconds <= within;
    qsort(all, m, sizeof *all, slowest_first);
    printf("paths computed (the words of the compared cases' buckets): "
           "%zu%s, %zu within %.0f s\n  slowest:", m,
           dropped ? " (and more not counted)" : "", early, within);
    for (size_t j = 0; j < m && j < 8; j++)
        printf(" %s %.1fs", all[j].id, all[j].seconds);
    printf("\n");
}

void fuzz_print_reach(const target_run *runs, const int *want)
{
    print_rules(runs, want, 30.0);
    print_paths(runs, want, 10.0);
}
