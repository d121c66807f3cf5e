/* The escapers of include/fia/text.h: JSON, XML 1.0 and terminal text, each
 * on the one UTF-8 check below so that the three agree on what is text. */
#include <string.h>
#include "fia/text.h"

/* The length a sequence that starts with c has (2..4), with the range of
 * its second byte, or 0 when c starts none (RFC 3629 table 3-7). */
static size_t utf8_need(unsigned c, unsigned *lo, unsigned *hi)
{
    *lo = 0x80, *hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        return 2;
    if (c >= 0xE0 && c <= 0xEF) {
        *lo = c == 0xE0 ? 0xA0 : 0x80;
        *hi = c == 0xED ? 0x9F : 0xBF;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        *lo = c == 0xF0 ? 0x90 : 0x80;
        *hi = c == 0xF4 ? 0x8F : 0xBF;
        return 4;
    }
    return 0;
}

/* How many of the first avail bytes at p (at most the sequence's length)
 * are right for a sequence: avail or more when they all are. */
static size_t utf8_good(const unsigned char *p, size_t avail, size_t need,
                        unsigned lo, unsigned hi)
{
    size_t i = 1;
    if (i < avail && i < need && p[1] >= lo && p[1] <= hi)
        i++;
    else
        return i;
    while (i < avail && i < need && p[i] >= 0x80 && p[i] <= 0xBF)
        i++;
    return i;
}

size_t fia_utf8_len(const unsigned char *p, size_t avail)
{
    unsigned lo, hi;
    if (p[0] < 0x80)
        return 1;
    size_t need = utf8_need(p[0], &lo, &hi);
    if (need == 0 || need > avail)
        return 0;
    return utf8_good(p, avail, need, lo, hi) == need ? need : 0;
}

/* 1 when the avail (< 4) bytes at p begin a well-formed sequence they are
 * too few to hold whole. */
static int utf8_cut(const unsigned char *p, size_t avail)
{
    unsigned lo, hi;
    size_t need = utf8_need(p[0], &lo, &hi);
    return need > avail && utf8_good(p, avail, need, lo, hi) == avail;
}

void fia_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t left = strlen((const char *)p), run = 0; /* p[0..run): as is */
    while (run < left) {
        const unsigned c = p[run];
        size_t n = c >= 0x20 && c < 0x7F && c != '"' && c != '\\'
                       ? 1
                   : c >= 0x80 ? fia_utf8_len(p + run, left - run)
                               : 0;
        if (n > 0) {
            run += n;
            continue;
        }
        fwrite(p, 1, run, f);
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20 || c == 0x7F)
            fprintf(f, "\\u%04x", c);
        else
            fputs("\\ufffd", f); /* not part of a well-formed sequence */
        p += run + 1, left -= run + 1, run = 0;
    }
    fwrite(p, 1, run, f);
    fputc('"', f);
}

/* 1 when the well-formed sequence at p (n bytes) is a character XML 1.0
 * does not allow: C0 but tab, newline, CR; U+FFFE and U+FFFF (EF BF BE/BF). */
static int xml_forbidden(const unsigned char *p, size_t n)
{
    if (n == 1)
        return p[0] < 0x20 && p[0] != '\t' && p[0] != '\n' && p[0] != '\r';
    return n == 3 && p[0] == 0xEF && p[1] == 0xBF && p[2] >= 0xBE;
}

void fia_xml_text(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t left = strlen((const char *)p);
    while (left > 0) {
        size_t n = fia_utf8_len(p, left);
        switch (n == 1 ? *p : 0) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            if (n == 0)
                fputs("\xEF\xBF\xBD", f); /* U+FFFD */
            else if (xml_forbidden(p, n))
                for (size_t k = 0; k < n; k++)
                    fprintf(f, "\\x%02x", p[k]);
            else
                fwrite(p, 1, n, f);
        }
        n = n > 0 ? n : 1;
        p += n, left -= n;
    }
}

long fia_text_shown(const unsigned char *p, size_t n, int final,
                    int (*put)(void *out, const char *text, size_t len),
                    void *out)
{
    size_t i = 0, run = 0; /* bytes p[i - run .. i) to copy as they are */
    char esc[8];
    while (i < n) {
        const unsigned c = p[i];
        size_t len = 1;
        int show = 0;
        if (c == '\r') {
            /* CR LF ends a line (a CRLF case file); a lone CR would let
             * text overwrite the line before it */
            if (i + 1 == n && !final)
                break; /* the next call says */
            show = i + 1 == n || p[i + 1] != '\n';
        } else if (c < 0x80) {
            show = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7F;
        } else {
            len = fia_utf8_len(p + i, n - i);
            if (len == 0 && !final && utf8_cut(p + i, n - i))
                break; /* the next call has the rest */
            show = len == 0 || (len == 2 && c == 0xC2 && p[i + 1] < 0xA0);
        }
        if (!show) {
            i += len, run += len;
            continue;
        }
        if (run > 0 && put(out, (const char *)p + i - run, run) != 0)
            return -1;
        run = 0;
        int k = len == 2 ? snprintf(esc, sizeof esc, "\\u%04x", p[i + 1])
                         : snprintf(esc, sizeof esc, "\\x%02x", c);
        if (put(out, esc, (size_t)k) != 0)
            return -1;
        i += len > 0 ? len : 1;
    }
    if (run > 0 && put(out, (const char *)p + i - run, run) != 0)
        return -1;
    return (long)i;
}

static int put_file(void *out, const char *text, size_t len)
{
    return fwrite(text, 1, len, (FILE *)out) == len ? 0 : -1;
}

void fia_text_shown_string(FILE *f, const char *s)
{
    if (s != NULL)
        fia_text_shown((const unsigned char *)s, strlen(s), 1, put_file, f);
}
