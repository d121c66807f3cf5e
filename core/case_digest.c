/* A case's identity as a short string: two runs of the same call on the
 * same data (at two revisions, in two campaigns) have the same digest, so
 * their accuracy can be compared case by case.
 *
 * The digest is FNV-1a (64 bits) of the canonical text (fia_case_to_string),
 * printed as 16 hex digits.  The canonical text holds everything the call
 * and its data depend on (attributes, shapes, generators, seed), and two
 * cases print the same text exactly when fia_case_equal says they are equal
 * (case_print.c), so equal cases have equal digests; a collision between
 * different cases has probability about n^2 / 2^65 for n cases, < 1e-9 for
 * a hundred thousand.  Cost: one print of the case, linear in its text. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "fia/case.h"

fia_status fia_case_digest(const fia_case *c, char out[FIA_CASE_DIGEST_LEN])
{
    char *text = fia_case_to_string(c);
    if (text == NULL)
        return FIA_ERR_NOMEM;
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a 64 offset basis */
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        h ^= *p;
        h *= 0x100000001b3u;          /* FNV 64 prime */
    }
    free(text);
    snprintf(out, FIA_CASE_DIGEST_LEN, "%016llx", (unsigned long long)h);
    return FIA_OK;
}
