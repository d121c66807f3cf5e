/* A case's identity as a short string: two runs of the same call on the
 * same data (at two revisions, in two campaigns) have the same digest, so
 * their accuracy can be compared case by case.
 *
 * The digest is FNV-1a (64 bits) of the canonical text (fia_case_to_string)
 * in which explicit values are folded in by their bits instead of printed
 * (fia__case_digest_text: printing 17 digits each was most of the cost of
 * a large case), as 16 hex digits.  The canonical text holds everything the
 * call and its data depend on (attributes, shapes, generators, seed, how
 * fast/ runs it), and two cases print the same text exactly when
 * fia_case_equal says they are equal, with values equal bit for bit (every
 * NaN alike, as fia_case_equal), so equal cases have equal digests; a
 * collision between different cases has probability about n^2 / 2^65 for
 * n cases, < 1e-9 for a hundred thousand.  Cost: linear in the case. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "case_internal.h"

fia_status fia_case_digest(const fia_case *c, char out[FIA_CASE_DIGEST_LEN])
{
    uint64_t vh = 0;
    char *text = fia__case_digest_text(c, &vh);
    if (text == NULL)
        return FIA_ERR_NOMEM;
    uint64_t h = vh; /* starts from the values' FNV-1a 64 */
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        h ^= *p;
        h *= 0x100000001b3u;          /* FNV 64 prime */
    }
    free(text);
    snprintf(out, FIA_CASE_DIGEST_LEN, "%016llx", (unsigned long long)h);
    return FIA_OK;
}
