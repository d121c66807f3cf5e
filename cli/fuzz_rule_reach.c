/* How soon a campaign breaks each rule alone: on a call every other rule
 * accepts, the one input that tests that check of the system under test by
 * itself (fia_oracle_sole_rule).  The workers write, in their stats files,
 * when each rule first did so (fuzz/report.c, "alone RULE-ID SECONDS");
 * the summary counts, over a campaign's targets, the rules that can reject
 * (a REJECT or NOT_MODELED row with a status in some profile), how many
 * were broken alone within the first `within` seconds, the slowest of
 * them, and the rules never broken so (a rule another always accompanies,
 * or one the decoders never draw). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_runner.h"

int fuzz_rule_reach_line(target_run *tr, const char *line)
{
    char id[64];
    double t;
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

/* The first time over the wanted targets, in seconds from the earliest
 * of their starts; -1 when none broke the rule alone. */
static double first_time(const target_run *runs, const int *want, size_t i)
{
    double start = 0, first = 0;
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++) {
        if (!want[t] || runs[t].campaign == 0)
            continue;
        if (start == 0 || runs[t].started < start)
            start = runs[t].started;
        const double x = runs[t].alone_first[i];
        if (x > 0 && (first == 0 || x < first))
            first = x;
    }
    if (first == 0)
        return -1;
    return first > start ? first - start : 0;
}

void fuzz_print_rule_reach(const target_run *runs, const int *want,
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
