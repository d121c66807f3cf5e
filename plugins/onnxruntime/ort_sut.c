/* ONNX Runtime's CPU com.microsoft.GroupQueryAttention (GQA) as a
 * numbers-only fiacheck plug-in (include/fia/sut.h, validates = 0).
 *
 * GQA is causal attention over a KV cache: each batch's S query rows are
 * the LAST S positions of its total length seqlens_k[b] + 1, its keys the
 * past cache (BNSH) followed by the S new tokens.  An FIA call maps onto it
 * when its key set per row is that one: right-down causal (sparse_mode 3),
 * left-up causal with q_len = kv_len (sparse 2), the band of sparse_mode 4
 * with next_tokens 0 (GQA's local_window_size), and the decode path
 * (Q_S = 1, every key up to actual_seq_lengths_kv).  Batch b's keys are
 * split at kv_len - q_len: the first part is its past, the rest its new
 * tokens, padded with zero keys up to S (they are seen only by FIA's
 * padding rows, q_len <= i < S, whose outputs are unspecified).  pse_shift
 * and the decode path's atten_mask become attention_bias (-inf where the
 * mask excludes), learnable_sink head_sink.  Every other key set (sparse
 * 0/1 with a mask, sparse 0 without one, sparse 2 and 4 where they are not
 * GQA's pattern, rows with no key) runs GQA with causal = 0 and the key
 * set as attention_bias (ort_pattern.c).  A paged cache is gathered
 * through its block table, a head dim not a multiple of 8 padded with zero
 * columns.  docs/sut/onnxruntime.md has
 * the feature table; everything else is refused with FIA_ERR_NOT_MODELED
 * and the reason.
 *
 * It links libonnxruntime (through its C API, declared in ort_plan.h) and
 * nothing of fiacheck's but the header's types. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "ort_plan.h"

#ifndef ORT_SUT_VERSION
#define ORT_SUT_VERSION "1.1"
#endif

static _Thread_local char last_error[400];

fia_status ort_fail(fia_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return st;
}

#define REFUSE(...) ort_fail(FIA_ERR_NOT_MODELED, __VA_ARGS__)

void ort_plan_free(ort_plan *p);

/* The first optional input GQA has no counterpart for, or NULL. */
static const char *unmapped_input(const fia_sut_args *a)
{
    static const char *const names[] = {
        "dequant_scale1", "quant_scale1", "dequant_scale2", "quant_scale2",
        "quant_offset2", "antiquant_scale", "antiquant_offset",
        "query_padding_size", "kv_padding_size",
        "key_antiquant_scale", "key_antiquant_offset",
        "value_antiquant_scale", "value_antiquant_offset",
        "key_shared_prefix", "value_shared_prefix", "query_rope", "key_rope",
        "dequant_scale_query"};
    const fia_tensor *t[] = {
        a->dequant_scale1, a->quant_scale1, a->dequant_scale2,
        a->quant_scale2, a->quant_offset2, a->antiquant_scale,
        a->antiquant_offset, a->query_padding_size,
        a->kv_padding_size, a->key_antiquant_scale, a->key_antiquant_offset,
        a->value_antiquant_scale, a->value_antiquant_offset,
        a->key_shared_prefix, a->value_shared_prefix, a->query_rope,
        a->key_rope, a->dequant_scale_query};
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

static const fia_tensor *present(const fia_tensor *t)
{
    return t != NULL && numel(t) > 0 ? t : NULL;
}

static fia_status read_paged(const fia_sut_args *a, ort_plan *p, int rank,
                             int s_dim);

static fia_status read_layout(const fia_sut_args *a, ort_plan *p)
{
    const fia_tensor *q = a->query, *k = a->key->tensors[0],
                     *v = a->value->tensors[0];
    const char *lay = a->input_layout ? a->input_layout : "BSH";
    int s_dim; /* where S sits: 1 (BS..) or 2 (BN..) */
    if (strcasecmp(lay, "BNSD") == 0 || strcasecmp(lay, "BNSD_BSND") == 0) {
        p->bnsd_in = 1, p->bnsd_out = strcasecmp(lay, "BNSD") == 0, s_dim = 2;
    } else if (strcasecmp(lay, "BSND") == 0 || strcasecmp(lay, "BSH") == 0) {
        s_dim = 1;
    } else {
        return REFUSE("layout %s: GQA takes (B, S, N*D); BSH, BSND, BNSD "
                      "and BNSD_BSND are mapped", lay);
    }
    int rank = strcasecmp(lay, "BSH") == 0 ? 3 : 4;
    if (a->block_table != NULL)
        return read_paged(a, p, rank, s_dim);
    if (q->ndim != rank || k->ndim != rank || v->ndim != rank)
        return REFUSE("%s wants %d-D query, key and value", lay, rank);
    for (int i = 0; i < rank; i++)
        if (v->shape[i] != k->shape[i])
            return REFUSE("key and value shapes differ");
    p->B = q->shape[0], p->S = q->shape[s_dim], p->KV_S = k->shape[s_dim];
    if (rank == 3) {
        p->D = p->N > 0 ? q->shape[2] / p->N : 0;
        if (q->shape[2] != p->N * p->D || k->shape[2] != p->KV_N * p->D)
            return REFUSE("BSH hidden sizes");
    } else {
        int n_dim = 3 - s_dim;
        p->D = q->shape[3];
        if (q->shape[n_dim] != p->N || k->shape[n_dim] != p->KV_N ||
            k->shape[3] != p->D)
            return REFUSE("%s heads or head dims", lay);
    }
    if (k->shape[0] != p->B)
        return REFUSE("key batch");
    return FIA_OK;
}

/* Page attention (a block_table, even empty): the query as its layout
 * says, key and value one cache each, (blocknum, block_size, KV_N*D) or
 * (blocknum, KV_N, block_size, D).  KV_S is provisionally the table's
 * reach (its columns * block_size); paged_lengths narrows it. */
static fia_status read_paged(const fia_sut_args *a, ort_plan *p, int rank,
                             int s_dim)
{
    const fia_tensor *q = a->query, *k = a->key->tensors[0],
                     *v = a->value->tensors[0], *t = a->block_table;
    if (q->ndim != rank)
        return REFUSE("%d-D query", rank);
    if (k->ndim != v->ndim || (k->ndim != 3 && k->ndim != 4))
        return REFUSE("the paged cache's rank");
    for (int i = 0; i < k->ndim; i++)
        if (v->shape[i] != k->shape[i])
            return REFUSE("key and value shapes differ");
    if (t->dtype != FIA_DT_INT32 || t->ndim != 2 || a->block_size <= 0)
        return REFUSE("block_table / block_size");
    p->B = q->shape[0], p->S = q->shape[s_dim];
    p->D = rank == 3 ? (p->N > 0 ? q->shape[2] / p->N : 0) : q->shape[3];
    if ((rank == 3 && q->shape[2] != p->N * p->D) ||
        (rank == 4 && q->shape[3 - s_dim] != p->N))
        return REFUSE("query heads or head dims");
    p->paged_rank = k->ndim;
    p->block_size = a->block_size;
    p->blocknum = k->shape[0];
    if (k->ndim == 3 ? k->shape[1] != p->block_size ||
                           k->shape[2] != p->KV_N * p->D
                     : k->shape[1] != p->KV_N ||
                           k->shape[2] != p->block_size || k->shape[3] != p->D)
        return REFUSE("the paged cache's dims");
    if (t->shape[0] < p->B || (p->B > 0 && t->data == NULL && t->shape[1] > 0))
        return REFUSE("block_table rows");
    p->table = t->data;
    p->table_cols = t->shape[1];
    p->KV_S = p->table_cols * p->block_size;
    return FIA_OK;
}

/* KV_S of a paged call is max_b ceil(kv_len / block_size) * block_size;
 * every block id a batch reads must lie in the cache (an id outside it
 * leaves the result unspecified: not covered, and never read). */
static fia_status paged_lengths(ort_plan *p)
{
    int64_t nb_max = 0;
    for (int64_t b = 0; b < p->B; b++) {
        int64_t nb = (p->kv_len[b] + p->block_size - 1) / p->block_size;
        nb_max = nb > nb_max ? nb : nb_max;
        for (int64_t i = 0; i < nb; i++) {
            int32_t id = p->table[b * p->table_cols + i];
            if (id < 0 || id >= p->blocknum)
                return REFUSE("block id %ld of batch %lld is outside the "
                              "cache", (long)id, (long long)b);
        }
    }
    p->KV_S = nb_max * p->block_size;
    return FIA_OK;
}

/* 002 actualSeqLengths: one value for all batches or at least B. */
static fia_status read_lengths(const fia_int_array *arr, int64_t B,
                               int64_t S, int64_t *len)
{
    /* an array of 2 .. B-1 values is read by no rule (FIA accepts one
     * only where nothing reads it: an empty query) */
    if (arr != NULL && arr->count > 1 && arr->count < B)
        return REFUSE("a length array of %lld values for %lld batches",
                      (long long)arr->count, (long long)B);
    for (int64_t b = 0; b < B; b++) {
        int64_t v = S;
        if (arr != NULL && arr->count > 0)
            v = arr->values[arr->count == 1 ? 0 : b];
        if (v < 0 || v > S)
            return REFUSE("a sequence length out of [0, %lld]",
                          (long long)S);
        len[b] = v;
    }
    return FIA_OK;
}

/* Which keys each row sees, as GQA's causal pattern with its window (-1
 * none, else local_window_size), or *explicit = 1 when it is not that
 * pattern (then ort_pattern.c gives the key set as attention_bias). */
static fia_status read_pattern(const fia_sut_args *a, ort_plan *p,
                               int *explicit)
{
    int64_t window = -1, max_kv = 0;
    for (int64_t b = 0; b < p->B; b++)
        max_kv = p->kv_len[b] > max_kv ? p->kv_len[b] : max_kv;
    if (p->S > 1) {
        int64_t mode = a->sparse_mode;
        int equal = 1, single = 1;
        for (int64_t b = 0; b < p->B; b++) {
            equal &= p->q_len[b] == p->kv_len[b];
            single &= p->q_len[b] <= 1;
        }
        if (mode < 0 || mode > 4)
            return REFUSE("sparse_mode %lld", (long long)mode);
        /* sparse 0/1 with a mask, 0 without one (unless every row is
         * its batch's last), 2 left-up where it is not right-down */
        if ((p->mask != NULL && mode <= 1) || (mode == 0 && !single) ||
            (mode == 2 && !equal))
            *explicit = 1;
        if (mode == 4) {
            /* FIA: i + off - pre <= j <= i + off + next; GQA's window
             * (1.30 CPU) keeps local_window_size keys ending at the
             * diagonal, the diagonal included: pre_tokens + 1 */
            if (a->next_tokens != 0 || a->pre_tokens < 0)
                *explicit = 1;
            else if (a->pre_tokens < max_kv)
                window = a->pre_tokens + 1;
        }
    }
    p->sig.local_window_size = window;
    return FIA_OK;
}

/* 1 when the pse values the call can read (rows < S, columns < KV_S)
 * hold an inf or a NaN. */
static int pse_nonfinite(const fia_tensor *e, int64_t S, int64_t KV_S)
{
    const uint16_t exp = e->dtype == FIA_DT_BF16 ? 0x7f80u : 0x7c00u;
    const uint16_t *x = e->data;
    if (x == NULL)
        return 0;
    const int64_t rows = e->shape[2], cols = e->shape[3];
    for (int64_t bn = 0; bn < e->shape[0] * e->shape[1]; bn++)
        for (int64_t r = 0; r < (S > 1 ? S : 1); r++)
            for (int64_t c = 0; c < KV_S; c++)
                if ((x[(bn * rows + r) * cols + c] & exp) == exp)
                    return 1;
    return 0;
}

static fia_status read_bias_sink(const fia_sut_args *a, ort_plan *p)
{
    /* at Q_S > 1 the mask of sparse 2-4 is the pattern (read_pattern),
     * that of sparse 0/1 the explicit pattern's (ort_pattern.c) */
    if (p->S > 1 || p->explicit_pattern)
        p->mask = NULL;
    const fia_tensor *m = p->mask, *e = p->pse;
    if (m != NULL) {
        if (m->dtype != FIA_DT_BOOL && m->dtype != FIA_DT_UINT8 &&
            m->dtype != FIA_DT_INT8)
            return REFUSE("mask dtype");
        if (m->ndim < 2 || m->ndim > 4 || m->shape[m->ndim - 1] < p->KV_S ||
            (m->shape[0] != 1 && m->shape[0] != p->B))
            return REFUSE("mask shape");
    }
    if (e != NULL) {
        if (e->dtype != p->q->dtype || e->ndim != 4 || e->shape[1] != p->N ||
            (e->shape[0] != 1 && e->shape[0] != p->B) ||
            e->shape[3] < p->KV_S || e->shape[2] < p->S)
            return REFUSE("pse_shift shape or dtype");
        /* a -inf bias is a score to FIA (weight 0 times the value; a row
         * of them is NaN) and GQA's guard makes such a row 0: as for
         * non-finite query and key elements (plan_call) */
        if (pse_nonfinite(e, p->S, p->KV_S))
            return REFUSE("an inf or NaN in pse_shift: GQA's softmax guards "
                          "a row of -inf scores (0, not IEEE's NaN)");
    }
    p->sig.has_bias = m != NULL || e != NULL || p->explicit_pattern;
    /* the explicit pattern depends on the batch's lengths */
    p->bias_b = ((m != NULL && m->shape[0] == p->B) ||
                 (e != NULL && e->shape[0] == p->B) || p->explicit_pattern) &&
                        p->B > 1
                    ? p->B
                    : 1;
    p->bias_n = e != NULL ? p->N : 1;

    p->sink = present(a->learnable_sink);
    if (p->sink != NULL) {
        if (p->sink->dtype != FIA_DT_BF16 || p->sink->ndim != 1 ||
            p->sink->shape[0] != p->N)
            return REFUSE("learnable_sink shape or dtype");
        /* an fp16 call takes head_sink in fp16: only exact conversions */
        if (!p->wide && p->q->dtype == FIA_DT_FP16 && p->sink->data != NULL) {
            const uint16_t *s = p->sink->data;
            for (int64_t n = 0; n < p->N; n++) {
                uint32_t u = (uint32_t)s[n] << 16;
                float f;
                memcpy(&f, &u, sizeof f);
                if (isfinite(f) && (fabsf(f) > 65504.0f ||
                                    (f != 0 && fabsf(f) < 0x1p-14f)))
                    return REFUSE("learnable_sink value %g is not an fp16 "
                                  "value (GQA's head_sink is the query's "
                                  "dtype)", (double)f);
            }
        }
        p->sig.has_sink = 1;
    }
    return FIA_OK;
}

/* 1 when rows [0, len[b]) of batch b of a (B, S, heads, D) or (B,
 * heads, S, D) tensor of float16 / bfloat16 hold an inf or a NaN: the
 * query rows and keys that take part in some row (an excluded key's
 * non-finite data is what the other findings are about, and stays
 * covered). */
static int rows_nonfinite(const fia_tensor *t, int bnsd, int64_t B,
                          int64_t S, int64_t heads, int64_t D,
                          const int64_t *len)
{
    const uint16_t exp = t->dtype == FIA_DT_BF16 ? 0x7f80u : 0x7c00u;
    const uint16_t *x = t->data;
    if (x == NULL)
        return 0;
    for (int64_t b = 0; b < B; b++)
        for (int64_t n = 0; n < heads; n++)
            for (int64_t s = 0; s < len[b]; s++) {
                const uint16_t *row =
                    x + (bnsd ? ((b * heads + n) * S + s) * D
                              : ((b * S + s) * heads + n) * D);
                for (int64_t d = 0; d < D; d++)
                    if ((row[d] & exp) == exp)
                        return 1;
            }
    return 0;
}

/* The same for the keys that take part (j < kv_len), wherever they live
 * (layout or paged cache). */
static int keys_nonfinite(const ort_plan *p)
{
    const uint16_t exp = p->k->dtype == FIA_DT_BF16 ? 0x7f80u : 0x7c00u;
    const uint16_t *x = p->k->data;
    if (x == NULL)
        return 0;
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t n = 0; n < p->KV_N; n++)
            for (int64_t j = 0; j < p->kv_len[b]; j++)
                for (int64_t d = 0; d < p->D; d++)
                    if ((x[ort_kv_at(p, b, j, n, d)] & exp) == exp)
                        return 1;
    return 0;
}

