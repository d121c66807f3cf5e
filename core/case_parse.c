/* .case file parser: one "key = value" per line, '#' comments.
 *
 * The parser only checks syntax and the few facts needed to keep the model
 * consistent (required keys, generator lines refer to given tensors, value
 * counts); everything about validity of the call is left to oracle/ and
 * fast/.  Input may be arbitrary bytes: every path returns 0 or -1. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "case_internal.h"

typedef struct parser {
    const char *file;
    fia_case *c;
    fia_error *err;
    int line;                          /* current line */
    int line_seed;
    int line_intent, line_threads, line_kernel_level, line_data;
    int line_task_order, line_product;
    int line_reserved[FIA_RESERVED_COUNT];
    int line_attr[FIA_ATTR_COUNT];
    int line_tensor[FIA_SLOT_COUNT];
    int line_gen[FIA_SLOT_COUNT];      /* .gen or .values */
    int line_array[FIA_ARR_COUNT];
} parser;

/* Records a malformed-input error at the current line; its status. */
#define FAIL(p, ...)                                                         \
    fia_fail_at((p)->err, FIA_ERR_BAD_INPUT, (p)->file, (p)->line,          \
                __VA_ARGS__)

static fia_status int_error(parser *p, const char *key, const char *s, int rc)
{
    if (rc == -2)
        return FAIL(p, "%s: integer out of range '%.60s'", key, s);
    return FAIL(p, "%s: bad integer '%.60s'", key, s);
}

/* "[a,b,...]" or "[]" -> fresh array of int64 (NULL when count 0). */
static fia_status parse_int_list(parser *p, const char *key, char *s,
                                 int64_t **out, int64_t *count, int nonneg,
                                 int max_count)
{
    *out = NULL;
    *count = 0;
    size_t len = strlen(s);
    if (len < 2 || s[0] != '[' || s[len - 1] != ']')
        return FAIL(p, "%s: expected '[...]', got '%.60s'", key, s);
    s[len - 1] = '\0';
    char *body = fia__lex_trim(s + 1);
    if (*body == '\0')
        return FIA_OK;
    size_t n = fia__lex_count_fields(body);
    if (max_count >= 0 && n > (size_t)max_count)
        return FAIL(p, "%s: bad shape: more than %d dims", key, max_count);
    int64_t *v = malloc(n * sizeof *v);
    if (!v)
        return fia_fail_at(p->err, FIA_ERR_NOMEM, p->file, p->line,
                           "%s: out of memory", key);
    char *cur = body;
    for (size_t i = 0; i < n; i++) {
        char *f = fia__lex_next_field(&cur);
        int rc = fia__lex_i64(f, &v[i]);
        if (rc != 0) {
            free(v);
            return int_error(p, key, f, rc);
        }
        if (nonneg && v[i] < 0) {
            long long bad = (long long)v[i];
            free(v);
            return FAIL(p, "%s: bad shape: negative dim %lld", key, bad);
        }
    }
    *out = v;
    *count = (int64_t)n;
    return FIA_OK;
}

/* "fp16 [2,8,16,64]" */
static fia_status parse_tensor(parser *p, const char *key, char *s,
                               fia_tensor *t)
{
    memset(t, 0, sizeof *t);
    char *w = s;
    while (fia__lex_word(*w))
        w++;
    if (w == s)
        return FAIL(p, "%s: expected 'dtype [dims]', got '%.60s'", key, s);
    char saved = *w;
    *w = '\0';
    char name[32];
    snprintf(name, sizeof name, "%s", s);
    fia_dtype dt = strlen(s) < sizeof name ? fia_dtype_from_name(s)
                                           : FIA_DT_INVALID;
    *w = saved;
    if (dt == FIA_DT_INVALID)
        return FAIL(p, "%s: bad dtype '%.40s'", key, name);
    char *shape = fia__lex_trim(w);
    int64_t *dims;
    int64_t nd;
    if (*shape != '[')
        return FAIL(p, "%s: bad shape '%.60s' (expected '[d0,d1,...]')", key,
                    shape);
    if (parse_int_list(p, key, shape, &dims, &nd, 1, FIA_MAX_RANK) != 0)
        return p->err->code;
    t->dtype = dt;
    t->ndim = (int32_t)nd;
    for (int64_t i = 0; i < nd; i++)
        t->shape[i] = dims[i];
    free(dims);
    if (fia_tensor_numel(t) < 0) /* no such tensor can exist */
        return FAIL(p, "%s: bad shape: element count overflows int64", key);
    return FIA_OK;
}

