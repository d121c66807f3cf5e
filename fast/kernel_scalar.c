/* Portable scalar micro-kernels: the reference every SIMD table is tested
 * against (tests/test_fast_kernels.c), and the fallback on any CPU.  Every
 * table computes the same float32 operations up to summation order and the
 * exp implementation (libm here, a polynomial in the SIMD tables). */
#include "fast_internal.h"

static void qk_t_scalar(const float *qt, int64_t ldq, int mr, const float *k,
                        int64_t ldk, int nk, int64_t D, float *st,
                        int64_t lds)
{
    for (int c = 0; c < nk; c++) {
        float *sc = st + c * lds;
        for (int r = 0; r < mr; r++)
            sc[r] = 0.0f;
        for (int64_t d = 0; d < D; d++) {
            const float kd = k[c * ldk + d], *qd = qt + d * ldq;
            for (int r = 0; r < mr; r++)
                sc[r] += kd * qd[r];
        }
    }
}

static void qk_dot_scalar(const float *q, int64_t ldq, int mr, const float *k,
                          int64_t ldk, int nk, int64_t D, float *st,
                          int64_t lds)
{
    for (int r = 0; r < mr; r++) {
        const float *qr = q + r * ldq;
        for (int c = 0; c < nk; c++) {
            const float *kc = k + c * ldk;
            float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
            for (int64_t d = 0; d + 4 <= D; d += 4) {
                a0 += qr[d] * kc[d];
                a1 += qr[d + 1] * kc[d + 1];
                a2 += qr[d + 2] * kc[d + 2];
                a3 += qr[d + 3] * kc[d + 3];
            }
            st[c * lds + r] = (a0 + a1) + (a2 + a3);
        }
    }
}

static inline float round_p(float x, int round)
{
    return round == 1 ? fast_round_fp16f(x)
         : round == 2 ? fast_round_bf16f(x) : x;
}

static void softmax_scalar(float *s, int64_t lds, int mr, int nk, float scale,
                           const int32_t *lo, const int32_t *hi,
                           const uint8_t *excl, int round, float *m, float *l,
                           float *alpha)
{
    for (int r = 0; r < mr; r++) {
        float bmax = -INFINITY;
        bool any = false; /* NaN scores take part (and propagate) */
        for (int c = 0; c < nk; c++) {
            float *x = s + c * lds + r;
            bool in = c >= lo[r] && c <= hi[r] && !(excl && excl[c * lds + r]);
            *x *= scale;
            if (in) {
                bmax = *x > bmax ? *x : bmax;
                any = true;
            }
        }
        alpha[r] = 1.0f;
        if (!any) {
            for (int c = 0; c < nk; c++)
                s[c * lds + r] = 0.0f;
            continue;
        }
        float mnew = bmax > m[r] ? bmax : m[r];
        if (mnew != m[r])
            alpha[r] = expf(m[r] - mnew); /* 0 on the first block */
        float sum = 0.0f;
        for (int c = 0; c < nk; c++) {
            float *x = s + c * lds + r;
            bool in = c >= lo[r] && c <= hi[r] && !(excl && excl[c * lds + r]);
            float pc = in ? expf(*x - mnew) : 0.0f;
            sum += pc;
            *x = round_p(pc, round);
        }
        m[r] = mnew;
        l[r] = l[r] * alpha[r] + sum;
    }
}

static void pv_scalar(const float *pt, int64_t ldp, int mr, const float *v,
                      int64_t ldv, int nk, int64_t D, const float *alpha,
                      float *acc, int64_t ldacc)
{
    for (int r = 0; r < mr; r++) {
        float *ar = acc + r * ldacc;
        if (alpha[r] != 1.0f)
            for (int64_t d = 0; d < D; d++)
                ar[d] *= alpha[r];
        for (int c = 0; c < nk; c++) {
            float pc = pt[c * ldp + r];
            if (pc == 0.0f)
                continue; /* keys that take no part, underflow */
            const float *vc = v + c * ldv;
            for (int64_t d = 0; d < D; d++)
                ar[d] += pc * vc[d];
        }
    }
}

bool fast_widen_scalar(fia_dtype dt, const uint16_t *src, float *dst,
                       int64_t n)
{
    uint16_t em = dt == FIA_DT_FP16 ? 0x7c00u : 0x7f80u;
    bool finite = true;
    for (int64_t i = 0; i < n; i++) {
        dst[i] = dt == FIA_DT_FP16 ? fast_fp16_to_float(src[i])
                                   : fast_bf16_to_float(src[i]);
        finite &= (src[i] & em) != em;
    }
    return finite;
}

void fast_widen_t_scalar(fia_dtype dt, const uint16_t *const *rows,
                         int nrows, int64_t n, float *dst, int64_t ldd)
{
    for (int r = 0; r < 16; r++) {
        const uint16_t *src = r < nrows ? rows[r] : NULL;
        for (int64_t d = 0; d < n; d++)
            dst[d * ldd + r] = src == NULL ? 0.0f
                               : dt == FIA_DT_FP16 ? fast_fp16_to_float(src[d])
                                                   : fast_bf16_to_float(src[d]);
    }
}

void fast_store_scalar(fia_dtype dt, const float *acc, double l,
                       uint16_t *dst, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        double x = (double)acc[i] / l;
        dst[i] = dt == FIA_DT_FP16 ? fast_double_to_fp16(x)
                                   : fast_double_to_bf16(x);
    }
}

const fast_kernels fast_kernels_scalar = {
    .name = "scalar",
    .qk_t = qk_t_scalar,
    .qk_dot = qk_dot_scalar,
    .softmax = softmax_scalar,
    .pv = pv_scalar,
    .widen = fast_widen_scalar,
    .widen_t = fast_widen_t_scalar,
    .store = fast_store_scalar,
};
