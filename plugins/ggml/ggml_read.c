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
        free(p->q_tok);
        free(p->kv_tok);
        free(p);
    }
}

/* The first input this mapping does not express, or NULL. */
static const char *uncovered_input(const fia_sut_args *a)
{
    static const char *const names[] = {
        "dequant_scale1", "quant_scale1", "dequant_scale2", "quant_scale2",
        "quant_offset2", "antiquant_scale", "antiquant_offset",
        "key_antiquant_scale", "key_antiquant_offset",
        "value_antiquant_scale", "value_antiquant_offset",
        "dequant_scale_query"};
    const fia_tensor *t[] = {
        a->dequant_scale1, a->quant_scale1, a->dequant_scale2,
        a->quant_scale2, a->quant_offset2, a->antiquant_scale,
        a->antiquant_offset, a->key_antiquant_scale,
        a->key_antiquant_offset, a->value_antiquant_scale,
        a->value_antiquant_offset, a->dequant_scale_query};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i] != NULL)
            return names[i];
    if (a->out_dtype != NULL)
        return "out_dtype";
    return NULL;
}

/* The input layout (before any "_") and the output's: BSH, BSND, BNSD,
 * BNSD_BSND, and MLA's *_NBSD (attention_out (N, B, Q_S, D)). */
static fia_status read_layout_name(const fia_sut_args *a, ggml_plan *p,
                                   char in[8])
{
    const char *lay = a->input_layout ? a->input_layout : "BSH";
    static const char *const known[] = {"BSH", "BSND", "BNSD", "BNSD_BSND",
                                        "BSH_NBSD", "BSND_NBSD", "BNSD_NBSD"};
    size_t i = 0;
    while (i < sizeof known / sizeof known[0] && strcmp(lay, known[i]) != 0)
        i++;
    if (i == sizeof known / sizeof known[0])
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "layout %s: BSH, BSND, "
                             "BNSD, BNSD_BSND and *_NBSD only (token layouts "
                             "are not mapped)", lay);
    size_t n = strcspn(lay, "_");
    memcpy(in, lay, n);
    in[n] = '\0';
    p->bnsd_in = strcmp(in, "BNSD") == 0;
    p->bnsd_out = strcmp(lay, "BNSD") == 0;
    p->nbsd_out = strstr(lay, "_NBSD") != NULL;
    return FIA_OK;
}

/* B, S, N, D of the query from the layout, then the keys' geometry: a
 * paged cache, a list, or one tensor of the layout (strided views). */