static fia_status plan_call(const fia_sut_args *a, ort_plan *p)
{
    const fia_tensor *q = a->query, *k = a->key->tensors[0],
                     *v = a->value->tensors[0], *o = a->attention_out;
    if ((q->dtype != FIA_DT_FP16 && q->dtype != FIA_DT_BF16) ||
        k->dtype != q->dtype || v->dtype != q->dtype || o->dtype != q->dtype)
        return REFUSE("fp16 or bf16 query, key, value and output of one "
                      "dtype only (int8/int4 keys: GQA's quantized cache is "
                      "not mapped)");
    if (a->softmax_lse_flag)
        return REFUSE("softmax_lse: GQA has no lse output");
    /* an empty query returns at once in FIA: nothing else is read (B 0:
     * phase two writes nothing) */
    if (numel(q) == 0)
        return FIA_OK;
    p->q = q, p->k = k, p->v = v, p->out = o;
    p->N = a->num_heads;
    p->KV_N = a->num_key_value_heads ? a->num_key_value_heads : a->num_heads;
    if (p->N <= 0 || p->KV_N <= 0 || p->N % p->KV_N != 0)
        return REFUSE("num_heads / num_key_value_heads");
    fia_status st = read_layout(a, p);
    if (st != FIA_OK)
        return st;
    /* GQA's head_size is a multiple of 8: other head dims run with zero
     * columns appended to query, key and value (each score gains only
     * 0 * 0 terms, exactly 0; the output's extra columns are dropped) */
    p->DG = (p->D + 7) / 8 * 8;
    float scale = (float)a->scale;
    if (scale == 0.0f)
        return REFUSE("scale 0: GQA reads scale 0 as 1/sqrt(head_size)");
    if (p->B > (1 << 20) || p->S > (1 << 20) || p->KV_S > (1 << 20))
        return REFUSE("too large");
    size_t nb = (size_t)(p->B > 0 ? p->B : 1);
    p->q_len = calloc(nb, sizeof *p->q_len);
    p->kv_len = calloc(nb, sizeof *p->kv_len);
    p->past_b = calloc(nb, sizeof *p->past_b);
    if (p->q_len == NULL || p->kv_len == NULL || p->past_b == NULL)
        return ort_fail(FIA_ERR_RUNTIME_ERROR, "out of memory");
    st = read_lengths(p->S > 1 ? a->actual_seq_lengths : NULL, p->B, p->S,
                      p->q_len);
    if (st == FIA_OK)
        st = read_lengths(a->actual_seq_lengths_kv, p->B, p->KV_S, p->kv_len);
    if (st == FIA_OK && p->table != NULL)
        st = paged_lengths(p);
    if (st != FIA_OK)
        return st;
    /* GQA's softmax gives a row whose largest score is -inf weights of 0
     * (its guard for fully masked rows), whatever made the scores -inf;
     * fiacheck's IEEE reading of such a row is NaN (docs/semantics.md).
     * Scores come from query and key: non-finite elements in rows and
     * keys that take part are not covered
     * (corpus/sut_onnxruntime/all_neg_inf_scores_zero.case) */
    if (rows_nonfinite(q, p->bnsd_in, p->B, p->S, p->N, p->D, p->q_len) ||
        keys_nonfinite(p))
        return REFUSE("an inf or NaN in a query row or a key that takes "
                      "part: GQA's softmax guards a row of -inf scores (0, "
                      "not IEEE's NaN)");
    p->mask = present(a->atten_mask);
    p->pse = present(a->pse_shift);
    p->sig.causal = 1;
    /* a batch whose rows see no key (kv_len < q_len) has no right-down
     * causal split: the explicit pattern */
    int explicit = 0;
    for (int64_t b = 0; b < p->B; b++)
        explicit |= p->kv_len[b] < p->q_len[b];
    st = read_pattern(a, p, &explicit);
    if (st == FIA_OK && explicit)
        st = ort_read_explicit(a, p);
    if (st != FIA_OK)
        return st;
    if (!explicit) {
        int64_t past = 0;
        for (int64_t b = 0; b < p->B; b++) {
            p->past_b[b] = p->kv_len[b] - p->q_len[b];
            past = p->past_b[b] > past ? p->past_b[b] : past;
        }
        p->past_len = past;
        p->total_max = past + p->S;
    }
    if (p->total_max > INT32_MAX)
        return REFUSE("too long");
    p->total_seqlen = (int32_t)p->total_max;

    p->sig.num_heads = p->N, p->sig.kv_num_heads = p->KV_N;
    p->sig.scale = scale;
    p->sig.has_past = p->past_len > 0;
    /* the query's dtype where ORT has a kernel for it, else float32 */
    p->sig.elem = q->dtype == FIA_DT_FP16 ? ORT_T_FLOAT16 : ORT_T_BFLOAT16;
    st = read_bias_sink(a, p);
    if (st != FIA_OK)
        return st;
    if (p->B == 0 || p->S == 0)
        return FIA_OK; /* nothing to compute */
    if (ort_session_probe(&p->sig) != FIA_OK) {
        p->sig.elem = ORT_T_FLOAT;
        p->wide = 1;
        st = read_bias_sink(a, p); /* the sink's check is fp16's only */
        if (st == FIA_OK && ort_session_probe(&p->sig) != FIA_OK)
            return REFUSE("%s", last_error);
        if (st != FIA_OK)
            return st;
    }
    p->elem_size = p->wide ? 4 : 2;
    double bytes = (double)p->B * p->N * p->S * p->total_max * 4.0 +
                   (double)p->B * p->KV_N * p->total_max * p->DG * 8.0;
    if (bytes > (double)(1u << 31))
        return REFUSE("too large for this plug-in (%.0f bytes)", bytes);
    return FIA_OK;
}

