/* AVX-512 micro-kernels (F/BW/VL/DQ, FMA, F16C).  This file alone is
 * compiled with those flags (CMakeLists.txt); dispatch.c uses the table only
 * after checking the CPU.  Register tiles: Q.K^T 6 keys x 64 rows, P.V
 * 6 rows x 64 columns, dot form 4 x 4, fused decode 4 x 4 keys and 4 rows x
 * 64 columns; tails are smaller tiles of the same inlined code, loads and
 * stores of caller memory are masked (the decode kernel reads whole rows of
 * D, a multiple of 16). */
#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX512BW__) && \
    defined(__AVX512VL__) && defined(__AVX512DQ__) && defined(__FMA__) &&  \
    defined(__F16C__)
#include <immintrin.h>
#include "fast_internal.h"

#define INLINE static inline __attribute__((always_inline))
#define UNROLL _Pragma("GCC unroll 16")

/* ---- Q.K^T, transposed: st[c][r] --------------------------------------- */
/* A tile is QKT_KT keys x QKT_RV vectors of 16 rows: 24 accumulators and 4
 * vectors of Q^T in registers (8 keys x 3 vectors measured ~15 % slower on
 * the prefill block, 64 keys x 128 rows x D 128). */
#define QKT_RV 4
#define QKT_KT 6
/* fuse: store s * scale (rounded on its own) and fold the tile's maximum
 * per row into bmax (the first pass of the softmax, on the registers). */
INLINE void qkt_tile(const float *qt, int64_t ldq, const int rv,
                     const float *k, int64_t ldk, const int kt, int64_t D,
                     float *st, int64_t lds, const int fuse, __m512 vs,
                     float *bmax)
{
    __m512 a[QKT_KT][QKT_RV];
    UNROLL for (int c = 0; c < kt; c++)
        UNROLL for (int j = 0; j < rv; j++)
            a[c][j] = _mm512_setzero_ps();
    for (int64_t d = 0; d < D; d++) {
        const float *qd = qt + d * ldq;
        __m512 q[QKT_RV];
        UNROLL for (int j = 0; j < rv; j++)
            q[j] = _mm512_loadu_ps(qd + 16 * j);
        UNROLL for (int c = 0; c < kt; c++) {
            __m512 b = _mm512_set1_ps(k[c * ldk + d]);
            UNROLL for (int j = 0; j < rv; j++)
                a[c][j] = _mm512_fmadd_ps(b, q[j], a[c][j]);
        }
    }
    if (fuse) {
        __m512 mx[QKT_RV];
        UNROLL for (int j = 0; j < rv; j++)
            mx[j] = _mm512_set1_ps(-INFINITY);
        UNROLL for (int c = 0; c < kt; c++)
            UNROLL for (int j = 0; j < rv; j++) {
                __m512 v = _mm512_mul_round_ps(
                    a[c][j], vs, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
                _mm512_storeu_ps(st + c * lds + 16 * j, v);
                /* a NaN score leaves the max alone (max returns its
                 * second operand), like the scalar kernel's v > bmax */
                mx[j] = _mm512_max_ps(v, mx[j]);
            }
        UNROLL for (int j = 0; j < rv; j++)
            _mm512_storeu_ps(bmax + 16 * j,
                             _mm512_max_ps(mx[j],
                                           _mm512_loadu_ps(bmax + 16 * j)));
        return;
    }
    UNROLL for (int c = 0; c < kt; c++)
        UNROLL for (int j = 0; j < rv; j++)
            _mm512_storeu_ps(st + c * lds + 16 * j, a[c][j]);
}

/* kt keys (1..QKT_KT) x rv row vectors (1..QKT_RV) */
#define QKT_KCASES(R)                                                      \
    QKT(R, 1) QKT(R, 2) QKT(R, 3) QKT(R, 4) QKT(R, 5) QKT(R, 6)
INLINE void qk_t_body(const float *qt, int64_t ldq, int mr, const float *k,
                      int64_t ldk, int nk, int64_t D, float *st, int64_t lds,
                      const int fuse, float scale, float *bmax)
{
    const int rows = (mr + 15) & ~15;
    const __m512 vs = _mm512_set1_ps(scale);
    if (fuse)
        for (int r = 0; r < rows; r += 16)
            _mm512_storeu_ps(bmax + r, _mm512_set1_ps(-INFINITY));
    for (int r0 = 0; r0 < rows; r0 += 16 * QKT_RV) {
        const int rv = rows - r0 >= 16 * QKT_RV ? QKT_RV : (rows - r0) / 16;
        for (int c0 = 0; c0 < nk; c0 += QKT_KT) {
            const int kt = nk - c0 < QKT_KT ? nk - c0 : QKT_KT;
            const float *q = qt + r0, *kk = k + c0 * ldk;
            float *s = st + c0 * lds + r0;
            float *bm = fuse ? bmax + r0 : NULL;
#define QKT(R, K) \
    case (R) * 16 + (K):                                                   \
        qkt_tile(q, ldq, R, kk, ldk, K, D, s, lds, fuse, vs, bm);           \
        break;
            switch (rv * 16 + kt) {
            QKT_KCASES(1) QKT_KCASES(2) QKT_KCASES(3) QKT_KCASES(4)
            default: break;
            }
#undef QKT
        }
    }
}

static void qk_t_avx512(const float *qt, int64_t ldq, int mr, const float *k,
                        int64_t ldk, int nk, int64_t D, float *st,
                        int64_t lds)
{
    qk_t_body(qt, ldq, mr, k, ldk, nk, D, st, lds, 0, 1.0f, NULL);
}

static void qk_t_max_avx512(const float *qt, int64_t ldq, int mr,
                            const float *k, int64_t ldk, int nk, int64_t D,
                            float scale, float *st, int64_t lds, float *bmax)
{
    qk_t_body(qt, ldq, mr, k, ldk, nk, D, st, lds, 1, scale, bmax);
}

/* ---- Q.K^T, dot form (few rows: decode) -------------------------------- */
INLINE void qkdot_tile(const float *q, int64_t ldq, const int rt,
                       const float *k, int64_t ldk, const int kt, int64_t D,
                       float *st, int64_t lds)
{
    __m512 a[4][4];
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int c = 0; c < kt; c++)
            a[r][c] = _mm512_setzero_ps();
    for (int64_t d = 0; d < D; d += 16) {
        __m512 kv[4];
        UNROLL for (int c = 0; c < kt; c++)
            kv[c] = _mm512_loadu_ps(k + c * ldk + d);
        UNROLL for (int r = 0; r < rt; r++) {
            __m512 qv = _mm512_loadu_ps(q + r * ldq + d);
            UNROLL for (int c = 0; c < kt; c++)
                a[r][c] = _mm512_fmadd_ps(qv, kv[c], a[r][c]);
        }
    }
    if (kt == 4) { /* the 4 sums of a row in one tree */
        UNROLL for (int r = 0; r < rt; r++) {
            __m512 t0 = _mm512_add_ps(_mm512_unpacklo_ps(a[r][0], a[r][1]),
                                      _mm512_unpackhi_ps(a[r][0], a[r][1]));
            __m512 t1 = _mm512_add_ps(_mm512_unpacklo_ps(a[r][2], a[r][3]),
                                      _mm512_unpackhi_ps(a[r][2], a[r][3]));
            __m512d u0 = _mm512_castps_pd(t0), u1 = _mm512_castps_pd(t1);
            __m512 u = _mm512_add_ps(
                _mm512_castpd_ps(_mm512_unpacklo_pd(u0, u1)),
                _mm512_castpd_ps(_mm512_unpackhi_pd(u0, u1)));
            __m256 h = _mm256_add_ps(_mm512_castps512_ps256(u),
                                     _mm512_extractf32x8_ps(u, 1));
            __m128 q = _mm_add_ps(_mm256_castps256_ps128(h),
                                  _mm256_extractf128_ps(h, 1));
            float sums[4];
            _mm_storeu_ps(sums, q);
            UNROLL for (int c = 0; c < 4; c++)
                st[c * lds + r] = sums[c];
        }
        return;
    }
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int c = 0; c < kt; c++)
            st[c * lds + r] = _mm512_reduce_add_ps(a[r][c]);
}

