/* The scale attribute in a generated case.  Fragment contract:
 * fuzz/gen.h. */
#include <math.h>
#include "fuzz/gen.h"

/* Mostly given: 1/sqrt(D), else 0, negative, huge, NaN or infinite. */
void fz_params_scale(fz_gen *g)
{
    fz_bytes *f = g->f;
    if (!fz_bytes_chance(f, 60))
        return;
    static const double sc[] = {0.125, 1.0, 0.0, -1.0, 1e30, -0.0};
    double s = fz_bytes_chance(f, 85) ? 1.0 / sqrt((double)(g->D > 0 ? g->D : 1))
                                 : sc[fz_bytes_pick(f, FZ_ARRLEN(sc))];
    if (fz_bytes_chance(f, 2))
        s = fz_bytes_bool(f) ? NAN : INFINITY;
    fz_case_scale(g->c, s);
}

/* 1/sqrt(D), which the data's distribution may change (fz_numeric_scale). */
void fz_numeric_scale_default(fz_gen *g)
{
    fz_case_scale(g->c, 1.0 / sqrt((double)g->D));
}

/* The scale the data asks for (g->scale), or now and then an odd one. */
void fz_numeric_scale(fz_gen *g)
{
    if (g->scale != g->c->attrs.scale)
        fz_case_scale(g->c, g->scale);
    if (fz_bytes_chance(g->f, 5))
        fz_case_scale(g->c, (double[]){0.0, -0.5, 1e-3, 100.0}[fz_bytes_pick(g->f, 4)]);
}
