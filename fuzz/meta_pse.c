/* pse (metamorphic, and fuzz_numeric's pse values): where a call reads its
 * pse_shift (docs/features/pse.md), and two relations.
 *
 * Row i of batch b, head n, reads pse[b'][n][r][c] for its logical key j
 * (a shared prefix's P keys first): b' = 0 for a pse of batch 1, r the
 * row's physical row (q_start + i with query left padding, 0 at Q_S = 1),
 * c the key's physical column (kv_start + j with kv left padding; with a
 * prefix, j itself: own key j at P + j).  Every other position is never
 * read ("多余部分的填充值不做要求"): the builders put NaN there now and
 * then, so that a kernel reading a wrong position shows.
 *
 *   pse-zero=<seed>  the base against the base plus a pse of zeros: batch
 *                    1 or B (bit 0), 0..3 more rows (bits 1-2, Q_S > 1),
 *                    0..3 more columns (bits 3-4), columns up to a
 *                    multiple of 16 (bit 5, 002's 32-byte advice), NaN
 *                    where no row reads (bit 6; else const(0)).
 *   pse-mask=<seed>  a base with a full mask (sparse 0 / 1 at Q_S > 1, or
 *                    any at Q_S = 1) against the form without the mask
 *                    whose pse holds -inf where the mask (and mode 0's
 *                    pre/next band, folded) excluded a key, 0 elsewhere;
 *                    the seed's bits as above (batch 1 only for a mask of
 *                    batch 1).  A -inf score is a weight 0, a masked key is
 *                    never read: rows the base leaves without keys (0 with
 *                    the row-invalid correction, NaN here) and rows with an
 *                    excluded key holding a non-finite key or value
 *                    (0 * inf = NaN here) are unspecified for the
 *                    comparison (fz_pse_mask_unspecified). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_internal.h"

/* The largest pse a builder makes (elements). */
#define PSE_MAX_NUMEL ((int64_t)1 << 24)

static int present(const fia_case *c, fia_slot s)
{
    const fia_tensor_spec *sp = &c->tensors[s];
    return sp->presence == FIA_PRESENT && sp->count >= 1 && sp->t != NULL &&
           fia_tensor_numel(&sp->t[0]) > 0;
}

static int64_t clamp32(int64_t x)
{
    return x > 2147483647LL ? 2147483647LL
           : x < -2147483648LL ? -2147483648LL : x;
}

/* A list's tensor b's S (its kv length when no lengths are given). */
static int64_t list_s(const fia_case *c, const fz_geom *g, int64_t b)
{
    const fia_tensor_spec *k = &c->tensors[FIA_SLOT_KEY];
    const int sa = g->layout == FZ_BNSD || g->layout == FZ_BNSD_BSND ? 2 : 1;
    return b < k->count && k->t[b].ndim > sa ? k->t[b].shape[sa] : 0;
}

void fz_batch_place(const fia_case *c, const fz_geom *g, int64_t b,
                    int64_t *ql, int64_t *kl, int64_t *qst, int64_t *kst)
{
    int64_t q = fz_q_len(c, g, b), k = fz_kv_len(c, g, b);
    if (g->list &&
        c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV].presence != FIA_PRESENT)
        k = list_s(c, g, b);
    q = q < 0 ? 0 : q > g->Q_S ? g->Q_S : q;
    k = k < 0 ? 0 : k > g->KV_S ? g->KV_S : k;
    *ql = q, *kl = g->P + k, *qst = 0, *kst = 0;
    /* starts compared as p > S - len, so that nothing overflows */
    if (g->qpad && g->Q_S > 1)
        *qst = g->p_q > g->Q_S - q ? -1 : g->Q_S - g->p_q - q;
    if (g->kvpad)
        *kst = g->p_kv > g->KV_S - k ? -1 : g->KV_S - g->p_kv - k;
}

fia_status fz_pse_values(const fia_case *c, const fz_geom *g,
                         const int64_t sh[4], fz_pse_fn fn, void *ctx,
                         double unread, double **out)
{
    const int64_t n = sh[0] * sh[1] * sh[2] * sh[3];
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    *out = v;
    if (v == NULL)
        return FIA_ERR_NOMEM;
    for (int64_t k = 0; k < n; k++)
        v[k] = unread;
    for (int64_t b = 0; b < g->B; b++) {
        int64_t ql, kl, qst, kst;
        fz_batch_place(c, g, b, &ql, &kl, &qst, &kst);
        const int64_t pb = sh[0] == 1 ? 0 : b;
        if (qst < 0 || kst < 0 || pb >= sh[0])
            continue;
        for (int64_t h = 0; h < g->N && h < sh[1]; h++)
            for (int64_t i = 0; i < ql; i++) {
                const int64_t r = g->Q_S == 1 ? 0 : qst + i;
                for (int64_t j = 0; r < sh[2] && j < kl && kst + j < sh[3];
                     j++)
                    v[((pb * sh[1] + h) * sh[2] + r) * sh[3] + kst + j] =
                        fn(ctx, b, h, i, j);
            }
    }
    return FIA_OK;
}