static void qk_dot_avx512(const float *q, int64_t ldq, int mr, const float *k,
                          int64_t ldk, int nk, int64_t D, float *st,
                          int64_t lds)
{
    for (int r0 = 0; r0 < mr; r0 += 4) {
        const int rt = mr - r0 < 4 ? mr - r0 : 4;
        for (int c0 = 0; c0 < nk; c0 += 4) {
            const int kt = nk - c0 < 4 ? nk - c0 : 4;
            const float *qq = q + r0 * ldq, *kk = k + c0 * ldk;
            float *s = st + c0 * lds + r0;
#define QKD(R, K) \
    case (R) * 8 + (K): qkdot_tile(qq, ldq, R, kk, ldk, K, D, s, lds); break;
            switch (rt * 8 + kt) {
            QKD(1, 1) QKD(1, 2) QKD(1, 3) QKD(1, 4)
            QKD(2, 1) QKD(2, 2) QKD(2, 3) QKD(2, 4)
            QKD(3, 1) QKD(3, 2) QKD(3, 3) QKD(3, 4)
            QKD(4, 1) QKD(4, 2) QKD(4, 3) QKD(4, 4)
            default: break;
            }
#undef QKD
        }
    }
}

/* ---- softmax ------------------------------------------------------------ */
/* exp(x) for x <= 0 (Cephes polynomial, ~1 ulp); NaN stays NaN, x below
 * ln(FLT_MIN) gives 0.  Lanes with x > 0 (only ones the callers mask
 * off) give garbage: no clamp from above. */
