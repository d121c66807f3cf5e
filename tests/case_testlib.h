/* Helpers shared by the case-model tests (test_case.c, test_case_data.c):
 * a minimal case, a shape check and a parse that reports its error. */
#ifndef FIA_TESTS_CASE_TESTLIB_H
#define FIA_TESTS_CASE_TESTLIB_H

#include <stdio.h>
#include "fia/case.h"

static const char *minimal =
    "query = fp16 [1,2,8]\nkey = fp16 [1,3,8]\nvalue = fp16 [1,3,8]\n";

static int shape_is(const fia_tensor *t, fia_dtype dt, int nd, int64_t a,
                    int64_t b, int64_t c, int64_t d)
{
    int64_t want[4] = {a, b, c, d};
    if (t->dtype != dt || t->ndim != nd)
        return 0;
    for (int i = 0; i < nd && i < 4; i++)
        if (t->shape[i] != want[i])
            return 0;
    return 1;
}

static int parse(const char *text, fia_case *c)
{
    fia_error err;
    int rc = fia_case_parse_string(text, "t", c, &err);
    if (rc != 0)
        fprintf(stderr, "unexpected parse error: %s:%d: %s\n", err.file,
                err.line, err.msg);
    return rc;
}

#endif
