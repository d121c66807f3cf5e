/* The portable table: no optional kernel (qk_t_max, softmax_full, decode
 * and decode_antiquant stay NULL; attention.c composes the others). */
#include "../fast_internal.h"

/* The required operations of FAST_KERNEL_LIST; the optional ones NULL. */
#define FAST_SCALAR_REQUIRED(op) fast_##op##_scalar
#define FAST_SCALAR_OPTIONAL(op) NULL
#define FAST_TABLE_ENTRY(op, presence) .op = FAST_SCALAR_##presence(op),
const fast_kernels fast_kernels_scalar = {
    .name = "scalar",
    FAST_KERNEL_LIST(FAST_TABLE_ENTRY)
};
#undef FAST_TABLE_ENTRY
#undef FAST_SCALAR_OPTIONAL
#undef FAST_SCALAR_REQUIRED
