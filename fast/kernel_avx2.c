/* AVX2 + FMA + F16C micro-kernels (8 lanes, 16 registers).  This file alone
 * is compiled with those flags (CMakeLists.txt); dispatch.c uses the table
 * only after checking the CPU.  Register tiles: Q.K^T 6 keys x 16 rows, P.V
 * 4 rows x 16 columns, dot form 2 x 4, fused decode 4 rows x 2 keys and 4
 * rows x 16 columns.  Caller memory (fp16/bf16 rows) is read and written 8
 * elements at a time with scalar tails (the decode kernel reads whole rows
 * of D, a multiple of 16). */
#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__) && \
    defined(__F16C__)
#include <immintrin.h>
#include "fast_internal.h"

#define INLINE static inline __attribute__((always_inline))
#define UNROLL _Pragma("GCC unroll 16")

/* ---- Q.K^T, transposed: st[c][r] --------------------------------------- */
/* fuse: store s * scale (rounded on its own) and fold the tile's maximum
 * per row into bmax (the first pass of the softmax, on the registers). */
INLINE void qkt_tile(const float *qt, int64_t ldq, const int rv,
                     const float *k, int64_t ldk, const int kt, int64_t D,
                     float *st, int64_t lds, const int fuse, __m256 vs,
                     float *bmax)
{
    __m256 a0[6], a1[6];
    UNROLL for (int c = 0; c < kt; c++) {
        a0[c] = _mm256_setzero_ps();
        a1[c] = _mm256_setzero_ps();
    }
    for (int64_t d = 0; d < D; d++) {
        const float *qd = qt + d * ldq;
        __m256 q0 = _mm256_loadu_ps(qd);
        __m256 q1 = rv > 1 ? _mm256_loadu_ps(qd + 8) : _mm256_setzero_ps();
        UNROLL for (int c = 0; c < kt; c++) {
            __m256 b = _mm256_broadcast_ss(k + c * ldk + d);
            a0[c] = _mm256_fmadd_ps(b, q0, a0[c]);
            if (rv > 1)
                a1[c] = _mm256_fmadd_ps(b, q1, a1[c]);
        }
    }
    if (fuse) {
        __m256 mx0 = _mm256_loadu_ps(bmax), mx1 = mx0;
        if (rv > 1)
            mx1 = _mm256_loadu_ps(bmax + 8);
        UNROLL for (int c = 0; c < kt; c++) {
            /* a NaN score leaves the max alone (max returns its second
             * operand), like the scalar kernel's v > bmax */
            __m256 v0 = _mm256_mul_ps(a0[c], vs);
            _mm256_storeu_ps(st + c * lds, v0);
            mx0 = _mm256_max_ps(v0, mx0);
            if (rv > 1) {
                __m256 v1 = _mm256_mul_ps(a1[c], vs);
                _mm256_storeu_ps(st + c * lds + 8, v1);
                mx1 = _mm256_max_ps(v1, mx1);
            }
        }
        _mm256_storeu_ps(bmax, mx0);
        if (rv > 1)
            _mm256_storeu_ps(bmax + 8, mx1);
        return;
    }
    UNROLL for (int c = 0; c < kt; c++) {
        _mm256_storeu_ps(st + c * lds, a0[c]);
        if (rv > 1)
            _mm256_storeu_ps(st + c * lds + 8, a1[c]);
    }
}

INLINE void qk_t_body(const float *qt, int64_t ldq, int mr, const float *k,
                      int64_t ldk, int nk, int64_t D, float *st, int64_t lds,
                      const int fuse, float scale, float *bmax)
{
    /* qk_t_max's contract: every row up to round_up(mr, 16) */
    const int rows = fuse ? (mr + 15) & ~15 : (mr + 7) & ~7;
    const __m256 vs = _mm256_set1_ps(scale);
    if (fuse)
        for (int r = 0; r < rows; r += 8)
            _mm256_storeu_ps(bmax + r, _mm256_set1_ps(-INFINITY));
    for (int r0 = 0; r0 < rows; r0 += 16) {
        const int rv = rows - r0 >= 16 ? 2 : 1;
        for (int c0 = 0; c0 < nk; c0 += 6) {
            const int kt = nk - c0 < 6 ? nk - c0 : 6;
            const float *q = qt + r0, *kk = k + c0 * ldk;
            float *s = st + c0 * lds + r0;
            float *bm = fuse ? bmax + r0 : NULL;
#define QKT(R, K)                                                          \
    case (R) * 8 + (K):                                                    \
        qkt_tile(q, ldq, R, kk, ldk, K, D, s, lds, fuse, vs, bm);           \
        break;
            switch (rv * 8 + kt) {
            QKT(1, 1) QKT(1, 2) QKT(1, 3) QKT(1, 4) QKT(1, 5) QKT(1, 6)
            QKT(2, 1) QKT(2, 2) QKT(2, 3) QKT(2, 4) QKT(2, 5) QKT(2, 6)
            default: break;
            }
#undef QKT
        }
    }
}

