/* A second system under test: attention composed of oneDNN primitives
 * (onednn_plan.h says how), as a numbers-only fiacheck plug-in
 * (include/fia/sut.h, validates = 0).
 *
 * It covers what such a composition expresses without effort: fp16 and
 * bf16 query/key/value with the output in the query's dtype; layouts BSH,
 * BSND, BNSD and BNSD_BSND (strides); GQA; atten_mask (bool, int8, uint8:
 * nonzero excludes the key) with sparse_mode 0 (mask and the pre/next band),
 * 1 (mask), 2 (left-up causal), 3 (right-down causal) and 4 (band about the
 * right-down diagonal) read as 002 sparseMode describes them; pse_shift;
 * actual_seq_lengths / actual_seq_lengths_kv (keys past a batch's length
 * excluded); softmax_lse.  inner_precise is a precision hint for the NPU:
 * this composition has one precision.  Everything else (quantization,
 * antiquant, page attention, padding, shared prefix, tensor lists, MLA,
 * learnable_sink, token layouts) is refused with FIA_ERR_NOT_MODELED.
 *
 * It links oneDNN and nothing of fiacheck's but the header's types. */
#include <dnnl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "onednn_plan.h"

#ifndef ONEDNN_SUT_VERSION
#define ONEDNN_SUT_VERSION "1.0"
#endif

static _Thread_local char last_error[320];

fia_status onednn_fail(fia_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return st;
}

static void plan_free(onednn_plan *p)
{
    if (p != NULL) {
        free(p->q_len);
        free(p->kv_len);
        free(p);
    }
}

/* The first optional input this composition does not compute, or NULL. */
static const char *unsupported_input(const fia_sut_args *a)
{
    static const char *const names[] = {
        "dequant_scale1", "quant_scale1", "dequant_scale2", "quant_scale2",
        "quant_offset2", "antiquant_scale", "antiquant_offset",
        "block_table", "query_padding_size", "kv_padding_size",
        "key_antiquant_scale", "key_antiquant_offset",
        "value_antiquant_scale", "value_antiquant_offset",
        "key_shared_prefix", "value_shared_prefix", "query_rope", "key_rope",
        "dequant_scale_query", "learnable_sink"};
    const fia_tensor *t[] = {
        a->dequant_scale1, a->quant_scale1, a->dequant_scale2,
        a->quant_scale2, a->quant_offset2, a->antiquant_scale,
        a->antiquant_offset, a->block_table, a->query_padding_size,
        a->kv_padding_size, a->key_antiquant_scale, a->key_antiquant_offset,
        a->value_antiquant_scale, a->value_antiquant_offset,
        a->key_shared_prefix, a->value_shared_prefix, a->query_rope,
        a->key_rope, a->dequant_scale_query, a->learnable_sink};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i] != NULL)
            return names[i];
    if (a->actual_shared_prefix_len != NULL)
        return "actual_shared_prefix_len";
    return NULL;
}

static int64_t numel(const fia_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= t->shape[i];
    return n;
}

/* An optional tensor with no elements is as good as none. */
static const fia_tensor *present(const fia_tensor *t)
{
    return t != NULL && numel(t) > 0 ? t : NULL;
}

/* Strides of the 5-D view (B, KV_N, G, S, D) of a tensor whose heads are
 * n = kvn·G + g: "bnsd" (B, heads, S, D) or "bsnd" (B, S, heads, D). */
static void view_strides(int bnsd, int64_t heads, int64_t S, int64_t G,
                         int64_t D, int64_t st[5])
{
    if (bnsd) {
        st[0] = heads * S * D, st[1] = G * S * D, st[2] = S * D;
        st[3] = D;
    } else {
        st[0] = S * heads * D, st[1] = G * D, st[2] = D;
        st[3] = heads * D;
    }
    st[4] = 1;
}

