/* One case's aclnnFusedInferAttentionScoreV2 call (fia_aclnn_call.h), made
 * as a device user makes it: each input copied to device memory and
 * wrapped in an aclTensor (ND, contiguous strides), key and value as
 * aclTensorLists, the host arrays as aclIntArrays, the outputs allocated on
 * the device; phase one, the workspace, phase two on the stream, a
 * synchronisation, the outputs copied back.  call.json names the
 * parameters as fiacheck's aclnn_v2 cases do (the snake_case of 002's). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "aclnnop/aclnn_fused_infer_attention_score_v2.h"
#include "fia_aclnn_call.h"
#include "fia_aclnn_json.h"
#include "fia_aclnn_npy.h"

#ifndef FIA_ACLNN_SYSTEM
#define FIA_ACLNN_SYSTEM "aclnn"
#endif
#ifndef FIA_ACLNN_VERSION
#define FIA_ACLNN_VERSION "unknown"
#endif

#define MAX_LIST 512
#define PATH_LEN 4096

/* The dtype names of call.json: what aclnn is given and how .npy holds it
 * (bfloat16 as its bit patterns, int4 two per byte). */
typedef struct dtype_row {
    const char *name;
    aclDataType acl;
    const char *npy;
    int bits;
} dtype_row;

static const dtype_row dtypes[] = {
    {"float16", ACL_FLOAT16, "f2", 16}, {"bfloat16", ACL_BF16, "u2", 16},
    {"float32", ACL_FLOAT, "f4", 32},   {"int8", ACL_INT8, "i1", 8},
    {"uint8", ACL_UINT8, "u1", 8},      {"int4", ACL_INT4, "u1", 4},
    {"int32", ACL_INT32, "i4", 32},     {"int64", ACL_INT64, "i8", 64},
    {"uint64", ACL_UINT64, "u8", 64},   {"bool", ACL_BOOL, "b1", 8},
};

static const dtype_row *dtype_find(const char *name)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (strcmp(dtypes[i].name, name) == 0)
            return &dtypes[i];
    return NULL;
}

/* The optional tensors of the call, in 002's order after key and value. */
enum {
    T_QUERY, T_PSE_SHIFT, T_ATTEN_MASK, T_DEQUANT_SCALE1, T_QUANT_SCALE1,
    T_DEQUANT_SCALE2, T_QUANT_SCALE2, T_QUANT_OFFSET2, T_ANTIQUANT_SCALE,
    T_ANTIQUANT_OFFSET, T_BLOCK_TABLE, T_QUERY_PADDING_SIZE,
    T_KV_PADDING_SIZE, T_KEY_ANTIQUANT_SCALE, T_KEY_ANTIQUANT_OFFSET,
    T_VALUE_ANTIQUANT_SCALE, T_VALUE_ANTIQUANT_OFFSET, T_KEY_SHARED_PREFIX,
    T_VALUE_SHARED_PREFIX, T_COUNT
};
enum { L_KEY, L_VALUE, L_COUNT };
enum { A_SEQ, A_SEQ_KV, A_PREFIX, A_COUNT };
enum {
    I_NUM_HEADS, I_PRE_TOKENS, I_NEXT_TOKENS, I_NUM_KV_HEADS, I_SPARSE_MODE,
    I_INNER_PRECISE, I_BLOCK_SIZE, I_ANTIQUANT_MODE, I_KEY_ANTIQUANT_MODE,
    I_VALUE_ANTIQUANT_MODE, I_COUNT
};
enum { O_ATTENTION_OUT, O_SOFTMAX_LSE, O_COUNT };

typedef enum param_kind {
    P_TENSOR, P_LIST, P_ARRAY, P_INT, P_SCALE, P_LAYOUT, P_LSE_FLAG,
    P_LATER  /* a parameter of a later entry point: only its default here */
} param_kind;

typedef struct param_row {
    const char *name;
    param_kind kind;
    int index;
} param_row;

