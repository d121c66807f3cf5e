/* The JSON reader (fia_aclnn_json.h): recursive descent over the text,
 * nesting bounded so that a hostile file cannot exhaust the stack. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fia_aclnn_json.h"

#define JSON_MAX_DEPTH 64

typedef struct parser {
    const char *s, *start;
    char *err;
    size_t errlen;
} parser;

static int fail(parser *p, const char *why)
{
    if (p->err && !p->err[0])
        snprintf(p->err, p->errlen, "offset %ld: %s", (long)(p->s - p->start),
                 why);
    return -1;
}

static void skip_space(parser *p)
{
    while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
        p->s++;
}

static int literal(parser *p, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(p->s, word, n) != 0)
        return 0;
    p->s += n;
    return 1;
}

static void put_utf8(char *out, size_t *n, unsigned cp)
{
    if (cp < 0x80) {
        out[(*n)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*n)++] = (char)(0xc0 | cp >> 6);
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out[(*n)++] = (char)(0xe0 | cp >> 12);
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else {
        out[(*n)++] = (char)(0xf0 | cp >> 18);
        out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    }
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

/* A string after its opening quote, into a new buffer (*out). */
static int parse_string(parser *p, char **out)
{
    const char *end = p->s;
    while (*end && *end != '"') {
        if (*end == '\\' && end[1])
            end++;
        end++;
    }
    if (!*end)
        return fail(p, "unterminated string");
    char *buf = malloc((size_t)(end - p->s) + 1);
    if (!buf)
        return fail(p, "out of memory");
    size_t n = 0;
    while (*p->s != '"') {
        unsigned char c = (unsigned char)*p->s++;
        if (c < 0x20) {
            free(buf);
            return fail(p, "control character in a string");
        }
        if (c != '\\') {
            buf[n++] = (char)c;
            continue;
        }
        char e = *p->s++;
        unsigned cp;
        switch (e) {
        case '"': case '\\': case '/': buf[n++] = e; break;
        case 'b': buf[n++] = '\b'; break;
        case 'f': buf[n++] = '\f'; break;
        case 'n': buf[n++] = '\n'; break;
        case 'r': buf[n++] = '\r'; break;
        case 't': buf[n++] = '\t'; break;
        case 'u':
            /* six escaped characters never take more than four bytes */
            if (hex4(p->s, &cp) != 0) {
                free(buf);
                return fail(p, "bad \\u escape");
            }
            p->s += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && p->s[0] == '\\' &&
                p->s[1] == 'u') {
                unsigned lo;
                if (hex4(p->s + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    p->s += 6;
                }
            }
            put_utf8(buf, &n, cp);
            break;
        default:
            free(buf);
            return fail(p, "bad escape");
        }
    }
    p->s++;
    buf[n] = '\0';
    *out = buf;
    return 0;
}

static int parse_value(parser *p, json_value *v, int depth);

static int parse_number(parser *p, json_value *v)
{
    const char *b = p->s;
    if (*p->s == '-')
        p->s++;
    if (literal(p, "Infinity")) {
        v->number = *b == '-' ? -INFINITY : INFINITY;
    } else {
        if (*p->s < '0' || *p->s > '9')
            return fail(p, "unexpected character");
        while ((*p->s >= '0' && *p->s <= '9') || *p->s == '.' ||
               *p->s == 'e' || *p->s == 'E' || *p->s == '+' || *p->s == '-')
            p->s++;
        char *end;
        char tmp[128];
        size_t n = (size_t)(p->s - b);
        if (n >= sizeof tmp)
            return fail(p, "number too long");
        memcpy(tmp, b, n);
        tmp[n] = '\0';
        v->number = strtod(tmp, &end);
        if (*end)
            return fail(p, "malformed number");
    }
    v->kind = JSON_NUMBER;
    size_t n = (size_t)(p->s - b);
    v->text = malloc(n + 1);
    if (!v->text)
        return fail(p, "out of memory");
    memcpy(v->text, b, n);
    v->text[n] = '\0';
    return 0;
}