/* The dims of the problem from the layout; 0 or a refusal. */
static fia_status read_layout(const fia_sut_args *a, onednn_plan *p)
{
    const fia_tensor *q = a->query, *k = a->key->tensors[0];
    const char *lay = a->input_layout ? a->input_layout : "BSH";
    int bnsd_in, bnsd_out;
    if (strcmp(lay, "BNSD") == 0 || strcmp(lay, "BNSD_BSND") == 0) {
        if (q->ndim != 4 || k->ndim != 4)
            return onednn_fail(FIA_ERR_NOT_MODELED, "%s wants 4-D tensors",
                               lay);
        p->B = q->shape[0], p->Q_S = q->shape[2], p->D = q->shape[3];
        p->KV_S = k->shape[2];
        if (q->shape[1] != p->N || k->shape[1] != p->KV_N)
            return onednn_fail(FIA_ERR_NOT_MODELED, "%s heads", lay);
        bnsd_in = 1, bnsd_out = strcmp(lay, "BNSD") == 0;
    } else if (strcmp(lay, "BSND") == 0) {
        if (q->ndim != 4 || k->ndim != 4)
            return onednn_fail(FIA_ERR_NOT_MODELED, "BSND wants 4-D tensors");
        p->B = q->shape[0], p->Q_S = q->shape[1], p->D = q->shape[3];
        p->KV_S = k->shape[1];
        if (q->shape[2] != p->N || k->shape[2] != p->KV_N)
            return onednn_fail(FIA_ERR_NOT_MODELED, "BSND heads");
        bnsd_in = bnsd_out = 0;
    } else if (strcmp(lay, "BSH") == 0) {
        if (q->ndim != 3 || k->ndim != 3)
            return onednn_fail(FIA_ERR_NOT_MODELED, "BSH wants 3-D tensors");
        p->B = q->shape[0], p->Q_S = q->shape[1];
        p->D = q->shape[2] / p->N;
        p->KV_S = k->shape[1];
        if (q->shape[2] != p->N * p->D || k->shape[2] != p->KV_N * p->D)
            return onednn_fail(FIA_ERR_NOT_MODELED, "BSH hidden sizes");
        bnsd_in = bnsd_out = 0;
    } else {
        return onednn_fail(FIA_ERR_NOT_MODELED, "layout %s: only BSH, BSND, "
                           "BNSD and BNSD_BSND", lay);
    }
    for (int i = 0; i < k->ndim; i++)
        if (a->value->tensors[0]->shape[i] != k->shape[i] ||
            a->value->tensors[0]->ndim != k->ndim)
            return onednn_fail(FIA_ERR_NOT_MODELED, "key and value differ");
    view_strides(bnsd_in, p->N, p->Q_S, p->G, p->D, p->q_st);
    view_strides(bnsd_in, p->KV_N, p->KV_S, 1, p->D, p->kv_st);
    view_strides(bnsd_out, p->N, p->Q_S, p->G, p->D, p->out_st);
    return FIA_OK;
}

/* Per-batch lengths: an array of one value for every batch or of at least
 * B values (002 actualSeqLengths); none means the tensor's S. */
static fia_status read_lengths(const fia_int_array *arr, int64_t B,
                               int64_t S, int64_t **out)
{
    int64_t *len = malloc((size_t)(B > 0 ? B : 1) * sizeof *len);
    if (len == NULL)
        return onednn_fail(FIA_ERR_RUNTIME_ERROR, "out of memory");
    *out = len;
    /* an array of 2 .. B-1 values is read by no rule (FIA accepts one
     * only where nothing reads it: an empty query) */
    if (arr != NULL && arr->count > 1 && arr->count < B)
        return onednn_fail(FIA_ERR_NOT_MODELED, "a length array of "
                             "%lld values for %lld batches",
                             (long long)arr->count, (long long)B);
    for (int64_t b = 0; b < B; b++) {
        int64_t v = S;
        if (arr != NULL && arr->count > 0)
            v = arr->values[arr->count == 1 ? 0 : b];
        if (v < 0 || v > S)
            return onednn_fail(FIA_ERR_NOT_MODELED, "a sequence length out "
                               "of [0, %lld]", (long long)S);
        len[b] = v;
    }
    return FIA_OK;
}