INLINE __m512 exp16(__m512 x)
{
    const __m512 lo = _mm512_set1_ps(-87.33654f);
    __mmask16 keep = _mm512_cmp_ps_mask(x, lo, _CMP_NLT_UQ);
    x = _mm512_max_ps(lo, x); /* NaN-preserving operand order */
    __m512 fx = _mm512_roundscale_ps(
        _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(fx, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(fx, _mm512_set1_ps(-2.12194440e-4f), r);
    /* the polynomial in Estrin's form: a shorter dependency chain than
     * Horner's (the softmax loop is bound by the latency of the chain, not
     * by the FMA throughput); max error 1.26 ulp over [-87.34, 0] in an
     * exhaustive check against exp in double, as the Horner form */
    __m512 r2 = _mm512_mul_ps(r, r);
    __m512 ya = _mm512_fmadd_ps(_mm512_set1_ps(1.9875691500e-4f), r,
                                _mm512_set1_ps(1.3981999507e-3f));
    __m512 yb = _mm512_fmadd_ps(_mm512_set1_ps(8.3334519073e-3f), r,
                                _mm512_set1_ps(4.1665795894e-2f));
    __m512 yc = _mm512_fmadd_ps(_mm512_set1_ps(1.6666665459e-1f), r,
                                _mm512_set1_ps(5.0000001201e-1f));
    __m512 y = _mm512_fmadd_ps(_mm512_fmadd_ps(ya, r2, yb), r2, yc);
    y = _mm512_fmadd_ps(y, r2, _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    /* y * 2^fx in one rounding (fx >= -126: 2^fx is a normal float), the
     * same value as the multiplication by the exponent built in integers */
    return _mm512_maskz_mov_ps(keep, _mm512_scalef_ps(y, fx));
}

INLINE __m512 round_bf16(__m512 p)
{
    __m512i u = _mm512_castps_si512(p);
    __m512i r = _mm512_add_epi32(
        u, _mm512_add_epi32(_mm512_set1_epi32(0x7fff),
                            _mm512_and_si512(_mm512_srli_epi32(u, 16),
                                             _mm512_set1_epi32(1))));
    r = _mm512_and_si512(r, _mm512_set1_epi32((int)0xffff0000u));
    __mmask16 nan = _mm512_cmp_ps_mask(p, p, _CMP_UNORD_Q);
    return _mm512_mask_mov_ps(_mm512_castsi512_ps(r), nan, p);
}

INLINE __m512 round_fp16(__m512 p)
{
    return _mm512_cvtph_ps(_mm512_cvtps_ph(p, _MM_FROUND_TO_NEAREST_INT |
                                                  _MM_FROUND_NO_EXC));
}

/* s * scale, rounded on its own: the embedded-rounding form is an opaque
 * builtin, so the compiler cannot contract it with the subtraction of the
 * max into one FMA (GCC contracts plain vector * and - across inlining). */
INLINE __m512 scaled(const float *x, __m512 vs)
{
    return _mm512_mul_round_ps(_mm512_loadu_ps(x), vs,
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

/* The second pass of 16 rows: p = exp(s - mnew) where valid, the row sums,
 * P rounded as asked; s holds the scaled scores the first pass stored. */
#define SM_U 8
INLINE __m512 softmax_p16(float *s, int64_t lds, int nk, __m512 mnew,
                          const __mmask16 *valid, const int round)
{
    __m512 sum = _mm512_setzero_ps();
    int c = 0;
    /* SM_U keys at a time, their exp chains side by side in program order
     * (the loop is latency bound); the sum still adds them in key order */
    for (; c + SM_U <= nk; c += SM_U) {
        __m512 p[SM_U];
        UNROLL for (int u = 0; u < SM_U; u++)
            p[u] = exp16(_mm512_sub_ps(_mm512_loadu_ps(s + (c + u) * lds),
                                       mnew));
        UNROLL for (int u = 0; u < SM_U; u++) {
            if (valid)
                p[u] = _mm512_maskz_mov_ps(valid[c + u], p[u]);
            sum = _mm512_add_ps(sum, p[u]);
            if (round == 1)
                p[u] = round_fp16(p[u]);
            else if (round == 2)
                p[u] = round_bf16(p[u]);
            _mm512_storeu_ps(s + (c + u) * lds, p[u]);
        }
    }
    for (; c < nk; c++) {
        float *x = s + c * lds;
        __m512 p = exp16(_mm512_sub_ps(_mm512_loadu_ps(x), mnew));
        p = valid ? _mm512_maskz_mov_ps(valid[c], p) : p;
        sum = _mm512_add_ps(sum, p);
        if (round == 1)
            p = round_fp16(p);
        else if (round == 2)
            p = round_bf16(p);
        _mm512_storeu_ps(x, p);
    }
    return sum;
}

/* pre: the scores are scaled already and pre[r] is each row's block max
 * (qk_t_max), every key taking part in every row (lo, hi, excl unused). */
INLINE void softmax_body(float *s, int64_t lds, int mr, int nk, float scale,
                         const int32_t *lo, const int32_t *hi,
                         const uint8_t *excl, int round, float *m, float *l,
                         float *alpha, const float *pre)
{
    const __m512 vs = _mm512_set1_ps(scale), one = _mm512_set1_ps(1.0f);
    __mmask16 valid[FAST_KBLOCK];
    for (int r0 = 0; r0 < mr; r0 += 16) {
        /* every key of the block takes part in all 16 rows: no masks */
        bool full = pre != NULL;
        if (!full) {
            __m512i vlo = _mm512_loadu_si512(lo + r0);
            __m512i vhi = _mm512_loadu_si512(hi + r0);
            full = excl == NULL &&
                   _mm512_cmpeq_epi32_mask(vlo, _mm512_setzero_si512()) ==
                       0xffff &&
                   _mm512_cmpge_epi32_mask(vhi, _mm512_set1_epi32(nk - 1)) ==
                       0xffff;
        }
        __m512 bmax = _mm512_set1_ps(-INFINITY);
        __mmask16 any = 0;
        if (pre != NULL) {
            any = nk > 0 ? 0xffff : 0;
            bmax = _mm512_loadu_ps(pre + r0);
        } else if (full) {
            any = nk > 0 ? 0xffff : 0;
            for (int c = 0; c < nk; c++) {
                __m512 v = scaled(s + c * lds + r0, vs);
                _mm512_storeu_ps(s + c * lds + r0, v);
                /* a NaN score leaves the max alone (max returns its
                 * second operand), like the scalar kernel's v > bmax */
                bmax = _mm512_max_ps(v, bmax);
            }
        } else {
            __m512i vlo = _mm512_loadu_si512(lo + r0);
            __m512i vhi = _mm512_loadu_si512(hi + r0);
            for (int c = 0; c < nk; c++) {
                __m512i vc = _mm512_set1_epi32(c);
                __mmask16 in = _mm512_cmple_epi32_mask(vlo, vc) &
                               _mm512_cmple_epi32_mask(vc, vhi);
                if (excl) {
                    __m128i e = _mm_loadu_si128(
                        (const __m128i *)(excl + c * lds + r0));
                    in &= _mm_cmpeq_epi8_mask(e, _mm_setzero_si128());
                }
                valid[c] = in;
                any |= in;
                __m512 v = scaled(s + c * lds + r0, vs);
                _mm512_storeu_ps(s + c * lds + r0, v);
                bmax = _mm512_mask_max_ps(bmax, in, v, bmax);
            }
        }
        __m512 mold = _mm512_loadu_ps(m + r0);
        __m512 mnew = _mm512_max_ps(bmax, mold);
        __mmask16 ch = any & _mm512_cmp_ps_mask(mnew, mold, _CMP_NEQ_OQ);
        __m512 a = _mm512_mask_mov_ps(one, ch,
                                      exp16(_mm512_sub_ps(mold, mnew)));
        /* a NULL literal for the full case: no mask test in its loop */
        __m512 sum;
        if (full)
            sum = round == 1   ? softmax_p16(s + r0, lds, nk, mnew, NULL, 1)
                  : round == 2 ? softmax_p16(s + r0, lds, nk, mnew, NULL, 2)
                               : softmax_p16(s + r0, lds, nk, mnew, NULL, 0);
        else
            sum = round == 1   ? softmax_p16(s + r0, lds, nk, mnew, valid, 1)
                  : round == 2 ? softmax_p16(s + r0, lds, nk, mnew, valid, 2)
                               : softmax_p16(s + r0, lds, nk, mnew, valid, 0);
        _mm512_storeu_ps(m + r0, mnew);
        _mm512_storeu_ps(l + r0, _mm512_add_ps(
                                     _mm512_mul_ps(_mm512_loadu_ps(l + r0), a),
                                     sum));
        _mm512_storeu_ps(alpha + r0, a);
    }
}

static void softmax_avx512(float *s, int64_t lds, int mr, int nk, float scale,
                           const int32_t *lo, const int32_t *hi,
                           const uint8_t *excl, int round, float *m, float *l,
                           float *alpha)
{
    softmax_body(s, lds, mr, nk, scale, lo, hi, excl, round, m, l, alpha,
                 NULL);
}

static void softmax_full_avx512(float *s, int64_t lds, int mr, int nk,
                                const float *bmax, int round, float *m,
                                float *l, float *alpha)
{
    softmax_body(s, lds, mr, nk, 1.0f, NULL, NULL, NULL, round, m, l, alpha,
                 bmax);
}

/* ---- P.V ---------------------------------------------------------------- */
/* A tile's accumulators: acc * alpha[r].  Once the running maxima settle,
 * alpha is 1 in most blocks: then acc is only loaded (x * 1 = x, so the
 * result is the same). */
INLINE void acc_load(__m512 a[][4], const int rt, const int dv,
                     const float *alpha, const float *acc, int64_t ldacc)
{
    bool ones = true;
    UNROLL for (int r = 0; r < rt; r++)
        ones &= alpha[r] == 1.0f;
    UNROLL for (int r = 0; r < rt; r++) {
        const __m512 al = _mm512_set1_ps(alpha[r]);
        UNROLL for (int j = 0; j < dv; j++) {
            a[r][j] = _mm512_loadu_ps(acc + r * ldacc + 16 * j);
            if (!ones)
                a[r][j] = _mm512_mul_ps(a[r][j], al);
        }
    }
}

INLINE void pv_tile(const float *pt, int64_t ldp, const int rt,
                    const float *v, int64_t ldv, int nk, const int dv,
                    const float *alpha, float *acc, int64_t ldacc)
{
    __m512 a[6][4];
    acc_load(a, rt, dv, alpha, acc, ldacc);
    for (int c = 0; c < nk; c++) {
        __m512 vv[4];
        UNROLL for (int j = 0; j < dv; j++)
            vv[j] = _mm512_loadu_ps(v + c * ldv + 16 * j);
        UNROLL for (int r = 0; r < rt; r++) {
            __m512 b = _mm512_set1_ps(pt[c * ldp + r]);
            UNROLL for (int j = 0; j < dv; j++)
                a[r][j] = _mm512_fmadd_ps(b, vv[j], a[r][j]);
        }
    }
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int j = 0; j < dv; j++)
            _mm512_storeu_ps(acc + r * ldacc + 16 * j, a[r][j]);
}

static void pv_avx512(const float *pt, int64_t ldp, int mr, const float *v,
                      int64_t ldv, int nk, int64_t D, const float *alpha,
                      float *acc, int64_t ldacc)
{
    for (int r0 = 0; r0 < mr; r0 += 6) {
        const int rt = mr - r0 < 6 ? mr - r0 : 6;
        for (int64_t d0 = 0; d0 < D; d0 += 64) {
            const int dv = D - d0 < 64 ? (int)((D - d0) / 16) : 4;
            const float *p = pt + r0, *vv = v + d0;
            float *ac = acc + r0 * ldacc + d0;
            const float *al = alpha + r0;
#define PV(R, V)                                                 \
    case (R) * 8 + (V):                                          \
        pv_tile(p, ldp, R, vv, ldv, nk, V, al, ac, ldacc); break;
            switch (rt * 8 + dv) {
            PV(1, 1) PV(1, 2) PV(1, 3) PV(1, 4)
            PV(2, 1) PV(2, 2) PV(2, 3) PV(2, 4)
            PV(3, 1) PV(3, 2) PV(3, 3) PV(3, 4)
            PV(4, 1) PV(4, 2) PV(4, 3) PV(4, 4)
            PV(5, 1) PV(5, 2) PV(5, 3) PV(5, 4)
            PV(6, 1) PV(6, 2) PV(6, 3) PV(6, 4)
            default: break;
            }
#undef PV
        }
    }
}

/* ---- conversions -------------------------------------------------------- */
static bool widen_avx512(fia_dtype dt, const uint16_t *src, float *dst,
                         int64_t n)
{
    const bool h = dt == FIA_DT_FP16;
    const __m256i em = _mm256_set1_epi16(h ? 0x7c00 : 0x7f80);
    __mmask16 bad = 0;
    for (int64_t i = 0; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m256i x = _mm256_maskz_loadu_epi16(k, src + i);
        bad |= _mm256_cmpeq_epi16_mask(_mm256_and_si256(x, em), em);
        __m512 f = h ? _mm512_cvtph_ps(x)
                     : _mm512_castsi512_ps(
                           _mm512_slli_epi32(_mm512_cvtepu16_epi32(x), 16));
        _mm512_mask_storeu_ps(dst + i, k, f);
    }
    return bad == 0;
}

/* 16 rows widened, then a 16 x 16 transpose in registers (4 rounds of
 * shuffles: pairs of floats, quads, 128-bit lanes twice), 16 floats per
 * column stored; replaced a scalar scatter down the columns of Q^T (~2 %
 * of the prefill bench). */
static void widen_t_avx512(fia_dtype dt, const uint16_t *const *rows,
                           int nrows, int64_t n, float *dst, int64_t ldd)
{
    const bool h = dt == FIA_DT_FP16;
    for (int64_t d0 = 0; d0 < n; d0 += 16) {
        const int64_t w = n - d0 < 16 ? n - d0 : 16;
        const __mmask16 k = (__mmask16)((1u << w) - 1);
        __m512 x[16], t[16];
        UNROLL for (int r = 0; r < 16; r++) {
            const uint16_t *src = r < nrows ? rows[r] : NULL;
            if (src == NULL) {
                x[r] = _mm512_setzero_ps();
                continue;
            }
            __m256i v = _mm256_maskz_loadu_epi16(k, src + d0);
            x[r] = h ? _mm512_cvtph_ps(v)
                     : _mm512_castsi512_ps(
                           _mm512_slli_epi32(_mm512_cvtepu16_epi32(v), 16));
        }
        /* t: pairs of rows interleaved */
        UNROLL for (int r = 0; r < 16; r += 2) {
            t[r] = _mm512_unpacklo_ps(x[r], x[r + 1]);
            t[r + 1] = _mm512_unpackhi_ps(x[r], x[r + 1]);
        }
        /* x: 4 rows per 128-bit lane */
        UNROLL for (int r = 0; r < 16; r += 4) {
            x[r] = _mm512_castpd_ps(_mm512_unpacklo_pd(
                _mm512_castps_pd(t[r]), _mm512_castps_pd(t[r + 2])));
            x[r + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(
                _mm512_castps_pd(t[r]), _mm512_castps_pd(t[r + 2])));
            x[r + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(
                _mm512_castps_pd(t[r + 1]), _mm512_castps_pd(t[r + 3])));
            x[r + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(
                _mm512_castps_pd(t[r + 1]), _mm512_castps_pd(t[r + 3])));
        }
        /* now lane l (128 bits) of x[4g + j] is column 4l + j of rows
         * 4g..4g+3; gather the four groups' lanes l of each column */
        UNROLL for (int j = 0; j < 4; j++) {
            /* t[j]: lanes 0, 2 of groups 0 and 1; t[4 + j]: lanes 1, 3 of
             * them; t[8 + j], t[12 + j]: the same of groups 2 and 3 */
            t[j] = _mm512_shuffle_f32x4(x[j], x[4 + j], 0x88);
            t[4 + j] = _mm512_shuffle_f32x4(x[j], x[4 + j], 0xdd);
            t[8 + j] = _mm512_shuffle_f32x4(x[8 + j], x[12 + j], 0x88);
            t[12 + j] = _mm512_shuffle_f32x4(x[8 + j], x[12 + j], 0xdd);
        }
        UNROLL for (int j = 0; j < 4; j++) {
            /* column 4l + j, rows 0-15 */
            x[j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0x88);
            x[4 + j] = _mm512_shuffle_f32x4(t[4 + j], t[12 + j], 0x88);
            x[8 + j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0xdd);
            x[12 + j] = _mm512_shuffle_f32x4(t[4 + j], t[12 + j], 0xdd);
        }
        UNROLL for (int c = 0; c < 16; c++)
            if (c < w)
                _mm512_storeu_ps(dst + (d0 + c) * ldd, x[c]);
    }
}

/* acc / l in double, then to float rounding to odd (truncate, set the last
 * bit when inexact), then nearest-even to fp16/bf16: one correct rounding,
 * since float keeps more than 2 bits beyond either format. */
static void store_avx512(fia_dtype dt, const float *acc, double l,
                         uint16_t *dst, int64_t n)
{
    const __m512d vl = _mm512_set1_pd(l);
    const __m256i one = _mm256_set1_epi32(1);
    for (int64_t i = 0; i < n; i += 8) {
        __mmask8 k = n - i >= 8 ? 0xff : (__mmask8)((1u << (n - i)) - 1);
        __m512d x = _mm512_div_pd(
            _mm512_cvtps_pd(_mm256_maskz_loadu_ps(k, acc + i)), vl);
        __m256 f = _mm512_cvt_roundpd_ps(x, _MM_FROUND_TO_ZERO |
                                                _MM_FROUND_NO_EXC);
        __mmask8 inexact =
            _mm512_cmp_pd_mask(_mm512_cvtps_pd(f), x, _CMP_NEQ_UQ);
        __m256i fi = _mm256_castps_si256(f);
        fi = _mm256_mask_or_epi32(fi, inexact, fi, one);
        __m128i o;
        if (dt == FIA_DT_FP16) {
            o = _mm256_cvtps_ph(_mm256_castsi256_ps(fi),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        } else {
            __m256i r = _mm256_add_epi32(
                fi, _mm256_add_epi32(_mm256_set1_epi32(0x7fff),
                                     _mm256_and_si256(
                                         _mm256_srli_epi32(fi, 16), one)));
            r = _mm256_srli_epi32(r, 16);
            __mmask8 nan = _mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q);
            __m256i qn = _mm256_or_si256(
                _mm256_and_si256(_mm256_srli_epi32(fi, 16),
                                 _mm256_set1_epi32(0x8000)),
                _mm256_set1_epi32(0x7fc0));
            r = _mm256_mask_mov_epi32(r, nan, qn);
            o = _mm256_cvtepi32_epi16(r);
        }
        _mm_mask_storeu_epi16(dst + i, k, o);
    }
}

/* ---- decode, fused ------------------------------------------------------ */
/* Keys in blocks of DEC_KB: scores S[r][c] (rows major, so the softmax runs
 * 16 keys per vector), then P in place.  K and V are read as fp16/bf16 and
 * widened in registers: no widened copy of K/V is written and re-read (the
 * composed kernels do that, 64 KiB per block of 64 keys).  Decode streams
 * K/V from memory: software prefetches, spread over the FMA loops, fetch V
 * of the next block during Q.K^T and K of the block after next during P.V
 * (measured on the decode bench: 2 threads, ~5.2 ms against ~6.5 ms for
 * no prefetch or one block of K ahead with blocks of 32 keys). */
/* keys per block: 64 ran the kernel alone (bench --kernels) 25 % faster but
 * the decode bench, from memory, 15 % slower */
#define DEC_KB 16
#define DEC_PFV 16 /* keys ahead whose V is prefetched during Q.K^T */
#define DEC_PFK 32 /* keys ahead whose K is prefetched during P.V */

INLINE __m512 dec_ld(const uint16_t *p, const int bf)
{
    __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)p);
    return bf ? _mm512_castsi512_ps(
                    _mm512_slli_epi32(_mm512_cvtepu16_epi32(x), 16))
              : _mm512_cvtph_ps(x);
}

/* s[r*DEC_KB + c] = q_r . k_c for rt rows x kt keys (kt 1..4, rt 1..4) */
INLINE void dec_qk_tile(const float *q, int64_t ldq, const int rt,
                        const uint16_t *k, int64_t ldk, const int kt,
                        int64_t D, float *s, const int bf,
                        const uint16_t *pv)
{
    __m512 a[4][4];
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int c = 0; c < kt; c++)
            a[r][c] = _mm512_setzero_ps();
    for (int64_t d = 0; d < D; d += 16) {
        __m512 kv[4];
        UNROLL for (int c = 0; c < kt; c++)
            kv[c] = dec_ld(k + c * ldk + d, bf);
        if (pv != NULL && d % 32 == 0) /* the lines of V this block reads */
            UNROLL for (int c = 0; c < kt; c++)
                _mm_prefetch((const char *)(pv + c * ldk + d), _MM_HINT_T0);
        UNROLL for (int r = 0; r < rt; r++) {
            __m512 qv = _mm512_loadu_ps(q + r * ldq + d);
            UNROLL for (int c = 0; c < kt; c++)
                a[r][c] = _mm512_fmadd_ps(qv, kv[c], a[r][c]);
        }
    }
    if (kt == 4) {
        UNROLL for (int r = 0; r < rt; r++) {
            __m512 t0 = _mm512_add_ps(_mm512_unpacklo_ps(a[r][0], a[r][1]),
                                      _mm512_unpackhi_ps(a[r][0], a[r][1]));
            __m512 t1 = _mm512_add_ps(_mm512_unpacklo_ps(a[r][2], a[r][3]),
                                      _mm512_unpackhi_ps(a[r][2], a[r][3]));
            __m512d u0 = _mm512_castps_pd(t0), u1 = _mm512_castps_pd(t1);
            __m512 u = _mm512_add_ps(
                _mm512_castpd_ps(_mm512_unpacklo_pd(u0, u1)),
                _mm512_castpd_ps(_mm512_unpackhi_pd(u0, u1)));
            __m256 h = _mm256_add_ps(_mm512_castps512_ps256(u),
                                     _mm512_extractf32x8_ps(u, 1));
            _mm_storeu_ps(s + r * DEC_KB,
                          _mm_add_ps(_mm256_castps256_ps128(h),
                                     _mm256_extractf128_ps(h, 1)));
        }
        return;
    }
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int c = 0; c < kt; c++)
            s[r * DEC_KB + c] = _mm512_reduce_add_ps(a[r][c]);
}

