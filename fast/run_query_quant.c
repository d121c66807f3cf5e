/* MLA full quantization in the run (check_query_quant_mla.c; fast_internal.h,
 * the plan's query_quant): the int8 query, key and value dequantized into the
 * float rows the attention of any MLA call reads, so that Q.K^T over D +
 * rope.D columns, the softmax, the splits and the merge are those of a bf16
 * MLA call (attention.c, run_mla.c):
 *   q[d] = fl(q_int8[d] * dsq[b, n, i])   the query's D columns, per row
 *   k[d] = fl(k_int8[d] * dsk[0])         per tensor
 *   v[d] = fl(v_int8[d] * dsv[0])
 * (the int8 to float conversions exact, one float32 rounding each: the
 * reference's products q_int8 . k_int8 are exact in float32, |sum| <= 512
 * x 127 x 127 < 2^24, so what separates the two is the rounding of the
 * scaled elements, a relative 2^-24 each), the bf16 ropes widened as they
 * are, P rounded to bf16 before P.V as in a bf16 call (dt bf16, round_p),
 * attention_out rounded once to bf16.  ND rows (the rank-3 / rank-4
 * caches) go through kernel widen_antiquant (offset 0: (x + 0) * s = x * s), an
 * int8 NZ cache's rows ([blockNum, N, D/32, blockSize, 32]) a block's run
 * at a time through kernel widen_query_quant_nz, tile by tile.  MLA takes no
 * prefix, list or left padding: a key is the cache's own row. */
#include "attention_task.h"

/* Keys ahead whose K/V rows are prefetched (ND rows, decode), as the bf16
 * path's. */
#define QUERY_QUANT_PREFETCH 64

fia_status fast_query_quant_check_data(const fast_plan *p, fia_error *err)
{
    if (p->empty || !p->query_quant.on)
        return FIA_OK;
    if ((p->query_quant.dsq == NULL && p->query_quant.dsq_numel > 0) ||
        p->query_quant.dsk == NULL || p->query_quant.dsv == NULL)
        return fast_fail(err, FIA_ERR_RUNTIME_ERROR, "R_NO_DATA",
                         "dequant_scale_query / dequant_scale_key / "
                         "dequant_scale_value has no data");
    return FIA_OK;
}

float fast_query_quant_scale(const fast_plan *p, int kv)
{
    float f;
    memcpy(&f, kv ? p->query_quant.dsv : p->query_quant.dsk, sizeof f);
    return f;
}

/* dequant_scale_query of query row (b, n, i). */
static float dsq_at(const fast_plan *p, int64_t b, int64_t n, int64_t i)
{
    float f;
    memcpy(&f,
           (const float *)p->query_quant.dsq + b * p->query_quant.dsq_sb +
               n * p->query_quant.dsq_sn + i * p->query_quant.dsq_ss,
           sizeof f);
    return f;
}

void fast_query_quant_src(const fast_plan *p, int64_t b, int64_t h, int64_t j,
                          const int8_t **k, const int8_t **v)
{
    const int64_t o = fast_kv_row(p, b, h, j); /* elements = bytes */
    *k = (const int8_t *)p->k + o;
    *v = (const int8_t *)p->v + o;
}

void fast_query_quant_load_q(const fast_plan *p, const fast_kernels *kern,
                             const task *k, scratch *w)
{
    const int64_t L = p->sched.L, Dp = p->sched.Dp, D = p->D;
    const int mr = k->mr;
    if (k->dot)
        memset(w->q, 0, (size_t)(Dp * L) * sizeof(float));
    for (int r0 = 0; r0 < mr; r0 += 16) {
        const int rn = mr - r0 < 16 ? mr - r0 : 16;
        const uint16_t *rope[16]; /* NULL: the row uses no key (zero) */
        for (int r = r0; r < r0 + 16; r++) {
            int64_t b = 0, n = 0, i = 0;
            const bool used = r < r0 + rn && w->alo[r] <= w->ahi[r];
            if (r < r0 + rn) {
                task_row(p, k, r, &b, &n, &i);
                rope[r - r0] = used ? (const uint16_t *)p->rope.q +
                                          fast_qr_row(p, b, n, i)
                                    : NULL;
            }
            if (!used) { /* Q^T's column zero (the dot form: zeroed) */
                for (int64_t d = 0; !k->dot && d < D; d++)
                    w->q[d * L + r] = 0.0f;
                continue;
            }
            const int8_t *q_int8 =
                (const int8_t *)p->q + fast_q_row(p, b, n, i);
            float *dst = k->dot ? w->q + r * Dp : w->tmp;
            kern->widen_antiquant(q_int8, 0, NULL, NULL, dsq_at(p, b, n, i),
                                  0.0f, dst, D);
            for (int64_t d = 0; !k->dot && d < D; d++) /* into Q^T */
                w->q[d * L + r] = w->tmp[d];
        }
        fast_mla_load_q(p, kern, k, w, r0, rn, rope);
    }
}

