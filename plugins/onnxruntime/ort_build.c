/* Phase two: the call's tensors rewritten as GQA's inputs, the run, and
 * GQA's output written as attention_out.
 *
 *   query (B, S, N*D)           FIA's rows, transposed from BNSD
 *   past_key/value (B, KV_N, past_len, D)
 *                               batch b's keys 0 .. past_b - 1, then zeros
 *   key/value (B, S, KV_N*D)    keys past_b .. kv_len - 1, then zeros (seen
 *                               only by the padding rows i >= q_len; on
 *                               the explicit pattern -inf in the bias)
 *   seqlens_k[b]                past_b + S - 1 (GQA: total length - 1)
 *   total_sequence_length       past_len + S
 *   attention_bias (1|B, 1|N, S, total)
 *                               pse_shift at key j = position j, -inf where
 *                               the decode path's mask excludes the key,
 *                               or the explicit pattern's key set
 *   head_sink (N)               learnable_sink
 *
 * D here is GQA's head size DG: FIA's D columns, then zeros.  A paged
 * cache is read through its block table (ort_kv_at).  A key the decode
 * path's mask (or the explicit pattern) excludes from every row is also
 * given as zeros (its data is
 * never to be read: a NaN there must not meet the bias's -inf).  In the
 * float32 fallback (no kernel for the dtype) every input is widened
 * exactly and the output rounded once, to nearest even. */
#include <stdlib.h>
#include <string.h>
#include "ort_plan.h"

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31,
             m = h & 0x3ff, u;
    if (e == 31) {
        u = sign | 0x7f800000u | m << 13;
    } else if (e == 0) {
        float f = (float)m * 0x1p-24f; /* exact: 11 bits */
        return sign ? -f : f;
    } else {
        u = sign | (e + 112) << 23 | m << 13;
    }
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static float bf16_to_float(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint16_t float_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)(u >> 16 | 0x40); /* quiet NaN */
    u += 0x7fffu + (u >> 16 & 1);
    return (uint16_t)(u >> 16);
}

static uint16_t float_to_half(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint16_t sign = (uint16_t)(u >> 16 & 0x8000);
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u)
        return sign | 0x7e00;
    if (a >= 0x477ff000u) /* rounds to >= 65520: inf */
        return sign | 0x7c00;
    if (a < 0x38800000u) { /* below 2^-14: subnormal, in units of 2^-24 */
        float mag;
        memcpy(&mag, &a, sizeof mag);
        float t = mag * 0x1p24f; /* exact scaling */
        uint32_t n = (uint32_t)t;
        float r = t - (float)n;
        if (r > 0.5f || (r == 0.5f && (n & 1)))
            n++;
        return sign | (uint16_t)n;
    }
    uint32_t e = (a >> 23) - 112, m = a & 0x7fffff;
    uint32_t h = e << 10 | m >> 13, rest = m & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
        h++;
    return sign | (uint16_t)h;
}

/* Element e of an fp16/bf16 FIA tensor into slot d of a GQA buffer. */
static void put(const ort_plan *p, void *dst, size_t d, const void *src,
                size_t e)
{
    uint16_t h = ((const uint16_t *)src)[e];
    if (!p->wide)
        ((uint16_t *)dst)[d] = h;
    else
        ((float *)dst)[d] = p->q->dtype == FIA_DT_FP16 ? half_to_float(h)
                                                        : bf16_to_float(h);
}

/* Offset of (b, s, n, d) in an FIA tensor of S rows and `heads` heads. */
static size_t fia_at(const ort_plan *p, int64_t S, int64_t heads, int64_t b,
                     int64_t s, int64_t n, int64_t d)
{
    if (p->bnsd_in)
        return (size_t)(((b * heads + n) * S + s) * p->D + d);
    return (size_t)(((b * S + s) * heads + n) * p->D + d);
}

size_t ort_kv_at(const ort_plan *p, int64_t b, int64_t j, int64_t n,
                 int64_t d)
{
    if (p->table == NULL)
        return fia_at(p, p->KV_S, p->KV_N, b, j, n, d);
    int64_t id = p->table[b * p->table_cols + j / p->block_size],
            o = j % p->block_size;
    if (p->paged_rank == 3)
        return (size_t)(((id * p->block_size + o) * p->KV_N + n) * p->D + d);
    return (size_t)(((id * p->KV_N + n) * p->block_size + o) * p->D + d);
}

