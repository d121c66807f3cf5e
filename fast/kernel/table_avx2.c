/* The AVX2 level's table (AVX2 + FMA + F16C; 8 lanes, 16 registers):
 * register tiles Q.K^T 6 keys x 16 rows, P.V 6 rows x 16 columns, dot
 * form 2 x 4, fused decode 4 rows x 2 keys and 4 rows x 16 columns. */
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

/* Every operation of FAST_KERNEL_LIST, optional ones included. */
const fast_kernels fast_kernels_avx2 = {
    .name = "avx2",
#define FAST_TABLE_ENTRY(op, presence) .op = fast_##op##_avx2,
    FAST_KERNEL_LIST(FAST_TABLE_ENTRY)
#undef FAST_TABLE_ENTRY
};

#endif
