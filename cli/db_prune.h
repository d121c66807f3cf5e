/* What keeps a store small, as the db command shows it: `db prune`, `db
 * vacuum` (cli/db_prune.c) and `db worst` (cli/db_worst.c), which prints a
 * worst case kept in its generator form whole. */
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
/* The worst case of bucket at revision (full) on stdout, regenerated when
 * stored in its generator form; 0, or 2 said.  The store stays open. */
int cli_db_worst(fia_store *s, const char *revision, const char *bucket);

#endif
