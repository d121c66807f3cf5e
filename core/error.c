/* The error convention of include/fia/error.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "fia/error.h"

void fia_error_clear(fia_error *e)
{
    if (e != NULL)
        memset(e, 0, sizeof *e);
}

static fia_status fill(fia_error *e, fia_status code, const char *file,
                       int line, const char *fmt, va_list ap)
{
    if (e == NULL)
        return code;
    e->code = code;
    snprintf(e->file, sizeof e->file, "%s", file ? file : "");
    e->line = line;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    return code;
}

fia_status fia_fail(fia_error *e, fia_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fill(e, code, NULL, 0, fmt, ap);
    va_end(ap);
    return code;
}

fia_status fia_fail_at(fia_error *e, fia_status code, const char *file,
                       int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fill(e, code, file, line, fmt, ap);
    va_end(ap);
    return code;
}

const char *fia_error_text(const fia_error *e, char *buf, size_t len)
{
    if (len == 0)
        return buf;
    if (e == NULL || e->code == FIA_OK)
        snprintf(buf, len, "no error");
    else if (e->file[0] && e->line > 0)
        snprintf(buf, len, "%s:%d: %s", e->file, e->line, e->msg);
    else if (e->file[0])
        snprintf(buf, len, "%s: %s", e->file, e->msg);
    else
        snprintf(buf, len, "%s", e->msg);
    return buf;
}
