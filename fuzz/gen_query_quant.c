/* 003 query quantization in a generated case: fuzz_params sets
 * query_quant_mode 0..3 now and then (1 and 2 break QQ-001; 3 outside MLA
 * full quantization is NM-011's).  The scene that takes it, MLA's full
 * quantization with dequant_scale_query, is gen_mla.c's (it builds the
 * call whole).  Fragment contract: fuzz/gen.h. */
#include "fuzz/gen.h"

void fz_params_query_quant(fz_gen *g)
{
    if (fz_odd(g, 1))
        fz_case_attr(g->c, FIA_ATTR_QUERY_QUANT_MODE, fz_bytes_range(g->f, 0, 3));
}
