/* Where a target's CPU time went (fuzz_print_time_split): the reference,
 * the system under test, the harness around them (decoding, making the
 * data, the oracle, comparing, reporting) and the fuzzing engine, so that
 * a campaign's summary and `bench --fuzz` say what limits its rate. */
#include <stdio.h>
#include "fuzz/fuzz.h"

void fuzz_print_time_split(const char *indent, const fuzz_counters *c)
{
    /* the process's time when the stats files have it (a campaign), else
     * the target's alone (in-process: no engine) */
    const double total = c->cpu_process > c->cpu_target ? c->cpu_process
                                                         : c->cpu_target;
    if (!(total > 0.0))
        return;
    double ref = c->cpu_ref, sut = c->cpu_sut;
    double harness = c->cpu_target - ref - sut;
    harness = harness > 0.0 ? harness : 0.0;
    printf("%sCPU time: reference %.1f %%, system under test %.1f %%, "
           "harness %.1f %%", indent, 100.0 * ref / total, 100.0 * sut / total,
           100.0 * harness / total);
    if (c->cpu_process > 0.0)
        printf(", fuzzer %.1f %%",
               100.0 * (total - c->cpu_target) / total);
    printf(" of %.1f s", total);
    if (c->execs > 0)
        printf(" (%.0f execs per CPU second)", (double)c->execs / total);
    if (c->ref_elements > 0)
        printf("; the reference left %.2f %% of %lld elements to MPFR",
               100.0 * (double)c->ref_escalated / (double)c->ref_elements,
               (long long)c->ref_elements);
    printf("\n");
}
