/* JSON output helpers shared by the subcommands.
 *
 * Case names and messages come from input (file names, echoed tokens of a
 * malformed case), so they may hold any bytes.  JSON text must be UTF-8
 * (RFC 8259, section 8.1): a well-formed UTF-8 sequence is copied, every
 * other byte becomes U+FFFD, and control characters (C0 and DEL) are
 * escaped, so one result stays one line. */
#include <time.h>
#include "cli.h"

/* The length of the well-formed UTF-8 sequence at p (1..4), or 0 (RFC 3629
 * table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF). */
static int utf8_len(const unsigned char *p)
{
    unsigned char c = p[0];
    int n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (int k = 2; k < n; k++)
        if (p[k] < 0x80 || p[k] > 0xBF)
            return 0;
    return n;
}

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = utf8_len(p);
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20 || *p == 0x7F)
            fprintf(f, "\\u%04x", *p);
        else if (n == 0)
            fputs("\\ufffd", f);
        else
            fwrite(p, 1, (size_t)n, f);
        p += n > 0 ? n : 1;
    }
    fputc('"', f);
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
