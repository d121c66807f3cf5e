/* `--sut PATH`: the system under test a command runs (fia/sut_host.h).
 * The option is taken out of the command line before the command parses
 * it, the plug-in is loaded and made current, and FIACHECK_SUT is set to
 * its absolute path so that what the command starts (fuzz workers, bench
 * binaries) loads the same one.  `--sut exec:COMMAND` names a worker
 * process instead (docs/sut/exec.md), passed on as given, so that each
 * program started starts a worker of its own; `--timeout S` bounds its
 * answers.  The commands that judge case by case (run, repro, minimize,
 * survey) call a plug-in out of process, through fiacheck-plugin-worker
 * (fia_sut_isolate): a crash, a hang or an exit in a call is a finding of
 * its case, not the end of the command.  `--no-isolate` calls it
 * in-process; `--isolate` calls fast/ so too. */
#define _XOPEN_SOURCE 700 /* realpath, setenv */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "fia/sut_host.h"

/* The commands that run the system under test. */
static int runs_sut(const char *cmd)
{
    static const char *const cmds[] = {"run",  "repro", "minimize",
                                       "fuzz", "bench", "survey"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (strcmp(cmd, cmds[i]) == 0)
            return 1;
    return 0;
}

/* The commands that may call the system out of process, case by case:
 * fuzz keeps libFuzzer's in-process model (a crash is the engine's
 * artifact) and bench times the calls themselves. */
static int isolates(const char *cmd)
{
    return strcmp(cmd, "run") == 0 || strcmp(cmd, "repro") == 0 ||
           strcmp(cmd, "minimize") == 0 || strcmp(cmd, "survey") == 0;
}

static int isolate = -1; /* --isolate 1, --no-isolate 0, unsaid -1 */
static int isolated;     /* the current system is called out of process */

/* Like the other helpers here: FIA_OK, or after saying why on stderr the
 * status of what failed (fia_sut_load, fia_sut_isolate), FIA_ERR_BAD_INPUT
 * (a bad option), FIA_ERR_IO (no such file), FIA_ERR_NOMEM (setenv). */

/* "exec:COMMAND": a worker process, the command as given (it is a shell
 * line, not a path; the workers run it from the same directory). */
static fia_status use_worker(const char *cmd, const char *spec)
{
    fia_error err;
    const fia_sut *s;
    fia_status st = fia_sut_load(spec, &s, &err);
    if (st != FIA_OK) {
        fprintf(stderr, "fiacheck %s: --sut %s: %s\n", cmd, spec, err.msg);
        return st;
    }
    fia_sut_use(s, spec);
    if (setenv("FIACHECK_SUT", spec, 1) != 0) {
        fprintf(stderr, "fiacheck %s: cannot pass --sut on\n", cmd);
        return FIA_ERR_NOMEM;
    }
    /* fuzz and bench call the system in the programs they start, each with
     * a worker of its own: theirs would idle for the whole command (a call
     * of their own would start it again) */
    if (strcmp(cmd, "fuzz") == 0 || strcmp(cmd, "bench") == 0)
        fia_sut_exec_close();
    return FIA_OK;
}

static fia_status use_path(const char *cmd, const char *path)
{
    char abs[PATH_MAX];
    fia_error err;
    const fia_sut *s;
    fia_status st;
    if (strncmp(path, FIA_SUT_EXEC_PREFIX, strlen(FIA_SUT_EXEC_PREFIX)) == 0) {
        if (isolate == 0) {
            fprintf(stderr, "fiacheck %s: --no-isolate: a worker (--sut "
                    "exec:) is always another process\n", cmd);
            return FIA_ERR_BAD_INPUT;
        }
        return use_worker(cmd, path);
    }
    /* a file here: by its absolute path (dlopen would search the library
     * path for a bare name, and the workers run elsewhere) */
    const char *p = strchr(path, '/') != NULL || access(path, F_OK) == 0
                        ? realpath(path, abs) : path;
    if (p == NULL) {
        fprintf(stderr, "fiacheck %s: --sut %s: no such file\n", cmd, path);
        return FIA_ERR_IO;
    }
    if ((st = fia_sut_load(p, &s, &err)) != FIA_OK) {
        fprintf(stderr, "fiacheck %s: %s\n", cmd, err.msg);
        return st;
    }
    if (isolates(cmd) && isolate != 0) {
        const fia_sut *x;
        if ((st = fia_sut_isolate(p, s, &x, &err)) != FIA_OK) {
            fprintf(stderr, "fiacheck %s: --sut %s: %s\n", cmd, path,
                    err.msg);
            return st;
        }
        s = x;
        isolated = 1;
    }
    fia_sut_use(s, p);
    if (setenv("FIACHECK_SUT", p, 1) != 0) {
        fprintf(stderr, "fiacheck %s: cannot pass --sut on\n", cmd);
        return FIA_ERR_NOMEM;
    }
    return FIA_OK;
}

/* --timeout S: a worker's time for one answer, passed on to what the
 * command starts as FIACHECK_SUT_TIMEOUT. */
static fia_status set_timeout(const char *cmd, const char *v)
{
    double t;
    if (v == NULL || fia_sut_exec_parse_timeout(v, &t) != 0) {
        fprintf(stderr, "fiacheck %s: --timeout wants seconds > 0 (at most "
                "86400), not %s\n", cmd, v ? v : "nothing");
        return FIA_ERR_BAD_INPUT;
    }
    fia_sut_exec_set_timeout(t);
    if (setenv("FIACHECK_SUT_TIMEOUT", v, 1) != 0) {
        fprintf(stderr, "fiacheck %s: cannot pass --timeout on\n", cmd);
        return FIA_ERR_NOMEM;
    }
    return FIA_OK;
}

/* --isolate / --no-isolate at argv[i]: into `isolate`; FIA_OK, or
 * FIA_ERR_BAD_INPUT (said). */
static fia_status take_isolate(const char *cmd, const char *a)
{
    if (!isolates(cmd)) {
        fprintf(stderr, "fiacheck %s: takes no %s (run, repro, minimize and "
                "survey do; fuzz and bench call the system in-process)\n",
                cmd, a);
        return FIA_ERR_BAD_INPUT;
    }
    if (isolate != -1) {
        fprintf(stderr, "fiacheck %s: %s after %s\n", cmd, a,
                isolate ? "--isolate" : "--no-isolate");
        return FIA_ERR_BAD_INPUT;
    }
    isolate = strcmp(a, "--isolate") == 0;
    return FIA_OK;
}

/* fast/ out of process (--isolate without a plug-in). */
static fia_status isolate_builtin(const char *cmd)
{
    fia_error err;
    const fia_sut *x;
    fia_status st = fia_sut_isolate(NULL, NULL, &x, &err);
    if (st != FIA_OK) {
        fprintf(stderr, "fiacheck %s: --isolate: %s\n", cmd, err.msg);
        return st;
    }
    fia_sut_use(x, "");
    isolated = 1;
    return FIA_OK;
}

fia_status cli_take_sut(const char *cmd, int *argc, char **argv)
{
    fia_sut_builtin_set_version(cli_build_revision());
    int seen = 0, out = 0;
    fia_status st;
    /* --timeout and --isolate first: the worker --sut starts reads its
     * hello with the one, and is started or not by the other */
    for (int i = 0; runs_sut(cmd) && i < *argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--isolate") == 0 ||
            strcmp(argv[i], "--no-isolate") == 0) {
            if ((st = take_isolate(cmd, argv[i])) != FIA_OK)
                return st;
            memmove(argv + i, argv + i + 1,
                    sizeof *argv * (size_t)(*argc - i - 1));
            (*argc)--;
            i--;
            continue;
        }
        const char *v = NULL;
        if (strncmp(argv[i], "--timeout=", 10) == 0)
            v = argv[i] + 10;
        else if (strcmp(argv[i], "--timeout") == 0)
            v = i + 1 < *argc ? argv[i + 1] : NULL;
        else
            continue;
        if ((st = set_timeout(cmd, v)) != FIA_OK)
            return st;
        int n = strcmp(argv[i], "--timeout") == 0 ? 2 : 1;
        memmove(argv + i, argv + i + n, sizeof *argv * (size_t)(*argc - i - n));
        *argc -= n;
        i--;
    }
    for (int i = 0; i < *argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (strcmp(a, "--") == 0) { /* the rest is not ours */
            while (i < *argc)
                argv[out++] = argv[i++];
            break;
        }
        if (strncmp(a, "--sut=", 6) == 0)
            v = a + 6;
        else if (strcmp(a, "--sut") == 0) {
            if (i + 1 >= *argc) {
                fprintf(stderr, "fiacheck %s: --sut wants the path of a "
                        "plug-in\n", cmd);
                return FIA_ERR_BAD_INPUT;
            }
            v = argv[++i];
        } else {
            argv[out++] = argv[i];
            continue;
        }
        if (!runs_sut(cmd)) {
            fprintf(stderr, "fiacheck %s: takes no --sut (run, repro, "
                    "minimize, fuzz, bench and survey do)\n", cmd);
            return FIA_ERR_BAD_INPUT;
        }
        if (seen++) {
            fprintf(stderr, "fiacheck %s: --sut given twice\n", cmd);
            return FIA_ERR_BAD_INPUT;
        }
        if ((st = use_path(cmd, v)) != FIA_OK)
            return st;
    }
    *argc = out;
    argv[out] = NULL;
    /* no --sut: one from the environment (a parent fiacheck's) */
    if (!seen && runs_sut(cmd)) {
        const char *e = getenv("FIACHECK_SUT");
        if (e != NULL && *e) {
            if ((st = use_path(cmd, e)) != FIA_OK)
                return st;
        } else if (isolate == 1 && (st = isolate_builtin(cmd)) != FIA_OK) {
            return st;
        }
    }
    return FIA_OK;
}

