/* fiacheck-plugin-worker [--options] PLUGIN.so: serves the worker protocol
 * (docs/sut/exec.md) by calling a C plug-in (include/fia/sut.h) in its
 * own process.  `fiacheck --sut exec:'fiacheck-plugin-worker lib.so'`
 * then judges the same plug-in as `--sut lib.so`, but a plug-in that
 * crashes or hangs takes down this process, not the harness; and the
 * two together measure what the protocol costs.
 *
 * Like a plug-in it links nothing of fiacheck's: it knows the ABI's
 * header and the wire format, nothing else. */
#define _GNU_SOURCE /* getline */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fia/sut.h"

/* every input: two full lists and the rest */
#define MAX_TENSORS (2 * FIA_MAX_TENSOR_LIST + 32)

/* The wire's dtype words, in fia_dtype's order, and their bits. */
static const char *const dtype_words[FIA_DT_COUNT] = {
    [FIA_DT_FP16] = "fp16",   [FIA_DT_BF16] = "bf16",
    [FIA_DT_FP32] = "fp32",   [FIA_DT_INT8] = "int8",
    [FIA_DT_UINT8] = "uint8", [FIA_DT_INT4] = "int4",
    [FIA_DT_INT32] = "int32", [FIA_DT_INT64] = "int64",
    [FIA_DT_UINT64] = "uint64", [FIA_DT_BOOL] = "bool"};
static const int dtype_bits[FIA_DT_COUNT] = {
    [FIA_DT_FP16] = 16, [FIA_DT_BF16] = 16, [FIA_DT_FP32] = 32,
    [FIA_DT_INT8] = 8,  [FIA_DT_UINT8] = 8, [FIA_DT_INT4] = 4,
    [FIA_DT_INT32] = 32, [FIA_DT_INT64] = 64, [FIA_DT_UINT64] = 64,
    [FIA_DT_BOOL] = 8};

/* A request that is not the protocol: fiacheck never sends one, so this
 * is a bug on one side; say so and stop (fiacheck reports the crash). */
static void die(const char *what, const char *line)
{
    fprintf(stderr, "fiacheck-plugin-worker: %s: \"%.200s\"\n", what,
            line ? line : "");
    exit(3);
}

static size_t storage(const fia_tensor *t)
{
    uint64_t n = 1;
    for (int i = 0; i < t->ndim; i++) {
        if (t->shape[i] < 0 ||
            (t->shape[i] > 0 && n > UINT64_MAX / 64 / (uint64_t)t->shape[i]))
            die("a shape too large", NULL);
        n *= (uint64_t)t->shape[i];
    }
    return (size_t)((n * (uint64_t)dtype_bits[t->dtype] + 7) / 8);
}

/* Buffers kept from call to call, one per tensor position: a new one per
 * call would be fresh pages every time, whose faults cost more than the
 * computation of a decode step. */
static void *pool[MAX_TENSORS + 2];
static size_t pool_cap[MAX_TENSORS + 2];

static void *buffer(int k, size_t bytes)
{
    if (bytes > pool_cap[k]) {
        free(pool[k]);
        pool[k] = malloc(bytes);
        pool_cap[k] = pool[k] ? bytes : 0;
    }
    return pool[k];
}

typedef struct named {
    char name[48];
    fia_tensor t;
} named;

/* One request as parsed: its tensors own their data. */
typedef struct request {
    int compute;
    fia_sut_args a;
    named in[MAX_TENSORS], out[2];
    int n_in, n_out;
    const fia_tensor *key_list[FIA_MAX_TENSOR_LIST],
        *value_list[FIA_MAX_TENSOR_LIST];
    fia_tensor_list key, value;
    fia_int_array arr[3];
    int64_t out_dtype;
    char layout[136], api[136], product[136];
} request;

static void parse_shape(char **p, fia_tensor *t, const char *line)
{
    char word[16];
    int used = 0;
    if (sscanf(*p, "%15s %" SCNd32 "%n", word, &t->ndim, &used) != 2 ||
        t->ndim < 0 || t->ndim > FIA_MAX_RANK)
        die("a bad dtype or rank", line);
    *p += used;
    t->dtype = FIA_DT_INVALID;
    for (int d = 1; d < FIA_DT_COUNT; d++)
        if (strcmp(word, dtype_words[d]) == 0)
            t->dtype = (fia_dtype)d;
    if (t->dtype == FIA_DT_INVALID)
        die("an unknown dtype", line);
    for (int i = 0; i < t->ndim; i++) {
        if (sscanf(*p, " %" SCNd64 "%n", &t->shape[i], &used) != 1)
            die("a short shape", line);
        *p += used;
    }
}