fia_status fz_excluded_keys(const fia_case *c, const fz_geom *g,
                            uint8_t **out)
{
    *out = NULL;
    const int decode = g->Q_S == 1;
    const int64_t sm = c->attrs.sparse_mode;
    if (!present(c, FIA_SLOT_ATTEN_MASK) || (!decode && sm != 0 && sm != 1))
        return FIA_OK;
    const fia_tensor *mt = &c->tensors[FIA_SLOT_ATTEN_MASK].t[0];
    const int nd = mt->ndim;
    if (nd < (decode ? 1 : 2) || nd > 4)
        return FIA_ERR_BAD_INPUT;
    const int64_t cols = mt->shape[nd - 1];
    const int64_t mrows = decode ? 1 : mt->shape[nd - 2];
    const int64_t bdim = nd == (decode ? 1 : 2) ? 1 : mt->shape[0];
    const int64_t rows = decode ? 1 : g->Q_S, kv = g->P + g->KV_S;
    if (bdim != 1 && bdim != g->B)
        return FIA_ERR_BAD_INPUT;
    double *m;
    int64_t mn;
    if (fz_slot_data(c, FIA_SLOT_ATTEN_MASK, &m, &mn, NULL) != FIA_OK)
        return FIA_ERR_BAD_INPUT;
    const int64_t n = g->B * rows * kv;
    uint8_t *x = malloc((size_t)(n > 0 ? n : 1));
    if (x == NULL) {
        free(m);
        return FIA_ERR_NOMEM;
    }
    memset(x, 1, (size_t)(n > 0 ? n : 1));
    /* mode 0's band, ignored in a left-padding scene (PAD-N04) */
    const int band = !decode && sm == 0 && !g->qpad && !g->kvpad;
    const int64_t pre = clamp32(c->attrs.pre_tokens);
    const int64_t next = clamp32(c->attrs.next_tokens);
    for (int64_t b = 0; b < g->B; b++) {
        int64_t ql, kl, qst, kst;
        fz_batch_place(c, g, b, &ql, &kl, &qst, &kst);
        const int64_t mb = bdim == 1 ? 0 : b;
        for (int64_t i = 0; qst >= 0 && kst >= 0 && i < ql && i < rows; i++) {
            const int64_t r = decode ? 0 : qst + i;
            for (int64_t j = 0; j < kl && j < kv; j++) {
                const int64_t col = kst + j;
                int ex = r >= mrows || col >= cols ||
                         m[(mb * mrows + r) * cols + col] != 0.0 ||
                         (band && (j < i - pre || j > i + next));
                x[(b * rows + i) * kv + j] = (uint8_t)ex;
            }
        }
    }
    free(m);
    *out = x;
    return FIA_OK;
}

/* ---- the relations -------------------------------------------------------- */

int fz_pse_applies(const fia_case *c, const fz_geom *g, int mask)
{
    const fia_tensor_spec *q = &c->tensors[FIA_SLOT_QUERY];
    if (g->layout == FZ_OTHER || g->tnd || c->live_rows || g->B < 1 ||
        g->N < 1 || g->Q_S < 1 || q->presence != FIA_PRESENT ||
        q->count != 1 ||
        c->tensors[FIA_SLOT_PSE_SHIFT].presence != FIA_ABSENT ||
        (q->t[0].dtype != FIA_DT_FP16 && q->t[0].dtype != FIA_DT_BF16) ||
        (g->Q_S == 1 && g->D % 16 != 0))
        return 0;
    if (!mask)
        return 1;
    uint8_t *x = NULL;
    if (fz_excluded_keys(c, g, &x) != FIA_OK || x == NULL)
        return 0;
    free(x);
    return 1;
}

static double zero_fn(void *ctx, int64_t b, int64_t n, int64_t i, int64_t j)
{
    (void)ctx, (void)b, (void)n, (void)i, (void)j;
    return 0.0;
}

typedef struct mask_ctx {
    const uint8_t *x;
    int64_t rows, kv;
} mask_ctx;

static double mask_fn(void *ctx, int64_t b, int64_t n, int64_t i, int64_t j)
{
    const mask_ctx *m = ctx;
    (void)n;
    return m->x[(b * m->rows + i) * m->kv + j] ? -INFINITY : 0.0;
}

/* A pse for the seed's shape in *out: fn's values where rows read (NaN
 * elsewhere with bit 6), or const(0) when zero and bit 6 is clear. */
