/* fast/ shared system prefix (docs/features/prefix.md): a plain call whose
 * first P keys of every batch are the same rows against its prefix form
 * (those rows in key_shared_prefix / value_shared_prefix, the own keys
 * moved up by P, actual_seq_lengths_kv reduced by P) give the same outputs
 * on every valid row, in every layout, on the prefill path (sparse 0 with
 * a mask and pre/next, 1, 2, 3, 4; a fully masked row, with and without
 * the row-invalid correction) and the decode path (fused and blocked,
 * split across threads or not), with P < S_p, P = 0 (a length 0 and an
 * empty prefix) and batches whose own keys are none.
 *
 * Bit for bit, except decode with B > 1: the prefill and a one-batch
 * decode walk the same logical keys in the same blocks (same KV_S' = P +
 * KV_S, same splits; a block across the prefix's end is gathered), so
 * every row's arithmetic is the plain call's.  Decode with B > 1 runs the
 * prefix once for all batches (its own tasks, then a merge): the online
 * softmax meets the keys in other groups, so P (rounded to the input dtype
 * before P.V against another running max) and the float sums differ by
 * rounding.  There the bound is: each weight p/l differs by at most twice
 * the dtype's unit roundoff u relatively (the rounding of p, in both
 * calls) plus float32 noise, so an output differs by at most
 * 2u * sum_j (p_j/l) |v_j| <= 2u * max|v| = 4u (|v| <= 2), plus one
 * rounding of each output (an ulp at the larger of the two); lse (float32
 * sums of the unrounded p) by 1e-5.  Measured differences are far below
 * (printed).
 *
 * With a pse_shift (with_pse, make_pse): one pse tensor for both calls,
 * since its column is the logical key's (prefix key j at j, own key j at
 * P + j) and its row the query row's own (batch, head, row), also in the
 * decode tasks of the prefix whose rows are every batch's; a pse of batch
 * B (a row reading another batch's pse shows) or of batch 1, -inf cells
 * (a row whose every key is -inf is NaN in both, also after the merge of
 * the prefix's partials), the same bounds.  Then the pse's width at Q_S =
 * 1 (M_PREFIX_PSE) and Q_S > 1 (S_PREFIX_PSE).
 *
 * NaN rows (and finite poison rows in a second pass: the decode kernel's
 * non-finite results are recomputed by the blocked loop, which NaN alone
 * would let hide a wrong read of its own) fill every row no call may read:
 * prefix rows P .. S_p - 1, own rows past each batch's length.  Guards
 * after attention_out and softmax_lse show writes outside them.  Then the
 * statuses (what is not modeled, a prefix without data).  Run once per ISA
 * level (CMakeLists.txt: ^test_fast). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/dtype.h"
#include "fia/fast.h"
#include "fast_testlib.h"
#include "fast_expect.h"

enum { MAXB = 4, GUARD = 64 };
#define SENT 0x5a5au
#define I32MAX 2147483647

static double to_double(fia_dtype dt, uint16_t h)
{
    return dt == FIA_DT_FP16 ? fia_fp16_to_float(h) : fia_bf16_to_float(h);
}

/* ---- one call of both phases ------------------------------------------- */
typedef struct api {
    const char *layout;
    int64_t N, KVN, sparse, pre, next, precise;
    fia_tensor q, k, v, out, lse, mask, kp, vp, pse;
    bool has_mask, has_prefix, has_plen, has_pse;
    fia_int_array aslkv, asl, plen;
    bool has_asl, has_aslkv;
} api;

static fia_status phase_one(api *a, fast_executor **ex, uint64_t *ws)
{
    const fia_tensor *kk[1] = {&a->k}, *vv[1] = {&a->v};
    fia_tensor_list kl = {1, kk}, vl = {1, vv};
    return fastFusedInferAttentionScoreV2GetWorkspaceSize(
        &a->q, &kl, &vl, a->has_pse ? &a->pse : NULL,
        a->has_mask ? &a->mask : NULL,
        a->has_asl ? &a->asl : NULL, a->has_aslkv ? &a->aslkv : NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, a->has_prefix ? &a->kp : NULL,
        a->has_prefix ? &a->vp : NULL, a->has_plen ? &a->plen : NULL, a->N,
        0.125, a->pre, a->next, a->layout, a->KVN, a->sparse, a->precise, 0,
        0, true, 0, 0, &a->out, &a->lse, ws, ex);
}

static fia_status run(api *a)
{
    fast_executor *ex = NULL;
    uint64_t wss = 0;
    fia_status st = phase_one(a, &ex, &wss);
    if (st != FIA_OK)
        return st;
    st = ftl_phase_two(ex, wss);
    return st;
}

static fia_status status_of(api *a)
{
    fast_executor *ex = NULL;
    uint64_t ws = 0;
    fia_status st = phase_one(a, &ex, &ws);
    fastExecutorDestroy(ex);
    return st;
}