static fia_status read_mask_pse(const fia_sut_args *a, onednn_plan *p)
{
    p->mask = present(a->atten_mask);
    p->pse = present(a->pse_shift);
    if (p->mask != NULL && p->mask->dtype != FIA_DT_BOOL &&
        p->mask->dtype != FIA_DT_UINT8 && p->mask->dtype != FIA_DT_INT8)
        return onednn_fail(FIA_ERR_NOT_MODELED, "mask dtype");
    /* the mask's last two dims are (rows, cols) >= (Q_S, KV_S), its first
     * the batch (1 or B) when it has more than two, or at Q_S = 1 */
    if (p->mask != NULL &&
        (p->mask->ndim < 2 || p->mask->ndim > 4 ||
         p->mask->shape[p->mask->ndim - 1] < p->KV_S ||
         (p->Q_S > 1 && p->mask->shape[p->mask->ndim - 2] < p->Q_S) ||
         ((p->mask->ndim > 2 || p->Q_S == 1) && p->mask->shape[0] != 1 &&
          p->mask->shape[0] != p->B)))
        return onednn_fail(FIA_ERR_NOT_MODELED, "mask shape");
    if (p->pse != NULL &&
        (p->pse->dtype != p->dt || p->pse->ndim != 4 ||
         p->pse->shape[1] != p->N || p->pse->shape[3] < p->KV_S ||
         (p->Q_S > 1 && p->pse->shape[2] < p->Q_S)))
        return onednn_fail(FIA_ERR_NOT_MODELED, "pse_shift shape or dtype");
    /* Q_S = 1 is the decode path: sparse_mode, pre/next_tokens and
     * actual_seq_lengths have no effect there (002) */
    p->sparse_mode = p->Q_S > 1 ? a->sparse_mode : 0;
    p->pre_tokens = a->pre_tokens, p->next_tokens = a->next_tokens;
    if (p->sparse_mode < 0 || p->sparse_mode > 4)
        return onednn_fail(FIA_ERR_NOT_MODELED, "sparse_mode %lld",
                           (long long)p->sparse_mode);
    int per_batch_len = 0;
    for (int64_t b = 0; b < p->B; b++)
        per_batch_len |= p->kv_len[b] != p->KV_S || p->q_len[b] != p->Q_S;
    p->has_bias = p->mask != NULL || p->pse != NULL || p->sparse_mode >= 2 ||
                  per_batch_len;
    int mask_per_batch = p->mask != NULL && p->mask->ndim >= 3 &&
                         p->mask->shape[0] == p->B;
    if (p->mask != NULL && p->mask->ndim == 2 && p->Q_S == 1)
        mask_per_batch = p->mask->shape[0] == p->B; /* (B, KV_S) */
    p->bias_B = per_batch_len || mask_per_batch ||
                        (p->pse != NULL && p->pse->shape[0] == p->B)
                    ? p->B
                    : 1;
    p->bias_N = p->pse != NULL ? p->N : 1;
    return FIA_OK;
}

