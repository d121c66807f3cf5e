/* An example system under test: the plain attention a kernel engineer
 * would write first, as a fiacheck plug-in (include/fia/sut.h).  It is
 * the template docs/sut.md starts from, and the kernel built outside the
 * tree in tests/cli/sut_external.sh.
 *
 * It computes numbers only (validates = 0): fiacheck asks it only the
 * calls the documents accept, and it answers FIA_ERR_NOT_MODELED for what
 * it does not cover -- everything but float16 / bfloat16 / float32
 * query, key and value in BSH, BSND or BNSD with GQA, no mask and no
 * optional input.  For each (b, n, s): m = max_j s_j, out = sum_j
 * e^(s_j - m) v_j / sum_j e^(s_j - m) with s_j = scale q.k_j, in float
 * with a double accumulator, rounded once to the output's dtype.
 *
 * Built with -DEXAMPLE_BUG it drops the last key of rows with more than
 * 48 keys (a block-tail bug), for the test that a campaign finds it.
 * It uses nothing of fiacheck's but the header's types. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fia/sut.h"

#ifndef EXAMPLE_VERSION
#define EXAMPLE_VERSION "1.0"
#endif

static _Thread_local char last_error[256];

static fia_status fail(fia_status st, const char *msg)
{
    snprintf(last_error, sizeof last_error, "%s", msg);
    return st;
}

/* IEEE binary16 <-> float, round to nearest even (done here: a plug-in
 * links nothing of fiacheck's). */
static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0    ? ldexpf((float)m, -24)
              : e == 31 ? (m ? NAN : INFINITY)
                        : ldexpf((float)(m | 1024), e - 25);
    return (h & 0x8000) ? -v : v;
}

static uint16_t float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    if (isnan(f))
        return sign | 0x7e00;
    float a = fabsf(f);
    if (a >= 65520.0f)
        return sign | 0x7c00;
    if (a < ldexpf(1.0f, -14)) { /* subnormal: a multiple of 2^-24 */
        float q = nearbyintf(a * 16777216.0f); /* ties to even */
        return sign | (uint16_t)q;
    }
    int e;
    float fr = frexpf(a, &e);                 /* a = fr * 2^e, fr in [.5,1) */
    float q = nearbyintf(ldexpf(fr, 11));     /* 11 significant bits */
    if (q >= 2048.0f) {
        q /= 2.0f;
        e++;
    }
    return sign | (uint16_t)((e + 14) << 10) | (uint16_t)((int)q - 1024);
}

static float bf16_to_float(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

static uint16_t float_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if (isnan(f))
        return (uint16_t)((x >> 16) | 0x40);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

static float load(fia_dtype dt, const void *p, int64_t i)
{
    switch (dt) {
    case FIA_DT_FP16: return half_to_float(((const uint16_t *)p)[i]);
    case FIA_DT_BF16: return bf16_to_float(((const uint16_t *)p)[i]);
    default: return ((const float *)p)[i];
    }
}

static void store(fia_dtype dt, void *p, int64_t i, double v)
{
    switch (dt) {
    case FIA_DT_FP16: ((uint16_t *)p)[i] = float_to_half((float)v); break;
    case FIA_DT_BF16: ((uint16_t *)p)[i] = float_to_bf16((float)v); break;
    default: ((float *)p)[i] = (float)v; break;
    }
}

static int is_float(const fia_tensor *t)
{
    return t != NULL && (t->dtype == FIA_DT_FP16 || t->dtype == FIA_DT_BF16 ||
                         t->dtype == FIA_DT_FP32);
}

/* One problem, as phase one planned it. */
typedef struct plan {
    int64_t B, N, KV_N, Q_S, KV_S, D;
    int bnsd;                  /* else BSH / BSND: (b, s, n, d) */
    double scale;
    fia_tensor q, k, v, out;
} plan;

/* Element (b, n, s, d) of a (B, N, S, D) problem in this plan's layout. */
static int64_t at(const plan *p, int64_t n_heads, int64_t s_len, int64_t b,
                  int64_t n, int64_t s, int64_t d)
{
    return p->bnsd ? ((b * n_heads + n) * s_len + s) * p->D + d
                   : ((b * s_len + s) * n_heads + n) * p->D + d;
}

static fia_status prepare(const fia_sut_args *a, uint64_t *ws,
                          void **executor)
{
    *executor = NULL;
    *ws = 0;
    last_error[0] = '\0';
    if (a->size < sizeof *a)
        return fail(FIA_ERR_NOT_MODELED, "an older fiacheck (args too short)");
    const void *opt[] = {a->pse_shift, a->atten_mask, a->actual_seq_lengths,
                         a->actual_seq_lengths_kv, a->dequant_scale1,
                         a->quant_scale1, a->dequant_scale2, a->quant_scale2,
                         a->quant_offset2, a->antiquant_scale,
                         a->antiquant_offset, a->block_table,
                         a->query_padding_size, a->kv_padding_size,
                         a->key_antiquant_scale, a->key_antiquant_offset,
                         a->value_antiquant_scale, a->value_antiquant_offset,
                         a->key_shared_prefix, a->value_shared_prefix,
                         a->actual_shared_prefix_len, a->query_rope,
                         a->key_rope, a->dequant_scale_query,
                         a->learnable_sink, a->softmax_lse};
    for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++)
        if (opt[i] != NULL && (i != sizeof opt / sizeof opt[0] - 1 ||
                               a->softmax_lse_flag))
            return fail(FIA_ERR_NOT_MODELED, "only the plain call: no "
                        "optional input");
    if (a->softmax_lse_flag || a->sparse_mode != 0)
        return fail(FIA_ERR_NOT_MODELED, "no lse, sparse_mode 0 only");
    if (a->key == NULL || a->value == NULL || a->key->count != 1 ||
        a->value->count != 1 || a->attention_out == NULL)
        return fail(FIA_ERR_NOT_MODELED, "one key and one value tensor");
    const fia_tensor *q = a->query, *k = a->key->tensors[0],
                     *v = a->value->tensors[0], *o = a->attention_out;
    if (!is_float(q) || !is_float(k) || !is_float(v) || !is_float(o))
        return fail(FIA_ERR_NOT_MODELED, "float inputs only");
    plan p = {.scale = a->scale, .N = a->num_heads,
              .KV_N = a->num_key_value_heads ? a->num_key_value_heads
                                             : a->num_heads};
    const char *lay = a->input_layout ? a->input_layout : "";
    if (p.N <= 0 || p.KV_N <= 0 || p.N % p.KV_N != 0)
        return fail(FIA_ERR_NOT_MODELED, "heads");
    if (strcmp(lay, "BNSD") == 0 && q->ndim == 4 && k->ndim == 4) {
        p.bnsd = 1;
        p.B = q->shape[0], p.Q_S = q->shape[2], p.D = q->shape[3];
        p.KV_S = k->shape[2];
        if (q->shape[1] != p.N || k->shape[1] != p.KV_N)
            return fail(FIA_ERR_NOT_MODELED, "BNSD heads");
    } else if (strcmp(lay, "BSND") == 0 && q->ndim == 4 && k->ndim == 4) {
        p.B = q->shape[0], p.Q_S = q->shape[1], p.D = q->shape[3];
        p.KV_S = k->shape[1];
        if (q->shape[2] != p.N || k->shape[2] != p.KV_N)
            return fail(FIA_ERR_NOT_MODELED, "BSND heads");
    } else if (strcmp(lay, "BSH") == 0 && q->ndim == 3 && k->ndim == 3) {
        p.B = q->shape[0], p.Q_S = q->shape[1];
        p.D = q->shape[2] / p.N;
        p.KV_S = k->shape[1];
        if (q->shape[2] != p.N * p.D || k->shape[2] != p.KV_N * p.D)
            return fail(FIA_ERR_NOT_MODELED, "BSH heads");
    } else {
        return fail(FIA_ERR_NOT_MODELED, "layouts BSH, BSND, BNSD only");
    }
    if (p.B < 1 || p.Q_S < 1 || p.KV_S < 1 || p.D < 1 ||
        p.KV_S > (1 << 20))
        return fail(FIA_ERR_NOT_MODELED, "empty or huge problem");
    p.q = *q, p.k = *k, p.v = *v, p.out = *o;
    plan *x = malloc(sizeof *x);
    if (x == NULL)
        return fail(FIA_ERR_RUNTIME_ERROR, "out of memory");
    *x = p;
    *executor = x;
    *ws = (uint64_t)p.KV_S * sizeof(double); /* the row's scores */
    return FIA_OK;
}