/* Appends one slot to v's items (and keys when an object). */
static json_value *grow(parser *p, json_value *v, size_t *cap)
{
    if (v->count == *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        json_value *ni = realloc(v->items, nc * sizeof *ni);
        if (!ni) {
            fail(p, "out of memory");
            return NULL;
        }
        v->items = ni;
        if (v->kind == JSON_OBJECT) {
            char **nk = realloc(v->keys, nc * sizeof *nk);
            if (!nk) {
                fail(p, "out of memory");
                return NULL;
            }
            v->keys = nk;
        }
        *cap = nc;
    }
    json_value *slot = &v->items[v->count];
    memset(slot, 0, sizeof *slot);
    if (v->kind == JSON_OBJECT)
        v->keys[v->count] = NULL;
    v->count++;
    return slot;
}

static int parse_container(parser *p, json_value *v, int depth)
{
    char close = v->kind == JSON_ARRAY ? ']' : '}';
    size_t cap = 0;
    skip_space(p);
    if (*p->s == close) {
        p->s++;
        return 0;
    }
    for (;;) {
        skip_space(p);
        char *key = NULL;
        if (v->kind == JSON_OBJECT) {
            if (*p->s != '"')
                return fail(p, "expected a member name");
            p->s++;
            if (parse_string(p, &key) != 0)
                return -1;
            skip_space(p);
            if (*p->s != ':') {
                free(key);
                return fail(p, "expected ':'");
            }
            p->s++;
        }
        json_value *slot = grow(p, v, &cap);
        if (!slot) {
            free(key);
            return -1;
        }
        if (v->kind == JSON_OBJECT)
            v->keys[v->count - 1] = key;
        if (parse_value(p, slot, depth + 1) != 0)
            return -1;
        skip_space(p);
        if (*p->s == ',') {
            p->s++;
            continue;
        }
        if (*p->s == close) {
            p->s++;
            return 0;
        }
        return fail(p, v->kind == JSON_ARRAY ? "expected ',' or ']'"
                                             : "expected ',' or '}'");
    }
}

static int parse_value(parser *p, json_value *v, int depth)
{
    if (depth > JSON_MAX_DEPTH)
        return fail(p, "nested too deeply");
    skip_space(p);
    char c = *p->s;
    if (c == '{' || c == '[') {
        p->s++;
        v->kind = c == '{' ? JSON_OBJECT : JSON_ARRAY;
        return parse_container(p, v, depth);
    }
    if (c == '"') {
        p->s++;
        v->kind = JSON_STRING;
        return parse_string(p, &v->text);
    }
    if (literal(p, "null")) { v->kind = JSON_NULL; return 0; }
    if (literal(p, "true")) { v->kind = JSON_BOOL; v->boolean = 1; return 0; }
    if (literal(p, "false")) { v->kind = JSON_BOOL; return 0; }
    if (literal(p, "NaN")) {
        v->kind = JSON_NUMBER;
        v->number = NAN;
        v->text = strdup("NaN");
        return v->text ? 0 : fail(p, "out of memory");
    }
    return parse_number(p, v);
}

static void free_inner(json_value *v)
{
    for (size_t i = 0; i < v->count; i++) {
        free_inner(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->text);
}

void json_free(json_value *v)
{
    if (v) {
        free_inner(v);
        free(v);
    }
}

json_value *json_parse(const char *text, char *err, size_t errlen)
{
    parser p = {text, text, err, errlen};
    if (err && errlen)
        err[0] = '\0';
    json_value *v = calloc(1, sizeof *v);
    if (!v) {
        fail(&p, "out of memory");
        return NULL;
    }
    if (parse_value(&p, v, 0) == 0) {
        skip_space(&p);
        if (!*p.s)
            return v;
        fail(&p, "text after the value");
    }
    json_free(v);
    return NULL;
}

const json_value *json_member(const json_value *v, const char *key)
{
    if (!v || v->kind != JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < v->count; i++)
        if (v->keys[i] && strcmp(v->keys[i], key) == 0)
            return &v->items[i];
    return NULL;
}

int json_int64(const json_value *v, int64_t *out)
{
    if (!v || v->kind != JSON_NUMBER || !v->text)
        return -1;
    char *end;
    errno = 0;
    long long x = strtoll(v->text, &end, 10);
    if (errno || *end || end == v->text)
        return -1;
    *out = (int64_t)x;
    return 0;
}