static const param_row params[] = {
    {"query", P_TENSOR, T_QUERY}, {"key", P_LIST, L_KEY},
    {"value", P_LIST, L_VALUE}, {"pse_shift", P_TENSOR, T_PSE_SHIFT},
    {"atten_mask", P_TENSOR, T_ATTEN_MASK},
    {"actual_seq_lengths", P_ARRAY, A_SEQ},
    {"actual_seq_lengths_kv", P_ARRAY, A_SEQ_KV},
    {"dequant_scale1", P_TENSOR, T_DEQUANT_SCALE1},
    {"quant_scale1", P_TENSOR, T_QUANT_SCALE1},
    {"dequant_scale2", P_TENSOR, T_DEQUANT_SCALE2},
    {"quant_scale2", P_TENSOR, T_QUANT_SCALE2},
    {"quant_offset2", P_TENSOR, T_QUANT_OFFSET2},
    {"antiquant_scale", P_TENSOR, T_ANTIQUANT_SCALE},
    {"antiquant_offset", P_TENSOR, T_ANTIQUANT_OFFSET},
    {"block_table", P_TENSOR, T_BLOCK_TABLE},
    {"query_padding_size", P_TENSOR, T_QUERY_PADDING_SIZE},
    {"kv_padding_size", P_TENSOR, T_KV_PADDING_SIZE},
    {"key_antiquant_scale", P_TENSOR, T_KEY_ANTIQUANT_SCALE},
    {"key_antiquant_offset", P_TENSOR, T_KEY_ANTIQUANT_OFFSET},
    {"value_antiquant_scale", P_TENSOR, T_VALUE_ANTIQUANT_SCALE},
    {"value_antiquant_offset", P_TENSOR, T_VALUE_ANTIQUANT_OFFSET},
    {"key_shared_prefix", P_TENSOR, T_KEY_SHARED_PREFIX},
    {"value_shared_prefix", P_TENSOR, T_VALUE_SHARED_PREFIX},
    {"actual_shared_prefix_len", P_ARRAY, A_PREFIX},
    {"num_heads", P_INT, I_NUM_HEADS}, {"scale", P_SCALE, 0},
    {"pre_tokens", P_INT, I_PRE_TOKENS}, {"next_tokens", P_INT, I_NEXT_TOKENS},
    {"input_layout", P_LAYOUT, 0},
    {"num_key_value_heads", P_INT, I_NUM_KV_HEADS},
    {"sparse_mode", P_INT, I_SPARSE_MODE},
    {"inner_precise", P_INT, I_INNER_PRECISE},
    {"block_size", P_INT, I_BLOCK_SIZE},
    {"antiquant_mode", P_INT, I_ANTIQUANT_MODE},
    {"softmax_lse_flag", P_LSE_FLAG, 0},
    {"key_antiquant_mode", P_INT, I_KEY_ANTIQUANT_MODE},
    {"value_antiquant_mode", P_INT, I_VALUE_ANTIQUANT_MODE},
    /* fiacheck's aclnn_v2 cases also carry 003/004's additions, which reach
     * the operator through later entry points than 002's V2 */
    {"query_rope", P_LATER, 0}, {"key_rope", P_LATER, 0},
    {"dequant_scale_query", P_LATER, 0}, {"learnable_sink", P_LATER, 0},
    {"query_quant_mode", P_LATER, 0}, {"out_dtype", P_LATER, 0},
};

/* One tensor on the device. */
typedef struct dev_tensor {
    aclTensor *t;
    void *mem;
    const dtype_row *dt;
    int ndim;
    int64_t shape[NPY_MAX_RANK];
    size_t nbytes;
} dev_tensor;

typedef struct acl_call {
    const char *dir;
    char why[1024];                 /* the error of a bad or failed case */
    dev_tensor tensors[T_COUNT];
    dev_tensor lists[L_COUNT][MAX_LIST];
    int list_count[L_COUNT];
    aclTensorList *list[L_COUNT];
    aclIntArray *arrays[A_COUNT];
    int64_t ints[I_COUNT];
    double scale;
    char layout[64];
    bool lse_flag;
    dev_tensor outputs[O_COUNT];
} acl_call;