static void qk_t_avx2(const float *qt, int64_t ldq, int mr, const float *k,
                      int64_t ldk, int nk, int64_t D, float *st, int64_t lds)
{
    qk_t_body(qt, ldq, mr, k, ldk, nk, D, st, lds, 0, 1.0f, NULL);
}

static void qk_t_max_avx2(const float *qt, int64_t ldq, int mr,
                          const float *k, int64_t ldk, int nk, int64_t D,
                          float scale, float *st, int64_t lds, float *bmax)
{
    qk_t_body(qt, ldq, mr, k, ldk, nk, D, st, lds, 1, scale, bmax);
}

/* ---- Q.K^T, dot form (few rows: decode) -------------------------------- */
INLINE float hsum8(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v),
                          _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

INLINE void qkdot_tile(const float *q, int64_t ldq, const int rt,
                       const float *k, int64_t ldk, const int kt, int64_t D,
                       float *st, int64_t lds)
{
    __m256 a[2][4];
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int c = 0; c < kt; c++)
            a[r][c] = _mm256_setzero_ps();
    for (int64_t d = 0; d < D; d += 8) {
        __m256 kv[4];
        UNROLL for (int c = 0; c < kt; c++)
            kv[c] = _mm256_loadu_ps(k + c * ldk + d);
        UNROLL for (int r = 0; r < rt; r++) {
            __m256 qv = _mm256_loadu_ps(q + r * ldq + d);
            UNROLL for (int c = 0; c < kt; c++)
                a[r][c] = _mm256_fmadd_ps(qv, kv[c], a[r][c]);
        }
    }
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int c = 0; c < kt; c++)
            st[c * lds + r] = hsum8(a[r][c]);
}

static void qk_dot_avx2(const float *q, int64_t ldq, int mr, const float *k,
                        int64_t ldk, int nk, int64_t D, float *st,
                        int64_t lds)
{
    for (int r0 = 0; r0 < mr; r0 += 2) {
        const int rt = mr - r0 < 2 ? 1 : 2;
        for (int c0 = 0; c0 < nk; c0 += 4) {
            const int kt = nk - c0 < 4 ? nk - c0 : 4;
            const float *qq = q + r0 * ldq, *kk = k + c0 * ldk;
            float *s = st + c0 * lds + r0;
#define QKD(R, K) \
    case (R) * 8 + (K): qkdot_tile(qq, ldq, R, kk, ldk, K, D, s, lds); break;
            switch (rt * 8 + kt) {
            QKD(1, 1) QKD(1, 2) QKD(1, 3) QKD(1, 4)
            QKD(2, 1) QKD(2, 2) QKD(2, 3) QKD(2, 4)
            default: break;
            }
#undef QKD
        }
    }
}

/* ---- softmax ------------------------------------------------------------ */
/* exp(x) for x <= 0 (Cephes polynomial, ~1 ulp); NaN stays NaN, x below
 * ln(FLT_MIN) gives 0. */
INLINE __m256 exp8(__m256 x)
{
    const __m256 lo = _mm256_set1_ps(-87.33654f);
    __m256 keep = _mm256_cmp_ps(x, lo, _CMP_NLT_UQ);
    x = _mm256_max_ps(lo, x); /* NaN-preserving operand order */
    x = _mm256_min_ps(_mm256_set1_ps(88.37626f), x);
    __m256 fx = _mm256_round_ps(
        _mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 y = _mm256_set1_ps(1.9875691500e-4f);
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(1.3981999507e-3f));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(8.3334519073e-3f));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(4.1665795894e-2f));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(1.6666665459e-1f));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(5.0000001201e-1f));
    y = _mm256_fmadd_ps(y, _mm256_mul_ps(r, r),
                        _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    __m256i e = _mm256_slli_epi32(
        _mm256_add_epi32(_mm256_cvtps_epi32(fx), _mm256_set1_epi32(127)), 23);
    return _mm256_and_ps(keep, _mm256_mul_ps(y, _mm256_castsi256_ps(e)));
}

