/* Reading a FIA call for ggml: the dims from the layout, the per-batch
 * lengths and left padding, the mask, pse and sink, and the refusal of
 * everything ggml_flash_attn_ext cannot express (FIA_ERR_NOT_MODELED,
 * "not covered"; docs/sut/ggml.md has the table).
 *
 * The readings are FIA's (docs/features/, a page each): lengths from
 * actual_seq_lengths(_kv), one value for every batch or one per batch;
 * left padding from element 0 of query_padding_size / kv_padding_size
 * (query scene at Q_S > 1 with actual_seq_lengths, kv scene with
 * actual_seq_lengths_kv), start = S - padding - length. */
#include <stdlib.h>
#include <string.h>
#include "ggml_plan.h"

static int64_t numel(const fia_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= t->shape[i];
    return n;
}

/* An optional tensor with no elements is as good as none (FIA reads an
 * empty mask, pse or padding tensor as absent). */
static const fia_tensor *present(const fia_tensor *t)
{
    return t != NULL && numel(t) > 0 ? t : NULL;
}

void ggml_plan_free(ggml_plan *p)
{
    if (p != NULL) {
        free(p->q_len);
        free(p->kv_len);
        free(p->q_start);
        free(p->kv_start);
        free(p);
    }
}

/* The first input this mapping does not express, or NULL. */
static const char *uncovered_input(const fia_sut_args *a)
{
    static const char *const names[] = {
        "dequant_scale1", "quant_scale1", "dequant_scale2", "quant_scale2",
        "quant_offset2", "antiquant_scale", "antiquant_offset",
        "block_table", "key_antiquant_scale", "key_antiquant_offset",
        "value_antiquant_scale", "value_antiquant_offset",
        "key_shared_prefix", "value_shared_prefix", "query_rope", "key_rope",
        "dequant_scale_query"};
    const fia_tensor *t[] = {
        a->dequant_scale1, a->quant_scale1, a->dequant_scale2,
        a->quant_scale2, a->quant_offset2, a->antiquant_scale,
        a->antiquant_offset, a->block_table, a->key_antiquant_scale,
        a->key_antiquant_offset, a->value_antiquant_scale,
        a->value_antiquant_offset, a->key_shared_prefix,
        a->value_shared_prefix, a->query_rope, a->key_rope,
        a->dequant_scale_query};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i] != NULL)
            return names[i];
    if (a->actual_shared_prefix_len != NULL)
        return "actual_shared_prefix_len";
    if (a->out_dtype != NULL)
        return "out_dtype";
    return NULL;
}

/* B, S, N, D of the query and key from the layout; the strides follow. */
static fia_status read_layout(const fia_sut_args *a, ggml_plan *p)
{
    const fia_tensor *q = a->query, *k = a->key->tensors[0],
                     *v = a->value->tensors[0];
    const char *lay = a->input_layout ? a->input_layout : "BSH";
    if (strcmp(lay, "BNSD") == 0 || strcmp(lay, "BNSD_BSND") == 0) {
        if (q->ndim != 4 || k->ndim != 4)
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "%s wants 4-D", lay);
        p->B = q->shape[0], p->Q_S = q->shape[2], p->D = q->shape[3];
        p->KV_S = k->shape[2];
        if (q->shape[1] != p->N || k->shape[1] != p->KV_N ||
            k->shape[3] != p->D)
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "%s heads / D", lay);
        p->bnsd_in = 1;
        p->bnsd_out = strcmp(lay, "BNSD") == 0;
    } else if (strcmp(lay, "BSND") == 0) {
        if (q->ndim != 4 || k->ndim != 4)
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "BSND wants 4-D");
        p->B = q->shape[0], p->Q_S = q->shape[1], p->D = q->shape[3];
        p->KV_S = k->shape[1];
        if (q->shape[2] != p->N || k->shape[2] != p->KV_N ||
            k->shape[3] != p->D)
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "BSND heads / D");
    } else if (strcmp(lay, "BSH") == 0) {
        if (q->ndim != 3 || k->ndim != 3 || q->shape[2] % p->N != 0)
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "BSH shapes");
        p->B = q->shape[0], p->Q_S = q->shape[1];
        p->D = q->shape[2] / p->N;
        p->KV_S = k->shape[1];
        if (k->shape[2] != p->KV_N * p->D)
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "BSH hidden sizes");
    } else {
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "layout %s: BSH, BSND, "
                             "BNSD and BNSD_BSND only (token layouts are "
                             "not mapped)", lay);
    }
    if (v->ndim != k->ndim)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "key and value ranks");
    for (int i = 0; i < k->ndim; i++)
        if (v->shape[i] != k->shape[i])
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "key and value shapes "
                                 "differ");
    if (p->B <= 0 || p->D <= 0)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "an empty batch or D");
    return FIA_OK;
}

