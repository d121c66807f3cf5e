/* fiacheck's stdout and stderr as a terminal may show them.  Text output
 * echoes bytes fiacheck does not control: a case's file name and comments,
 * the tokens a parse error quotes, a plug-in's or a worker's messages, the
 * revisions and case texts of a store.  An ESC among them is a terminal
 * command (clear the screen, retitle the window, rewrite what the user
 * read), so every byte written to the two streams passes one filter
 * (fia_text_shown, include/fia/text.h): text and well-formed UTF-8 as they
 * are, other control characters and invalid bytes shown as \xHH.  Output
 * that is already escaped (JSON lines) passes unchanged.  The live progress
 * line, fiacheck's own use of \r, writes to the unfiltered stream
 * (cli_live.c), its text escaped by the same rule. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "fia/text.h"

typedef struct shown_stream {
    int fd;
    int tty;               /* a terminal: the live line is wiped first */
    unsigned char held[4]; /* the start of a UTF-8 sequence cut by a write */
    size_t nheld;
} shown_stream;

static shown_stream out_stream = {.fd = 1}, err_stream = {.fd = 2};
static FILE *raw_stderr;

/* fia_text_shown's put: 0, or -1 to stop (its contract, fia/text.h). */
static int put_fd(void *ctx, const char *text, size_t len)
{
    const shown_stream *s = ctx;
    while (len > 0) {
        ssize_t n = write(s->fd, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        text += n, len -= (size_t)n;
    }
    return 0;
}

/* The held bytes and buf as one text: the held sequence is completed from
 * the first bytes of buf (or still cut: then held longer).  A
 * fopencookie write function: the bytes taken, or -1 (its contract). */
static ssize_t shown_write(void *cookie, const char *buf, size_t size)
{
    shown_stream *s = cookie;
    const unsigned char *p = (const unsigned char *)buf;
    size_t off = 0;
    if (s->tty)
        cli_live_clear();
    if (s->nheld > 0) {
        unsigned char tmp[8];
        size_t k = size < 4 ? size : 4;
        memcpy(tmp, s->held, s->nheld);
        memcpy(tmp + s->nheld, p, k);
        long used = fia_text_shown(tmp, s->nheld + k, 0, put_fd, s);
        if (used < 0)
            return -1;
        if ((size_t)used < s->nheld) { /* still cut: size < 4 */
            memmove(s->held, tmp + used, s->nheld + k - (size_t)used);
            s->nheld = s->nheld + k - (size_t)used;
            return (ssize_t)size;
        }
        off = (size_t)used - s->nheld;
        s->nheld = 0;
    }
    long used = fia_text_shown(p + off, size - off, 0, put_fd, s);
    if (used < 0)
        return -1;
    s->nheld = size - off - (size_t)used;
    memcpy(s->held, p + off + used, s->nheld);
    return (ssize_t)size;
}

/* A sequence still cut when the stream ends is shown as bytes. */
static void shown_finish(shown_stream *s)
{
    if (s->nheld > 0)
        fia_text_shown(s->held, s->nheld, 1, put_fd, s);
    s->nheld = 0;
}

static void finish_at_exit(void)
{
    fflush(stdout);
    fflush(stderr);
    shown_finish(&out_stream);
    shown_finish(&err_stream);
}

void cli_text_output_install(void)
{
    cookie_io_functions_t io = {.write = shown_write};
    FILE *out = fopencookie(&out_stream, "w", io);
    FILE *err = fopencookie(&err_stream, "w", io);
    if (out == NULL || err == NULL) { /* keep the plain streams */
        if (out != NULL)
            fclose(out);
        if (err != NULL)
            fclose(err);
        return;
    }
    fflush(stdout);
    fflush(stderr);
    /* stdout as it was buffered (by line on a terminal), stderr unbuffered
     * so that it and the live line (raw_stderr) keep their order */
    setvbuf(out, NULL, isatty(1) ? _IOLBF : _IOFBF, BUFSIZ);
    setvbuf(err, NULL, _IONBF, 0);
    out_stream.tty = isatty(1);
    err_stream.tty = isatty(2);
    raw_stderr = stderr;
    stdout = out;
    stderr = err;
    atexit(finish_at_exit);
}

FILE *cli_stderr_raw(void)
{
    return raw_stderr != NULL ? raw_stderr : stderr;
}
