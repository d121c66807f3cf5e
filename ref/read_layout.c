/* ref/ reading, feature "layout": the four 002 layouts, the dims they give
 * and where element (b, n, s, d) of query, key / value and attention_out
 * lives.
 *
 *   BSH        query [B, Q_S, N*D], key/value [B, KV_S, KV_N*D],
 *              out like query
 *   BSND       query [B, Q_S, N, D], key/value [B, KV_S, KV_N, D],
 *              out like query
 *   BNSD       query [B, N, Q_S, D], key/value [B, KV_N, KV_S, D],
 *              out like query
 *   BNSD_BSND  query and key/value as BNSD, out [B, Q_S, N, D]
 *   BSH_NBSD, BSND_NBSD, BNSD_NBSD (003, MLA)
 *              query and key/value in the layout before '_', out
 *              [N, B, Q_S, D] (003 §参数说明 input_layout: the part after
 *              '_' is the output's layout)
 *
 * So in BSH / BSND element (b, n, s, d) is at ((b S + s) N + n) D + d, in
 * BNSD at ((b N + n) S + s) D + d (S, N of the tensor: Q_S, N for query and
 * out, KV_S, KV_N for key and value); an NBSD out's at ((n B + b) Q_S + s)
 * D + d.  Every dim is checked below 2^40 and
 * the tensors are materialized, so these products stay far from int64
 * overflow.  The head dim is the innermost axis of every layout, so a
 * tensor laid out like query / key with another head dim W is read by the
 * same maps at width W (ref_q_index_w, ref_kv_index_w): MLA's query_rope /
 * key_rope with Dr (read_mla.c).  Row s is the physical row: with left padding (read_padding.c)
 * batch b's row i and key j live at ref_pad_q_row / ref_pad_kv_row; a
 * shared prefix's rows come before each batch's own keys (ref_load_kv_rows,
 * read_prefix.c).  The loads widen fp16 / bf16 (and the int8 of full
 * int8) exactly to binary64; int8 /
 * int4 / int32-packed key and value are dequantized (read_antiquant.c),
 * element (b, n, s, d) at the same flat index of the real dims (an int32
 * tensor's last dim is D / 8 or H / 8: its words hold elements 8i..8i+7,
 * ref_kv_last_dim). */
#include <math.h>
#include <string.h>
#include "ref_internal.h"

fia_status ref_read_layout_name(ref_problem *p, const fia_case *c,
                                const fia_case_data *d, fia_error *err)
{
    (void)d;
    static const struct {
        const char *name;
        ref_layout l;
        int o_nbsd;
    } tab[] = {{"BSH", REF_LAYOUT_BSH, 0},
               {"BSND", REF_LAYOUT_BSND, 0},
               {"BNSD", REF_LAYOUT_BNSD, 0},
               {"BNSD_BSND", REF_LAYOUT_BNSD_BSND, 0},
               {"BSH_NBSD", REF_LAYOUT_BSH, 1},
               {"BSND_NBSD", REF_LAYOUT_BSND, 1},
               {"BNSD_NBSD", REF_LAYOUT_BNSD, 1}};
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(c->attrs.input_layout, tab[i].name) == 0) {
            p->layout = tab[i].l;
            p->o_nbsd = tab[i].o_nbsd;
            return FIA_OK;
        }
    if (ref_read_tnd_name(p, c->attrs.input_layout) == FIA_OK)
        return FIA_OK; /* a token layout: read_tnd.c */
    return fia_fail(err, FIA_ERR_PARAM_INVALID, "unknown input_layout '%s'",
                    c->attrs.input_layout);
}

int ref_shape_is(const fia_tensor *t, int nd, const int64_t *dims)
{
    if (t->ndim != nd)
        return 0;
    for (int i = 0; i < nd; i++)
        if (t->shape[i] != dims[i])
            return 0;
    return 1;
}

int64_t ref_kv_last_dim(const ref_problem *p, const fia_tensor *t)
{
    return t->shape[t->ndim - 1] * (p->kv_pack > 1 ? p->kv_pack : 1);
}

/* Q_S and D of the query alone (BSH reads D through N). */
static fia_status query_dims(ref_problem *p, fia_error *err)
{
    const fia_tensor *q = p->q;
    p->Q_S = p->layout == REF_LAYOUT_BSH || p->layout == REF_LAYOUT_BSND
                 ? q->shape[1] : q->shape[2];
    if (p->layout != REF_LAYOUT_BSH) {
        p->D = q->shape[3];
        return FIA_OK;
    }
    if (q->shape[2] % p->N != 0)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "BSH: H %lld not "
                        "divisible by N %lld", (long long)q->shape[2],
                        (long long)p->N);
    p->D = q->shape[2] / p->N;
    return FIA_OK;
}

