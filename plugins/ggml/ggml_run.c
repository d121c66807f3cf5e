/* Phase two of the ggml system: one graph, one node,
 * ggml_flash_attn_ext, computed by ggml's CPU backend (ggml_plan.h has the
 * tensors).  The tensors live in a no_alloc context; their data are the
 * call's key and value (as views: the layout is the strides), and buffers
 * of this file for the widened query, the mask, the sinks and the float32
 * result. */
#include <stdlib.h>
#include <string.h>
#include "ggml-cpu.h"
#include "ggml.h"
#include "ggml_plan.h"

/* Buffers phase two owns. */
typedef struct run_bufs {
    float *q, *res, *sink, *k32, *v32;
    uint16_t *mask;
    uint8_t *work;
} run_bufs;

static void bufs_free(run_bufs *b)
{
    free(b->q);
    free(b->res);
    free(b->sink);
    free(b->k32);
    free(b->v32);
    free(b->mask);
    free(b->work);
}

/* The query as float32 [B][N][Q_S][D] (ggml's [D, Q_S, N, B]): exact. */
static void widen_query(const ggml_plan *p, float *q)
{
    const uint16_t *src = p->q->data;
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t n = 0; n < p->N; n++)
            for (int64_t s = 0; s < p->Q_S; s++) {
                const int64_t at =
                    p->bnsd_in ? ((b * p->N + n) * p->Q_S + s) * p->D
                               : ((b * p->Q_S + s) * p->N + n) * p->D;
                float *dst = q + ((b * p->N + n) * p->Q_S + s) * p->D;
                if (p->dt == FIA_DT_BF16)
                    ggml_bf16_to_fp32_row((const ggml_bf16_t *)src + at, dst,
                                          p->D);
                else
                    ggml_fp16_to_fp32_row((const ggml_fp16_t *)src + at, dst,
                                          p->D);
            }
}

/* The float32 result [B][Q_S][N][D] rounded, nearest-even, into
 * attention_out in its layout.  ggml_fp32_to_bf16_row_ref, not
 * ggml_fp32_to_bf16_row: the latter flushes subnormals where the CPU has
 * AVX512-BF16, which is no rounding. */
static void narrow_output(const ggml_plan *p, const float *res)
{
    uint16_t *dst = p->out->data;
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t s = 0; s < p->Q_S; s++)
            for (int64_t n = 0; n < p->N; n++) {
                const float *src = res + ((b * p->Q_S + s) * p->N + n) * p->D;
                const int64_t at =
                    p->bnsd_out ? ((b * p->N + n) * p->Q_S + s) * p->D
                                : ((b * p->Q_S + s) * p->N + n) * p->D;
                if (p->dt == FIA_DT_BF16)
                    ggml_fp32_to_bf16_row_ref(src, (ggml_bf16_t *)dst + at,
                                              p->D);
                else
                    ggml_fp32_to_fp16_row(src, (ggml_fp16_t *)dst + at, p->D);
            }
}

/* A [D, KV_S, KV_N, B] view of key or value in the call's layout. */
static struct ggml_tensor *kv_view(struct ggml_context *ctx,
                                   const ggml_plan *p, const fia_tensor *t)
{
    const enum ggml_type ty =
        p->dt == FIA_DT_BF16 ? GGML_TYPE_BF16 : GGML_TYPE_F16;
    const size_t es = 2;
    const int64_t all = p->B * p->KV_N * p->KV_S * p->D;
    struct ggml_tensor *base = ggml_new_tensor_1d(ctx, ty, all);
    base->data = t->data;
    size_t nb1, nb2, nb3 = (size_t)(p->KV_N * p->KV_S * p->D) * es;
    if (p->bnsd_in)
        nb1 = (size_t)p->D * es, nb2 = (size_t)(p->KV_S * p->D) * es;
    else
        nb1 = (size_t)(p->KV_N * p->D) * es, nb2 = (size_t)p->D * es;
    return ggml_view_4d(ctx, base, p->D, p->KV_S, p->KV_N, p->B, nb1, nb2,
                        nb3, 0);
}

/* The triage variant (ggml_plan.widen_kv): key or value widened, exactly,
 * to a float32 [D, KV_S, KV_N, B] tensor, so that ggml runs its float32
 * paths on the same values. */
static struct ggml_tensor *kv_widened(struct ggml_context *ctx,
                                      const ggml_plan *p, const fia_tensor *t,
                                      float *buf)
{
    const uint16_t *src = t->data;
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t n = 0; n < p->KV_N; n++)
            for (int64_t s = 0; s < p->KV_S; s++) {
                const int64_t at =
                    p->bnsd_in ? ((b * p->KV_N + n) * p->KV_S + s) * p->D
                               : ((b * p->KV_S + s) * p->KV_N + n) * p->D;
                float *dst = buf + ((b * p->KV_N + n) * p->KV_S + s) * p->D;
                if (p->dt == FIA_DT_BF16)
                    ggml_bf16_to_fp32_row((const ggml_bf16_t *)src + at, dst,
                                          p->D);
                else
                    ggml_fp16_to_fp32_row((const ggml_fp16_t *)src + at, dst,
                                          p->D);
            }
    struct ggml_tensor *w =
        ggml_new_tensor_4d(ctx, GGML_TYPE_F32, p->D, p->KV_S, p->KV_N, p->B);
    w->data = buf;
    return w;
}

