/* Which system the harness calls: one per process, chosen before any case
 * is judged (the command line's --sut, a fuzz target's FIACHECK_SUT). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fia/sut_host.h"

static const fia_sut *current;
static char current_path[4096];

const fia_sut *fia_sut_current(void)
{
    return current != NULL ? current : fia_sut_builtin();
}

void fia_sut_use(const fia_sut *s, const char *path)
{
    current = s;
    snprintf(current_path, sizeof current_path, "%s",
             s != NULL && path != NULL ? path : "");
}

const char *fia_sut_current_path(void)
{
    return current_path;
}

int fia_sut_current_is_builtin(void)
{
    return fia_sut_current() == fia_sut_builtin();
}

fia_status fia_sut_use_env(fia_error *err)
{
    const char *path = getenv("FIACHECK_SUT");
    /* a system the command line chose stays: it may be served out of
     * process (fia_sut_isolate), which FIACHECK_SUT's path does not say */
    if (path == NULL || *path == '\0' || current != NULL)
        return FIA_OK;
    const fia_sut *s;
    fia_status st = fia_sut_load(path, &s, err);
    if (st != FIA_OK)
        return st;
    fia_sut_use(s, path);
    return FIA_OK;
}
