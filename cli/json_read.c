/* The strict JSON reader (json_read.h): a recursive descent over RFC
 * 8259's grammar, building a tree of cli_json values. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json_read.h"

typedef struct reader {
    const unsigned char *p, *end, *start;
    char *why;
    size_t whylen;
    int failed;
} reader;

/* Records why (the first failure only): FIA_ERR_BAD_INPUT. */
static fia_status fail(reader *r, const char *fmt, ...)
{
    if (!r->failed) {
        r->failed = 1;
        int k = snprintf(r->why, r->whylen, "byte %zu: ",
                         (size_t)(r->p - r->start));
        va_list ap;
        va_start(ap, fmt);
        if (k >= 0 && (size_t)k < r->whylen)
            vsnprintf(r->why + k, r->whylen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return FIA_ERR_BAD_INPUT;
}

/* An allocation failure, recorded as fail does: FIA_ERR_NOMEM. */
static fia_status nomem(reader *r)
{
    fail(r, "out of memory");
    return FIA_ERR_NOMEM;
}

static void skip_ws(reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' ||
                             *r->p == '\r'))
        r->p++;
}

static fia_status literal(reader *r, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
        return fail(r, "not a JSON value (expected %s)", word);
    r->p += n;
    return FIA_OK;
}

static fia_status digits(reader *r)
{
    const unsigned char *s = r->p;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
        r->p++;
    return r->p > s ? FIA_OK : fail(r, "a number needs a digit here");
}

static fia_status number(reader *r, cli_json *v)
{
    const unsigned char *s = r->p;
    fia_status st;
    v->integral = 1;
    if (r->p < r->end && *r->p == '-')
        r->p++;
    if (r->p < r->end && *r->p == '0') {
        r->p++; /* no leading zeros: 0 alone */
    } else if ((st = digits(r)) != FIA_OK) {
        return st;
    }
    if (r->p < r->end && *r->p == '.') {
        r->p++, v->integral = 0;
        if ((st = digits(r)) != FIA_OK)
            return st;
    }
    if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
        r->p++, v->integral = 0;
        if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
            r->p++;
        if ((st = digits(r)) != FIA_OK)
            return st;
    }
    char buf[128];
    size_t n = (size_t)(r->p - s);
    if (n >= sizeof buf)
        return fail(r, "a number of more than %zu characters", sizeof buf - 1);
    memcpy(buf, s, n);
    buf[n] = '\0';
    v->type = CLI_JSON_NUMBER;
    v->number = strtod(buf, NULL);
    return FIA_OK;
}

static fia_status hex4(reader *r, unsigned *u)
{
    *u = 0;
    for (int i = 0; i < 4; i++, r->p++) {
        if (r->p >= r->end)
            return fail(r, "a \\u escape needs four hex digits");
        unsigned c = *r->p, d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
            d = (c | 0x20) - 'a' + 10;
        else
            return fail(r, "a \\u escape needs four hex digits");
        *u = *u << 4 | d;
    }
    return FIA_OK;
}

static size_t put_utf8(unsigned u, char *o)
{
    if (u < 0x80)
        return o[0] = (char)u, 1;
    if (u < 0x800)
        return o[0] = (char)(0xC0 | u >> 6), o[1] = (char)(0x80 | (u & 63)), 2;
    if (u < 0x10000)
        return o[0] = (char)(0xE0 | u >> 12),
               o[1] = (char)(0x80 | (u >> 6 & 63)),
               o[2] = (char)(0x80 | (u & 63)), 3;
    o[0] = (char)(0xF0 | u >> 18), o[1] = (char)(0x80 | (u >> 12 & 63));
    o[2] = (char)(0x80 | (u >> 6 & 63)), o[3] = (char)(0x80 | (u & 63));
    return 4;
}

/* The length of the well-formed UTF-8 sequence at p (RFC 3629), or 0. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned char c = p[0], lo = 0x80, hi = 0xBF;
    size_t n;
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
    if ((size_t)(end - p) < n || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t k = 2; k < n; k++)
        if (p[k] < 0x80 || p[k] > 0xBF)
            return 0;
    return n;
}

static fia_status escape(reader *r, char *o, size_t *k)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    r->p++; /* the backslash */
    if (r->p >= r->end)
        return fail(r, "a string ends inside an escape");
    const char *e = strchr(from, *r->p);
    if (*r->p != 'u') {
        if (e == NULL || *r->p == '\0')
            return fail(r, "unknown escape \\%c", *r->p);
        o[(*k)++] = to[e - from];
        r->p++;
        return FIA_OK;
    }
    r->p++;
    unsigned u, lo;
    fia_status st = hex4(r, &u);
    if (st != FIA_OK)
        return st;
    if (u >= 0xDC00 && u <= 0xDFFF)
        return fail(r, "a lone low surrogate \\u%04X", u);
    if (u >= 0xD800 && u <= 0xDBFF) {
        if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
            return fail(r, "a high surrogate \\u%04X without its pair", u);
        r->p += 2;
        if ((st = hex4(r, &lo)) != FIA_OK)
            return st;
        if (lo < 0xDC00 || lo > 0xDFFF)
            return fail(r, "a high surrogate followed by \\u%04X", lo);
        u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
    }
    if (u == 0)
        return fail(r, "\\u0000 (a NUL inside a string)");
    *k += put_utf8(u, o + *k);
    return FIA_OK;
}