static fia_status parse_tensor_line(parser *p, fia_slot s, const char *key,
                                   char *v)
{
    fia_tensor_spec *sp = &p->c->tensors[s];
    if (strcmp(v, "null") == 0) {
        sp->presence = FIA_NULL;
        return FIA_OK;
    }
    size_t n = 1;
    for (const char *q = v; *q; q++)
        n += (*q == ';');
    if (n > 1 && !fia_slot_is_list(s))
        return FAIL(p, "%s: tensor lists (';') are only allowed for key and "
                       "value", key);
    if (n > FIA_MAX_TENSOR_LIST)
        return FAIL(p, "%s: more than %d tensors in the list", key,
                    FIA_MAX_TENSOR_LIST);
    fia_tensor *t = calloc(n, sizeof *t);
    if (!t)
        return fia_fail_at(p->err, FIA_ERR_NOMEM, p->file, p->line,
                           "%s: out of memory", key);
    char *cur = v;
    for (size_t i = 0; i < n; i++) {
        char *semi = strchr(cur, ';');
        if (semi)
            *semi = '\0';
        char *item = fia__lex_trim(cur);
        cur = semi ? semi + 1 : cur + strlen(cur);
        if (*item == '\0') {
            free(t);
            return FAIL(p, "%s: empty tensor in the list", key);
        }
        if (parse_tensor(p, key, item, &t[i]) != 0) {
            free(t);
            return p->err->code;
        }
    }
    sp->presence = FIA_PRESENT;
    sp->count = (int32_t)n;
    sp->t = t;
    return FIA_OK;
}

static fia_status parse_gen(parser *p, fia_slot s, const char *key, char *v)
{
    fia_gen *g = &p->c->tensors[s].gen;
    char *w = v;
    while (fia__lex_word(*w))
        w++;
    size_t nlen = (size_t)(w - v);
    static const fia_gen_kind kinds[] = {FIA_GEN_DEFAULT, FIA_GEN_NORMAL,
                                         FIA_GEN_UNIFORM, FIA_GEN_RANDOM,
                                         FIA_GEN_CAUSAL, FIA_GEN_CONST,
                                         FIA_GEN_BLOCKS};
    int kind = -1;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        const char *nm = fia__gen_name(kinds[i]);
        if (strlen(nm) == nlen && strncmp(nm, v, nlen) == 0)
            kind = (int)kinds[i];
    }
    if (kind < 0)
        return FAIL(p, "%s: bad generator '%.60s' (expected normal(m,s), "
                       "uniform(lo,hi), random(p), causal, const(x), blocks)", key, v);
    char *rest = fia__lex_trim(w);
    double args[2] = {0, 0};
    int nargs = 0;
    if (*rest != '\0') {
        size_t len = strlen(rest);
        if (rest[0] != '(' || rest[len - 1] != ')')
            return FAIL(p, "%s: bad generator '%.60s'", key, v);
        rest[len - 1] = '\0';
        char *body = fia__lex_trim(rest + 1);
        if (*body != '\0') {
            size_t n = fia__lex_count_fields(body);
            if (n > 2)
                return FAIL(p, "%s: bad generator: too many arguments", key);
            char *cur = body;
            for (size_t i = 0; i < n; i++) {
                char *f = fia__lex_next_field(&cur);
                if (fia__lex_double(f, &args[i]) != 0)
                    return FAIL(p, "%s: bad generator argument '%.40s'", key,
                                f);
            }
            nargs = (int)n;
        }
    }
    int arity = fia__gen_arity((fia_gen_kind)kind);
    if (nargs != arity)
        return FAIL(p, "%s: bad generator: %s takes %d argument%s, got %d",
                    key, fia__gen_name((fia_gen_kind)kind), arity,
                    arity == 1 ? "" : "s", nargs);
    switch ((fia_gen_kind)kind) {
    case FIA_GEN_NORMAL:
        if (!isfinite(args[0]) || !isfinite(args[1]) || args[1] < 0)
            return FAIL(p, "%s: bad generator: normal needs a finite mean "
                           "and a finite std >= 0", key);
        break;
    case FIA_GEN_UNIFORM:
        if (!isfinite(args[0]) || !isfinite(args[1]) || args[0] > args[1])
            return FAIL(p, "%s: bad generator: uniform needs finite lo <= hi",
                        key);
        break;
    case FIA_GEN_RANDOM:
        if (!(args[0] >= 0 && args[0] <= 1))
            return FAIL(p, "%s: bad generator: random needs 0 <= p <= 1",
                        key);
        break;
    default:
        break;
    }
    g->kind = (fia_gen_kind)kind;
    g->a = args[0];
    g->b = args[1];
    return FIA_OK;
}

