/* decode (contract: kernels.h), AVX2: the fused decode kernel, one
 * operation, in the loops of loop_decode.h.
 *
 * The steps of kernel->decode on blocks of DEC_KB keys,
 * K and V read as fp16/bf16 and widened in registers: Q.K^T as 4 rows x 2
 * keys of dot products, the softmax per row, P.V as 4 rows x 16 columns.
 * V of the block DEC_PFV ahead is prefetched during Q.K^T and K of the
 * block DEC_PFK ahead during P.V (decode streams K/V from memory). */
#include <float.h>
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

#define DEC_KB 16
#define DEC_PFV 16
#define DEC_PFK 32
#define DEC_RT 4 /* rows per tile */
#define DEC_KT 2 /* keys per Q.K^T tile */
#define DEC_DV 1 /* units of 16 columns per P.V tile */

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
                        int64_t ldv, int nb, const int dv,
                        const float *alpha, float *acc, int64_t ldacc,
                        const int bf, const uint16_t *pk)
{
    (void)dv; /* always 1 */
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
 * row state (mr <= 8 rows) in scalars.  With bias (NULL: none) the bias
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

#include "loop_decode.h"

bool fast_decode_avx2(const float *q, int64_t ldq, int mr,
                      const uint16_t *const *k,
                      const uint16_t *const *v, int64_t ldkv,
                      const uint16_t *const *bias, int64_t nk, int64_t D,
                      fia_dtype dt, float scale, int round, float *m,
                      float *l, float *acc, int64_t ldacc)
{
    dec_run_dt(q, ldq, mr, k, v, ldkv, bias, nk, D, dt, scale, round, m, l,
               acc, ldacc);
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

#endif