/* acc[r][d0 + 16j] = acc * alpha[r] + sum_c p[r][c] v[c][d0 + 16j] */
INLINE void dec_pv_tile(const float *p, const int rt, const uint16_t *v,
                        int64_t ldv, int nb, const int dv,
                        const float *alpha, float *acc, int64_t ldacc,
                        const int bf, const uint16_t *pk)
{
    __m512 a[4][4];
    acc_load(a, rt, dv, alpha, acc, ldacc);
    for (int c = 0; c < nb; c++) {
        __m512 vv[4];
        UNROLL for (int j = 0; j < dv; j++)
            vv[j] = dec_ld(v + c * ldv + 16 * j, bf);
        if (pk != NULL) /* the next block's K, spread over this loop */
            UNROLL for (int j = 0; j < dv; j += 2)
                _mm_prefetch((const char *)(pk + c * ldv + 16 * j),
                             _MM_HINT_T0);
        UNROLL for (int r = 0; r < rt; r++) {
            __m512 b = _mm512_set1_ps(p[r * DEC_KB + c]);
            UNROLL for (int j = 0; j < dv; j++)
                a[r][j] = _mm512_fmadd_ps(b, vv[j], a[r][j]);
        }
    }
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int j = 0; j < dv; j++)
            _mm512_storeu_ps(acc + r * ldacc + 16 * j, a[r][j]);
}

