/* The status check the fast/ validation tests share (test_fast_mla.c,
 * test_fast_padding.c, test_fast_validate.c, ...): a call's status in
 * profiles doc and cann against the expected ones, and the check id the
 * error message must begin with.  Each test keeps only how it makes its
 * call; the comparison and its messages are written here once.
 * Header-only; tests only. */
#ifndef FIA_TESTS_FAST_EXPECT_H
#define FIA_TESTS_FAST_EXPECT_H

#include <stdbool.h>
#include <string.h>
#include "check.h"
#include "fia/fast.h"

/* One status checked: got is want and, when the call was refused and id is
 * given, fastLastError() begins with id.  label (NULL: none) names what
 * the status was taken under, usually the profile ("doc", "cann"); line is
 * the caller's, so that a failure names the case, not this header. */
static inline void ftl_expect_status(fia_status got, fia_status want,
                                     const char *id, const char *label,
                                     int line)
{
    if (label != NULL)
        CHECK_MSG(got == want, "line %d (%s): got %d want %d: %s", line,
                  label, got, want, fastLastError());
    else
        CHECK_MSG(got == want, "line %d: got %d want %d: %s", line, got,
                  want, fastLastError());
    if (id != NULL && got != FIA_OK)
        CHECK_MSG(strncmp(fastLastError(), id, strlen(id)) == 0,
                  "line %d: \"%s\" does not name %s", line, fastLastError(),
                  id);
}

/* Whether id names a check of the dtype layer (T_*): its refusal is 161002
 * in both profiles. */
static inline bool ftl_dtype_layer_id(const char *id)
{
    return id != NULL && strncmp(id, "T_", 2) == 0;
}

/* The status profile cann gives where doc gives want_doc: a parameter
 * refusal (161002) is the tiling error 561002 there, except a refusal of
 * the dtype layer (dtype_layer), which is 161002 in both. */
static inline fia_status ftl_cann_status(fia_status want_doc,
                                         bool dtype_layer)
{
    return want_doc == FIA_ERR_PARAM_INVALID && !dtype_layer
               ? FIA_ERR_INNER_TILING_ERROR : want_doc;
}

/* A call's status in the profile fastSetStatusProfile has just set (any
 * executor it made destroyed). */
typedef fia_status (*ftl_status_fn)(void *call);

/* The call's status checked in profile doc (want_doc) and then cann
 * (want_cann), each with ftl_expect_status; the profile is left at doc,
 * the one every test assumes. */
static inline void ftl_expect_profiles(ftl_status_fn status_of,
                                       void *call, fia_status want_doc,
                                       fia_status want_cann, const char *id,
                                       int line)
{
    for (int prof = 0; prof < 2; prof++) {
        fastSetStatusProfile(prof ? FIA_PROFILE_CANN : FIA_PROFILE_DOC);
        ftl_expect_status(status_of(call), prof ? want_cann : want_doc, id,
                          prof ? "cann" : "doc", line);
    }
    fastSetStatusProfile(FIA_PROFILE_DOC);
}

#endif
