/* padding (metamorphic, and fuzz_numeric's padded cases): the same problem
 * left-padded (docs/features/padding.md).  Query row i < q_len[b] of batch
 * b moves to physical row q_start[b] + i = Q_S' - p_q - q_len[b] + i, key
 * and value row j < kv_len[b] to kv_start[b] + j = KV_S' - p_kv -
 * kv_len[b] + j, every other row holds NaN (a kernel reading a wrong row
 * shows), and the mask follows them: element (b, q_start + i, kv_start +
 * j) of a per-batch mask, the positions no row reads masked.  Mode 0's
 * pre/next band is folded into that mask, because a left-padding scene
 * with a mask ignores pre/next (002 sparseMode); modes 2-4 read their band
 * in the logical coordinates, so their compressed mask stays.  The outputs
 * follow Q_S'; the relation reads them at the physical rows (fz_out_index)
 * and compares the rows the documents define.
 *
 * Transform "pad=<p_q>,<p_kv>,<seed>": a value below 0 gives no padding
 * tensor of that kind; extra rows 0..3 from seed bits 6-7. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_internal.h"

/* The largest p or |extra| taken, and the most elements of a tensor made. */
#define PAD_MAX ((int64_t)1 << 20)
#define PAD_MAX_NUMEL ((int64_t)1 << 26)

/* The inputs a padded form carries over: any other present input depends
 * on the S axes in a way this transform does not model. */
static int carried(int s)
{
    return s == FIA_SLOT_QUERY || s == FIA_SLOT_KEY || s == FIA_SLOT_VALUE ||
           s == FIA_SLOT_ATTEN_MASK || s == FIA_SLOT_ATTENTION_OUT ||
           s == FIA_SLOT_SOFTMAX_LSE;
}

/* The mask to move: 1 with its columns, rows and batch dim (the reading
 * of ref/keys_mask.c's shapes); 0 when there is none to move (absent,
 * empty, or modes 2-4's compressed one); -1 when it has no such shape. */
static int mask_geom(const fia_case *c, const fz_geom *g, int64_t *cols,
                     int64_t *rows, int64_t *bdim)
{
    const fia_tensor_spec *ms = &c->tensors[FIA_SLOT_ATTEN_MASK];
    const int decode = g->Q_S == 1;
    const int64_t sm = c->attrs.sparse_mode;
    if (ms->presence != FIA_PRESENT || ms->count < 1 || ms->t == NULL ||
        fia_tensor_numel(&ms->t[0]) <= 0 || (!decode && sm != 0 && sm != 1))
        return 0;
    const fia_tensor *mt = &ms->t[0];
    const int nd = mt->ndim;
    if (nd < 2 || nd > 4)
        return -1;
    *cols = mt->shape[nd - 1];
    *rows = decode ? 1 : mt->shape[nd - 2];
    *bdim = !decode && nd == 2 ? 1 : mt->shape[0];
    return *cols < g->KV_S || *rows < g->Q_S ||
                   (*bdim != 1 && *bdim != g->B)
               ? -1 : 1;
}

int fz_pad_applies(const fia_case *c, const fz_geom *g)
{
    int64_t cols, rows, bdim;
    if (c->live_rows || g->layout == FZ_OTHER || g->paged || g->list ||
        g->tnd || g->B < 1 || g->B > 65536 || g->N < 1 || g->D < 1 ||
        g->Q_S < 1 || g->KV_S < 0 || mask_geom(c, g, &cols, &rows, &bdim) < 0 ||
        c->arrays[FIA_ARR_ACTUAL_SHARED_PREFIX_LEN].presence == FIA_PRESENT)
        return 0;
    for (int s = 0; s < FIA_SLOT_COUNT; s++)
        if (!carried(s) && c->tensors[s].presence == FIA_PRESENT)
            return 0;
    for (int64_t b = 0; b < g->B; b++) {
        int64_t ql = fz_q_len(c, g, b), kl = fz_kv_len(c, g, b);
        if (ql < 0 || ql > g->Q_S || kl < 0 || kl > g->KV_S)
            return 0;
    }
    return 1;
}

static int64_t clamp32(int64_t x)
{
    return x > 2147483647LL ? 2147483647LL
           : x < -2147483648LL ? -2147483648LL : x;
}