static fia_status read_layout(const fia_sut_args *a, ggml_plan *p)
{
    const fia_tensor *q = a->query, *k = a->key->tensors[0],
                     *v = a->value->tensors[0];
    char lay[8];
    fia_status st = ggml_read_tnd(a, p);
    if (st != FIA_OK || p->tnd)
        return st;
    st = read_layout_name(a, p, lay);
    if (st != FIA_OK)
        return st;
    const int bsh = strcmp(lay, "BSH") == 0;
    if (q->ndim != (bsh ? 3 : 4) || (bsh && q->shape[2] % p->N != 0))
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "%s query shape", lay);
    p->B = q->shape[0];
    p->Q_S = q->shape[p->bnsd_in ? 2 : 1];
    p->D = bsh ? q->shape[2] / p->N : q->shape[3];
    p->Dv = p->D;
    if (!bsh && q->shape[p->bnsd_in ? 1 : 2] != p->N)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "%s query heads", lay);
    if (p->B <= 0 || p->D <= 0)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "an empty batch or D");
    if (a->block_table != NULL)
        return a->key->count == 1 && a->value->count == 1
                   ? ggml_read_paged(a, p)
                   : ggml_sut_fail(FIA_ERR_NOT_MODELED, "page attention "
                                   "with a list");
    if (a->key->count > 1 || a->value->count > 1)
        return ggml_read_list(a, p);
    if (k->ndim != q->ndim)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "%s key rank", lay);
    if (bsh ? k->shape[2] != p->KV_N * p->D
            : k->shape[p->bnsd_in ? 1 : 2] != p->KV_N || k->shape[3] != p->D)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "%s key heads / D", lay);
    if (k->shape[0] != p->B)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "key batch");
    p->own_S = k->shape[p->bnsd_in ? 2 : 1];
    if (v->ndim != k->ndim)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "key and value ranks");
    for (int i = 0; i < k->ndim; i++)
        if (v->shape[i] != k->shape[i])
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "key and value shapes "
                                 "differ");
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
    /* an array of 2 .. B-1 values is read by no rule (FIA accepts one
     * only where nothing reads it: an empty query) */
    if (arr != NULL && arr->count > 1 && arr->count < B)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "a length array of "
                             "%lld values for %lld batches",
                             (long long)arr->count, (long long)B);
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
    /* Q_S = 1 is the decode path: sparse mode and band have no effect
     * (not in a token layout: it has no decode path) */
    p->sparse_mode = p->Q_S > 1 || p->tnd ? a->sparse_mode : 0;
    /* modes 2-4: the compressed mask's bits are never read (ggml_mask.c) */
    if (m != NULL && p->sparse_mode <= 1) {
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
    p->pre_tokens = a->pre_tokens, p->next_tokens = a->next_tokens;
    if (p->sparse_mode < 0 || p->sparse_mode > 4)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "sparse_mode %lld",
                             (long long)p->sparse_mode);
    int padded = 0, short_len = 0;
    for (int64_t b = 0; b < p->B; b++) {
        padded |= p->q_start[b] != 0 || p->kv_start[b] != 0;
        short_len |= p->q_len[b] != p->Q_S || p->kv_len[b] != p->KV_S;
    }
    p->band_ignored = p->sparse_mode == 0 && m != NULL && p->pad_scene;
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

/* The lengths: the query's (Q_S > 1 only: decode has one row), the
 * keys' own (bounded by their S: a paged cache's reach, a list's largest
 * tensor), then the geometry they fix (a paged KV_S) and the prefix in
 * front: KV_S and kv_len count its P keys from here on. */
static fia_status read_all_lengths(const fia_sut_args *a, ggml_plan *p)
{
    fia_status st = FIA_OK; /* a token layout's: ggml_read_tnd */
    if (!p->tnd)
        st = read_lengths(p->Q_S > 1 ? a->actual_seq_lengths : NULL, p->B,
                          p->Q_S, &p->q_len);
    if (st == FIA_OK && !p->tnd)
        st = read_lengths(a->actual_seq_lengths_kv, p->B, p->own_S,
                          &p->kv_len);
    if (st == FIA_OK && p->paged)
        st = ggml_read_paged_lengths(a, p);
    if (st == FIA_OK && p->klist != NULL)
        st = ggml_read_list_lengths(a, p);
    if (st == FIA_OK)
        st = ggml_read_prefix(a, p);
    if (st != FIA_OK)
        return st;
    p->KV_S = p->P + p->own_S;
    for (int64_t b = 0; b < p->B; b++)
        p->kv_len[b] += p->P;
    return FIA_OK;
}

/* Left padding: the query's scene at Q_S > 1 with actual_seq_lengths,
 * the keys' with actual_seq_lengths_kv, which page attention and lists
 * ignore at Q_S = 1 (PAD-N03).  Gathered keys start at 0: kv padding with
 * them (a list at Q_S > 1), or any padding with a prefix or a paged cache
 * (both documented exclusions), is refused. */
