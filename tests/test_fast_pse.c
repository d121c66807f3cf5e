/* fast/ pse_shift (docs/features/pse.md): the bias added in float32 after
 * the scale, before the mask and the max, on the prefill tile path (qk_t
 * and the pse_bias kernel, the fused softmax or the masked one, the dot form)
 * and the decode path (the fused decode kernel with its bias, the blocked
 * loop with a mask, split across threads).  A logical model of a call
 * (rows, keys, lengths, pse per batch) is laid out in a layout, with or
 * without left padding (pse at the physical row q_start + i, column
 * kv_start + j), as a pse of batch 1 or B, with S dims larger than (Q_S,
 * KV_S); every element no call may read is NaN (q, k, v rows past the
 * lengths or before the starts, pse cells outside the keys read), so a
 * wrong read shows in the outputs of the next comparison.  Exact-size
 * buffers: ASan sees a read past any tensor.
 *   - pse of zeros == no pse, bit for bit (fp16: against inner_precise 0);
 *   - against a naive binary64 attention with the pse (the bias's row,
 *     column, head and batch, and that it comes after the scale);
 *   - a constant c per row: the outputs of no pse, lse + c;
 *   - -inf on some keys == a mask excluding them; every key -inf: NaN;
 *     +inf or NaN: the row NaN;
 *   - batch 1 == the same pse repeated per batch; padded S dims and
 *     cells past the lengths not read; left padding == right padding;
 *   - fp16: high precision forced (a pse of zeros at inner_precise 1 ==
 *     no pse at inner_precise 0, != no pse at inner_precise 1);
 *   - decode split across threads == one thread (within rounding);
 *   - page attention and tensor lists (column = logical key) == the
 *     contiguous call; statuses (no data, empty pse).
 * Run once per ISA level (CMakeLists.txt: ^test_fast). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/dtype.h"
#include "fia/fast.h"
#include "fast_testlib.h"
#include "test_rng.h"

enum { B = 3, N = 4, KVN = 2, D = 64 };
#define I32MAX 2147483647
#define SCALE 0.125

static uint64_t rng = 0x2545f4914f6cdd1dull;
static double urand(void) { return test_lcg64_unit(&rng); }

static uint16_t to16(fia_dtype dt, double x)
{
    return dt == FIA_DT_FP16 ? fia_double_to_fp16(x) : fia_double_to_bf16(x);
}
static double from16(fia_dtype dt, uint16_t h)
{
    return dt == FIA_DT_FP16 ? fia_fp16_to_double(h) : fia_bf16_to_double(h);
}
static uint16_t nan16(fia_dtype dt)
{
    return dt == FIA_DT_FP16 ? 0x7e00 : 0x7fc0;
}
static uint16_t ninf16(fia_dtype dt)
{
    return dt == FIA_DT_FP16 ? 0xfc00 : 0xff80;
}
static uint16_t pinf16(fia_dtype dt)
{
    return dt == FIA_DT_FP16 ? 0x7c00 : 0x7f80;
}

/* ---- the logical model of a call ------------------------------------- */
typedef struct model {
    fia_dtype dt;
    int64_t QS, KVS;
    int64_t ql[B], kl[B];   /* lengths (Q_S = 1: ql 1) */
    uint16_t *q, *k, *v;    /* [B][N][QS][D], [B][KVN][KVS][D] */
    uint16_t *pse;          /* [B][N][QS][KVS]; NULL: no pse */
    uint8_t *mask;          /* [B][QS][KVS]; NULL: none */
} model;

static int64_t qi(const model *m, int64_t b, int64_t n, int64_t i)
{
    return ((b * N + n) * m->QS + i) * D;
}
static int64_t ki(const model *m, int64_t b, int64_t h, int64_t j)
{
    return ((b * KVN + h) * m->KVS + j) * D;
}
static int64_t pi(const model *m, int64_t b, int64_t n, int64_t i, int64_t j)
{
    return ((b * N + n) * m->QS + i) * m->KVS + j;
}

/* Random rows; pse values in [-4, 4) (the same for every batch when
 * same_b, for a pse of batch 1). */
