/* JSON output helpers shared by the subcommands.
 *
 * Case names and messages come from input (file names, echoed tokens of a
 * malformed case), so they may hold any bytes.  JSON text must be UTF-8
 * (RFC 8259, section 8.1): a well-formed UTF-8 sequence is copied, every
 * other byte becomes U+FFFD, and control characters (C0 and DEL) are
 * escaped, so one result stays one line. */
#include <time.h>
#include "cli.h"
#include "fia/text.h"

void cli_json_string(FILE *f, const char *s)
{
    fia_json_string(f, s);
}

void cli_json_num(const char *key, double v)
{
    if (v == v && v - v == 0) /* finite */
        printf(",\"%s\":%.17g", key, v);
    else
        printf(",\"%s\":null", key);
}

void cli_json_kv(const char *key, const char *v)
{
    printf(",\"%s\":", key);
    if (v)
        cli_json_string(stdout, v);
    else
        fputs("null", stdout);
}

void cli_iso_time(char *buf, size_t n, int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (gmtime_r(&tt, &tm) == NULL ||
        strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(buf, n, "%lld", (long long)t);
}
