/* `fiacheck bench --fast|--kernels --db PATH [--revision R]`: runs the
 * benchmark binary with FIA_BENCH_RECORD set (bench/bench_record.h), then
 * stores the figures it recorded as one run of the store, with the build's
 * revision (or R) and this machine's name, so that `db regressions` can say
 * whether a revision got slower (store/store_bench.c). */
#define _XOPEN_SOURCE 700 /* mkstemp, setenv */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "fia/sut_host.h"
#include "cli_bench.h"
#include "fia/store.h"

/* "CPU model name (N cpus)" from /proc/cpuinfo, "unknown" without it. */
static void machine_name(char *out, size_t len)
{
    char line[512], model[256] = "unknown";
    int cpus = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "processor", 9) == 0)
            cpus++;
        const char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon != NULL &&
            strcmp(model, "unknown") == 0) {
            colon++;
            while (*colon == ' ' || *colon == '\t')
                colon++;
            snprintf(model, sizeof model, "%.*s",
                     (int)strcspn(colon, "\n"), colon);
        }
    }
    if (f != NULL)
        fclose(f);
    snprintf(out, len, "%s (%d cpu%s)", model, cpus, cpus == 1 ? "" : "s");
}

/* The figures of the record file into figs (at most max); FIA_ERR_BAD_INPUT
 * on a line that is not one (the message names it). */
static fia_status read_figures(FILE *f, fia_bench_figure *figs, int max,
                        char (*names)[96], char (*units)[24],
                        char (*ofs)[24], int *n)
{
    char line[512];
    *n = 0;
    for (int ln = 1; fgets(line, sizeof line, f) != NULL; ln++) {
        char *tab[6];
        int k = 0;
        line[strcspn(line, "\n")] = '\0';
        for (char *p = line; k < 6 && p != NULL; k++) {
            tab[k] = p;
            p = strchr(p, '\t');
            if (p != NULL)
                *p++ = '\0';
        }
        char *end1, *end2;
        if (k != 6 || strcmp(tab[0], "figure") != 0) {
            fprintf(stderr, "fiacheck bench: record line %d is not a figure\n",
                    ln);
            return FIA_ERR_BAD_INPUT;
        }
        double v = strtod(tab[2], &end1), r = strtod(tab[4], &end2);
        if (*end1 != '\0' || *end2 != '\0' || !isfinite(v)) {
            fprintf(stderr, "fiacheck bench: record line %d: bad numbers\n",
                    ln);
            return FIA_ERR_BAD_INPUT;
        }
        if (*n == max) {
            fprintf(stderr, "fiacheck bench: more than %d figures\n", max);
            return FIA_ERR_BAD_INPUT;
        }
        snprintf(names[*n], sizeof names[*n], "%s", tab[1]);
        snprintf(units[*n], sizeof units[*n], "%s", tab[3]);
        snprintf(ofs[*n], sizeof ofs[*n], "%s", tab[5]);
        figs[*n] = (fia_bench_figure){names[*n], v, units[*n], r, ofs[*n]};
        (*n)++;
    }
    return FIA_OK;
}

#define BENCH_MAX_FIGURES 512

int cli_bench_recorded(const char *path, char **argv, const char *suite,
                       const char *db, const char *revision)
{
    /* the store first: a run that cannot be stored is not run */
    char errbuf[512];
    fia_store *s = NULL;
    if (fia_store_open(db, FIA_STORE_OPEN_CREATE, &s, errbuf,
                       (int)sizeof errbuf) != FIA_OK) {
        fprintf(stderr, "fiacheck bench: %s\n", errbuf);
        return CLI_EXIT_USAGE;
    }
    char tmp[] = "/tmp/fiacheck-bench-record-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "fiacheck bench: cannot make %s: %s\n", tmp,
                strerror(errno));
        fia_store_close(s);
        return CLI_EXIT_USAGE;
    }
    close(fd);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("FIA_BENCH_RECORD", tmp, 1);
        execv(path, argv);
        fprintf(stderr, "fiacheck bench: cannot run %s: %s\n", path,
                strerror(errno));
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
        WEXITSTATUS(st) != 0) {
        fprintf(stderr, "fiacheck bench: %s failed: nothing stored\n", path);
        unlink(tmp);
        fia_store_close(s);
        return CLI_EXIT_USAGE;
    }
    static fia_bench_figure figs[BENCH_MAX_FIGURES];
    static char names[BENCH_MAX_FIGURES][96], units[BENCH_MAX_FIGURES][24],
        ofs[BENCH_MAX_FIGURES][24];
    int n = 0;
    FILE *f = fopen(tmp, "r");
    int bad = f == NULL || read_figures(f, figs, BENCH_MAX_FIGURES, names,
                                        units, ofs, &n) != FIA_OK;
    if (f != NULL)
        fclose(f);
    unlink(tmp);
    if (bad || n == 0) {
        fprintf(stderr, "fiacheck bench: %s recorded no figures: nothing "
                "stored\n", path);
        fia_store_close(s);
        return CLI_EXIT_USAGE;
    }
    char machine[320], command[1024];
    machine_name(machine, sizeof machine);
    size_t at = strncmp(suite, "sut-", 4) == 0
                    ? (size_t)snprintf(command, sizeof command,
                                       "fiacheck bench --sut %s",
                                       fia_sut_current_path())
                    : (size_t)snprintf(command, sizeof command,
                                       "fiacheck bench --%s", suite);
    for (int i = 1; argv[i] != NULL && at < sizeof command; i++)
        at += (size_t)snprintf(command + at, sizeof command - at, " %s",
                               argv[i]);
    fia_bench_run run = {revision, machine, suite, command, ""};
    if (fia_store_bench_add(s, &run, figs, n) != FIA_OK) {
        fprintf(stderr, "fiacheck bench: %s\n", fia_store_errmsg(s));
        fia_store_close(s);
        return CLI_EXIT_USAGE;
    }
    fia_store_close(s);
    printf("bench: %d figures stored in %s (run %s, revision %s, machine "
           "%s)\n", n, db, run.uuid, revision, machine);
    return CLI_EXIT_OK;
}