static fia_status parse_values(parser *p, fia_slot s, const char *key,
                               char *v)
{
    fia_gen *g = &p->c->tensors[s].gen;
    g->kind = FIA_GEN_VALUES;
    g->a = g->b = 0;
    g->n_values = 0;
    g->values = NULL;
    if (*v == '\0')
        return FIA_OK;
    size_t n = fia__lex_count_fields(v);
    double *vals = malloc(n * sizeof *vals);
    if (!vals)
        return fia_fail_at(p->err, FIA_ERR_NOMEM, p->file, p->line,
                           "%s: out of memory (%zu values)", key, n);
    char *cur = v;
    for (size_t i = 0; i < n; i++) {
        char *f = fia__lex_next_field(&cur);
        if (fia__lex_double(f, &vals[i]) != 0) {
            free(vals);
            return FAIL(p, "%s: bad number '%.40s' (value %zu)", key, f, i + 1);
        }
    }
    g->values = vals;
    g->n_values = (int64_t)n;
    return FIA_OK;
}

static fia_status dup_check(parser *p, int *slot_line, const char *key)
{
    if (*slot_line)
        return FAIL(p, "duplicate key '%s' (first on line %d)", key,
                    *slot_line);
    *slot_line = p->line;
    return FIA_OK;
}

/* "intent = a, b": names of the fixed vocabulary (fia_intent_name). */
static fia_status parse_intents(parser *p, char *v)
{
    for (char *next = v; next != NULL;) {
        char *comma = strchr(next, ',');
        if (comma)
            *comma = '\0';
        char *name = fia__lex_trim(next);
        next = comma ? comma + 1 : NULL;
        int i = fia_intent_from_name(name);
        if (i < 0) {
            char valid[512] = "";
            for (int k = 0; k < FIA_INTENT_COUNT; k++)
                snprintf(valid + strlen(valid), sizeof valid - strlen(valid),
                         "%s%s", k ? " " : "", fia_intent_name((fia_intent)k));
            return FAIL(p, "intent: unknown '%.60s' (valid: %s)", name, valid);
        }
        p->c->intents |= 1u << i;
    }
    return FIA_OK;
}

