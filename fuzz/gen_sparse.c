/* The sparse modes' part of a generated case: sparse_mode, pre_tokens and
 * next_tokens.  Fragment contract: fuzz/gen.h. */
#include "fuzz/gen.h"

/* ---- fuzz_params ------------------------------------------------------------ */

static const int64_t TOK_EDGES[] = {0, 1, -1, 2, -2, 2147483647LL,
                                    2147483648LL, -2147483648LL,
                                    -2147483649LL, INT64_MAX, INT64_MIN};

/* Sets sparse: modes 0-4, now and then an unsupported one (5-8, -1, 9);
 * sparse_mode given when not 0, else now and then. */
void fz_params_sparse_mode(fz_gen *g)
{
    static const int sw[] = {32, 12, 15, 18, 15, 1, 1, 1, 1, 1, 1};
    static const int64_t smodes[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, -1, 9};
    g->sparse = smodes[fz_wpick(g, sw, FZ_ARRLEN(sw), 5)];
    if (g->sparse != 0 || fz_bytes_bool(g->f))
        fz_case_attr(g->c, FIA_ATTR_SPARSE_MODE, g->sparse);
}

/* pre_tokens, next_tokens: each now and then, small or at the int32 and
 * int64 edges, whatever the mode. */
void fz_params_sparse_tokens(fz_gen *g)
{
    fz_bytes *f = g->f;
    if (fz_bytes_chance(f, 35))
        fz_case_attr(g->c, FIA_ATTR_PRE_TOKENS, fz_bytes_chance(f, 50)
                    ? fz_bytes_range(f, -4, 40)
                    : TOK_EDGES[fz_bytes_pick(f, FZ_ARRLEN(TOK_EDGES))]);
    if (fz_bytes_chance(f, 35))
        fz_case_attr(g->c, FIA_ATTR_NEXT_TOKENS, fz_bytes_chance(f, 50)
                    ? fz_bytes_range(f, -4, 40)
                    : TOK_EDGES[fz_bytes_pick(f, FZ_ARRLEN(TOK_EDGES))]);
}

/* ---- fuzz_numeric ----------------------------------------------------------- */

/* Sets sparse: 0 on the decode path, else a mode 0-4 (not 1 with no keys:
 * an empty mask counts as absent, MASK-009). */
void fz_numeric_sparse_mode(fz_gen *g)
{
    g->sparse = 0;
    if (!g->qs1) {
        static const int sw[] = {40, 24, 10, 14, 12};
        g->sparse = fz_bytes_weighted(g->f, sw, FZ_ARRLEN(sw));
        if (g->sparse == 1 && (g->KV_S == 0 || g->reach == FZ_REACH_HUGE))
            g->sparse = 0; /* its mask would be [Q_S, KV_S] */
    }
    if (g->sparse)
        fz_case_attr(g->c, FIA_ATTR_SPARSE_MODE, g->sparse);
}

/* The window over the mask (its shape is chosen): mode 4's band, or now
 * and then a band on mode 0's explicit mask in prefill. */
void fz_numeric_sparse_tokens(fz_gen *g)
{
    fz_bytes *f = g->f;
    if (g->sparse == 4) {
        fz_case_attr(g->c, FIA_ATTR_PRE_TOKENS, fz_bytes_range(f, -3, 12));
        fz_case_attr(g->c, FIA_ATTR_NEXT_TOKENS, fz_bytes_range(f, -3, 12));
    } else if (g->sparse == 0 && g->mnd > 0 && !g->qs1 && fz_bytes_bool(f)) {
        fz_case_attr(g->c, FIA_ATTR_PRE_TOKENS, fz_bytes_range(f, -2, 12));
        fz_case_attr(g->c, FIA_ATTR_NEXT_TOKENS, fz_bytes_range(f, -2, 12));
    }
}
