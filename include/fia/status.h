/* fiacheck status codes.
 *
 * The aclnn codes are the ones the operator documents (002, "返回值") and the
 * ones the released code returns (RELEASED-BEHAVIOUR.md, "Return codes, by
 * layer").  FIA_ERR_NOT_MODELED is fiacheck's own: a documented parameter or
 * feature that the harness does not model yet.  It is never an aclnn code, so
 * a case that hits it can never be mistaken for an accept or a reject. */
#ifndef FIA_STATUS_H
#define FIA_STATUS_H

#include <stdint.h>

typedef int32_t fia_status;

#define FIA_OK                      0
#define FIA_ERR_PARAM_NULLPTR       161001 /* ACLNN_ERR_PARAM_NULLPTR */
#define FIA_ERR_PARAM_INVALID       161002 /* ACLNN_ERR_PARAM_INVALID */
#define FIA_ERR_RUNTIME_ERROR       361001 /* ACLNN_ERR_RUNTIME_ERROR */
#define FIA_ERR_INNER_TILING_ERROR  561002 /* ACLNN_ERR_INNER_TILING_ERROR (released code) */
#define FIA_ERR_NOT_MODELED         990001 /* fiacheck: feature not modeled yet */
#define FIA_ERR_NOMEM               990002 /* fiacheck: host allocation failed */
#define FIA_ERR_BAD_INPUT           990003 /* fiacheck: malformed or too large input */
#define FIA_ERR_IO                  990004 /* fiacheck: open/read/write failed */
/* fiacheck's own verdicts on a system under test run as a worker process
 * (docs/sut/exec.md): it died or broke the protocol mid-call, or did not
 * answer within the timeout.  Never a status a system returns. */
#define FIA_ERR_SUT_CRASH           990005 /* fiacheck: the worker crashed */
#define FIA_ERR_SUT_TIMEOUT         990006 /* fiacheck: the worker hung */
/* A file's own failures (the findings store, store.h): not what it says
 * (not a database, or damaged), locked by another process beyond the busy
 * timeout, or without the record asked for. */
#define FIA_ERR_CORRUPT             990007 /* fiacheck: a damaged file */
#define FIA_ERR_BUSY                990008 /* fiacheck: locked past the timeout */
#define FIA_ERR_NOT_FOUND           990009 /* fiacheck: no such record */

/* Which interception behaviour a component follows.
 *  DOC : the documented codes (161001 / 161002).
 *  CANN: what RELEASED-BEHAVIOUR.md says the released code returns
 *        (semantic interceptions surface as 561002). */
typedef enum fia_profile {
    FIA_PROFILE_DOC = 0,
    FIA_PROFILE_CANN = 1
} fia_profile;

/* Stable short name of a status ("OK", "PARAM_NULLPTR", ...). */
const char *fia_status_name(fia_status st);
const char *fia_profile_name(fia_profile p);
/* Returns 0 and sets *out on "doc"/"cann", -1 otherwise. */
int fia_profile_parse(const char *s, fia_profile *out);

#endif
