/* The fused decode kernels' online-softmax step at AVX-512 (decode_avx512.c
 * and decode_antiquant_avx512.c, the same arithmetic for fp16/bf16 and
 * int8/int4 K/V): included after simd_avx512.h and the includer's DEC_KB. */
#ifndef FIA_FAST_DEC_SOFTMAX_AVX512_H
#define FIA_FAST_DEC_SOFTMAX_AVX512_H

/* The bias of 16 keys (lanes of km) of a row of the pse: a masked load,
 * nothing past the block's keys read. */
INLINE __m512 dec_bias(const uint16_t *p, __mmask16 km, const int bf)
{
    __m256i x = _mm256_maskz_loadu_epi16(km, p);
    return bf ? _mm512_castsi512_ps(
                    _mm512_slli_epi32(_mm512_cvtepu16_epi32(x), 16))
              : _mm512_cvtph_ps(x);
}

/* The online-softmax step of one block of nb keys, all taking part; with
 * bias (NULL: none) the pse_bias step first (kernels.h: scaled, plus the
 * bias, clamped to -FLT_MAX), its scores stored for the second pass. */
INLINE void dec_softmax(float *s, int mr, int nb, float scale, int round,
                        float *m, float *l, float *alpha,
                        const uint16_t *const *bias, const int bf)
{
    const __m512 vs = _mm512_set1_ps(scale);
    const __m512 lowest = _mm512_set1_ps(-FLT_MAX);
    const int nv = (nb + 15) / 16;
    __mmask16 km[DEC_KB / 16] = {0};
    for (int j = 0; j < nv; j++)
        km[j] = nb - 16 * j >= 16 ? 0xffff
                                  : (__mmask16)((1u << (nb - 16 * j)) - 1);
    float bmax[16], sums[16];
    for (int r = 0; r < mr; r++) {
        __m512 bm = _mm512_set1_ps(-INFINITY);
        for (int j = 0; j < nv; j++) {
            float *xp = s + r * DEC_KB + 16 * j;
            __m512 x = scaled(xp, vs);
            if (bias != NULL) {
                x = _mm512_add_ps(x, dec_bias(bias[r] + 16 * j, km[j], bf));
                x = _mm512_max_ps(lowest, x); /* NaN: x */
                _mm512_storeu_ps(xp, x);
            }
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
            const __m512 sx = bias != NULL ? _mm512_loadu_ps(x)
                                           : scaled(x, vs);
            __m512 p = _mm512_maskz_mov_ps(
                km[j], exp16(_mm512_sub_ps(sx, mv)));
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

/* Whether m, l (mr entries) and acc (mr rows of D) are all finite after a
 * decode: inf - inf and 0 * inf make NaN, inf stays, so one test covers
 * every row. */
static inline bool dec_finite(int mr, const float *m, const float *l,
                              const float *acc, int64_t ldacc, int64_t D)
{
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

#endif