static void *alloc_or_null(size_t n)
{
    return malloc(n > 0 ? n : 1);
}

fia_status ggml_execute(const ggml_plan *p)
{
    if (p->Q_S == 0 || p->N == 0)
        return FIA_OK; /* nothing to compute: the output is empty */
    const int64_t planes = p->mask_per_head ? p->N : 1;
    run_bufs bf = {0};
    bf.q = alloc_or_null((size_t)(p->B * p->N * p->Q_S * p->D) * sizeof(float));
    bf.res = alloc_or_null((size_t)(p->B * p->N * p->Q_S * p->D) * sizeof(float));
    if (p->has_mask)
        bf.mask = alloc_or_null((size_t)(p->B * planes * p->Q_S * p->KV_S) * 2);
    if (p->sink != NULL)
        bf.sink = alloc_or_null((size_t)p->N * sizeof(float));
    const size_t kv_elems = (size_t)(p->B * p->KV_N * p->KV_S * p->D);
    if (p->widen_kv) {
        bf.k32 = alloc_or_null(kv_elems * sizeof(float));
        bf.v32 = alloc_or_null(kv_elems * sizeof(float));
    }
    if (bf.q == NULL || bf.res == NULL ||
        (p->widen_kv && (bf.k32 == NULL || bf.v32 == NULL)) || (p->has_mask && bf.mask == NULL) ||
        (p->sink != NULL && bf.sink == NULL)) {
        bufs_free(&bf);
        return ggml_sut_fail(FIA_ERR_RUNTIME_ERROR, "out of memory");
    }
    if (p->KV_S == 0) { /* no key at all: every row's output is 0 */
        memset(bf.res, 0, (size_t)(p->B * p->N * p->Q_S * p->D) * sizeof(float));
        narrow_output(p, bf.res);
        bufs_free(&bf);
        return FIA_OK;
    }
    widen_query(p, bf.q);
    if (p->has_mask)
        ggml_build_mask(p, bf.mask);
    if (p->sink != NULL)
        ggml_bf16_to_fp32_row(p->sink->data, bf.sink, p->N);

    struct ggml_init_params ip = {
        .mem_size = 16 * ggml_tensor_overhead() + ggml_graph_overhead(),
        .mem_buffer = NULL,
        .no_alloc = true,
    };
    struct ggml_context *ctx = ggml_init(ip);
    if (ctx == NULL) {
        bufs_free(&bf);
        return ggml_sut_fail(FIA_ERR_RUNTIME_ERROR, "ggml_init failed");
    }
    struct ggml_tensor *q =
        ggml_new_tensor_4d(ctx, GGML_TYPE_F32, p->D, p->Q_S, p->N, p->B);
    q->data = bf.q;
    struct ggml_tensor *k = p->widen_kv ? kv_widened(ctx, p, p->k, bf.k32)
                                        : kv_view(ctx, p, p->k);
    struct ggml_tensor *v = p->widen_kv ? kv_widened(ctx, p, p->v, bf.v32)
                                        : kv_view(ctx, p, p->v);
    struct ggml_tensor *m = NULL;
    if (p->has_mask) {
        m = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, p->KV_S, p->Q_S, planes,
                               p->B);
        m->data = bf.mask;
    }
    struct ggml_tensor *fa =
        ggml_flash_attn_ext(ctx, q, k, v, m, p->scale, 0.0f, 0.0f);
    /* llama.cpp's own choice for attention; on the CPU it changes no path
     * (the vector path keeps a float16 accumulator for float16 V either
     * way: docs/sut/ggml.md) */
    ggml_flash_attn_ext_set_prec(fa, GGML_PREC_F32);
    if (p->sink != NULL) {
        struct ggml_tensor *s = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, p->N);
        s->data = bf.sink;
        ggml_flash_attn_ext_add_sinks(fa, s);
    }
    fa->data = bf.res;
    struct ggml_cgraph *gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, fa);
    struct ggml_cplan cp = ggml_graph_plan(gf, p->threads, NULL);
    fia_status st = FIA_OK;
    if (cp.work_size > 0) {
        bf.work = malloc(cp.work_size);
        if (bf.work == NULL)
            st = ggml_sut_fail(FIA_ERR_RUNTIME_ERROR, "out of memory (work)");
        cp.work_data = bf.work;
    }
    if (st == FIA_OK && ggml_graph_compute(gf, &cp) != GGML_STATUS_SUCCESS)
        st = ggml_sut_fail(FIA_ERR_RUNTIME_ERROR, "ggml_graph_compute failed");
    if (st == FIA_OK)
        narrow_output(p, bf.res);
    ggml_free(ctx);
    bufs_free(&bf);
    return st;
}