static model make_model(fia_dtype dt, int64_t QS, int64_t KVS,
                        const int64_t *ql, const int64_t *kl, bool same_b)
{
    model m = {.dt = dt, .QS = QS, .KVS = KVS};
    for (int b = 0; b < B; b++)
        m.ql[b] = QS == 1 ? 1 : ql ? ql[b] : QS, m.kl[b] = kl ? kl[b] : KVS;
    const int64_t nq = B * N * QS * D, nk = B * KVN * KVS * D;
    const int64_t np = B * N * QS * KVS;
    m.q = malloc((size_t)nq * 2), m.k = malloc((size_t)nk * 2);
    m.v = malloc((size_t)nk * 2), m.pse = malloc((size_t)np * 2);
    for (int64_t i = 0; i < nq; i++) m.q[i] = to16(dt, 4 * urand() - 2);
    for (int64_t i = 0; i < nk; i++)
        m.k[i] = to16(dt, 4 * urand() - 2), m.v[i] = to16(dt, 4 * urand() - 2);
    for (int64_t i = 0; i < np; i++)
        m.pse[i] = same_b && i >= N * QS * KVS ? m.pse[i % (N * QS * KVS)]
                                               : to16(dt, 8 * urand() - 4);
    return m;
}

static model copy_model(const model *a)
{
    model m = *a;
    const size_t nq = (size_t)(B * N * a->QS * D) * 2;
    const size_t nk = (size_t)(B * KVN * a->KVS * D) * 2;
    const size_t np = (size_t)(B * N * a->QS * a->KVS) * 2;
    m.q = malloc(nq), m.k = malloc(nk), m.v = malloc(nk), m.pse = malloc(np);
    memcpy(m.q, a->q, nq), memcpy(m.k, a->k, nk), memcpy(m.v, a->v, nk);
    memcpy(m.pse, a->pse, np);
    m.mask = NULL;
    if (a->mask) {
        m.mask = malloc((size_t)(B * a->QS * a->KVS));
        memcpy(m.mask, a->mask, (size_t)(B * a->QS * a->KVS));
    }
    return m;
}

static void free_model(model *m)
{
    free(m->q), free(m->k), free(m->v), free(m->pse), free(m->mask);
}

/* ---- how the model is passed ------------------------------------------ */
typedef struct form {
    const char *layout;
    bool pse;             /* pass the pse */
    bool pse_b1;          /* as a pse of batch 1 (batch 0's values) */
    int64_t xrows, xcols; /* pse S dims past (Q_S, KV_S), NaN */
    bool left;            /* left padding (query scene at Q_S > 1, kv) */
    bool lens;            /* pass the lengths */
    int sparse;           /* 0 (the mask bits when the model has them) or 3 */
    int inner_precise;
    int threads;
    bool list;            /* key/value as B tensors */
    int64_t block_size;   /* page attention (0: contiguous) */
} form;

typedef struct result {
    uint16_t *o; /* [B][N][QS][D] logical, rows past the lengths zero */
    float *lse;  /* [B][N][QS] */
    int status;
} result;

#define PADQ 3 /* query_padding_size */
#define PADKV 5 /* kv_padding_size */

/* Runs the model as form f: physical buffers full of NaN, the model's rows
 * and pse cells at their physical places, both phases, the outputs read
 * back at the logical rows. */