static void parse_tensor(request *q, char *line)
{
    if (q->n_in >= MAX_TENSORS)
        die("too many tensors", line);
    named *n = &q->in[q->n_in++];
    int used = 0;
    if (sscanf(line, "tensor %47s%n", n->name, &used) != 1)
        die("a bad tensor line", line);
    char *p = line + used;
    parse_shape(&p, &n->t, line);
    unsigned long long bytes;
    if (sscanf(p, " %llu%n", &bytes, &used) != 1 || p[used] != '\0')
        die("a tensor line without its byte count", line);
    n->t.data = NULL;
    if (bytes > 0) {
        if (bytes != storage(&n->t))
            die("a byte count that is not the shape's", line);
        n->t.data = buffer(q->n_in - 1, bytes);
        if (n->t.data == NULL || fread(n->t.data, 1, bytes, stdin) != bytes)
            die("tensor bytes cut short", line);
    }
}

static void parse_output(request *q, char *line)
{
    if (q->n_out >= 2)
        die("too many outputs", line);
    named *n = &q->out[q->n_out++];
    int used = 0;
    if (sscanf(line, "output %47s%n", n->name, &used) != 1)
        die("a bad output line", line);
    char *p = line + used;
    parse_shape(&p, &n->t, line);
    /* a check's shapes may be any size: only a compute's are made */
    size_t bytes = q->compute ? storage(&n->t) : 0;
    n->t.data = q->compute ? buffer(MAX_TENSORS + q->n_out - 1,
                                    bytes ? bytes : 1)
                           : NULL;
    if (q->compute && n->t.data == NULL)
        die("no memory for an output", line);
    /* poisoned, as the harness poisons an output in-process: a plug-in
     * that writes nothing returns NaN (all ones in a float dtype), never
     * the zeros or the last call's answer a lazy kernel could pass with */
    if (q->compute)
        memset(n->t.data, 0xff, bytes);
}

static void parse_array(request *q, char *line)
{
    static const char *const names[3] = {"actual_seq_lengths",
                                         "actual_seq_lengths_kv",
                                         "actual_shared_prefix_len"};
    char name[48];
    long long count;
    int used = 0;
    if (sscanf(line, "array %47s %lld%n", name, &count, &used) != 2 ||
        count < 0 || count > (1 << 24))
        die("a bad array line", line);
    int k = -1;
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0)
            k = i;
    if (k < 0)
        die("an unknown array", line);
    int64_t *v = malloc(sizeof *v * (size_t)(count ? count : 1));
    char *p = line + used;
    for (long long i = 0; v != NULL && i < count; i++) {
        if (sscanf(p, " %" SCNd64 "%n", &v[i], &used) != 1)
            die("a short array", line);
        p += used;
    }
    q->arr[k] = (fia_int_array){count, v};
    const fia_int_array **slot[3] = {&q->a.actual_seq_lengths,
                                     &q->a.actual_seq_lengths_kv,
                                     &q->a.actual_shared_prefix_len};
    *slot[k] = &q->arr[k];
}

static void parse_attr(request *q, char *line)
{
    char name[48], value[136];
    if (sscanf(line, "attr %47s %135s", name, value) != 2)
        die("a bad attr line", line);
    fia_sut_args *a = &q->a;
    struct { const char *name; int64_t *v; } ints[] = {
        {"num_heads", &a->num_heads}, {"pre_tokens", &a->pre_tokens},
        {"next_tokens", &a->next_tokens},
        {"num_key_value_heads", &a->num_key_value_heads},
        {"sparse_mode", &a->sparse_mode},
        {"inner_precise", &a->inner_precise}, {"block_size", &a->block_size},
        {"antiquant_mode", &a->antiquant_mode},
        {"key_antiquant_mode", &a->key_antiquant_mode},
        {"value_antiquant_mode", &a->value_antiquant_mode},
        {"query_quant_mode", &a->query_quant_mode}};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (strcmp(name, ints[i].name) == 0) {
            *ints[i].v = strtoll(value, NULL, 10);
            return;
        }
    if (strcmp(name, "scale") == 0)
        a->scale = strtod(value, NULL);
    else if (strcmp(name, "softmax_lse_flag") == 0)
        a->softmax_lse_flag = strcmp(value, "1") == 0;
    else if (strcmp(name, "out_dtype") == 0) {
        q->out_dtype = strtoll(value, NULL, 10);
        a->out_dtype = strcmp(value, "none") == 0 ? NULL : &q->out_dtype;
    } else if (strcmp(name, "profile") == 0)
        a->profile = strcmp(value, "cann") == 0 ? FIA_PROFILE_CANN
                                                : FIA_PROFILE_DOC;
    else if (strcmp(name, "input_layout") == 0)
        snprintf(q->layout, sizeof q->layout, "%s", value);
    else if (strcmp(name, "api") == 0)
        snprintf(q->api, sizeof q->api, "%s", value);
    else if (strcmp(name, "product") == 0)
        snprintf(q->product, sizeof q->product, "%s", value);
    /* an attribute a later protocol adds: not this plug-in's ABI */
}

