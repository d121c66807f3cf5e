/* inner_precise in a generated case.  Fragment contract: fuzz/gen.h. */
#include "fuzz/gen.h"

/* Half the time: 0-3 (mostly 0/1 on the decode path, where 2/3 are not
 * documented), now and then 4 or -1. */
void fz_params_precise(fz_gen *g)
{
    fz_bytes *f = g->f;
    if (!fz_bytes_chance(f, 50))
        return;
    static const int pw[] = {24, 24, 24, 24, 2, 2};
    static const int64_t pv[] = {0, 1, 2, 3, 4, -1};
    int64_t ip = pv[fz_wpick(g, pw, FZ_ARRLEN(pw), 4)];
    if (g->qs1 && ip >= 2 && (fz_bytes_chance(f, 85) || g->strict))
        ip -= 2;
    fz_case_attr(g->c, FIA_ATTR_INNER_PRECISE, ip);
}

/* 0-3 in prefill, 0/1 in decode; the metamorphic target keeps the
 * row-invalid correction on in prefill (fully masked rows defined). */
void fz_numeric_precise(fz_gen *g)
{
    int64_t ip = fz_bytes_range(g->f, 0, g->qs1 ? 1 : 3);
    if (g->meta && !g->qs1)
        ip |= 2;
    fz_case_attr(g->c, FIA_ATTR_INNER_PRECISE, ip);
}
