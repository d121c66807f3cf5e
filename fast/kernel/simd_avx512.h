/* The AVX-512 level's shared helpers (F/BW/VL/DQ, FMA, F16C): exp, the
 * rounding of P, the scaled scores, the second pass of the softmax, the
 * P.V accumulators and the 4-sum reduction.  Included only by the *_avx512.c
 * files, the only ones compiled with those flags (CMakeLists.txt);
 * dispatch.c uses the table only after checking the CPU.  Loads and stores
 * of caller memory are masked. */
#ifndef FIA_FAST_SIMD_AVX512_H
#define FIA_FAST_SIMD_AVX512_H

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX512BW__) && \
    defined(__AVX512VL__) && defined(__AVX512DQ__) && defined(__FMA__) &&  \
    defined(__F16C__)
#define FAST_HAVE_AVX512 1
#include <immintrin.h>
#include "../fast_internal.h"
#include "tile_loop.h"

/* ---- softmax ------------------------------------------------------------ */
/* exp(x) for x <= 0 (Cephes polynomial, ~1 ulp); NaN stays NaN, results
 * below FLT_MIN are float32 subnormals (the permitted algorithm's expf
 * keeps them: a weight e^-90 is not 0), x below ln(2^-150) gives 0.
 * Lanes with x > 0 (only ones the callers mask off) give garbage: no
 * clamp from above. */
INLINE __m512 exp16(__m512 x)
{
    const __m512 lo = _mm512_set1_ps(-103.972084f);
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
    /* y * 2^fx in one rounding, also where the result is subnormal (fx
     * down to -150: scalef takes any exponent) */
    return _mm512_maskz_mov_ps(keep, _mm512_scalef_ps(y, fx));
}

/* The lanes (16 rows) for which key c takes part: lo <= c <= hi and,
 * with a mask, its byte of the row (excl: key c's 16 bytes) is 0. */
INLINE __mmask16 keys_in16(__m512i vlo, __m512i vhi, int c,
                           const uint8_t *excl)
{
    const __m512i vc = _mm512_set1_epi32(c);
    __mmask16 in = _mm512_cmple_epi32_mask(vlo, vc) &
                   _mm512_cmple_epi32_mask(vc, vhi);
    if (excl)
        in &= _mm_cmpeq_epi8_mask(
            _mm_loadu_si128((const __m128i *)(const void *)excl),
            _mm_setzero_si128());
    return in;
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

/* The end of a softmax step for 16 rows, after its first pass stored the
 * scaled scores and found bmax (each row's block max) and any (the rows
 * with a key taking part): mnew, alpha, P and the row sums, the row state.
 * full: every key takes part in all 16 rows (valid unused). */
INLINE void softmax_finish16(float *s, int64_t lds, int nk, __m512 bmax,
                             __mmask16 any, const bool full,
                             const __mmask16 *valid, int round, float *m,
                             float *l, float *alpha)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 mold = _mm512_loadu_ps(m);
    __m512 mnew = _mm512_max_ps(bmax, mold);
    __mmask16 ch = any & _mm512_cmp_ps_mask(mnew, mold, _CMP_NEQ_OQ);
    __m512 a = _mm512_mask_mov_ps(one, ch, exp16(_mm512_sub_ps(mold, mnew)));
    /* rows whose scores so far are all -inf: shift 0, their weights 0
     * (not exp(-inf - (-inf)) = NaN); a later key sets the shift */
    const __m512 ms = _mm512_mask_mov_ps(
        mnew, _mm512_cmp_ps_mask(mnew, _mm512_set1_ps(-INFINITY), _CMP_EQ_OQ),
        _mm512_setzero_ps());
    /* a NULL literal for the full case: no mask test in its loop */
    __m512 sum;
    if (full)
        sum = round == 1   ? softmax_p16(s, lds, nk, ms, NULL, 1)
              : round == 2 ? softmax_p16(s, lds, nk, ms, NULL, 2)
                           : softmax_p16(s, lds, nk, ms, NULL, 0);
    else
        sum = round == 1   ? softmax_p16(s, lds, nk, ms, valid, 1)
              : round == 2 ? softmax_p16(s, lds, nk, ms, valid, 2)
                           : softmax_p16(s, lds, nk, ms, valid, 0);
    _mm512_storeu_ps(m, mnew);
    _mm512_storeu_ps(l, _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(l), a),
                                      sum));
    _mm512_storeu_ps(alpha, a);
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

/* ---- dot products ------------------------------------------------------- */
/* The 4 sums of 4 vectors in one tree (lane order of the result: a[0..3]). */
INLINE __m128 hsum4x16(const __m512 a[4])
{
    __m512 t0 = _mm512_add_ps(_mm512_unpacklo_ps(a[0], a[1]),
                              _mm512_unpackhi_ps(a[0], a[1]));
    __m512 t1 = _mm512_add_ps(_mm512_unpacklo_ps(a[2], a[3]),
                              _mm512_unpackhi_ps(a[2], a[3]));
    __m512d u0 = _mm512_castps_pd(t0), u1 = _mm512_castps_pd(t1);
    __m512 u = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(u0, u1)),
                             _mm512_castpd_ps(_mm512_unpackhi_pd(u0, u1)));
    __m256 h = _mm256_add_ps(_mm512_castps512_ps256(u),
                             _mm512_extractf32x8_ps(u, 1));
    return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

/* ---- transposes ---------------------------------------------------------- */
/* x[r] = columns d0 .. d0 + w - 1 (w <= 16) of fp16/bf16 row rows[r]
 * widened (lanes past w zero, not read), r < 16; a row r >= nrows or NULL
 * is zero. */
INLINE void widen_rows16(fia_dtype dt, const uint16_t *const *rows,
                         int nrows, int64_t d0, int64_t w, __m512 x[16])
{
    const bool h = dt == FIA_DT_FP16;
    const __mmask16 k = (__mmask16)((1u << w) - 1);
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
}

/* A 16 x 16 transpose in registers (4 rounds of shuffles: pairs of floats,
 * quads, 128-bit lanes twice): x[r][c] becomes x[c][r]. */
INLINE void transpose16(__m512 x[16])
{
    __m512 t[16];
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
}

#else
typedef int fast_no_avx512; /* not an x86-64 build with the flags */
#endif
#endif