/* The padded S of an axis whose longest length is most: the rows fit
 * before p padding rows with extra to spare, or (extra < 0) the longest
 * batches start |extra| rows below 0, S' staying >= most and >= lo. */
static int64_t padded_s(int64_t S, int64_t p, int64_t most, int64_t extra,
                        int64_t lo)
{
    if (extra >= 0)
        return (S > p + most ? S : p + most) + extra;
    int64_t s = p + most + extra;
    s = s > most ? s : most;
    return s > lo ? s : lo;
}

/* The value a padding tensor holds: p, or for p = 0 with the seed's bit
 * `bit` a negative value (read as 0). */
static double written(int64_t p, uint64_t seed, int bit, int64_t S)
{
    if (p != 0 || !((seed >> bit) & 1))
        return (double)p;
    switch ((seed >> 2) & 3) {
    case 0: return -1.0;
    case 1: return -(double)(2 + (int64_t)((seed >> 8) % 255));
    case 2: return -9223372036854775808.0; /* INT64_MIN */
    default: return -(double)(S + 1);
    }
}

typedef struct pad_plan {
    int qs, kvs;                 /* the scenes */
    int64_t Q_S, KV_S;           /* padded */
    int64_t *ql, *kl, *qst, *kst; /* lengths and starts per batch */
} pad_plan;

/* Slot s ([B, H, S, D] in g's layout) into *out as [B, H, S2, D], row i <
 * len[b] of batch b at start[b] + i (not placed when start[b] < 0), every
 * other element NaN. */
static fia_status move_rows(const fia_case *c, const fz_geom *g, fia_slot s,
                            int64_t H, int64_t S, int64_t S2,
                            const int64_t *len, const int64_t *start,
                            fia_case *out, fia_error *err)
{
    const fz_layout l = g->layout == FZ_BNSD_BSND ? FZ_BNSD : g->layout;
    const int64_t B = g->B, D = g->D, total = B * H * S2 * D;
    double *src, *dst;
    int64_t n;
    fia_status st = fz_slot_data(c, s, &src, &n, err);
    if (st != FIA_OK)
        return st;
    dst = malloc((size_t)(total > 0 ? total : 1) * sizeof *dst);
    if (dst == NULL) {
        free(src);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for a padded tensor");
    }
    for (int64_t i = 0; i < total; i++)
        dst[i] = NAN;
    for (int64_t b = 0; b < B; b++)
        for (int64_t h = 0; start[b] >= 0 && h < H; h++)
            for (int64_t i = 0; i < len[b]; i++)
                for (int64_t d = 0; d < D; d++)
                    dst[fz_index(l, B, H, S2, D, b, h, start[b] + i, d)] =
                        src[fz_index(l, B, H, S, D, b, h, i, d)];
    free(src);
    int64_t sh[4];
    int nd = fz_shape(l, B, H, S2, D, sh);
    if (fz_case_tensor(out, s, c->tensors[s].t[0].dtype, nd, sh) != FIA_OK) {
        free(dst);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for a padded tensor");
    }
    fz_case_values(out, s, dst, total);
    return FIA_OK;
}

/* The mask at the physical positions: [B, 1, Q_S', KV_S'] (decode [B, 1,
 * 1, KV_S']), 1 where no row reads; mode 0's band folded in.  Modes 2-4's
 * compressed mask and an absent or empty mask stay. */