INLINE __m256 round_bf16(__m256 p)
{
    __m256i u = _mm256_castps_si256(p);
    __m256i r = _mm256_add_epi32(
        u, _mm256_add_epi32(_mm256_set1_epi32(0x7fff),
                            _mm256_and_si256(_mm256_srli_epi32(u, 16),
                                             _mm256_set1_epi32(1))));
    r = _mm256_and_si256(r, _mm256_set1_epi32((int)0xffff0000u));
    return _mm256_blendv_ps(_mm256_castsi256_ps(r), p,
                            _mm256_cmp_ps(p, p, _CMP_UNORD_Q));
}

/* P rounded as asked: to fp16 (round 1), bf16 (round 2) or not (0). */
INLINE __m256 round_p8(__m256 p, const int round)
{
    if (round == 1)
        return _mm256_cvtph_ps(_mm256_cvtps_ph(
            p, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    return round == 2 ? round_bf16(p) : p;
}

/* The row state of 8 rows after a block: m, l = l * alpha + sum, alpha. */
INLINE void store_rows8(float *m, float *l, float *alpha, __m256 mnew,
                        __m256 a, __m256 sum)
{
    _mm256_storeu_ps(m, mnew);
    _mm256_storeu_ps(l, _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(l), a),
                                      sum));
    _mm256_storeu_ps(alpha, a);
}

static void softmax_avx2(float *s, int64_t lds, int mr, int nk, float scale,
                         const int32_t *lo, const int32_t *hi,
                         const uint8_t *excl, int round, float *m, float *l,
                         float *alpha)
{
    const __m256 vs = _mm256_set1_ps(scale), one = _mm256_set1_ps(1.0f);
    __m256 valid[FAST_KBLOCK];
    for (int r0 = 0; r0 < mr; r0 += 8) {
        __m256i vlo = _mm256_loadu_si256((const __m256i *)(lo + r0));
        __m256i vhi = _mm256_loadu_si256((const __m256i *)(hi + r0));
        __m256 bmax = _mm256_set1_ps(-INFINITY), any = _mm256_setzero_ps();
        for (int c = 0; c < nk; c++) {
            __m256i vc = _mm256_set1_epi32(c);
            /* lo <= c <= hi: not (lo > c) and not (c > hi) */
            __m256i out = _mm256_or_si256(_mm256_cmpgt_epi32(vlo, vc),
                                          _mm256_cmpgt_epi32(vc, vhi));
            if (excl) {
                __m256i e = _mm256_cvtepu8_epi32(_mm_loadl_epi64(
                    (const __m128i *)(excl + c * lds + r0)));
                out = _mm256_or_si256(out, _mm256_xor_si256(
                    _mm256_cmpeq_epi32(e, _mm256_setzero_si256()),
                    _mm256_set1_epi32(-1)));
            }
            __m256 in = _mm256_castsi256_ps(
                _mm256_xor_si256(out, _mm256_set1_epi32(-1)));
            valid[c] = in;
            any = _mm256_or_ps(any, in);
            float *x = s + c * lds + r0;
            __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x), vs);
            _mm256_storeu_ps(x, v);
            bmax = _mm256_blendv_ps(bmax, _mm256_max_ps(v, bmax), in);
        }
        __m256 mold = _mm256_loadu_ps(m + r0);
        __m256 mnew = _mm256_max_ps(bmax, mold);
        __m256 ch = _mm256_and_ps(any, _mm256_cmp_ps(mnew, mold, _CMP_NEQ_OQ));
        __m256 a = _mm256_blendv_ps(one, exp8(_mm256_sub_ps(mold, mnew)), ch);
        __m256 sum = _mm256_setzero_ps();
        for (int c = 0; c < nk; c++) {
            float *x = s + c * lds + r0;
            __m256 p = _mm256_and_ps(
                valid[c], exp8(_mm256_sub_ps(_mm256_loadu_ps(x), mnew)));
            sum = _mm256_add_ps(sum, p);
            _mm256_storeu_ps(x, round_p8(p, round));
        }
        store_rows8(m + r0, l + r0, alpha + r0, mnew, a, sum);
    }
}

/* The second pass of softmax_full for 8 rows: p = exp(s - mnew) for every
 * key, the row sums, P rounded as asked.  SM_U keys at a time, their exp
 * chains side by side (the loop is bound by their latency); the sum still
 * adds them in key order. */
#define SM_U 8
INLINE __m256 softmax_p8(float *s, int64_t lds, int nk, __m256 mnew,
                         const int round)
{
    __m256 sum = _mm256_setzero_ps();
    int c = 0;
    for (; c + SM_U <= nk; c += SM_U) {
        __m256 p[SM_U];
        UNROLL for (int u = 0; u < SM_U; u++)
            p[u] = exp8(_mm256_sub_ps(_mm256_loadu_ps(s + (c + u) * lds),
                                      mnew));
        UNROLL for (int u = 0; u < SM_U; u++) {
            sum = _mm256_add_ps(sum, p[u]);
            _mm256_storeu_ps(s + (c + u) * lds, round_p8(p[u], round));
        }
    }
    for (; c < nk; c++) {
        float *x = s + c * lds;
        __m256 p = exp8(_mm256_sub_ps(_mm256_loadu_ps(x), mnew));
        sum = _mm256_add_ps(sum, p);
        _mm256_storeu_ps(x, round_p8(p, round));
    }
    return sum;
}

