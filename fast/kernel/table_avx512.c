/* The AVX-512 level's table (F/BW/VL/DQ, FMA, F16C): register tiles Q.K^T
 * 6 keys x 64 rows, P.V 6 rows x 64 columns, dot form 4 x 4, fused decode
 * 4 x 4 keys and 4 rows x 64 columns. */
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

const fast_kernels fast_kernels_avx512 = {
    .name = "avx512",
    .qk_t = fast_qk_t_avx512,
    .qk_t_max = fast_qk_t_max_avx512,
    .softmax_full = fast_softmax_full_avx512,
    .qk_dot = fast_qk_dot_avx512,
    .softmax = fast_softmax_avx512,
    .pv = fast_pv_avx512,
    .widen = fast_widen_avx512,
    .widen_nz = fast_widen_nz_avx512,
    .widen_nz8 = fast_widen_nz8_avx512,
    .widen_t = fast_widen_t_avx512,
    .store = fast_store_avx512,
    .store_q8 = fast_store_q8_avx512,
    .bias = fast_bias_avx512,
    .decode = fast_decode_avx512,
    .aq_widen = fast_aq_widen_avx512,
    .decode_aq = fast_decode_aq_avx512,
    .q8_rowmax = fast_q8_rowmax_avx512,
    .q8_pquant = fast_q8_pquant_avx512,
};

#endif
