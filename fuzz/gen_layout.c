/* The layout's part of a generated case: the layout name, the batch, head
 * and head-size dims, the sequence lengths of the shapes, and num_heads.
 * Fragment contract: fuzz/gen.h. */
#include <string.h>
#include "fia/fast.h"
#include "fuzz/gen.h"

/* ---- fuzz_params: every name, dims at and around the limits -------------- */

/* 256 / 257: the inference card's limit (001); 65535 / 65536: 001's and
 * 002's */
static const int64_t B_EDGES[] = {0, 1, 128, 129, 65536, 65537, 2147483648LL,
                                  256, 257, 65535};
static const int64_t N_EDGES[] = {0, 3, 64, 65, 255, 256, 257, 512};
static const int64_t D_EDGES[] = {0, 1, 8, 15, 17, 24, 127, 128, 511, 512, 513};
static const int64_t QS_EDGES[] = {0, 1, 2, 2047, 2048, 2049, 20971520,
                                   20971521};
static const int64_t KVS_EDGES[] = {0, 1, 2048, 262143, 262144, 262145,
                                    20971520, 20971521, 65536, 65537};
/* (N, D) pairs around the N*D < 65535 limit of BSH/BSND prefill. */
static const int64_t ND_EDGES[][2] = {{128, 512}, {256, 256}, {255, 256},
                                      {127, 512}, {256, 255}, {128, 511},
                                      {255, 257}, {64, 512}};

/* A value: usually in [lo, hi], else one of the edges. */
static int64_t pick_dim(fz_bytes *f, int64_t lo, int64_t hi, const int64_t *edges,
                        int n_edges, int edge_pct)
{
    if (fz_bytes_rare(f, edge_pct))
        return edges[fz_bytes_pick(f, n_edges)];
    return fz_bytes_range(f, lo, hi);
}

/* Sets L: the named layout, or for a name the operator does not know
 * (TND, lower case, ...) one of the first three, which the shapes follow. */
void fz_params_layout(fz_gen *g)
{
    static const char *const layouts[] = {"BSH", "BSND", "BNSD", "BNSD_BSND",
                                          "TND", "BSH_NBSD", "bsh", "B", "NSD"};
    static const int lw[] = {27, 25, 27, 16, 1, 1, 1, 1, 1};
    const char *layout = layouts[fz_wpick(g, lw, FZ_ARRLEN(lw), 4)];
    if (g->qs1 && strcmp(layout, "BNSD_BSND") == 0 &&
        (fz_bytes_chance(g->f, 75) || g->strict))
        layout = "BNSD";
    fz_case_layout(g->c, layout);
    g->L = fz_layout_of(layout);
    if (g->L == FZ_OTHER)
        g->L = (fz_layout)fz_bytes_pick(g->f, 3);
}

/* Sets B, N, D. */
void fz_params_layout_dims(fz_gen *g)
{
    fz_bytes *f = g->f;
    g->B = pick_dim(f, 1, 4, B_EDGES, FZ_ARRLEN(B_EDGES), 5);
    g->N = fz_bytes_chance(f, 92) ? ((int64_t)1 << fz_bytes_range(f, 0, 4))
                             : N_EDGES[fz_bytes_pick(f, FZ_ARRLEN(N_EDGES))];
    if (fz_bytes_chance(f, 93))
        g->D = 16 * ((int64_t)1 << fz_bytes_range(f, 0, 3));
    else
        g->D = D_EDGES[fz_bytes_pick(f, FZ_ARRLEN(D_EDGES))];
    if (!g->qs1 && g->L != FZ_BNSD && g->L != FZ_BNSD_BSND && fz_bytes_chance(f, 6)) {
        int e = fz_bytes_pick(f, FZ_ARRLEN(ND_EDGES));
        g->N = ND_EDGES[e][0], g->D = ND_EDGES[e][1];
    }
}

/* Sets Q_S (1 on the decode path) and KV_S. */
void fz_params_layout_seq(fz_gen *g)
{
    g->Q_S = g->qs1 ? 1 : pick_dim(g->f, 2, 32, QS_EDGES, FZ_ARRLEN(QS_EDGES), 5);
    g->KV_S = pick_dim(g->f, 1, 64, KVS_EDGES, FZ_ARRLEN(KVS_EDGES), 5);
}

/* num_heads: N, or now and then one that disagrees with the query. */
void fz_params_layout_heads(fz_gen *g)
{
    int64_t nh = g->N;
    if (fz_odd(g, 3))
        nh = (int64_t[]){0, -1, g->N + 1, g->N * 2, 1}[fz_bytes_pick(g->f, 5)];
    fz_case_attr(g->c, FIA_ATTR_NUM_HEADS, nh);
}