static fia_status read_padding(const fia_sut_args *a, ggml_plan *p)
{
    const fia_tensor *qpad = present(a->query_padding_size),
                     *kvpad = present(a->kv_padding_size);
    const int q_scene = qpad != NULL && p->Q_S > 1 &&
                        a->actual_seq_lengths != NULL;
    int kv_scene = kvpad != NULL && a->actual_seq_lengths_kv != NULL;
    if (kv_scene && p->Q_S == 1 && (p->paged || p->klist != NULL))
        kv_scene = 0;
    if ((kv_scene && p->gather) ||
        (q_scene && (p->paged || p->kp != NULL)))
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "left padding with "
                             "gathered keys (paged, list or prefix)");
    p->pad_scene = q_scene || kv_scene;
    fia_status st = read_starts(qpad, q_scene, p->B, p->Q_S, p->q_len,
                                &p->q_start);
    if (st == FIA_OK)
        st = read_starts(kvpad, kv_scene, p->B, p->KV_S, p->kv_len,
                         &p->kv_start);
    return st;
}

fia_status ggml_read_call(const fia_sut_args *a, ggml_plan *p)
{
    const char *un = uncovered_input(a);
    if (un != NULL)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "%s is not mapped to ggml",
                             un);
    if (a->query == NULL || a->attention_out == NULL || a->key == NULL ||
        a->value == NULL || a->key->count < 1 || a->value->count < 1 ||
        a->key->tensors[0] == NULL || a->value->tensors[0] == NULL)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "no key or value");
    const fia_tensor *q = a->query, *k = a->key->tensors[0],
                     *v = a->value->tensors[0], *o = a->attention_out;
    if ((q->dtype != FIA_DT_FP16 && q->dtype != FIA_DT_BF16) ||
        k->dtype != q->dtype || v->dtype != q->dtype || o->dtype != q->dtype)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "fp16 or bf16 query, key, "
                             "value and output of one dtype");
    if (a->softmax_lse_flag)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "softmax_lse: "
                             "ggml_flash_attn_ext gives no log-sum-exp");
    /* An empty query returns at once in FIA, whatever else the call says
     * (nothing after this is read: lengths or shapes that no rule checks
     * there would be read out of bounds); the plan computes nothing
     * (Q_S 0). */
    if (numel(q) == 0)
        return FIA_OK;
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
        st = ggml_read_rope(a, p);
    if (st == FIA_OK && p->nbsd_out && p->Dr == 0)
        st = ggml_sut_fail(FIA_ERR_NOT_MODELED, "an NBSD output without "
                           "rope");
    if (st == FIA_OK)
        st = read_all_lengths(a, p);
    if (st == FIA_OK)
        st = read_padding(a, p);
    if (st == FIA_OK)
        st = read_mask_pse(a, p);
    if (st == FIA_OK)
        st = read_sink(a, p);
    for (int64_t b = 0; st == FIA_OK && b < p->B; b++)
        if (p->kv_start[b] + p->kv_len[b] > p->KV_use)
            p->KV_use = p->kv_start[b] + p->kv_len[b];
    if (st == FIA_OK && !ggml_scores_mappable(p))
        st = ggml_sut_fail(FIA_ERR_NOT_MODELED, "a +inf score (an infinite "
                           "query or key element): ggml gives that key's "
                           "value, FIA's IEEE reading NaN");
    if (st == FIA_OK && (double)p->B * p->Q_S * p->KV_use *
                                (p->mask_per_head ? p->N : 1) >
                            (double)(1 << 28))
        st = ggml_sut_fail(FIA_ERR_NOT_MODELED, "the float16 mask would "
                           "exceed 512 MiB");
    const double kv_elems =
        (double)p->B * p->KV_N * p->KV_S * (p->D + p->Dr + p->Dv);
    if (st == FIA_OK && p->gather && kv_elems > (double)(1 << 29))
        st = ggml_sut_fail(FIA_ERR_NOT_MODELED, "the gathered key and value "
                           "would exceed 1 GiB");
    if (st == FIA_OK && p->widen_kv && kv_elems > (double)(1 << 28))
        st = ggml_sut_fail(FIA_ERR_NOT_MODELED, "the float32 copies of key "
                           "and value would exceed 1 GiB");
    return st;
}
