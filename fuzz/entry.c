/* libFuzzer entry point of one target; FUZZ_TARGET_ID is set by the build
 * (fuzz/CMakeLists.txt): 0 fuzz_params, 1 fuzz_numeric, 2 fuzz_metamorphic. */
#include <stddef.h>
#include <stdint.h>
#include "fuzz/fuzz.h"

#ifndef FUZZ_TARGET_ID
#error "FUZZ_TARGET_ID must be defined"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* under an engine: a finding with no store to take it crashes */
    fuzz_report_engine();
    return fuzz_run_one((fuzz_target_id)FUZZ_TARGET_ID, data, size);
}