INLINE void dec_qk(const float *q, int64_t ldq, int mr, const uint16_t *k,
                   int64_t ldk, int nb, int64_t D, float *s, const int bf,
                   const uint16_t *pv)
{
    for (int r0 = 0; r0 < mr; r0 += 4) {
        const int rt = mr - r0 < 4 ? mr - r0 : 4;
        for (int c0 = 0; c0 < nb; c0 += 4) {
            const int kt = nb - c0 < 4 ? nb - c0 : 4;
            const float *qq = q + r0 * ldq;
            const uint16_t *kk = k + c0 * ldk;
            float *ss = s + r0 * DEC_KB + c0;
            const uint16_t *pp = r0 == 0 && pv != NULL ? pv + c0 * ldk : NULL;
#define DQK(R, K)                                                         \
    case (R) * 8 + (K):                                                   \
        dec_qk_tile(qq, ldq, R, kk, ldk, K, D, ss, bf, pp);               \
        break;
            switch (rt * 8 + kt) {
            DQK(1, 1) DQK(1, 2) DQK(1, 3) DQK(1, 4)
            DQK(2, 1) DQK(2, 2) DQK(2, 3) DQK(2, 4)
            DQK(3, 1) DQK(3, 2) DQK(3, 3) DQK(3, 4)
            DQK(4, 1) DQK(4, 2) DQK(4, 3) DQK(4, 4)
            default: break;
            }
#undef DQK
        }
    }
}