const char *cli_sut_revision(void)
{
    return fia_sut_current_is_builtin() ? cli_build_revision()
                                        : fia_sut_current()->version;
}

const char *cli_sut_option(const char *name)
{
    const fia_sut *s = fia_sut_current();
    return s->get_option != NULL ? s->get_option(name) : NULL;
}

void cli_sut_describe(char *buf, size_t n)
{
    const fia_sut *s = fia_sut_current();
    const char *lv = cli_sut_option("kernel_level");
    const char *th = cli_sut_option("threads");
    if (fia_sut_current_is_builtin())
        snprintf(buf, n, "fast/ %s kernels, %s threads", lv ? lv : "?",
                 th ? th : "?");
    else if (isolated)
        snprintf(buf, n, "%s %.40s (%s) out of process (each call in "
                 "fiacheck-plugin-worker, --timeout %g s)", s->name,
                 s->version, (s->validates & FIA_SUT_CHECKS_STATUS)
                 ? "statuses and numbers" : "numbers only",
                 fia_sut_exec_timeout());
    else if (strncmp(fia_sut_current_path(), FIA_SUT_EXEC_PREFIX,
                     strlen(FIA_SUT_EXEC_PREFIX)) == 0)
        snprintf(buf, n, "%s %.40s (%s; worker `%.120s`)", s->name, s->version,
                 (s->validates & FIA_SUT_CHECKS_STATUS) ? "statuses and numbers"
                                                        : "numbers only",
                 fia_sut_exec_command());
    else
        snprintf(buf, n, "%s %.40s (%s%s%s%s%s)", s->name, s->version,
                 (s->validates & FIA_SUT_CHECKS_STATUS) ? "statuses and numbers"
                                                        : "numbers only",
                 lv ? ", kernels " : "", lv ? lv : "", th ? ", threads " : "",
                 th ? th : "");
}
