/* decode (contract: kernels.h), AVX-512: the fused decode kernel, one
 * operation: Q.K^T (dot form, tiles of 4 rows x 4 keys), the softmax step
 * and P.V (tiles of 4 rows x 64 columns) per block of keys, in the loops of
 * loop_decode.h.
 *
 * Keys in blocks of DEC_KB: scores S[r][c] (rows major, so the softmax runs
 * 16 keys per vector), then P in place.  K and V are read as fp16/bf16 and
 * widened in registers: no widened copy of K/V is written and re-read (the
 * composed kernels do that, 64 KiB per block of 64 keys).  Decode streams
 * K/V from memory: software prefetches, spread over the FMA loops, fetch V
 * of the next block during Q.K^T and K of the block after next during P.V
 * (measured on the decode bench: 2 threads, ~5.2 ms against ~6.5 ms for
 * no prefetch or one block of K ahead with blocks of 32 keys). */
#include <float.h>
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

/* keys per block: 64 ran the kernel alone (bench --kernels) 25 % faster but
 * the decode bench, from memory, 15 % slower */
#define DEC_KB 16
#define DEC_PFV 32 /* keys ahead whose V is prefetched during Q.K^T: two blocks,
                    * for a paged cache's blocks, scattered, gain more than
                    * contiguous K/V loses (bench --fast paged bs16) */
#define DEC_PFK 32 /* keys ahead whose K is prefetched during P.V */
#define DEC_RT 4   /* rows per tile */
#define DEC_KT 4   /* keys per Q.K^T tile */
#define DEC_DV 4   /* units of 16 columns per P.V tile */

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
    if (kt == 4) { /* the 4 sums of a row in one tree */
        UNROLL for (int r = 0; r < rt; r++)
            _mm_storeu_ps(s + r * DEC_KB, hsum4x16(a[r]));
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
 * bias (NULL: none) the bias step first (kernels.h: scaled, plus the
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

#include "loop_decode.h"

bool fast_decode_avx512(const float *q, int64_t ldq, int mr,
                        const uint16_t *const *k,
                        const uint16_t *const *v, int64_t ldkv,
                        const uint16_t *const *bias, int64_t nk, int64_t D,
                        fia_dtype dt, float scale, int round, float *m,
                        float *l, float *acc, int64_t ldacc)
{
    dec_run_dt(q, ldq, mr, k, v, ldkv, bias, nk, D, dt, scale, round, m, l,
               acc, ldacc);
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

#endif