static fia_status run(void *ws, uint64_t ws_size, void *executor)
{
    plan *p = executor;
    double *sc = ws;
    if (p == NULL || sc == NULL || ws_size < (uint64_t)p->KV_S * sizeof *sc) {
        free(p);
        return fail(FIA_ERR_RUNTIME_ERROR, "no workspace");
    }
    const int64_t g = p->N / p->KV_N;
    int64_t keys = p->KV_S;
#ifdef EXAMPLE_BUG
    if (keys > 48)
        keys--; /* the planted bug: the block tail loses its last key */
#endif
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t n = 0; n < p->N; n++)
            for (int64_t s = 0; s < p->Q_S; s++) {
                const int64_t kn = n / g;
                double m = -INFINITY, sum = 0.0;
                for (int64_t j = 0; j < keys; j++) {
                    double dot = 0.0;
                    for (int64_t d = 0; d < p->D; d++)
                        dot += (double)load(p->q.dtype, p->q.data,
                                            at(p, p->N, p->Q_S, b, n, s, d)) *
                               load(p->k.dtype, p->k.data,
                                    at(p, p->KV_N, p->KV_S, b, kn, j, d));
                    sc[j] = p->scale * dot;
                    m = sc[j] > m ? sc[j] : m;
                }
                for (int64_t j = 0; j < keys; j++) {
                    sc[j] = exp(sc[j] - m);
                    sum += sc[j];
                }
                for (int64_t d = 0; d < p->D; d++) {
                    double acc = 0.0;
                    for (int64_t j = 0; j < keys; j++)
                        acc += sc[j] * load(p->v.dtype, p->v.data,
                                            at(p, p->KV_N, p->KV_S, b, kn, j,
                                               d));
                    store(p->out.dtype, p->out.data,
                          at(p, p->N, p->Q_S, b, n, s, d), acc / sum);
                }
            }
    free(p);
    return FIA_OK;
}

static void destroy(void *executor)
{
    free(executor);
}

static const char *error_text(void)
{
    return last_error;
}

static const fia_sut table = {
    .abi_version = FIA_SUT_ABI_VERSION,
    .name = "example",
    .version = EXAMPLE_VERSION,
    .validates = 0, /* numbers only */
    .get_workspace_size = prepare,
    .run = run,
    .destroy = destroy,
    .last_error = error_text,
};

__attribute__((visibility("default"))) const fia_sut *fiacheck_sut_v1(void);

const fia_sut *fiacheck_sut_v1(void)
{
    return &table;
}
