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
int cmd_bench(int argc, char **argv);
int cmd_db(int argc, char **argv);

/* JSON string literal of s (quotes included) to f. */
void cli_json_string(FILE *f, const char *s);

#endif
