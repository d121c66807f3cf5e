/* A small JSON reader for call.json: the whole text into a tree.  Beside
 * standard JSON it takes NaN, Infinity and -Infinity (what Python's json
 * module writes for a non-finite float).  Part of the program `fiacheck
 * export` ships: it depends on the C library only. */
#ifndef FIA_ACLNN_JSON_H
#define FIA_ACLNN_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum json_kind {
    JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT
} json_kind;

typedef struct json_value {
    json_kind kind;
    int boolean;
    double number;
    char *text;                 /* a string's bytes, or a number's spelling */
    size_t count;               /* array items / object members */
    struct json_value *items;
    char **keys;                /* object member names (count of them) */
} json_value;

/* Parses text; NULL on a syntax error, with where and why in err. */
json_value *json_parse(const char *text, char *err, size_t errlen);
void json_free(json_value *v);
/* The member called key of an object, NULL when absent or v no object. */
const json_value *json_member(const json_value *v, const char *key);
/* An integral number within int64 into *out: 0, else -1. */
int json_int64(const json_value *v, int64_t *out);

#endif
