/* fiacheck command-line tool: shared declarations of the subcommands. */
#ifndef FIA_CLI_H
#define FIA_CLI_H

#include <stdio.h>
#include "fia/case.h"
#include "fia/check.h"
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
/* `db import` (cmd_db_import.c): argv after the word import. */
int cmd_db_import(int argc, char **argv);
int cmd_fuzz(int argc, char **argv);
int cmd_repro(int argc, char **argv);
int cmd_minimize(int argc, char **argv);
int cmd_survey(int argc, char **argv);
/* `report` (cmd_report.c, report_*.c). */
int cmd_report(int argc, char **argv);
/* `export` (cmd_export.c, export_*.c): cases as the device's files. */
int cmd_export(int argc, char **argv);

/* The git revision this fiacheck was built from (40 hex digits, or
 * "unknown" when built without git) and whether the tree differed from it
 * (revision.c; fixed at build time, not read from the tree at run time). */
const char *cli_build_revision(void);
int cli_build_dirty(void);
/* How listings show a revision: a git commit by its first 12 digits, any
 * other name (a plug-in's version) whole; into buf, returned. */
const char *cli_revision_short(const char *rev, char *buf, size_t n);
/* The store's revision that name means (revision.c): itself, the one
 * revision it is a prefix of (>= 4 characters), or the commit git resolves
 * it to in the working directory (HEAD, a branch).  *full to free.
 * FIA_ERR_BAD_INPUT when unknown (the known ones listed) or ambiguous (the
 * matches listed), the store's status when it fails, FIA_ERR_NOMEM. */
struct fia_store;
fia_status cli_resolve_revision(struct fia_store *s, const char *name,
                                char **full, fia_error *err);
/* The text of finding `arg` (the caller frees it): a store id (digits),
 * *id set, or a case file.  FIA_OK, the case file's reading status, the
 * store's status as it returned it (FIA_ERR_IO: no store; FIA_ERR_NOT_FOUND:
 * no such finding), FIA_ERR_BAD_INPUT (built without the store),
 * FIA_ERR_NOMEM. */
fia_status cli_load_finding(const char *arg, const char *db, int minimized,
                            char **text, int64_t *id, fia_error *err);
/* Target, profile and transform from a finding's "# fiacheck-" header
 * (numeric, doc and "" when absent); also sets the system under test to
 * the kernel level and threads the finding recorded (for fast/, unless
 * FIA_FAST_ISA / FIA_FAST_THREADS are set; a level this machine lacks:
 * said on stderr, the best one is used).  FIA_OK, or FIA_ERR_BAD_INPUT
 * (said on stderr) when the finding was made with another system than the
 * current one. */
fia_status cli_finding_context(const char *text, fuzz_target_id *t,
                               fia_profile *p, char *transform, size_t tlen);

/* A judged case as `run` prints it (verdict_print.c): its text report,
 * or one JSON line (docs/cli.md), under the profile it was judged in. */
void cli_print_verdict_text(const char *path, const fia_check_result *c,
                            fia_profile profile);
void cli_print_verdict_json(const char *path, const fia_check_result *c,
                            fia_profile profile);
/* `judge` (cmd_judge.c, judge_*.c): a device's answers to exported cases
 * judged. */
int cmd_judge(int argc, char **argv);

/* JSON string literal of s (quotes included) to f: always valid UTF-8
 * (a byte that does not start a well-formed UTF-8 sequence becomes U+FFFD)
 * with every control character escaped, whatever the input. */
void cli_json_string(FILE *f, const char *s);
/* A field of a JSON object on stdout, after the object's first one:
 * ,"key":"v" (null for NULL) / ,"key":number (null when not finite). */
void cli_json_kv(const char *key, const char *v);
void cli_json_num(const char *key, double v);
/* Unix seconds as ISO-8601 UTC ("2025-01-31T12:00:00Z") into buf. */
void cli_iso_time(char *buf, size_t n, int64_t t);
/* `fiacheck rules --api NAME`: the catalogue in the interface's words,
 * each rule marked by whether it concerns what the interface has; only
 * those with present_only (cli/rules_api.c). */
int cli_rules_api(fia_api api, int present_only, int json);

/* The system under test (sut.c).  cli_take_sut removes --sut PATH from
 * argv (argc updated), loads the plug-in and makes it current, and sets
 * FIACHECK_SUT for what the command starts; without --sut it loads the
 * one FIACHECK_SUT names, if any.  FIA_OK, or after saying why
 * FIA_ERR_BAD_INPUT (a bad option), FIA_ERR_IO (no such file),
 * FIA_ERR_NOMEM, or the status the plug-in's loading returned. */