/* Q_S, KV_S, D and the key head dim of the layout; needs N, KV_N (gqa).
 * A paged call's key is a cache (read_paged.c), a list's a tensor per
 * batch (read_tensor_list.c): the query's dims here, the key's there. */
static fia_status layout_dims(ref_problem *p, int64_t *kd, fia_error *err)
{
    const fia_tensor *q = p->q, *k = p->k;
    if (p->paged || p->kv_list) {
        fia_status st = query_dims(p, err);
        if (st != FIA_OK)
            return st;
        return p->paged ? ref_paged_key_dims(p, kd, err)
                        : ref_list_key_dims(p, kd, err);
    }
    switch (p->layout) {
    case REF_LAYOUT_BSH:
        p->Q_S = q->shape[1];
        p->KV_S = k->shape[1];
        if (q->shape[2] % p->N != 0 || ref_kv_last_dim(p, k) % p->KV_N != 0)
            return fia_fail(err, FIA_ERR_PARAM_INVALID,
                            "BSH: H %lld / H_kv %lld not divisible by N %lld "
                            "/ KV_N %lld", (long long)q->shape[2],
                            (long long)k->shape[2], (long long)p->N,
                            (long long)p->KV_N);
        p->D = q->shape[2] / p->N;
        *kd = ref_kv_last_dim(p, k) / p->KV_N;
        return FIA_OK;
    case REF_LAYOUT_BSND:
        p->Q_S = q->shape[1];
        p->KV_S = k->shape[1];
        if (q->shape[2] != p->N || k->shape[2] != p->KV_N)
            return fia_fail(err, FIA_ERR_PARAM_INVALID,
                            "BSND: head dims %lld / %lld != N %lld / KV_N "
                            "%lld", (long long)q->shape[2],
                            (long long)k->shape[2], (long long)p->N,
                            (long long)p->KV_N);
        p->D = q->shape[3];
        *kd = ref_kv_last_dim(p, k);
        return FIA_OK;
    default: /* BNSD, BNSD_BSND */
        p->Q_S = q->shape[2];
        p->KV_S = k->shape[2];
        if (q->shape[1] != p->N || k->shape[1] != p->KV_N)
            return fia_fail(err, FIA_ERR_PARAM_INVALID,
                            "BNSD: head dims %lld / %lld != N %lld / KV_N "
                            "%lld", (long long)q->shape[1],
                            (long long)k->shape[1], (long long)p->N,
                            (long long)p->KV_N);
        p->D = q->shape[3];
        *kd = ref_kv_last_dim(p, k);
        return FIA_OK;
    }
}

fia_status ref_read_layout_dims(ref_problem *p, const fia_case *c,
                                const fia_case_data *d, fia_error *err)
{
    const fia_tensor *q = p->q, *k = p->k;
    if (p->tnd)
        return ref_read_tnd_dims(p, c, d, err);
    int want = p->layout == REF_LAYOUT_BSH ? 3 : 4;
    /* a paged cache's rank is its own (read_paged.c) */
    int kwant = p->paged ? (k->ndim >= 3 && k->ndim <= 5 ? k->ndim : -1)
                         : want;
    if (q->ndim != want || k->ndim != kwant)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "layout needs rank-%d query and key (got %d and %d)",
                        want, (int)q->ndim, (int)k->ndim);
    if (fia_tensor_numel(q) < 0 || fia_tensor_numel(k) < 0)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "negative dim or element count overflow");
    for (int i = 0; i < want; i++)
        if (q->shape[i] >= REF_DIM_LIMIT)
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "dim beyond 2^40");
    for (int i = 0; i < kwant; i++)
        if (k->shape[i] >= REF_DIM_LIMIT)
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "dim beyond 2^40");
    if (!ref_shape_is(p->v, k->ndim, k->shape))
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "value shape differs from key shape");
    p->B = q->shape[0];
    if (!p->paged && !p->kv_list && k->shape[0] != p->B)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "key batch %lld != query batch %lld",
                        (long long)k->shape[0], (long long)p->B);
    int64_t kd = 0;
    fia_status st = layout_dims(p, &kd, err);
    if (st != FIA_OK)
        return st;
    if (fia_tensor_numel(q) > 0 && kd != p->D)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "key head dim %lld != query head dim %lld",
                        (long long)kd, (long long)p->D);
    p->Dv = p->D; /* value's shape is key's: its D too */
    p->decode = p->Q_S == 1;
    return FIA_OK;
}

