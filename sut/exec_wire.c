/* The protocol's messages (docs/sut/exec.md): a call written as
 * attribute, array and tensor lines with the tensors' bytes after their
 * lines, and the answer read back and checked against what the call
 * expects, so that a worker that answers with another size or another
 * output is caught here and never writes past a buffer. */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exec.h"

/* The request's text, flushed to the pipe before each tensor's bytes. */
typedef struct sender {
    exec_conn *c;
    char text[1 << 14];
    size_t len;
    exec_io err;
} sender;

static void flush(sender *s)
{
    if (s->err == EXEC_IO_OK && s->len > 0)
        s->err = exec_write(s->c, s->text, s->len);
    s->len = 0;
}

static void say(sender *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(sender *s, const char *fmt, ...)
{
    va_list ap;
    for (int tries = 0; tries < 2; tries++) {
        va_start(ap, fmt);
        int n = vsnprintf(s->text + s->len, sizeof s->text - s->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < sizeof s->text - s->len) {
            s->len += (size_t)n;
            return;
        }
        s->text[s->len] = '\0';
        flush(s); /* and once more into the empty buffer */
    }
}

typedef struct named_tensor {
    const char *name;
    const fia_tensor *t;
} named_tensor;

/* The inputs in the order the page lists them (key and value apart: they
 * are lists). */
static int inputs(const fia_sut_args *a, named_tensor *out)
{
    const named_tensor all[] = {
        {"query", a->query},
        {"pse_shift", a->pse_shift},
        {"atten_mask", a->atten_mask},
        {"dequant_scale1", a->dequant_scale1},
        {"quant_scale1", a->quant_scale1},
        {"dequant_scale2", a->dequant_scale2},
        {"quant_scale2", a->quant_scale2},
        {"quant_offset2", a->quant_offset2},
        {"antiquant_scale", a->antiquant_scale},
        {"antiquant_offset", a->antiquant_offset},
        {"block_table", a->block_table},
        {"query_padding_size", a->query_padding_size},
        {"kv_padding_size", a->kv_padding_size},
        {"key_antiquant_scale", a->key_antiquant_scale},
        {"key_antiquant_offset", a->key_antiquant_offset},
        {"value_antiquant_scale", a->value_antiquant_scale},
        {"value_antiquant_offset", a->value_antiquant_offset},
        {"key_shared_prefix", a->key_shared_prefix},
        {"value_shared_prefix", a->value_shared_prefix},
        {"query_rope", a->query_rope},
        {"key_rope", a->key_rope},
        {"dequant_scale_query", a->dequant_scale_query},
        {"learnable_sink", a->learnable_sink},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i].t != NULL)
            out[n++] = all[i];
    return n;
}

static int outputs(const fia_sut_args *a, named_tensor *out)
{
    int n = 0;
    if (a->attention_out != NULL)
        out[n++] = (named_tensor){"attention_out", a->attention_out};
    if (a->softmax_lse != NULL)
        out[n++] = (named_tensor){"softmax_lse", a->softmax_lse};
    return n;
}

/* Bytes of t, or -1 when its count cannot be said. */
static double tensor_bytes(const fia_tensor *t)
{
    int64_t n = fia_tensor_numel(t);
    if (n < 0 || t->ndim < 0 || t->ndim > FIA_MAX_RANK)
        return -1;
    return (double)fia_dtype_storage(t->dtype, n);
}

static double list_bytes(const fia_tensor_list *l)
{
    double sum = 0;
    for (int i = 0; l != NULL && i < l->count; i++) {
        double b = l->tensors[i] ? tensor_bytes(l->tensors[i]) : 0;
        if (b < 0)
            return -1;
        sum += b;
    }
    return sum;
}

double exec_call_bytes(const fia_sut_args *a)
{
    named_tensor t[32];
    int n = inputs(a, t);
    n += outputs(a, t + n);
    double sum = 0, b;
    for (int i = 0; i < n; i++) {
        if ((b = tensor_bytes(t[i].t)) < 0)
            return -1;
        sum += b;
    }
    if ((b = list_bytes(a->key)) < 0)
        return -1;
    sum += b;
    if ((b = list_bytes(a->value)) < 0)
        return -1;
    return sum + b;
}

/* A word the wire carries: 1..128 characters, no space or control. */
static int word_ok(const char *s)
{
    if (s == NULL || *s == '\0' || strlen(s) > 128)
        return 0;
    for (; *s; s++)
        if ((unsigned char)*s <= ' ' || *s == 0x7f)
            return 0;
    return 1;
}

