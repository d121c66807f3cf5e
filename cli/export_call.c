/* call.json and the input tensors of one exported case (docs/export.md
 * "call.json"): every parameter the interface's document lists, in its
 * order and by its name (core/case_api.c's table), with the case's value
 * or the interface's default; the tensors as .npy files beside it. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include "cli.h"
#include "export.h"

/* The attribute / array an internal name is, -1 when it is none (a value,
 * not an error: the caller tries the next kind of parameter). */
static int attr_of(const char *internal)
{
    for (int k = 0; k < FIA_ATTR_COUNT; k++)
        if (strcmp(fia_attr_name((fia_attr)k), internal) == 0)
            return k;
    return -1;
}

static int array_of(const char *internal)
{
    for (int r = 0; r < FIA_ARR_COUNT; r++)
        if (strcmp(fia_array_name((fia_array)r), internal) == 0)
            return r;
    return -1;
}

static void write_shape(FILE *f, const fia_tensor *t)
{
    fputc('[', f);
    for (int i = 0; i < t->ndim; i++)
        fprintf(f, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
    fputc(']', f);
}

/* JSON has no NaN or infinity; Python's json module reads these words, and
 * `scale` is never validated (RELEASED-BEHAVIOUR), so they can occur. */
static void write_double(FILE *f, double v)
{
    if (isnan(v))
        fputs("NaN", f);
    else if (isinf(v))
        fputs(v > 0 ? "Infinity" : "-Infinity", f);
    else {
        /* a float stays a float in Python: 1.0, not 1 */
        char buf[40];
        snprintf(buf, sizeof buf, "%.17g", v);
        fprintf(f, "%s%s", buf, strpbrk(buf, ".e") ? "" : ".0");
    }
}

/* One tensor: its .npy (FILE.npy) and its descriptor. */
static fia_status write_tensor(FILE *f, const char *dir, const char *file,
                               const fia_tensor *t, fia_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.npy", dir, file);
    fia_status st = export_npy_tensor(path, t, err);
    if (st != FIA_OK)
        return st;
    fprintf(f, "{\"tensor\": \"%s.npy\", \"dtype\": \"%s\", \"shape\": ",
            file, export_dtype_name(t->dtype));
    write_shape(f, t);
    fputc('}', f);
    return FIA_OK;
}

static fia_status write_slot(FILE *f, const char *dir, const char *name,
                             fia_slot s, const fia_case_data *d,
                             fia_error *err)
{
    if (d->t[s] == NULL) {
        fputs("null", f);
        return FIA_OK;
    }
    if (!fia_slot_is_list(s) || d->n[s] == 1)
        return write_tensor(f, dir, name, d->t[s], err);
    fputs("{\"tensor_list\": [", f);
    for (int i = 0; i < d->n[s]; i++) {
        char file[128];
        snprintf(file, sizeof file, "%s.%d", name, i);
        if (i)
            fputs(", ", f);
        fia_status st = write_tensor(f, dir, file, &d->t[s][i], err);
        if (st != FIA_OK)
            return st;
    }
    fputs("]}", f);
    return FIA_OK;
}

/* A host integer array: an int list, except through TorchAir, whose
 * lengths are device tensors of int64 (004 §参数说明). */
static fia_status write_array(FILE *f, const char *dir, const char *name,
                              const fia_case *c, fia_array r,
                              const fia_case_data *d, fia_error *err)
{
    if (!d->arr_present[r]) {
        fputs("null", f);
        return FIA_OK;
    }
    const fia_int_array *a = &d->arr[r];
    if (c->api == FIA_API_TORCHAIR_V2) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.npy", dir, name);
        fia_status st = export_npy_int64(path, a->values, a->count, err);
        if (st != FIA_OK)
            return st;
        fprintf(f, "{\"tensor\": \"%s.npy\", \"dtype\": \"int64\", "
                "\"shape\": [%lld]}", name, (long long)a->count);
        return FIA_OK;
    }
    fputc('[', f);
    for (int64_t i = 0; i < a->count; i++)
        fprintf(f, "%s%lld", i ? ", " : "", (long long)a->values[i]);
    fputc(']', f);
    return FIA_OK;
}

