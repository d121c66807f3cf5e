/* fiacheck command-line tool: shared declarations of the subcommands. */
#ifndef FIA_CLI_H
#define FIA_CLI_H

#include <stdio.h>
#include "fia/case.h"
#include "fia/error.h"
#include "fia/status.h"
#include "fuzz/fuzz.h"

/* Exit codes of every subcommand. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FINDING 1
#define CLI_EXIT_USAGE 2

int cmd_run(int argc, char **argv);
int cmd_ref(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_db(int argc, char **argv);
int cmd_fuzz(int argc, char **argv);
int cmd_repro(int argc, char **argv);
int cmd_minimize(int argc, char **argv);

/* The git revision this fiacheck was built from (40 hex digits, or
 * "unknown" when built without git) and whether the tree differed from it
 * (revision.c; fixed at build time, not read from the tree at run time). */
const char *cli_build_revision(void);
int cli_build_dirty(void);
/* The store's revision that name means (revision.c): itself, the one
 * revision it is a prefix of (>= 4 characters), or the commit git resolves
 * it to in the working directory (HEAD, a branch).  *full to free.
 * FIA_ERR_BAD_INPUT when unknown (the known ones listed) or ambiguous (the
 * matches listed), FIA_ERR_IO (store), FIA_ERR_NOMEM. */
struct fia_store;
fia_status cli_resolve_revision(struct fia_store *s, const char *name,
                                char **full, fia_error *err);
/* The text of finding `arg` (the caller frees it): a store id (digits),
 * *id set, or a case file.  FIA_OK, FIA_ERR_IO (cannot read it, no store),
 * FIA_ERR_BAD_INPUT (no such finding), FIA_ERR_NOMEM. */
fia_status cli_load_finding(const char *arg, const char *db, int minimized,
                            char **text, int64_t *id, fia_error *err);
/* Target, profile and transform from a finding's "# fiacheck-" header
 * (numeric, doc and "" when absent); also sets fast/ to the kernel level and
 * threads the finding recorded, unless FIA_FAST_ISA / FIA_FAST_THREADS are
 * set (a level this machine lacks: said on stderr, the best one is used). */
void cli_finding_context(const char *text, fuzz_target_id *t, fia_profile *p,
                         char *transform, size_t tlen);

/* JSON string literal of s (quotes included) to f. */
void cli_json_string(FILE *f, const char *s);

#endif
