/* Helpers the fuzz/ feature tests share (test_fuzz_padding.c,
 * test_fuzz_prefix.c, test_fuzz_pse.c): a case from text, a slot's data.
 * Include after check.h and fuzz/fuzz_internal.h. */
#ifndef FIA_TESTS_FUZZ_TESTLIB_H
#define FIA_TESTS_FUZZ_TESTLIB_H

#include <stdio.h>
#include "fia/case.h"

/* The case of text (an empty case, with the parser's message on stderr,
 * when the text is not one). */
static fia_case ftl_parse(const char *text)
{
    fia_case c;
    fia_error err;
    if (fia_case_parse_string(text, "test", &c, &err) != FIA_OK) {
        fprintf(stderr, "parse: %s\n", err.msg);
        fia_case_init(&c);
    }
    return c;
}

/* Slot s's data as doubles (the caller frees it); a failure is a failed
 * check. */
static double *ftl_data_of(const fia_case *c, fia_slot s, int64_t *n)
{
    double *v = NULL;
    *n = 0;
    CHECK(fz_slot_data(c, s, &v, n, NULL) == FIA_OK);
    return v;
}

#endif