static fia_status prepare(const fia_sut_args *a, uint64_t *ws,
                          void **executor)
{
    *executor = NULL;
    *ws = 0;
    last_error[0] = '\0';
    if (a->size < sizeof *a)
        return REFUSE("an older fiacheck");
    const char *why = ort_library_check();
    if (why != NULL)
        return REFUSE("%s", why);
    const char *un = unmapped_input(a);
    if (un != NULL)
        return REFUSE("%s has no GroupQueryAttention counterpart mapped "
                      "here", un);
    if (a->key == NULL || a->value == NULL || a->key->count != 1 ||
        a->value->count != 1 || a->query == NULL || a->attention_out == NULL)
        return REFUSE("one key and one value tensor (no tensor lists)");
    ort_plan *p = calloc(1, sizeof *p);
    if (p == NULL)
        return ort_fail(FIA_ERR_RUNTIME_ERROR, "out of memory");
    fia_status st = plan_call(a, p);
    if (st != FIA_OK) {
        ort_plan_free(p);
        return st;
    }
    *executor = p;
    return FIA_OK;
}

fia_status ort_run_plan(ort_plan *p); /* ort_build.c */

static fia_status run(void *ws, uint64_t ws_size, void *executor)
{
    (void)ws, (void)ws_size;
    ort_plan *p = executor;
    if (p == NULL)
        return ort_fail(FIA_ERR_RUNTIME_ERROR, "no executor");
    fia_status st = ort_run_plan(p);
    ort_plan_free(p);
    return st;
}

static void destroy(void *executor)
{
    ort_plan_free(executor);
}

const char *ort_last_error(void)
{
    return last_error;
}

static const char *error_text(void)
{
    return last_error;
}

static char version[64];

static fia_sut table = {
    .abi_version = FIA_SUT_ABI_VERSION,
    .name = "onnxruntime",
    .version = version,
    .validates = 0, /* numbers only */
    .get_workspace_size = prepare,
    .run = run,
    .destroy = destroy,
    .last_error = error_text,
};

__attribute__((visibility("default"))) const fia_sut *fiacheck_sut_v1(void);

/* The version names the mapping and the ORT it was written against (the
 * library is checked to be that one before any call is covered). */
const fia_sut *fiacheck_sut_v1(void)
{
    snprintf(version, sizeof version, "%s+ort%s", ORT_SUT_VERSION,
             ORT_SUT_ORT_VERSION);
    return &table;
}