static fia_status parse_attr(parser *p, fia_attr a, const char *key, char *v)
{
    fia_attrs *at = &p->c->attrs;
    if (a == FIA_ATTR_OUT_DTYPE) { /* 004's int?: null is None */
        if (strcmp(v, "null") == 0) {
            at->out_dtype = -1;
            p->c->attr_given[a] = false;
            return FIA_OK;
        }
        int rc = fia__lex_i64(v, &at->out_dtype);
        if (rc != 0)
            return int_error(p, key, v, rc);
        if (at->out_dtype < 0)
            return FAIL(p, "%s: a dtype code (0 or more) or null, got "
                        "'%.60s'", key, v);
        p->c->attr_given[a] = true;
        return FIA_OK;
    }
    switch (fia__attr_kind(a)) {
    case FIA_AK_INT: {
        int rc = fia__lex_i64(v, fia__attr_int(at, a));
        if (rc != 0)
            return int_error(p, key, v, rc);
        break;
    }
    case FIA_AK_DOUBLE:
        if (fia__lex_double(v, &at->scale) != 0)
            return FAIL(p, "%s: bad number '%.60s'", key, v);
        break;
    case FIA_AK_BOOL:
        if (strcmp(v, "true") == 0)
            at->softmax_lse_flag = true;
        else if (strcmp(v, "false") == 0)
            at->softmax_lse_flag = false;
        else
            return FAIL(p, "%s: expected true or false, got '%.60s'", key, v);
        break;
    case FIA_AK_LAYOUT: {
        size_t n = strlen(v);
        for (size_t i = 0; i < n; i++)
            if (!fia__lex_word(v[i]))
                return FAIL(p, "%s: bad layout '%.60s' (letters, digits, '_')",
                            key, v);
        if (n >= FIA_LAYOUT_MAX)
            return FAIL(p, "%s: layout longer than %d characters", key,
                        FIA_LAYOUT_MAX - 1);
        memcpy(at->input_layout, v, n + 1);
        break;
    }
    }
    p->c->attr_given[a] = true;
    return FIA_OK;
}

/* The case's interface's name for slot s (messages speak its words). */
static const char *slot_word(const parser *p, int s)
{
    const char *in = fia_slot_name((fia_slot)s);
    const char *w = fia_api_param(p->c->api, in);
    return w ? w : in;
}

/* A key the case's interface does not have: when it is a parameter of
 * another vocabulary, fails naming the interface, the parameter and what it
 * is called here (fia__api_foreign); 0 for a word no interface knows (the
 * caller says "unknown"). */
static fia_status foreign_name(parser *p, const char *key)
{
    char msg[400];
    if (!fia__api_foreign(p->c->api, key, msg, sizeof msg))
        return FIA_OK;
    return FAIL(p, "%s", msg);
}

/* A reserved `int? *_dtype` (003 / 004): an integer, or null (None). */
static fia_status parse_reserved(parser *p, int r, const char *key,
                                 const char *v)
{
    if (dup_check(p, &p->line_reserved[r], key) != 0)
        return p->err->code;
    if (strcmp(v, "null") == 0) {
        p->c->reserved_given &= ~(1u << r);
        return FIA_OK;
    }
    int64_t x = 0;
    int rc = fia__lex_i64(v, &x);
    if (rc != 0)
        return int_error(p, key, v, rc);
    p->c->reserved_given |= 1u << r;
    p->c->reserved[r] = x;
    return FIA_OK;
}

/* `product = NAME`: a product the case's interface documents (the api line
 * is read first, scan_api). */
static fia_status parse_product(parser *p, const char *key, const char *v)
{
    if (dup_check(p, &p->line_product, key) != 0)
        return p->err->code;
    int d = fia_product_from_name(v);
    if (d < 0)
        return FAIL(p, "product: unknown '%.60s' (valid: %s %s)", v,
                    fia_product_name(FIA_PRODUCT_ATLAS_A2),
                    fia_product_name(FIA_PRODUCT_INFERENCE_CARD));
    if (!fia_api_has_product(p->c->api, (fia_product)d))
        return FAIL(p, "product: %s (%s) does not document %s (only 001, "
                       "api = incre_flash_attention, lists it)",
                    fia_api_name(p->c->api), fia_api_doc(p->c->api), v);
    p->c->product = (fia_product)d;
    return FIA_OK;
}

/* `KEY.gen = ...` or `KEY.values = ...`: a tensor's data generator or its
 * literal values, once per tensor; outputs are zero-filled and take none.
 * `dot` points at the suffix's '.' inside `key`. */