static const char *output_names[O_COUNT] = {"attention_out", "softmax_lse"};

static case_outcome why(acl_call *c, case_outcome o, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static case_outcome why(acl_call *c, case_outcome o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
    return o;
}

/* dir/name into out; -1 when it does not fit (nothing is opened then). */
static int join(char *out, size_t n, const char *dir, const char *name)
{
    int k = snprintf(out, n, "%s/%s", dir, name);
    return k < 0 || (size_t)k >= n ? -1 : 0;
}

static const char *recent_error(void)
{
    const char *m = aclGetRecentErrMsg();
    return m && *m ? m : "(no message)";
}

/* Device memory for nbytes (none for an empty tensor: aclrtMalloc refuses a
 * size of 0), filled from host when given. */
static case_outcome device_buffer(acl_call *c, const char *name,
                                  dev_tensor *d, const void *host)
{
    if (d->nbytes == 0)
        return CASE_DONE;
    aclError e = aclrtMalloc(&d->mem, d->nbytes, ACL_MEM_MALLOC_HUGE_FIRST);
    if (e != ACL_SUCCESS)
        return why(c, CASE_RUNTIME_FAILED, "%s: aclrtMalloc(%zu) failed: %d "
                   "%s", name, d->nbytes, e, recent_error());
    if (host) {
        e = aclrtMemcpy(d->mem, d->nbytes, host, d->nbytes,
                        ACL_MEMCPY_HOST_TO_DEVICE);
        if (e != ACL_SUCCESS)
            return why(c, CASE_RUNTIME_FAILED, "%s: aclrtMemcpy failed: %d "
                       "%s", name, e, recent_error());
    }
    return CASE_DONE;
}

static case_outcome create_tensor(acl_call *c, const char *name,
                                  dev_tensor *d)
{
    int64_t strides[NPY_MAX_RANK];
    int64_t s = 1;
    for (int i = d->ndim; i-- > 0;) {
        strides[i] = s;
        s *= d->shape[i] ? d->shape[i] : 1;
    }
    d->t = aclCreateTensor(d->shape, (uint64_t)d->ndim, d->dt->acl, strides,
                           0, ACL_FORMAT_ND, d->shape, (uint64_t)d->ndim,
                           d->mem);
    if (!d->t)
        return why(c, CASE_RUNTIME_FAILED, "%s: aclCreateTensor failed: %s",
                   name, recent_error());
    return CASE_DONE;
}

/* dtype and shape of a {"dtype": ..., "shape": [...]} object into d. */
static case_outcome read_spec(acl_call *c, const char *name,
                              const json_value *v, dev_tensor *d)
{
    const json_value *dt = json_member(v, "dtype");
    const json_value *shape = json_member(v, "shape");
    if (!dt || dt->kind != JSON_STRING || !(d->dt = dtype_find(dt->text)))
        return why(c, CASE_BAD, "%s: no dtype of the ones call.json may "
                   "name", name);
    if (!shape || shape->kind != JSON_ARRAY || shape->count > NPY_MAX_RANK)
        return why(c, CASE_BAD, "%s: shape is not an array of at most %d "
                   "dimensions", name, NPY_MAX_RANK);
    d->ndim = (int)shape->count;
    uint64_t n = 1;
    for (int i = 0; i < d->ndim; i++) {
        int64_t x;
        if (json_int64(&shape->items[i], &x) != 0 || x < 0 ||
            x > ((int64_t)1 << 40))
            return why(c, CASE_BAD, "%s: dimension %d is not a whole "
                       "number in 0..2^40", name, i);
        d->shape[i] = x;
        if (x && n > ((uint64_t)1 << 44) / (uint64_t)x)
            return why(c, CASE_BAD, "%s: too many elements", name);
        n *= (uint64_t)x;
    }
    d->nbytes = (size_t)((n * (uint64_t)d->dt->bits + 7) / 8);
    return CASE_DONE;
}

/* An input: {"tensor": FILE, "dtype": ..., "shape": ...}, FILE's .npy
 * holding what call.json says, onto the device. */
static case_outcome load_tensor(acl_call *c, const char *name,
                                const json_value *v, dev_tensor *d)
{
    if (!v || v->kind != JSON_OBJECT)
        return why(c, CASE_BAD, "%s: not a tensor object", name);
    case_outcome o = read_spec(c, name, v, d);
    if (o != CASE_DONE)
        return o;
    const json_value *file = json_member(v, "tensor");
    if (!file || file->kind != JSON_STRING || !file->text[0] ||
        strchr(file->text, '/'))
        return why(c, CASE_BAD, "%s: \"tensor\" is not a file name of the "
                   "case directory", name);
    char path[PATH_LEN];
    if (join(path, sizeof path, c->dir, file->text) != 0)
        return why(c, CASE_BAD, "%s: path too long", name);
    npy_array a;
    char err[512];
    if (npy_read(path, &a, err, sizeof err) != 0)
        return why(c, CASE_BAD, "%s: %s", name, err);
    int same = strcmp(a.descr + strspn(a.descr, "<|="), d->dt->npy) == 0 &&
               a.ndim == d->ndim && a.nbytes == d->nbytes;
    for (int i = 0; same && i < d->ndim; i++) {
        int64_t want = d->shape[i];
        if (d->dt->bits == 4 && i == d->ndim - 1)
            want = (want + 1) / 2;
        same = a.shape[i] == want;
    }
    if (!same) {
        npy_free(&a);
        return why(c, CASE_BAD, "%s: %s does not hold %s of the shape "
                   "call.json gives", name, path, d->dt->name);
    }
    o = device_buffer(c, name, d, a.data);
    npy_free(&a);
    return o == CASE_DONE ? create_tensor(c, name, d) : o;
}

static case_outcome load_list(acl_call *c, const char *name, int li,
                              const json_value *v)
{
    /* aclnn takes a list; one tensor is a list of one */
    const json_value *items = json_member(v, "tensor_list");
    int single = !items && json_member(v, "tensor");
    if (!single &&
        (!items || items->kind != JSON_ARRAY || items->count > MAX_LIST))
        return why(c, CASE_BAD, "%s: neither a tensor nor {\"tensor_list\": "
                   "[...]} of at most %d tensors", name, MAX_LIST);
    size_t count = single ? 1 : items->count;
    const aclTensor *ts[MAX_LIST];
    for (size_t i = 0; i < count; i++) {
        char entry[64];
        snprintf(entry, sizeof entry, "%s[%zu]", name, i);
        case_outcome o = load_tensor(c, entry, single ? v : &items->items[i],
                                     &c->lists[li][i]);
        c->list_count[li] = (int)i + 1;
        if (o != CASE_DONE)
            return o;
        ts[i] = c->lists[li][i].t;
    }
    c->list[li] = aclCreateTensorList(ts, count);
    if (!c->list[li])
        return why(c, CASE_RUNTIME_FAILED, "%s: aclCreateTensorList failed: "
                   "%s", name, recent_error());
    return CASE_DONE;
}

static case_outcome load_array(acl_call *c, const char *name, int ai,
                               const json_value *v)
{
    if (v->kind != JSON_ARRAY || v->count > (1u << 20))
        return why(c, CASE_BAD, "%s: not an array of whole numbers", name);
    int64_t *vals = malloc((v->count ? v->count : 1) * sizeof *vals);
    if (!vals)
        return why(c, CASE_RUNTIME_FAILED, "%s: out of memory", name);
    for (size_t i = 0; i < v->count; i++) {
        if (json_int64(&v->items[i], &vals[i]) != 0) {
            free(vals);
            return why(c, CASE_BAD, "%s[%zu]: not a whole number", name, i);
        }
    }
    c->arrays[ai] = aclCreateIntArray(vals, v->count);
    free(vals);
    if (!c->arrays[ai])
        return why(c, CASE_RUNTIME_FAILED, "%s: aclCreateIntArray failed: %s",
                   name, recent_error());
    return CASE_DONE;
}

/* A scalar attribute: whole numbers, scale, the layout and the flag. */
static case_outcome load_attr(acl_call *c, const param_row *p,
                              const json_value *v)
{
    switch (p->kind) {
    case P_INT:
        if (json_int64(v, &c->ints[p->index]) != 0)
            return why(c, CASE_BAD, "%s: not a whole number", p->name);
        return CASE_DONE;
    case P_SCALE:
        if (v->kind != JSON_NUMBER)
            return why(c, CASE_BAD, "%s: not a number", p->name);
        c->scale = v->number;
        return CASE_DONE;
    case P_LAYOUT:
        if (v->kind != JSON_STRING || strlen(v->text) >= sizeof c->layout)
            return why(c, CASE_BAD, "%s: not a string of at most %zu "
                       "characters", p->name, sizeof c->layout - 1);
        strcpy(c->layout, v->text);
        return CASE_DONE;
    case P_LSE_FLAG:
        if (v->kind != JSON_BOOL)
            return why(c, CASE_BAD, "%s: not true or false", p->name);
        c->lse_flag = v->boolean != 0;
        return CASE_DONE;
    case P_LATER: {
        int64_t zero;
        int is_default = v->kind == JSON_NULL ||
                         (json_int64(v, &zero) == 0 && zero == 0);
        if (is_default)
            return CASE_DONE;
        return why(c, CASE_BAD, "%s: not a parameter of 002's "
                   "aclnnFusedInferAttentionScoreV2 (a later entry point "
                   "takes it); this program makes 002's call only", p->name);
    }
    default:
        return why(c, CASE_BAD, "%s: internal: not an attribute", p->name);
    }
}

static case_outcome load_param(acl_call *c, const char *name,
                               const json_value *v)
{
    const param_row *p = NULL;
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
        if (strcmp(params[i].name, name) == 0)
            p = &params[i];
    if (!p)
        return why(c, CASE_BAD, "params: %s is not a parameter of 002's "
                   "call", name);
    int nullable = p->kind == P_TENSOR || p->kind == P_LIST ||
                   p->kind == P_ARRAY || p->kind == P_LATER;
    if (v->kind == JSON_NULL) {
        if (nullable)
            return CASE_DONE; /* nullptr */
        return why(c, CASE_BAD, "%s: an attribute cannot be null", name);
    }
    switch (p->kind) {
    case P_TENSOR: return load_tensor(c, name, v, &c->tensors[p->index]);
    case P_LIST: return load_list(c, name, p->index, v);
    case P_ARRAY: return load_array(c, name, p->index, v);
    default: return load_attr(c, p, v);
    }
}

static case_outcome load_outputs(acl_call *c, const json_value *outs)
{
    if (!outs || outs->kind != JSON_OBJECT)
        return why(c, CASE_BAD, "outputs: not an object");
    for (size_t i = 0; i < outs->count; i++) {
        int oi = -1;
        for (int k = 0; k < O_COUNT; k++)
            if (strcmp(outs->keys[i], output_names[k]) == 0)
                oi = k;
        if (oi < 0)
            return why(c, CASE_BAD, "outputs: %s is not an output of 002's "
                       "call", outs->keys[i]);
        dev_tensor *d = &c->outputs[oi];
        case_outcome o = read_spec(c, output_names[oi], &outs->items[i], d);
        if (o == CASE_DONE)
            o = device_buffer(c, output_names[oi], d, NULL);
        if (o == CASE_DONE)
            o = create_tensor(c, output_names[oi], d);
        if (o != CASE_DONE)
            return o;
    }
    if (!c->outputs[O_ATTENTION_OUT].t)
        return why(c, CASE_BAD, "outputs: no attention_out");
    return CASE_DONE;
}

static void free_dev(dev_tensor *d, int destroy)
{
    if (destroy && d->t)
        aclDestroyTensor(d->t);
    if (d->mem)
        aclrtFree(d->mem);
    d->t = NULL;
    d->mem = NULL;
}

static void release(acl_call *c)
{
    for (int i = 0; i < T_COUNT; i++)
        free_dev(&c->tensors[i], 1);
    for (int li = 0; li < L_COUNT; li++) {
        /* aclDestroyTensorList destroys the tensors in the list */
        if (c->list[li])
            aclDestroyTensorList(c->list[li]);
        for (int i = 0; i < c->list_count[li]; i++)
            free_dev(&c->lists[li][i], !c->list[li]);
    }
    for (int i = 0; i < A_COUNT; i++)
        if (c->arrays[i])
            aclDestroyIntArray(c->arrays[i]);
    for (int i = 0; i < O_COUNT; i++)
        free_dev(&c->outputs[i], 1);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch == '\n')
            fputs("\\n", f);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* out/status.json: written last, so that a run that died part-way leaves
 * none (judge: an error of the case, never a pass). */
static int write_status(acl_call *c, const char *outdir, aclnnStatus st,
                        const char *message)
{
    char path[PATH_LEN], tmp[PATH_LEN];
    FILE *f = NULL;
    if (join(path, sizeof path, outdir, "status.json") == 0 &&
        join(tmp, sizeof tmp, outdir, "status.json.tmp") == 0)
        f = fopen(tmp, "w");
    if (!f) {
        why(c, CASE_RUNTIME_FAILED, "%.900s/status.json.tmp: %s", outdir,
            strerror(errno));
        return -1;
    }
    if (st == 0) {
        fputs("{\"status\": \"ok\"", f);
    } else {
        fputs("{\"status\": \"error\", \"message\": ", f);
        json_string(f, message);
        fprintf(f, ", \"code\": %d", (int)st);
    }
    fputs(", \"system\": ", f);
    json_string(f, FIA_ACLNN_SYSTEM);
    fputs(", \"version\": ", f);
    json_string(f, FIA_ACLNN_VERSION);
    fputs("}\n", f);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        why(c, CASE_RUNTIME_FAILED, "%.900s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* An output copied back and saved as its .npy (int4's last dimension
 * halved, as the inputs are). */
static case_outcome save_output(acl_call *c, const char *outdir, int oi)
{
    dev_tensor *d = &c->outputs[oi];
    if (!d->t)
        return CASE_DONE;
    void *host = malloc(d->nbytes ? d->nbytes : 1);
    if (!host)
        return why(c, CASE_RUNTIME_FAILED, "%s: out of memory",
                   output_names[oi]);
    if (d->nbytes) {
        aclError e = aclrtMemcpy(host, d->nbytes, d->mem, d->nbytes,
                                 ACL_MEMCPY_DEVICE_TO_HOST);
        if (e != ACL_SUCCESS) {
            free(host);
            return why(c, CASE_RUNTIME_FAILED, "%s: aclrtMemcpy back "
                       "failed: %d %s", output_names[oi], e, recent_error());
        }
    }
    int64_t shape[NPY_MAX_RANK];
    memcpy(shape, d->shape, sizeof shape);
    if (d->dt->bits == 4 && d->ndim > 0)
        shape[d->ndim - 1] = (shape[d->ndim - 1] + 1) / 2;
    char descr[8], file[32], path[PATH_LEN], err[1024];
    snprintf(descr, sizeof descr, "%c%s", d->dt->bits > 8 ? '<' : '|',
             d->dt->npy);
    snprintf(file, sizeof file, "%s.npy", output_names[oi]);
    int rc = join(path, sizeof path, outdir, file) == 0
                 ? npy_write(path, descr, d->ndim, shape, host, d->nbytes,
                             err, sizeof err)
                 : (snprintf(err, sizeof err, "%s: path too long", file), -1);
    free(host);
    if (rc != 0)
        return why(c, CASE_RUNTIME_FAILED, "%s", err);
    return CASE_DONE;
}

/* The two phases.  *status is the operator's answer when the call got that
 * far; the outcome says whether the runtime around it worked. */
static case_outcome call_operator(acl_call *c, aclrtStream stream,
                                  aclnnStatus *status)
{
    uint64_t ws_size = 0;
    aclOpExecutor *executor = NULL;
    dev_tensor *t = c->tensors;
    *status = aclnnFusedInferAttentionScoreV2GetWorkspaceSize(
        t[T_QUERY].t, c->list[L_KEY], c->list[L_VALUE], t[T_PSE_SHIFT].t,
        t[T_ATTEN_MASK].t, c->arrays[A_SEQ], c->arrays[A_SEQ_KV],
        t[T_DEQUANT_SCALE1].t, t[T_QUANT_SCALE1].t, t[T_DEQUANT_SCALE2].t,
        t[T_QUANT_SCALE2].t, t[T_QUANT_OFFSET2].t, t[T_ANTIQUANT_SCALE].t,
        t[T_ANTIQUANT_OFFSET].t, t[T_BLOCK_TABLE].t,
        t[T_QUERY_PADDING_SIZE].t, t[T_KV_PADDING_SIZE].t,
        t[T_KEY_ANTIQUANT_SCALE].t, t[T_KEY_ANTIQUANT_OFFSET].t,
        t[T_VALUE_ANTIQUANT_SCALE].t, t[T_VALUE_ANTIQUANT_OFFSET].t,
        t[T_KEY_SHARED_PREFIX].t, t[T_VALUE_SHARED_PREFIX].t,
        c->arrays[A_PREFIX], c->ints[I_NUM_HEADS], c->scale,
        c->ints[I_PRE_TOKENS], c->ints[I_NEXT_TOKENS], c->layout,
        c->ints[I_NUM_KV_HEADS], c->ints[I_SPARSE_MODE],
        c->ints[I_INNER_PRECISE], c->ints[I_BLOCK_SIZE],
        c->ints[I_ANTIQUANT_MODE], c->lse_flag,
        c->ints[I_KEY_ANTIQUANT_MODE], c->ints[I_VALUE_ANTIQUANT_MODE],
        c->outputs[O_ATTENTION_OUT].t, c->outputs[O_SOFTMAX_LSE].t, &ws_size,
        &executor);
    if (*status != 0)
        return CASE_DONE;
    void *ws = NULL;
    if (ws_size > 0) {
        aclError e = aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST);
        if (e != ACL_SUCCESS)
            return why(c, CASE_RUNTIME_FAILED, "workspace: aclrtMalloc(%llu) "
                       "failed: %d %s", (unsigned long long)ws_size, e,
                       recent_error());
    }
    *status = aclnnFusedInferAttentionScoreV2(ws, ws_size, executor, stream);
    case_outcome o = CASE_DONE;
    if (*status == 0) {
        aclError e = aclrtSynchronizeStream(stream);
        if (e != ACL_SUCCESS)
            o = why(c, CASE_RUNTIME_FAILED, "aclrtSynchronizeStream failed: "
                    "%d %s", e, recent_error());
    }
    if (ws)
        aclrtFree(ws);
    return o;
}

static void default_attrs(acl_call *c)
{
    /* 002's REG_OP defaults, for a call.json that leaves one out */
    c->ints[I_NUM_HEADS] = 1;
    c->ints[I_PRE_TOKENS] = 2147483647;
    c->ints[I_NEXT_TOKENS] = 2147483647;
    c->ints[I_INNER_PRECISE] = 1;
    c->scale = 1.0;
    strcpy(c->layout, "BSH");
}

static case_outcome check_header(acl_call *c, const json_value *root,
                                 int walking)
{
    const json_value *format = json_member(root, "format");
    const json_value *api = json_member(root, "api");
    int64_t fmt;
    if (json_int64(format, &fmt) != 0 || fmt != 1)
        return why(c, CASE_BAD, "call.json: not format 1");
    if (!api || api->kind != JSON_STRING)
        return why(c, CASE_BAD, "call.json: no api");
    if (strcmp(api->text, "aclnn_v2") != 0)
        return walking ? CASE_SKIPPED
                       : why(c, CASE_BAD, "call.json: api %s, not aclnn_v2 "
                             "(this program makes 002's call)", api->text);
    return CASE_DONE;
}

/* Reads call.json, builds the call's objects and makes it; out/ holds the
 * answer when the outcome is CASE_DONE. */
static case_outcome run_loaded(acl_call *c, const json_value *root,
                               aclrtStream stream, const char *outdir)
{
    const json_value *ps = json_member(root, "params");
    if (!ps || ps->kind != JSON_OBJECT)
        return why(c, CASE_BAD, "call.json: no params object");
    default_attrs(c);
    for (size_t i = 0; i < ps->count; i++) {
        case_outcome o = load_param(c, ps->keys[i], &ps->items[i]);
        if (o != CASE_DONE)
            return o;
    }
    case_outcome o = load_outputs(c, json_member(root, "outputs"));
    if (o != CASE_DONE)
        return o;
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST)
        return why(c, CASE_RUNTIME_FAILED, "%s: %s", outdir, strerror(errno));
    aclnnStatus st = 0;
    o = call_operator(c, stream, &st);
    if (o != CASE_DONE)
        return o;
    if (st == 0)
        for (int i = 0; i < O_COUNT && o == CASE_DONE; i++)
            o = save_output(c, outdir, i);
    if (o != CASE_DONE)
        return o;
    snprintf(c->why, sizeof c->why, "%s", st ? recent_error() : "");
    if (write_status(c, outdir, st, c->why) != 0)
        return CASE_RUNTIME_FAILED;
    if (st)
        printf("%s: error %d %s\n", c->dir, (int)st, c->why);
    else
        printf("%s: ok\n", c->dir);
    return CASE_DONE;
}

