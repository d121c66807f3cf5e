/* The shared system prefix in generated cases (docs/features/prefix.md).
 *
 * fuzz_params: actual_shared_prefix_len now and then (fz_params_prefix, in its
 * old place of the list) and, at the end of the list, now and then a pair
 * of prefix tensors shaped like the key in the query's layout — batch 1,
 * their own S, the key's heads — with a length array within their S, and
 * one of the prefix rules broken now and then: one tensor only, another
 * dtype, batch 2, other heads, S that differ, a length past S or of two
 * values, an S that with the key's passes the key's limit.  A call without
 * a break has its full mask and pse widened to the prefix's length plus
 * the key's S now and then (PREFIX-009, -010), so that it is valid.  With
 * the page tables, lists and padding the fragments before made, the
 * exclusions (PAGED-003, LIST-001, PAD-X02) decide.
 *
 * fuzz_numeric: at the end of the list, now and then (more often for the
 * reach plans: a decode split, keys past one key block, many rows) a
 * contiguous case without padding gains a prefix: either its first keys
 * move into the prefix (one batch's rows shared by all; the mask's columns
 * stay), or new prefix tensors with data from the case's distribution, the
 * full mask widened at the front by P columns (open, random or all
 * masked; the prefix's rows then poisoned now and then).  S_p small,
 * around fast/'s key block, long, or 0 / 1; actual_shared_prefix_len
 * absent, S_p, below S_p (the rows past it NaN) or 0 (nothing of the
 * prefix read); P kept within the reference's budget.  Not at Q_S = 1
 * with a mask (not modeled).
 * Fragment contract: fuzz/gen.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fia/check.h"
#include "fia/fast.h"
#include "fuzz/gen.h"

void fz_params_prefix(fz_gen *g)
{
    if (fz_odd(g, 1))
        fz_params_seq_array(g, FIA_ARR_ACTUAL_SHARED_PREFIX_LEN, 100, g->KV_S);
}

/* The last dim of slot s's shape made at least cols. */
static void widen_shape(fia_case *c, fia_slot s, int64_t cols)
{
    fia_tensor_spec *sp = &c->tensors[s];
    if (sp->presence != FIA_PRESENT || sp->count < 1 || sp->t == NULL ||
        sp->t[0].ndim < 2)
        return;
    int64_t *last = &sp->t[0].shape[sp->t[0].ndim - 1];
    *last = *last < cols ? cols : *last;
}

/* A valid prefix of length P: the full mask (sparse 0 / 1) and a 4-D pse
 * cover P + KV_S. */
static void cover_prefix(fz_gen *g, int64_t P)
{
    if (g->Q_S <= 1 || P < 0 || g->KV_S < 0 || P > 20971520)
        return;
    if (g->sparse == 0 || g->sparse == 1)
        widen_shape(g->c, FIA_SLOT_ATTEN_MASK, P + g->KV_S);
    if (g->c->tensors[FIA_SLOT_PSE_SHIFT].presence == FIA_PRESENT &&
        g->c->tensors[FIA_SLOT_PSE_SHIFT].t[0].ndim == 4)
        widen_shape(g->c, FIA_SLOT_PSE_SHIFT, P + g->KV_S);
}