static fia_status parse_data_line(parser *p, char *key, char *dot, char *v)
{
    *dot = '\0';
    const char *suffix = dot + 1;
    int is_gen = strcmp(suffix, "gen") == 0;
    int is_values = strcmp(suffix, "values") == 0;
    int s = -1;
    if (is_gen || is_values) {
        const char *in = fia_api_internal(p->c->api, key, NULL);
        s = in ? fia_slot_from_name(in) : -1;
        if (s < 0 && foreign_name(p, key) != 0)
            return p->err->code;
    }
    *dot = '.';
    if (s < 0 || (!is_gen && !is_values))
        return FAIL(p, "unknown key '%.60s'", key);
    if (fia_slot_is_output((fia_slot)s))
        return FAIL(p, "%s: outputs take no generator (they are "
                       "zero-filled)", key);
    if (p->line_gen[s])
        return FAIL(p, "duplicate key '%s' (a generator for '%s' is "
                       "already on line %d)", key, slot_word(p, s),
                    p->line_gen[s]);
    p->line_gen[s] = p->line;
    if (is_values)
        return parse_values(p, (fia_slot)s, key, v);
    if (*v == '\0')
        return FAIL(p, "%s: missing value", key);
    return parse_gen(p, (fia_slot)s, key, v);
}

/* The case's own keys, which are no parameter of any interface (seed,
 * intent, threads, task_order, data, kernel_level, api, product). Returns 1
 * with the line's status in *rc when `key` is one of them, else 0. */
static int parse_case_key(parser *p, const char *key, char *v,
                          fia_status *rc)
{
    if (strcmp(key, "seed") == 0) {
        if (dup_check(p, &p->line_seed, key) != 0) {
            *rc = p->err->code;
            return 1;
        }
        int lex = fia__lex_u64(v, &p->c->seed);
        if (lex == -2)
            *rc = FAIL(p, "seed: integer out of range '%.60s'", v);
        else if (lex != 0)
            *rc = FAIL(p, "seed: bad integer '%.60s' (expected 0..2^64-1)", v);
        else
            *rc = FIA_OK;
        return 1;
    }
    if (strcmp(key, "intent") == 0) {
        if (dup_check(p, &p->line_intent, key) != 0)
            *rc = p->err->code;
        else
            *rc = parse_intents(p, v);
        return 1;
    }
    if (strcmp(key, "threads") == 0) {
        uint64_t n = 0;
        if (dup_check(p, &p->line_threads, key) != 0)
            *rc = p->err->code;
        else if (fia__lex_u64(v, &n) != 0 || n < 1 || n > FIA_CASE_MAX_THREADS)
            *rc = FAIL(p, "threads: '%.60s' is not a thread count 1..%d", v,
                       FIA_CASE_MAX_THREADS);
        else {
            p->c->threads = (int32_t)n;
            *rc = FIA_OK;
        }
        return 1;
    }
    if (strcmp(key, "task_order") == 0) {
        uint64_t n = 0;
        if (dup_check(p, &p->line_task_order, key) != 0)
            *rc = p->err->code;
        else if (fia__lex_u64(v, &n) != 0 || n < 1)
            *rc = FAIL(p, "task_order: '%.60s' is not a seed 1..2^64-1", v);
        else {
            p->c->task_order = n;
            *rc = FIA_OK;
        }
        return 1;
    }
    if (strcmp(key, "data") == 0) {
        if (dup_check(p, &p->line_data, key) != 0)
            *rc = p->err->code;
        else if (strcmp(v, "live_rows") != 0)
            *rc = FAIL(p, "data: unknown '%.60s' (valid: live_rows)", v);
        else {
            p->c->live_rows = true;
            *rc = FIA_OK;
        }
        return 1;
    }
    if (strcmp(key, "kernel_level") == 0) {
        int k = -1;
        if (dup_check(p, &p->line_kernel_level, key) != 0)
            *rc = p->err->code;
        else if ((k = fia_kernel_level_from_name(v)) < 0)
            *rc = FAIL(p, "kernel_level: unknown '%.60s' (valid: scalar avx2 "
                       "avx512)", v);
        else {
            p->c->kernel_level = (fia_kernel_level)k;
            *rc = FIA_OK;
        }
        return 1;
    }
    if (strcmp(key, "api") == 0) {
        *rc = FIA_OK;   /* read before the other lines (scan_api) */
        return 1;
    }
    if (strcmp(key, "product") == 0) {
        *rc = parse_product(p, key, v);
        return 1;
    }
    return 0;
}

