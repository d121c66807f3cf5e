/* Crash mode (fuzz/crash.c): a finding aborts the process from a function
 * named after its kind, after printing its signature, message and case
 * text; every kind the code has gets a function of its own (an engine's
 * crash state is its top frames, so two kinds must not share one).  Each
 * kind is tried in a child process, which must die of SIGABRT. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "test_file.h"
#include "fuzz/fuzz.h"

void fia_finding_status_mismatch(void);
void fia_finding_accuracy(void);
void fia_finding_nan_leak(void);
void fia_finding_harness_error(void);
void fia_finding_metamorphic(void);
void fia_finding_other(void);

static const char *small_case =
    "input_layout = BNSD\nnum_heads = 2\nscale = 0.5\n"
    "query = fp16 [1,2,4,16]\nkey = fp16 [1,2,8,16]\nvalue = fp16 [1,2,8,16]\n";

/* Runs fuzz_crash_on_finding on a finding of kind in a child whose stderr
 * goes to the file err; the child's wait status. */
static int crash_child(const fia_case *c, const char *kind, const char *err)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (freopen(err, "w", stderr) == NULL)
            _exit(9);
        fuzz_finding f;
        fuzz_finding_of_artifact(&f, c, "crash", FUZZ_NUMERIC, "doc", "",
                                 "", "a message");
        snprintf(f.kind, sizeof f.kind, "%s", kind);
        snprintf(f.signature, sizeof f.signature, "%s|sig", kind);
        if (fuzz_finding_attach_text(&f, c) != FIA_OK)
            _exit(8);
        fuzz_crash_on_finding(&f);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

/* Whether the file at path holds text (text of one line: no newline). */
static int file_has(const char *path, const char *text)
{
    char *all = test_read_file(path, NULL);
    int found = all != NULL && strstr(all, text) != NULL;
    free(all);
    return found;
}

int main(void)
{
    static const char *const kinds[][2] = {
        {"status-mismatch", "fia_finding_status_mismatch"},
        {"accuracy", "fia_finding_accuracy"},
        {"nan-leak", "fia_finding_nan_leak"},
        {"harness-error", "fia_finding_harness_error"},
        {"metamorphic", "fia_finding_metamorphic"},
        {"crash", "fia_finding_other"},
    };
    /* the names engines will see, one per kind */
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        CHECK_MSG(strcmp(fuzz_crash_function(kinds[i][0]), kinds[i][1]) == 0,
                  "%s -> %s", kinds[i][0], fuzz_crash_function(kinds[i][0]));
    /* not folded into one function by the compiler or linker */
    void (*fns[])(void) = {fia_finding_status_mismatch, fia_finding_accuracy,
                           fia_finding_nan_leak, fia_finding_harness_error,
                           fia_finding_metamorphic, fia_finding_other};
    for (size_t i = 0; i < 6; i++)
        for (size_t j = i + 1; j < 6; j++)
            CHECK(fns[i] != fns[j]);

    fia_case c;
    fia_error e;
    CHECK(fia_case_parse_string(small_case, "small", &c, &e) == FIA_OK);
    char err[] = "/tmp/fia_crash_XXXXXX";
    int fd = mkstemp(err);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        int st = crash_child(&c, kinds[i][0], err);
        CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT,
                  "%s: wait status %d", kinds[i][0], st);
        char want[96];
        snprintf(want, sizeof want, "fuzz: finding %s|sig: a message",
                 kinds[i][0]);
        CHECK_MSG(file_has(err, want), "%s: no signature line", kinds[i][0]);
        CHECK(file_has(err, "# fiacheck-target: fuzz_numeric"));
        CHECK(file_has(err, "query = fp16 [1,2,4,16]"));
        CHECK(file_has(err, "fuzz: end of the case"));
    }
    unlink(err);
    fia_case_free(&c);
    return check_summary();
}
