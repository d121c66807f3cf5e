/* The Q.K^T tile of the AVX2 level, transposed form: st[c][r] for a tile
 * of up to 6 keys x 16 rows, with the loop (loop_qk_t.h) around it.
 * Shared by qk_t_avx2.c and qk_t_max_avx2.c (the same tile, with or
 * without the softmax's first pass fused in). */
#ifndef FIA_FAST_QK_T_TILE_AVX2_H
#define FIA_FAST_QK_T_TILE_AVX2_H
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

/* A tile is QKT_KT keys x QKT_RV vectors of 8 rows. */
#define QKT_W 8
#define QKT_RV 2
#define QKT_KT 6
/* fuse: store s * scale (rounded on its own) and fold the tile's maximum
 * per row into bmax (the first pass of the softmax, on the registers). */
TILE_BODY void qkt_tile(const float *qt, int64_t ldq, const int rv,
                     const float *k, int64_t ldk, const int kt, int64_t D,
                     float *st, int64_t lds, const int fuse, float scale,
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
        const __m256 vs = _mm256_set1_ps(scale);
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

#include "loop_qk_t.h"

#endif
#endif