static int tensor_unsayable(const char *name, const fia_tensor *t, char *why,
                            size_t n)
{
    if (t == NULL || t->dtype <= FIA_DT_INVALID || t->dtype >= FIA_DT_COUNT ||
        fia_dtype_name(t->dtype) == NULL) {
        snprintf(why, n, "%s is %s", name,
                 t == NULL ? "a NULL entry of a list" : "of no dtype");
        return 1;
    }
    if (tensor_bytes(t) < 0) {
        snprintf(why, n, "%s has a shape whose size cannot be said", name);
        return 1;
    }
    return 0;
}

int exec_call_unsayable(const fia_sut_args *a, char *why, size_t n)
{
    if (!word_ok(a->input_layout)) {
        snprintf(why, n, "its input_layout is not one word");
        return 1;
    }
    if ((a->api != NULL && !word_ok(a->api)) ||
        (a->product != NULL && !word_ok(a->product))) {
        snprintf(why, n, "its api or product is not one word");
        return 1;
    }
    named_tensor t[32];
    int k = inputs(a, t);
    k += outputs(a, t + k);
    for (int i = 0; i < k; i++)
        if (tensor_unsayable(t[i].name, t[i].t, why, n))
            return 1;
    const fia_tensor_list *lists[2] = {a->key, a->value};
    for (int l = 0; l < 2; l++)
        for (int i = 0; lists[l] != NULL && i < lists[l]->count; i++)
            if (tensor_unsayable(l ? "value" : "key", lists[l]->tensors[i],
                                 why, n))
                return 1;
    return 0;
}

static void say_shape(sender *s, const fia_tensor *t)
{
    say(s, " %s %d", fia_dtype_name(t->dtype), (int)t->ndim);
    for (int i = 0; i < t->ndim; i++)
        say(s, " %" PRId64, t->shape[i]);
}

static void send_tensor(sender *s, const char *name, const fia_tensor *t,
                        int compute)
{
    size_t bytes = compute ? (size_t)tensor_bytes(t) : 0;
    say(s, "tensor %s", name);
    say_shape(s, t);
    if (bytes > 0 && t->data == NULL)
        bytes = 0; /* no data made: said as none (the worker then finds
                      the count wrong, which is the truth) */
    say(s, " %zu\n", bytes);
    if (bytes > 0) {
        flush(s);
        if (s->err == EXEC_IO_OK)
            s->err = exec_write(s->c, t->data, bytes);
    }
}

static void send_list(sender *s, const char *name, const fia_tensor_list *l,
                      int compute)
{
    char entry[32];
    for (int i = 0; l != NULL && i < l->count; i++) {
        snprintf(entry, sizeof entry, "%s.%d", name, i);
        send_tensor(s, entry, l->tensors[i], compute);
    }
}

static void send_array(sender *s, const char *name, const fia_int_array *a)
{
    if (a == NULL)
        return;
    say(s, "array %s %" PRId64, name, a->count);
    for (int64_t i = 0; i < a->count; i++)
        say(s, " %" PRId64, a->values[i]);
    say(s, "\n");
}

static void send_attrs(sender *s, const fia_sut_args *a)
{
    say(s, "attr num_heads %" PRId64 "\n", a->num_heads);
    say(s, "attr scale %.17g\n", a->scale);
    say(s, "attr pre_tokens %" PRId64 "\n", a->pre_tokens);
    say(s, "attr next_tokens %" PRId64 "\n", a->next_tokens);
    say(s, "attr input_layout %s\n", a->input_layout);
    say(s, "attr num_key_value_heads %" PRId64 "\n", a->num_key_value_heads);
    say(s, "attr sparse_mode %" PRId64 "\n", a->sparse_mode);
    say(s, "attr inner_precise %" PRId64 "\n", a->inner_precise);
    say(s, "attr block_size %" PRId64 "\n", a->block_size);
    say(s, "attr antiquant_mode %" PRId64 "\n", a->antiquant_mode);
    say(s, "attr softmax_lse_flag %d\n", a->softmax_lse_flag ? 1 : 0);
    say(s, "attr key_antiquant_mode %" PRId64 "\n", a->key_antiquant_mode);
    say(s, "attr value_antiquant_mode %" PRId64 "\n",
        a->value_antiquant_mode);
    say(s, "attr query_quant_mode %" PRId64 "\n", a->query_quant_mode);
    if (a->out_dtype != NULL)
        say(s, "attr out_dtype %" PRId64 "\n", *a->out_dtype);
    else
        say(s, "attr out_dtype none\n");
    say(s, "attr profile %s\n", a->profile == FIA_PROFILE_CANN ? "cann" : "doc");
    /* a caller that does not say (an ABI 1.0 one, a benchmark's call):
     * what the ABI means then */
    say(s, "attr api %s\n", a->api ? a->api : "aclnn_v2");
    say(s, "attr product %s\n", a->product ? a->product : "atlas_a2");
}