/* A parameter of the case's interface: an attribute, a tensor or an integer
 * array once mapped to its internal name, or one of the interface's
 * parameters that has no counterpart in 002's operator (only its default,
 * null, is accepted unless fiacheck reserves it). */
static fia_status parse_param_key(parser *p, const char *key, char *v)
{
    int unmodeled = 0;
    const char *in = fia_api_internal(p->c->api, key, &unmodeled);
    if (unmodeled) {
        int r = fia_reserved_from_name(key);
        if (r >= 0)
            return parse_reserved(p, r, key, v);
        if (strcmp(v, "null") == 0)
            return FIA_OK;   /* its default None: the call is unchanged */
        return FAIL(p, "%s (%s): %s is not modeled yet (no counterpart in "
                       "002's operator); only null, its default None, is "
                       "accepted", fia_api_name(p->c->api),
                    fia_api_doc(p->c->api), key);
    }
    if (in == NULL) {
        if (foreign_name(p, key) != 0)
            return p->err->code;
        return FAIL(p, "unknown key '%.60s'", key);
    }
    int a = fia_attr_from_name(in);
    if (a >= 0) {
        if (dup_check(p, &p->line_attr[a], key) != 0)
            return p->err->code;
        return parse_attr(p, (fia_attr)a, key, v);
    }
    int s = fia_slot_from_name(in);
    if (s >= 0) {
        if (dup_check(p, &p->line_tensor[s], key) != 0)
            return p->err->code;
        return parse_tensor_line(p, (fia_slot)s, key, v);
    }
    int r = fia_array_from_name(in);
    if (r >= 0) {
        if (dup_check(p, &p->line_array[r], key) != 0)
            return p->err->code;
        fia_int_array_spec *arr = &p->c->arrays[r];
        if (strcmp(v, "null") == 0) {
            arr->presence = FIA_NULL;
            return FIA_OK;
        }
        if (parse_int_list(p, key, v, &arr->values, &arr->count, 0, -1) != 0)
            return p->err->code;
        arr->presence = FIA_PRESENT;
        return FIA_OK;
    }
    return FAIL(p, "unknown key '%.60s'", key);
}

/* One line: comment stripped, split at the first '=', then by kind of key
 * (a tensor's data line, one of the case's own keys, an interface's
 * parameter). */
static fia_status parse_line(parser *p, char *line)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    line = fia__lex_trim(line);
    if (*line == '\0')
        return FIA_OK;
    char *eq = strchr(line, '=');
    if (!eq)
        return FAIL(p, "missing '=' in '%.60s' (expected key = value)", line);
    *eq = '\0';
    char *key = fia__lex_trim(line);
    char *v = fia__lex_trim(eq + 1);
    if (*key == '\0')
        return FAIL(p, "missing key before '='");

    char *dot = strrchr(key, '.');
    if (dot)
        return parse_data_line(p, key, dot, v);
    if (*v == '\0')
        return FAIL(p, "%.60s: missing value", key);
    fia_status rc = FIA_OK;
    if (parse_case_key(p, key, v, &rc))
        return rc;
    return parse_param_key(p, key, v);
}

