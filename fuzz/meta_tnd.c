/* tnd (metamorphic, and fuzz_numeric's token-layout cases): a batched case
 * as the 003 token layout TND or NTD_TND.  The rows each batch reads are
 * packed one batch after another (T = the sum of the query lengths, T_kv
 * of the key/value lengths), the lengths become cumulative counts, and the
 * head dim is padded up to one the layout takes (128, or 192 past it):
 * query and key columns past D are 0 (every score stays what it was) and
 * value column d reads the old column d mod D, so output column d < D is
 * the old output.  Rows past a batch's length do not exist in the token
 * form; the relation compares the rows the documents define.
 *
 * The token layouts take sparse mode 0 without a mask, or 3 with the
 * optimized mask where each batch's query is shorter than its key/value
 * (003); a case outside that, or not bfloat16, is not equivalent to any
 * token-layout case: "tnd=<seed>" does not apply (fz_tnd_case with
 * exact 1), while fuzz_numeric (exact 0) drops its mask and rounds fp16
 * data to bf16 to get a valid call of its own, now and then leaves a
 * batch without query tokens, and now and then pads query and key to 192
 * over a value of 128 (value narrower than the query). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_internal.h"

/* The sparse setting the token form keeps: 0 (no mask), 3 (mask kept),
 * or -1 when the case's keys differ from both. */
static int token_sparse(const fia_case *c, const fz_geom *g)
{
    const fia_tensor_spec *m = &c->tensors[FIA_SLOT_ATTEN_MASK];
    int mask = m->presence == FIA_PRESENT && m->count > 0 &&
               fia_tensor_numel(&m->t[0]) > 0;
    int64_t sm = c->attrs.sparse_mode;
    if (g->Q_S == 1)
        return mask ? -1 : 0; /* the decode path ignores sparse */
    if (!mask)
        return sm == 0 ? 0 : -1;
    if (sm != 3)
        return -1;
    for (int64_t b = 0; b < g->B; b++)
        if (fz_q_len(c, g, b) >= fz_kv_len(c, g, b))
            return -1;
    return 3;
}

/* Packs rows (b, h, i < len[b]) of a [B, H, S, D] tensor of layout l into
 * a token tensor [Tt, H, Dt] (ntd: [H, Tt, Dt]); columns past D from
 * fill: 0 (zero) or column d mod D (repeat). */
static void pack(const double *src, fz_layout l, const fz_geom *g, int64_t H,
                 int64_t S, const int64_t *len, int64_t Tt, int64_t Dt,
                 int ntd, int repeat, double *dst)
{
    const int64_t D = g->D;
    for (int64_t b = 0, t0 = 0; b < g->B; t0 += len[b], b++)
        for (int64_t h = 0; h < H; h++)
            for (int64_t i = 0; i < len[b]; i++)
                for (int64_t d = 0; d < Dt; d++) {
                    int64_t t = t0 + i;
                    int64_t at = (ntd ? h * Tt + t : t * H + h) * Dt + d;
                    dst[at] = d < D || repeat
                        ? src[fz_index(l, g->B, H, S, D, b, h, i, d % D)]
                        : 0.0;
                }
}

/* One of query, key, value into *out as a token tensor, its columns past
 * D zero or (repeat) repeated. */
static fia_status put(const fia_case *c, const fz_geom *g, fia_slot s,
                      int64_t H, int64_t S, const int64_t *len, int64_t Tt,
                      int64_t Dt, int ntd, int repeat, fia_case *out,
                      fia_error *err)
{
    double *src = NULL, *dst = NULL;
    int64_t n, total = Tt * H * Dt;
    fia_status st = fz_slot_data(c, s, &src, &n, err);
    if (st != FIA_OK)
        return st;
    dst = malloc((size_t)(total > 0 ? total : 1) * sizeof *dst);
    if (dst == NULL) {
        free(src);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for a token tensor");
    }
    const fz_layout l = g->layout == FZ_BNSD_BSND ? FZ_BNSD : g->layout;
    pack(src, l, g, H, S, len, Tt, Dt, ntd, repeat, dst);
    free(src);
    int64_t sh[3] = {ntd ? H : Tt, ntd ? Tt : H, Dt};
    if (fz_case_tensor(out, s, FIA_DT_BF16, 3, sh) != FIA_OK) {
        free(dst);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for a token tensor");
    }
    fz_case_values(out, s, dst, total);
    return FIA_OK;
}