/* Lengths from an array of one value or of at least B; none: S. */
static fia_status read_lengths(const fia_int_array *arr, int64_t B,
                               int64_t S, int64_t **out)
{
    int64_t *len = malloc((size_t)B * sizeof *len);
    *out = len;
    if (len == NULL)
        return ggml_sut_fail(FIA_ERR_RUNTIME_ERROR, "out of memory");
    for (int64_t b = 0; b < B; b++) {
        int64_t v = S;
        if (arr != NULL && arr->count > 0)
            v = arr->values[arr->count == 1 ? 0 : b];
        if (v < 0 || v > S)
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "a sequence length "
                                 "out of [0, %lld]", (long long)S);
        len[b] = v;
    }
    return FIA_OK;
}

/* Physical start of each batch's rows: S - padding - length in a
 * left-padding scene (padding below 0 read as 0), 0 otherwise.  A start
 * below 0 is not covered: FIA gives zeros (decode) or nothing defined. */
static fia_status read_starts(const fia_tensor *pad, int scene, int64_t B,
                              int64_t S, const int64_t *len, int64_t **out)
{
    int64_t *st = calloc((size_t)B, sizeof *st);
    *out = st;
    if (st == NULL)
        return ggml_sut_fail(FIA_ERR_RUNTIME_ERROR, "out of memory");
    if (!scene)
        return FIA_OK;
    if (pad->dtype != FIA_DT_INT64 || pad->data == NULL)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "padding size dtype");
    int64_t pv = ((const int64_t *)pad->data)[0];
    if (pv < 0)
        pv = 0;
    for (int64_t b = 0; b < B; b++) {
        if (pv > S - len[b])
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "left padding starts "
                                 "before the tensor (batch %lld)",
                                 (long long)b);
        st[b] = S - pv - len[b];
    }
    return FIA_OK;
}

/* The mask's and pse's shapes as FIA admits them (docs/features/mask.md,
 * pse.md); dtypes bool / int8 / uint8 (nonzero excludes). */
static fia_status read_mask_pse(const fia_sut_args *a, ggml_plan *p)
{
    const fia_tensor *m = present(a->atten_mask), *s = present(a->pse_shift);
    p->atten_mask = m, p->pse = s;
    if (m != NULL) {
        if (m->dtype != FIA_DT_BOOL && m->dtype != FIA_DT_UINT8 &&
            m->dtype != FIA_DT_INT8)
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "mask dtype");
        if (m->ndim < 2 || m->ndim > 4 || m->data == NULL ||
            m->shape[m->ndim - 1] < p->KV_S ||
            (p->Q_S > 1 && m->shape[m->ndim - 2] < p->Q_S) ||
            ((m->ndim > 2 || p->Q_S == 1) && m->shape[0] != 1 &&
             m->shape[0] != p->B))
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "mask shape");
    }
    if (s != NULL) {
        if (s->dtype != FIA_DT_FP16 && s->dtype != FIA_DT_BF16)
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "pse dtype");
        if (s->ndim != 4 || s->data == NULL || s->shape[1] != p->N ||
            (s->shape[0] != 1 && s->shape[0] != p->B) ||
            s->shape[3] < p->KV_S || (p->Q_S > 1 && s->shape[2] < p->Q_S))
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "pse shape");
        if (!ggml_pse_representable(p))
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "a pse value that "
                                 "ggml's float16 mask does not carry (not "
                                 "finite, or not a float16)");
    }
    /* Q_S = 1 is the decode path: sparse mode and band have no effect */
    p->sparse_mode = p->Q_S > 1 ? a->sparse_mode : 0;
    p->pre_tokens = a->pre_tokens, p->next_tokens = a->next_tokens;
    if (p->sparse_mode < 0 || p->sparse_mode > 4)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "sparse_mode %lld",
                             (long long)p->sparse_mode);
    int padded = 0, short_len = 0;
    for (int64_t b = 0; b < p->B; b++) {
        padded |= p->q_start[b] != 0 || p->kv_start[b] != 0;
        short_len |= p->q_len[b] != p->Q_S || p->kv_len[b] != p->KV_S;
    }
    p->band_ignored = p->sparse_mode == 0 && m != NULL && padded;
    p->has_mask = m != NULL || s != NULL || p->sparse_mode >= 2 ||
                  short_len || padded;
    p->mask_per_head = s != NULL;
    return FIA_OK;
}