static void expect(api *a, fia_status want, const char *id, int line)
{
    ftl_expect_status(status_of(a), want, id, NULL, line);
}

/* ---- a plain call and its prefix form ----------------------------------- */
typedef struct spec {
    const char *layout;
    fia_dtype dt;
    int B, N, KVN;
    int64_t D, QS, KVS;          /* KVS: the own keys' S (prefix form) */
    int64_t S_p, P;              /* P < 0: no length array (P = S_p) */
    const int64_t *qlen, *kvlen; /* own lengths; NULL: not passed */
    int mask;                    /* 1: a full mask (sparse 0 / 1) */
    int sparse;                  /* 2..4: the compressed causal mask */
    int64_t pre, next;
    int threads, precise;
    int pse;                     /* 1: a pse of batch B, 2: of batch 1 */
    bool ninf;                   /* -inf pse cells (make_pse) */
} spec;

typedef struct call {
    uint16_t *k, *v, *o;
    float *lse;
    int64_t nkv, no, nlse;
} call;

static call alloc_call(const spec *s, int64_t nb, int64_t S, int64_t nq)
{
    call c;
    c.nkv = nb * s->KVN * S * s->D, c.no = nq, c.nlse = s->B * s->N * s->QS;
    c.k = malloc((size_t)(c.nkv + 1) * 2), c.v = malloc((size_t)(c.nkv + 1) * 2);
    c.o = malloc((size_t)(c.no + GUARD) * 2);
    c.lse = malloc((size_t)(c.nlse + GUARD) * 4);
    for (int64_t i = 0; i < c.nkv; i++) c.k[i] = c.v[i] = ftl_poison(s->dt);
    for (int64_t i = 0; i < c.no + GUARD; i++) c.o[i] = SENT;
    for (int64_t i = 0; i < c.nlse + GUARD; i++) c.lse[i] = -7.0f;
    return c;
}

static void free_call(call *c)
{
    free(c->k), free(c->v), free(c->o), free(c->lse);
}

/* The api of one form: prefixed, the own keys and the prefix tensors. */
static api api_of(const spec *s, uint16_t *q, uint8_t *mask, call *c,
                  bool prefixed, int64_t *lens, int64_t *plen,
                  const call *pre)
{
    const bool bn = ftl_bnsd(s->layout);
    const int64_t P = s->P < 0 ? s->S_p : s->P;
    const int64_t S = prefixed ? s->KVS : P + s->KVS;
    api a = {.layout = s->layout, .N = s->N, .KVN = s->KVN,
             .sparse = s->sparse, .pre = s->pre, .next = s->next,
             .precise = s->precise};
    a.q = ftl_tensor(s->layout, bn, s->dt, s->B, s->N, s->QS, s->D, q);
    a.out = ftl_tensor(s->layout, strcmp(s->layout, "BNSD") == 0, s->dt,
                      s->B, s->N, s->QS, s->D, c->o);
    a.k = ftl_tensor(s->layout, bn, s->dt, s->B, s->KVN, S, s->D, c->k);
    a.v = ftl_tensor(s->layout, bn, s->dt, s->B, s->KVN, S, s->D, c->v);
    a.lse = (fia_tensor){.dtype = FIA_DT_FP32, .ndim = 4,
                         .shape = {s->B, s->N, s->QS, 1}, .data = c->lse};
    if (s->sparse >= 2) {
        a.has_mask = true;
        a.mask = (fia_tensor){.dtype = FIA_DT_BOOL, .ndim = 2,
                              .shape = {2048, 2048}, .data = mask};
    } else if (s->mask) {
        /* the plain call's [B, Q_S, KV_S'] is the prefix form's too: it
         * covers the prefix length + the key's S (PREFIX-009) */
        a.has_mask = true;
        a.mask = (fia_tensor){.dtype = FIA_DT_BOOL, .ndim = 3,
                              .shape = {s->B, s->QS, P + s->KVS},
                              .data = mask};
    }
    a.has_asl = s->qlen != NULL && s->QS > 1;
    a.asl = (fia_int_array){s->B, s->qlen};
    a.has_aslkv = s->kvlen != NULL;
    a.aslkv = (fia_int_array){s->B, lens};
    for (int b = 0; s->kvlen && b < s->B; b++)
        lens[b] = s->kvlen[b] + (prefixed ? 0 : P);
    if (prefixed) {
        a.has_prefix = true;
        a.kp = ftl_tensor(s->layout, bn, s->dt, 1, s->KVN, s->S_p, s->D,
                         pre->k);
        a.vp = ftl_tensor(s->layout, bn, s->dt, 1, s->KVN, s->S_p, s->D,
                         pre->v);
        a.has_plen = s->P >= 0;
        plen[0] = s->P;
        a.plen = (fia_int_array){1, plen};
    }
    return a;
}

/* The differences of one comparison. */
typedef struct diff {
    int64_t rows, lse, nonfinite, guards, nan_rows;
    double worst, worst_lse; /* tolerance mode: the largest seen */
} diff;

