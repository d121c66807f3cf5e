/* `fiacheck db worst --revision REV --bucket B`: a bucket's worst case as a
 * case file for repro.  One stored in its generator form (fuzz/worst_text.c)
 * is decoded again and checked against its digest first. */
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"
#include "db_prune.h"

int cli_db_worst(fia_store *s, const char *revision, const char *bucket)
{
    char *text = NULL;
    double ratio = 0;
    int64_t campaign = 0;
    if (fia_store_worst_case(s, revision, bucket, &text, &ratio, &campaign) !=
        FIA_OK) {
        fprintf(stderr, "fiacheck db: %s\n", fia_store_errmsg(s));
        return CLI_EXIT_USAGE;
    }
    char *full = NULL;
    fia_error err = {0};
    fia_status st = fuzz_worst_full_text(text, &full, &err);
    free(text);
    if (st != FIA_OK) {
        fprintf(stderr, "fiacheck db: worst case of %s at %s (campaign "
                "%lld): %s\n", bucket, revision, (long long)campaign, err.msg);
        return CLI_EXIT_USAGE;
    }
    fputs(full, stdout); /* the case file as it was judged */
    free(full);
    fprintf(stderr, "fiacheck db: worst case of %s at %s: ratio %.4g "
            "(campaign %lld)\n", bucket, revision, ratio, (long long)campaign);
    return CLI_EXIT_OK;
}
