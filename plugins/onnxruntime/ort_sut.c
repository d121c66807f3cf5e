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
 * mask excludes), learnable_sink head_sink.  docs/sut/onnxruntime.md has
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
#define ORT_SUT_VERSION "1.0"
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
        "block_table", "query_padding_size", "kv_padding_size",
        "key_antiquant_scale", "key_antiquant_offset",
        "value_antiquant_scale", "value_antiquant_offset",
        "key_shared_prefix", "value_shared_prefix", "query_rope", "key_rope",
        "dequant_scale_query"};
    const fia_tensor *t[] = {
        a->dequant_scale1, a->quant_scale1, a->dequant_scale2,
        a->quant_scale2, a->quant_offset2, a->antiquant_scale,
        a->antiquant_offset, a->block_table, a->query_padding_size,
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

/* 002 actualSeqLengths: one value for all batches or at least B. */
static fia_status read_lengths(const fia_int_array *arr, int64_t B,
                               int64_t S, int64_t *len)
{
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

/* Which keys each row sees, as GQA's window: -1 none, else
 * local_window_size; or a refusal. */
static fia_status read_pattern(const fia_sut_args *a, ort_plan *p)
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
        if (p->mask != NULL && mode <= 1)
            return REFUSE("atten_mask with sparse_mode %lld: GQA's causal "
                          "pattern cannot be switched off on the CPU",
                          (long long)mode);
        if (mode == 0 && !single)
            return REFUSE("sparse_mode 0 without a mask at Q_S > 1 is not "
                          "causal; GQA always is");
        if (mode == 2 && !equal)
            return REFUSE("sparse_mode 2 (left-up causal) with "
                          "actual_seq_lengths != actual_seq_lengths_kv: "
                          "GQA aligns right-down");
        if (mode == 4) {
            /* FIA: i + off - pre <= j <= i + off + next; GQA's window
             * (1.30 CPU) keeps local_window_size keys ending at the
             * diagonal, the diagonal included: pre_tokens + 1 */
            if (a->next_tokens != 0 || a->pre_tokens < 0)
                return REFUSE("sparse_mode 4 with next_tokens %lld, "
                              "pre_tokens %lld: GQA's window is "
                              "next_tokens = 0, pre_tokens >= 0 only",
                              (long long)a->next_tokens,
                              (long long)a->pre_tokens);
            if (a->pre_tokens < max_kv)
                window = a->pre_tokens + 1;
        }
        if (mode < 0 || mode > 4)
            return REFUSE("sparse_mode %lld", (long long)mode);
    }
    p->sig.local_window_size = window;
    return FIA_OK;
}

static fia_status read_bias_sink(const fia_sut_args *a, ort_plan *p)
{
    /* at Q_S > 1 the mask of sparse 2-4 is the pattern (read_pattern) */
    if (p->S > 1)
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
    }
    p->sig.has_bias = m != NULL || e != NULL;
    p->bias_b = (m != NULL && m->shape[0] == p->B && p->B > 1) ||
                        (e != NULL && e->shape[0] == p->B && p->B > 1)
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
    p->q = q, p->k = k, p->v = v, p->out = o;
    p->N = a->num_heads;
    p->KV_N = a->num_key_value_heads ? a->num_key_value_heads : a->num_heads;
    if (p->N <= 0 || p->KV_N <= 0 || p->N % p->KV_N != 0)
        return REFUSE("num_heads / num_key_value_heads");
    fia_status st = read_layout(a, p);
    if (st != FIA_OK)
        return st;
    if (p->D % 8 != 0)
        return REFUSE("head dim %lld: GQA's head_size is a multiple of 8",
                      (long long)p->D);
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
    if (st != FIA_OK)
        return st;
    /* GQA's softmax gives a row whose largest score is -inf weights of 0
     * (its guard for fully masked rows), whatever made the scores -inf;
     * fiacheck's IEEE reading of such a row is NaN (docs/semantics.md).
     * Scores come from query and key: non-finite elements in rows and
     * keys that take part are not covered
     * (corpus/sut_onnxruntime/all_neg_inf_scores_zero.case) */
    if (rows_nonfinite(q, p->bnsd_in, p->B, p->S, p->N, p->D, p->q_len) ||
        rows_nonfinite(k, p->bnsd_in, p->B, p->KV_S, p->KV_N, p->D,
                       p->kv_len))
        return REFUSE("an inf or NaN in a query row or a key that takes "
                      "part: GQA's softmax guards a row of -inf scores (0, "
                      "not IEEE's NaN)");
    int64_t past = 0;
    for (int64_t b = 0; b < p->B; b++) {
        if (p->kv_len[b] < p->q_len[b])
            return REFUSE("batch %lld has query rows with no key "
                          "(actual_seq_lengths_kv %lld < %lld): GQA's rows "
                          "always have their own position", (long long)b,
                          (long long)p->kv_len[b], (long long)p->q_len[b]);
        p->past_b[b] = p->kv_len[b] - p->q_len[b];
        past = p->past_b[b] > past ? p->past_b[b] : past;
    }
    p->past_len = past;
    p->total_max = past + p->S;
    if (p->total_max > INT32_MAX)
        return REFUSE("too long");
    p->total_seqlen = (int32_t)p->total_max;
    p->mask = present(a->atten_mask);
    p->pse = present(a->pse_shift);
    st = read_pattern(a, p);
    if (st != FIA_OK)
        return st;

    p->sig.num_heads = p->N, p->sig.kv_num_heads = p->KV_N;
    p->sig.scale = scale;
    p->sig.has_past = past > 0;
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
                   (double)p->B * p->KV_N * p->total_max * p->D * 8.0;
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
