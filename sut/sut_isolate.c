/* A plug-in, or fast/, called out of process (fia/sut_host.h
 * fia_sut_isolate): served by fiacheck-plugin-worker, the program built
 * beside this one, over the worker protocol (docs/sut/exec.md), so that
 * a call that crashes, hangs or ends the process is a finding of its case
 * and the harness carries on.  There is one supervised path: this is
 * `--sut exec:'fiacheck-plugin-worker PLUGIN.so'` with the command made
 * here. */
#define _XOPEN_SOURCE 700 /* readlink */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "exec.h"
#include "fia/sut_host.h"

/* The folder of the running program into dir[n]; -1 when unknown. */
static int program_dir(char *dir, size_t n)
{
    ssize_t k = readlink("/proc/self/exe", dir, n - 1);
    if (k <= 0 || (size_t)k >= n - 1)
        return -1;
    dir[k] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        return -1;
    *slash = '\0';
    return 0;
}

/* s as one word of a shell line ('...', a ' as '\''), appended to
 * out[n] at *k; -1 when it does not fit. */
static int shell_word(const char *s, char *out, size_t n, size_t *k)
{
    if (*k + 3 >= n)
        return -1;
    out[(*k)++] = '\'';
    for (; *s; s++) {
        if (*k + 6 >= n)
            return -1;
        if (*s == '\'') {
            memcpy(out + *k, "'\\''", 4);
            *k += 4;
        } else {
            out[(*k)++] = *s;
        }
    }
    out[(*k)++] = '\'';
    out[*k] = '\0';
    return 0;
}

/* s appended as it is to out[n] at *k; -1 when it does not fit. */
static int append(const char *s, char *out, size_t n, size_t *k)
{
    size_t m = strlen(s);
    if (*k + m >= n)
        return -1;
    memcpy(out + *k, s, m + 1);
    *k += m;
    return 0;
}

const char *fia_sut_worker_program(void)
{
    static char path[PATH_MAX + 32];
    char dir[PATH_MAX];
    if (program_dir(dir, sizeof dir) != 0)
        return NULL;
    snprintf(path, sizeof path, "%s/fiacheck-plugin-worker", dir);
    return access(path, X_OK) == 0 ? path : NULL;
}

fia_status fia_sut_isolate(const char *plugin, const fia_sut *checked,
                           const fia_sut **out, fia_error *err)
{
    char dir[PATH_MAX], fast[PATH_MAX + 64], spec[2 * PATH_MAX + 64];
    *out = NULL;
    const char *worker = fia_sut_worker_program();
    if (worker == NULL)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "cannot call the system under "
                        "test out of process: no fiacheck-plugin-worker "
                        "beside this fiacheck (build its target, or give "
                        "--no-isolate to call it in-process)");
    if (plugin == NULL) { /* fast/: its plug-in build, beside the program */
        if (program_dir(dir, sizeof dir) != 0)
            return fia_fail(err, FIA_ERR_BAD_INPUT, "cannot find the folder "
                            "of this program");
        snprintf(fast, sizeof fast, "%s/plugins/libfiacheck_sut_fast.so",
                 dir);
        if (access(fast, R_OK) != 0)
            return fia_fail(err, FIA_ERR_BAD_INPUT, "--isolate: no %s (fast/ "
                            "as a plug-in, which the worker serves; build "
                            "the target fiacheck_sut_fast)", fast);
        plugin = fast;
    }
    /* `exec` in front: the shell becomes the worker, and does not print
     * its own line ("Segmentation fault") for a worker that dies */
    size_t k = 0;
    spec[0] = '\0';
    if (append(FIA_SUT_EXEC_PREFIX "exec ", spec, sizeof spec, &k) != 0)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "out of memory");
    /* fast/, or a plug-in with run settings: the worker takes them, so
     * that a case's kernel_level, threads and task_order reach it */
    int options = checked == NULL || checked->set_option != NULL;
    if (shell_word(worker, spec, sizeof spec, &k) != 0 ||
        append(options ? " --options " : " ", spec, sizeof spec, &k) != 0 ||
        shell_word(plugin, spec, sizeof spec, &k) != 0)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "the plug-in's path is too "
                        "long to call it out of process: %.200s", plugin);
    fia_status st = fia_sut_exec_load(spec, out, err);
    if (st != FIA_OK)
        return st;
    if (options)
        fia_sut_exec_take_options();
    fia_sut_exec_name_worker("out of process: the plug-in's worker");
    /* what the loader checked in-process: the worker passes a call as
     * that ABI's (a 1.0 table is told no product) */
    if (checked != NULL) {
        if (strcmp((*out)->name, checked->name) != 0) {
            st = fia_fail(err, FIA_ERR_BAD_INPUT, "the worker serving %s "
                          "says it is %s", checked->name, (*out)->name);
            *out = NULL;
            return st;
        }
        fia_sut_exec_set_abi(checked->abi_version);
    }
    return FIA_OK;
}