void fz_params_prefix_tensors(fz_gen *g)
{
    fz_bytes *f = g->f;
    fia_case *c = g->c;
    if (!fz_bytes_rare(f, 10))
        return;
    const fia_tensor_spec *k = &c->tensors[FIA_SLOT_KEY];
    if (k->presence != FIA_PRESENT || k->count < 1 || k->t[0].ndim < 3 ||
        k->t[0].ndim > 4)
        return;
    const fia_tensor *kt = &k->t[0];
    const int bnsd = kt->ndim == 4 && g->L != FZ_BSND;
    const int sa = bnsd ? 2 : 1;
    int64_t sh[4], vsh[4];
    for (int i = 0; i < kt->ndim; i++)
        sh[i] = kt->shape[i];
    sh[0] = 1;
    sh[sa] = fz_bytes_chance(f, 20) ? fz_bytes_range(f, 0, 4) : fz_bytes_range(f, 1, 300);
    for (int i = 0; i < kt->ndim; i++)
        vsh[i] = sh[i];
    fia_dtype kdt = kt->dtype, vdt = kt->dtype;
    int nvp = 1, nlen = fz_bytes_bool(f) ? 1 : 0;
    int64_t len[2] = {fz_bytes_range(f, 0, sh[sa]), 1};
    const int brk = fz_odd(g, 40) ? fz_bytes_pick(f, 8) : -1;
    switch (brk) {
    case 0: nvp = 0; break;
    case 1: kdt = vdt = kdt == FIA_DT_FP16 ? FIA_DT_BF16 : FIA_DT_FP16; break;
    case 2: sh[0] = vsh[0] = 2; break;
    case 3: sh[kt->ndim - 1] += 16; break;
    case 4: vsh[sa] += 1; break;
    case 5: nlen = 1, len[0] = sh[sa] + 1; break;
    case 6: nlen = 2; break;
    case 7: sh[sa] = vsh[sa] = g->qs1 ? 262144 : 20971520; break;
    default: break;
    }
    fz_note(g, fz_case_tensor(c, FIA_SLOT_KEY_SHARED_PREFIX, kdt, kt->ndim, sh));
    if (nvp)
        fz_note(g, fz_case_tensor(c, FIA_SLOT_VALUE_SHARED_PREFIX, vdt, kt->ndim,
                             vsh));
    if (nlen)
        fz_note(g, fz_case_array(c, FIA_ARR_ACTUAL_SHARED_PREFIX_LEN, nlen, len));
    /* the full mask and the pse cover P + KV_S (a zero byte: as they were) */
    if (brk < 0 && fz_bytes_rare(f, 60))
        cover_prefix(g, nlen ? len[0] : sh[sa]);
}

/* ---- fuzz_numeric ----------------------------------------------------------- */

enum { PS_SMALL, PS_BLOCK, PS_LONG, PS_EDGE, PS_COUNT };
enum { PL_ABSENT, PL_FULL, PL_SHORT, PL_ZERO, PL_COUNT };
enum { PC_OPEN, PC_RANDOM, PC_CLOSED };

/* The prefix's rows: small, around fast/'s key block, long, or 0 / 1. */
static int64_t prefix_rows(fz_gen *g, int reach)
{
    fz_bytes *f = g->f;
    static const int w[PS_COUNT] = {55, 15, 15, 15};
    static const int rw[PS_COUNT] = {15, 40, 35, 10};
    fast_path_thresholds t;
    fastPathThresholds(&t);
    switch (fz_bytes_weighted(f, reach ? rw : w, PS_COUNT)) {
    case PS_SMALL: return fz_bytes_range(f, 1, 8);
    case PS_BLOCK: {
        int64_t m = 1 + fz_bytes_pick(f, 2);
        int64_t k = m * t.key_block + fz_bytes_range(f, -2, 2);
        return k < 1 ? 1 : k;
    }
    case PS_LONG: return fz_bytes_range(f, 1, FZ_NUM_MAX_KV_S);
    default: return fz_bytes_bool(f);
    }
}

/* The most prefix keys the reference's budget leaves for c (a row reads
 * P more keys: fia_check_reference_work). */
static int64_t prefix_budget(const fia_case *c, const fz_geom *geom)
{
    const double per_key = 2.0 * (double)geom->B * (double)geom->N *
                           (double)geom->Q_S * (double)geom->D;
    const double left = FZ_NUM_MAX_WORK - fia_check_reference_work(c);
    return per_key <= 0 || left <= 0 ? 0 : (int64_t)(left / per_key);
}

/* The prefix rows of slot ps from the case's distribution, rows j >= P
 * NaN, rows j < P poisoned when poison (their keys masked everywhere). */
static void prefix_data(fz_gen *g, const fz_geom *geom, fia_slot ps,
                        int64_t S_p, int64_t P, int poison)
{
    static const double bad[] = {NAN, INFINITY, -INFINITY};
    const fz_layout l = geom->layout == FZ_BNSD_BSND ? FZ_BNSD : geom->layout;
    const int64_t H = geom->KV_N, D = geom->D, n = H * S_p * D;
    int64_t sh[4];
    const int nd = fz_shape(l, 1, H, S_p, D, sh);
    fia_dtype dt = g->c->tensors[FIA_SLOT_KEY].t[0].dtype;
    fia_status st = fz_case_tensor(g->c, ps, dt, nd, sh);
    const int role = ps == FIA_SLOT_KEY_SHARED_PREFIX ? 1 : 2;
    double *v = st == FIA_OK && n > 0 ? fz_numeric_data_values(g, role, 1, H, S_p)
                                      : NULL;
    if (st != FIA_OK || (n > 0 && v == NULL)) {
        fz_note(g, FIA_ERR_NOMEM);
        return;
    }
    for (int64_t h = 0; h < H; h++)
        for (int64_t j = 0; j < S_p; j++)
            for (int64_t d = 0; d < D; d++)
                if (j >= P || poison)
                    v[fz_index(l, 1, H, S_p, D, 0, h, j, d)] =
                        j >= P ? NAN : bad[(j + d) % 3];
    if (v != NULL)
        fz_case_values(g->c, ps, v, n);
}

