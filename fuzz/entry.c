/* libFuzzer entry point of one target; FUZZ_TARGET_ID is set by the build
 * (fuzz/CMakeLists.txt) to the target's id, FUZZ_PARAMS, FUZZ_NUMERIC, ...
 * (fuzz/targets.def). */
#include <stddef.h>
#include <stdint.h>
#include "fuzz/fuzz.h"

#ifndef FUZZ_TARGET_ID
#error "FUZZ_TARGET_ID must be defined"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Before the engine's first input: a plug-in system under test
 * (FIACHECK_SUT) is loaded now, so that the coverage counters of a plug-in
 * built with -fsanitize=fuzzer-no-link are registered before the engine
 * takes its first measure (docs/sut.md). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_report_engine();
    fuzz_report_init((fuzz_target_id)FUZZ_TARGET_ID);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* under an engine: a finding with no store to take it crashes */
    fuzz_report_engine();
    return fuzz_run_one((fuzz_target_id)FUZZ_TARGET_ID, data, size);
}