/* ---- fuzz_numeric: small valid dims --------------------------------------- */

/* Sets L: one of the four (BNSD_BSND not on the decode path). */
void fz_numeric_layout(fz_gen *g)
{
    g->L = (fz_layout)fz_bytes_pick(g->f, g->qs1 ? 3 : 4);
    fz_case_layout(g->c, fz_layout_name(g->L));
}

/* Sets reach: 28 % of the inputs aim past one of fast/'s thresholds (a
 * zero byte, an exhausted input, keeps the case small). */
void fz_numeric_layout_reach(fz_gen *g)
{
    static const int w[FZ_REACH_COUNT] = {72, 8, 7, 7, 6, 1};
    g->reach = (fz_reach)fz_bytes_weighted(g->f, w, FZ_REACH_COUNT);
    if (g->reach == FZ_REACH_HUGE && g->qs1)
        g->reach = FZ_REACH_TAIL; /* decode's S limit keeps K/V below 2^32 */
    g->c->live_rows = g->reach == FZ_REACH_HUGE;
    if (g->reach == FZ_REACH_SPLIT && !g->qs1) {
        /* the split is decode's: the case becomes one, unless its layout
         * is prefill's only (then keys past the block instead) */
        if (g->L == FZ_BNSD_BSND)
            g->reach = FZ_REACH_TAIL;
        else
            g->qs1 = 1;
    }
}

/* Sets B. */
void fz_numeric_layout_batch(fz_gen *g)
{
    g->B = fz_bytes_range(g->f, 1, g->reach ? FZ_NUM_MAX_B : 3);
}

/* A key count around the multiples of the key block kb, and past them. */
static int64_t keys_past_block(fz_bytes *f, int kb, int64_t lo)
{
    if (fz_bytes_bool(f)) {
        int64_t m = fz_bytes_range(f, 1, 4) * kb;
        int64_t k = m + fz_bytes_range(f, -2, 2);
        return k < lo ? lo : k;
    }
    return fz_bytes_range(f, lo, FZ_NUM_MAX_KV_S);
}

/* D for the reach plans: common head sizes or any size up to
 * FZ_NUM_MAX_D; with dtail never a multiple of the tile.  Prefill (Q_S >
 * 1) with fp16/bf16 takes only multiples of 16 (LAYOUT-024), so there D
 * is rounded up to one and the tile edge is decode's. */
static int64_t reach_d(fz_bytes *f, int tile, int dtail, int qs1)
{
    static const int64_t common[] = {16, 32, 64, 80, 96, 128, 160};
    int64_t d = fz_bytes_bool(f) ? common[fz_bytes_pick(f, FZ_ARRLEN(common))]
                            : fz_bytes_range(f, 1, FZ_NUM_MAX_D);
    if (dtail && d % tile == 0)
        d -= fz_bytes_range(f, 1, tile - 1);
    if (!qs1)
        d = (d + 15) / 16 * 16;
    return d;
}

/* The reference's work, as fia_check_reference_work counts it. */
static double work(const fz_gen *g)
{
    return 2.0 * (double)g->B * (double)g->N * (double)g->Q_S *
           (double)g->D * (double)(g->KV_S > 0 ? g->KV_S : 1);
}

/* Shrinks a reach case to FZ_NUM_MAX_WORK, keeping what it aims at: the
 * batches go first, then the query rows (not for rows), then D, then the
 * keys (not for tail and split). */
static void fit_work(fz_gen *g)
{
    while (work(g) > FZ_NUM_MAX_WORK) {
        if (g->B > 1)
            g->B--;
        else if (g->reach != FZ_REACH_ROWS && g->Q_S > 2)
            g->Q_S = g->Q_S / 2 > 2 ? g->Q_S / 2 : 2;
        else if (g->D > 16 && g->reach != FZ_REACH_DTAIL)
            g->D = g->qs1 ? g->D / 2 : (g->D / 2 + 15) / 16 * 16;
        else if (g->reach != FZ_REACH_TAIL && g->reach != FZ_REACH_SPLIT &&
                 g->KV_S > 16)
            g->KV_S = g->KV_S / 2;
        else if (g->Q_S > 2)
            g->Q_S--;
        else
            break; /* as small as the plan allows: within the limit anyway */
    }
}

/* Sets D, Q_S, KV_S: small (odd D on the decode path now and then, KV_S
 * empty now and then), or past the threshold the reach plan names. */
