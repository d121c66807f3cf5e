/* The case parser's lexical pieces (case_parse.c): blanks, words, trimmed
 * fields and the number syntax of a .case line.  Pure functions of their
 * text; the parser turns their -1 / -2 into messages. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "case_internal.h"

int fia__lex_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

int fia__lex_word(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

/* Trim in place: returns the first non-space char, cuts trailing spaces. */
char *fia__lex_trim(char *s)
{
    while (fia__lex_space(*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && fia__lex_space(s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* 0 ok, -1 not an integer, -2 out of range. */
int fia__lex_i64(const char *s, int64_t *v)
{
    const char *d = s;
    if (*d == '+' || *d == '-')
        d++;
    if (!isdigit((unsigned char)*d))
        return -1;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (*end != '\0')
        return -1;
    if (errno == ERANGE)
        return -2;
    *v = (int64_t)x;
    return 0;
}

int fia__lex_u64(const char *s, uint64_t *v)
{
    const char *d = s;
    if (*d == '+')
        d++;
    if (!isdigit((unsigned char)*d))
        return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(d, &end, 10);
    if (*end != '\0')
        return -1;
    if (errno == ERANGE)
        return -2;
    *v = (uint64_t)x;
    return 0;
}

int fia__lex_double(const char *s, double *v)
{
    if (*s == '\0' || fia__lex_space(*s))
        return -1;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end != '\0')
        return -1;
    /* ERANGE on overflow gives +-HUGE_VAL = inf, on underflow a denormal or
     * zero: both are what the text means, so accept them. */
    *v = x;
    return 0;
}

/* Count the fields separated by ',' (an empty string counts as 1). */
size_t fia__lex_count_fields(const char *s)
{
    size_t n = 1;
    for (; *s; s++)
        n += (*s == ',');
    return n;
}

/* Next ','-separated field of *cur (NUL-terminated, trimmed). */
char *fia__lex_next_field(char **cur)
{
    char *s = *cur;
    char *comma = strchr(s, ',');
    if (comma) {
        *comma = '\0';
        *cur = comma + 1;
    } else {
        *cur = s + strlen(s);
    }
    return fia__lex_trim(s);
}