/* Row (b, n, i) of both calls: bit for bit, or within the bound of the
 * header (tol); want_nan (every key's pse -inf): NaN in both. */
static void compare_row(const spec *s, const call *x, const call *y,
                        int64_t b, int64_t n, int64_t i, bool tol,
                        bool want_nan, diff *d)
{
    const bool obn = strcmp(s->layout, "BNSD") == 0;
    const int64_t o = ftl_at(obn, s->N, s->QS, s->D, b, n, i);
    const int64_t l = (b * s->N + n) * s->QS + i;
    const double u = s->dt == FIA_DT_FP16 ? 0x1p-11 : 0x1p-8;
    bool bad = false;
    if (want_nan) {
        for (int64_t e = 0; e < s->D; e++)
            bad |= !isnan(to_double(s->dt, x->o[o + e])) ||
                   !isnan(to_double(s->dt, y->o[o + e]));
        d->lse += !isnan(x->lse[l]) || !isnan(y->lse[l]);
        d->rows += bad;
        d->nan_rows++;
        return;
    }
    for (int64_t e = 0; e < s->D; e++) {
        const double p = to_double(s->dt, x->o[o + e]);
        const double q = to_double(s->dt, y->o[o + e]);
        d->nonfinite += !isfinite(p);
        if (!tol) {
            bad |= x->o[o + e] != y->o[o + e];
            continue;
        }
        const double big = fabs(p) > fabs(q) ? fabs(p) : fabs(q);
        const double ulp = big < 0x1p-14 ? 0x1p-24 : u * 2 * exp2(floor(log2(big)));
        const double dd = fabs(p - q);
        d->worst = dd / (4 * u) > d->worst ? dd / (4 * u) : d->worst;
        bad |= !(dd <= 4 * u + ulp);
    }
    if (tol) {
        const double dl = fabs((double)x->lse[l] - (double)y->lse[l]);
        d->worst_lse = dl > d->worst_lse ? dl : d->worst_lse;
        d->lse += !(dl <= 1e-5) && !(x->lse[l] == y->lse[l]);
    } else {
        d->lse += memcmp(&x->lse[l], &y->lse[l], 4) != 0;
    }
    d->rows += bad;
}

/* ---- pse_shift with a prefix ------------------------------------------ */
/* pse.md: the pse column of logical key j is j (prefix key j at column j,
 * own key j at P + j), its row the query row's own (batch, head, row): the
 * plain call's pse is the prefix form's, one tensor for both.
 * [pb, N, Q_S + 2 (1 at Q_S = 1), P + KVS + 3]: values of [-4, 4) in the
 * cells of the keys a row reads (rows < q_len, keys < P + own), poison in
 * the others.  With ninf (a pse of batch B, no mask, every key in every
 * row's band), by head n % 4: 0 every key -inf (the row NaN), 1 the prefix
 * keys (a prefix split's partial whose every key dropped, merged with the
 * own keys'), 2 the own keys, 3 about a third. */
static uint16_t ninf16(fia_dtype dt)
{
    return dt == FIA_DT_FP16 ? 0xfc00u : 0xff80u;
}

static uint16_t *make_pse(const spec *s, int64_t P, const int64_t *ql,
                          const int64_t *kl, fia_tensor *t)
{
    const int64_t pb = s->pse == 2 ? 1 : s->B, N = s->N;
    const int64_t prow = s->QS > 1 ? s->QS + 2 : 1, pcol = P + s->KVS + 3;
    const int64_t np = pb * N * prow * pcol;
    uint16_t *p = malloc((size_t)np * 2);
    for (int64_t e = 0; e < np; e++) p[e] = ftl_poison(s->dt);
    int64_t mq = 0, mk = 0; /* a pse of batch 1: the longest batch's */
    for (int b = 0; b < s->B; b++) {
        mq = ql[b] > mq ? ql[b] : mq;
        mk = kl[b] > mk ? kl[b] : mk;
    }
    for (int64_t b = 0; b < pb; b++)
        for (int64_t n = 0; n < N; n++)
            for (int64_t i = 0; i < (pb == 1 ? mq : ql[b]); i++)
                for (int64_t j = 0; j < P + (pb == 1 ? mk : kl[b]); j++) {
                    const int pat = s->ninf ? (int)(n % 4) : -1;
                    const bool drop = pat == 0 || (pat == 1 && j < P) ||
                                      (pat == 2 && j >= P) ||
                                      (pat == 3 && ftl_next32() % 3 == 0);
                    const float x = ((float)(ftl_next32() % 8192) - 4096) / 1024;
                    p[((b * N + n) * prow + i) * pcol + j] =
                        drop ? ninf16(s->dt)
                        : s->dt == FIA_DT_FP16 ? fia_float_to_fp16(x)
                                               : fia_float_to_bf16(x);
                }
    *t = (fia_tensor){.dtype = s->dt, .ndim = 4,
                      .shape = {pb, N, prow, pcol}, .data = p};
    return p;
}

