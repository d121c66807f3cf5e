/* cli/: `bench --db` (cli/bench_db.c) and the store's benchmark figures
 * in `db` (cli/db_bench.c). */
#ifndef FIA_CLI_BENCH_H
#define FIA_CLI_BENCH_H

/* Runs the benchmark binary path with argv (argv[0] = path, NULL-ended)
 * and stores the figures it records as one run of suite ("fast",
 * "kernels") in the store db at revision.  An exit status of cli.h. */
int cli_bench_recorded(const char *path, char **argv, const char *suite,
                       const char *db, const char *revision);

#include <stdint.h>
#include "fia/status.h"
struct fia_store;

/* `db bench`: the figures of one revision (NULL: all) on stdout, text or
 * JSON lines; *count of them.  A store status (fia/store.h). */
fia_status cli_db_bench_list(struct fia_store *s, const char *revision,
                             int json, int64_t *count);

/* The benchmark part of `db regressions` (cli/db_bench.c): each figure
 * measured at both revisions on one machine, printed when slower or
 * faster (every one with all, or as JSON); the counts filled.  A store
 * status. */
typedef struct cli_db_bench {
    int json, all;
    int64_t compared, too_few, slower;
} cli_db_bench;
fia_status cli_db_bench_compare(struct fia_store *s, const char *base,
                                const char *head, cli_db_bench *b);

#endif