/* Element (b, n, i, dd) of a tensor laid out like the query with head dim
 * W (D for query and attention_out's input side, Dr for query_rope,
 * read_mla.c): the head dim is the innermost axis of every layout, so only
 * W changes. */
int64_t ref_q_index_w(const ref_problem *p, int64_t b, int64_t n, int64_t i,
                      int64_t dd, int64_t W)
{
    if (p->tnd)
        return ref_tnd_q_index(p, b, n, i, dd, W);
    i = ref_pad_q_row(p, b, i); /* left padding: the physical row */
    if (p->layout == REF_LAYOUT_BSH || p->layout == REF_LAYOUT_BSND)
        return ((b * p->Q_S + i) * p->N + n) * W + dd;
    return ((b * p->N + n) * p->Q_S + i) * W + dd;
}

int64_t ref_q_index(const ref_problem *p, int64_t b, int64_t n, int64_t i,
                    int64_t dd)
{
    return ref_q_index_w(p, b, n, i, dd, p->D);
}

/* Element (b, kn, j, dd) of a tensor laid out like the key (a cache, a
 * token layout, a list's tensor b) with head dim W (D for key and value,
 * Dr for key_rope) and, in an NZ cache, tiles `tile` wide. */
static int64_t kv_index(const ref_problem *p, int64_t b, int64_t kn,
                        int64_t j, int64_t dd, int64_t W, int64_t tile)
{
    if (p->paged)
        return ref_paged_kv_index(p, b, kn, j, dd, W, tile);
    if (p->tnd)
        return ref_tnd_kv_index(p, b, kn, j, dd, W);
    j = ref_pad_kv_row(p, b, j); /* left padding (never paged or a list) */
    if (p->kv_list) /* within tensor b, batch 1 of S_b rows */
        return p->layout == REF_LAYOUT_BSH || p->layout == REF_LAYOUT_BSND
                   ? (j * p->KV_N + kn) * W + dd
                   : (kn * p->list_s[b] + j) * W + dd;
    if (p->layout == REF_LAYOUT_BSH || p->layout == REF_LAYOUT_BSND)
        return ((b * p->KV_S + j) * p->KV_N + kn) * W + dd;
    return ((b * p->KV_N + kn) * p->KV_S + j) * W + dd;
}

/* key_rope (NZ: bf16 tiles of 16) */
int64_t ref_kv_index_w(const ref_problem *p, int64_t b, int64_t kn,
                       int64_t j, int64_t dd, int64_t W)
{
    return kv_index(p, b, kn, j, dd, W, 16);
}

/* key and value (NZ: tiles of p->nz_tile, 32 for int8) */
int64_t ref_kv_index(const ref_problem *p, int64_t b, int64_t kn, int64_t j,
                     int64_t dd)
{
    return kv_index(p, b, kn, j, dd, p->D, p->nz_tile);
}

/* value: head dim Dv (= D but for the token layouts' 192/128, read_tnd.c;
 * never an NZ cache there), NZ tiles as the key's */
int64_t ref_v_index(const ref_problem *p, int64_t b, int64_t kn, int64_t j,
                    int64_t dd)
{
    return kv_index(p, b, kn, j, dd, p->Dv, p->nz_tile);
}

/* attention_out has value's head dim Dv (003 §返回值说明; = D but for the
 * token layouts, read_tnd.c). */
int64_t ref_out_index(const ref_problem *p, int64_t b, int64_t n, int64_t i,
                      int64_t dd)
{
    if (p->tnd)
        return ref_tnd_out_index(p, b, n, i, dd);
    i = ref_pad_q_row(p, b, i);
    if (p->o_nbsd)
        return ((n * p->B + b) * p->Q_S + i) * p->Dv + dd;
    if (p->layout == REF_LAYOUT_BNSD)
        return ((b * p->N + n) * p->Q_S + i) * p->Dv + dd;
    return ((b * p->Q_S + i) * p->N + n) * p->Dv + dd;
}

/* Exact widening of an fp16 / bf16 element, by bits (the same values as
 * dtype.h's decoding, NaN sign included; this is the reference's inner
 * loop). */
