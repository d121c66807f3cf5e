/* The fused decode kernels' online-softmax step at AVX2 (decode_avx2.c
 * and decode_antiquant_avx2.c, the same arithmetic for fp16/bf16 and int8/int4
 * K/V), with the fp16/bf16 load it uses for the pse: included after
 * simd_avx2.h and the includer's DEC_KB. */
#ifndef FIA_FAST_DEC_SOFTMAX_AVX2_H
#define FIA_FAST_DEC_SOFTMAX_AVX2_H

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

INLINE float hmax8(__m256 v)
{
    __m128 x = _mm_max_ps(_mm256_castps256_ps128(v),
                          _mm256_extractf128_ps(v, 1));
    x = _mm_max_ps(x, _mm_movehl_ps(x, x));
    x = _mm_max_ss(x, _mm_movehdup_ps(x));
    return _mm_cvtss_f32(x);
}

/* The bias of 8 keys of a row of the pse, w of them in the block (a short
 * run copied first: nothing past the block's keys read). */
INLINE __m256 dec_bias(const uint16_t *p, int w, const int bf)
{
    if (w >= 8)
        return dec_ld(p, bf);
    uint16_t tmp[8] = {0};
    memcpy(tmp, p, (size_t)w * sizeof(uint16_t));
    return dec_ld(tmp, bf);
}

/* The online-softmax step of one block of nb keys, all taking part; the
 * row state (mr <= 8 rows) in scalars.  With bias (NULL: none) the pse_bias
 * step first (kernels.h: scaled, plus the bias, clamped to -FLT_MAX), its
 * scores stored for the second pass. */
INLINE void dec_softmax(float *s, int mr, int nb, float scale, int round,
                        float *m, float *l, float *alpha,
                        const uint16_t *const *bias, const int bf)
{
    const __m256 vs = _mm256_set1_ps(scale);
    const __m256 lowest = _mm256_set1_ps(-FLT_MAX);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const int nv = (nb + 7) / 8;
    __m256 km[DEC_KB / 8];
    for (int j = 0; j < DEC_KB / 8; j++) /* lanes of keys c < nb */
        km[j] = _mm256_castsi256_ps(
            _mm256_cmpgt_epi32(_mm256_set1_epi32(nb - 8 * j), lane));
    for (int r = 0; r < mr; r++) {
        float *x = s + r * DEC_KB;
        __m256 bm = _mm256_set1_ps(-INFINITY);
        for (int j = 0; j < nv; j++) { /* NaN leaves the max alone */
            __m256 v = dec_scaled(x + 8 * j, vs);
            if (bias != NULL) {
                v = _mm256_add_ps(v, dec_bias(bias[r] + 8 * j, nb - 8 * j,
                                              bf));
                v = _mm256_max_ps(lowest, v); /* NaN: v */
                _mm256_storeu_ps(x + 8 * j, v);
            }
            bm = _mm256_blendv_ps(bm, _mm256_max_ps(v, bm), km[j]);
        }
        const float bmax = hmax8(bm);
        /* mnew = bmax > m ? bmax : m, as the scalar kernel */
        const float mold = m[r], mnew = bmax > mold ? bmax : mold;
        float a = 1.0f;
        if (mnew != mold)
            a = _mm256_cvtss_f32(exp8(_mm256_set1_ps(mold - mnew)));
        const __m256 mv = _mm256_set1_ps(mnew);
        __m256 sum = _mm256_setzero_ps();
        for (int j = 0; j < nv; j++) {
            const __m256 sx = bias != NULL ? _mm256_loadu_ps(x + 8 * j)
                                           : dec_scaled(x + 8 * j, vs);
            __m256 p = _mm256_and_ps(km[j], exp8(_mm256_sub_ps(sx, mv)));
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

/* Whether m, l (mr entries) and acc (mr rows of D) are all finite after a
 * decode: inf - inf and 0 * inf make NaN, inf stays, so one test covers
 * every row. */
static inline bool dec_finite(int mr, const float *m, const float *l,
                              const float *acc, int64_t ldacc, int64_t D)
{
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

#endif