static void write_attr(FILE *f, const fia_attrs *at, fia_attr k)
{
    switch (k) {
    case FIA_ATTR_SCALE:
        write_double(f, at->scale);
        break;
    case FIA_ATTR_INPUT_LAYOUT:
        cli_json_string(f, at->input_layout);
        break;
    case FIA_ATTR_SOFTMAX_LSE_FLAG:
        fputs(at->softmax_lse_flag ? "true" : "false", f);
        break;
    case FIA_ATTR_OUT_DTYPE:
        if (at->out_dtype < 0)
            fputs("null", f);
        else
            fprintf(f, "%lld", (long long)at->out_dtype);
        break;
    default: {
        const int64_t v[FIA_ATTR_COUNT] = {
            [FIA_ATTR_NUM_HEADS] = at->num_heads,
            [FIA_ATTR_PRE_TOKENS] = at->pre_tokens,
            [FIA_ATTR_NEXT_TOKENS] = at->next_tokens,
            [FIA_ATTR_NUM_KEY_VALUE_HEADS] = at->num_key_value_heads,
            [FIA_ATTR_SPARSE_MODE] = at->sparse_mode,
            [FIA_ATTR_INNER_PRECISE] = at->inner_precise,
            [FIA_ATTR_BLOCK_SIZE] = at->block_size,
            [FIA_ATTR_ANTIQUANT_MODE] = at->antiquant_mode,
            [FIA_ATTR_KEY_ANTIQUANT_MODE] = at->key_antiquant_mode,
            [FIA_ATTR_VALUE_ANTIQUANT_MODE] = at->value_antiquant_mode,
            [FIA_ATTR_QUERY_QUANT_MODE] = at->query_quant_mode,
        };
        fprintf(f, "%lld", (long long)v[k]);
    }
    }
}

/* One parameter's value; *skip set for the outputs, which are not
 * parameters of a Python call (they are "outputs" below). */
static fia_status write_param(FILE *f, const char *dir, const fia_case *c,
                              const fia_case_data *d, const char *name,
                              const char *internal, fia_error *err)
{
    int k;
    if (internal == NULL) {
        /* reserved / not modeled: only a reserved *_dtype may hold a
         * value, which the operator does not read */
        int r = fia_reserved_from_name(name);
        if (r >= 0 && (c->reserved_given >> r & 1u))
            fprintf(f, "%lld", (long long)c->reserved[r]);
        else
            fputs("null", f);
        return FIA_OK;
    }
    if ((k = fia_slot_from_name(internal)) >= 0)
        return write_slot(f, dir, name, (fia_slot)k, d, err);
    if ((k = array_of(internal)) >= 0)
        return write_array(f, dir, name, c, (fia_array)k, d, err);
    if ((k = attr_of(internal)) >= 0) {
        write_attr(f, &c->attrs, (fia_attr)k);
        return FIA_OK;
    }
    return fia_fail(err, FIA_ERR_BAD_INPUT, "parameter %s: no internal "
                    "counterpart %s", name, internal);
}

static void write_outputs(FILE *f, const fia_case *c)
{
    static const fia_slot outs[] = {FIA_SLOT_ATTENTION_OUT,
                                    FIA_SLOT_SOFTMAX_LSE};
    int first = 1;
    fputs("  \"outputs\": {", f);
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        fia_tensor t;
        const char *name = fia_slot_name(outs[i]);
        /* 001 returns attention_out alone */
        if (fia_case_output(c, outs[i], &t) != FIA_PRESENT ||
            (c->api == FIA_API_INCRE_FLASH_ATTENTION &&
             outs[i] == FIA_SLOT_SOFTMAX_LSE))
            continue;
        fprintf(f, "%s\"%s\": {\"dtype\": \"%s\", \"shape\": ",
                first ? "" : ",\n              ", name,
                export_dtype_name(t.dtype));
        write_shape(f, &t);
        fputc('}', f);
        first = 0;
    }
    fputs("}\n", f);
}

static fia_status write_body(FILE *f, const char *dir, const fia_case *c,
                             const fia_case_data *d, const char *digest,
                             fia_error *err)
{
    /* the device the case is judged for: a property of the machine the
     * script runs on, so no script passes it; it is there for the user */
    fprintf(f, "{\n  \"format\": 1,\n  \"api\": \"%s\",\n"
            "  \"document\": \"%s\",\n  \"product\": \"%s\",\n"
            "  \"function\": ",
            fia_api_name(c->api), fia_api_doc(c->api),
            fia_product_name(c->product));
    cli_json_string(f, fia_api_function(c->api));
    fputs(",\n  \"case\": ", f);
    cli_json_string(f, c->name);
    fprintf(f, ", \"digest\": \"%s\",\n  \"params\": {", digest);
    const char *internal;
    const char *name;
    int n = 0;
    for (int i = 0; (name = fia_api_param_at(c->api, i, &internal)); i++) {
        int s = internal ? fia_slot_from_name(internal) : -1;
        if (s >= 0 && fia_slot_is_output((fia_slot)s))
            continue;
        fprintf(f, "%s\n    \"%s\": ", n++ ? "," : "", name);
        fia_status st = write_param(f, dir, c, d, name, internal, err);
        if (st != FIA_OK)
            return st;
    }
    fputs("\n  },\n", f);
    write_outputs(f, c);
    fputs("}\n", f);
    return FIA_OK;
}

fia_status export_call(const char *dir, const fia_case *c,
                       const fia_case_data *d, const char *digest,
                       fia_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/call.json", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return fia_fail(err, FIA_ERR_IO, "%s: %s", path, strerror(errno));
    fia_status st = write_body(f, dir, c, d, digest, err);
    if (fclose(f) != 0 && st == FIA_OK)
        st = fia_fail(err, FIA_ERR_IO, "%s: cannot write: %s", path,
                      strerror(errno));
    return st;
}
