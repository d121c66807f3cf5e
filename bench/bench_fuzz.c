/* fiacheck-bench-fuzz (`fiacheck bench --fuzz [SECONDS [TARGET]]`): execs/s
 * per fuzz target on one core, at the targets' own small shapes, from
 * random inputs (no libFuzzer, no store), and under each where its CPU
 * time went (reference, system under test, harness).  Goals, per core (one
 * core's execs/s is its execs per CPU second): fuzz_params >= 20,000,
 * fuzz_numeric and fuzz_metamorphic >= 500 each, the rates a campaign needs
 * to draw every path and break every rule within its first seconds.  Also
 * prints fuzz_params' validity rate.  TARGET (params, numeric, metamorphic): that one alone. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "fuzz/bytes.h"
#include "fuzz/fuzz.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    double budget = argc > 1 ? atof(argv[1]) : 3.0;
    if (budget <= 0)
        budget = 3.0;
    static const double goal[FUZZ_TARGET_COUNT] = {
        [FUZZ_PARAMS] = 20000, [FUZZ_NUMERIC] = 500, [FUZZ_METAMORPHIC] = 500};
    printf("fuzz targets, one core, %.1f s each, random inputs <= 512 bytes\n",
           budget);
    printf("%-17s %9s %10s %8s %s\n", "target", "inputs", "execs/s", "goal",
           "ratio to goal");
    fuzz_report_quiet(1);
    setenv("FIACHECK_ON_FINDING", "record", 1); /* counted, never an abort */
    int only = -1; /* a target named after the seconds: that one alone */
    if (argc > 2 && (only = fuzz_target_from_name(argv[2])) < 0) {
        fprintf(stderr, "fiacheck-bench-fuzz: no target %s\n", argv[2]);
        return 2;
    }
    for (int t = 0; t < FUZZ_TARGET_COUNT; t++) {
        if (only >= 0 && t != only)
            continue;
        fuzz_rng r = {42 + (uint64_t)t};
        uint8_t buf[512];
        long n = 0;
        double t0 = now(), el;
        /* counters are per process: measure this target's share */
        fuzz_counters before = *fuzz_report_counters();
        do {
            size_t len = (size_t)(fuzz_rng_next(&r) % sizeof buf);
            for (size_t j = 0; j < len; j++)
                buf[j] = (uint8_t)fuzz_rng_next(&r);
            fuzz_run_one((fuzz_target_id)t, buf, len);
            n++;
        } while ((el = now() - t0) < budget);
        const fuzz_counters *c = fuzz_report_counters();
        double rate = (double)n / el;
        printf("%-17s %9ld %10.0f %8.0f %s", fuzz_target_name(t), n, rate,
               goal[t], goal[t] > 0 ? "" : "-");
        if (goal[t] > 0)
            printf("%.2fx", rate / goal[t]);
        if (t == FUZZ_PARAMS && c->evaluated > before.evaluated)
            printf("   validity %.1f %%",
                   100.0 * (double)(c->accepted - before.accepted) /
                       (double)(c->evaluated - before.evaluated));
        printf("\n");
        fuzz_counters d = {0};
        d.execs = n;
        d.cpu_target = c->cpu_target - before.cpu_target;
        d.cpu_ref = c->cpu_ref - before.cpu_ref;
        d.cpu_sut = c->cpu_sut - before.cpu_sut;
        d.ref_elements = c->ref_elements - before.ref_elements;
        d.ref_escalated = c->ref_escalated - before.ref_escalated;
        fuzz_print_time_split("  ", &d);
    }
    return 0;
}