/* Every key of row (b, n, i) (keys of them) scored -inf. */
static bool row_nan(const spec *s, const fia_tensor *t, int64_t b,
                    int64_t n, int64_t i, int64_t keys)
{
    if (!s->ninf || keys == 0)
        return false;
    const uint16_t *p = t->data;
    const int64_t row = (((t->shape[0] == 1 ? 0 : b) * s->N + n) *
                         t->shape[2] + i) * t->shape[3];
    for (int64_t j = 0; j < keys; j++)
        if (p[row + j] != ninf16(s->dt))
            return false;
    return true;
}

static void prefix_vs_plain(const spec *s, const char *what)
{
    fastSetThreadCount(s->threads);
    const bool bn = ftl_bnsd(s->layout);
    const int64_t P = s->P < 0 ? s->S_p : s->P, SP = P + s->KVS;
    const int64_t B = s->B, N = s->N, KVN = s->KVN, D = s->D, QS = s->QS;
    int64_t ql[MAXB], kl[MAXB];
    for (int b = 0; b < B; b++) {
        ql[b] = QS == 1 ? 1 : s->qlen ? s->qlen[b] : QS;
        kl[b] = s->kvlen ? s->kvlen[b] : s->KVS;
    }
    const int64_t nq = B * N * QS * D;
    uint16_t *q = malloc((size_t)nq * 2);
    const int64_t nmask = s->sparse >= 2 ? 2048 * 2048 : B * QS * SP;
    uint8_t *mask = malloc((size_t)nmask + 1);
    call x = alloc_call(s, B, SP, nq), y = alloc_call(s, B, s->KVS, nq);
    call pre = alloc_call(s, 1, s->S_p, 0);
    for (int64_t e = 0; e < nq; e++) q[e] = ftl_rnd(s->dt);
    for (int64_t h = 0; h < KVN; h++)
        for (int64_t j = 0; j < P; j++)
            for (int64_t e = 0; e < D; e++) {
                const uint16_t kk = ftl_rnd(s->dt), vv = ftl_rnd(s->dt);
                pre.k[ftl_at(bn, KVN, s->S_p, D, 0, h, j) + e] = kk;
                pre.v[ftl_at(bn, KVN, s->S_p, D, 0, h, j) + e] = vv;
                for (int64_t b = 0; b < B; b++) {
                    x.k[ftl_at(bn, KVN, SP, D, b, h, j) + e] = kk;
                    x.v[ftl_at(bn, KVN, SP, D, b, h, j) + e] = vv;
                }
            }
    for (int64_t b = 0; b < B; b++)
        for (int64_t h = 0; h < KVN; h++)
            for (int64_t j = 0; j < kl[b]; j++)
                for (int64_t e = 0; e < D; e++) {
                    const uint16_t kk = ftl_rnd(s->dt), vv = ftl_rnd(s->dt);
                    x.k[ftl_at(bn, KVN, SP, D, b, h, P + j) + e] = kk;
                    x.v[ftl_at(bn, KVN, SP, D, b, h, P + j) + e] = vv;
                    y.k[ftl_at(bn, KVN, s->KVS, D, b, h, j) + e] = kk;
                    y.v[ftl_at(bn, KVN, s->KVS, D, b, h, j) + e] = vv;
                }
    if (s->sparse >= 2) /* the compressed causal mask */
        for (int64_t e = 0; e < nmask; e++)
            mask[e] = (e % 2048) > (e / 2048);
    else
        for (int64_t e = 0; e < nmask; e++)
            mask[e] = ftl_next32() % 4 == 0;
    if (s->mask && B > 1 && QS > 1) /* a row without a key */
        memset(mask + (1 * QS + 0) * SP, 1, (size_t)SP);
    int64_t lens1[MAXB], lens2[MAXB], plen[1];
    api plain = api_of(s, q, mask, &x, false, lens1, plen, NULL);
    api pfx = api_of(s, q, mask, &y, true, lens2, plen, &pre);
    fia_tensor pt = {0};
    uint16_t *pse = s->pse ? make_pse(s, P, ql, kl, &pt) : NULL;
    plain.has_pse = pfx.has_pse = pse != NULL;
    plain.pse = pfx.pse = pt;
    fia_status st1 = run(&plain), st2 = run(&pfx);
    CHECK_MSG(st1 == FIA_OK && st2 == FIA_OK, "%s: status %d / %d (%s)",
              what, st1, st2, fastLastError());
    /* decode with B > 1 and a prefix key: the prefix runs apart */
    const bool tol = QS == 1 && B > 1 && P > 0;
    diff d = {0};
    for (int64_t b = 0; b < B; b++)
        for (int64_t n = 0; n < N; n++)
            for (int64_t i = 0; i < ql[b]; i++)
                compare_row(s, &x, &y, b, n, i, tol,
                            row_nan(s, &pt, b, n, i, P + kl[b]), &d);
    for (int64_t e = 0; e < GUARD; e++)
        d.guards += (y.o[nq + e] != SENT) + (y.lse[y.nlse + e] != -7.0f);
    CHECK_MSG(d.rows == 0 && d.lse == 0 && d.nonfinite == 0 &&
              d.guards == 0 && (!s->ninf || d.nan_rows > 0),
              "%s %s %s%s B %d P %lld threads %d: %lld rows and %lld lse "
              "differ from the plain call's%s, %lld non-finite in the plain "
              "call, %lld guards overwritten, %lld NaN rows", what, s->layout,
              s->dt == FIA_DT_FP16 ? "fp16" : "bf16",
              s->pse == 2 ? " pse of batch 1" : s->pse ? " pse" : "", s->B,
              (long long)P, s->threads, (long long)d.rows, (long long)d.lse,
              tol ? " beyond the bound" : "", (long long)d.nonfinite,
              (long long)d.guards, (long long)d.nan_rows);
    if (tol && getenv("FIA_TEST_VERBOSE"))
        printf("%s%s %s: worst %.3g of the bound 4u, lse %.3g\n", what,
               s->pse ? " (pse)" : "", s->dt == FIA_DT_FP16 ? "fp16" : "bf16",
               d.worst, d.worst_lse);
    free(q), free(mask), free(pse);
    free_call(&x), free_call(&y), free_call(&pre);
    fastSetThreadCount(0);
}

