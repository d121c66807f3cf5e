/* `fiacheck rules [--json]`: the interception rule catalogue. */
#include <string.h>
#include "cli.h"
#include "fia/oracle.h"

int cmd_rules(int argc, char **argv)
{
    int json = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else {
            fprintf(stderr, "usage: fiacheck rules [--json]\n");
            return CLI_EXIT_USAGE;
        }
    }
    fia_rules_print(stdout, json);
    return CLI_EXIT_OK;
}
