/* precise: at run time, what a row where no key takes part gives
 * (docs/features/precise.md): with the row-invalid correction (inner_precise
 * bit 1, or sparse mode 3 with q_len > kv_len, which the operator corrects
 * by itself: 002 innerPrecise) output 0 and lse +inf; without it what the
 * released code gives (RELEASED "Degenerate shapes"): every score is the
 * mask fill, so the row is the plain mean of V. */
#include "fast_internal.h"

/* The fill a fully masked row sees in every score. */
#define FAST_MASK_FILL (-1e12)

bool fast_row_corrected(const fast_plan *p, int64_t q_len, int64_t kv_len)
{
    return p->row_invalid || (p->sparse.mode == 3 && q_len > kv_len);
}

/* The values of logical key j of KV head kvh, D of them into out:
 * fp16/bf16, or int8/int4 dequantized (antiquant.md) with the head's
 * per-channel vectors sv / ov, or (sv NULL) the key's per-token scale and
 * offset.  The key's row is found once for its D values. */
static void value_row(const fast_plan *p, int64_t b, int64_t kvh, int64_t j,
                      const float *sv, const float *ov, double *out)
{
    if (p->query_quant.on) { /* MLA full quantization: int8 times dsv */
        const int8_t *k8, *v8;
        fast_query_quant_src(p, b, kvh, j, &k8, &v8);
        const float dsv = fast_query_quant_scale(p, 1);
        for (int64_t d = 0; d < p->D; d++)
            out[d] = (double)((float)v8[fast_kv_col(p, d)] * dsv);
        return;
    }
    if (!p->antiquant.on) {
        const uint16_t *kr, *vr;
        fast_kv_src(p, b, kvh, j, &kr, &vr);
        for (int64_t d = 0; d < p->D; d++) {
            const uint16_t x = vr[fast_kv_col(p, d)]; /* NZ: its tile */
            out[d] = p->dt == FIA_DT_FP16 ? fast_fp16_to_float(x)
                                          : fast_bf16_to_float(x);
        }
        return;
    }
    const void *kr, *vr;
    fast_aq_src(p, b, kvh, j, &kr, &vr);
    float ts = 0.0f, to = 0.0f;
    if (sv == NULL)
        fast_aq_key(p, 1, b, kvh, j, &ts, &to);
    for (int64_t d = 0; d < p->D; d++) {
        int x;
        if (p->kv_dt == FIA_DT_INT4) {
            const uint8_t byte = ((const uint8_t *)vr)[d / 2];
            x = d % 2 ? byte >> 4 : byte & 0xf;
            x = x >= 8 ? x - 16 : x;
        } else {
            x = ((const int8_t *)vr)[d];
        }
        const float s = sv != NULL ? sv[d] : ts, o = sv != NULL ? ov[d] : to;
        out[d] = ((float)x + o) * s;
    }
}

/* Full int8 (int8_quant.md; the row is unspecified there): every score
 * the fill, so every e = 1, P = sat(rint(qs1)) for every key and l =
 * kv_len: x = ds2 * P * sum_j v_j / kv_len, lse = fill + log(kv_len). */
static void int8_quant_mean(const fast_plan *p, int64_t b, int64_t n, int64_t i,
                            int64_t kv_len, float *tmp)
{
    const int64_t kvh = n / p->group;
    float pq = p->int8_quant.qs1 > 127.0f ? 127.0f
               : p->int8_quant.qs1 < -128.0f ? -128.0f : p->int8_quant.qs1;
    pq = rintf(pq);
    int64_t sum[FAST_D_LIMIT] = {0}; /* exact: any order */
    for (int64_t j = 0; j < kv_len; j++) {
        const int8_t *kr, *vr;
        fast_int8_quant_src(p, b, kvh, j, &kr, &vr);
        for (int64_t d = 0; d < p->D; d++)
            sum[d] += vr[d];
    }
    for (int64_t d = 0; d < p->D; d++)
        tmp[d] = (float)((long double)sum[d] * pq * p->int8_quant.ds2);
    fast_store_row(p, b, n, i, tmp, (double)kv_len, NULL);
    fast_store_lse(p, b, n, i, FAST_MASK_FILL + log((double)kv_len));
}

/* Row (b, n, i) as the mean of V over the logical keys [0, kv_len) (a
 * shared prefix's first) and lse = fill + log(kv_len); tmp holds D
 * floats. */
void fast_degenerate_mean(const fast_plan *p, int64_t b, int64_t n,
                          int64_t i, int64_t kv_len, float *tmp)
{
    const int64_t kvh = n / p->group;
    if (p->int8_quant.on) {
        int8_quant_mean(p, b, n, i, kv_len, tmp);
        return;
    }
    /* int8/int4 values: the head's per-channel scale and offset (a
     * per-token form reads its own per key) */
    float sv[FAST_D_LIMIT], ov[FAST_D_LIMIT];
    const bool channel = p->antiquant.on && fast_aq_head(p, 1, kvh, sv, ov);
    /* key by key, each row read once in storage order; every column still
     * sums its keys in key order */
    double sum[FAST_D_LIMIT] = {0}, row[FAST_D_LIMIT];
    for (int64_t j = 0; j < kv_len; j++) {
        value_row(p, b, kvh, j, channel ? sv : NULL, channel ? ov : NULL, row);
        for (int64_t d = 0; d < p->D; d++)
            sum[d] += row[d];
    }
    for (int64_t d = 0; d < p->D; d++)
        tmp[d] = (float)sum[d];
    fast_store_row(p, b, n, i, tmp, (double)kv_len, NULL);
    fast_store_lse(p, b, n, i, FAST_MASK_FILL + log((double)kv_len));
}