static result run(const model *m, const form *f)
{
    const fia_dtype dt = m->dt;
    const bool bn = ftl_bnsd(f->layout), dec = m->QS == 1;
    const int64_t QS = m->QS, KVS = m->KVS;
    int64_t qs[B], ks[B];
    for (int b = 0; b < B; b++) {
        qs[b] = f->left && !dec ? QS - PADQ - m->ql[b] : 0;
        ks[b] = f->left ? KVS - PADKV - m->kl[b] : 0;
    }
    const int64_t nq = B * N * QS * D, nk = B * KVN * KVS * D;
    const int64_t pb = f->pse_b1 ? 1 : B, prow = dec ? 1 : QS + f->xrows;
    const int64_t pcol = KVS + f->xcols, np = pb * N * prow * pcol;
    uint16_t *q = malloc((size_t)nq * 2), *k = malloc((size_t)nk * 2);
    uint16_t *v = malloc((size_t)nk * 2), *o = malloc((size_t)nq * 2);
    uint16_t *pse = malloc((size_t)np * 2);
    float *lse = malloc((size_t)(B * N * QS) * 4);
    uint8_t *mask = malloc((size_t)(B * QS * KVS));
    uint8_t *causal = malloc(2048 * 2048);
    for (int64_t i = 0; i < nq; i++) q[i] = nan16(dt), o[i] = 0x5a5a;
    for (int64_t i = 0; i < nk; i++) k[i] = v[i] = nan16(dt);
    for (int64_t i = 0; i < np; i++) pse[i] = nan16(dt);
    for (int64_t i = 0; i < B * QS * KVS; i++) mask[i] = 1;
    for (int64_t i = 0; i < 2048 * 2048; i++)
        causal[i] = (i % 2048) > (i / 2048);
    for (int64_t b = 0; b < B; b++) {
        for (int64_t n = 0; n < N; n++)
            for (int64_t i = 0; i < m->ql[b]; i++) {
                memcpy(q + ftl_at(bn, N, QS, D, b, n, qs[b] + i),
                       m->q + qi(m, b, n, i), D * 2);
                /* a pse of batch 1: every batch's cells into batch 0 (the
                 * model's batches agree) */
                for (int64_t j = 0; j < m->kl[b]; j++)
                    pse[(((pb == 1 ? 0 : b) * N + n) * prow + qs[b] + i) *
                            pcol + ks[b] + j] = m->pse[pi(m, b, n, i, j)];
            }
        for (int64_t h = 0; h < KVN; h++)
            for (int64_t j = 0; j < m->kl[b]; j++) {
                memcpy(k + ftl_at(bn, KVN, KVS, D, b, h, ks[b] + j),
                       m->k + ki(m, b, h, j), D * 2);
                memcpy(v + ftl_at(bn, KVN, KVS, D, b, h, ks[b] + j),
                       m->v + ki(m, b, h, j), D * 2);
            }
        for (int64_t i = 0; m->mask && i < m->ql[b]; i++)
            for (int64_t j = 0; j < m->kl[b]; j++)
                mask[(b * QS + qs[b] + i) * KVS + ks[b] + j] =
                    m->mask[(b * QS + i) * KVS + j];
    }
    /* page attention: the physical keys copied block by block into a
     * cache (blocknum, KVN, bs, D) through a reversed block table */
    const int64_t bs = f->block_size, cols = bs ? KVS / bs : 0;
    int32_t *bt = bs ? malloc((size_t)(B * cols) * 4) : NULL;
    uint16_t *kc = bs ? malloc((size_t)nk * 2) : NULL;
    uint16_t *vc = bs ? malloc((size_t)nk * 2) : NULL;
    for (int64_t x = 0; x < B * cols; x++) {
        const int32_t id = (int32_t)(B * cols - 1 - x);
        bt[x] = id;
        for (int64_t h = 0; h < KVN; h++)
            for (int64_t r = 0; r < bs; r++) {
                const int64_t src = ftl_at(bn, KVN, KVS, D, x / cols, h,
                                       x % cols * bs + r);
                const int64_t dst = ((id * KVN + h) * bs + r) * D;
                memcpy(kc + dst, k + src, D * 2);
                memcpy(vc + dst, v + src, D * 2);
            }
    }
    fia_tensor qt = ftl_tensor(f->layout, bn, dt, B, N, QS, D, q);
    fia_tensor ot = ftl_tensor(f->layout, strcmp(f->layout, "BNSD") == 0, dt,
                              B, N, QS, D, o);
    fia_tensor kt[B], vt[B];
    const fia_tensor *kp[B], *vp[B];
    const int kcount = f->list ? B : 1;
    for (int b = 0; b < kcount; b++) {
        const int64_t off = f->list ? b * KVN * KVS * D : 0, nb = f->list ? 1 : B;
        kt[b] = ftl_tensor(f->layout, bn, dt, nb, KVN, KVS, D, k + off);
        vt[b] = ftl_tensor(f->layout, bn, dt, nb, KVN, KVS, D, v + off);
        if (bs) {
            kt[b] = (fia_tensor){.dtype = dt, .ndim = 4,
                                 .shape = {B * cols, KVN, bs, D}, .data = kc};
            vt[b] = kt[b];
            vt[b].data = vc;
        }
        kp[b] = &kt[b], vp[b] = &vt[b];
    }
    fia_tensor_list kl = {kcount, kp}, vl = {kcount, vp};
    fia_tensor pt = {.dtype = dt, .ndim = 4, .shape = {pb, N, prow, pcol},
                     .data = pse};
    fia_tensor lt = {.dtype = FIA_DT_FP32, .ndim = 4, .shape = {B, N, QS, 1},
                     .data = lse};
    fia_tensor mt = dec ? (fia_tensor){.dtype = FIA_DT_BOOL, .ndim = 2,
                                       .shape = {B, KVS}, .data = mask}
                        : (fia_tensor){.dtype = FIA_DT_BOOL, .ndim = 3,
                                       .shape = {B, QS, KVS}, .data = mask};
    if (f->sparse == 3)
        mt = (fia_tensor){.dtype = FIA_DT_BOOL, .ndim = 2,
                          .shape = {2048, 2048}, .data = causal};
    fia_tensor btt = {.dtype = FIA_DT_INT32, .ndim = 2, .shape = {B, cols},
                      .data = bt};
    int64_t padq = PADQ, padkv = PADKV;
    fia_tensor qpad = {.dtype = FIA_DT_INT64, .ndim = 1, .shape = {1},
                       .data = &padq};
    fia_tensor kvpad = {.dtype = FIA_DT_INT64, .ndim = 1, .shape = {1},
                        .data = &padkv};
    const bool lens = f->lens || f->left || bs;
    fia_int_array asl = {B, m->ql}, aslkv = {B, m->kl};
    fastSetThreadCount(f->threads);
    fast_executor *ex = NULL;
    uint64_t wss = 0;
    result r = {.o = calloc((size_t)nq, 2),
                .lse = calloc((size_t)(B * N * QS), 4)};
    r.status = fastFusedInferAttentionScoreV2GetWorkspaceSize(
        &qt, &kl, &vl, f->pse ? &pt : NULL,
        m->mask || f->sparse ? &mt : NULL, lens && !dec ? &asl : NULL,
        lens ? &aslkv : NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        bs ? &btt : NULL, f->left && !dec ? &qpad : NULL,
        f->left ? &kvpad : NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, N,
        SCALE, I32MAX, I32MAX, f->layout, KVN, f->sparse, f->inner_precise,
        bs, 0, true, 0, 0, &ot, &lt, &wss, &ex);
    if (r.status == FIA_OK) {
        void *ws = malloc(wss + 64);
        r.status = fastFusedInferAttentionScoreV2(ws, wss + 64, ex, NULL);
        free(ws);
    }
    fastSetThreadCount(0);
    const bool obn = strcmp(f->layout, "BNSD") == 0;
    for (int64_t b = 0; r.status == FIA_OK && b < B; b++)
        for (int64_t n = 0; n < N; n++)
            for (int64_t i = 0; i < m->ql[b]; i++) {
                memcpy(r.o + qi(m, b, n, i), o + ftl_at(obn, N, QS, D, b, n, qs[b] + i),
                       D * 2);
                r.lse[(b * N + n) * QS + i] = lse[(b * N + n) * QS + qs[b] + i];
            }
    free(q), free(k), free(v), free(o), free(pse), free(lse), free(mask);
    free(causal), free(bt), free(kc), free(vc);
    return r;
}