static fia_status add_pse(const fia_case *c, const fz_geom *g, uint64_t seed,
                          int batch1, fz_pse_fn fn, void *ctx, int zero,
                          fia_case *out, fia_error *err)
{
    int64_t sh[4] = {batch1 ? 1 : g->B, g->N,
                     g->Q_S == 1 ? 1 : g->Q_S + (int64_t)((seed >> 1) & 3),
                     g->P + g->KV_S + (int64_t)((seed >> 3) & 3)};
    if ((seed >> 5) & 1)
        sh[3] = (sh[3] + 15) / 16 * 16;
    if (sh[3] < 1)
        sh[3] = 1; /* no key at all: one column nobody reads */
    if ((double)sh[0] * (double)sh[1] * (double)sh[2] * (double)sh[3] >
        (double)PSE_MAX_NUMEL)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "the pse would be too large");
    const fia_dtype dt = c->tensors[FIA_SLOT_QUERY].t[0].dtype;
    if (fz_case_tensor(out, FIA_SLOT_PSE_SHIFT, dt, 4, sh) != FIA_OK)
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the pse");
    if (zero && !((seed >> 6) & 1)) {
        fz_case_gen(out, FIA_SLOT_PSE_SHIFT, FIA_GEN_CONST, 0.0, 0.0);
        return FIA_OK;
    }
    double *v;
    if (fz_pse_values(c, g, sh, fn, ctx, (seed >> 6) & 1 ? NAN : 0.0, &v) !=
        FIA_OK)
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the pse");
    fz_case_values(out, FIA_SLOT_PSE_SHIFT, v, sh[0] * sh[1] * sh[2] * sh[3]);
    return FIA_OK;
}

fia_status fz_meta_pse_zero(const fia_case *c, const fz_geom *g,
                            const char *arg, fia_case *out, fia_error *err)
{
    unsigned long long seed = 0;
    if (sscanf(arg, "%llu", &seed) != 1)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "pse-zero=%s: want <seed>",
                        arg);
    if (!fz_pse_applies(c, g, 0))
        return fia_fail(err, FIA_ERR_BAD_INPUT, "the case takes no pse");
    return add_pse(c, g, seed, seed & 1, zero_fn, NULL, 1, out, err);
}

fia_status fz_meta_pse_mask(const fia_case *c, const fz_geom *g,
                            const char *arg, fia_case *out, fia_error *err)
{
    unsigned long long seed = 0;
    if (sscanf(arg, "%llu", &seed) != 1)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "pse-mask=%s: want <seed>",
                        arg);
    uint8_t *x = NULL;
    if (!fz_pse_applies(c, g, 0) || fz_excluded_keys(c, g, &x) != FIA_OK ||
        x == NULL)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "the case has no full mask "
                        "to write as a pse");
    const fia_tensor *mt = &c->tensors[FIA_SLOT_ATTEN_MASK].t[0];
    /* a mask of batch 1 (a 2-D prefill mask or batch dim 1) excludes key
     * j from row i in every batch that has them (no padding: the base's
     * positions are its logical ones): a pse of batch 1 says the same */
    const int mask1 = g->Q_S > 1 && (mt->ndim == 2 || mt->shape[0] == 1);
    mask_ctx m = {x, g->Q_S == 1 ? 1 : g->Q_S, g->P + g->KV_S};
    const int batch1 = (seed & 1) && (g->B == 1 || mask1) && !g->qpad &&
                       !g->kvpad;
    fia_status st = add_pse(c, g, seed, batch1, mask_fn, &m, 0, out, err);
    free(x);
    if (st != FIA_OK)
        return st;
    fz_case_absent(out, FIA_SLOT_ATTEN_MASK);
    if (c->attrs.sparse_mode == 1)
        fz_case_attr(out, FIA_ATTR_SPARSE_MODE, 0); /* mode 1 needs a mask */
    out->attrs.pre_tokens = out->attrs.next_tokens = 2147483647LL;
    out->attr_given[FIA_ATTR_PRE_TOKENS] = false;
    out->attr_given[FIA_ATTR_NEXT_TOKENS] = false;
    return FIA_OK;
}

/* 1 when logical key j of batch b, KV head kn, holds a non-finite key or
 * value element: own key j - P at physical row kst + j - P of k and v
 * ([B, KV_N, KV_S, D] in l). */
static int nonfinite_key(const fz_geom *g, fz_layout l, const double *k,
                         const double *v, int64_t b, int64_t kn, int64_t kst,
                         int64_t j)
{
    if (j < g->P)
        return 0; /* the prefix's rows: not this relation's */
    for (int64_t d = 0; d < g->D; d++) {
        int64_t at = fz_index(l, g->B, g->KV_N, g->KV_S, g->D, b, kn,
                              kst + j - g->P, d);
        if (!isfinite(k[at]) || !isfinite(v[at]))
            return 1;
    }
    return 0;
}

