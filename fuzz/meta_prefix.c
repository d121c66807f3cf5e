/* prefix (metamorphic, and fuzz_numeric's prefixed cases): the same keys
 * with the first P of every batch in the shared prefix
 * (docs/features/prefix.md).  Batch b of the prefixed form reads kv_len'[b]
 * = P + (kv_len[b] - P) = kv_len[b] logical keys, key j < P from the
 * prefix tensors and key P + j from its own row j, so every key rule (the
 * full mask at column j', the sparse band with kv_len', the degenerate
 * rows) reads the same logical key as the base did: the mask's and the
 * pse's columns stay where they are.  When every batch's first P rows are
 * equal (the relation's base, fz_prefix_share) the two forms are one
 * problem; fuzz_numeric moves one batch's rows into the prefix whatever
 * the others hold (a valid call, not an equivalent one).
 *
 * Rows no key reads hold NaN: the prefix's rows past P (S_p > P, with
 * actual_shared_prefix_len given) and the own rows past KV_S - P.
 *
 * Transform "prefix=<P>,<seed>" (fz_prefix_case's seed, same = 1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_internal.h"

/* The inputs a prefixed form carries over (the rest depend on the key
 * axis in a way this transform does not model, or exclude the prefix). */
static int carried(int s)
{
    return s == FIA_SLOT_QUERY || s == FIA_SLOT_KEY || s == FIA_SLOT_VALUE ||
           s == FIA_SLOT_ATTEN_MASK || s == FIA_SLOT_PSE_SHIFT ||
           s == FIA_SLOT_ATTENTION_OUT || s == FIA_SLOT_SOFTMAX_LSE;
}

static int present(const fia_case *c, fia_slot s)
{
    const fia_tensor_spec *sp = &c->tensors[s];
    return sp->presence == FIA_PRESENT && sp->count >= 1 && sp->t != NULL &&
           fia_tensor_numel(&sp->t[0]) > 0;
}

int fz_prefix_applies(const fia_case *c, const fz_geom *g, int64_t P)
{
    if (c->live_rows || g->layout == FZ_OTHER || g->paged || g->list ||
        g->tnd || g->P > 0 || P < 0 || P > g->KV_S || g->B < 1 ||
        g->B > 65536 || g->N < 1 || g->KV_N < 1 || g->D < 1 || g->Q_S < 1 ||
        c->arrays[FIA_ARR_ACTUAL_SHARED_PREFIX_LEN].presence != FIA_ABSENT)
        return 0;
    for (int s = 0; s < FIA_SLOT_COUNT; s++)
        if (!carried(s) && c->tensors[s].presence != FIA_ABSENT)
            return 0;
    /* Q_S = 1 with a mask and a prefix: not modeled (which columns the
     * prefix keys read) */
    if (g->Q_S == 1 && present(c, FIA_SLOT_ATTEN_MASK))
        return 0;
    for (int64_t b = 0; b < g->B; b++) {
        const int64_t kl = fz_kv_len(c, g, b);
        if (kl < P || kl > g->KV_S)
            return 0;
    }
    return 1;
}

/* Slot s's last dim widened to cols (the new columns `fill`), kept when
 * it is that wide already or absent. */
static fia_status widen_last(const fia_case *c, fia_slot s, int64_t cols,
                             double fill, fia_case *out, fia_error *err)
{
    if (!present(c, s) || c->tensors[s].t[0].ndim < 1)
        return FIA_OK;
    const fia_tensor *t = &c->tensors[s].t[0];
    const int64_t old = t->shape[t->ndim - 1];
    if (old >= cols)
        return FIA_OK;
    double *src;
    int64_t n;
    fia_status st = fz_slot_data(c, s, &src, &n, err);
    if (st != FIA_OK)
        return st;
    const int64_t rows = n / old;
    double *dst = malloc((size_t)(rows * cols > 0 ? rows * cols : 1) *
                         sizeof *dst);
    if (dst == NULL) {
        free(src);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory to widen %s",
                        fia_slot_name(s));
    }
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < cols; j++)
            dst[r * cols + j] = j < old ? src[r * old + j] : fill;
    free(src);
    int64_t sh[FIA_MAX_RANK];
    memcpy(sh, t->shape, sizeof sh);
    sh[t->ndim - 1] = cols;
    if (fz_case_tensor(out, s, t->dtype, t->ndim, sh) != FIA_OK) {
        free(dst);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory to widen %s",
                        fia_slot_name(s));
    }
    fz_case_values(out, s, dst, rows * cols);
    return FIA_OK;
}

