/* fiacheck: proves a fused attention kernel right or finds where it is
 * wrong.  One tool, one subcommand per job. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "fia/fast.h"


typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} command;

static const command commands[] = {
    {"run", cmd_run, "run CASE... [--profile doc|cann] [--json] "
                     "[--status-only] [--tolerance T] ..."},
    {"ref", cmd_ref, "ref CASE --out FILE [--precision BITS] [--progress]"},
    {"bench", cmd_bench, "bench --ref|--fast|--kernels|--fuzz|--tolerance "
                         "[ARGS...]"},
    {"fuzz", cmd_fuzz, "fuzz [--target params|numeric|metamorphic|all] "
                       "[--time SECONDS] [--jobs N] [--db PATH] "
                       "[--profile doc|cann] [--seed N]"},
    {"repro", cmd_repro, "repro ID|CASE [--db PATH] [--profile doc|cann] "
                         "[--target T] [--tolerance T] [--json]"},
    {"minimize", cmd_minimize, "minimize ID|CASE [--db PATH] [--out FILE] "
                               "[--profile doc|cann] [--target T] ..."},
    {"rules", cmd_rules, "rules [--json] | rules --coverage [--db PATH] "
                         "[CASE...] [--profile doc|cann] [--json]"},
    {"survey", cmd_survey, "survey [--cases N] [--seed S] [--db PATH] "
                           "[--profile doc|cann] [--revision NAME]"},
    {"db", cmd_db, "db findings|show ID|stats|regressions|mark|merge|export|"
                   "init [--db PATH] [--json]   (fiacheck db --help)"},
    {"report", cmd_report, "report [--db PATH] [--out FILE]   (the store as "
                           "one HTML page)"},
    {"judge", cmd_judge, "judge DIR [--db PATH] [--json] [--profile doc|cann] "
                         "...   (a device's answers to exported cases)"},
    {"export", cmd_export, "export CASE... --dir D [--api NAME]   (cases as "
                           "a device user's files and calls)"},
};

/* The commands that run fast/.  Its numbers depend on FIA_FAST_ISA and
 * FIA_FAST_THREADS, so a setting that names nothing stops them before they
 * do anything (fast/ alone would fall back in silence): 1 when refused. */
static int fast_settings_refused(const char *cmd)
{
    static const char *const runs_fast[] = {"run", "repro", "minimize",
                                            "fuzz", "bench", "survey"};
    const char *why = fastConfigError();
    for (size_t i = 0; why && i < sizeof runs_fast / sizeof runs_fast[0]; i++)
        if (strcmp(cmd, runs_fast[i]) == 0) {
            fprintf(stderr, "fiacheck %s: %s\n", cmd, why);
            return 1;
        }
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: fiacheck COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  fiacheck %s\n", commands[i].help);
    fprintf(f, "\n`fiacheck help COMMAND` or `fiacheck COMMAND --help`: its "
               "options (docs/cli.md)\n"
               "run, repro, minimize, fuzz, bench and survey take --sut "
               "PLUGIN.so: test that system instead of fast/ (docs/sut.md)\n"
               "exit status: 0 all passed, 1 a finding, 2 bad usage or "
               "input\n");
}

int main(int argc, char **argv)
{
    cli_text_output_install(); /* echoed input never commands the terminal */
    /* A SIGCHLD ignored by the parent is ignored here too, and the kernel
     * then reaps fiacheck's children itself: every wait for a worker, a
     * campaign's job, git or gnuplot would find none. */
    signal(SIGCHLD, SIG_DFL);
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    /* `fiacheck help CMD` is `fiacheck CMD --help` */
    char help_arg[] = "--help";
    if (strcmp(argv[1], "help") == 0 && argc > 2) {
        argc = 3;
        argv[1] = argv[2];
        argv[2] = help_arg;
    } else if (cli_is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("fiacheck %s%s\n", cli_build_revision(),
               cli_build_dirty() ? " (dirty)" : "");
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0) {
            int n = argc - 2;
            if (fast_settings_refused(argv[1]) ||
                cli_take_sut(argv[1], &n, argv + 2) != FIA_OK)
                return CLI_EXIT_USAGE;
            return commands[i].run(n, argv + 2);
        }
    fprintf(stderr, "fiacheck: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return CLI_EXIT_USAGE;
}
