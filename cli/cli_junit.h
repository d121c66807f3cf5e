/* cli/junit.c: a run's cases as a JUnit XML report (`run --junit FILE`). */
#ifndef FIA_CLI_JUNIT_H
#define FIA_CLI_JUNIT_H

#include "fia/check.h"

typedef struct cli_junit cli_junit;

/* A report to be written to path at cli_junit_close; NULL out of memory. */
cli_junit *cli_junit_open(const char *path);
/* One case file's verdict, its reason and time. */
void cli_junit_case(cli_junit *j, const char *path, fia_verdict v,
                    const char *reason, double seconds);
/* Writes the report (FILE.tmp, renamed) and frees j: FIA_OK, or (said on
 * stderr) FIA_ERR_IO, FIA_ERR_NOMEM. */
fia_status cli_junit_close(cli_junit *j);

#endif
