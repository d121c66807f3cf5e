/* fast/'s settings from the environment: FIA_FAST_ISA (the micro-kernel
 * level) and FIA_FAST_THREADS (the threads of a run).  Both change fast/'s
 * numbers, so a setting that names nothing must not be dropped in silence:
 * fast/ itself falls back to the automatic level and 2 threads (a library
 * does not exit), and fastConfigError() says what is wrong, so that a
 * caller that promises to run with the user's settings stops instead. */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include "fast_internal.h"

/* unset and empty are the same: "not set" */
static const char *setting(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && *v != '\0' ? v : NULL;
}

int fast_isa_setting(void)
{
    const char *v = setting("FIA_FAST_ISA");
    if (v == NULL || strcasecmp(v, "auto") == 0)
        return FAST_ISA_COUNT;
    for (int i = 0; i < FAST_ISA_COUNT; i++)
        if (strcasecmp(v, fast_isa_name((fast_isa)i)) == 0)
            return i;
    return -1;
}

int fast_threads_setting(void)
{
    const char *v = setting("FIA_FAST_THREADS");
    if (v == NULL)
        return 0;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end != '\0' || v[0] < '0' || v[0] > '9' || n < 1 ||
        n > FAST_MAX_THREADS)
        return -1;
    return (int)n;
}

const char *fastConfigError(void)
{
    static _Thread_local char msg[256];
    if (fast_isa_setting() < 0) {
        int k = snprintf(msg, sizeof msg, "FIA_FAST_ISA='%.40s' names no "
                         "kernel level: ", getenv("FIA_FAST_ISA"));
        for (int i = 0; i < FAST_ISA_COUNT && k > 0 && k < (int)sizeof msg; i++)
            k += snprintf(msg + k, sizeof msg - (size_t)k, "%s, ",
                          fast_isa_name((fast_isa)i));
        if (k > 0 && k < (int)sizeof msg)
            snprintf(msg + k, sizeof msg - (size_t)k, "or auto (any case; "
                     "unset: auto)");
        return msg;
    }
    if (fast_threads_setting() < 0) {
        snprintf(msg, sizeof msg, "FIA_FAST_THREADS='%.40s' is not a thread "
                 "count: a whole number in 1..%d (unset: 2)",
                 getenv("FIA_FAST_THREADS"), FAST_MAX_THREADS);
        return msg;
    }
    return NULL;
}