typedef struct prefix_plan {
    int64_t P, S_p, KV2, src;
    fz_layout l;           /* the layout's element order (BNSD_BSND: BNSD) */
} prefix_plan;

/* 1 when every batch's first P rows of src ([B, KV_N, KV_S, D] in g's
 * layout) equal batch 0's (NaN equal to NaN). */
static int rows_shared(const fz_geom *g, const prefix_plan *pl,
                       const double *src)
{
    for (int64_t b = 1; b < g->B; b++)
        for (int64_t h = 0; h < g->KV_N; h++)
            for (int64_t j = 0; j < pl->P; j++)
                for (int64_t d = 0; d < g->D; d++) {
                    double x = src[fz_index(pl->l, g->B, g->KV_N, g->KV_S,
                                            g->D, 0, h, j, d)];
                    double y = src[fz_index(pl->l, g->B, g->KV_N, g->KV_S,
                                            g->D, b, h, j, d)];
                    if (!(x == y || (isnan(x) && isnan(y))))
                        return 0;
                }
    return 1;
}

/* Slot s (key or value) split: its prefix tensor (prefix slot ps) of S_p
 * rows and its own rows shifted by P into KV2 rows. */
static fia_status split_rows(const fia_case *c, const fz_geom *g,
                             const prefix_plan *pl, fia_slot s, fia_slot ps,
                             int same, fia_case *out, fia_error *err)
{
    const int64_t B = g->B, H = g->KV_N, D = g->D, S = g->KV_S;
    double *src, *pre = NULL, *own = NULL;
    int64_t n;
    fia_status st = fz_slot_data(c, s, &src, &n, err);
    if (st != FIA_OK)
        return st;
    if (same && !rows_shared(g, pl, src)) {
        free(src);
        return fia_fail(err, FIA_ERR_BAD_INPUT, "the batches' first %lld "
                        "%s rows differ", (long long)pl->P, fia_slot_name(s));
    }
    const int64_t np = H * pl->S_p * D, no = B * H * pl->KV2 * D;
    pre = malloc((size_t)(np > 0 ? np : 1) * sizeof *pre);
    own = malloc((size_t)(no > 0 ? no : 1) * sizeof *own);
    if (pre == NULL || own == NULL) {
        free(src), free(pre), free(own);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the prefix");
    }
    for (int64_t h = 0; h < H; h++)
        for (int64_t j = 0; j < pl->S_p; j++)
            for (int64_t d = 0; d < D; d++)
                pre[fz_index(pl->l, 1, H, pl->S_p, D, 0, h, j, d)] =
                    j < pl->P ? src[fz_index(pl->l, B, H, S, D, pl->src, h, j,
                                             d)]
                              : NAN;
    for (int64_t b = 0; b < B; b++)
        for (int64_t h = 0; h < H; h++)
            for (int64_t j = 0; j < pl->KV2; j++)
                for (int64_t d = 0; d < D; d++)
                    own[fz_index(pl->l, B, H, pl->KV2, D, b, h, j, d)] =
                        pl->P + j < S ? src[fz_index(pl->l, B, H, S, D, b, h,
                                                     pl->P + j, d)]
                                      : NAN;
    free(src);
    const fia_dtype dt = c->tensors[s].t[0].dtype;
    int64_t sh[4];
    int nd = fz_shape(pl->l, 1, H, pl->S_p, D, sh);
    if (fz_case_tensor(out, ps, dt, nd, sh) != FIA_OK) {
        free(pre), free(own);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the prefix");
    }
    fz_case_values(out, ps, pre, np);
    nd = fz_shape(pl->l, B, H, pl->KV2, D, sh);
    if (fz_case_tensor(out, s, dt, nd, sh) != FIA_OK) {
        free(own);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the keys");
    }
    fz_case_values(out, s, own, no);
    return FIA_OK;
}

/* actual_seq_lengths_kv - P; written out per batch when absent and asked
 * (or needed: own extra rows past the lengths). */
static fia_status shift_lengths(const fia_case *c, const fz_geom *g,
                                const prefix_plan *pl, int write,
                                fia_case *out)
{
    const fia_int_array_spec *a = &c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    const int given = a->presence == FIA_PRESENT && a->count > 0;
    if (!given && !write)
        return FIA_OK;
    const int64_t n = given ? a->count : g->B;
    int64_t *v = malloc((size_t)n * sizeof *v);
    if (v == NULL)
        return FIA_ERR_NOMEM;
    for (int64_t b = 0; b < n; b++)
        v[b] = (given ? a->values[b] : g->KV_S) - pl->P;
    fia_status st = fz_case_array(out, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, n, v);
    free(v);
    return st;
}

