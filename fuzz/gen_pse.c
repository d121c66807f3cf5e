/* pse_shift in generated cases (docs/features/pse.md).
 *
 * fuzz_params: at the end of the list, now and then a pse_shift shaped for
 * the call's path — (B or 1, N, Q_S, KV_S) at Q_S > 1, (B or 1, N, 1,
 * KV_S) at Q_S = 1, KV_S the call's (a page table's blocks x block_size, a
 * list's longest tensor), S dims padded beyond the key's now and then (002
 * allows it), the query's dtype — with one of its rules broken now and
 * then: the other half-precision dtype, a batch neither B nor 1, other
 * heads, rank 3, S dims short of the query's or the key's, two rows at
 * Q_S = 1, or an empty tensor (absent).  With the padding, page tables and
 * lists the fragments before made, and the prefix after (which widens it),
 * valid calls of each kind.
 *
 * fuzz_numeric: at the end of the list, now and then a pse for any case
 * but a token layout's (and D % 16 at Q_S = 1): batch 1 or B, rows and
 * columns padded now and then, values where rows read them (at the
 * physical rows and columns under left padding, a prefix's keys first:
 * fz_pse_values) from a distribution that breaks kernels — normal, large
 * (the softmax saturates), -inf on some keys (weight 0), a row of -inf
 * (a NaN row, docs/semantics.md), a constant (only lse moves) — and where
 * no row reads NaN, +-inf or 0; now and then NaN where the mask excludes a
 * key (never read).
 * Fragment contract: fuzz/gen.h. */
#include <math.h>
#include <stdlib.h>
#include "fuzz/gen.h"

/* The call's key S a pse covers: a page table's reach or a list's longest
 * tensor (fz_geom_of_call), else the key's. */
static int64_t call_kv_s(const fz_gen *g)
{
    fz_geom cg;
    if (fz_geom_of_call(g->c, &cg) == 0 && (cg.paged || cg.list))
        return cg.KV_S;
    return g->KV_S;
}

void fz_params_pse(fz_gen *g)
{
    fz_bytes *f = g->f;
    if (!fz_bytes_rare(f, 10))
        return;
    const int decode = g->qs1;
    int64_t B = g->B > 0 ? g->B : 1, N = g->N > 0 ? g->N : 1;
    const int64_t kvs = call_kv_s(g);
    int64_t sh[4] = {fz_bytes_bool(f) ? B : 1, N, decode ? 1 : g->Q_S, kvs};
    if (fz_bytes_rare(f, 30)) /* padded past the key's S (not read) */
        sh[3] += fz_bytes_range(f, 1, 40);
    int nd = 4;
    fia_dtype dt = g->qdt == FIA_DT_BF16 ? FIA_DT_BF16 : FIA_DT_FP16;
    switch (fz_odd(g, 40) ? fz_bytes_pick(f, 7) : -1) {
    case 0: dt = dt == FIA_DT_FP16 ? FIA_DT_BF16 : FIA_DT_FP16; break;
    case 1: sh[0] = B + 1; break;
    /* one head too many, or one head for all (a shape users pass: the
     * documents ask N, the released code is reported to take it) */
    case 2: sh[1] = fz_bytes_bool(f) ? N + 1 : 1; break;
    case 3: nd = 3, sh[0] = N, sh[1] = sh[2], sh[2] = sh[3]; break;
    case 4:
        if (fz_bytes_bool(f) || decode)
            sh[3] = kvs - 1;
        else
            sh[2] = g->Q_S - 1;
        break;
    case 5: sh[2] = decode ? 2 : sh[2]; break;
    case 6: sh[2] = 0; break; /* empty: absent */
    default: break;
    }
    fz_note(g, fz_case_tensor(g->c, FIA_SLOT_PSE_SHIFT, dt, nd, sh));
}

/* ---- fuzz_numeric ----------------------------------------------------------- */

enum { PV_NORMAL, PV_LARGE, PV_NEGINF, PV_ROW, PV_CONST, PV_COUNT };

typedef struct pse_ctx {
    fuzz_rng rng;
    int kind;
    double sd, c;
    int64_t row_b, row_n, row_i; /* PV_ROW's row of -inf */
    const uint8_t *x;            /* excluded keys (NULL: none poisoned) */
    int64_t rows, kv;
} pse_ctx;