/* Whole-file checks, once every line is read (lines come in any order). */
static fia_status check_case(parser *p)
{
    static const fia_slot required[] = {FIA_SLOT_QUERY, FIA_SLOT_KEY,
                                        FIA_SLOT_VALUE};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        if (!p->line_tensor[required[i]]) {
            p->line = 0;
            return FAIL(p, "missing required key '%s'",
                        slot_word(p, required[i]));
        }
    }
    for (int s = 0; s < FIA_SLOT_COUNT; s++) {
        if (!p->line_gen[s])
            continue;
        const fia_tensor_spec *sp = &p->c->tensors[s];
        p->line = p->line_gen[s];
        const char *what = sp->gen.kind == FIA_GEN_VALUES ? "values" : "gen";
        const char *w = slot_word(p, s);
        if (sp->presence != FIA_PRESENT)
            return FAIL(p, "%s.%s: tensor '%s' is %s", w, what, w,
                        sp->presence == FIA_NULL ? "null" : "not given");
        if (sp->gen.kind == FIA_GEN_VALUES) {
            int64_t n = fia__spec_numel(sp);
            if (n < 0)
                return FAIL(p, "%s.values: element count of '%s' overflows",
                            w, w);
            if (n != sp->gen.n_values)
                return FAIL(p, "%s.values: %lld values given, the shape has "
                               "%lld elements", w,
                            (long long)sp->gen.n_values, (long long)n);
        }
    }
    return FIA_OK;
}

/* `api = NAME` decides how every other line reads, and lines come in any
 * order: find it first (0 or -1).  Sets the interface and its attribute
 * defaults. */
static fia_status scan_api(parser *p, const char *text)
{
    int line = 0, found = 0;
    for (const char *cur = text; *cur;) {
        const char *nl = strchr(cur, '\n');
        size_t len = nl ? (size_t)(nl - cur) : strlen(cur);
        line += line < 0x7fffffff;
        const char *k = cur;
        while (k < cur + len && fia__lex_space(*k))
            k++;
        if ((size_t)(cur + len - k) >= 3 && strncmp(k, "api", 3) == 0 &&
            (k + 3 == cur + len || fia__lex_space(k[3]) || k[3] == '=' ||
             k[3] == '#')) {
            const char *e = k + 3;
            while (e < cur + len && fia__lex_space(*e))
                e++;
            if (e < cur + len && *e == '=') {
                p->line = line;
                if (found)
                    return FAIL(p, "duplicate key 'api' (first on line %d)",
                                found);
                found = line;
                char v[64];
                size_t n = (size_t)(cur + len - (e + 1));
                const char *hash = memchr(e + 1, '#', n);
                if (hash)
                    n = (size_t)(hash - (e + 1));
                if (n >= sizeof v)   /* no interface has so long a name */
                    return FAIL(p, "api: unknown '%.40s...'", e + 1);
                memcpy(v, e + 1, n);
                v[n] = '\0';
                char *name = fia__lex_trim(v);
                int a = fia_api_from_name(name);
                if (*name == '\0')
                    return FAIL(p, "api: missing value");
                if (a < 0) {
                    char valid[256] = "";
                    for (int i = 0; i < FIA_API_COUNT; i++)
                        snprintf(valid + strlen(valid),
                                 sizeof valid - strlen(valid), "%s%s",
                                 i ? " " : "", fia_api_name((fia_api)i));
                    return FAIL(p, "api: unknown '%.60s' (valid: %s)", name,
                                valid);
                }
                p->c->api = (fia_api)a;
                fia_api_attrs_default(p->c->api, &p->c->attrs);
            }
        }
        if (!nl)
            break;
        cur = nl + 1;
    }
    return FIA_OK;
}

/* The status of a failed parse: the code recorded with the message (a
 * path that set none is malformed input). */
static fia_status failed(fia_error *err)
{
    if (err->code == FIA_OK)
        err->code = FIA_ERR_BAD_INPUT;
    return err->code;
}