fia_status fz_prefix_case(const fia_case *c, const fz_geom *g, int64_t P,
                          uint64_t seed, int same, fia_case *out,
                          fia_error *err)
{
    if (!fz_prefix_applies(c, g, P))
        return fia_fail(err, FIA_ERR_BAD_INPUT, "the case has no prefixed "
                        "form with P = %lld", (long long)P);
    prefix_plan pl;
    const int64_t own_extra = (int64_t)((seed >> 3) & 3);
    pl.P = P;
    pl.S_p = P + (int64_t)((seed >> 1) & 3);
    pl.KV2 = g->KV_S - P + own_extra;
    pl.src = same ? 0 : (int64_t)((seed >> 8) % (uint64_t)g->B);
    pl.l = g->layout == FZ_BNSD_BSND ? FZ_BNSD : g->layout;
    if ((double)g->B * (double)g->KV_N * (double)g->D *
            (double)(pl.KV2 + pl.S_p) > (double)((int64_t)1 << 26))
        return fia_fail(err, FIA_ERR_BAD_INPUT, "the prefixed form is too "
                        "large");
    fia_status st = split_rows(c, g, &pl, FIA_SLOT_KEY,
                               FIA_SLOT_KEY_SHARED_PREFIX, same, out, err);
    if (st == FIA_OK)
        st = split_rows(c, g, &pl, FIA_SLOT_VALUE,
                        FIA_SLOT_VALUE_SHARED_PREFIX, same, out, err);
    /* the full mask (Q_S > 1, sparse 0 / 1) and the pse cover P + KV_S'
     * columns (PREFIX-009, -010): column j' = j, as in the base */
    const int64_t sm = c->attrs.sparse_mode;
    if (st == FIA_OK && g->Q_S > 1 && (sm == 0 || sm == 1))
        st = widen_last(c, FIA_SLOT_ATTEN_MASK, P + pl.KV2, 1.0, out, err);
    if (st == FIA_OK)
        st = widen_last(c, FIA_SLOT_PSE_SHIFT, P + pl.KV2, NAN, out, err);
    if (st != FIA_OK)
        return st;
    const int64_t len = P;
    if (((pl.S_p > P || (seed & 1)) &&
         fz_case_array(out, FIA_ARR_ACTUAL_SHARED_PREFIX_LEN, 1, &len) != FIA_OK) ||
        shift_lengths(c, g, &pl, own_extra > 0 || ((seed >> 5) & 1), out) !=
            FIA_OK)
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the lengths");
    return FIA_OK;
}

/* Rows j < P of every batch of slot s made batch 0's. */
static fia_status share_slot(fia_case *c, const fz_geom *g, int64_t P,
                             fia_slot s)
{
    const fz_layout l = g->layout == FZ_BNSD_BSND ? FZ_BNSD : g->layout;
    double *v;
    int64_t n;
    fia_status st = fz_slot_data(c, s, &v, &n, NULL);
    if (st != FIA_OK)
        return st;
    for (int64_t b = 1; b < g->B; b++)
        for (int64_t h = 0; h < g->KV_N; h++)
            for (int64_t j = 0; j < P; j++)
                for (int64_t d = 0; d < g->D; d++)
                    v[fz_index(l, g->B, g->KV_N, g->KV_S, g->D, b, h, j, d)] =
                        v[fz_index(l, g->B, g->KV_N, g->KV_S, g->D, 0, h, j,
                                   d)];
    fz_case_values(c, s, v, n);
    return FIA_OK;
}

fia_status fz_prefix_share(fia_case *c, const fz_geom *g, int64_t P)
{
    if (!fz_prefix_applies(c, g, P))
        return FIA_ERR_BAD_INPUT;
    if (g->B < 2 || P == 0)
        return FIA_OK;
    fia_status st = share_slot(c, g, P, FIA_SLOT_KEY);
    return st == FIA_OK ? share_slot(c, g, P, FIA_SLOT_VALUE) : st;
}

/* "prefix=<P>,<seed>": *out (a copy of c) becomes the prefixed form. */
fia_status fz_meta_prefix(const fia_case *c, const fz_geom *g,
                          const char *arg, fia_case *out, fia_error *err)
{
    long long P = 0;
    unsigned long long seed = 0;
    if (sscanf(arg, "%lld,%llu", &P, &seed) != 2 || P < 1)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "prefix=%s: want <P >= 1>,"
                        "<seed>", arg);
    return fz_prefix_case(c, g, P, seed, 1, out, err);
}