static const char *const layouts[] = {"BSH", "BSND", "BNSD", "BNSD_BSND"};

/* Prefill: Q_S 100 (two query blocks of 64 rows under GQA 2), own KV_S
 * 150, a prefix of 37 rows of S_p 45 (its end inside a key block); one
 * batch without own keys; sparse 3 with q_len > own length but not >
 * P + own (batch 1), and > both (batch 2: its own correction). */
static void prefill(void)
{
    static const int64_t ql[3] = {97, 61, 60}, kl[3] = {150, 40, 0};
    static const int64_t kl2[3] = {150, 5, 0};
    for (int l = 0; l < 4; l++) {
        spec s = {.layout = layouts[l], .dt = l % 2 ? FIA_DT_BF16
                                                    : FIA_DT_FP16,
                  .B = 3, .N = 4, .KVN = 2, .D = 64, .QS = 100, .KVS = 150,
                  .S_p = 45, .P = 37, .qlen = ql, .kvlen = kl,
                  .pre = I32MAX, .next = I32MAX, .threads = 2,
                  .precise = 1};
        prefix_vs_plain(&s, "prefill, no mask");
        s.mask = 1, s.pre = 30, s.next = 5;
        prefix_vs_plain(&s, "sparse 0, mask, pre/next");
        s.precise = 2 + (l % 2 == 0); /* the row-invalid correction */
        prefix_vs_plain(&s, "sparse 0, mask, row-invalid");
        s.precise = 1, s.sparse = 1, s.threads = 1;
        prefix_vs_plain(&s, "sparse 1");
        s.mask = 0, s.sparse = 2, s.pre = s.next = I32MAX;
        prefix_vs_plain(&s, "sparse 2");
        s.sparse = 3;
        prefix_vs_plain(&s, "sparse 3");
        s.kvlen = kl2;
        prefix_vs_plain(&s, "sparse 3, q_len > P + own");
        s.kvlen = kl, s.sparse = 4, s.pre = 20, s.next = 2, s.threads = 2;
        prefix_vs_plain(&s, "sparse 4");
        /* the prefix's length a whole number of key blocks, no lengths */
        s.S_p = 64, s.P = -1, s.kvlen = NULL, s.qlen = NULL;
        prefix_vs_plain(&s, "sparse 4, P = S_p = 64");
        s.sparse = 0, s.pre = s.next = I32MAX;
        prefix_vs_plain(&s, "P = S_p = 64");
    }
}

/* Decode: one batch (the per-batch path: every logical key in the plain
 * call's blocks and splits; P = 37, the prefix's end inside a block of 16,
 * gathered) and several (the prefix's tasks: the fused kernel for few
 * rows, the tiled one for B x group > 8, a full tile at 16), split across
 * threads or not; D = 40 (no fused kernel: the blocked loop). */
static void decode(void)
{
    static const int64_t kl[3] = {300, 0, 17}, kl1[1] = {300};
    for (int l = 0; l < 3; l++) { /* BNSD_BSND needs Q_S > 1 */
        spec s = {.layout = layouts[l], .dt = l % 2 ? FIA_DT_FP16
                                                    : FIA_DT_BF16,
                  .B = 1, .N = 4, .KVN = 2, .D = 64, .QS = 1, .KVS = 300,
                  .S_p = 45, .P = 37, .kvlen = kl1, .pre = I32MAX,
                  .next = I32MAX, .threads = 3, .precise = 1};
        prefix_vs_plain(&s, "decode, one batch, split");
        s.threads = 1;
        prefix_vs_plain(&s, "decode, one batch");
        s.D = 40, s.threads = 2;
        prefix_vs_plain(&s, "decode, one batch, D 40");
        s.B = 3, s.kvlen = kl;
        prefix_vs_plain(&s, "decode, D 40");
        s.D = 64, s.threads = 3;
        prefix_vs_plain(&s, "decode, 6 rows a KV head");
        s.threads = 1, s.precise = 0;
        prefix_vs_plain(&s, "decode, one thread");
        s.N = 8, s.threads = 2, s.S_p = s.P = 200;
        prefix_vs_plain(&s, "decode, 12 rows a KV head");
        s.N = 16, s.B = 2, s.P = -1, s.kvlen = NULL;
        prefix_vs_plain(&s, "decode, 16 rows a KV head");
        s.N = s.KVN = 2, s.B = 4, s.S_p = 1000, s.P = 999, s.threads = 3;
        prefix_vs_plain(&s, "decode, no GQA, long prefix");
    }
}