static void free_result(result *r) { free(r->o), free(r->lse); }

/* ---- comparisons ------------------------------------------------------ */
/* Rows of a and b bit for bit (NaN for NaN), each one finite in a unless
 * nan_ok; returns the rows that differ. */
static int64_t same(const model *m, const result *a, const result *b,
                    bool nan_ok, const char *what, int line)
{
    CHECK_MSG(a->status == FIA_OK && b->status == FIA_OK,
              "line %d %s: status %d / %d (%s)", line, what, a->status,
              b->status, fastLastError());
    if (a->status != FIA_OK || b->status != FIA_OK)
        return -1;
    int64_t bad = 0, nonfinite = 0;
    for (int64_t b_ = 0; b_ < B; b_++)
        for (int64_t n = 0; n < N; n++)
            for (int64_t i = 0; i < m->ql[b_]; i++) {
                const int64_t o = qi(m, b_, n, i), l = (b_ * N + n) * m->QS + i;
                for (int64_t d = 0; d < D; d++) {
                    const double x = from16(m->dt, a->o[o + d]);
                    const double y = from16(m->dt, b->o[o + d]);
                    nonfinite += !isfinite(x);
                    bad += a->o[o + d] != b->o[o + d] && !(isnan(x) && isnan(y));
                }
                bad += memcmp(&a->lse[l], &b->lse[l], 4) != 0 &&
                       !(isnan(a->lse[l]) && isnan(b->lse[l]));
            }
    CHECK_MSG(bad == 0 && (nan_ok || nonfinite == 0),
              "line %d %s: %lld elements differ, %lld not finite", line, what,
              (long long)bad, (long long)nonfinite);
    return bad;
}

