/* The Q.K^T tile of the AVX-512 level, transposed form: st[c][r] for a
 * tile of keys x vectors of 16 rows, with the loop (loop_qk_t.h) around it.
 * Shared by qk_t_avx512.c and qk_t_max_avx512.c (the same tile, with or
 * without the softmax's first pass fused in). */
#ifndef FIA_FAST_QK_T_TILE_AVX512_H
#define FIA_FAST_QK_T_TILE_AVX512_H
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

/* ---- Q.K^T, transposed: st[c][r] --------------------------------------- */
/* A tile is QKT_KT keys x QKT_RV vectors of 16 rows: 24 accumulators and 4
 * vectors of Q^T in registers (8 keys x 3 vectors measured ~15 % slower on
 * the prefill block, 64 keys x 128 rows x D 128). */
#define QKT_W 16
#define QKT_RV 4
#define QKT_KT 6
/* fuse: store s * scale (rounded on its own) and fold the tile's maximum
 * per row into bmax (the first pass of the softmax, on the registers). */
TILE_BODY void qkt_tile(const float *qt, int64_t ldq, const int rv,
                     const float *k, int64_t ldk, const int kt, int64_t D,
                     float *st, int64_t lds, const int fuse, float scale,
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
        const __m512 vs = _mm512_set1_ps(scale);
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

#include "loop_qk_t.h"

#endif
#endif