/* The softmax step after qk_t_max: scores scaled, bmax[r] the block max,
 * every key in every row (the same m, l, alpha and P as softmax_avx2). */
static void softmax_full_avx2(float *s, int64_t lds, int mr, int nk,
                              const float *bmax, int round, float *m,
                              float *l, float *alpha)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    const int rows = (mr + 15) & ~15; /* as qk_t_max */
    for (int r0 = 0; r0 < rows; r0 += 8) {
        __m256 mold = _mm256_loadu_ps(m + r0);
        __m256 mnew = _mm256_max_ps(_mm256_loadu_ps(bmax + r0), mold);
        __m256 ch = _mm256_cmp_ps(mnew, mold, _CMP_NEQ_OQ);
        if (nk == 0)
            ch = _mm256_setzero_ps();
        __m256 a = _mm256_blendv_ps(one, exp8(_mm256_sub_ps(mold, mnew)), ch);
        __m256 sum = round == 1   ? softmax_p8(s + r0, lds, nk, mnew, 1)
                     : round == 2 ? softmax_p8(s + r0, lds, nk, mnew, 2)
                                  : softmax_p8(s + r0, lds, nk, mnew, 0);
        store_rows8(m + r0, l + r0, alpha + r0, mnew, a, sum);
    }
}

/* ---- P.V ---------------------------------------------------------------- */
/* A tile's accumulators (16 columns): acc * alpha[r].  Once the running
 * maxima settle, alpha is 1 in most blocks: then acc is only loaded
 * (x * 1 = x, so the result is the same). */
INLINE void acc_load(__m256 a[][2], const int rt, const float *alpha,
                     const float *acc, int64_t ldacc)
{
    bool ones = true;
    UNROLL for (int r = 0; r < rt; r++)
        ones &= alpha[r] == 1.0f;
    UNROLL for (int r = 0; r < rt; r++) {
        const __m256 al = _mm256_set1_ps(alpha[r]);
        UNROLL for (int j = 0; j < 2; j++) {
            a[r][j] = _mm256_loadu_ps(acc + r * ldacc + 8 * j);
            if (!ones)
                a[r][j] = _mm256_mul_ps(a[r][j], al);
        }
    }
}

/* A tile is up to 6 rows x 16 columns: 12 accumulators, 2 vectors of V and
 * a broadcast of P in the 16 registers (4 rows measured 88 % of the FMA
 * peak in `fiacheck bench --kernels`, 6 rows 95 %). */
#define PV_RT 6
INLINE void pv_tile(const float *pt, int64_t ldp, const int rt,
                    const float *v, int64_t ldv, int nk, const float *alpha,
                    float *acc, int64_t ldacc)
{
    __m256 a[PV_RT][2];
    acc_load(a, rt, alpha, acc, ldacc);
    for (int c = 0; c < nk; c++) {
        __m256 v0 = _mm256_loadu_ps(v + c * ldv);
        __m256 v1 = _mm256_loadu_ps(v + c * ldv + 8);
        UNROLL for (int r = 0; r < rt; r++) {
            __m256 b = _mm256_broadcast_ss(pt + c * ldp + r);
            a[r][0] = _mm256_fmadd_ps(b, v0, a[r][0]);
            a[r][1] = _mm256_fmadd_ps(b, v1, a[r][1]);
        }
    }
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int j = 0; j < 2; j++)
            _mm256_storeu_ps(acc + r * ldacc + 8 * j, a[r][j]);
}

static void pv_avx2(const float *pt, int64_t ldp, int mr, const float *v,
                    int64_t ldv, int nk, int64_t D, const float *alpha,
                    float *acc, int64_t ldacc)
{
    for (int r0 = 0; r0 < mr; r0 += PV_RT) {
        const int rt = mr - r0 < PV_RT ? mr - r0 : PV_RT;
        for (int64_t d0 = 0; d0 < D; d0 += 16) {
            const float *p = pt + r0, *vv = v + d0, *al = alpha + r0;
            float *ac = acc + r0 * ldacc + d0;
#define PV(R) \
    case R: pv_tile(p, ldp, R, vv, ldv, nk, al, ac, ldacc); break;
            switch (rt) {
            PV(1) PV(2) PV(3) PV(4) PV(5) PV(6)
            default: break;
            }
#undef PV
        }
    }
}