static fia_status read_sink(const fia_sut_args *a, ggml_plan *p)
{
    const fia_tensor *t = a->learnable_sink;
    p->sink = t;
    if (t == NULL)
        return FIA_OK;
    if (t->dtype != FIA_DT_BF16 || t->ndim != 1 || t->shape[0] != p->N ||
        t->data == NULL)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "learnable_sink: bf16 [N]");
    return FIA_OK;
}

fia_status ggml_read_call(const fia_sut_args *a, ggml_plan *p)
{
    const char *un = uncovered_input(a);
    if (un != NULL)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "%s is not mapped to ggml",
                             un);
    if (a->query == NULL || a->attention_out == NULL || a->key == NULL ||
        a->value == NULL || a->key->count != 1 || a->value->count != 1)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "one key and one value "
                             "tensor (no tensor lists)");
    const fia_tensor *q = a->query, *k = a->key->tensors[0],
                     *v = a->value->tensors[0], *o = a->attention_out;
    if ((q->dtype != FIA_DT_FP16 && q->dtype != FIA_DT_BF16) ||
        k->dtype != q->dtype || v->dtype != q->dtype || o->dtype != q->dtype)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "fp16 or bf16 query, key, "
                             "value and output of one dtype");
    if (a->softmax_lse_flag)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "softmax_lse: "
                             "ggml_flash_attn_ext gives no log-sum-exp");
    p->dt = q->dtype;
    p->scale = (float)a->scale;
    p->N = a->num_heads;
    p->KV_N = a->num_key_value_heads ? a->num_key_value_heads : a->num_heads;
    p->q = q, p->k = k, p->v = v, p->out = o;
    if (p->N <= 0 || p->KV_N <= 0 || p->N % p->KV_N != 0)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "num_heads / "
                             "num_key_value_heads");
    fia_status st = read_layout(a, p);
    if (st == FIA_OK)
        st = read_lengths(p->Q_S > 1 ? a->actual_seq_lengths : NULL, p->B,
                          p->Q_S, &p->q_len);
    if (st == FIA_OK)
        st = read_lengths(a->actual_seq_lengths_kv, p->B, p->KV_S,
                          &p->kv_len);
    const fia_tensor *qpad = present(a->query_padding_size),
                     *kvpad = present(a->kv_padding_size);
    if (st == FIA_OK)
        st = read_starts(qpad, qpad != NULL && p->Q_S > 1 &&
                                   a->actual_seq_lengths != NULL,
                         p->B, p->Q_S, p->q_len, &p->q_start);
    if (st == FIA_OK)
        st = read_starts(kvpad, kvpad != NULL &&
                                    a->actual_seq_lengths_kv != NULL,
                         p->B, p->KV_S, p->kv_len, &p->kv_start);
    if (st == FIA_OK)
        st = read_mask_pse(a, p);
    if (st == FIA_OK)
        st = read_sink(a, p);
    if (st == FIA_OK && (double)p->B * p->Q_S * p->KV_S *
                                (p->mask_per_head ? p->N : 1) >
                            (double)(1 << 28))
        st = ggml_sut_fail(FIA_ERR_NOT_MODELED, "the float16 mask would "
                           "exceed 512 MiB");
    if (st == FIA_OK && p->widen_kv &&
        (double)p->B * p->KV_N * p->KV_S * p->D > (double)(1 << 27))
        st = ggml_sut_fail(FIA_ERR_NOT_MODELED, "the float32 copies of key "
                           "and value would exceed 1 GiB");
    return st;
}