/* Outputs within tol (relative to the largest |v|, 2) and lse within
 * 1e-5 relative of b's lse plus shift(b, n, i). */
static void close_to(const model *m, const result *a, const result *b,
                     double tol, const float *shift, const char *what, int line)
{
    CHECK_MSG(a->status == FIA_OK && b->status == FIA_OK,
              "line %d %s: status %d / %d (%s)", line, what, a->status,
              b->status, fastLastError());
    if (a->status != FIA_OK || b->status != FIA_OK)
        return;
    int64_t bad = 0, lbad = 0;
    for (int64_t b_ = 0; b_ < B; b_++)
        for (int64_t n = 0; n < N; n++)
            for (int64_t i = 0; i < m->ql[b_]; i++) {
                const int64_t o = qi(m, b_, n, i), l = (b_ * N + n) * m->QS + i;
                for (int64_t d = 0; d < D; d++)
                    bad += !(fabs(from16(m->dt, a->o[o + d]) -
                                  from16(m->dt, b->o[o + d])) <= 2 * tol);
                const double want = (double)b->lse[l] + (shift ? shift[l] : 0);
                lbad += !(fabs(a->lse[l] - want) <= 1e-5 * (1 + fabs(want))) &&
                        !(isinf(want) && a->lse[l] == want);
            }
    CHECK_MSG(bad == 0 && lbad == 0, "line %d %s: %lld outputs, %lld lse off",
              line, what, (long long)bad, (long long)lbad);
}

/* The model's attention in binary64 (no mask, sparse 0): s = q.k * scale +
 * pse; against a within tol x 2 (the largest |v|). */
static void naive(const model *m, const result *a, double tol,
                  const char *what, int line)
{
    if (a->status != FIA_OK) {
        CHECK_MSG(false, "line %d %s: status %d (%s)", line, what, a->status,
                  fastLastError());
        return;
    }
    int64_t bad = 0;
    double *s = malloc((size_t)m->KVS * sizeof(double));
    for (int64_t b = 0; b < B; b++)
        for (int64_t n = 0; n < N; n++)
            for (int64_t i = 0; i < m->ql[b] && m->kl[b] > 0; i++) {
                const int64_t h = n / (N / KVN);
                double mx = -INFINITY, sum = 0;
                for (int64_t j = 0; j < m->kl[b]; j++) {
                    double dot = 0;
                    for (int64_t d = 0; d < D; d++)
                        dot += from16(m->dt, m->q[qi(m, b, n, i) + d]) *
                               from16(m->dt, m->k[ki(m, b, h, j) + d]);
                    s[j] = dot * SCALE + from16(m->dt, m->pse[pi(m, b, n, i, j)]);
                    mx = s[j] > mx ? s[j] : mx;
                }
                for (int64_t j = 0; j < m->kl[b]; j++)
                    sum += s[j] = exp(s[j] - mx);
                for (int64_t d = 0; d < D; d++) {
                    double x = 0;
                    for (int64_t j = 0; j < m->kl[b]; j++)
                        x += s[j] * from16(m->dt, m->v[ki(m, b, h, j) + d]);
                    bad += !(fabs(from16(m->dt, a->o[qi(m, b, n, i) + d]) -
                                  x / sum) <= 2 * tol);
                }
                const double lse = mx + log(sum);
                bad += !(fabs(a->lse[(b * N + n) * m->QS + i] - lse) <=
                         1e-5 * (1 + fabs(lse)));
            }
    free(s);
    CHECK_MSG(bad == 0, "line %d %s: %lld elements off the binary64 "
              "attention", line, what, (long long)bad);
}

/* An output's tolerance against another rounding of the same attention:
 * a few units of the format's last place at |o| <= 2. */
static double tol_of(const model *m)
{
    return m->dt == FIA_DT_FP16 ? 2e-3 : 1.6e-2;
}