static int64_t numel_of(const fia_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= t->shape[i];
    return n;
}

/* Whether the decode path's mask excludes key j of batch b. */
static int masked(const ort_plan *p, int64_t b, int64_t j)
{
    const fia_tensor *m = p->mask;
    if (m == NULL)
        return 0;
    int64_t mb = m->shape[0] == p->B ? b : 0;
    size_t at = (size_t)(mb * (numel_of(m) / m->shape[0]) + j);
    return ((const uint8_t *)m->data)[at] != 0;
}

/* Whether key j of batch b is given as zeros: it takes part in no row */
static int unused(const ort_plan *p, int64_t b, int64_t j)
{
    return p->explicit_pattern ? ort_key_unused(p, b, j) : masked(p, b, j);
}

/* Keys 0 .. past_b - 1 into the past, past_b .. kv_len - 1 into the new
 * tokens (q_len of them on the causal path), each row of DG slots of
 * which the first D are the key's (calloc'd buffers: zeros elsewhere). */
static void build_kv(ort_plan *p)
{
    const int64_t D = p->D, DG = p->DG, KV_N = p->KV_N, S = p->S,
                  P = p->past_len;
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t n = 0; n < KV_N; n++) {
            for (int64_t t = 0; t < p->past_b[b]; t++) {
                if (unused(p, b, t))
                    continue;
                for (int64_t d = 0; d < D; d++) {
                    size_t at = (size_t)(((b * KV_N + n) * P + t) * DG + d);
                    size_t e = ort_kv_at(p, b, t, n, d);
                    put(p, p->gpast_k, at, p->k->data, e);
                    put(p, p->gpast_v, at, p->v->data, e);
                }
            }
            for (int64_t t = 0; t < p->kv_len[b] - p->past_b[b]; t++) {
                int64_t j = p->past_b[b] + t;
                if (unused(p, b, j))
                    continue;
                for (int64_t d = 0; d < D; d++) {
                    size_t at = (size_t)(((b * S + t) * KV_N + n) * DG + d);
                    size_t e = ort_kv_at(p, b, j, n, d);
                    put(p, p->gk, at, p->k->data, e);
                    put(p, p->gv, at, p->v->data, e);
                }
            }
        }
    for (int64_t b = 0; b < p->B; b++)
        p->seqlens_k[b] = (int32_t)(p->past_b[b] + S - 1);
}

static void build_q(ort_plan *p)
{
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t s = 0; s < p->S; s++)
            for (int64_t n = 0; n < p->N; n++)
                for (int64_t d = 0; d < p->D; d++) {
                    size_t at = (size_t)(((b * p->S + s) * p->N + n) * p->DG + d);
                    put(p, p->gq, at, p->q->data,
                        fia_at(p, p->S, p->N, b, s, n, d));
                }
}

static void build_bias(ort_plan *p)
{
    const fia_tensor *e = p->pse;
    const int64_t T = p->total_max;
    const uint16_t ninf16 = p->q->dtype == FIA_DT_FP16 ? 0xfc00 : 0xff80;
    for (int64_t b = 0; b < p->bias_b; b++)
        for (int64_t n = 0; n < p->bias_n; n++)
            for (int64_t i = 0; i < p->S; i++)
                for (int64_t t = 0; t < T; t++) {
                    size_t at = (size_t)(((b * p->bias_n + n) * p->S + i) * T + t);
                    /* batch b's position t is FIA's key t below kv_len;
                     * with one bias for every batch, below KV_S */
                    int64_t len = p->bias_b > 1 ? p->kv_len[b] : p->KV_S;
                    /* the explicit pattern: bias_b is B (or B = 1) */
                    int out = p->explicit_pattern
                                  ? t >= p->kv_len[b] || !ort_admits(p, b, i, t)
                                  : t < len && masked(p, b, t);
                    if (out) {
                        if (p->wide)
                            ((float *)p->gbias)[at] = -__builtin_inff();
                        else
                            ((uint16_t *)p->gbias)[at] = ninf16;
                    } else if (t < len && e != NULL) {
                        int64_t eb = e->shape[0] == p->B ? b : 0;
                        size_t src = (size_t)(((eb * e->shape[1] + n) *
                                                   e->shape[2] + i) *
                                                  e->shape[3] + t);
                        put(p, p->gbias, at, e->data, src);
                    }
                }
}

