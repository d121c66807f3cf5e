/* Phase two of the ggml system: one graph, one node,
 * ggml_flash_attn_ext, computed by ggml's CPU backend (ggml_plan.h has the
 * tensors).  The tensors live in a no_alloc context; their data are the
 * call's key and value (as views: the layout is the strides) or their
 * gathered copies (ggml_gather.c), and buffers of this file for the
 * widened query, the mask, the sinks and the float32 result. */
#include <stdlib.h>
#include <string.h>
#include "ggml-cpu.h"
#include "ggml.h"
#include "ggml_plan.h"

/* Buffers phase two owns. */
typedef struct run_bufs {
    float *q, *res, *sink, *k32, *v32;
    uint16_t *mask, *kg, *vg;
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
    free(b->kg);
    free(b->vg);
    free(b->work);
}

static void widen_row(const ggml_plan *p, const uint16_t *src, float *dst,
                      int64_t n)
{
    if (p->dt == FIA_DT_BF16)
        ggml_bf16_to_fp32_row((const ggml_bf16_t *)src, dst, n);
    else
        ggml_fp16_to_fp32_row((const ggml_fp16_t *)src, dst, n);
}

/* The query as float32 [B][N][Q_S][D+Dr] (ggml's [D+Dr, Q_S, N, B]),
 * MLA's query_rope after the D columns: exact. */
static void widen_query(const ggml_plan *p, float *q)
{
    const uint16_t *src = p->q->data;
    const int64_t Dk = p->D + p->Dr;
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t n = 0; n < p->N; n++)
            for (int64_t s = 0; s < p->Q_S; s++) {
                float *dst = q + ((b * p->N + n) * p->Q_S + s) * Dk;
                if (p->tnd && s >= p->q_len[b]) { /* a padded row */
                    memset(dst, 0, (size_t)Dk * sizeof *dst);
                    continue;
                }
                widen_row(p, src + ggml_row_at(p, b, n, s, p->D, 0), dst,
                          p->D);
                if (p->Dr > 0)
                    widen_row(p, ggml_query_rope_row(p, b, n, s), dst + p->D,
                              p->Dr);
            }
}

/* The float32 result [B][Q_S][N][Dv] rounded, nearest-even, into
 * attention_out in its layout (BSND, BNSD or MLA's NBSD).  ggml_fp32_to_bf16_row_ref, not
 * ggml_fp32_to_bf16_row: the latter flushes subnormals where the CPU has
 * AVX512-BF16, which is no rounding. */
static void narrow_output(const ggml_plan *p, const float *res)
{
    uint16_t *dst = p->out->data;
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t s = 0; s < p->Q_S; s++)
            for (int64_t n = 0; n < p->N; n++) {
                const int64_t Dv = p->Dv;
                if (p->tnd && s >= p->q_len[b])
                    continue; /* a padded row: no token of the output */
                const float *src = res + ((b * p->Q_S + s) * p->N + n) * Dv;
                const int64_t at = ggml_row_at(p, b, n, s, Dv, 1);
                if (p->dt == FIA_DT_BF16)
                    ggml_fp32_to_bf16_row_ref(src, (ggml_bf16_t *)dst + at,
                                              Dv);
                else
                    ggml_fp32_to_fp16_row(src, (ggml_fp16_t *)dst + at, Dv);
            }
}

/* Where the rows (b, n, s) of key or value are, in elements: the call's
 * tensor in its layout, or a gathered [B][KV_N][KV_S][W] copy. */
typedef struct kv_rows {
    const uint16_t *base;
    int64_t W, sb, sn, ss;
} kv_rows;

static kv_rows rows_of(const ggml_plan *p, const fia_tensor *t,
                       const uint16_t *gathered, int64_t W)
{
    kv_rows r = {.W = W};
    r.sb = p->KV_N * p->KV_S * W;
    if (gathered != NULL || p->bnsd_in) /* BNSD: the gathered order */
        r.sn = p->KV_S * W, r.ss = W;
    else
        r.sn = W, r.ss = p->KV_N * W;
    r.base = gathered != NULL ? gathered : t->data;
    return r;
}

/* A [W, KV_use, KV_N, B] view of key or value rows (the rows' strides
 * are the tensor's, KV_S long). */