/* ---- conversions -------------------------------------------------------- */
static bool widen_avx2(fia_dtype dt, const uint16_t *src, float *dst,
                       int64_t n)
{
    const bool h = dt == FIA_DT_FP16;
    const __m128i em = _mm_set1_epi16(h ? 0x7c00 : 0x7f80);
    __m128i bad = _mm_setzero_si128();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i x = _mm_loadu_si128((const __m128i *)(src + i));
        bad = _mm_or_si128(bad, _mm_cmpeq_epi16(_mm_and_si128(x, em), em));
        __m256 f = h ? _mm256_cvtph_ps(x)
                     : _mm256_castsi256_ps(
                           _mm256_slli_epi32(_mm256_cvtepu16_epi32(x), 16));
        _mm256_storeu_ps(dst + i, f);
    }
    bool finite = _mm_testz_si128(bad, bad);
    if (i < n)
        finite &= fast_widen_scalar(dt, src + i, dst + i, n - i);
    return finite;
}

/* Two groups of 8 rows, each 8 columns at a time: 8 rows widened, an 8 x 8
 * transpose in registers (pairs of floats, quads, then 128-bit halves), 8
 * floats per column stored; the last n % 8 columns by the portable code. */
static void widen_t_avx2(fia_dtype dt, const uint16_t *const *rows,
                         int nrows, int64_t n, float *dst, int64_t ldd)
{
    const bool h = dt == FIA_DT_FP16;
    const int64_t n8 = n & ~(int64_t)7;
    for (int g = 0; g < 16; g += 8) {
        for (int64_t d0 = 0; d0 < n8; d0 += 8) {
            __m256 x[8], t[8];
            UNROLL for (int r = 0; r < 8; r++) {
                const uint16_t *src = g + r < nrows ? rows[g + r] : NULL;
                if (src == NULL) {
                    x[r] = _mm256_setzero_ps();
                    continue;
                }
                __m128i v = _mm_loadu_si128((const __m128i *)(src + d0));
                x[r] = h ? _mm256_cvtph_ps(v)
                         : _mm256_castsi256_ps(_mm256_slli_epi32(
                               _mm256_cvtepu16_epi32(v), 16));
            }
            UNROLL for (int r = 0; r < 8; r += 2) {
                t[r] = _mm256_unpacklo_ps(x[r], x[r + 1]);
                t[r + 1] = _mm256_unpackhi_ps(x[r], x[r + 1]);
            }
            /* x[4q + j]: in half l, column 4l + j of rows 4q..4q+3 */
            UNROLL for (int r = 0; r < 8; r += 4) {
                x[r] = _mm256_shuffle_ps(t[r], t[r + 2], 0x44);
                x[r + 1] = _mm256_shuffle_ps(t[r], t[r + 2], 0xee);
                x[r + 2] = _mm256_shuffle_ps(t[r + 1], t[r + 3], 0x44);
                x[r + 3] = _mm256_shuffle_ps(t[r + 1], t[r + 3], 0xee);
            }
            UNROLL for (int j = 0; j < 4; j++) {
                t[j] = _mm256_permute2f128_ps(x[j], x[4 + j], 0x20);
                t[4 + j] = _mm256_permute2f128_ps(x[j], x[4 + j], 0x31);
            }
            UNROLL for (int c = 0; c < 8; c++)
                _mm256_storeu_ps(dst + (d0 + c) * ldd + g, t[c]);
        }
    }
    if (n8 < n) { /* the tail columns: rows offset by n8 */
        const uint16_t *tail[16];
        for (int r = 0; r < nrows; r++)
            tail[r] = rows[r] == NULL ? NULL : rows[r] + n8;
        fast_widen_t_scalar(dt, tail, nrows, n - n8, dst + n8 * ldd, ldd);
    }
}

/* acc / l in double, then to float rounding to odd (truncate, set the last
 * bit when inexact), then nearest-even to fp16/bf16: one correct rounding. */
