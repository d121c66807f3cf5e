/* fiacheck's one error convention (every part but fast/'s public API).
 *
 * A function that can fail returns an fia_status (FIA_OK = 0 on success) and,
 * when it has something to say, takes an `fia_error *err` as its last
 * argument (NULL: the caller does not want the message).  On failure it fills
 * *err with the same code, the input the error is about (file, line; empty
 * and 0 when none) and a message.  An allocation failure is FIA_ERR_NOMEM,
 * never a bare -1; a malformed or too large input is FIA_ERR_BAD_INPUT; an
 * operating-system failure (open, read, write) is FIA_ERR_IO.
 *
 * The findings store (store.h) returns the same codes (FIA_ERR_CORRUPT,
 * FIA_ERR_BUSY and FIA_ERR_NOT_FOUND are its own) and keeps its message on
 * the connection, as SQLite does (fia_store_errmsg()).  cli/'s helpers,
 * whose caller is the user, print their message on stderr ("fiacheck CMD:
 * ...") and return the code alone (cli/options.c).  The one exception,
 * fast/'s public API (fast.h), is the aclnn two-phase API: status codes
 * with the thread's last error message (fastLastError, as
 * aclGetRecentErrMsg). */
#ifndef FIA_ERROR_H
#define FIA_ERROR_H

#include <stddef.h>
#include "fia/status.h"

typedef struct fia_error {
    fia_status code; /* FIA_OK when nothing has gone wrong */
    char file[256];  /* the input the error is about, "" when none */
    int line;        /* its line, 0 when none */
    char msg[512];
} fia_error;

#if defined(__GNUC__)
#define FIA_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define FIA_PRINTF(f, a)
#endif

/* Clears *e (may be NULL) to FIA_OK. */
void fia_error_clear(fia_error *e);
/* Fills *e (may be NULL) with code and the formatted message; returns code. */
fia_status fia_fail(fia_error *e, fia_status code, const char *fmt, ...)
    FIA_PRINTF(3, 4);
/* The same, naming the input (file, line) the error is about. */
fia_status fia_fail_at(fia_error *e, fia_status code, const char *file,
                       int line, const char *fmt, ...) FIA_PRINTF(5, 6);
/* "file:line: msg", "file: msg" or "msg" into buf; returns buf. */
const char *fia_error_text(const fia_error *e, char *buf, size_t len);

#endif