static char *read_text(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%.900s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - 1 - n, f);
        if (n < cap - 1 || cap > (64u << 20))
            break;
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int bad = !buf || ferror(f) || n >= cap - 1 || memchr(buf, 0, n);
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "%.900s: unreadable, too long or not text",
                 path);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

case_outcome fia_aclnn_run_case(const char *dir, aclrtStream stream,
                                int walking)
{
    acl_call *c = calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "%s: out of memory\n", dir);
        return CASE_RUNTIME_FAILED;
    }
    c->dir = dir;
    char path[PATH_LEN], outdir[PATH_LEN];
    if (strlen(dir) > PATH_LEN - 64 || join(path, sizeof path, dir,
                                            "call.json") != 0 ||
        join(outdir, sizeof outdir, dir, "out") != 0) {
        fprintf(stderr, "%.200s...: path too long\n", dir);
        free(c);
        return CASE_BAD;
    }
    /* what a previous run left would otherwise pass for this run's answer */
    const char *stale[] = {"status.json", "attention_out.npy",
                           "softmax_lse.npy"};
    for (size_t i = 0; i < sizeof stale / sizeof stale[0]; i++) {
        char p[PATH_LEN];
        if (join(p, sizeof p, outdir, stale[i]) == 0)
            unlink(p);
    }
    case_outcome o = CASE_BAD;
    char *text = read_text(path, c->why, sizeof c->why);
    json_value *root = NULL;
    if (text) {
        char err[256];
        root = json_parse(text, err, sizeof err);
        if (!root)
            why(c, CASE_BAD, "%s: %s", path, err);
    }
    if (root) {
        o = check_header(c, root, walking);
        if (o == CASE_DONE)
            o = run_loaded(c, root, stream, outdir);
    }
    if (o == CASE_SKIPPED)
        printf("%s: skipped (not an aclnn_v2 case)\n", dir);
    else if (o != CASE_DONE)
        fprintf(stderr, "%s: %s\n", dir, c->why);
    release(c);
    json_free(root);
    free(text);
    free(c);
    return o;
}