/* pse_shift with a prefix (make_pse): prefill bit for bit (no mask,
 * -inf cells, a pse of batch 1, sparse 0 with a mask, 3, 4 at P = S_p =
 * 64); decode with one batch bit for bit, with several within the bound
 * (the prefix's tasks, whose rows are every batch's and read their own
 * batch's pse row: the fused kernel at 6 rows a KV head, the tiled loop at
 * 12 and 16, split across threads or not, a long prefix in several
 * splits, -inf cells: a prefix split whose keys all dropped merged with
 * the own keys', rows whose every key dropped NaN after the merge). */
static void with_pse(void)
{
    static const int64_t ql[3] = {97, 61, 60}, kl[3] = {150, 40, 0};
    static const int64_t dkl[3] = {300, 0, 17}, dkl1[1] = {300};
    for (int l = 0; l < 4; l++) {
        spec s = {.layout = layouts[l], .dt = l % 2 ? FIA_DT_BF16
                                                    : FIA_DT_FP16,
                  .B = 3, .N = 4, .KVN = 2, .D = 64, .QS = 100, .KVS = 150,
                  .S_p = 45, .P = 37, .qlen = ql, .kvlen = kl,
                  .pre = I32MAX, .next = I32MAX, .threads = 2,
                  .precise = 1, .pse = 1};
        prefix_vs_plain(&s, "prefill");
        s.ninf = true;
        prefix_vs_plain(&s, "prefill, -inf");
        s.ninf = false, s.pse = 2;
        prefix_vs_plain(&s, "prefill");
        s.pse = 1, s.mask = 1, s.pre = 30, s.next = 5;
        prefix_vs_plain(&s, "sparse 0, mask, pre/next");
        s.mask = 0, s.sparse = 3, s.pre = s.next = I32MAX, s.threads = 1;
        prefix_vs_plain(&s, "sparse 3");
        s.sparse = 4, s.pre = 20, s.next = 2, s.threads = 2;
        s.S_p = 64, s.P = -1, s.kvlen = NULL, s.qlen = NULL;
        prefix_vs_plain(&s, "sparse 4, P = S_p = 64");
        if (l == 3)
            continue; /* BNSD_BSND needs Q_S > 1 */
        spec d = {.layout = layouts[l], .dt = l % 2 ? FIA_DT_FP16
                                                    : FIA_DT_BF16,
                  .B = 1, .N = 4, .KVN = 2, .D = 64, .QS = 1, .KVS = 300,
                  .S_p = 45, .P = 37, .kvlen = dkl1, .pre = I32MAX,
                  .next = I32MAX, .threads = 3, .precise = 1, .pse = 1};
        prefix_vs_plain(&d, "decode, one batch, split");
        d.threads = 1;
        prefix_vs_plain(&d, "decode, one batch");
        d.B = 3, d.kvlen = dkl;
        prefix_vs_plain(&d, "decode, 6 rows a KV head");
        d.ninf = true;
        prefix_vs_plain(&d, "decode, -inf");
        d.threads = 3;
        prefix_vs_plain(&d, "decode, -inf, split");
        d.ninf = false, d.pse = 2;
        prefix_vs_plain(&d, "decode, split");
        d.pse = 1, d.N = 8, d.threads = 2, d.S_p = d.P = 200;
        prefix_vs_plain(&d, "decode, 12 rows a KV head");
        d.ninf = true;
        prefix_vs_plain(&d, "decode, 12 rows a KV head, -inf");
        d.ninf = false, d.N = 16, d.B = 2, d.P = -1, d.kvlen = NULL;
        prefix_vs_plain(&d, "decode, 16 rows a KV head");
        d.N = d.KVN = 2, d.B = 4, d.S_p = 1000, d.P = 999, d.threads = 3;
        prefix_vs_plain(&d, "decode, no GQA, long prefix");
        d.ninf = true;
        prefix_vs_plain(&d, "decode, no GQA, long prefix, -inf");
    }
}

/* No prefix key: S_p = 0, or a length 0 (a prefix of rows not read); the
 * plain call is the prefix form without the prefix.  A batch of no key at
 * all is the empty sequence (zeros).  And the other way round: no own key
 * (key S 0), the prefix's keys alone. */