fia_status fia_case_parse_string(const char *text, const char *name, fia_case *c,
                          fia_error *err)
{
    fia_error local;
    if (!err)
        err = &local;
    if (!name)
        name = "<string>";
    fia_error_clear(err);
    if (!c) {
        fia_fail_at(err, FIA_ERR_BAD_INPUT, name, 0, "no case to parse into");
        return failed(err);
    }
    fia_case_init(c);
    snprintf(c->name, sizeof c->name, "%s", name);
    if (!text) {
        fia_fail_at(err, FIA_ERR_BAD_INPUT, name, 0, "no text");
        return failed(err);
    }
    char *buf = strdup(text);
    if (!buf) {
        fia_fail_at(err, FIA_ERR_NOMEM, name, 0, "out of memory");
        return failed(err);
    }
    parser p;
    memset(&p, 0, sizeof p);
    p.file = name;
    p.c = c;
    p.err = err;
    int rc = scan_api(&p, text);
    char *cur = rc == 0 ? buf : buf + strlen(buf);
    int line = 0;
    while (*cur) {
        char *nl = strchr(cur, '\n');
        if (nl)
            *nl = '\0';
        p.line = line < 0x7fffffff ? ++line : line;
        rc = parse_line(&p, cur);
        if (rc != 0 || !nl)
            break;
        cur = nl + 1;
    }
    free(buf);
    if (rc == 0)
        rc = check_case(&p);
    if (rc != 0) {
        fia_case_free(c);
        snprintf(c->name, sizeof c->name, "%s", name);
        return failed(err);
    }
    return FIA_OK;
}

fia_status fia_case_read_file(const char *path, char **text, fia_error *err)
{
    fia_error local;
    if (!err)
        err = &local;
    const char *name = path ? path : "<null>";
    fia_error_clear(err);
    *text = NULL;
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f) {
        fia_fail_at(err, FIA_ERR_IO, name, 0, "cannot open: %s",
                     path ? strerror(errno) : "no path");
        return failed(err);
    }
    /* the size first: a huge file is refused without reading it (a file
     * that grows while read is stopped at the limit below) */
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && (long long)sb.st_size > FIA_CASE_FILE_MAX) {
        fia_fail_at(err, FIA_ERR_BAD_INPUT, name, 0, "%lld bytes, over the "
                    "64 MiB limit of a case file", (long long)sb.st_size);
        fclose(f);
        return failed(err);
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len + 1 >= cap) {
            char *nb = cap < ((size_t)1 << 40) ? realloc(buf, cap * 2) : NULL;
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0 || (long long)len > FIA_CASE_FILE_MAX)
            break;
    }
    const char *nul = buf ? memchr(buf, '\0', len) : NULL;
    if (buf && (long long)len > FIA_CASE_FILE_MAX) {
        fia_fail_at(err, FIA_ERR_BAD_INPUT, name, 0, "over the 64 MiB limit "
                    "of a case file");
    } else if (!buf) {
        fia_fail_at(err, FIA_ERR_NOMEM, name, 0, "out of memory reading the file");
    } else if (ferror(f)) {
        fia_fail_at(err, FIA_ERR_IO, name, 0, "read error: %s", strerror(errno));
    } else if (nul != NULL) {
        /* the parser reads text up to its first NUL: what follows would be
         * ignored silently, so a NUL is refused where it is */
        const char *line_start = buf;
        long long line = 1;
        for (const char *q = buf; q < nul; q++)
            if (*q == '\n')
                line++, line_start = q + 1;
        fia_fail_at(err, FIA_ERR_BAD_INPUT, name,
                    line < 0x7fffffff ? (int)line : 0x7fffffff,
                    "a NUL byte (column %lld): a case file is text",
                    (long long)(nul - line_start) + 1);
    } else {
        buf[len] = '\0';
        *text = buf;
        buf = NULL;
    }
    free(buf);
    fclose(f);
    return *text ? FIA_OK : failed(err);
}

fia_status fia_case_parse_file(const char *path, fia_case *c, fia_error *err)
{
    fia_error local;
    if (!err)
        err = &local;
    if (c)
        fia_case_init(c);
    char *text = NULL;
    fia_status rc = fia_case_read_file(path, &text, err);
    if (rc == FIA_OK)
        rc = fia_case_parse_string(text, path, c, err);
    free(text);
    return rc;
}
