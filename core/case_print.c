/* Canonical printing of a case, and case equality. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "case_internal.h"

typedef struct sbuf {
    char *p;
    size_t len, cap;
    int failed;
    /* for the digest: explicit values folded into vh (FNV-1a over their
     * bits) instead of printed; printing 17 digits per value is most of
     * the cost of a case with 10^5 of them */
    int fold_values;
    uint64_t vh;
} sbuf;

static void sb_reserve(sbuf *b, size_t extra)
{
    if (b->failed)
        return;
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + extra + 1) {
        if (cap > ((size_t)-1) / 2) {
            b->failed = 1;
            return;
        }
        cap *= 2;
    }
    char *np = realloc(b->p, cap);
    if (!np) {
        b->failed = 1;
        return;
    }
    b->p = np;
    b->cap = cap;
}

static void sb_puts(sbuf *b, const char *s)
{
    size_t n = strlen(s);
    sb_reserve(b, n);
    if (b->failed)
        return;
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
}

static void sb_printf(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if ((size_t)n < sizeof tmp) {
        sb_puts(b, tmp);
        return;
    }
    sb_reserve(b, (size_t)n);
    if (b->failed)
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* %.17g (fia__double_text: the same text, faster), with nan / inf / -inf
 * spelled so that strtod reads them back. */
static void sb_double(sbuf *b, double x)
{
    if (isnan(x)) {
        sb_puts(b, "nan");
    } else if (isinf(x)) {
        sb_puts(b, x > 0 ? "inf" : "-inf");
    } else {
        char tmp[64];
        fia__double_text(tmp, sizeof tmp, x);
        sb_puts(b, tmp);
    }
}

static void sb_tensor(sbuf *b, const fia_tensor *t)
{
    const char *dn = fia_dtype_name(t->dtype);
    sb_puts(b, dn ? dn : "invalid");
    sb_puts(b, " [");
    int32_t nd = t->ndim < 0 ? 0 : t->ndim > FIA_MAX_RANK ? FIA_MAX_RANK
                                                          : t->ndim;
    for (int32_t i = 0; i < nd; i++)
        sb_printf(b, i ? ",%lld" : "%lld", (long long)t->shape[i]);
    sb_puts(b, "]");
}

static void sb_gen(sbuf *b, const char *slot, const fia_gen *g)
{
    if (g->kind == FIA_GEN_DEFAULT)
        return;
    if (g->kind == FIA_GEN_VALUES && b->fold_values) {
        sb_printf(b, "%s.values = #%lld\n", slot, (long long)g->n_values);
        for (int64_t i = 0; i < g->n_values && g->values; i++) {
            double v = isnan(g->values[i]) ? NAN : g->values[i];
            uint64_t bits;
            memcpy(&bits, &v, sizeof bits);
            for (int k = 0; k < 64; k += 8) {
                b->vh ^= (bits >> k) & 0xff;
                b->vh *= 0x100000001b3u;
            }
        }
        return;
    }
    if (g->kind == FIA_GEN_VALUES) {
        sb_printf(b, "%s.values =", slot);
        for (int64_t i = 0; i < g->n_values && g->values; i++) {
            sb_puts(b, i ? "," : " ");
            sb_double(b, g->values[i]);
        }
        sb_puts(b, "\n");
        return;
    }
    const char *gn = fia__gen_name(g->kind);
    if (!gn)
        return;
    sb_printf(b, "%s.gen = %s", slot, gn);
    int ar = fia__gen_arity(g->kind);
    if (ar > 0) {
        sb_puts(b, "(");
        sb_double(b, g->a);
        if (ar > 1) {
            sb_puts(b, ",");
            sb_double(b, g->b);
        }
        sb_puts(b, ")");
    }
    sb_puts(b, "\n");
}

/* The name interface api gives the internal parameter `internal`; a case
 * that is not expressible there (fia_case_expressible) gets the internal
 * name, which reading it back refuses with a message naming both. */
static const char *vname(fia_api api, const char *internal)
{
    const char *n = fia_api_param(api, internal);
    return n ? n : internal;
}

/* The case in the vocabulary of interface api (no `api` line for
 * aclnn_v2, so cases written before interfaces had names print as they
 * did). */
static void build(const fia_case *c, sbuf *b, fia_api api)
{
    /* The name goes into a comment: keep it on one printable line. */
    sb_puts(b, "# fiacheck case");
    if (c->name[0]) {
        char nm[sizeof c->name];
        size_t i;
        for (i = 0; i + 1 < sizeof nm && c->name[i]; i++) {
            unsigned char ch = (unsigned char)c->name[i];
            nm[i] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
        }
        nm[i] = '\0';
        sb_printf(b, ": %s", nm);
    }
    sb_puts(b, "\n");
    if (api != FIA_API_ACLNN_V2)
        sb_printf(b, "api = %s\n", fia_api_name(api));
    if (c->product != FIA_PRODUCT_ATLAS_A2)
        sb_printf(b, "product = %s\n", fia_product_name(c->product));
    sb_printf(b, "seed = %llu\n", (unsigned long long)c->seed);
    for (int i = 0, n = 0; i < FIA_INTENT_COUNT; i++)
        if (c->intents & (1u << i))
            sb_printf(b, "%s%s", n++ ? ", " : "intent = ",
                      fia_intent_name((fia_intent)i));
    if (c->intents)
        sb_puts(b, "\n");
    if (c->live_rows)
        sb_puts(b, "data = live_rows\n");
    if (c->threads > 0)
        sb_printf(b, "threads = %d\n", (int)c->threads);
    if (c->task_order != 0)
        sb_printf(b, "task_order = %llu\n",
                  (unsigned long long)c->task_order);
    if (c->kernel_level != FIA_KL_DEFAULT)
        sb_printf(b, "kernel_level = %s\n",
                  fia_kernel_level_name(c->kernel_level));

    for (int a = 0; a < FIA_ATTR_COUNT; a++) {
        const char *in = fia_attr_name((fia_attr)a);
        int differs = fia__attr_differs_from_default(&c->attrs, (fia_attr)a,
                                                     api);
        /* an attribute the interface lacks has no line unless it is off
         * its implicit value (then the case is not expressible there) */
        if (!differs && (!c->attr_given[a] || !fia_api_param(api, in)))
            continue;
        const char *an = vname(api, in);
        switch (fia__attr_kind((fia_attr)a)) {
        case FIA_AK_INT:
            sb_printf(b, "%s = %lld\n", an,
                      (long long)*fia__attr_cint(&c->attrs, (fia_attr)a));
            break;
        case FIA_AK_DOUBLE:
            sb_printf(b, "%s = ", an);
            sb_double(b, c->attrs.scale);
            sb_puts(b, "\n");
            break;
        case FIA_AK_BOOL:
            sb_printf(b, "%s = %s\n", an,
                      c->attrs.softmax_lse_flag ? "true" : "false");
            break;
        case FIA_AK_LAYOUT:
            sb_printf(b, "%s = %.*s\n", an, FIA_LAYOUT_MAX - 1,
                      c->attrs.input_layout);
            break;
        }
    }

    for (int r = 0; r < FIA_RESERVED_COUNT; r++)
        if (c->reserved_given & (1u << r))
            sb_printf(b, "%s = %lld\n", fia_reserved_name(r),
                      (long long)c->reserved[r]);

    for (int s = 0; s < FIA_SLOT_COUNT; s++) {
        const fia_tensor_spec *sp = &c->tensors[s];
        const char *sn = vname(api, fia_slot_name((fia_slot)s));
        if (sp->presence == FIA_NULL) {
            sb_printf(b, "%s = null\n", sn);
        } else if (sp->presence == FIA_PRESENT) {
            sb_printf(b, "%s = ", sn);
            for (int32_t i = 0; i < sp->count && sp->t; i++) {
                if (i)
                    sb_puts(b, "; ");
                sb_tensor(b, &sp->t[i]);
            }
            sb_puts(b, "\n");
            sb_gen(b, sn, &sp->gen);
        }
    }

    for (int a = 0; a < FIA_ARR_COUNT; a++) {
        const fia_int_array_spec *ar = &c->arrays[a];
        const char *an = vname(api, fia_array_name((fia_array)a));
        if (ar->presence == FIA_NULL) {
            sb_printf(b, "%s = null\n", an);
        } else if (ar->presence == FIA_PRESENT) {
            sb_printf(b, "%s = [", an);
            for (int64_t i = 0; i < ar->count && ar->values; i++)
                sb_printf(b, i ? ",%lld" : "%lld", (long long)ar->values[i]);
            sb_puts(b, "]\n");
        }
    }
}

char *fia_case_to_string(const fia_case *c)
{
    if (!c)
        return NULL;
    sbuf b = {0};
    build(c, &b, c->api);
    if (b.failed) {
        free(b.p);
        return NULL;
    }
    if (!b.p)   /* cannot happen (there is always a header), but be safe */
        return calloc(1, 1);
    return b.p;
}

char *fia__case_digest_text(const fia_case *c, uint64_t *values_hash)
{
    sbuf b = {0};
    b.fold_values = 1;
    b.vh = 0xcbf29ce484222325u;
    /* the call's identity, whichever interface wrote it: 002's names */
    build(c, &b, FIA_API_ACLNN_V2);
    if (b.failed || !b.p) {
        free(b.p);
        return NULL;
    }
    *values_hash = b.vh;
    return b.p;
}

fia_status fia_case_print(const fia_case *c, FILE *f)
{
    if (!c || !f)
        return FIA_ERR_BAD_INPUT;
    char *s = fia_case_to_string(c);
    if (!s)
        return FIA_ERR_NOMEM;
    size_t n = strlen(s);
    fia_status rc = fwrite(s, 1, n, f) == n ? FIA_OK : FIA_ERR_IO;
    free(s);
    return rc;
}

/* ---- equality ---------------------------------------------------------- */

static int tensor_desc_equal(const fia_tensor *x, const fia_tensor *y)
{
    if (x->dtype != y->dtype || x->ndim != y->ndim)
        return 0;
    if (x->ndim < 0 || x->ndim > FIA_MAX_RANK)
        return 0;
    for (int32_t i = 0; i < x->ndim; i++)
        if (x->shape[i] != y->shape[i])
            return 0;
    return 1;
}

static int gen_equal(const fia_gen *x, const fia_gen *y)
{
    if (x->kind != y->kind)
        return 0;
    int ar = fia__gen_arity(x->kind);
    if (ar >= 1 && !fia__double_same(x->a, y->a))
        return 0;
    if (ar >= 2 && !fia__double_same(x->b, y->b))
        return 0;
    if (x->kind == FIA_GEN_VALUES) {
        if (x->n_values != y->n_values)
            return 0;
        for (int64_t i = 0; i < x->n_values; i++)
            if (!fia__double_same(x->values[i], y->values[i]))
                return 0;
    }
    return 1;
}

static int spec_equal(const fia_tensor_spec *x, const fia_tensor_spec *y)
{
    if (x->presence != y->presence)
        return 0;
    if (x->presence != FIA_PRESENT)
        return 1;
    if (x->count != y->count)
        return 0;
    for (int32_t i = 0; i < x->count; i++)
        if (!tensor_desc_equal(&x->t[i], &y->t[i]))
            return 0;
    return gen_equal(&x->gen, &y->gen);
}

static int array_equal(const fia_int_array_spec *x,
                       const fia_int_array_spec *y)
{
    if (x->presence != y->presence)
        return 0;
    if (x->presence != FIA_PRESENT)
        return 1;
    if (x->count != y->count)
        return 0;
    for (int64_t i = 0; i < x->count; i++)
        if (x->values[i] != y->values[i])
            return 0;
    return 1;
}

/* Compares what the call and its data are: seed, attribute values, tensors
 * with generators, arrays.  Ignores name and attr_given (whether a line was
 * written does not change the call; a default written out is the default). */
int fia_case_equal(const fia_case *a, const fia_case *b)
{
    if (!a || !b)
        return a == b;
    if (a->seed != b->seed || a->threads != b->threads ||
        a->task_order != b->task_order ||
        a->kernel_level != b->kernel_level || a->live_rows != b->live_rows ||
        a->product != b->product || a->reserved_given != b->reserved_given)
        return 0;
    for (int r = 0; r < FIA_RESERVED_COUNT; r++)
        if ((a->reserved_given & (1u << r)) && a->reserved[r] != b->reserved[r])
            return 0;
    for (int i = 0; i < FIA_ATTR_COUNT; i++)
        if (!fia__attr_equal(&a->attrs, &b->attrs, (fia_attr)i))
            return 0;
    for (int s = 0; s < FIA_SLOT_COUNT; s++)
        if (!spec_equal(&a->tensors[s], &b->tensors[s]))
            return 0;
    for (int r = 0; r < FIA_ARR_COUNT; r++)
        if (!array_equal(&a->arrays[r], &b->arrays[r]))
            return 0;
    return 1;
}