static void build_sink(ort_plan *p)
{
    const uint16_t *s = p->sink->data;
    for (int64_t n = 0; n < p->N; n++) {
        float f = bf16_to_float(s[n]);
        if (p->wide)
            ((float *)p->gsink)[n] = f;
        else if (p->q->dtype == FIA_DT_BF16)
            ((uint16_t *)p->gsink)[n] = s[n];
        else
            ((uint16_t *)p->gsink)[n] = float_to_half(f); /* exact: checked */
    }
}

static void write_out(const ort_plan *p)
{
    uint16_t *o = p->out->data;
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t s = 0; s < p->S; s++)
            for (int64_t n = 0; n < p->N; n++)
                for (int64_t d = 0; d < p->D; d++) {
                    /* GQA's rows have DG columns, FIA's D */
                    size_t at = (size_t)(((b * p->S + s) * p->N + n) * p->DG + d);
                    size_t dst = p->bnsd_out
                                     ? (size_t)(((b * p->N + n) * p->S + s) * p->D + d)
                                     : (size_t)(((b * p->S + s) * p->N + n) * p->D + d);
                    if (!p->wide)
                        o[dst] = ((const uint16_t *)p->gout)[at];
                    else if (p->out->dtype == FIA_DT_FP16)
                        o[dst] = float_to_half(((const float *)p->gout)[at]);
                    else
                        o[dst] = float_to_bf16(((const float *)p->gout)[at]);
                }
}

void ort_plan_free(ort_plan *p)
{
    if (p == NULL)
        return;
    free(p->q_len), free(p->kv_len), free(p->past_b);
    free(p->gq), free(p->gk), free(p->gv), free(p->gpast_k);
    free(p->gpast_v), free(p->gbias), free(p->gsink), free(p->gout);
    free(p->seqlens_k);
    free(p);
}

fia_status ort_run_plan(ort_plan *p)
{
    if (p->B == 0 || p->S == 0 || p->N == 0 || p->D == 0)
        return FIA_OK; /* an empty query: nothing to write */
    const size_t es = p->elem_size;
    const size_t nq = (size_t)(p->B * p->S * p->N * p->DG);
    const size_t nkv = (size_t)(p->B * p->S * p->KV_N * p->DG);
    const size_t npast = (size_t)(p->B * p->KV_N * p->past_len * p->DG);
    const size_t nbias = (size_t)(p->bias_b * p->bias_n * p->S * p->total_max);
    p->gq = calloc(nq, es); /* zero columns D .. DG - 1 */
    p->gout = malloc(nq * es);
    p->gk = calloc(nkv, es);
    p->gv = calloc(nkv, es);
    p->seqlens_k = malloc((size_t)p->B * sizeof *p->seqlens_k);
    int fail = !p->gq || !p->gout || !p->gk || !p->gv || !p->seqlens_k;
    if (p->sig.has_past) {
        p->gpast_k = calloc(npast, es);
        p->gpast_v = calloc(npast, es);
        fail |= !p->gpast_k || !p->gpast_v;
    }
    if (p->sig.has_bias) {
        p->gbias = calloc(nbias, es);
        fail |= !p->gbias;
    }
    if (p->sig.has_sink) {
        p->gsink = malloc((size_t)p->N * es);
        fail |= !p->gsink;
    }
    if (fail)
        return ort_fail(FIA_ERR_RUNTIME_ERROR, "out of memory");
    build_q(p);
    build_kv(p);
    if (p->sig.has_bias)
        build_bias(p);
    if (p->sig.has_sink)
        build_sink(p);
    fia_status st = ort_execute(p);
    if (st == FIA_OK)
        write_out(p);
    return st;
}