static fia_status move_mask(const fia_case *c, const fz_geom *g,
                            const pad_plan *pl, fia_case *out, fia_error *err)
{
    int64_t cols, rows, bdim;
    const int has = mask_geom(c, g, &cols, &rows, &bdim);
    if (has <= 0)
        return has == 0 ? FIA_OK
                        : fia_fail(err, FIA_ERR_BAD_INPUT, "a mask of "
                                   "another shape");
    const int decode = g->Q_S == 1;
    const int64_t sm = c->attrs.sparse_mode;
    const fia_dtype mdt = c->tensors[FIA_SLOT_ATTEN_MASK].t[0].dtype;
    double *old;
    int64_t on;
    fia_status st = fz_slot_data(c, FIA_SLOT_ATTEN_MASK, &old, &on, err);
    if (st != FIA_OK)
        return st;
    const int64_t bstride = bdim == 1 ? 0 : on / bdim;
    const int64_t Q2 = pl->Q_S, K2 = pl->KV_S, n = g->B * Q2 * K2;
    double *m = malloc((size_t)(n > 0 ? n : 1) * sizeof *m);
    if (m == NULL) {
        free(old);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the mask");
    }
    for (int64_t k = 0; k < n; k++)
        m[k] = 1.0;
    const int band = !decode && sm == 0;
    const int64_t pre = clamp32(c->attrs.pre_tokens);
    const int64_t next = clamp32(c->attrs.next_tokens);
    for (int64_t b = 0; b < g->B; b++) {
        if (pl->qst[b] < 0 || pl->kst[b] < 0)
            continue;
        for (int64_t i = 0; i < pl->ql[b]; i++)
            for (int64_t j = 0; j < pl->kl[b]; j++) {
                int masked = old[b * bstride + i * cols + j] != 0.0 ||
                             (band && (j < i - pre || j > i + next));
                m[(b * Q2 + pl->qst[b] + i) * K2 + pl->kst[b] + j] = masked;
            }
    }
    free(old);
    int64_t sh[4] = {g->B, 1, Q2, K2};
    if (fz_case_tensor(out, FIA_SLOT_ATTEN_MASK, mdt, 4, sh) != FIA_OK) {
        free(m);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the mask");
    }
    fz_case_values(out, FIA_SLOT_ATTEN_MASK, m, n);
    return FIA_OK;
}

/* The outputs given explicitly take Q_S' (derived ones follow the query). */
static fia_status resize_outputs(const fia_case *c, const fz_geom *g,
                                 int64_t Q2, fia_case *out)
{
    const fia_tensor_spec *o = &c->tensors[FIA_SLOT_ATTENTION_OUT];
    const fia_tensor_spec *l = &c->tensors[FIA_SLOT_SOFTMAX_LSE];
    int64_t sh[4];
    if (o->presence == FIA_PRESENT && o->count >= 1) {
        int nd = fz_shape(fz_out_layout(g->layout), g->B, g->N, Q2, g->D, sh);
        if (fz_case_tensor(out, FIA_SLOT_ATTENTION_OUT, o->t[0].dtype, nd, sh) !=
            FIA_OK)
            return FIA_ERR_NOMEM;
    }
    if (l->presence == FIA_PRESENT && l->count >= 1) {
        int64_t lsh[4] = {g->B, g->N, Q2, 1};
        if (fz_case_tensor(out, FIA_SLOT_SOFTMAX_LSE, l->t[0].dtype, 4, lsh) !=
            FIA_OK)
            return FIA_ERR_NOMEM;
    }
    return FIA_OK;
}

/* A padding tensor int64 [1] of value v. */
static fia_status padding_tensor(fia_case *out, fia_slot s, double v)
{
    int64_t one = 1;
    double *val = malloc(sizeof *val);
    if (val == NULL || fz_case_tensor(out, s, FIA_DT_INT64, 1, &one) != FIA_OK) {
        free(val);
        return FIA_ERR_NOMEM;
    }
    *val = v;
    fz_case_values(out, s, val, 1);
    return FIA_OK;
}

static fia_status pad(const fia_case *c, const fz_geom *g, int64_t p_q,
                      int64_t p_kv, uint64_t seed, pad_plan *pl,
                      fia_case *out, fia_error *err);

