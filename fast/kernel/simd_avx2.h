/* The AVX2 level's shared helpers (AVX2 + FMA + F16C; 8 lanes, 16
 * registers): exp, the rounding of P, the row state of a softmax step, the
 * P.V accumulators and the horizontal sum.  Included only by the *_avx2.c
 * files, the only ones compiled with those flags (CMakeLists.txt);
 * dispatch.c uses the table only after checking the CPU.  Caller memory
 * (fp16/bf16 rows) is read and written 8 elements at a time with scalar
 * tails. */
#ifndef FIA_FAST_SIMD_AVX2_H
#define FIA_FAST_SIMD_AVX2_H

#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__) && \
    defined(__F16C__)
#define FAST_HAVE_AVX2 1
#include <immintrin.h>
#include "../fast_internal.h"
#include "tile_loop.h"

/* ---- sums --------------------------------------------------------------- */
/* The sum of the 8 lanes of v. */
INLINE float hsum8(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v),
                          _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* ---- softmax ------------------------------------------------------------ */
/* exp(x) for x <= 0 (Cephes polynomial, ~1 ulp); NaN stays NaN, results
 * below FLT_MIN are float32 subnormals (the permitted algorithm's expf
 * keeps them), x below ln(2^-150) gives 0. */
INLINE __m256 exp8(__m256 x)
{
    const __m256 lo = _mm256_set1_ps(-103.972084f);
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
    /* y * 2^fx in one rounding: 2^n is a float for n >= -149, a normal
     * one's exponent field (n >= -126) or a subnormal's single bit
     * 1 << (n + 149) (n = -150: a shift out of range gives 0, within an
     * ulp of the result) */
    const __m256i n = _mm256_cvtps_epi32(fx);
    const __m256i en = _mm256_slli_epi32(
        _mm256_add_epi32(n, _mm256_set1_epi32(127)), 23);
    const __m256i es = _mm256_sllv_epi32(
        _mm256_set1_epi32(1), _mm256_add_epi32(n, _mm256_set1_epi32(149)));
    const __m256i e = _mm256_blendv_epi8(
        es, en, _mm256_cmpgt_epi32(n, _mm256_set1_epi32(-127)));
    return _mm256_and_ps(keep, _mm256_mul_ps(y, _mm256_castsi256_ps(e)));
}

/* The lanes (8 rows) for which key c takes part: lo <= c <= hi and, with
 * a mask, its byte of the row (excl: key c's 8 bytes) is 0; all ones or
 * zeros per lane. */
INLINE __m256 keys_in8(__m256i vlo, __m256i vhi, int c, const uint8_t *excl)
{
    const __m256i vc = _mm256_set1_epi32(c), ones = _mm256_set1_epi32(-1);
    /* not (lo > c) and not (c > hi) */
    __m256i out = _mm256_or_si256(_mm256_cmpgt_epi32(vlo, vc),
                                  _mm256_cmpgt_epi32(vc, vhi));
    if (excl) {
        const __m256i e = _mm256_cvtepu8_epi32(
            _mm_loadl_epi64((const __m128i *)(const void *)excl));
        out = _mm256_or_si256(out, _mm256_xor_si256(
            _mm256_cmpeq_epi32(e, _mm256_setzero_si256()), ones));
    }
    return _mm256_castsi256_ps(_mm256_xor_si256(out, ones));
}

/* The shift of a softmax step: the running max, or 0 in rows whose
 * scores so far are all -inf (their weights exp(-inf - 0) = 0, not
 * exp(-inf - (-inf)) = NaN; a later key sets the shift). */
INLINE __m256 softmax_shift8(__m256 mnew)
{
    return _mm256_blendv_ps(
        mnew, _mm256_setzero_ps(),
        _mm256_cmp_ps(mnew, _mm256_set1_ps(-INFINITY), _CMP_EQ_OQ));
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

/* ---- transposes ---------------------------------------------------------- */
/* x[r] = columns d0 .. d0 + w - 1 (1 <= w <= 8) of fp16/bf16 row rows[r]
 * widened, r < 8 (lanes past w zero: a short run is copied first, nothing
 * past it read); a row r >= nrows or NULL is zero. */
INLINE void widen_rows8(fia_dtype dt, const uint16_t *const *rows,
                        int nrows, int64_t d0, int w, __m256 x[8])
{
    const bool h = dt == FIA_DT_FP16;
    UNROLL for (int r = 0; r < 8; r++) {
        const uint16_t *src = r < nrows ? rows[r] : NULL;
        if (src == NULL) {
            x[r] = _mm256_setzero_ps();
            continue;
        }
        __m128i v;
        if (w == 8) {
            v = _mm_loadu_si128((const __m128i *)(const void *)(src + d0));
        } else {
            uint16_t tmp[8] = {0};
            memcpy(tmp, src + d0, (size_t)w * sizeof(uint16_t));
            v = _mm_loadu_si128((const __m128i *)(const void *)tmp);
        }
        x[r] = h ? _mm256_cvtph_ps(v)
                 : _mm256_castsi256_ps(
                       _mm256_slli_epi32(_mm256_cvtepu16_epi32(v), 16));
    }
}

/* An 8 x 8 transpose in registers (pairs of floats, quads, then 128-bit
 * halves): x[r][c] becomes x[c][r]. */
INLINE void transpose8(__m256 x[8])
{
    __m256 t[8];
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
        x[c] = t[c];
}

#else
typedef int fast_no_avx2; /* not an x86-64 build with the flags */
#endif
#endif
