/* Phase two of the oneDNN composition: the primitives, built and run.
 *
 *   [fp16: reorder Q, K, V to float32]
 *   scores = scale · Q·Kᵀ           matmul, output scale, float32 dst
 *   scores += bias                  binary add (pse, -inf where excluded)
 *   [softmax_lse from the scores, on the host]
 *   P = softmax(scores)             softmax on the last axis; dst bf16 for
 *                                   bf16 inputs, float32 for fp16
 *   out = P·V                       matmul; bf16 straight into the output,
 *                                   fp16 through a float32 dst and a reorder
 *
 * All tensors are 5-D views (B, KV_N, G, S, D); Kᵀ and V have G = 1 and
 * the matmul broadcasts them over the query heads of their group. */
#include <dnnl.h>
#include <stdlib.h>
#include "onednn_plan.h"

#define MAX_PRIMS 10
#define MAX_MEMS 20

typedef struct pipeline {
    dnnl_engine_t eng;
    dnnl_stream_t str;
    dnnl_primitive_t prim[MAX_PRIMS];
    int n_prim;
    dnnl_memory_t mem[MAX_MEMS];
    int n_mem;
    /* the steps in order: a primitive and its arguments */
    dnnl_exec_arg_t args[MAX_PRIMS][3];
    int n_args[MAX_PRIMS];
    int lse_after;              /* the step after which lse is taken */
} pipeline;

/* A oneDNN call's status: dnnl_unimplemented is a call this build of
 * oneDNN has no primitive for on this CPU (bf16 matmul wants AVX-512, say):
 * not covered, like the calls the composition refuses; anything else is
 * the library failing. */
