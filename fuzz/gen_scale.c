/* The scale attribute in a generated case.  Fragment contract:
 * fuzz/gen.h. */
#include <math.h>
#include "fuzz/gen.h"

/* Mostly given: 1/sqrt(D), else 0, negative, huge, NaN or infinite. */
void fzp_scale(fz_gen *g)
{
    fdp *f = g->f;
    if (!fdp_chance(f, 60))
        return;
    static const double sc[] = {0.125, 1.0, 0.0, -1.0, 1e30, -0.0};
    double s = fdp_chance(f, 85) ? 1.0 / sqrt((double)(g->D > 0 ? g->D : 1))
                                 : sc[fdp_pick(f, FZ_ARRLEN(sc))];
    if (fdp_chance(f, 2))
        s = fdp_bool(f) ? NAN : INFINITY;
    fb_scale(g->c, s);
}

/* 1/sqrt(D), which the data's distribution may change (fzn_scale). */
void fzn_scale_default(fz_gen *g)
{
    fb_scale(g->c, 1.0 / sqrt((double)g->D));
}

/* The scale the data asks for (g->scale), or now and then an odd one. */
void fzn_scale(fz_gen *g)
{
    if (g->scale != g->c->attrs.scale)
        fb_scale(g->c, g->scale);
    if (fdp_chance(g->f, 5))
        fb_scale(g->c, (double[]){0.0, -0.5, 1e-3, 100.0}[fdp_pick(g->f, 4)]);
}