static const char *const layouts[] = {"BSH", "BSND", "BNSD", "BNSD_BSND"};
static const int64_t PQL[B] = {97, 61, 17}, PKL[B] = {144, 130, 9};
static const int64_t DKL[B] = {593, 200, 0};

/* A pse of zeros is no pse (fp16: against inner_precise 0, since the pse
 * forces high precision); the binary64 attention with a random pse. */
static void zeros_and_naive(const model *m0, const form *base)
{
    model z = copy_model(m0);
    for (int64_t i = 0; i < B * N * m0->QS * m0->KVS; i++)
        z.pse[i] = 0;
    form f = *base, g = *base;
    f.pse = true;
    g.pse = false;
    if (m0->dt == FIA_DT_FP16)
        g.inner_precise &= 2;
    result a = run(&z, &f), b = run(&z, &g);
    same(&z, &a, &b, false, base->layout, __LINE__);
    free_result(&a), free_result(&b);
    if (!base->sparse && m0->mask == NULL) {
        result c = run(m0, &f);
        naive(m0, &c, tol_of(m0), base->layout, __LINE__);
        free_result(&c);
    }
    free_model(&z);
}

/* pse[b][n][i][j] = c(b, n, i): the outputs of no pse, lse + c. */
static void constant_rows(const model *m0, const form *base)
{
    model c = copy_model(m0);
    float *shift = calloc((size_t)(B * N * m0->QS), 4);
    for (int64_t b = 0; b < B; b++)
        for (int64_t n = 0; n < N; n++)
            for (int64_t i = 0; i < m0->QS; i++) {
                const double x = (double)((int)(urand() * 64) - 32) / 4;
                shift[(b * N + n) * m0->QS + i] = (float)x;
                for (int64_t j = 0; j < m0->KVS; j++)
                    c.pse[pi(&c, b, n, i, j)] = to16(m0->dt, x);
            }
    form f = *base, g = *base;
    f.pse = true, g.pse = false;
    if (m0->dt == FIA_DT_FP16)
        g.inner_precise &= 2;
    result a = run(&c, &f), b = run(&c, &g);
    close_to(&c, &a, &b, tol_of(m0), shift, "constant pse", __LINE__);
    free_result(&a), free_result(&b), free(shift), free_model(&c);
}

/* -inf on about a third of the keys of every row (never all of one) ==
 * those keys masked out; then row 0 of every head all -inf: NaN, and
 * +inf / NaN on one key of row 1: NaN. */
static void nonfinite(const model *m0, const form *base, bool bitwise)
{
    model x = copy_model(m0), y = copy_model(m0);
    y.mask = calloc((size_t)(B * m0->QS * m0->KVS), 1);
    for (int64_t b = 0; b < B; b++)
        for (int64_t i = 0; i < m0->ql[b]; i++)
            for (int64_t j = 1; j < m0->kl[b]; j++) /* key 0 stays */
                if (urand() < 0.35) {
                    y.mask[(b * m0->QS + i) * m0->KVS + j] = 1;
                    for (int64_t n = 0; n < N; n++)
                        x.pse[pi(&x, b, n, i, j)] = ninf16(m0->dt);
                }
    form f = *base;
    f.pse = true;
    result a = run(&x, &f), b = run(&y, &f);
    if (bitwise)
        same(&x, &a, &b, false, "-inf pse against a mask", __LINE__);
    else
        close_to(&x, &a, &b, tol_of(m0), NULL, "-inf pse against a mask",
                 __LINE__);
    free_result(&a), free_result(&b);
    /* Q_S > 1: row 0 all -inf, row 1 one key +inf or NaN; Q_S = 1 (one
     * row per head): even heads all -inf, odd ones one key +inf or NaN */
    for (int64_t b_ = 0; b_ < B; b_++)
        for (int64_t n = 0; n < N; n++) {
            const bool dec = m0->QS == 1, one = dec && n % 2;
            for (int64_t j = 0; !one && j < m0->kl[b_]; j++)
                x.pse[pi(&x, b_, n, 0, j)] = ninf16(m0->dt);
            if ((!dec || one) && m0->kl[b_] > 0)
                x.pse[pi(&x, b_, n, dec ? 0 : 1, m0->kl[b_] / 2)] =
                    (n + b_) % 2 ? pinf16(m0->dt) : nan16(m0->dt);
        }
    a = run(&x, &f);
    int64_t bad = 0;
    for (int64_t b_ = 0; a.status == FIA_OK && b_ < B; b_++)
        for (int64_t n = 0; n < N; n++)
            for (int64_t i = 0; i < (m0->QS > 1 ? 3 : 1); i++) {
                if (m0->kl[b_] == 0)
                    continue; /* no key: zeros */
                const bool want_nan = i < 2;
                const int64_t l = (b_ * N + n) * m0->QS + i;
                bad += isnan(a.lse[l]) != want_nan;
                for (int64_t d = 0; d < D; d++)
                    bad += isnan(from16(m0->dt, a.o[qi(m0, b_, n, i) + d])) !=
                           want_nan;
            }
    CHECK_MSG(a.status == FIA_OK && bad == 0,
              "%s: rows of every key -inf, or +inf/NaN, not NaN (or others "
              "NaN): %lld", base->layout, (long long)bad);
    free_result(&a), free_model(&x), free_model(&y);
}