int fz_tnd_applies(const fia_case *c, const fz_geom *g, int exact)
{
    const fia_tensor_spec *q = &c->tensors[FIA_SLOT_QUERY];
    return !c->live_rows && g->B >= 1 && g->D <= 192 && g->D >= 1 &&
           q->presence == FIA_PRESENT && q->count == 1 &&
           (!exact ||
            (token_sparse(c, g) >= 0 && q->t[0].dtype == FIA_DT_BF16));
}

double fz_tnd_work(const fia_case *c, const fz_geom *g)
{
    double T = 0, longest = 0;
    for (int64_t b = 0; b < g->B; b++) {
        T += (double)fz_q_len(c, g, b);
        double kl = (double)fz_kv_len(c, g, b);
        longest = kl > longest ? kl : longest;
    }
    return 2.0 * T * (double)g->N * (g->D <= 128 ? 128.0 : 192.0) *
           (longest > 1 ? longest : 1);
}

fia_status fz_tnd_case(const fia_case *c, const fz_geom *g, uint64_t seed,
                       int exact, fia_case *out, fia_error *err)
{
    int sparse = token_sparse(c, g);
    if (!fz_tnd_applies(c, g, exact))
        return fia_fail(err, FIA_ERR_BAD_INPUT,
                        "the case has no token-layout form");
    if (sparse < 0) { /* fuzz_numeric: the keys of sparse 0, no mask */
        sparse = 0;
        fz_case_absent(out, FIA_SLOT_ATTEN_MASK);
    }
    const int64_t Dt = g->D <= 128 ? 128 : 192;
    const int ntd = Dt == 128 && (seed & 1); /* NTD_TND takes V_D 128 */
    /* fuzz_numeric: now and then (seed bit 7) query and key of 192 over a
     * value of 128 (003: TND and NTD_TND take 192/128).  Their columns past
     * D repeat the first ones rather than being zero: the reference judges
     * the case (no relation needs the scores kept), and a kernel that
     * reads the query's or key's last 64 columns from the wrong place must
     * change a score */
    const int64_t Dqk = !exact && Dt == 128 && (seed & 128) ? 192 : Dt;
    const int qk_repeat = Dqk != Dt;
    int64_t *len = malloc((size_t)g->B * 4 * sizeof *len);
    if (len == NULL)
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the lengths");
    int64_t *kvl = len + g->B, *cq = kvl + g->B, *ckv = cq + g->B;
    int64_t T = 0, T_kv = 0;
    /* fuzz_numeric: now and then a batch without query tokens (seed bit
     * 1; the last one every other time), which a batched decode case
     * never has: its rows must not be written */
    const int64_t empty = exact || !(seed & 2) ? -1
                          : (seed & 4) ? g->B - 1 : (int64_t)(seed >> 3) % g->B;
    for (int64_t b = 0; b < g->B; b++) {
        len[b] = b == empty ? 0 : fz_q_len(c, g, b);
        kvl[b] = fz_kv_len(c, g, b);
        cq[b] = T += len[b];
        ckv[b] = T_kv += kvl[b];
    }
    fia_status st = put(c, g, FIA_SLOT_QUERY, g->N, g->Q_S, len, T, Dqk,
                        ntd, qk_repeat, out, err);
    if (st == FIA_OK)
        st = put(c, g, FIA_SLOT_KEY, g->KV_N, g->KV_S, kvl, T_kv, Dqk, ntd,
                 qk_repeat, out, err);
    if (st == FIA_OK)
        st = put(c, g, FIA_SLOT_VALUE, g->KV_N, g->KV_S, kvl, T_kv, Dt, ntd,
                 1, out, err);
    if (st == FIA_OK &&
        (fz_case_array(out, FIA_ARR_ACTUAL_SEQ_LENGTHS, g->B, cq) != FIA_OK ||
         fz_case_array(out, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, g->B, ckv) != FIA_OK))
        st = fia_fail(err, FIA_ERR_NOMEM, "no memory for the lengths");
    free(len);
    if (st != FIA_OK)
        return st;
    fz_case_layout(out, ntd ? "NTD_TND" : "TND");
    fz_case_attr(out, FIA_ATTR_SPARSE_MODE, sparse);
    /* the outputs follow the layout (derived) */
    fz_case_absent(out, FIA_SLOT_ATTENTION_OUT);
    fz_case_absent(out, FIA_SLOT_SOFTMAX_LSE);
    return FIA_OK;
}

/* "tnd=<seed>": *out (a copy of c) becomes the token-layout form. */
fia_status fz_meta_tnd(const fia_case *c, const fz_geom *g, const char *arg,
                       fia_case *out, fia_error *err)
{
    unsigned long long seed = 0;
    if (sscanf(arg, "%llu", &seed) != 1)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "tnd=%s: want <seed>", arg);
    return fz_tnd_case(c, g, seed, 1, out, err);
}
