/* One case directory's call: call.json's parameters turned into the aclnn
 * objects of 002's V2 call (device memory, aclTensor, aclTensorList,
 * aclIntArray), the two phases, and out/ written.  Part of the program
 * `fiacheck export` ships (fia_aclnn_run.c is its main). */
#ifndef FIA_ACLNN_CALL_H
#define FIA_ACLNN_CALL_H

#include "acl/acl.h"

/* What became of a case. */
typedef enum case_outcome {
    CASE_DONE = 0,      /* called: out/ holds the operator's answer */
    CASE_SKIPPED,       /* written through another interface */
    CASE_RUNTIME_FAILED,/* an ACL runtime call failed: no out/status.json */
    CASE_BAD            /* call.json or an input file is malformed */
} case_outcome;

/* Runs the case in dir on stream; `walking`: dir was found by scanning a
 * directory, so a case of another interface is skipped, not an error.
 * Prints one line for the case to stdout (errors to stderr). */
case_outcome fia_aclnn_run_case(const char *dir, aclrtStream stream,
                                int walking);

#endif