/* A pse of batch 1 is the same pse repeated per batch; S dims past (Q_S,
 * KV_S) and cells past the lengths (NaN) are never read. */
static void broadcast_and_padded(const model *m1, const form *base)
{
    form f = *base, g = *base;
    f.pse = g.pse = true;
    g.pse_b1 = true, g.xrows = 3, g.xcols = 5;
    result a = run(m1, &f), b = run(m1, &g);
    same(m1, &a, &b, false, "pse of batch 1, padded dims", __LINE__);
    free_result(&a), free_result(&b);
}

/* Left padding: pse at (q_start + i, kv_start + j); against the right-
 * padded call of the same lengths. */
static void left_padding(const model *m0, const form *base)
{
    form f = *base, g = *base;
    f.pse = g.pse = true;
    f.lens = true, g.left = true;
    g.xrows = 2, g.xcols = 7;
    result a = run(m0, &f), b = run(m0, &g);
    same(m0, &a, &b, false, "left padding", __LINE__);
    free_result(&a), free_result(&b);
}

/* fp16 with a pse runs in high precision whatever inner_precise says. */
static void high_precision(const model *m0, const form *base)
{
    model z = copy_model(m0);
    for (int64_t i = 0; i < B * N * m0->QS * m0->KVS; i++)
        z.pse[i] = 0;
    form f = *base, hp = *base, hperf = *base;
    f.pse = true, f.inner_precise |= 1;
    hp.inner_precise &= 2, hperf.inner_precise |= 1;
    result a = run(&z, &f), b = run(&z, &hp), c = run(&z, &hperf);
    same(&z, &a, &b, false, "fp16 pse at inner_precise 1 == high precision",
         __LINE__);
    int64_t diff = 0;
    for (int64_t i = 0; i < B * N * m0->QS * D; i++)
        diff += a.o[i] != c.o[i];
    CHECK_MSG(diff > 0, "%s: fp16 pse at inner_precise 1 == high performance",
              base->layout);
    free_result(&a), free_result(&b), free_result(&c), free_model(&z);
}

static void prefill(void)
{
    for (int l = 0; l < 4; l++) {
        const fia_dtype dt = l % 2 ? FIA_DT_BF16 : FIA_DT_FP16;
        model m = make_model(dt, 100, 150, PQL, PKL, false);
        form f = {.layout = layouts[l], .lens = true, .inner_precise = 1,
                  .threads = 2};
        zeros_and_naive(&m, &f);
        constant_rows(&m, &f);
        nonfinite(&m, &f, true);
        left_padding(&m, &f);
        f.sparse = 3; /* causal: the masked softmax with the pse */
        zeros_and_naive(&m, &f);
        left_padding(&m, &f);
        f.sparse = 0, f.threads = 1, f.lens = false, f.inner_precise = 3;
        model full = make_model(dt, 100, 150, NULL, NULL, false);
        zeros_and_naive(&full, &f);
        if (dt == FIA_DT_FP16)
            high_precision(&full, &f);
        free_model(&full);
        model same_b = make_model(dt, 100, 150, PQL, PKL, true);
        f.lens = true;
        broadcast_and_padded(&same_b, &f);
        free_model(&same_b);
        /* the dot form: Q_S 3, one head per KV head */
        model small = make_model(dt, 3, 40, NULL, NULL, false);
        zeros_and_naive(&small, &f);
        nonfinite(&small, &f, false); /* the fused kernel against a mask */
        free_model(&small);
        free_model(&m);
    }
}

