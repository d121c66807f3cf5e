/* Names of status codes and profiles. */
#include <string.h>
#include "fia/status.h"

const char *fia_status_name(fia_status st)
{
    switch (st) {
    case FIA_OK: return "OK";
    case FIA_ERR_PARAM_NULLPTR: return "PARAM_NULLPTR";
    case FIA_ERR_PARAM_INVALID: return "PARAM_INVALID";
    case FIA_ERR_RUNTIME_ERROR: return "RUNTIME_ERROR";
    case FIA_ERR_INNER_TILING_ERROR: return "INNER_TILING_ERROR";
    case FIA_ERR_NOT_MODELED: return "NOT_MODELED";
    case FIA_ERR_NOMEM: return "NOMEM";
    case FIA_ERR_BAD_INPUT: return "BAD_INPUT";
    case FIA_ERR_IO: return "IO";
    case FIA_ERR_SUT_CRASH: return "SUT_CRASH";
    case FIA_ERR_SUT_TIMEOUT: return "SUT_TIMEOUT";
    case FIA_ERR_CORRUPT: return "CORRUPT";
    case FIA_ERR_BUSY: return "BUSY";
    case FIA_ERR_NOT_FOUND: return "NOT_FOUND";
    default: return "UNKNOWN";
    }
}

const char *fia_profile_name(fia_profile p)
{
    return p == FIA_PROFILE_CANN ? "cann" : "doc";
}

int fia_profile_parse(const char *s, fia_profile *out)
{
    if (s == NULL)
        return -1;
    if (strcmp(s, "doc") == 0) {
        *out = FIA_PROFILE_DOC;
        return 0;
    }
    if (strcmp(s, "cann") == 0) {
        *out = FIA_PROFILE_CANN;
        return 0;
    }
    return -1;
}