static fia_status string(reader *r, char **out)
{
    r->p++; /* the opening quote */
    const unsigned char *s = r->p;
    /* an escape never grows: at most as many bytes as the source */
    char *o = malloc((size_t)(r->end - s) + 1);
    size_t k = 0;
    if (o == NULL)
        return nomem(r);
    while (1) {
        if (r->p >= r->end) {
            free(o);
            return fail(r, "a string without its closing quote");
        }
        unsigned char c = *r->p;
        if (c == '"')
            break;
        if (c < 0x20) {
            free(o);
            return fail(r, "a control character (0x%02x) inside a string", c);
        }
        if (c == '\\') {
            fia_status st = escape(r, o, &k);
            if (st != FIA_OK) {
                free(o);
                return st;
            }
            continue;
        }
        size_t n = utf8_len(r->p, r->end);
        if (n == 0) {
            free(o);
            return fail(r, "malformed UTF-8 inside a string");
        }
        memcpy(o + k, r->p, n);
        k += n, r->p += n;
    }
    r->p++;
    o[k] = '\0';
    *out = o;
    return FIA_OK;
}

static fia_status value(reader *r, cli_json *v, int depth);

/* Appends a slot to v's items (and keys for an object); NULL when out of
 * memory (recorded). */
static cli_json *grow(reader *r, cli_json *v, size_t *cap)
{
    if (v->n == *cap) {
        size_t c = *cap ? *cap * 2 : 4;
        cli_json *it = realloc(v->items, c * sizeof *it);
        if (it == NULL)
            return nomem(r), NULL;
        v->items = it;
        if (v->type == CLI_JSON_OBJECT) {
            char **ks = realloc(v->keys, c * sizeof *ks);
            if (ks == NULL)
                return nomem(r), NULL;
            v->keys = ks;
        }
        *cap = c;
    }
    memset(&v->items[v->n], 0, sizeof v->items[0]);
    return &v->items[v->n];
}

static fia_status container(reader *r, cli_json *v, int depth)
{
    const int obj = *r->p == '{';
    const char close = obj ? '}' : ']';
    size_t cap = 0;
    fia_status st;
    v->type = obj ? CLI_JSON_OBJECT : CLI_JSON_ARRAY;
    if (depth >= CLI_JSON_MAX_DEPTH)
        return fail(r, "nested deeper than %d", CLI_JSON_MAX_DEPTH);
    r->p++;
    skip_ws(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        return FIA_OK;
    }
    while (1) {
        skip_ws(r);
        cli_json *it = grow(r, v, &cap);
        if (it == NULL)
            return FIA_ERR_NOMEM;
        if (obj) {
            char *key = NULL;
            if (r->p >= r->end || *r->p != '"')
                return fail(r, "expected an object key (a string)");
            if ((st = string(r, &key)) != FIA_OK)
                return st;
            if (cli_json_get(v, key) != NULL) {
                st = fail(r, "the key \"%.80s\" twice in one object", key);
                free(key);
                return st;
            }
            v->keys[v->n] = key;
            skip_ws(r);
            if (r->p >= r->end || *r->p != ':') {
                v->n++; /* the key is freed with v */
                return fail(r, "expected ':' after an object key");
            }
            r->p++;
        }
        v->n++;
        if ((st = value(r, it, depth + 1)) != FIA_OK)
            return st;
        skip_ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == close) {
            r->p++;
            return FIA_OK;
        }
        return fail(r, "expected ',' or '%c'", close);
    }
}

static fia_status value(reader *r, cli_json *v, int depth)
{
    skip_ws(r);
    if (r->p >= r->end)
        return fail(r, "the text ends where a value should be");
    switch (*r->p) {
    case '{':
    case '[':
        return container(r, v, depth);
    case '"':
        v->type = CLI_JSON_STRING;
        return string(r, &v->string);
    case 't':
        v->type = CLI_JSON_BOOL, v->boolean = 1;
        return literal(r, "true");
    case 'f':
        v->type = CLI_JSON_BOOL;
        return literal(r, "false");
    case 'n':
        return literal(r, "null");
    default:
        if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))
            return number(r, v);
        return fail(r, "not a JSON value (starts with '%c')",
                    *r->p >= 0x20 && *r->p < 0x7f ? *r->p : '?');
    }
}

fia_status cli_json_parse(const char *text, size_t len, cli_json *out,
                          char *why, size_t whylen)
{
    reader r = {(const unsigned char *)text, (const unsigned char *)text + len,
                (const unsigned char *)text, why, whylen, 0};
    memset(out, 0, sizeof *out);
    if (whylen > 0)
        why[0] = '\0';
    fia_status st = value(&r, out, 0);
    if (st == FIA_OK) {
        skip_ws(&r);
        if (r.p == r.end)
            return FIA_OK;
        st = fail(&r, "more after the JSON value");
    }
    cli_json_free(out);
    return st;
}

void cli_json_free(cli_json *v)
{
    for (size_t i = 0; i < v->n; i++) {
        cli_json_free(&v->items[i]);
        if (v->type == CLI_JSON_OBJECT)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    memset(v, 0, sizeof *v);
}

const cli_json *cli_json_get(const cli_json *o, const char *key)
{
    if (o == NULL || o->type != CLI_JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (o->keys[i] != NULL && strcmp(o->keys[i], key) == 0)
            return &o->items[i];
    return NULL;
}

const char *cli_json_type_name(cli_json_type t)
{
    static const char *const names[] = {"null",   "a boolean", "a number",
                                        "a string", "an array", "an object"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}