/* Decode: the fused kernel (no mask) and the blocked loop (mask), one
 * thread or split across three. */
static void decode(void)
{
    for (int l = 0; l < 3; l++) { /* BNSD_BSND needs Q_S > 1 */
        const fia_dtype dt = l % 2 ? FIA_DT_FP16 : FIA_DT_BF16;
        model m = make_model(dt, 1, 600, NULL, DKL, false);
        for (int t = 1; t <= 3; t += 2) {
            form f = {.layout = layouts[l], .lens = true, .inner_precise = 1,
                      .threads = t};
            zeros_and_naive(&m, &f);
            constant_rows(&m, &f);
            nonfinite(&m, &f, false);
            left_padding(&m, &f);
            if (dt == FIA_DT_FP16)
                high_precision(&m, &f);
        }
        form one = {.layout = layouts[l], .lens = true, .threads = 1};
        form three = one;
        three.pse = one.pse = true, three.threads = 3;
        result a = run(&m, &one), b = run(&m, &three);
        close_to(&m, &a, &b, tol_of(&m), NULL, "decode split", __LINE__);
        free_result(&a), free_result(&b);
        model same_b = make_model(dt, 1, 600, NULL, DKL, true);
        broadcast_and_padded(&same_b, &three);
        free_model(&same_b);
        free_model(&m);
    }
}

/* Page attention and tensor lists read column j for key j: the same as the
 * contiguous call, bit for bit. */
static void paged_and_lists(void)
{
    static const int64_t kl[B] = {256, 100, 17}, ql[B] = {5, 3, 1};
    for (int qs = 1; qs <= 5; qs += 4) {
        model m = make_model(FIA_DT_BF16, qs, 256, ql, kl, false);
        form f = {.layout = "BNSD", .pse = true, .lens = true,
                  .inner_precise = 1, .threads = 2};
        form pg = f, li = f;
        pg.block_size = qs == 1 ? 16 : 128;
        li.list = true, li.layout = "BSND";
        result a = run(&m, &f), b = run(&m, &pg);
        same(&m, &a, &b, false, "paged", __LINE__);
        free_result(&b);
        f.layout = "BSND";
        b = run(&m, &li);
        free_result(&a);
        a = run(&m, &f);
        same(&m, &a, &b, false, "tensor list", __LINE__);
        free_result(&a), free_result(&b), free_model(&m);
    }
}

/* A pse without data: 361001 at run time; an empty pse is absent. */
static void statuses(void)
{
    fia_tensor q = {.dtype = FIA_DT_FP16, .ndim = 4, .shape = {1, 1, 4, 16}};
    fia_tensor k = {.dtype = FIA_DT_FP16, .ndim = 4, .shape = {1, 1, 8, 16}};
    fia_tensor p = {.dtype = FIA_DT_FP16, .ndim = 4, .shape = {1, 1, 4, 8}};
    uint16_t qd[64] = {0}, kd[128] = {0}, od[64];
    q.data = qd, k.data = kd;
    fia_tensor o = q;
    o.data = od;
    const fia_tensor *kp[1] = {&k};
    fia_tensor_list kl = {1, kp};
    for (int e = 0; e < 2; e++) {
        p.shape[2] = e ? 0 : 4; /* empty: absent, nothing read */
        fast_executor *ex = NULL;
        uint64_t wss = 0;
        fia_status st = fastFusedInferAttentionScoreV2GetWorkspaceSize(
            &q, &kl, &kl, &p, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
            NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
            NULL, 1, SCALE, I32MAX, I32MAX, "BNSD", 1, 0, 1, 0, 0, false, 0,
            0, &o, NULL, &wss, &ex);
        CHECK_EQ_INT(st, FIA_OK);
        st = ftl_phase_two(ex, wss);
        CHECK_EQ_INT(st, e ? FIA_OK : FIA_ERR_RUNTIME_ERROR);
        if (!e)
            CHECK_MSG(strncmp(fastLastError(), "R_NO_DATA", 9) == 0, "%s",
                      fastLastError());
    }
}

int main(void)
{
    prefill();
    decode();
    paged_and_lists();
    statuses();
    return check_summary();
}