/* The K/V rows FAST_PREFETCH keys after key j (own rows j .. j + run - 1
 * of a block start at k8 / v8), into the caches. */
static void prefetch_ahead(const fast_plan *p, int64_t b, int64_t kvh,
                           int64_t j, int r, int run, const int8_t *k8,
                           const int8_t *v8)
{
    const int8_t *fk, *fv;
    if (r + QUERY_QUANT_PREFETCH < run)
        fk = k8 + (r + QUERY_QUANT_PREFETCH) * p->k_ss,
        fv = v8 + (r + QUERY_QUANT_PREFETCH) * p->k_ss;
    else
        fast_query_quant_src(p, b, kvh, j + r + QUERY_QUANT_PREFETCH, &fk, &fv);
    for (int64_t x = 0; x < p->D; x += 64) {
        __builtin_prefetch(fk + x);
        __builtin_prefetch(fv + x);
    }
    __builtin_prefetch((const uint16_t *)p->rope.k +
                       fast_kr_row(p, b, kvh, j + r + QUERY_QUANT_PREFETCH));
}

/* One block's run of own keys j .. j + run - 1 (rows k_ss apart). */
static bool run_rows(const fast_plan *p, const fast_kernels *kern,
                     int64_t b, int64_t kvh, int64_t j, int run, float sk,
                     float sv, float *kd, float *vd, int64_t ldd,
                     uint8_t *vbad, int64_t jmax)
{
    const int64_t D = p->D;
    const int8_t *k8, *v8;
    fast_query_quant_src(p, b, kvh, j, &k8, &v8);
    if (p->page.nz) { /* the run's tiles, each one contiguous stream */
        kern->widen_query_quant_nz(k8, p->page.k_sd, run, sk, kd, ldd, D);
        kern->widen_mla_nz(FIA_DT_BF16,
                           (const uint16_t *)p->rope.k +
                               fast_kr_row(p, b, kvh, j),
                           p->page.kr_sd, run, kd + D, ldd, p->rope.D);
        const bool fin =
            kern->widen_query_quant_nz(v8, p->page.k_sd, run, sv, vd, ldd, D);
        for (int r = 0; vbad != NULL && r < run; r++) /* rare: by row */
            vbad[r] = !fin && !kern->widen_query_quant_nz(v8 + r * p->k_ss,
                                                          p->page.k_sd, 1, sv,
                                                          vd + r * ldd, ldd, D);
        return fin;
    }
    bool fin = true;
    for (int r = 0; r < run; r++) {
        if (j + r + QUERY_QUANT_PREFETCH <= jmax)
            prefetch_ahead(p, b, kvh, j, r, run, k8, v8);
        float *kr = kd + r * ldd, *vr = vd + r * ldd;
        kern->widen_antiquant(k8 + r * p->k_ss, 0, NULL, NULL, sk, 0.0f, kr, D);
        fast_mla_widen_k(p, kern, b, kvh, j + r, kr + D); /* bf16 rope */
        const bool f = kern->widen_antiquant(v8 + r * p->k_ss, 0, NULL, NULL,
                                             sv, 0.0f, vr, D);
        if (vbad != NULL)
            vbad[r] = !f;
        fin &= f;
    }
    return fin;
}

bool fast_query_quant_rows(const fast_plan *p, const fast_kernels *kern,
                           int64_t b, int64_t kvh, int64_t j0, int nk,
                           float *kd, float *vd, int64_t ldd, uint8_t *vbad,
                           int64_t jmax)
{
    const float sk = fast_query_quant_scale(p, 0),
                sv = fast_query_quant_scale(p, 1);
    bool fin = true;
    for (int c = 0; c < nk;) {
        const int run = (int)fast_kv_run(p, j0 + c, nk - c);
        fin &= run_rows(p, kern, b, kvh, j0 + c, run, sk, sv, kd + c * ldd,
                        vd + c * ldd, ldd, vbad ? vbad + c : NULL, jmax);
        c += run;
    }
    return fin;
}

void fast_query_quant_kvpre_rows(const fast_plan *p, const fast_kernels *kern,
                                 int64_t b, int64_t kvh, int64_t j0, int64_t n,
                                 float *kf, float *vf, uint8_t *vbad)
{
    const int64_t Dp = p->sched.Dp, Dk = p->Dk, D = p->D;
    if (n <= 0)
        return;
    fast_query_quant_rows(p, kern, b, kvh, j0, (int)n, kf, vf, Dp, vbad, -1);
    for (int64_t r = 0; r < n; r++) {
        if (Dp > Dk)
            memset(kf + r * Dp + Dk, 0, (size_t)(Dp - Dk) * sizeof(float));
        memset(vf + r * Dp + D, 0, (size_t)(Dp - D) * sizeof(float));
    }
}