/* The named tensors into the args' slots and lists. */
static void place(request *q)
{
    fia_sut_args *a = &q->a;
    struct { const char *name; const fia_tensor **slot; } slots[] = {
        {"query", &a->query}, {"pse_shift", &a->pse_shift},
        {"atten_mask", &a->atten_mask},
        {"dequant_scale1", &a->dequant_scale1},
        {"quant_scale1", &a->quant_scale1},
        {"dequant_scale2", &a->dequant_scale2},
        {"quant_scale2", &a->quant_scale2},
        {"quant_offset2", &a->quant_offset2},
        {"antiquant_scale", &a->antiquant_scale},
        {"antiquant_offset", &a->antiquant_offset},
        {"block_table", &a->block_table},
        {"query_padding_size", &a->query_padding_size},
        {"kv_padding_size", &a->kv_padding_size},
        {"key_antiquant_scale", &a->key_antiquant_scale},
        {"key_antiquant_offset", &a->key_antiquant_offset},
        {"value_antiquant_scale", &a->value_antiquant_scale},
        {"value_antiquant_offset", &a->value_antiquant_offset},
        {"key_shared_prefix", &a->key_shared_prefix},
        {"value_shared_prefix", &a->value_shared_prefix},
        {"query_rope", &a->query_rope}, {"key_rope", &a->key_rope},
        {"dequant_scale_query", &a->dequant_scale_query},
        {"learnable_sink", &a->learnable_sink}};
    for (int i = 0; i < q->n_in; i++) {
        const char *n = q->in[i].name;
        fia_tensor_list *l = strncmp(n, "key.", 4) == 0     ? &q->key
                             : strncmp(n, "value.", 6) == 0 ? &q->value
                                                            : NULL;
        if (l != NULL) {
            const fia_tensor **entries =
                l == &q->key ? q->key_list : q->value_list;
            if (l->count >= FIA_MAX_TENSOR_LIST)
                die("a list too long", n);
            entries[l->count++] = &q->in[i].t;
            l->tensors = entries;
            continue;
        }
        size_t k = 0;
        while (k < sizeof slots / sizeof slots[0] &&
               strcmp(n, slots[k].name) != 0)
            k++;
        if (k == sizeof slots / sizeof slots[0])
            die("an unknown tensor", n);
        *slots[k].slot = &q->in[i].t;
    }
    a->key = q->key.count > 0 ? &q->key : NULL;
    a->value = q->value.count > 0 ? &q->value : NULL;
    for (int i = 0; i < q->n_out; i++) {
        if (strcmp(q->out[i].name, "attention_out") == 0)
            a->attention_out = &q->out[i].t;
        else if (strcmp(q->out[i].name, "softmax_lse") == 0)
            a->softmax_lse = &q->out[i].t;
        else
            die("an unknown output", q->out[i].name);
    }
    a->input_layout = q->layout;
    a->api = q->api;
    a->product = q->product;
    a->size = sizeof *a;
}

/* `--options`: the run settings of the plug-in's table between calls,
 * "get NAME" (answered "value V" or "none") and "set NAME VALUE" ("ok"
 * or "refused"), for the harness that started this worker to call the
 * plug-in (fia_sut_isolate) with a case's settings as it would in-process.
 * 1 when line was one. */
static int take_option(const fia_sut *s, const char *line)
{
    char name[64], value[128];
    if (sscanf(line, "get %63s", name) == 1 && strncmp(line, "get ", 4) == 0) {
        const char *v = s->get_option ? s->get_option(name) : NULL;
        if (v != NULL && v[0] && strcspn(v, " \n\r") == strlen(v))
            printf("value %s\n", v);
        else
            printf("none\n");
    } else if (sscanf(line, "set %63s %127s", name, value) == 2 &&
               strncmp(line, "set ", 4) == 0) {
        printf(s->set_option && s->set_option(name, value) == 0 ? "ok\n"
                                                                : "refused\n");
    } else {
        return 0;
    }
    fflush(stdout);
    return 1;
}