void fz_numeric_layout_dims(fz_gen *g)
{
    fz_bytes *f = g->f;
    if (g->reach == FZ_REACH_SMALL) {
        g->D = fz_bytes_chance(f, 75) ? 16 : 32;
        if (g->qs1 && fz_bytes_chance(f, 30))
            g->D = fz_bytes_range(f, 1, 40);
        g->Q_S = g->qs1 ? 1 : fz_bytes_range(f, 2, 12);
        g->KV_S = fz_bytes_chance(f, 3) ? 0 : fz_bytes_range(f, 1, 20);
        return;
    }
    fast_path_thresholds t;
    fastPathThresholds(&t);
    g->D = reach_d(f, t.d_tile, g->reach == FZ_REACH_DTAIL, g->qs1);
    switch (g->reach) {
    case FZ_REACH_TAIL:
        g->Q_S = g->qs1 ? 1 : fz_bytes_range(f, 2, 16);
        g->KV_S = keys_past_block(f, t.key_block, t.key_block + 1);
        break;
    case FZ_REACH_ROWS: {
        /* rows of one KV head = group x Q_S: past the dot form, and past
         * one task's rows now and then */
        int64_t group = g->N / g->KV_N;
        int64_t need = (fz_bytes_bool(f) ? t.rows_per_task : t.dot_max_rows) /
                       group + 1;
        g->Q_S = g->qs1 ? 1 : need + fz_bytes_range(f, 0, need);
        g->KV_S = fz_bytes_range(f, 1, 2 * t.key_block);
        break;
    }
    case FZ_REACH_SPLIT:
        g->Q_S = 1;
        g->KV_S = keys_past_block(f, t.key_block, t.split_min_keys);
        break;
    case FZ_REACH_HUGE: {
        /* K/V past 2^32 elements (the last batch's rows beyond a 32-bit
         * element offset), the prefill S limit 20971520 respected: D 128,
         * 4 batches; few rows live (fz_numeric_seqlen), so the cost is theirs */
        g->B = 4;
        g->D = 128;
        g->Q_S = fz_bytes_range(f, 2, 4);
        g->KV_S = ((int64_t)1 << 32) / (g->B * g->KV_N * g->D) +
                  fz_bytes_range(f, 1, 4096);
        return;
    }
    default: /* dtail */
        g->Q_S = g->qs1 ? 1 : fz_bytes_range(f, 2, 24);
        g->KV_S = fz_bytes_range(f, 1, 2 * t.key_block + 2);
        break;
    }
    if (g->Q_S < 1 || (!g->qs1 && g->Q_S < 2))
        g->Q_S = g->qs1 ? 1 : 2;
    if (g->KV_S > FZ_NUM_MAX_KV_S)
        g->KV_S = FZ_NUM_MAX_KV_S;
    fit_work(g);
}

/* How fast/ runs the case: now and then (mostly for the reach plans) a
 * thread count 1..4, a task order (the tasks planned for those threads run
 * one after another on one thread, in an order the seed picks: a bug that
 * needs one task to follow another shows every time, and reproduces) and a
 * kernel level this CPU and build have, as case lines (threads,
 * task_order, kernel_level), so that a finding reproduces with them.  A
 * zero byte: none. */
static int every_level; /* fuzz_decode_as_every_level */

void fuzz_decode_as_every_level(int on) { every_level = on != 0; }

void fz_numeric_layout_run(fz_gen *g)
{
    fz_bytes *f = g->f;
    int split = g->reach == FZ_REACH_SPLIT;
    if (!fz_bytes_rare(f, split ? 100 : g->reach ? 70 : 25))
        return;
    /* a split decode: 2..4 threads (more threads, more splits to merge) */
    if (fz_bytes_bool(f) || split)
        g->c->threads = (int32_t)fz_bytes_range(f, split ? 2 : 1, 4);
    if (g->c->threads > 1 && fz_bytes_chance(f, 40))
        g->c->task_order = fz_bytes_u64(f) | 1; /* never 0 (no order) */
    fia_kernel_level have[FIA_KL_COUNT];
    int n = 0;
    for (int k = FIA_KL_SCALAR; k < FIA_KL_COUNT; k++)
        if (every_level ||
            fastKernelLevelAvailable(fia_kernel_level_name((fia_kernel_level)k)))
            have[n++] = (fia_kernel_level)k;
    int pick = fz_bytes_pick(f, n + 1);
    if (pick < n)
        g->c->kernel_level = have[pick];
}

void fz_numeric_layout_heads(fz_gen *g) { fz_case_attr(g->c, FIA_ATTR_NUM_HEADS, g->N); }