/* The full mask (Q_S > 1, sparse 0 / 1) widened at the front by P
 * columns: prefix key j at column j, own key j at P + j. */
static void mask_front(fz_gen *g, int64_t P, int cols)
{
    fia_case *c = g->c;
    const fia_tensor_spec *sp = &c->tensors[FIA_SLOT_ATTEN_MASK];
    if (P == 0 || g->Q_S <= 1 || g->sparse > 1 || sp->presence != FIA_PRESENT ||
        sp->count < 1 || fia_tensor_numel(&sp->t[0]) <= 0)
        return;
    const fia_tensor *t = &sp->t[0];
    const int64_t old = t->shape[t->ndim - 1], w = old + P;
    double *src, *dst;
    int64_t n;
    if (fz_slot_data(c, FIA_SLOT_ATTEN_MASK, &src, &n, NULL) != FIA_OK) {
        fz_note(g, FIA_ERR_NOMEM);
        return;
    }
    const int64_t rows = n / old;
    dst = malloc((size_t)(rows * w) * sizeof *dst);
    if (dst == NULL) {
        free(src);
        fz_note(g, FIA_ERR_NOMEM);
        return;
    }
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < w; j++)
            dst[r * w + j] = j >= P ? src[r * old + j - P]
                             : cols == PC_CLOSED ? 1.0
                             : cols == PC_RANDOM
                                 ? (double)(fuzz_rng_next(&g->rng) % 4 == 0)
                                 : 0.0;
    free(src);
    int64_t sh[FIA_MAX_RANK];
    memcpy(sh, t->shape, sizeof sh);
    sh[t->ndim - 1] = w;
    if (fz_case_tensor(c, FIA_SLOT_ATTEN_MASK, t->dtype, t->ndim, sh) != FIA_OK) {
        free(dst);
        fz_note(g, FIA_ERR_NOMEM);
        return;
    }
    fz_case_values(c, FIA_SLOT_ATTEN_MASK, dst, rows * w);
}

/* New prefix tensors of S_p rows, length kind lk. */
static void gain_prefix(fz_gen *g, const fz_geom *geom, int64_t S_p, int lk,
                        int cols, int poison, uint64_t seed)
{
    /* P within S_p and the budget; S_p = P when the length is not given */
    int64_t P = lk == PL_ZERO ? 0
                : lk == PL_SHORT && S_p > 0 ? (int64_t)(seed % (uint64_t)S_p)
                                            : S_p;
    const int64_t most = prefix_budget(g->c, geom);
    P = P > most ? most : P;
    if (lk == PL_ABSENT || S_p < P)
        S_p = P;
    /* the prefix keys masked in every row: their rows may hold anything */
    const fia_tensor_spec *ms = &g->c->tensors[FIA_SLOT_ATTEN_MASK];
    const int closed = cols == PC_CLOSED && g->sparse <= 1 && g->Q_S > 1 &&
                       ms->presence == FIA_PRESENT;
    prefix_data(g, geom, FIA_SLOT_KEY_SHARED_PREFIX, S_p, P, poison && closed);
    prefix_data(g, geom, FIA_SLOT_VALUE_SHARED_PREFIX, S_p, P,
                poison && closed);
    mask_front(g, P, cols);
    if (lk != PL_ABSENT)
        fz_note(g, fz_case_array(g->c, FIA_ARR_ACTUAL_SHARED_PREFIX_LEN, 1, &P));
}

/* 1 when every element of prefix row j (KV head 0) is not finite: a key
 * the data poisoned because the mask excluded it from every row of its
 * batch (gen_tensors_data.c). */
static int row_poisoned(const double *v, fz_layout l, int64_t H, int64_t S,
                        int64_t D, int64_t j)
{
    int all = D >= 2;
    for (int64_t d = 0; all && d < D; d++)
        all = !isfinite(v[fz_index(l, 1, H, S, D, 0, 0, j, d)]);
    return all;
}

/* A moved prefix is read by every batch: the keys poisoned in the batch
 * they came from get their column masked in every row (a poisoned key
 * comes with a full mask), so that no batch reads them. */