static inline double load_half(fia_dtype dt, const void *data, int64_t i)
{
    if (dt == FIA_DT_INT8) /* full int8 (int8_quant.md) */
        return (double)((const int8_t *)data)[i];
    uint16_t h = ((const uint16_t *)data)[i];
    if (dt == FIA_DT_BF16) {
        uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, sizeof f);
        return (double)f;
    }
    uint64_t sign = (uint64_t)(h >> 15) << 63;
    unsigned e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    double v;
    if (e == 0x1f) {
        v = m ? NAN : INFINITY;
    } else if (e == 0) {
        v = (double)m * 0x1p-24;
    } else {
        uint64_t u = ((uint64_t)(e - 15 + 1023) << 52) | ((uint64_t)m << 42);
        memcpy(&v, &u, sizeof v);
    }
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    u |= sign;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* q[0, D) the query row, q[D, D + Dr) its query_rope row (MLA,
 * read_mla.c; Dr 0 without). */
void ref_load_q_row(const ref_problem *p, int64_t b, int64_t n, int64_t i,
                    double *q)
{
    /* MLA full quantization: q_int8 times the row's scale, exact */
    const double qs =
        p->query_quant ? ref_query_quant_q_scale(p, b, n, i) : 1.0;
    for (int64_t d = 0; d < p->D; d++)
        q[d] = qs * load_half(p->q->dtype, p->q->data,
                              ref_q_index(p, b, n, i, d));
    for (int64_t d = 0; d < p->Dr; d++)
        q[p->D + d] = load_half(p->qr->dtype, p->qr->data,
                                ref_q_index_w(p, b, n, i, d, p->Dr));
}

/* Logical key j: row j of the shared prefix for j < P, else the batch's
 * own key j - P (read_prefix.c); with antiquant (no prefix) the
 * dequantized element (read_antiquant.c).  Key rows are Dk = D + Dr wide:
 * with MLA (no prefix, no antiquant: read_mla.c) columns [D, Dk) hold the
 * key_rope row of the same key, read through the same map (block table,
 * tokens, layout) at width Dr; value rows are Dv wide (value's own head
 * dim: D but for a token layout's narrower value, read_tnd.c, which has
 * no prefix and no antiquant). */
int ref_load_kv_rows(const ref_problem *p, int64_t b, int64_t kn,
                     int64_t nkeys, double *k, double *v, double *klo,
                     double *vlo)
{
    const int64_t D = p->D, Dr = p->Dr, Dk = D + Dr, Dv = p->Dv;
    if (p->aq) {
        int any = 0;
        for (int64_t j = 0; j < nkeys; j++)
            for (int64_t d = 0; d < D; d++) {
                const int64_t e = j * D + d;
                ref_aq_load(p, 0, b, kn, j, d, &k[j * Dk + d],
                            &klo[j * Dk + d]);
                ref_aq_load(p, 1, b, kn, j, d, &v[e], &vlo[e]);
                any |= klo[j * Dk + d] != 0.0 || vlo[e] != 0.0;
            }
        return any;
    }
    const fia_tensor *kt = ref_k_tensor(p, b), *vt = ref_v_tensor(p, b);
    /* MLA full quantization: int8 times the per-tensor scale, exact (no
     * prefix there: read_mla.c) */
    const double ks_ = p->query_quant ? p->query_quant_dsk : 1.0,
                 vs_ = p->query_quant ? p->query_quant_dsv : 1.0;
    for (int64_t j = 0; j < nkeys; j++) {
        const int pre = j < p->P;
        const fia_tensor *ks = pre ? p->kp : kt, *vs = pre ? p->vp : vt;
        for (int64_t d = 0; d < D; d++) {
            int64_t idx = pre ? ref_prefix_index(p, kn, j, d)
                              : ref_kv_index(p, b, kn, j - p->P, d);
            k[j * Dk + d] = ks_ * load_half(ks->dtype, ks->data, idx);
        }
        for (int64_t d = 0; d < Dv; d++) {
            int64_t idx = pre ? ref_prefix_index(p, kn, j, d)
                              : ref_v_index(p, b, kn, j - p->P, d);
            v[j * Dv + d] = vs_ * load_half(vs->dtype, vs->data, idx);
        }
        for (int64_t d = 0; d < Dr; d++) /* MLA: never a prefix key */
            k[j * Dk + D + d] = load_half(
                p->kr->dtype, p->kr->data,
                ref_kv_index_w(p, b, kn, j - p->P, d, Dr));
    }
    return 0;
}
