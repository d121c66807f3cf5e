/* The portable table: no optional kernel (qk_t_max, softmax_full and
 * decode stay NULL; attention.c composes the others). */
#include "../fast_internal.h"

const fast_kernels fast_kernels_scalar = {
    .name = "scalar",
    .qk_t = fast_qk_t_scalar,
    .qk_dot = fast_qk_dot_scalar,
    .softmax = fast_softmax_scalar,
    .pv = fast_pv_scalar,
    .widen = fast_widen_scalar,
    .widen_nz = fast_widen_nz_scalar,
    .widen_nz8 = fast_widen_nz8_scalar,
    .widen_t = fast_widen_t_scalar,
    .store = fast_store_scalar,
    .store_q8 = fast_store_q8_scalar,
    .bias = fast_bias_scalar,
    .aq_widen = fast_aq_widen_scalar,
    .q8_rowmax = fast_q8_rowmax_scalar,
    .q8_pquant = fast_q8_pquant_scalar,
};