static void no_prefix_key(void)
{
    static const int64_t ql[3] = {97, 61, 17}, kl[3] = {150, 0, 9};
    static const int64_t dkl[3] = {300, 0, 17};
    for (int l = 0; l < 4; l += 3) {
        spec s = {.layout = layouts[l], .dt = FIA_DT_BF16, .B = 3, .N = 4,
                  .KVN = 2, .D = 64, .QS = 100, .KVS = 150, .S_p = 0,
                  .P = -1, .qlen = ql, .kvlen = kl, .sparse = 3,
                  .pre = I32MAX, .next = I32MAX, .threads = 2,
                  .precise = 1};
        s.mask = 0;
        prefix_vs_plain(&s, "S_p = 0");
        s.S_p = 20, s.P = 0;
        prefix_vs_plain(&s, "a length 0");
    }
    /* no own key at all (key S 0): the prefix's keys alone */
    spec e = {.layout = "BSND", .dt = FIA_DT_BF16, .B = 3, .N = 4, .KVN = 2,
              .D = 64, .QS = 100, .KVS = 0, .S_p = 90, .P = 77, .qlen = ql,
              .sparse = 3, .pre = I32MAX, .next = I32MAX, .threads = 2,
              .precise = 1};
    prefix_vs_plain(&e, "key S 0");
    e.QS = 1, e.sparse = 0, e.qlen = NULL;
    prefix_vs_plain(&e, "decode, key S 0");
    e.B = 1;
    prefix_vs_plain(&e, "decode, one batch, key S 0");
    spec d = {.layout = "BNSD", .dt = FIA_DT_FP16, .B = 3, .N = 4, .KVN = 2,
              .D = 64, .QS = 1, .KVS = 300, .S_p = 20, .P = 0, .kvlen = dkl,
              .pre = I32MAX, .next = I32MAX, .threads = 3, .precise = 1};
    prefix_vs_plain(&d, "decode, a length 0");
    d.S_p = 0, d.P = -1;
    prefix_vs_plain(&d, "decode, S_p = 0");
}

/* ---- statuses ---------------------------------------------------------- */
static int64_t one[1] = {1}, lens_kv[2] = {40, 20}, cum[2] = {4, 7};

/* BNSD fp16 shapes without data. */
static api small(int64_t qs)
{
    api a = {.layout = "BNSD", .N = 4, .KVN = 2, .pre = I32MAX,
             .next = I32MAX, .precise = 1};
    a.q = a.out = ftl_tensor("BNSD", true, FIA_DT_FP16, 2, 4, qs, 64, NULL);
    a.k = a.v = ftl_tensor("BNSD", true, FIA_DT_FP16, 2, 2, 40, 64, NULL);
    a.kp = a.vp = ftl_tensor("BNSD", true, FIA_DT_FP16, 1, 2, 8, 64, NULL);
    a.lse = (fia_tensor){.dtype = FIA_DT_FP32, .ndim = 4,
                         .shape = {2, 4, qs, 1}};
    a.plen = (fia_int_array){1, one};
    return a;
}