fia_status cli_take_sut(const char *cmd, int *argc, char **argv);
/* The revision a run records by default: the system under test's (for
 * fast/, the build's; for a plug-in, its version). */
const char *cli_sut_revision(void);
/* The current system's run setting (kernel_level, threads), or NULL. */
const char *cli_sut_option(const char *name);
/* One line on what computes: "fast/ kernels avx512, 2 threads", or the
 * plug-in's name, version and what it is judged on. */
void cli_sut_describe(char *buf, size_t n);

/* Options (options.c).  Those returning fia_status: FIA_OK, or
 * FIA_ERR_BAD_INPUT after saying why on stderr as "fiacheck CMD: ..." (the
 * caller exits CLI_EXIT_USAGE). */
int cli_is_help(const char *arg);               /* -h or --help */
/* An option that makes no sense twice: *seen counts its uses. */
fia_status cli_once(const char *cmd, const char *opt, int *seen);
/* The value after argv[*i] into *v (*i advanced). */
fia_status cli_value(const char *cmd, int argc, char **argv, int *i,
                     const char **v);
/* v as a whole number in lo..hi. */
fia_status cli_long(const char *cmd, const char *opt, const char *v, long lo,
                    long hi, long *out);
/* --profile doc|cann at argv[*i] (given once). */
fia_status cli_profile(const char *cmd, int argc, char **argv, int *i,
                       fia_profile *p, int *seen);
/* --tolerance NAME | allclose RTOL ATOL at argv[*i] (given once) into
 * o->tolerance, o->rtol, o->atol. */
fia_status cli_tolerance(const char *cmd, int argc, char **argv, int *i,
                         fia_check_options *o, int *seen);
/* The tolerance as --tolerance takes it ("allclose R A", "vendor"); and
 * back (FIA_OK, or FIA_ERR_BAD_INPUT when text is not one). */
void cli_tolerance_text(const fia_check_options *o, char *out, size_t len);
fia_status cli_tolerance_from_text(const char *text, fia_check_options *o);
/* The options of repro and minimize (options.c). */
typedef struct cli_finding_opts {
    const char *arg;            /* ID|CASE */
    const char *db, *out;       /* out: minimize only */
    int profile_given, tolerance_given;
    fia_profile profile;
    int target;                 /* fuzz_target_id; -1: the finding's */
    fia_check_options check;    /* the tolerance given */
    int json;
    long max_attempts;          /* minimize only */
} cli_finding_opts;
/* Parses repro's (minimize 0) or minimize's options. */
fia_status cli_finding_args(const char *cmd, int minimize, int argc,
                            char **argv, cli_finding_opts *o);

/* The finding's target, check options (profile, tolerance from its
 * "# fiacheck-" header unless given in fo) and transform (cmd_repro.c);
 * FIA_OK, or FIA_ERR_BAD_INPUT (said: another system's finding, a
 * tolerance or fast-profile fiacheck does not know). */
fia_status cli_finding_options(const char *text, const cli_finding_opts *fo,
                               fuzz_target_id *t, fia_check_options *o,
                               char *transform, size_t tlen);

/* Reports the reference's progress on stderr (options.c): a
 * fia_ref_progress_fn, ctx the case's name. */
void cli_ref_progress(int64_t done, int64_t total, void *ctx);

/* stdout and stderr through the terminal escaper from now on (text_out.c:
 * control characters and invalid UTF-8 of echoed input shown as \xHH);
 * cli_stderr_raw() is stderr without it, for the live line's \r. */
void cli_text_output_install(void);

/* Every --tolerance the comparator knows, from its one list (compare/):
 * "bound|flash-attn|...|allclose RTOL ATOL", for help texts and errors. */
const char *cli_tolerance_names(void);
FILE *cli_stderr_raw(void);

/* The live progress line (live_line.c): on a terminal (cli_live_tty) one
 * line rewritten in place, cut to the terminal's width (cli_live_width:
 * TIOCGWINSZ, else COLUMNS, else 80); elsewhere one whole line per update.
 * cli_live_end ends a line left on the terminal; cli_live_clear wipes it
 * (text_out.c does before other output reaches the terminal, so that a
 * message never lands in the middle of the live line). */
int cli_live_tty(void);
int cli_live_width(void);
void cli_live_print(const char *text);
void cli_live_end(void);
void cli_live_clear(void);

#endif