static int options; /* --options given */

/* Reads one request after its `call` line (answering the option messages
 * before it); 0 at quit or end of input. */
static int read_request(const fia_sut *s, request *q, char **line,
                        size_t *cap)
{
    memset(q, 0, sizeof *q);
    ssize_t n;
    do {
        n = getline(line, cap, stdin);
        if (n <= 0)
            return 0;
        if ((*line)[n - 1] == '\n')
            (*line)[--n] = '\0';
    } while (options && take_option(s, *line));
    if (strcmp(*line, "quit") == 0)
        return 0;
    if (strcmp(*line, "call check") != 0 && strcmp(*line, "call compute"))
        die("not a call", *line);
    q->compute = strcmp(*line, "call compute") == 0;
    snprintf(q->layout, sizeof q->layout, "BSH");
    for (;;) {
        n = getline(line, cap, stdin);
        if (n <= 0)
            die("a request cut short", NULL);
        if ((*line)[n - 1] == '\n')
            (*line)[--n] = '\0';
        char *l = *line;
        if (strcmp(l, "end") == 0)
            break;
        if (strncmp(l, "attr ", 5) == 0)
            parse_attr(q, l);
        else if (strncmp(l, "array ", 6) == 0)
            parse_array(q, l);
        else if (strncmp(l, "tensor ", 7) == 0)
            parse_tensor(q, l);
        else if (strncmp(l, "output ", 7) == 0)
            parse_output(q, l);
        else
            die("an unknown request line", l);
    }
    place(q);
    return 1;
}

static void free_request(request *q)
{
    for (int i = 0; i < 3; i++)
        free((void *)q->arr[i].values);
}

/* The plug-in's two phases, as fiacheck's harness would call them. */
static fia_status call(const fia_sut *s, request *q)
{
    uint64_t ws_size = 0;
    void *ex = NULL;
    fia_status st = s->get_workspace_size(&q->a, &ws_size, &ex);
    if (st != FIA_OK || !q->compute) {
        if (st == FIA_OK)
            s->destroy(ex);
        return st;
    }
    void *ws = ws_size ? malloc(ws_size) : NULL;
    if (ws_size && ws == NULL) {
        s->destroy(ex);
        return FIA_ERR_NOMEM;
    }
    if (ws)
        memset(ws, 0xff, ws_size); /* old contents, as a device's */
    st = s->run(ws, ws_size, ex);
    free(ws);
    return st;
}

static void answer(const fia_sut *s, request *q, fia_status st)
{
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", st != FIA_OK && s->last_error()
                                        ? s->last_error() : "");
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' '; /* the message is the rest of one line */
    printf("status %d%s%s\n", (int)st, msg[0] ? " " : "", msg);
    if (q->compute && st == FIA_OK)
        for (int i = 0; i < q->n_out; i++) {
            size_t b = storage(&q->out[i].t);
            printf("tensor %s %zu\n", q->out[i].name, b);
            fwrite(q->out[i].t.data, 1, b, stdout);
        }
    printf("end\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    options = argc == 3 && strcmp(argv[1], "--options") == 0;
    if (argc != 2 + options) {
        fprintf(stderr, "usage: fiacheck-plugin-worker [--options] "
                "PLUGIN.so\n");
        return 2;
    }
    argv += options;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    void *sym = h ? dlsym(h, FIA_SUT_ENTRY_NAME) : NULL;
    if (sym == NULL) {
        fprintf(stderr, "fiacheck-plugin-worker: %s\n",
                h ? "not a fiacheck plug-in" : dlerror());
        return 2;
    }
    fia_sut_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry);
    const fia_sut *s = entry();
    if (s == NULL || FIA_SUT_ABI_MAJOR(s->abi_version) !=
                         FIA_SUT_ABI_MAJOR(FIA_SUT_ABI_VERSION)) {
        fprintf(stderr, "fiacheck-plugin-worker: %s: another ABI\n", argv[1]);
        return 2;
    }
    printf("fiacheck-worker 1 %s %s %s\n",
           (s->validates & FIA_SUT_CHECKS_STATUS) ? "statuses" : "numbers",
           s->name, s->version);
    fflush(stdout);
    static request q; /* large: the lists' entries */
    char *line = NULL;
    size_t cap = 0;
    while (read_request(s, &q, &line, &cap)) {
        answer(s, &q, call(s, &q));
        free_request(&q);
    }
    free(line);
    return 0;
}
