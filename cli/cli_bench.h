/* cli/: `bench --db` (cli/bench_db.c). */
#ifndef FIA_CLI_BENCH_H
#define FIA_CLI_BENCH_H

/* Runs the benchmark binary path with argv (argv[0] = path, NULL-ended)
 * and stores the figures it records as one run of suite ("fast",
 * "kernels") in the store db at revision.  An exit status of cli.h. */
int cli_bench_recorded(const char *path, char **argv, const char *suite,
                       const char *db, const char *revision);

#endif