static fia_status prepare(const fia_sut_args *a, uint64_t *ws,
                          void **executor)
{
    *executor = NULL;
    *ws = 0;
    last_error[0] = '\0';
    if (a->size < sizeof *a)
        return onednn_fail(FIA_ERR_NOT_MODELED, "an older fiacheck");
    const char *un = unsupported_input(a);
    if (un != NULL)
        return onednn_fail(FIA_ERR_NOT_MODELED, "%s is not composed here", un);
    if (a->key == NULL || a->value == NULL || a->key->count != 1 ||
        a->value->count != 1 || a->query == NULL || a->attention_out == NULL)
        return onednn_fail(FIA_ERR_NOT_MODELED, "one key and one value "
                           "tensor (no tensor lists)");
    const fia_tensor *q = a->query, *k = a->key->tensors[0],
                     *v = a->value->tensors[0], *o = a->attention_out;
    if ((q->dtype != FIA_DT_FP16 && q->dtype != FIA_DT_BF16) ||
        k->dtype != q->dtype || v->dtype != q->dtype || o->dtype != q->dtype)
        return onednn_fail(FIA_ERR_NOT_MODELED, "fp16 or bf16 query, key, "
                           "value and output of one dtype only");
    if (a->softmax_lse_flag &&
        (a->softmax_lse == NULL || a->softmax_lse->dtype != FIA_DT_FP32))
        return onednn_fail(FIA_ERR_NOT_MODELED, "softmax_lse: fp32 only");
    onednn_plan *p = calloc(1, sizeof *p);
    if (p == NULL)
        return onednn_fail(FIA_ERR_RUNTIME_ERROR, "out of memory");
    p->dt = q->dtype;
    p->scale = (float)a->scale;
    p->N = a->num_heads;
    p->KV_N = a->num_key_value_heads ? a->num_key_value_heads : a->num_heads;
    p->q = q, p->k = k, p->v = v, p->out = o;
    p->lse = a->softmax_lse_flag;
    p->lse_t = a->softmax_lse;
    if (numel(q) == 0) { /* FIA returns at once: nothing else is read */
        *executor = p;
        return FIA_OK;
    }
    fia_status st = FIA_OK;
    if (p->N <= 0 || p->KV_N <= 0 || p->N % p->KV_N != 0)
        st = onednn_fail(FIA_ERR_NOT_MODELED, "num_heads / "
                         "num_key_value_heads");
    if (st == FIA_OK) {
        p->G = p->N / p->KV_N;
        st = read_layout(a, p);
    }
    if (st == FIA_OK)
        st = read_lengths(p->Q_S > 1 ? a->actual_seq_lengths : NULL, p->B,
                          p->Q_S, &p->q_len);
    if (st == FIA_OK)
        st = read_lengths(a->actual_seq_lengths_kv, p->B, p->KV_S,
                          &p->kv_len);
    if (st == FIA_OK)
        st = read_mask_pse(a, p);
    if (st == FIA_OK) {
        p->ws = onednn_workspace(p);
        if (p->ws > ((uint64_t)1 << 31))
            st = onednn_fail(FIA_ERR_NOT_MODELED, "too large for this "
                             "composition (%llu bytes of scores)",
                             (unsigned long long)p->ws);
    }
    if (st != FIA_OK) {
        plan_free(p);
        return st;
    }
    *ws = p->ws;
    *executor = p;
    return FIA_OK;
}

static fia_status run(void *ws, uint64_t ws_size, void *executor)
{
    onednn_plan *p = executor;
    fia_status st;
    if (p == NULL)
        return onednn_fail(FIA_ERR_RUNTIME_ERROR, "no executor");
    if (ws_size < p->ws || (p->ws > 0 && ws == NULL))
        st = onednn_fail(FIA_ERR_RUNTIME_ERROR, "workspace too small");
    else
        st = onednn_execute(p, ws);
    plan_free(p);
    return st;
}

static void destroy(void *executor)
{
    plan_free(executor);
}

static const char *error_text(void)
{
    return last_error;
}

static char version[64];

static fia_sut table = {
    .abi_version = FIA_SUT_ABI_VERSION,
    .name = "onednn",
    .version = version,
    .validates = 0, /* numbers only */
    .get_workspace_size = prepare,
    .run = run,
    .destroy = destroy,
    .last_error = error_text,
};

__attribute__((visibility("default"))) const fia_sut *fiacheck_sut_v1(void);

/* The version names the composition and the oneDNN it runs on: a campaign
 * against another oneDNN is another revision. */
const fia_sut *fiacheck_sut_v1(void)
{
    const dnnl_version_t *dv = dnnl_version();
    snprintf(version, sizeof version, "%s+dnnl%d.%d.%d", ONEDNN_SUT_VERSION,
             dv->major, dv->minor, dv->patch);
    return &table;
}
