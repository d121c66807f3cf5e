/* bench --fast's second baseline: the attention a user would compose from
 * oneDNN's matmul and softmax primitives on the same shapes (baselines.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "baselines.h"
#include "fast_runner.h"
#ifdef FIA_HAVE_DNNL
#include <dnnl.h>
static float half_to_float(uint16_t h)
{
    uint32_t e = (h >> 10) & 31u, m = h & 0x3ffu;
    float f = e == 0 ? (float)m * 0x1p-24f : ldexpf((float)(m | 0x400u), (int)e - 25);
    return (h & 0x8000u) ? -f : f;
}

/* ---- oneDNN: matmul (scale) [+ mask] + softmax + matmul --------------------
 * GQA by batch broadcasting: Q [B*KV_N, G, S, D], K^T [B*KV_N, 1, D, KV_S]
 * (K's own rows, strided), scores [B*KV_N, G, S, KV_S]. */
#define DNNL_OK(x)                                                      \
    do {                                                                \
        if ((x) != dnnl_success) {                                      \
            snprintf(what, wlen, "%s failed", #x);                      \
            goto out;                                                   \
        }                                                               \
    } while (0)

static void md4(dnnl_memory_desc_t *md, dnnl_data_type_t dt, int64_t a,
                int64_t b, int64_t c, int64_t d, int64_t sa, int64_t sb,
                int64_t sc, int64_t sd)
{
    dnnl_dims_t dims = {a, b, c, d}, st = {sa, sb, sc, sd};
    dnnl_memory_desc_init_by_strides(md, 4, dims, dt, st);
}

/* Best time, or -1 with the reason in what; what says the data type. */
static double onednn_try(const shape *s, const data *d, int reps,
                         dnnl_data_type_t dt, char *what, size_t wlen)
{
    double best = -1;
    const int64_t G = s->N / s->KVN, BK = s->B * s->KVN, S = s->QS;
    const int64_t T = s->KVS, D = s->D;
    const size_t es = dt == dnnl_f16 ? 2 : 4;
    dnnl_engine_t eng = NULL;
    dnnl_stream_t str = NULL;
    dnnl_primitive_desc_t pd1 = NULL, pd2 = NULL, pd3 = NULL, pdb = NULL;
    dnnl_primitive_t p1 = NULL, p2 = NULL, p3 = NULL, pb = NULL;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_memory_t mq = NULL, mk = NULL, mv = NULL, ms = NULL, mo = NULL,
                  mm = NULL;
    void *q = NULL, *k = NULL, *v = NULL, *sc = NULL, *o = NULL;
    float *mask = NULL;
    int64_t nq = BK * G * S * D, nkv = BK * T * D, ns = BK * G * S * T;
    q = malloc((size_t)nq * es), k = malloc((size_t)nkv * es);
    v = malloc((size_t)nkv * es), o = malloc((size_t)nq * es);
    sc = malloc((size_t)ns * es);
    if (!q || !k || !v || !o || !sc) {
        snprintf(what, wlen, "out of memory");
        goto out;
    }
    if (dt == dnnl_f16) {
        memcpy(q, d->q, (size_t)nq * 2), memcpy(k, d->k, (size_t)nkv * 2);
        memcpy(v, d->v, (size_t)nkv * 2);
    } else { /* converted before timing */
        for (int64_t i = 0; i < nq; i++)
            ((float *)q)[i] = half_to_float(d->q[i]);
        for (int64_t i = 0; i < nkv; i++) {
            ((float *)k)[i] = half_to_float(d->k[i]);
            ((float *)v)[i] = half_to_float(d->v[i]);
        }
    }
    DNNL_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    DNNL_OK(dnnl_stream_create(&str, eng, dnnl_stream_default_flags));
    dnnl_memory_desc_t dq, dk, dv, ds, dop, dm;
    md4(&dq, dt, BK, G, S, D, G * S * D, S * D, D, 1);
    md4(&dk, dt, BK, 1, D, T, T * D, T * D, 1, D); /* K^T, in place */
    md4(&dv, dt, BK, 1, T, D, T * D, T * D, D, 1);
    md4(&ds, dt, BK, G, S, T, G * S * T, S * T, T, 1);
    md4(&dop, dt, BK, G, S, D, G * S * D, S * D, D, 1);
    md4(&dm, dnnl_f32, 1, 1, S, T, S * T, S * T, T, 1);
    float scale = (float)(1.0 / sqrt((double)D));
    DNNL_OK(dnnl_primitive_attr_create(&attr));
    DNNL_OK(dnnl_primitive_attr_set_output_scales(attr, 1, 0, &scale));
    if (s->sparse == 3) { /* scores += mask (0 / -1e9), a binary primitive */
        mask = malloc((size_t)(S * T) * 4);
        for (int64_t i = 0; i < S; i++)
            for (int64_t j = 0; j < T; j++)
                mask[i * T + j] = j <= i + T - S ? 0.0f : -1e9f;
        dnnl_binary_desc_t bd;
        DNNL_OK(dnnl_binary_desc_init(&bd, dnnl_binary_add, &ds, &dm, &ds));
        DNNL_OK(dnnl_primitive_desc_create(&pdb, &bd, NULL, eng, NULL));
        DNNL_OK(dnnl_primitive_create(&pb, pdb));
        DNNL_OK(dnnl_memory_create(&mm, &dm, eng, mask));
    }
    dnnl_matmul_desc_t mmd1, mmd2;
    dnnl_softmax_desc_t smd;
    DNNL_OK(dnnl_matmul_desc_init(&mmd1, &dq, &dk, NULL, &ds));
    DNNL_OK(dnnl_primitive_desc_create(&pd1, &mmd1, attr, eng, NULL));
    DNNL_OK(dnnl_softmax_forward_desc_init(&smd, dnnl_forward_inference, &ds, 3));
    DNNL_OK(dnnl_primitive_desc_create(&pd2, &smd, NULL, eng, NULL));
    DNNL_OK(dnnl_matmul_desc_init(&mmd2, &ds, &dv, NULL, &dop));
    DNNL_OK(dnnl_primitive_desc_create(&pd3, &mmd2, NULL, eng, NULL));
    const char *impl1 = "?", *impl3 = "?";
    dnnl_primitive_desc_query(pd1, dnnl_query_impl_info_str, 0, &impl1);
    dnnl_primitive_desc_query(pd3, dnnl_query_impl_info_str, 0, &impl3);
    if (strncmp(impl1, "ref", 3) == 0 || strncmp(impl3, "ref", 3) == 0) {
        /* a reference (unoptimized) matmul: not what a user would keep */
        snprintf(what, wlen, "%s matmul only as %s", dt == dnnl_f16 ? "f16" : "f32",
                 impl1);
        goto out;
    }
    DNNL_OK(dnnl_primitive_create(&p1, pd1));
    DNNL_OK(dnnl_primitive_create(&p2, pd2));
    DNNL_OK(dnnl_primitive_create(&p3, pd3));
    DNNL_OK(dnnl_memory_create(&mq, &dq, eng, q));
    DNNL_OK(dnnl_memory_create(&mk, &dk, eng, k));
    DNNL_OK(dnnl_memory_create(&mv, &dv, eng, v));
    DNNL_OK(dnnl_memory_create(&ms, &ds, eng, sc));
    DNNL_OK(dnnl_memory_create(&mo, &dop, eng, o));
    dnnl_exec_arg_t a1[3] = {{DNNL_ARG_SRC, mq}, {DNNL_ARG_WEIGHTS, mk},
                             {DNNL_ARG_DST, ms}};
    dnnl_exec_arg_t ab[3] = {{DNNL_ARG_SRC_0, ms}, {DNNL_ARG_SRC_1, mm},
                             {DNNL_ARG_DST, ms}};
    dnnl_exec_arg_t a2[2] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, ms}};
    dnnl_exec_arg_t a3[3] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mv},
                             {DNNL_ARG_DST, mo}};
    double tbest = INFINITY;
    for (int r = 0; r < reps + 1; r++) { /* + a warm-up */
        double t0 = now();
        DNNL_OK(dnnl_primitive_execute(p1, str, 3, a1));
        if (pb)
            DNNL_OK(dnnl_primitive_execute(pb, str, 3, ab));
        DNNL_OK(dnnl_primitive_execute(p2, str, 2, a2));
        DNNL_OK(dnnl_primitive_execute(p3, str, 3, a3));
        DNNL_OK(dnnl_stream_wait(str));
        double dt = now() - t0;
        tbest = r > 0 && dt < tbest ? dt : tbest;
    }
    best = tbest;
    snprintf(what, wlen, "%s matmul (%s) + softmax + matmul",
             dt == dnnl_f16 ? "f16" : "f32", impl1);