static void close_poisoned(fz_gen *g, const fz_geom *geom)
{
    fia_case *c = g->c;
    const fz_layout l = geom->layout == FZ_BNSD_BSND ? FZ_BNSD : geom->layout;
    const fia_tensor_spec *ms = &c->tensors[FIA_SLOT_ATTEN_MASK];
    double *v = NULL, *m = NULL;
    int64_t n, nm;
    if (ms->presence != FIA_PRESENT || geom->Q_S <= 1 || g->sparse > 1 ||
        fz_slot_data(c, FIA_SLOT_KEY_SHARED_PREFIX, &v, &n, NULL) != FIA_OK)
        return;
    const int64_t S_p = n / (geom->KV_N * geom->D);
    const fia_int_array_spec *pl = &c->arrays[FIA_ARR_ACTUAL_SHARED_PREFIX_LEN];
    const int64_t P = pl->presence == FIA_PRESENT ? pl->values[0] : S_p;
    int any = 0;
    for (int64_t j = 0; j < P && !any; j++)
        any = row_poisoned(v, l, geom->KV_N, S_p, geom->D, j);
    if (any && fz_slot_data(c, FIA_SLOT_ATTEN_MASK, &m, &nm, NULL) == FIA_OK) {
        const fia_tensor *t = &ms->t[0];
        const int64_t cols = t->shape[t->ndim - 1];
        for (int64_t j = 0; j < P && j < cols; j++)
            for (int64_t r = 0;
                 row_poisoned(v, l, geom->KV_N, S_p, geom->D, j) &&
                 r < nm / cols;
                 r++)
                m[r * cols + j] = 1.0;
        fz_case_values(c, FIA_SLOT_ATTEN_MASK, m, nm);
    }
    free(v);
}

/* The first P keys of one batch moved into the prefix (fz_prefix_case),
 * within the budget (its own extra rows dropped when they pass it). */
static void move_prefix(fz_gen *g, const fz_geom *geom, int64_t P,
                        uint64_t seed)
{
    int64_t fewest = geom->KV_S;
    for (int64_t b = 0; b < geom->B; b++) {
        int64_t kl = fz_kv_len(g->c, geom, b);
        fewest = kl < fewest ? kl : fewest;
    }
    P = P > fewest ? fewest : P;
    if (P < 1)
        return;
    fia_case plain;
    fia_case_init(&plain);
    if (fia_case_copy(&plain, g->c) != FIA_OK) {
        fz_note(g, FIA_ERR_NOMEM);
        return;
    }
    for (int k = 0; k < 2; k++) {
        fia_error err;
        fia_status st = fz_prefix_case(&plain, geom, P, seed, 0, g->c, &err);
        if (st == FIA_OK && fia_check_reference_work(g->c) <= FZ_NUM_MAX_WORK)
            break;
        fia_case_free(g->c); /* the case as it was */
        fia_case_init(g->c);
        if (fia_case_copy(g->c, &plain) != FIA_OK || st == FIA_ERR_NOMEM) {
            fz_note(g, FIA_ERR_NOMEM);
            break;
        }
        seed &= ~(uint64_t)0x18; /* no own extra rows */
    }
    fia_case_free(&plain);
    close_poisoned(g, geom);
}

void fz_numeric_prefix(fz_gen *g)
{
    fz_bytes *f = g->f;
    fia_case *c = g->c;
    const int reach = g->reach == FZ_REACH_TAIL ||
                      g->reach == FZ_REACH_ROWS || g->reach == FZ_REACH_SPLIT;
    /* the metamorphic target prefixes its second form (prefix=) instead,
     * reading no byte here: its stored seeds keep their transforms */
    if (g->meta || c->live_rows || !fz_bytes_rare(f, reach ? 50 : 12))
        return;
    const int move = fz_bytes_chance(f, 35);
    const int64_t S_p = prefix_rows(g, reach);
    static const int lw[PL_COUNT] = {40, 25, 25, 10};
    const int lk = fz_bytes_weighted(f, lw, PL_COUNT);
    const int cols = fz_bytes_pick(f, 3);
    const int poison = fz_bytes_bool(f);
    const uint64_t seed = fz_bytes_u32(f);
    fz_geom geom;
    /* contiguous, no padding, no page table (its cache is not the
     * layout's), not a token layout */
    if (fz_geom_of(c, &geom) != 0 || !fz_prefix_applies(c, &geom, 0) ||
        fia_layout_is_tnd(c->attrs.input_layout))
        return;
    if (move)
        move_prefix(g, &geom, S_p, seed);
    else
        gain_prefix(g, &geom, S_p, lk, cols, poison, seed);
}