INLINE void dec_pv(const float *p, int mr, const uint16_t *v, int64_t ldv,
                   int nb, int64_t D, const float *alpha, float *acc,
                   int64_t ldacc, const int bf, const uint16_t *pk)
{
    for (int r0 = 0; r0 < mr; r0 += 4) {
        const int rt = mr - r0 < 4 ? mr - r0 : 4;
        for (int64_t d0 = 0; d0 < D; d0 += 64) {
            const int dv = D - d0 < 64 ? (int)((D - d0) / 16) : 4;
            const float *pp_ = p + r0 * DEC_KB, *al = alpha + r0;
            const uint16_t *vv = v + d0;
            float *ac = acc + r0 * ldacc + d0;
            const uint16_t *pp = r0 == 0 && pk != NULL ? pk + d0 : NULL;
#define DPV(R, V)                                                         \
    case (R) * 8 + (V):                                                   \
        dec_pv_tile(pp_, R, vv, ldv, nb, V, al, ac, ldacc, bf, pp);       \
        break;
            switch (rt * 8 + dv) {
            DPV(1, 1) DPV(1, 2) DPV(1, 3) DPV(1, 4)
            DPV(2, 1) DPV(2, 2) DPV(2, 3) DPV(2, 4)
            DPV(3, 1) DPV(3, 2) DPV(3, 3) DPV(3, 4)
            DPV(4, 1) DPV(4, 2) DPV(4, 3) DPV(4, 4)
            default: break;
            }
#undef DPV
        }
    }
}

