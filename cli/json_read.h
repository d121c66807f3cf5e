/* A small, strict JSON reader (RFC 8259) for the files a device's script
 * writes back (out/status.json) and export's call.json.  Strict because
 * what it reads decides a verdict: anything the grammar does not allow
 * (trailing commas, comments, single quotes, NaN, a duplicate key, bytes
 * after the value, malformed UTF-8, \u0000) is refused with where and why,
 * never guessed at. */
#ifndef FIA_CLI_JSON_READ_H
#define FIA_CLI_JSON_READ_H

#include <stddef.h>
#include "fia/status.h"

typedef enum cli_json_type {
    CLI_JSON_NULL,
    CLI_JSON_BOOL,
    CLI_JSON_NUMBER,
    CLI_JSON_STRING,
    CLI_JSON_ARRAY,
    CLI_JSON_OBJECT
} cli_json_type;

typedef struct cli_json {
    cli_json_type type;
    int boolean;             /* BOOL */
    double number;           /* NUMBER (binary64 nearest to the text) */
    int integral;            /* NUMBER written without fraction or exponent */
    char *string;            /* STRING: UTF-8, NUL-terminated */
    char **keys;             /* OBJECT: keys[i] names items[i] */
    struct cli_json *items;  /* ARRAY, OBJECT */
    size_t n;
} cli_json;

/* Nesting deeper than this is refused (no recursion without end). */
#define CLI_JSON_MAX_DEPTH 64

/* Parses text[0..len) as one JSON value into *out: FIA_OK, or
 * FIA_ERR_BAD_INPUT (FIA_ERR_NOMEM when out of memory) with why ("byte 12:
 * expected ':' after an object key") and *out left null.  The caller
 * frees *out with cli_json_free. */
fia_status cli_json_parse(const char *text, size_t len, cli_json *out,
                          char *why, size_t whylen);
void cli_json_free(cli_json *v);
/* The member of object o named key, or NULL (also when o is no object). */
const cli_json *cli_json_get(const cli_json *o, const char *key);
const char *cli_json_type_name(cli_json_type t);

#endif