static double normal(fuzz_rng *r)
{
    double u = (fuzz_rng_next(r) >> 11) * 0x1p-53 + 0x1p-54;
    double v = (fuzz_rng_next(r) >> 11) * 0x1p-53;
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

static double pse_value(void *ctx, int64_t b, int64_t n, int64_t i, int64_t j)
{
    pse_ctx *p = ctx;
    if (p->x != NULL && p->x[(b * p->rows + i) * p->kv + j])
        return NAN; /* a key the mask excludes: never read */
    switch (p->kind) {
    case PV_LARGE:
        return (fuzz_rng_unit(&p->rng) * 2 - 1) * p->sd;
    case PV_NEGINF:
        return (j * 7 + b * 3 + n) % 5 == 1 ? -INFINITY
                                            : normal(&p->rng) * p->sd;
    case PV_ROW:
        if (b == p->row_b && n == p->row_n && i == p->row_i)
            return -INFINITY;
        return normal(&p->rng) * p->sd;
    case PV_CONST:
        return p->c;
    default:
        return normal(&p->rng) * p->sd;
    }
}

void fz_numeric_pse(fz_gen *g)
{
    fz_bytes *f = g->f;
    fia_case *c = g->c;
    /* the metamorphic target adds its pse to the second form (pse-zero=,
     * pse-mask=), reading no byte here */
    if (g->meta || c->live_rows || !fz_bytes_rare(f, 15))
        return;
    static const int w[PV_COUNT] = {34, 18, 20, 12, 16};
    pse_ctx p;
    p.kind = fz_bytes_weighted(f, w, PV_COUNT);
    const int batch1 = fz_bytes_bool(f);
    const int64_t xr = fz_bytes_rare(f, 30) ? fz_bytes_range(f, 1, 40) : 0;
    const int64_t xc = fz_bytes_rare(f, 30) ? fz_bytes_range(f, 1, 40) : 0;
    static const double unread[] = {NAN, INFINITY, -INFINITY, 0.0};
    const double un = unread[fz_bytes_pick(f, 4)];
    const int masked_nan = fz_bytes_rare(f, 20);
    const int pick = fz_bytes_u8(f);
    p.rng.s = fz_bytes_u64(f);
    fz_geom geom;
    /* a shared prefix at Q_S = 1 with a pse is not modeled (NM-008) */
    if (fz_geom_of_call(c, &geom) != 0 || geom.tnd ||
        (geom.Q_S == 1 && (geom.D % 16 != 0 ||
                           c->tensors[FIA_SLOT_KEY_SHARED_PREFIX].presence ==
                               FIA_PRESENT)) ||
        (g->qdt != FIA_DT_FP16 && g->qdt != FIA_DT_BF16))
        return;
    int64_t sh[4] = {batch1 ? 1 : geom.B, geom.N,
                     geom.Q_S == 1 ? 1 : geom.Q_S + xr,
                     geom.P + geom.KV_S + xc};
    sh[3] = sh[3] < 1 ? 1 : sh[3];
    /* a long decode row is where the released code is reported to lose a
     * -inf carried by pse (S around 768): there plain values give way to
     * -inf keys */
    if (geom.Q_S == 1 && geom.KV_S > 512 && p.kind == PV_NORMAL)
        p.kind = PV_NEGINF;
    const double numel = (double)sh[0] * sh[1] * sh[2] * sh[3];
    if (numel > (double)((int64_t)1 << 22))
        return;
    p.sd = p.kind == PV_LARGE ? (double[]){64, 1024, 30000}[pick % 3]
                              : (double[]){0.5, 1, 4}[pick % 3];
    p.c = (double[]){0, 1, -2.5, 40}[(pick >> 2) % 4];
    /* a pse of batch 1: the last batch writes the row last */
    p.row_b = batch1 ? geom.B - 1 : (pick >> 4) % geom.B;
    p.row_n = (pick >> 5) % geom.N;
    p.row_i = geom.Q_S == 1 ? 0 : (int64_t)(p.rng.s % (uint64_t)geom.Q_S);
    p.x = NULL, p.rows = geom.Q_S == 1 ? 1 : geom.Q_S;
    p.kv = geom.P + geom.KV_S;
    uint8_t *x = NULL;
    /* NaN where the mask excludes a key, when no other batch reads the
     * position (a pse of batch B) */
    if (masked_nan && !batch1 && fz_excluded_keys(c, &geom, &x) == FIA_OK)
        p.x = x;
    if (fz_case_tensor(c, FIA_SLOT_PSE_SHIFT, g->qdt, 4, sh) != FIA_OK) {
        free(x);
        fz_note(g, FIA_ERR_NOMEM);
        return;
    }
    if (p.kind == PV_CONST && un == 0.0 && p.x == NULL) {
        fz_case_gen(c, FIA_SLOT_PSE_SHIFT, FIA_GEN_CONST, p.c, 0);
        free(x);
        return;
    }
    double *v;
    fia_status st = fz_pse_values(c, &geom, sh, pse_value, &p, un, &v);
    free(x);
    if (st != FIA_OK) {
        fz_case_absent(c, FIA_SLOT_PSE_SHIFT);
        fz_note(g, st);
        return;
    }
    fz_case_values(c, FIA_SLOT_PSE_SHIFT, v, sh[0] * sh[1] * sh[2] * sh[3]);
}
