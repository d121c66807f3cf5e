/* Crash mode: a finding turned into a crash, for engines that see nothing
 * else.
 *
 * libFuzzer, ClusterFuzzLite, OSS-Fuzz and Centipede report crashes,
 * timeouts and leaks; a finding that only prints a line is invisible to
 * them.  So a target that runs under an engine with no store to record to
 * (FIACHECK_DB unset), or with FIACHECK_ON_FINDING=abort, ends at the first
 * finding of an input: its signature, message and case text go to stderr,
 * then abort() is called from a function named after the finding's kind.
 * The engine saves the input as its crash artifact, and since the top
 * frames of the stack name the kind, its crash state (the first frames
 * outside libc and the sanitizer) keeps a status mismatch apart from an
 * accuracy error: one bug of fast/ gives one crash per kind, not one for
 * all of them.  The case text on stderr is a reproducer that `fiacheck
 * repro` reads as it is; the artifact goes back into a store with `fiacheck
 * db import`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz.h"

/* Written before each abort: the functions differ in their bodies, so no
 * linker folds two of them into one name. */
volatile int fuzz_crash_kind_code;

/* One function per kind.  noinline keeps each its own frame, and the
 * statement after abort() (never reached) keeps the call from becoming a
 * tail jump that would drop the frame from the stack. */
#define CRASH_FN(name, code)                                                 \
    __attribute__((noinline, noreturn)) void name(void);                     \
    void name(void)                                                          \
    {                                                                        \
        fuzz_crash_kind_code = code;                                         \
        abort();                                                             \
    }

CRASH_FN(fia_finding_status_mismatch, 1)
CRASH_FN(fia_finding_accuracy, 2)
CRASH_FN(fia_finding_nan_leak, 3)
CRASH_FN(fia_finding_harness_error, 4)
CRASH_FN(fia_finding_metamorphic, 5)
CRASH_FN(fia_finding_other, 6)

static const struct {
    const char *kind, *fn;
    void (*abort_fn)(void);
} kinds[] = {
    {"status-mismatch", "fia_finding_status_mismatch",
     fia_finding_status_mismatch},
    {"accuracy", "fia_finding_accuracy", fia_finding_accuracy},
    {"nan-leak", "fia_finding_nan_leak", fia_finding_nan_leak},
    {"harness-error", "fia_finding_harness_error", fia_finding_harness_error},
    {"metamorphic", "fia_finding_metamorphic", fia_finding_metamorphic},
};

static int kind_index(const char *kind)
{
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strcmp(kind, kinds[i].kind) == 0)
            return (int)i;
    return -1;
}

const char *fuzz_crash_function(const char *kind)
{
    int k = kind_index(kind);
    return k < 0 ? "fia_finding_other" : kinds[k].fn;
}

void fuzz_crash_on_finding(const fuzz_finding *f)
{
    /* an accuracy verdict's message is empty: its numbers say it */
    fprintf(stderr, "fuzz: finding %s: %s\n", f->signature,
            f->message[0] ? f->message : f->metrics);
    fprintf(stderr, "fuzz: aborting on this finding (FIACHECK_ON_FINDING=abort"
            ", or no store: FIACHECK_DB unset); its case, for fiacheck repro:"
            "\n%s", f->text ? f->text : "(no case text: out of memory)\n");
    if (f->text != NULL && f->text[0] && f->text[strlen(f->text) - 1] != '\n')
        fputc('\n', stderr);
    fprintf(stderr, "fuzz: end of the case\n");
    fflush(stderr);
    int k = kind_index(f->kind);
    if (k < 0)
        fia_finding_other();
    kinds[k].abort_fn();
    abort(); /* not reached: the functions do not return */
}
