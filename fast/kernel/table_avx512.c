/* The AVX-512 level's table (F/BW/VL/DQ, FMA, F16C): register tiles Q.K^T
 * 6 keys x 64 rows, P.V 6 rows x 64 columns, dot form 4 x 4, fused decode
 * 4 x 4 keys and 4 rows x 64 columns. */
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

/* Every operation of FAST_KERNEL_LIST, optional ones included. */
const fast_kernels fast_kernels_avx512 = {
    .name = "avx512",
#define FAST_TABLE_ENTRY(op, presence) .op = fast_##op##_avx512,
    FAST_KERNEL_LIST(FAST_TABLE_ENTRY)
#undef FAST_TABLE_ENTRY
};

#endif
