/* fiacheck command-line tool: shared declarations of the subcommands. */
#ifndef FIA_CLI_H
#define FIA_CLI_H

#include <stdio.h>
#include "fia/case.h"
#include "fia/status.h"

/* Exit codes of every subcommand. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FINDING 1
#define CLI_EXIT_USAGE 2

int cmd_run(int argc, char **argv);
int cmd_ref(int argc, char **argv);
int cmd_rules(int argc, char **argv);

/* Calls fast/'s two-phase API with the case's parameters and tensors.
 * Phase two runs only when `compute` is set and phase one succeeded.
 * Returns the first non-OK status (phase one's, else phase two's); `msg`
 * receives fastLastError() on failure. */
fia_status cli_call_fast(const fia_case *c, const fia_case_data *d,
                         fia_profile profile, int compute, char *msg,
                         size_t msglen);

/* JSON string literal of s (quotes included) to f. */
void cli_json_string(FILE *f, const char *s);

#endif