/* The online-softmax step of one block of nb keys, all taking part. */
INLINE void dec_softmax(float *s, int mr, int nb, float scale, int round,
                        float *m, float *l, float *alpha)
{
    const __m512 vs = _mm512_set1_ps(scale);
    const int nv = (nb + 15) / 16;
    __mmask16 km[DEC_KB / 16] = {0};
    for (int j = 0; j < nv; j++)
        km[j] = nb - 16 * j >= 16 ? 0xffff
                                  : (__mmask16)((1u << (nb - 16 * j)) - 1);
    float bmax[16], sums[16];
    for (int r = 0; r < mr; r++) {
        __m512 bm = _mm512_set1_ps(-INFINITY);
        for (int j = 0; j < nv; j++) {
            __m512 x = scaled(s + r * DEC_KB + 16 * j, vs);
            bm = _mm512_mask_max_ps(bm, km[j], x, bm);
        }
        bmax[r] = _mm512_reduce_max_ps(bm);
    }
    const __mmask16 rm = (__mmask16)((1u << mr) - 1);
    __m512 mold = _mm512_maskz_loadu_ps(rm, m);
    __m512 bmv = _mm512_maskz_loadu_ps(rm, bmax);
    /* mnew = bmax > m ? bmax : m, as the scalar kernel */
    __m512 mnew = _mm512_mask_mov_ps(
        mold, _mm512_cmp_ps_mask(bmv, mold, _CMP_GT_OQ), bmv);
    __mmask16 ch = _mm512_cmp_ps_mask(mnew, mold, _CMP_NEQ_UQ);
    __m512 a = _mm512_mask_mov_ps(_mm512_set1_ps(1.0f), ch,
                                  exp16(_mm512_sub_ps(mold, mnew)));
    float mn[16];
    _mm512_storeu_ps(mn, mnew);
    _mm512_mask_storeu_ps(m, rm, mnew);
    _mm512_mask_storeu_ps(alpha, rm, a);
    for (int r = 0; r < mr; r++) {
        const __m512 mv = _mm512_set1_ps(mn[r]);
        __m512 sum = _mm512_setzero_ps();
        for (int j = 0; j < nv; j++) {
            float *x = s + r * DEC_KB + 16 * j;
            __m512 p = _mm512_maskz_mov_ps(
                km[j], exp16(_mm512_sub_ps(scaled(x, vs), mv)));
            sum = _mm512_add_ps(sum, p);
            if (round == 1)
                p = round_fp16(p);
            else if (round == 2)
                p = round_bf16(p);
            _mm512_storeu_ps(x, p);
        }
        sums[r] = _mm512_reduce_add_ps(sum);
    }
    /* l * alpha and + sum rounded each (no contraction into an FMA) */
    __m512 lv = _mm512_mul_round_ps(_mm512_maskz_loadu_ps(rm, l), a,
                                    _MM_FROUND_TO_NEAREST_INT |
                                        _MM_FROUND_NO_EXC);
    _mm512_mask_storeu_ps(l, rm,
                          _mm512_add_ps(lv, _mm512_maskz_loadu_ps(rm, sums)));
}