static void statuses(void)
{
    const fia_status NM = FIA_ERR_NOT_MODELED;
    /* computed: prefill and decode, with a length, with a mask at Q_S > 1
     * (covering P + KV_S) */
    api a = small(4);
    a.has_prefix = true;
    expect(&a, FIA_OK, NULL, __LINE__);
    a.has_plen = true;
    expect(&a, FIA_OK, NULL, __LINE__);
    a.has_mask = true;
    a.mask = (fia_tensor){.dtype = FIA_DT_BOOL, .ndim = 3,
                          .shape = {2, 4, 41}};
    expect(&a, FIA_OK, NULL, __LINE__);
    a.mask.shape[2] = 40; /* PREFIX-009 */
    expect(&a, FIA_ERR_PARAM_INVALID, "S_PREFIX_MASK", __LINE__);
    api d = small(1);
    d.has_prefix = d.has_plen = true;
    expect(&d, FIA_OK, NULL, __LINE__);
    /* Q_S = 1 with a mask: not modeled (an empty mask is absent), also
     * when no prefix key is read */
    d.has_mask = true;
    d.mask = (fia_tensor){.dtype = FIA_DT_BOOL, .ndim = 2, .shape = {2, 48}};
    expect(&d, NM, "M_PREFIX_MASK", __LINE__);
    d.has_plen = false;
    d.kp.shape[2] = d.vp.shape[2] = 0;
    expect(&d, NM, "M_PREFIX_MASK", __LINE__);
    d.mask.shape[1] = 0;
    expect(&d, FIA_OK, NULL, __LINE__);
    /* actual_shared_prefix_len alone: not modeled */
    api l = small(4);
    l.has_plen = true;
    expect(&l, NM, "M_PREFIX_LEN", __LINE__);
    l.has_aslkv = true, l.aslkv = (fia_int_array){2, lens_kv};
    expect(&l, NM, "M_PREFIX_LEN", __LINE__);
    /* a token layout (bf16, D 128: 003): not modeled */
    api t = small(4);
    t.layout = "TND";
    t.q = t.out = (fia_tensor){.dtype = FIA_DT_BF16, .ndim = 3,
                               .shape = {7, 4, 128}};
    t.k = t.v = (fia_tensor){.dtype = FIA_DT_BF16, .ndim = 3,
                             .shape = {60, 2, 128}};
    t.lse = (fia_tensor){.dtype = FIA_DT_FP32, .ndim = 3, .shape = {7, 4, 1}};
    t.has_asl = t.has_aslkv = true;
    t.asl = (fia_int_array){2, cum};
    t.aslkv = (fia_int_array){2, (int64_t[]){40, 60}};
    expect(&t, FIA_OK, NULL, __LINE__);
    t.has_prefix = true;
    t.kp = t.vp = (fia_tensor){.dtype = FIA_DT_BF16, .ndim = 3,
                               .shape = {8, 2, 128}};
    expect(&t, NM, "M_PREFIX_LAYOUT", __LINE__);
    t.layout = "NTD_TND";
    t.q = (fia_tensor){.dtype = FIA_DT_BF16, .ndim = 3, .shape = {4, 7, 128}};
    t.k = t.v = (fia_tensor){.dtype = FIA_DT_BF16, .ndim = 3,
                             .shape = {2, 60, 128}};
    expect(&t, NM, "M_PREFIX_LAYOUT", __LINE__);
    /* a pse covers P + KV_S: rejected at Q_S > 1 (PREFIX-010), not modeled
     * at Q_S = 1 (its rule asks KV_S columns; fast/ reads P + KV_S) */
    for (int qs = 1; qs <= 4; qs += 3) {
        api ps = small(qs);
        ps.has_prefix = ps.has_plen = ps.has_pse = true; /* P = 1 */
        ps.pse = (fia_tensor){.dtype = FIA_DT_FP16, .ndim = 4,
                              .shape = {2, 4, qs, 41}};
        expect(&ps, FIA_OK, NULL, __LINE__);
        ps.pse.shape[3] = 40;
        expect(&ps, qs == 1 ? NM : FIA_ERR_PARAM_INVALID,
               qs == 1 ? "M_PREFIX_PSE" : "S_PREFIX_PSE", __LINE__);
        ps.plen.values = (int64_t[]){0}; /* no prefix key */
        expect(&ps, FIA_OK, NULL, __LINE__);
        ps.has_plen = false, ps.pse.shape[3] = 47; /* P = S_p = 8 */
        expect(&ps, qs == 1 ? NM : FIA_ERR_PARAM_INVALID, NULL, __LINE__);
        ps.pse.shape[3] = 48;
        expect(&ps, FIA_OK, NULL, __LINE__);
    }
    /* the rules before: one tensor alone, a length beyond S_p */
    api r = small(1);
    r.has_prefix = true, r.has_plen = true, r.plen.values = (int64_t[]){9};
    expect(&r, FIA_ERR_PARAM_INVALID, "S_PREFIX_LEN", __LINE__);
}

/* A prefix without data: 361001 before anything is written when a prefix
 * key is read, nothing read when none is. */
static void no_data(void)
{
    static const int64_t kl[2] = {40, 3};
    spec s = {.layout = "BSND", .dt = FIA_DT_FP16, .B = 2, .N = 4, .KVN = 2,
              .D = 64, .QS = 3, .KVS = 40, .S_p = 8, .P = 5, .kvlen = kl,
              .pre = I32MAX, .next = I32MAX, .threads = 2, .precise = 1};
    const int64_t nq = 2 * 4 * 3 * 64;
    uint16_t *q = calloc((size_t)nq, 2);
    call y = alloc_call(&s, 2, 40, nq), pre = alloc_call(&s, 1, 8, 0);
    int64_t lens[2], plen[1];
    api a = api_of(&s, q, NULL, &y, true, lens, plen, &pre);
    for (int w = 0; w < 2; w++) {
        a.kp.data = w ? pre.k : NULL;
        a.vp.data = w ? NULL : pre.v;
        CHECK_EQ_INT(run(&a), FIA_ERR_RUNTIME_ERROR);
        CHECK_MSG(strncmp(fastLastError(), "R_NO_DATA", 9) == 0, "%s",
                  fastLastError());
        CHECK(y.o[0] == SENT && y.o[nq - 1] == SENT);
    }
    a.kp.data = a.vp.data = NULL;
    plen[0] = 0;
    CHECK_EQ_INT(run(&a), FIA_OK);
    free(q), free_call(&y), free_call(&pre);
}

int main(void)
{
    prefill();
    decode();
    with_pse();
    ftl_poison_finite = true;
    prefill();
    decode();
    with_pse();
    ftl_poison_finite = false;
    no_prefix_key();
    statuses();
    no_data();
    return check_summary();
}