static __m256 div_round_odd(const float *acc, __m256d vl)
{
    const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    __m256d x0 = _mm256_div_pd(_mm256_cvtps_pd(_mm_loadu_ps(acc)), vl);
    __m256d x1 = _mm256_div_pd(_mm256_cvtps_pd(_mm_loadu_ps(acc + 4)), vl);
    __m256 f = _mm256_set_m128(_mm256_cvtpd_ps(x1), _mm256_cvtpd_ps(x0));
    __m256d b0 = _mm256_cvtps_pd(_mm256_castps256_ps128(f));
    __m256d b1 = _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1));
    const __m256d abs = _mm256_castsi256_pd(_mm256_set1_epi64x(INT64_MAX));
    int ne = _mm256_movemask_pd(_mm256_cmp_pd(b0, x0, _CMP_NEQ_UQ)) |
             _mm256_movemask_pd(_mm256_cmp_pd(b1, x1, _CMP_NEQ_UQ)) << 4;
    int over = _mm256_movemask_pd(_mm256_cmp_pd(_mm256_and_pd(b0, abs),
                                                _mm256_and_pd(x0, abs),
                                                _CMP_GT_OQ)) |
               _mm256_movemask_pd(_mm256_cmp_pd(_mm256_and_pd(b1, abs),
                                                _mm256_and_pd(x1, abs),
                                                _CMP_GT_OQ)) << 4;
    __m256i vne = _mm256_cmpeq_epi32(
        _mm256_and_si256(_mm256_set1_epi32(ne), bit), bit);
    __m256i vover = _mm256_cmpeq_epi32(
        _mm256_and_si256(_mm256_set1_epi32(over), bit), bit);
    __m256i fi = _mm256_add_epi32(_mm256_castps_si256(f), vover); /* -1 */
    fi = _mm256_or_si256(fi, _mm256_srli_epi32(vne, 31));
    return _mm256_castsi256_ps(fi);
}

static void store_avx2(fia_dtype dt, const float *acc, double l,
                       uint16_t *dst, int64_t n)
{
    const __m256d vl = _mm256_set1_pd(l);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 f = div_round_odd(acc + i, vl);
        __m128i o;
        if (dt == FIA_DT_FP16) {
            o = _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT |
                                       _MM_FROUND_NO_EXC);
        } else {
            __m256i fi = _mm256_castps_si256(f);
            __m256i r = _mm256_add_epi32(
                fi, _mm256_add_epi32(_mm256_set1_epi32(0x7fff),
                                     _mm256_and_si256(_mm256_srli_epi32(fi, 16),
                                                      _mm256_set1_epi32(1))));
            r = _mm256_srli_epi32(r, 16);
            __m256i qn = _mm256_or_si256(
                _mm256_and_si256(_mm256_srli_epi32(fi, 16),
                                 _mm256_set1_epi32(0x8000)),
                _mm256_set1_epi32(0x7fc0));
            r = _mm256_castps_si256(_mm256_blendv_ps(
                _mm256_castsi256_ps(r), _mm256_castsi256_ps(qn),
                _mm256_cmp_ps(f, f, _CMP_UNORD_Q)));
            o = _mm_packus_epi32(_mm256_castsi256_si128(r),
                                 _mm256_extracti128_si256(r, 1));
        }
        _mm_storeu_si128((__m128i *)(dst + i), o);
    }
    if (i < n)
        fast_store_scalar(dt, acc + i, l, dst + i, n - i);
}

/* ---- fused decode ------------------------------------------------------ */
/* The steps of kernel->decode (fast_internal.h) on blocks of DEC_KB keys,
 * K and V read as fp16/bf16 and widened in registers: Q.K^T as 4 rows x 2
 * keys of dot products, the softmax per row, P.V as 4 rows x 16 columns.
 * V of the block DEC_PFV ahead is prefetched during Q.K^T and K of the
 * block DEC_PFK ahead during P.V (decode streams K/V from memory). */
#define DEC_KB 16
#define DEC_PFV 16
#define DEC_PFK 32

INLINE __m256 dec_ld(const uint16_t *p, const int bf)
{
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    return bf ? _mm256_castsi256_ps(
                    _mm256_slli_epi32(_mm256_cvtepu16_epi32(x), 16))
              : _mm256_cvtph_ps(x);
}

/* x * scale rounded on its own: the empty asm keeps the compiler from
 * contracting it with the subtraction of the max into one FMA */
INLINE __m256 dec_scaled(const float *x, __m256 vs)
{
    __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x), vs);
    __asm__("" : "+x"(v));
    return v;
}