#include "decode_run.h"

static bool decode_avx512(const float *q, int64_t ldq, int mr,
                          const uint16_t *k, const uint16_t *v, int64_t ldkv,
                          int64_t nk, int64_t D, fia_dtype dt, float scale,
                          int round, float *m, float *l, float *acc,
                          int64_t ldacc)
{
    dec_run_dt(q, ldq, mr, k, v, ldkv, nk, D, dt, scale, round, m, l, acc,
               ldacc);
    /* inf - inf and 0 * inf make NaN, inf stays: one test for all rows */
    __m512 z = _mm512_setzero_ps();
    const __mmask16 rm = (__mmask16)((1u << mr) - 1);
    z = _mm512_add_ps(z, _mm512_mul_ps(_mm512_maskz_loadu_ps(rm, m), z));
    z = _mm512_add_ps(z, _mm512_mul_ps(_mm512_maskz_loadu_ps(rm, l), z));
    for (int r = 0; r < mr; r++)
        for (int64_t d = 0; d < D; d += 16)
            z = _mm512_add_ps(
                z, _mm512_mul_ps(_mm512_loadu_ps(acc + r * ldacc + d),
                                 _mm512_setzero_ps()));
    return _mm512_cmp_ps_mask(z, z, _CMP_UNORD_Q) == 0;
}

const fast_kernels fast_kernels_avx512 = {
    .name = "avx512",
    .qk_t = qk_t_avx512,
    .qk_t_max = qk_t_max_avx512,
    .softmax_full = softmax_full_avx512,
    .qk_dot = qk_dot_avx512,
    .softmax = softmax_avx512,
    .pv = pv_avx512,
    .widen = widen_avx512,
    .widen_t = widen_t_avx512,
    .store = store_avx512,
    .decode = decode_avx512,
};
#else
typedef int fast_no_avx512; /* not an x86-64 build with the flags */
#endif
