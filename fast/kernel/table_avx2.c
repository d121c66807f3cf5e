/* The AVX2 level's table (AVX2 + FMA + F16C; 8 lanes, 16 registers):
 * register tiles Q.K^T 6 keys x 16 rows, P.V 6 rows x 16 columns, dot
 * form 2 x 4, fused decode 4 rows x 2 keys and 4 rows x 16 columns. */
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

const fast_kernels fast_kernels_avx2 = {
    .name = "avx2",
    .qk_t = fast_qk_t_avx2,
    .qk_t_max = fast_qk_t_max_avx2,
    .softmax_full = fast_softmax_full_avx2,
    .qk_dot = fast_qk_dot_avx2,
    .softmax = fast_softmax_avx2,
    .pv = fast_pv_avx2,
    .widen = fast_widen_avx2,
    .widen_nz = fast_widen_nz_avx2,
    .widen_nz8 = fast_widen_nz8_avx2,
    .widen_t = fast_widen_t_avx2,
    .store = fast_store_avx2,
    .store_q8 = fast_store_q8_avx2,
    .bias = fast_bias_avx2,
    .decode = fast_decode_avx2,
    .aq_widen = fast_aq_widen_avx2,
    .decode_aq = fast_decode_aq_avx2,
    .q8_rowmax = fast_q8_rowmax_avx2,
    .q8_pquant = fast_q8_pquant_avx2,
};

#endif
