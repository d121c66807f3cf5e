/* Helpers the fuzz/ feature tests share (test_fuzz_padding.c,
 * test_fuzz_prefix.c, test_fuzz_pse.c): a case from text, a slot's data.
 * Include after check.h and fuzz/fuzz_internal.h. */
#ifndef FIA_TESTS_FUZZ_TESTLIB_H
#define FIA_TESTS_FUZZ_TESTLIB_H

#include <stdio.h>
#include <string.h>
#include "fia/case.h"
#include "fia/oracle.h"

/* The case of text (an empty case, with the parser's message on stderr,
 * when the text is not one). */
static inline fia_case ftl_parse(const char *text)
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
static inline double *ftl_data_of(const fia_case *c, fia_slot s, int64_t *n)
{
    double *v = NULL;
    *n = 0;
    CHECK(fz_slot_data(c, s, &v, n, NULL) == FIA_OK);
    return v;
}

/* n in [lo, cap) random bytes into buf (a decoder's input); returns n. */
static inline size_t ftl_random_input(fuzz_rng *r, uint8_t *buf, size_t lo,
                                      size_t cap)
{
    size_t n = lo + (size_t)(fuzz_rng_next(r) % (cap - lo));
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint8_t)fuzz_rng_next(r);
    return n;
}

/* A generated call is valid: the oracle accepts it, or only rule `nm`
 * (a not-modeled row) refuses it. */
static inline int ftl_valid_or(const fia_oracle_verdict *v, const char *nm)
{
    return v->accept || (v->not_modeled && v->n_fired == 1 &&
                         strcmp(v->fired[0]->id, nm) == 0);
}

#endif