#define CHECK(x)                                                          \
    do {                                                                  \
        dnnl_status_t s_ = (x);                                           \
        if (s_ == dnnl_unimplemented) {                                   \
            st = onednn_fail(FIA_ERR_NOT_MODELED, "oneDNN implements no " \
                             "primitive for this call on this CPU (%s: "  \
                             "dnnl_unimplemented)", #x);                  \
            goto out;                                                     \
        }                                                                 \
        if (s_ != dnnl_success) {                                         \
            st = onednn_fail(FIA_ERR_RUNTIME_ERROR, "oneDNN: %s: status %d", \
                             #x, (int)s_);                                \
            goto out;                                                     \
        }                                                                 \
    } while (0)

static size_t round64(size_t n)
{
    return (n + 63) & ~(size_t)63;
}

/* The workspace's parts, in order; a NULL base gives their size alone. */
typedef struct parts {
    float *scores, *bias, *qf, *kf, *vf, *of;
    void *probs;
    size_t end;
} parts;

static parts layout_ws(const onednn_plan *p, char *base)
{
    parts w = {0};
    size_t at = 0;
    const size_t ns = (size_t)(p->B * p->N * p->Q_S * p->KV_S);
    const size_t nq = (size_t)(p->B * p->N * p->Q_S * p->D);
    const size_t nkv = (size_t)(p->B * p->KV_N * p->KV_S * p->D);
#define TAKE(field, type, bytes)                                          \
    do {                                                                  \
        w.field = base ? (type)(void *)(base + at) : NULL;                \
        at += round64(bytes);                                             \
    } while (0)
    TAKE(scores, float *, ns * 4);
    TAKE(probs, void *, ns * (p->dt == FIA_DT_BF16 ? 2 : 4));
    if (p->has_bias)
        TAKE(bias, float *,
             (size_t)(p->bias_B * p->bias_N * p->Q_S * p->KV_S) * 4);
    if (p->dt == FIA_DT_FP16) {
        TAKE(qf, float *, nq * 4);
        TAKE(kf, float *, nkv * 4);
        TAKE(vf, float *, nkv * 4);
        TAKE(of, float *, nq * 4);
    }
#undef TAKE
    w.end = at;
    return w;
}

uint64_t onednn_workspace(const onednn_plan *p)
{
    return layout_ws(p, NULL).end;
}

static void md5(dnnl_memory_desc_t *md, dnnl_data_type_t dt,
                const int64_t d[5], const int64_t s[5])
{
    dnnl_dims_t dims = {d[0], d[1], d[2], d[3], d[4]};
    dnnl_dims_t st = {s[0], s[1], s[2], s[3], s[4]};
    dnnl_memory_desc_init_by_strides(md, 5, dims, dt, st);
}

static void dense(const int64_t d[5], int64_t s[5])
{
    s[4] = 1;
    for (int i = 3; i >= 0; i--)
        s[i] = s[i + 1] * d[i + 1];
}

static dnnl_status_t new_mem(pipeline *x, const dnnl_memory_desc_t *md,
                             const void *data, dnnl_memory_t *m)
{
    dnnl_status_t s = dnnl_memory_create(m, md, x->eng, (void *)data);
    if (s == dnnl_success)
        x->mem[x->n_mem++] = *m;
    return s;
}

/* Turns pd into the next step with its arguments (pd is consumed). */
static dnnl_status_t add_step(pipeline *x, dnnl_primitive_desc_t pd, int n,
                              int k0, dnnl_memory_t m0, int k1,
                              dnnl_memory_t m1, int k2, dnnl_memory_t m2)
{
    dnnl_primitive_t prim;
    dnnl_status_t s = dnnl_primitive_create(&prim, pd);
    dnnl_primitive_desc_destroy(pd);
    if (s != dnnl_success)
        return s;
    const int i = x->n_prim++;
    x->prim[i] = prim;
    x->n_args[i] = n;
    dnnl_exec_arg_t a[3] = {{k0, m0}, {k1, m1}, {k2, m2}};
    for (int j = 0; j < n; j++)
        x->args[i][j] = a[j];
    return dnnl_success;
}

static dnnl_status_t reorder(pipeline *x, const dnnl_memory_desc_t *from,
                             const void *src, const dnnl_memory_desc_t *to,
                             void *dst)
{
    dnnl_primitive_desc_t pd;
    dnnl_memory_t ms, md;
    dnnl_status_t s = dnnl_reorder_primitive_desc_create(&pd, from, x->eng,
                                                         to, x->eng, NULL);
    if (s != dnnl_success)
        return s;
    if ((s = new_mem(x, from, src, &ms)) != dnnl_success ||
        (s = new_mem(x, to, dst, &md)) != dnnl_success) {
        dnnl_primitive_desc_destroy(pd);
        return s;
    }
    return add_step(x, pd, 2, DNNL_ARG_FROM, ms, DNNL_ARG_TO, md, 0, NULL);
}

fia_status onednn_execute(const onednn_plan *p, void *ws)
{
    fia_status st = FIA_OK;
    if (p->B * p->N * p->Q_S * p->D == 0)
        return FIA_OK; /* an empty query: nothing to write */
    pipeline x = {0};
    dnnl_primitive_attr_t attr = NULL;
    parts w = layout_ws(p, ws);
    const int bf16 = p->dt == FIA_DT_BF16;
    const dnnl_data_type_t in = bf16 ? dnnl_bf16 : dnnl_f16;
    const int64_t B = p->B, KN = p->KV_N, G = p->G, Q = p->Q_S, K = p->KV_S,
                  D = p->D;
    const int64_t dq[5] = {B, KN, G, Q, D}, dv[5] = {B, KN, 1, K, D},
                  dkt[5] = {B, KN, 1, D, K}, ds[5] = {B, KN, G, Q, K};
    int64_t sq[5], sv[5], ss[5], skt[5];
    dense(dq, sq), dense(dv, sv), dense(ds, ss);
    dnnl_memory_desc_t m_q, m_kt, m_v, m_s, m_p, m_o, m_b, tmp;
    CHECK(dnnl_engine_create(&x.eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&x.str, x.eng, dnnl_stream_default_flags));
    const void *qd = p->q->data, *kd = p->k->data, *vd = p->v->data;
    const int64_t *kvs = p->kv_st;
    if (bf16) {
        md5(&m_q, dnnl_bf16, dq, p->q_st);
        md5(&m_v, dnnl_bf16, dv, kvs);
    } else { /* no f16 matmul here: convert to float32 first */
        md5(&tmp, in, dq, p->q_st);
        md5(&m_q, dnnl_f32, dq, sq);
        CHECK(reorder(&x, &tmp, qd, &m_q, w.qf));
        md5(&tmp, in, dv, kvs);
        md5(&m_v, dnnl_f32, dv, sv);
        CHECK(reorder(&x, &tmp, kd, &m_v, w.kf));
        CHECK(reorder(&x, &tmp, vd, &m_v, w.vf));
        qd = w.qf, kd = w.kf, vd = w.vf;
        kvs = sv;
    }
    /* Kᵀ: the key's own memory, the last two strides swapped */
    skt[0] = kvs[0], skt[1] = kvs[1], skt[2] = kvs[2], skt[3] = kvs[4];
    skt[4] = kvs[3];
    md5(&m_kt, bf16 ? dnnl_bf16 : dnnl_f32, dkt, skt);
    md5(&m_s, dnnl_f32, ds, ss);
    md5(&m_p, bf16 ? dnnl_bf16 : dnnl_f32, ds, ss);
    md5(&m_o, bf16 ? dnnl_bf16 : dnnl_f32, dq, bf16 ? p->out_st : sq);

    dnnl_memory_t mq, mk, mv, ms, mp, mo, mb;
    dnnl_primitive_desc_t pd;
    dnnl_matmul_desc_t mm;
    CHECK(new_mem(&x, &m_q, qd, &mq));
    CHECK(new_mem(&x, &m_kt, kd, &mk));
    CHECK(new_mem(&x, &m_v, vd, &mv));
    CHECK(new_mem(&x, &m_s, w.scores, &ms));
    CHECK(new_mem(&x, &m_p, w.probs, &mp));
    CHECK(new_mem(&x, &m_o, bf16 ? p->out->data : (void *)w.of, &mo));
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_output_scales(attr, 1, 0, &p->scale));
    CHECK(dnnl_matmul_desc_init(&mm, &m_q, &m_kt, NULL, &m_s));
    CHECK(dnnl_primitive_desc_create(&pd, &mm, attr, x.eng, NULL));
    CHECK(add_step(&x, pd, 3, DNNL_ARG_SRC, mq, DNNL_ARG_WEIGHTS, mk,
                   DNNL_ARG_DST, ms));
    if (p->has_bias) {
        const int64_t db[5] = {p->bias_B, p->bias_N == 1 ? 1 : KN,
                               p->bias_N == 1 ? 1 : G, Q, K};
        int64_t sb[5];
        dense(db, sb);
        md5(&m_b, dnnl_f32, db, sb);
        onednn_build_bias(p, w.bias);
        dnnl_binary_desc_t bd;
        CHECK(new_mem(&x, &m_b, w.bias, &mb));
        CHECK(dnnl_binary_desc_init(&bd, dnnl_binary_add, &m_s, &m_b, &m_s));
        CHECK(dnnl_primitive_desc_create(&pd, &bd, NULL, x.eng, NULL));
        CHECK(add_step(&x, pd, 3, DNNL_ARG_SRC_0, ms, DNNL_ARG_SRC_1, mb,
                       DNNL_ARG_DST, ms));
    }
    x.lse_after = x.n_prim;
    dnnl_softmax_v2_desc_t sd;
    CHECK(dnnl_softmax_v2_forward_desc_init(&sd, dnnl_forward_inference,
                                            dnnl_softmax_accurate, &m_s, &m_p,
                                            4));
    CHECK(dnnl_primitive_desc_create(&pd, &sd, NULL, x.eng, NULL));
    CHECK(add_step(&x, pd, 2, DNNL_ARG_SRC, ms, DNNL_ARG_DST, mp, 0, NULL));
    CHECK(dnnl_matmul_desc_init(&mm, &m_p, &m_v, NULL, &m_o));
    CHECK(dnnl_primitive_desc_create(&pd, &mm, NULL, x.eng, NULL));
    CHECK(add_step(&x, pd, 3, DNNL_ARG_SRC, mp, DNNL_ARG_WEIGHTS, mv,
                   DNNL_ARG_DST, mo));
    if (!bf16) {
        md5(&tmp, in, dq, p->out_st);
        CHECK(reorder(&x, &m_o, w.of, &tmp, p->out->data));
    }
    for (int i = 0; i < x.n_prim; i++) {
        if (i == x.lse_after && p->lse) {
            CHECK(dnnl_stream_wait(x.str));
            onednn_write_lse(p, w.scores);
        }
        CHECK(dnnl_primitive_execute(x.prim[i], x.str, x.n_args[i],
                                     x.args[i]));
    }
    CHECK(dnnl_stream_wait(x.str));
out:
    for (int i = 0; i < x.n_prim; i++)
        dnnl_primitive_destroy(x.prim[i]);
    for (int i = 0; i < x.n_mem; i++)
        dnnl_memory_destroy(x.mem[i]);
    if (attr != NULL)
        dnnl_primitive_attr_destroy(attr);
    if (x.str != NULL)
        dnnl_stream_destroy(x.str);
    if (x.eng != NULL)
        dnnl_engine_destroy(x.eng);
    return st;
}