/* The excluded-keys table of c (fz_excluded_keys) and its key and value
 * data (*nk, *nv elements): FIA_OK with all three (the caller frees them),
 * FIA_ERR_BAD_INPUT when c has no table, NOMEM. */
static fia_status excluded_with_kv(const fia_case *c, const fz_geom *g,
                                   uint8_t **x, double **k, double **v,
                                   int64_t *nk, int64_t *nv)
{
    *x = NULL, *k = *v = NULL;
    fia_status st = fz_excluded_keys(c, g, x);
    if (st != FIA_OK || *x == NULL)
        return st == FIA_OK ? FIA_ERR_BAD_INPUT : st;
    if (fz_slot_data(c, FIA_SLOT_KEY, k, nk, NULL) != FIA_OK ||
        fz_slot_data(c, FIA_SLOT_VALUE, v, nv, NULL) != FIA_OK) {
        free(*x), free(*k);
        *x = NULL, *k = NULL;
        return FIA_ERR_NOMEM;
    }
    return FIA_OK;
}

fia_status fz_pse_mask_unspecified(const fia_case *c, const fz_geom *g,
                                   uint8_t *unspec, uint8_t *lunspec)
{
    uint8_t *x;
    double *k, *v;
    int64_t nk, nv;
    fia_status st = excluded_with_kv(c, g, &x, &k, &v, &nk, &nv);
    if (st != FIA_OK)
        return st == FIA_ERR_NOMEM ? st : FIA_OK;
    const fz_layout l = g->layout == FZ_BNSD_BSND ? FZ_BNSD : g->layout;
    const int64_t rows = g->Q_S == 1 ? 1 : g->Q_S, kv = g->P + g->KV_S;
    const int64_t group = g->N / (g->KV_N > 0 ? g->KV_N : 1);
    for (int64_t b = 0; b < g->B; b++) {
        int64_t ql, kl, qst, kst;
        fz_batch_place(c, g, b, &ql, &kl, &qst, &kst);
        for (int64_t i = 0; qst >= 0 && kst >= 0 && i < ql && i < rows;
             i++) {
            const uint8_t *xr = x + (b * rows + i) * kv;
            int open = 0;
            for (int64_t j = 0; j < kl && j < kv; j++)
                open |= !xr[j];
            for (int64_t n = 0; n < g->N; n++) {
                int bad = !open;
                for (int64_t j = 0; !bad && j < kl && j < kv; j++)
                    bad = xr[j] && nonfinite_key(g, l, k, v, b,
                                                 group ? n / group : 0, kst,
                                                 j);
                if (!bad)
                    continue;
                const int64_t row = (b * g->N + n) * g->Q_S + i;
                lunspec[row] = 1;
                memset(unspec + row * g->D, 1, (size_t)g->D);
            }
        }
    }
    free(x), free(k), free(v);
    return FIA_OK;
}

fia_status fz_pse_mask_clean(fia_case *c, const fz_geom *g)
{
    uint8_t *x;
    double *k, *v;
    int64_t nk, nv;
    fia_status st = excluded_with_kv(c, g, &x, &k, &v, &nk, &nv);
    if (st != FIA_OK)
        return st;
    const fz_layout l = g->layout == FZ_BNSD_BSND ? FZ_BNSD : g->layout;
    const int64_t rows = g->Q_S == 1 ? 1 : g->Q_S, kv = g->P + g->KV_S;
    int changed = 0;
    for (int64_t b = 0; b < g->B; b++) {
        int64_t ql, kl, qst, kst;
        fz_batch_place(c, g, b, &ql, &kl, &qst, &kst);
        for (int64_t j = g->P; qst >= 0 && kst >= 0 && j < kl && j < kv;
             j++) {
            int ex = 0, bad = 0;
            for (int64_t i = 0; i < ql && i < rows; i++)
                ex |= x[(b * rows + i) * kv + j];
            for (int64_t kn = 0; ex && !bad && kn < g->KV_N; kn++)
                bad = nonfinite_key(g, l, k, v, b, kn, kst, j);
            for (int64_t kn = 0; bad && kn < g->KV_N; kn++)
                for (int64_t d = 0; d < g->D; d++) {
                    int64_t at = fz_index(l, g->B, g->KV_N, g->KV_S, g->D, b,
                                          kn, kst + j - g->P, d);
                    k[at] = v[at] = 0.0;
                }
            changed |= bad;
        }
    }
    free(x);
    if (changed) {
        fz_case_values(c, FIA_SLOT_KEY, k, nk);
        fz_case_values(c, FIA_SLOT_VALUE, v, nv);
    } else {
        free(k), free(v);
    }
    return FIA_OK;
}