/* s[r*DEC_KB + c] = q_r . k_c for rt rows (1..4) x kt keys (1..2) */
INLINE void dec_qk_tile(const float *q, int64_t ldq, const int rt,
                        const uint16_t *k, int64_t ldk, const int kt,
                        int64_t D, float *s, const int bf,
                        const uint16_t *pv)
{
    __m256 a[4][2];
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int c = 0; c < kt; c++)
            a[r][c] = _mm256_setzero_ps();
    for (int64_t d = 0; d < D; d += 8) {
        __m256 kv[2];
        UNROLL for (int c = 0; c < kt; c++)
            kv[c] = dec_ld(k + c * ldk + d, bf);
        if (pv != NULL && d % 32 == 0) /* the lines of V this block reads */
            UNROLL for (int c = 0; c < kt; c++)
                _mm_prefetch((const char *)(pv + c * ldk + d), _MM_HINT_T0);
        UNROLL for (int r = 0; r < rt; r++) {
            __m256 qv = _mm256_loadu_ps(q + r * ldq + d);
            UNROLL for (int c = 0; c < kt; c++)
                a[r][c] = _mm256_fmadd_ps(qv, kv[c], a[r][c]);
        }
    }
    if (kt == 2) { /* the two sums of a row in one tree */
        UNROLL for (int r = 0; r < rt; r++) {
            __m256 h = _mm256_hadd_ps(a[r][0], a[r][1]);
            __m128 x = _mm_add_ps(_mm256_castps256_ps128(h),
                                  _mm256_extractf128_ps(h, 1));
            /* x: k0 (0+1), k0 (2+3), k1 (0+1), k1 (2+3) */
            x = _mm_hadd_ps(x, x);
            _mm_storel_pi((__m64 *)(void *)(s + r * DEC_KB), x);
        }
        return;
    }
    UNROLL for (int r = 0; r < rt; r++)
        s[r * DEC_KB] = hsum8(a[r][0]);
}

/* acc[r][d0 + 8j] = acc * alpha[r] + sum_c p[r][c] v[c][d0 + 8j], j < 2 */
INLINE void dec_pv_tile(const float *p, const int rt, const uint16_t *v,
                        int64_t ldv, int nb, const float *alpha, float *acc,
                        int64_t ldacc, const int bf, const uint16_t *pk)
{
    __m256 a[4][2];
    acc_load(a, rt, alpha, acc, ldacc);
    for (int c = 0; c < nb; c++) {
        __m256 vv[2];
        UNROLL for (int j = 0; j < 2; j++)
            vv[j] = dec_ld(v + c * ldv + 8 * j, bf);
        if (pk != NULL) /* the next blocks' K, spread over this loop */
            _mm_prefetch((const char *)(pk + c * ldv), _MM_HINT_T0);
        UNROLL for (int r = 0; r < rt; r++) {
            __m256 b = _mm256_broadcast_ss(p + r * DEC_KB + c);
            UNROLL for (int j = 0; j < 2; j++)
                a[r][j] = _mm256_fmadd_ps(b, vv[j], a[r][j]);
        }
    }
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int j = 0; j < 2; j++)
            _mm256_storeu_ps(acc + r * ldacc + 8 * j, a[r][j]);
}

INLINE void dec_qk(const float *q, int64_t ldq, int mr, const uint16_t *k,
                   int64_t ldk, int nb, int64_t D, float *s, const int bf,
                   const uint16_t *pv)
{
    for (int r0 = 0; r0 < mr; r0 += 4) {
        const int rt = mr - r0 < 4 ? mr - r0 : 4;
        for (int c0 = 0; c0 < nb; c0 += 2) {
            const int kt = nb - c0 < 2 ? 1 : 2;
            const float *qq = q + r0 * ldq;
            const uint16_t *kk = k + c0 * ldk;
            float *ss = s + r0 * DEC_KB + c0;
            const uint16_t *pp = r0 == 0 && pv != NULL ? pv + c0 * ldk : NULL;
#define DQK(R, K)                                                         \
    case (R) * 8 + (K):                                                   \
        dec_qk_tile(qq, ldq, R, kk, ldk, K, D, ss, bf, pp);               \
        break;
            switch (rt * 8 + kt) {
            DQK(1, 1) DQK(1, 2) DQK(2, 1) DQK(2, 2)
            DQK(3, 1) DQK(3, 2) DQK(4, 1) DQK(4, 2)
            default: break;
            }
#undef DQK
        }
    }
}

/* D a multiple of 16 (the decode contract) */
INLINE void dec_pv(const float *p, int mr, const uint16_t *v, int64_t ldv,
                   int nb, int64_t D, const float *alpha, float *acc,
                   int64_t ldacc, const int bf, const uint16_t *pk)
{
    for (int r0 = 0; r0 < mr; r0 += 4) {
        const int rt = mr - r0 < 4 ? mr - r0 : 4;
        for (int64_t d0 = 0; d0 < D; d0 += 16) {
            const float *pp_ = p + r0 * DEC_KB, *al = alpha + r0;
            const uint16_t *vv = v + d0;
            float *ac = acc + r0 * ldacc + d0;
            /* one prefetch per 64-byte line of the K rows */
            const uint16_t *pp = r0 == 0 && pk != NULL && d0 % 32 == 0
                                     ? pk + d0 : NULL;
#define DPV(R)                                                            \
    case R:                                                               \
        dec_pv_tile(pp_, R, vv, ldv, nb, al, ac, ldacc, bf, pp);          \
        break;
            switch (rt) {
            DPV(1) DPV(2) DPV(3) DPV(4)
            default: break;
            }
#undef DPV
        }
    }
}