fia_status fz_pad_case(const fia_case *c, const fz_geom *g, int64_t p_q,
                       int64_t p_kv, int64_t extra, uint64_t seed,
                       fia_case *out, fia_error *err)
{
    pad_plan pl;
    memset(&pl, 0, sizeof pl);
    pl.qs = p_q >= 0 && g->Q_S > 1;
    pl.kvs = p_kv >= 0;
    if (!fz_pad_applies(c, g) || (!pl.qs && !pl.kvs) || p_q > PAD_MAX ||
        p_kv > PAD_MAX || extra > PAD_MAX || extra < -PAD_MAX)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "the case has no left-padded "
                        "form (or no scene is asked for)");
    const int64_t B = g->B;
    int64_t *a = malloc((size_t)B * 4 * sizeof *a);
    if (a == NULL)
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the lengths");
    pl.ql = a, pl.kl = a + B, pl.qst = a + 2 * B, pl.kst = a + 3 * B;
    int64_t mq = 0, mk = 0;
    for (int64_t b = 0; b < B; b++) {
        pl.ql[b] = fz_q_len(c, g, b);
        pl.kl[b] = fz_kv_len(c, g, b);
        mq = pl.ql[b] > mq ? pl.ql[b] : mq;
        mk = pl.kl[b] > mk ? pl.kl[b] : mk;
    }
    /* a few more key rows than the query's, so the two axes differ */
    const int64_t kv_more = extra >= 0 ? (int64_t)((seed >> 4) & 3) : 0;
    pl.Q_S = pl.qs ? padded_s(g->Q_S, p_q, mq, extra, 2) : g->Q_S;
    pl.KV_S = pl.kvs ? padded_s(g->KV_S, p_kv, mk, extra + kv_more, 0)
                     : g->KV_S;
    for (int64_t b = 0; b < B; b++) {
        pl.qst[b] = pl.qs ? pl.Q_S - p_q - pl.ql[b] : 0;
        pl.kst[b] = pl.kvs ? pl.KV_S - p_kv - pl.kl[b] : 0;
    }
    fia_status st;
    if ((double)B * (double)(g->N > g->KV_N ? g->N : g->KV_N) * (double)g->D *
            (double)(pl.Q_S > pl.KV_S ? pl.Q_S : pl.KV_S) >
        (double)PAD_MAX_NUMEL)
        st = fia_fail(err, FIA_ERR_BAD_INPUT, "the padded form is too large");
    else
        st = pad(c, g, p_q, p_kv, seed, &pl, out, err);
    free(a);
    return st;
}

/* fz_pad_case once the plan is made. */
static fia_status pad(const fia_case *c, const fz_geom *g, int64_t p_q,
                      int64_t p_kv, uint64_t seed, pad_plan *pl,
                      fia_case *out, fia_error *err)
{
    fia_status st = move_rows(c, g, FIA_SLOT_QUERY, g->N, g->Q_S, pl->Q_S,
                              pl->ql, pl->qst, out, err);
    if (st == FIA_OK)
        st = move_rows(c, g, FIA_SLOT_KEY, g->KV_N, g->KV_S, pl->KV_S,
                       pl->kl, pl->kst, out, err);
    if (st == FIA_OK)
        st = move_rows(c, g, FIA_SLOT_VALUE, g->KV_N, g->KV_S, pl->KV_S,
                       pl->kl, pl->kst, out, err);
    if (st == FIA_OK)
        st = move_mask(c, g, pl, out, err);
    if (st != FIA_OK)
        return st;
    /* the scenes need their lengths (002): the old ones written out */
    const fia_int_array_spec *qa = &c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS];
    const fia_int_array_spec *ka = &c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    if ((pl->qs && qa->presence != FIA_PRESENT &&
         fz_case_array(out, FIA_ARR_ACTUAL_SEQ_LENGTHS, g->B, pl->ql) != FIA_OK) ||
        (pl->kvs && ka->presence != FIA_PRESENT &&
         fz_case_array(out, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, g->B, pl->kl) != FIA_OK) ||
        (pl->qs && padding_tensor(out, FIA_SLOT_QUERY_PADDING_SIZE,
                                  written(p_q, seed, 0, pl->Q_S)) != FIA_OK) ||
        (pl->kvs && padding_tensor(out, FIA_SLOT_KV_PADDING_SIZE,
                                   written(p_kv, seed, 1, pl->KV_S)) != FIA_OK) ||
        resize_outputs(c, g, pl->Q_S, out) != FIA_OK)
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the padded form");
    return FIA_OK;
}

/* "pad=<p_q>,<p_kv>,<seed>": *out (a copy of c) becomes the padded form. */
fia_status fz_meta_padding(const fia_case *c, const fz_geom *g,
                           const char *arg, fia_case *out, fia_error *err)
{
    long long p_q = 0, p_kv = 0;
    unsigned long long seed = 0;
    if (sscanf(arg, "%lld,%lld,%llu", &p_q, &p_kv, &seed) != 3)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "pad=%s: want "
                        "<p_q>,<p_kv>,<seed>", arg);
    return fz_pad_case(c, g, p_q, p_kv, (int64_t)((seed >> 6) & 3), seed, out,
                       err);
}
