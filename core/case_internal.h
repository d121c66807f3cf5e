/* Private helpers shared by core/case_*.c.  Not part of the public API. */
#ifndef FIA_CORE_CASE_INTERNAL_H
#define FIA_CORE_CASE_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include "fia/case.h"

/* How an attribute is spelled in a .case file. */
typedef enum fia_attr_kind {
    FIA_AK_INT = 0,   /* int64 */
    FIA_AK_DOUBLE,    /* double (scale) */
    FIA_AK_BOOL,      /* true / false */
    FIA_AK_LAYOUT     /* token of [A-Za-z_0-9], at most FIA_LAYOUT_MAX-1 */
} fia_attr_kind;

fia_attr_kind fia__attr_kind(fia_attr a);
int fia_attr_from_name(const char *name);   /* -1 if unknown */
int fia_array_from_name(const char *name);  /* -1 if unknown */

/* Pointers to the attribute's field (type given by fia__attr_kind). */
int64_t *fia__attr_int(fia_attrs *at, fia_attr a);      /* NULL unless INT */
const int64_t *fia__attr_cint(const fia_attrs *at, fia_attr a);

/* For a key interface api does not have (core/case_api.c): 1 with the
 * message in msg when the key is a parameter of the internal vocabulary or
 * of another interface (naming api, the key, and its name in api or the
 * interfaces that have it); 0 for a word no vocabulary knows. */
int fia__api_foreign(fia_api api, const char *key, char *msg, size_t n);
/* 1 when attribute a of at differs from interface api's default. */
int fia__attr_differs_from_default(const fia_attrs *at, fia_attr a,
                                   fia_api api);
/* The canonical text with explicit values replaced by their count, and
 * *values_hash the FNV-1a 64 of the values' bits (every NaN as one):
 * what fia_case_digest hashes.  NULL out of memory. */
char *fia__case_digest_text(const fia_case *c, uint64_t *values_hash);
/* x as snprintf(out, n, "%.17g", x) writes it, the same bytes, mostly
 * without printf (double_text.c); the length. */
int fia__double_text(char *out, size_t n, double x);
/* 1 when attribute a has the same value in x and y (nan == nan). */
int fia__attr_equal(const fia_attrs *x, const fia_attrs *y, fia_attr a);

/* Doubles compare equal when both are nan, or bit-identical otherwise. */
int fia__double_same(double x, double y);

void fia__gen_free(fia_gen *g);
void fia__spec_free(fia_tensor_spec *s);
void fia__array_free(fia_int_array_spec *a);

/* Number of arguments a generator kind takes in the file syntax. */
int fia__gen_arity(fia_gen_kind k);
const char *fia__gen_name(fia_gen_kind k);  /* "normal", ...; NULL for VALUES */

/* Sum of the element counts of a spec's tensors; -1 on overflow/negative. */
int64_t fia__spec_numel(const fia_tensor_spec *s);

/* case_lex.c: the parser's lexical pieces.  The number readers return 0,
 * -1 (not a number of that syntax) or -2 (out of range). */
int fia__lex_space(char ch);                 /* blank but not a newline */
int fia__lex_word(char ch);                  /* [A-Za-z0-9_] */
char *fia__lex_trim(char *s);                /* in place */
int fia__lex_i64(const char *s, int64_t *v);
int fia__lex_u64(const char *s, uint64_t *v);
int fia__lex_double(const char *s, double *v); /* inf / denormals as read */
size_t fia__lex_count_fields(const char *s); /* ','-separated; "" is 1 */
char *fia__lex_next_field(char **cur);       /* the next one, trimmed */

#endif