INLINE float hmax8(__m256 v)
{
    __m128 x = _mm_max_ps(_mm256_castps256_ps128(v),
                          _mm256_extractf128_ps(v, 1));
    x = _mm_max_ps(x, _mm_movehl_ps(x, x));
    x = _mm_max_ss(x, _mm_movehdup_ps(x));
    return _mm_cvtss_f32(x);
}

/* The online-softmax step of one block of nb keys, all taking part; the
 * row state (mr <= 8 rows) in scalars. */
INLINE void dec_softmax(float *s, int mr, int nb, float scale, int round,
                        float *m, float *l, float *alpha)
{
    const __m256 vs = _mm256_set1_ps(scale);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const int nv = (nb + 7) / 8;
    __m256 km[DEC_KB / 8];
    for (int j = 0; j < DEC_KB / 8; j++) /* lanes of keys c < nb */
        km[j] = _mm256_castsi256_ps(
            _mm256_cmpgt_epi32(_mm256_set1_epi32(nb - 8 * j), lane));
    for (int r = 0; r < mr; r++) {
        float *x = s + r * DEC_KB;
        __m256 bm = _mm256_set1_ps(-INFINITY);
        for (int j = 0; j < nv; j++) /* NaN leaves the max alone */
            bm = _mm256_blendv_ps(
                bm, _mm256_max_ps(dec_scaled(x + 8 * j, vs), bm), km[j]);
        const float bmax = hmax8(bm);
        /* mnew = bmax > m ? bmax : m, as the scalar kernel */
        const float mold = m[r], mnew = bmax > mold ? bmax : mold;
        float a = 1.0f;
        if (mnew != mold)
            a = _mm256_cvtss_f32(exp8(_mm256_set1_ps(mold - mnew)));
        const __m256 mv = _mm256_set1_ps(mnew);
        __m256 sum = _mm256_setzero_ps();
        for (int j = 0; j < nv; j++) {
            __m256 p = _mm256_and_ps(
                km[j], exp8(_mm256_sub_ps(dec_scaled(x + 8 * j, vs), mv)));
            sum = _mm256_add_ps(sum, p);
            _mm256_storeu_ps(x + 8 * j, round_p8(p, round));
        }
        /* l * alpha and + sum rounded each (no contraction into an FMA) */
        float t = l[r] * a;
        __asm__("" : "+x"(t));
        l[r] = t + hsum8(sum);
        m[r] = mnew;
        alpha[r] = a;
    }
}

#include "decode_run.h"

static bool decode_avx2(const float *q, int64_t ldq, int mr,
                        const uint16_t *k, const uint16_t *v, int64_t ldkv,
                        int64_t nk, int64_t D, fia_dtype dt, float scale,
                        int round, float *m, float *l, float *acc,
                        int64_t ldacc)
{
    dec_run_dt(q, ldq, mr, k, v, ldkv, nk, D, dt, scale, round, m, l, acc,
               ldacc);
    /* inf - inf and 0 * inf make NaN, inf stays: one test for all rows */
    const __m256 zero = _mm256_setzero_ps();
    __m256 z = zero;
    for (int r = 0; r < mr; r++) {
        z = _mm256_add_ps(z, _mm256_mul_ps(_mm256_set1_ps(m[r]), zero));
        z = _mm256_add_ps(z, _mm256_mul_ps(_mm256_set1_ps(l[r]), zero));
        for (int64_t d = 0; d < D; d += 8)
            z = _mm256_add_ps(
                z, _mm256_mul_ps(_mm256_loadu_ps(acc + r * ldacc + d), zero));
    }
    return _mm256_movemask_ps(_mm256_cmp_ps(z, z, _CMP_UNORD_Q)) == 0;
}

const fast_kernels fast_kernels_avx2 = {
    .name = "avx2",
    .qk_t = qk_t_avx2,
    .qk_t_max = qk_t_max_avx2,
    .softmax_full = softmax_full_avx2,
    .qk_dot = qk_dot_avx2,
    .softmax = softmax_avx2,
    .pv = pv_avx2,
    .widen = widen_avx2,
    .widen_t = widen_t_avx2,
    .store = store_avx2,
    .decode = decode_avx2,
};
#else
typedef int fast_no_avx2; /* not an x86-64 build with the flags */
#endif