static struct ggml_tensor *kv_view(struct ggml_context *ctx,
                                   const ggml_plan *p, kv_rows r)
{
    const enum ggml_type ty =
        p->dt == FIA_DT_BF16 ? GGML_TYPE_BF16 : GGML_TYPE_F16;
    const size_t es = 2;
    struct ggml_tensor *base =
        ggml_new_tensor_1d(ctx, ty, p->B * p->KV_N * p->KV_S * r.W);
    base->data = (void *)r.base;
    return ggml_view_4d(ctx, base, r.W, p->KV_use, p->KV_N, p->B,
                        (size_t)r.ss * es, (size_t)r.sn * es,
                        (size_t)r.sb * es, 0);
}

/* The triage variant (ggml_plan.widen_kv): key or value widened, exactly,
 * to a float32 [W, KV_S, KV_N, B] tensor, so that ggml runs its float32
 * paths on the same values. */
static struct ggml_tensor *kv_widened(struct ggml_context *ctx,
                                      const ggml_plan *p, kv_rows r,
                                      float *buf)
{
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t n = 0; n < p->KV_N; n++)
            for (int64_t s = 0; s < p->KV_use; s++)
                widen_row(p, r.base + b * r.sb + n * r.sn + s * r.ss,
                          buf + ((b * p->KV_N + n) * p->KV_use + s) * r.W,
                          r.W);
    struct ggml_tensor *w =
        ggml_new_tensor_4d(ctx, GGML_TYPE_F32, r.W, p->KV_use, p->KV_N, p->B);
    w->data = buf;
    return w;
}

static void *alloc_or_null(size_t n)
{
    return malloc(n > 0 ? n : 1);
}

/* Phase two's buffers; 0 when one could not be had. */
static int alloc_bufs(const ggml_plan *p, run_bufs *bf)
{
    const int64_t planes = p->mask_per_head ? p->N : 1, Dk = p->D + p->Dr;
    const size_t rows = (size_t)(p->B * p->N * p->Q_S);
    const size_t kv_rows_n = (size_t)(p->B * p->KV_N * p->KV_S);
    bf->q = alloc_or_null(rows * (size_t)Dk * sizeof(float));
    bf->res = alloc_or_null(rows * (size_t)p->Dv * sizeof(float));
    int ok = bf->q != NULL && bf->res != NULL;
    if (p->has_mask)
        ok &= (bf->mask = alloc_or_null(rows / (size_t)p->N * (size_t)planes *
                                        (size_t)p->KV_use * 2)) != NULL;
    if (p->sink != NULL)
        ok &= (bf->sink = alloc_or_null((size_t)p->N * sizeof(float))) != NULL;
    if (p->gather) {
        ok &= (bf->kg = alloc_or_null(kv_rows_n * (size_t)Dk * 2)) != NULL;
        ok &= (bf->vg = alloc_or_null(kv_rows_n * (size_t)p->Dv * 2)) != NULL;
    }
    if (p->widen_kv) {
        ok &= (bf->k32 = alloc_or_null(kv_rows_n * (size_t)Dk *
                                       sizeof(float))) != NULL;
        ok &= (bf->v32 = alloc_or_null(kv_rows_n * (size_t)p->Dv *
                                       sizeof(float))) != NULL;
    }
    return ok;
}

fia_status ggml_execute(const ggml_plan *p)
{
    if (p->Q_S == 0 || p->N == 0)
        return FIA_OK; /* nothing to compute: the output is empty */
    const int64_t planes = p->mask_per_head ? p->N : 1, Dk = p->D + p->Dr;
    run_bufs bf = {0};
    if (!alloc_bufs(p, &bf)) {
        bufs_free(&bf);
        return ggml_sut_fail(FIA_ERR_RUNTIME_ERROR, "out of memory");
    }
    if (p->KV_use == 0) { /* no key at all: every row's output is 0 */
        memset(bf.res, 0,
               (size_t)(p->B * p->N * p->Q_S * p->Dv) * sizeof(float));
        narrow_output(p, bf.res);
        bufs_free(&bf);
        return FIA_OK;
    }
    if (p->gather)
        ggml_gather(p, bf.kg, bf.vg);
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
        ggml_new_tensor_4d(ctx, GGML_TYPE_F32, Dk, p->Q_S, p->N, p->B);
    q->data = bf.q;
    const kv_rows kr = rows_of(p, p->k, bf.kg, Dk),
                  vr = rows_of(p, p->v, bf.vg, p->Dv);
    struct ggml_tensor *k = p->widen_kv ? kv_widened(ctx, p, kr, bf.k32)
                                        : kv_view(ctx, p, kr);
    struct ggml_tensor *v = p->widen_kv ? kv_widened(ctx, p, vr, bf.v32)
                                        : kv_view(ctx, p, vr);
    struct ggml_tensor *m = NULL;
    if (p->has_mask) {
        m = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, p->KV_use, p->Q_S, planes,
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