out:
    if (p1) dnnl_primitive_destroy(p1);
    if (p2) dnnl_primitive_destroy(p2);
    if (p3) dnnl_primitive_destroy(p3);
    if (pd1) dnnl_primitive_desc_destroy(pd1);
    if (pd2) dnnl_primitive_desc_destroy(pd2);
    if (pd3) dnnl_primitive_desc_destroy(pd3);
    if (pb) dnnl_primitive_destroy(pb);
    if (pdb) dnnl_primitive_desc_destroy(pdb);
    if (attr) dnnl_primitive_attr_destroy(attr);
    dnnl_memory_t mems[6] = {mq, mk, mv, ms, mo, mm};
    for (int i = 0; i < 6; i++)
        if (mems[i])
            dnnl_memory_destroy(mems[i]);
    if (str) dnnl_stream_destroy(str);
    if (eng) dnnl_engine_destroy(eng);
    free(q), free(k), free(v), free(sc), free(o), free(mask);
    return best;
}

/* f16 when oneDNN supports it here, else f32. */
double baseline_onednn_attention(const shape *s, const data *d, int reps,
                                 char *what, size_t wlen)
{
    /* oneDNN's OpenMP runtime: two threads, like everything else. */
    void (*set_threads)(int) =
        (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    if (set_threads)
        set_threads(THREADS);
    char why[128];
    double t = onednn_try(s, d, reps, dnnl_f16, why, sizeof why);
    if (t > 0) {
        snprintf(what, wlen, "%s", why);
        return t;
    }
    t = onednn_try(s, d, reps, dnnl_f32, what, wlen);
    if (t > 0) {
        size_t n = strlen(what);
        snprintf(what + n, wlen - n, "; f16: %s", why);
    }
    return t;
}
#else
double baseline_onednn_attention(const shape *s, const data *d, int reps,
                                 char *what, size_t wlen)
{
    (void)s, (void)d, (void)reps;
    snprintf(what, wlen, "built without oneDNN");
    return -1.0;
}
#endif
