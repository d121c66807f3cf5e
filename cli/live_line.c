/* The live progress line of the long commands (fuzz, survey, the reference
 * of a big case) on stderr.  On a terminal one line rewritten in place
 * (\r), cut to the terminal's width so that it never wraps: the width is
 * the terminal's own (TIOCGWINSZ), else COLUMNS, else 80.  Elsewhere (a
 * file, a pipe, a CI log) each update is a line of its own, never cut: a
 * log keeps every column.  The text passes the terminal escaper first
 * (fia_text_shown: a case's name is input), then goes to the unfiltered
 * stderr (text_out.c), since the \r is fiacheck's own. */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "cli.h"
#include "fia/text.h"

static int live_shown; /* a line is on the terminal, not yet ended */

int cli_live_tty(void)
{
    return isatty(STDERR_FILENO);
}

int cli_live_width(void)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    char *end = NULL;
    long n = c ? strtol(c, &end, 10) : 0;
    if (c && end != c && *end == '\0' && n >= 10 && n <= 10000)
        return (int)n;
    return 80;
}

/* fia_text_shown's put: 0, or -1 to stop (its contract, fia/text.h). */
static int put_mem(void *out, const char *text, size_t len)
{
    return fwrite(text, 1, len, (FILE *)out) == len ? 0 : -1;
}

void cli_live_print(const char *text)
{
    FILE *raw = cli_stderr_raw();
    char *shown = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&shown, &len);
    if (m == NULL)
        return;
    fia_text_shown((const unsigned char *)text, strlen(text), 1, put_mem, m);
    fclose(m);
    if (shown == NULL)
        return;
    if (!cli_live_tty()) {
        fprintf(raw, "%s\n", shown);
    } else {
        /* width - 1 columns (a character each: the escaper left only
         * printable text), padded over what the last update left */
        int cols = cli_live_width() - 1, used = 0;
        size_t cut = 0;
        while (cut < len && used < cols) {
            size_t n = fia_utf8_len((const unsigned char *)shown + cut, len - cut);
            cut += n > 0 ? n : 1;
            used++;
        }
        fprintf(raw, "\r%.*s%*s", (int)cut, shown, cols - used, "");
        live_shown = 1;
    }
    fflush(raw);
    free(shown);
}

void cli_live_clear(void)
{
    if (live_shown) {
        fprintf(cli_stderr_raw(), "\r%*s\r", cli_live_width() - 1, "");
        fflush(cli_stderr_raw());
    }
    live_shown = 0;
}

void cli_live_end(void)
{
    if (live_shown) {
        fputc('\n', cli_stderr_raw());
        fflush(cli_stderr_raw());
    }
    live_shown = 0;
}