exec_io exec_send_call(exec_conn *c, const fia_sut_args *a, int compute)
{
    sender *s = malloc(sizeof *s);
    if (s == NULL)
        return EXEC_IO_EOF;
    s->c = c, s->len = 0, s->err = EXEC_IO_OK;
    say(s, "call %s\n", compute ? "compute" : "check");
    send_attrs(s, a);
    send_array(s, "actual_seq_lengths", a->actual_seq_lengths);
    send_array(s, "actual_seq_lengths_kv", a->actual_seq_lengths_kv);
    send_array(s, "actual_shared_prefix_len", a->actual_shared_prefix_len);
    named_tensor t[32];
    int n = inputs(a, t);
    /* query first, then the lists, then the rest: 002's order */
    int i = 0;
    if (n > 0 && strcmp(t[0].name, "query") == 0)
        send_tensor(s, t[i].name, t[i].t, compute), i++;
    send_list(s, "key", a->key, compute);
    send_list(s, "value", a->value, compute);
    for (; i < n; i++)
        send_tensor(s, t[i].name, t[i].t, compute);
    n = outputs(a, t);
    for (i = 0; i < n; i++) {
        say(s, "output %s", t[i].name);
        say_shape(s, t[i].t);
        say(s, "\n");
    }
    say(s, "end\n");
    flush(s);
    exec_io r = s->err;
    free(s);
    return r;
}

/* A lie, with the offending line quoted (cut to a readable length). */
static exec_io lie(char *msg, size_t n, const char *what, const char *line)
{
    snprintf(msg, n, "%s: \"%.160s%s\"", what, line,
             strlen(line) > 160 ? "..." : "");
    return EXEC_IO_LIE;
}

/* "status CODE MESSAGE" into *code and msg. */
static exec_io parse_status(const char *line, fia_status *code, char *msg,
                            size_t n)
{
    if (strncmp(line, "status ", 7) != 0)
        return lie(msg, n, "the answer does not start with a status line",
                   line);
    const char *p = line + 7;
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (end == p || (*end != ' ' && *end != '\0') || errno != 0 || v < 0 ||
        v > INT32_MAX || (v >= FIA_ERR_NOMEM && v <= FIA_ERR_SUT_TIMEOUT) ||
        (*p < '0' || *p > '9'))
        return lie(msg, n, "a status that is not a system's code", line);
    *code = (fia_status)v;
    snprintf(msg, n, "%s", *end == ' ' ? end + 1 : "");
    return EXEC_IO_OK;
}

/* "tensor NAME NBYTES" for the output t of size want; its bytes into
 * t->data. */
static exec_io read_output(exec_conn *c, const named_tensor *t, char *line,
                           size_t cap, char *msg, size_t n)
{
    exec_io r = exec_read_line(c, line, cap);
    if (r != EXEC_IO_OK)
        return r == EXEC_IO_LIE ? lie(msg, n, "a line too long", line) : r;
    size_t want = (size_t)tensor_bytes(t->t);
    char name[64], expect[96];
    unsigned long long got;
    int used = 0;
    snprintf(expect, sizeof expect, "tensor %s %zu", t->name, want);
    if (sscanf(line, "tensor %63s %llu%n", name, &got, &used) != 2 ||
        line[used] != '\0' || strcmp(name, t->name) != 0 ||
        (size_t)got != want) {
        char what[160];
        snprintf(what, sizeof what, "expected \"%s\", the worker said", expect);
        return lie(msg, n, what, line);
    }
    if (want > 0 && t->t->data == NULL)
        return lie(msg, n, "an output with no buffer", line);
    return want > 0 ? exec_read_bytes(c, t->t->data, want) : EXEC_IO_OK;
}

exec_io exec_read_answer(exec_conn *c, const fia_sut_args *a, int compute,
                         fia_status *code, char *msg, size_t n)
{
    char line[4096];
    exec_io r = exec_read_line(c, line, sizeof line);
    if (r != EXEC_IO_OK)
        return r == EXEC_IO_LIE ? lie(msg, n, "a status line too long", line)
                                : r;
    if ((r = parse_status(line, code, msg, n)) != EXEC_IO_OK)
        return r;
    if (compute && *code == FIA_OK) {
        named_tensor t[2];
        int k = outputs(a, t);
        for (int i = 0; i < k; i++) {
            char why[512];
            r = read_output(c, &t[i], line, sizeof line, why, sizeof why);
            if (r != EXEC_IO_OK) {
                if (r == EXEC_IO_LIE)
                    snprintf(msg, n, "%s", why);
                return r;
            }
        }
    }
    char keep[512];
    snprintf(keep, sizeof keep, "%s", msg);
    r = exec_read_line(c, line, sizeof line);
    if (r == EXEC_IO_OK && strcmp(line, "end") != 0)
        return lie(msg, n, "expected \"end\", the worker said", line);
    if (r == EXEC_IO_LIE)
        return lie(msg, n, "expected \"end\", the worker said", line);
    snprintf(msg, n, "%s", keep);
    return r;
}
