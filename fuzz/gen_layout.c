/* The layout's part of a generated case: the layout name, the batch, head
 * and head-size dims, the sequence lengths of the shapes, and num_heads.
 * Fragment contract: fuzz/gen.h. */
#include <string.h>
#include "fuzz/gen.h"

/* ---- fuzz_params: every name, dims at and around the limits -------------- */

static const int64_t B_EDGES[] = {0, 1, 128, 129, 65536, 65537, 2147483648LL};
static const int64_t N_EDGES[] = {0, 3, 64, 65, 255, 256, 257, 512};
static const int64_t D_EDGES[] = {0, 1, 8, 15, 17, 24, 127, 128, 511, 512, 513};
static const int64_t QS_EDGES[] = {0, 1, 2, 2047, 2048, 2049, 20971520,
                                   20971521};
static const int64_t KVS_EDGES[] = {0, 1, 2048, 262143, 262144, 262145,
                                    20971520, 20971521};
/* (N, D) pairs around the N*D < 65535 limit of BSH/BSND prefill. */
static const int64_t ND_EDGES[][2] = {{128, 512}, {256, 256}, {255, 256},
                                      {127, 512}, {256, 255}, {128, 511},
                                      {255, 257}, {64, 512}};

/* A value: usually in [lo, hi], else one of the edges. */
static int64_t pick_dim(fdp *f, int64_t lo, int64_t hi, const int64_t *edges,
                        int n_edges, int edge_pct)
{
    if (fdp_rare(f, edge_pct))
        return edges[fdp_pick(f, n_edges)];
    return fdp_range(f, lo, hi);
}

/* Sets L: the named layout, or for a name the operator does not know
 * (TND, lower case, ...) one of the first three, which the shapes follow. */
void fzp_layout(fz_gen *g)
{
    static const char *const layouts[] = {"BSH", "BSND", "BNSD", "BNSD_BSND",
                                          "TND", "BSH_NBSD", "bsh", "B", "NSD"};
    static const int lw[] = {27, 25, 27, 16, 1, 1, 1, 1, 1};
    const char *layout = layouts[fz_wpick(g, lw, FZ_ARRLEN(lw), 4)];
    if (g->qs1 && strcmp(layout, "BNSD_BSND") == 0 &&
        (fdp_chance(g->f, 75) || g->strict))
        layout = "BNSD";
    fb_layout(g->c, layout);
    g->L = fz_layout_of(layout);
    if (g->L == FZ_OTHER)
        g->L = (fz_layout)fdp_pick(g->f, 3);
}

/* Sets B, N, D. */
void fzp_layout_dims(fz_gen *g)
{
    fdp *f = g->f;
    g->B = pick_dim(f, 1, 4, B_EDGES, FZ_ARRLEN(B_EDGES), 5);
    g->N = fdp_chance(f, 92) ? ((int64_t)1 << fdp_range(f, 0, 4))
                             : N_EDGES[fdp_pick(f, FZ_ARRLEN(N_EDGES))];
    if (fdp_chance(f, 93))
        g->D = 16 * ((int64_t)1 << fdp_range(f, 0, 3));
    else
        g->D = D_EDGES[fdp_pick(f, FZ_ARRLEN(D_EDGES))];
    if (!g->qs1 && g->L != FZ_BNSD && g->L != FZ_BNSD_BSND && fdp_chance(f, 6)) {
        int e = fdp_pick(f, FZ_ARRLEN(ND_EDGES));
        g->N = ND_EDGES[e][0], g->D = ND_EDGES[e][1];
    }
}

/* Sets Q_S (1 on the decode path) and KV_S. */
void fzp_layout_seq(fz_gen *g)
{
    g->Q_S = g->qs1 ? 1 : pick_dim(g->f, 2, 32, QS_EDGES, FZ_ARRLEN(QS_EDGES), 5);
    g->KV_S = pick_dim(g->f, 1, 64, KVS_EDGES, FZ_ARRLEN(KVS_EDGES), 5);
}

/* num_heads: N, or now and then one that disagrees with the query. */
void fzp_layout_heads(fz_gen *g)
{
    int64_t nh = g->N;
    if (fz_odd(g, 3))
        nh = (int64_t[]){0, -1, g->N + 1, g->N * 2, 1}[fdp_pick(g->f, 5)];
    fb_attr(g->c, FIA_ATTR_NUM_HEADS, nh);
}

/* ---- fuzz_numeric: small valid dims --------------------------------------- */

/* Sets L: one of the four (BNSD_BSND not on the decode path). */
void fzn_layout(fz_gen *g)
{
    g->L = (fz_layout)fdp_pick(g->f, g->qs1 ? 3 : 4);
    fb_layout(g->c, fz_layout_name(g->L));
}

/* Sets B. */
void fzn_layout_batch(fz_gen *g) { g->B = fdp_range(g->f, 1, FZ_NUM_MAX_B); }

/* Sets D (odd sizes on the decode path now and then), Q_S, KV_S (empty
 * now and then). */
void fzn_layout_dims(fz_gen *g)
{
    fdp *f = g->f;
    g->D = fdp_chance(f, 75) ? 16 : 32;
    if (g->qs1 && fdp_chance(f, 30))
        g->D = fdp_range(f, 1, 40);
    g->Q_S = g->qs1 ? 1 : fdp_range(f, 2, 12);
    g->KV_S = fdp_chance(f, 3) ? 0 : fdp_range(f, 1, FZ_NUM_MAX_KV_S);
}

void fzn_layout_heads(fz_gen *g) { fb_attr(g->c, FIA_ATTR_NUM_HEADS, g->N); }
