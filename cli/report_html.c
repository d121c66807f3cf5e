/* `fiacheck report`: HTML escaping and the page's frame.  The page carries
 * its own style and no script, and loads nothing: it must read the same
 * offline, attached to a ticket, years later. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "report.h"
#include "fia/text.h"

#define REPLACEMENT "&#xFFFD;"

void rh_text(FILE *f, const char *s, size_t max)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t len = strnlen((const char *)p, max);
    for (size_t i = 0; i < len;) {
        const unsigned c = p[i];
        if (c < 0x80) {
            switch (c) {
            case '&': fputs("&amp;", f); break;
            case '<': fputs("&lt;", f); break;
            case '>': fputs("&gt;", f); break;
            case '"': fputs("&quot;", f); break;
            case '\'': fputs("&#39;", f); break;
            case '\t': case '\n': fputc((int)c, f); break;
            case '\r': break; /* a CRLF file reads as LF */
            default:
                if (c < 0x20 || c == 0x7F)
                    fputs(REPLACEMENT, f);
                else
                    fputc((int)c, f);
            }
            i++;
            continue;
        }
        size_t n = fia_utf8_len(p + i, len - i);
        if (n == 0) {
            fputs(REPLACEMENT, f);
            i++;
        } else {
            fwrite(p + i, 1, n, f);
            i += n;
        }
    }
}

void rh_text_cut(FILE *f, const char *s, size_t max)
{
    s = s ? s : "";
    size_t len = strlen(s);
    if (len <= max) {
        rh_text(f, s, SIZE_MAX);
        return;
    }
    size_t cut = max;
    while (cut > 0 && s[cut] != ' ')
        cut--;
    while (cut > 0 && s[cut - 1] == ' ')
        cut--;
    if (cut == 0) { /* one long word: between two UTF-8 sequences */
        cut = max;
        while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
            cut--;
    }
    rh_text(f, s, cut);
    fputs("\xE2\x80\xA6", f); /* U+2026, the ellipsis */
}

void rh_textf(FILE *f, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    rh_text(f, buf, SIZE_MAX);
}

void rh_revision(FILE *f, const char *rev)
{
    if (rev == NULL || *rev == '\0') {
        fputs("<span class=\"dim\">(none)</span>", f);
        return;
    }
    if (strlen(rev) <= 12) {
        rh_text(f, rev, SIZE_MAX);
        return;
    }
    fputs("<span class=\"rev\" title=\"", f);
    rh_text(f, rev, SIZE_MAX);
    fputs("\">", f);
    rh_text(f, rev, 12);
    fputs("</span>", f);
}

void rh_iso(char *buf, size_t n, int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (gmtime_r(&tt, &tm) == NULL ||
        strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(buf, n, "%lld", (long long)t);
}

void rh_num(char *buf, size_t n, double v, int digits)
{
    if (isnan(v))
        snprintf(buf, n, "nan");
    else if (isinf(v))
        snprintf(buf, n, v > 0 ? "inf" : "-inf");
    else
        snprintf(buf, n, "%.*g", digits, v);
}

/* Plain and legible in print too; numbers right-aligned in tabular
 * figures so columns compare at a glance. */
static const char style[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
    "margin:0 auto;max-width:1240px;padding:0 24px 48px;color:#1d232a;"
    "background:#fff}"
    "h1{font-size:24px;margin:24px 0 4px}"
    "h2{font-size:19px;margin:36px 0 8px;padding-bottom:4px;"
    "border-bottom:2px solid #d9dee4}"
    "h3{font-size:15px;margin:20px 0 6px}"
    "nav a{margin-right:14px}"
    "a{color:#0b5cad;text-decoration:none}a:hover{text-decoration:underline}"
    "table{border-collapse:collapse;margin:8px 0 12px;font-size:13px}"
    "th,td{padding:3px 9px;border-bottom:1px solid #e3e7eb;text-align:left;"
    "vertical-align:top}"
    "th{background:#f1f4f7;font-weight:600;position:sticky;top:0}"
    "tbody tr:nth-child(even){background:#fafbfc}"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
    "td.rule,td.revision,td.first,td.last,td.started{white-space:nowrap}"
    "td.sig{font-family:ui-monospace,Menlo,Consolas,monospace;"
    "font-size:12px;overflow-wrap:anywhere;max-width:520px}"
    "pre{background:#f6f8fa;border:1px solid #e3e7eb;padding:10px;"
    "overflow:auto;max-height:420px;font-size:12px}"
    ".dim{color:#6a737d}.rev{border-bottom:1px dotted #6a737d}"
    ".bad{color:#b31d28;font-weight:600}.good{color:#22863a}"
    ".warn{color:#9a6700;font-weight:600}"
    ".kind{display:inline-block;padding:0 6px;border-radius:9px;"
    "background:#eef1f4;font-size:12px}"
    ".summary{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0}"
    ".summary div{border:1px solid #e3e7eb;border-radius:6px;"
    "padding:8px 14px;min-width:110px}"
    ".summary b{display:block;font-size:20px}"
    ".plots{display:flex;flex-wrap:wrap;gap:16px}"
    "figure{margin:0;border:1px solid #e3e7eb;border-radius:6px;padding:6px}"
    "figcaption{font-size:12px;color:#444;padding:4px}"
    "figure svg{display:block;max-width:100%;height:auto}"
    ".note{background:#fff8c5;border:1px solid #e5d38a;padding:8px 12px;"
    "border-radius:6px}"
    "details summary{cursor:pointer;color:#0b5cad;margin:6px 0}";

void rh_page_begin(FILE *f, const char *db, int64_t now)
{
    char when[32];
    rh_iso(when, sizeof when, now);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
          "<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, "
          "initial-scale=1\">\n"
          /* nothing may load: the page is the whole report */
          "<meta http-equiv=\"Content-Security-Policy\" content=\""
          "default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
          "<title>fiacheck report: ", f);
    rh_text(f, db, SIZE_MAX);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
    fputs("<h1>fiacheck report</h1>\n<p class=\"dim\">store <code>", f);
    rh_text(f, db, SIZE_MAX);
    fprintf(f, "</code>, written %s by fiacheck ", when);
    rh_revision(f, cli_build_revision());
    fprintf(f, "%s</p>\n", cli_build_dirty() ? " (dirty)" : "");
    fputs("<nav><a href=\"#findings\">Findings</a><a href=\"#campaigns\">"
          "Campaigns</a><a href=\"#systems\">Systems</a>"
          "<a href=\"#accuracy\">Accuracy</a>"
          "<a href=\"#bench\">Benchmarks</a><a href=\"#coverage\">Rule "
          "coverage</a><a href=\"#cases\">Case texts</a></nav>\n", f);
}

void rh_page_end(FILE *f)
{
    fputs("<p class=\"dim\">Made by <code>fiacheck report</code> "
          "(docs/cli.md). Every number comes from the store; "
          "<code>fiacheck db</code> shows the same rows as text and JSON."
          "</p>\n</body>\n</html>\n", f);
}
