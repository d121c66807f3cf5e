/* `fiacheck db prune` / `db vacuum` (cli/db_prune.c). */
#ifndef FIA_CLI_DB_PRUNE_H
#define FIA_CLI_DB_PRUNE_H

#include "fia/store.h"

typedef struct cli_prune_opts {
    const char *revision; /* resolved already (a full revision) */
    const char *before;   /* a date or a revision, as given */
    const char *sut, *target;
    int all, worst_only, json;
} cli_prune_opts;

/* Exit status: 0, or 2 with the reason said (bad options, store error).
 * The store stays open. */
int cli_db_prune(fia_store *s, const cli_prune_opts *o);
int cli_db_vacuum(fia_store *s, const char *path, int json);

#endif
