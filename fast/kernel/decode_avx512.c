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
TILE_BODY void dec_qk_tile(const float *q, int64_t ldq, const int rt,
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
TILE_BODY void dec_pv_tile(const float *p, const int rt, const uint16_t *v,
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

#include "dec_softmax_avx512.h"
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
    return dec_finite(mr, m, l, acc, ldacc, D);
}

#endif
