/* fast/ with value narrower than the query in the token layouts (003: TND
 * and NTD_TND, Q_D = K_D = 192 with V_D 128; attention_out [T, N, 128]).
 *
 *   padded value: the call with value widened to 192 columns (its first
 *   128 the narrow call's, the rest arbitrary; a 192/192 call, doc
 *   profile) gives in its first 128 output columns the narrow call's
 *   outputs, bit for bit, and the same lse: the score runs over all 192
 *   query/key columns in both, P.V column by column (prefill: tiled rows,
 *   sparse 0 and 3, one and two threads); decode (one query row per
 *   batch, split keys), where the wide call may take the fused decode
 *   kernel, within two bf16 steps; nothing is written past the narrow
 *   output (guards);
 *   the query's last 64 columns: zeroing them changes the outputs;
 *   a row by hand: q and k meet only in column 150 (past value's D),
 *   scores 0 and 1 at scale 1, v0 = 0 and v1 = 1: every output column is
 *   e / (1 + e) in bf16 (0.73046875), lse log(1 + e);
 *   rejections: value wider than the query, NTD_TND 192/192, the cann
 *   profile's 192/192, an attention_out of the query's D.
 * Run once per ISA level (CMakeLists.txt). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fast_testlib.h"
#include "fia/dtype.h"
#include "fia/fast.h"

enum { B = 3, N = 4, KVN = 2, QD = 192, VD = 128 };
#define GUARD 0x7bcdu

static fia_tensor t3(int64_t a, int64_t b, int64_t c, void *data)
{
    return (fia_tensor){.dtype = FIA_DT_BF16, .ndim = 3, .shape = {a, b, c},
                        .data = data};
}

/* Both phases of one call of n heads on kvn; lse (T, N, 1) or NULL. */
static fia_status run(const char *layout, int64_t n, int64_t kvn,
                      double scale, fia_tensor *q, fia_tensor *k,
                      fia_tensor *v, fia_tensor *out, fia_tensor *lse,
                      fia_int_array *asl, fia_int_array *aslkv, int sparse,
                      fia_tensor *mask)
{
    const fia_tensor *kp[1] = {k}, *vp[1] = {v};
    fia_tensor_list kl = {1, kp}, vl = {1, vp};
    fast_executor *ex = NULL;
    uint64_t wss = 0;
    fia_status st = fastFusedInferAttentionScoreV2GetWorkspaceSize(
        q, &kl, &vl, NULL, mask, asl, aslkv, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        n, scale, 2147483647, 2147483647, layout, kvn, sparse, 1, 0, 0,
        lse != NULL, 0, 0, out, lse, &wss, &ex);
    if (st != FIA_OK) {
        fastExecutorDestroy(ex);
        return st;
    }
    return ftl_phase_two(ex, wss);
}

typedef struct call {
    const int64_t *ql, *kl;  /* per batch */
    int sparse, ntd, threads;
} call;

/* The causal (2048, 2048) mask of sparse mode 3. */
static fia_tensor causal(void)
{
    fia_tensor m = {.dtype = FIA_DT_BOOL, .ndim = 2, .shape = {2048, 2048}};
    uint8_t *bits = calloc(2048 * 2048, 1);
    for (int64_t i = 0; i < 2048; i++)
        for (int64_t j = i + 1; j < 2048; j++)
            bits[i * 2048 + j] = 1;
    m.data = bits;
    return m;
}

/* One query row per batch (every key of the batch takes part, sparse 0
 * or 3): the rows of o (its rows od apart, the value's vd) against the
 * plain attention in double, softmax(scale q.k) . v over the 192 query
 * and key columns and value's first VD.  The permitted pipeline rounds P
 * to bf16 against a running max (relative 2^-9 each) and the output to
 * bf16: within 2^-8 (sum p |v| + |out|) + 2^-20.  Returns the rows
 * outside. */
static int64_t decode_check(const call *c, const uint16_t *q,
                            const uint16_t *k, const uint16_t *v, int64_t vd,
                            const uint16_t *o, int64_t od, const int64_t *cq,
                            const int64_t *ck)
{
    int64_t T = cq[B - 1], Tk = ck[B - 1], bad = 0;
    double s[512], acc[VD], mag[VD];
    for (int b = 0; b < B; b++) {
        const int64_t t = cq[b] - 1, j0 = b ? ck[b - 1] : 0;
        const int64_t nk = ck[b] - j0;
        if (c->ql[b] != 1 || nk < 1 || nk > 512)
            continue;
        for (int64_t n = 0; n < N; n++) {
            const int64_t h = n / (N / KVN);
            const uint16_t *qr = q + (c->ntd ? n * T + t : t * N + n) * QD;
            double m = -INFINITY, l = 0.0;
            for (int64_t j = 0; j < nk; j++) {
                const uint16_t *kr =
                    k + (c->ntd ? h * Tk + j0 + j : (j0 + j) * KVN + h) * QD;
                double dot = 0.0;
                for (int64_t d = 0; d < QD; d++)
                    dot += fia_bf16_to_double(qr[d]) *
                           fia_bf16_to_double(kr[d]);
                s[j] = dot / sqrt((double)QD);
                m = s[j] > m ? s[j] : m;
            }
            for (int64_t d = 0; d < VD; d++)
                acc[d] = mag[d] = 0.0;
            for (int64_t j = 0; j < nk; j++) {
                const double p = exp(s[j] - m);
                const uint16_t *vr =
                    v + (c->ntd ? h * Tk + j0 + j : (j0 + j) * KVN + h) * vd;
                l += p;
                for (int64_t d = 0; d < VD; d++) {
                    acc[d] += p * fia_bf16_to_double(vr[d]);
                    mag[d] += p * fabs(fia_bf16_to_double(vr[d]));
                }
            }
            int row_bad = 0;
            for (int64_t d = 0; d < VD; d++) {
                const double x = acc[d] / l;
                const double got = fia_bf16_to_double(o[(t * N + n) * od + d]);
                row_bad |= !(fabs(got - x) <=
                             0x1p-8 * (mag[d] / l + fabs(x)) + 0x1p-20);
            }
            bad += row_bad;
        }
    }
    return bad;
}

static void padded(const call *c)
{
    fastSetThreadCount(c->threads);
    int64_t T = 0, Tk = 0, cq[B], ck[B];
    for (int b = 0; b < B; b++)
        cq[b] = T += c->ql[b], ck[b] = Tk += c->kl[b];
    const int64_t nq = T * N * QD, nk = Tk * KVN * QD, nv = Tk * KVN * VD;
    uint16_t *q = malloc((size_t)nq * 2), *k = malloc((size_t)nk * 2);
    uint16_t *v = malloc((size_t)nv * 2), *vw = malloc((size_t)nk * 2);
    uint16_t *o = malloc((size_t)(T * N * VD + 64) * 2);
    uint16_t *ow = malloc((size_t)(T * N * QD) * 2);
    float *l = malloc((size_t)(T * N + 16) * 4), *lw = malloc((size_t)T * N * 4);
    for (int64_t i = 0; i < nq; i++) q[i] = ftl_rnd(FIA_DT_BF16);
    for (int64_t i = 0; i < nk; i++)
        k[i] = ftl_rnd(FIA_DT_BF16), vw[i] = ftl_rnd(FIA_DT_BF16);
    /* value's rows (D innermost in both orders): the narrow one's 128
     * columns first in the wide one, its own random 64 after */
    for (int64_t r = 0; r < Tk * KVN; r++)
        for (int64_t d = 0; d < VD; d++)
            v[r * VD + d] = vw[r * QD + d];
    for (int64_t i = 0; i < T * N * VD + 64; i++) o[i] = GUARD;
    for (int64_t i = 0; i < T * N + 16; i++) l[i] = -7.0f;
    fia_int_array a1 = {B, cq}, a2 = {B, ck};
    fia_tensor mask = causal();
    fia_tensor *mk = c->sparse ? &mask : NULL;
    const char *lay = c->ntd ? "NTD_TND" : "TND";
    fia_tensor tq = c->ntd ? t3(N, T, QD, q) : t3(T, N, QD, q);
    fia_tensor tk = c->ntd ? t3(KVN, Tk, QD, k) : t3(Tk, KVN, QD, k);
    fia_tensor tv = c->ntd ? t3(KVN, Tk, VD, v) : t3(Tk, KVN, VD, v);
    fia_tensor tw = c->ntd ? t3(KVN, Tk, QD, vw) : t3(Tk, KVN, QD, vw);
    fia_tensor to = t3(T, N, VD, o), tow = t3(T, N, QD, ow);
    fia_tensor tl = {.dtype = FIA_DT_FP32, .ndim = 3, .shape = {T, N, 1},
                     .data = l};
    fia_tensor tlw = tl;
    tlw.data = lw;
    const double sc = 1.0 / sqrt((double)QD);
    CHECK_EQ_INT(run(lay, N, KVN, sc, &tq, &tk, &tv, &to, &tl, &a1, &a2,
                     c->sparse, mk), FIA_OK);
    /* the wide value: TND 192/192 (003's; the doc profile), which NTD_TND
     * has not: its wide call runs as TND over the same rows reordered */
    uint16_t *qt = NULL, *kt = NULL, *vt = NULL;
    if (c->ntd) {
        qt = malloc((size_t)nq * 2), kt = malloc((size_t)nk * 2);
        vt = malloc((size_t)nk * 2);
        for (int64_t n = 0; n < N; n++)
            for (int64_t t = 0; t < T; t++)
                memcpy(qt + (t * N + n) * QD, q + (n * T + t) * QD, QD * 2);
        for (int64_t h = 0; h < KVN; h++)
            for (int64_t t = 0; t < Tk; t++) {
                memcpy(kt + (t * KVN + h) * QD, k + (h * Tk + t) * QD, QD * 2);
                memcpy(vt + (t * KVN + h) * QD, vw + (h * Tk + t) * QD,
                       QD * 2);
            }
        tq = t3(T, N, QD, qt), tk = t3(Tk, KVN, QD, kt);
        tw = t3(Tk, KVN, QD, vt);
    }
    const fia_profile was = fastGetStatusProfile();
    fastSetStatusProfile(FIA_PROFILE_DOC);
    CHECK_EQ_INT(run("TND", N, KVN, sc, &tq, &tk, &tw, &tow, &tlw, &a1, &a2,
                     c->sparse, mk), FIA_OK);
    fastSetStatusProfile(was);
    /* prefill: the same kernels on the same rows, bit for bit.  Decode:
     * the wide call (D 192, no second source) may take the fused decode
     * kernel, which sums and rounds P against another running max than
     * the blocked loop the narrow call takes; each against the plain
     * attention in double instead (decode_check) */
    const int exact = c->ql[0] > 1;
    int64_t bad = 0, lbad = 0, guards = 0, live = 0;
    for (int64_t r = 0; r < T * N; r++) {
        for (int64_t d = 0; d < VD; d++)
            live += o[r * VD + d] != 0;
        if (!exact)
            continue;
        bad += memcmp(o + r * VD, ow + r * QD, VD * 2) != 0;
        lbad += memcmp(l + r, lw + r, 4) != 0;
    }
    if (!exact) {
        bad = decode_check(c, q, k, v, VD, o, VD, cq, ck);
        bad += decode_check(c, q, k, vw, QD, ow, QD, cq, ck);
    }
    for (int64_t i = T * N * VD; i < T * N * VD + 64; i++)
        guards += o[i] != GUARD;
    for (int64_t i = T * N; i < T * N + 16; i++)
        guards += l[i] != -7.0f;
    CHECK_MSG(bad == 0 && lbad == 0 && guards == 0, "%s sparse %d threads %d "
              "Q_S %lld: %lld rows' outputs, %lld lse differ from the padded "
              "value's (decode: outside the bound); %lld guards overwritten",
              lay, c->sparse, c->threads, (long long)c->ql[0],
              (long long)bad, (long long)lbad, (long long)guards);
    CHECK(live > T * N * VD / 2);
    /* the query's columns past value's D take part in the score */
    uint16_t *o2 = malloc((size_t)(T * N * VD) * 2);
    tq = c->ntd ? t3(N, T, QD, q) : t3(T, N, QD, q);
    tk = c->ntd ? t3(KVN, Tk, QD, k) : t3(Tk, KVN, QD, k);
    to = t3(T, N, VD, o2);
    for (int64_t r = 0; r < T * N; r++)
        memset(q + r * QD + VD, 0, (QD - VD) * 2);
    CHECK_EQ_INT(run(lay, N, KVN, sc, &tq, &tk, &tv, &to, &tl, &a1, &a2,
                     c->sparse, mk), FIA_OK);
    int64_t moved = 0;
    for (int64_t i = 0; i < T * N * VD; i++)
        moved += o2[i] != o[i];
    CHECK_MSG(moved > T * N * VD / 4, "%s: zeroing the query's last 64 "
              "columns moved %lld of %lld outputs", lay, (long long)moved,
              (long long)(T * N * VD));
    fastSetThreadCount(0);
    free(q), free(k), free(v), free(vw), free(o), free(ow), free(l), free(lw);
    free(o2), free(qt), free(kt), free(vt), free(mask.data);
}

/* One row by hand (see the top). */
static void by_hand(void)
{
    uint16_t q[QD] = {0}, k[2 * QD] = {0}, v[2 * VD], o[VD + 8];
    const uint16_t one = fia_float_to_bf16(1.0f);
    q[150] = one, k[QD + 150] = one;
    for (int d = 0; d < VD; d++)
        v[d] = 0, v[VD + d] = one;
    for (int i = 0; i < VD + 8; i++)
        o[i] = GUARD;
    float l = 0.0f;
    int64_t c1[1] = {1}, c2[1] = {2};
    fia_int_array a1 = {1, c1}, a2 = {1, c2};
    fia_tensor tq = t3(1, 1, QD, q), tk = t3(2, 1, QD, k);
    fia_tensor tv = t3(2, 1, VD, v), to = t3(1, 1, VD, o);
    fia_tensor tl = {.dtype = FIA_DT_FP32, .ndim = 3, .shape = {1, 1, 1},
                     .data = &l};
    CHECK_EQ_INT(run("TND", 1, 1, 1.0, &tq, &tk, &tv, &to, &tl, &a1, &a2, 0,
                     NULL), FIA_OK);
    int bad = 0;
    for (int d = 0; d < VD; d++)
        bad += fia_bf16_to_float(o[d]) != 0.73046875f;
    for (int d = VD; d < VD + 8; d++)
        bad += o[d] != GUARD;
    CHECK_MSG(bad == 0, "%d columns not e / (1 + e) (column 0: %g)", bad,
              (double)fia_bf16_to_float(o[0]));
    CHECK(fabs((double)l - 1.3132616875182228) < 1e-6);
}

/* A call of head dims qd/kd/vd and an attention_out of od: its status. */
static fia_status dims(const char *layout, int64_t qd, int64_t vd,
                       int64_t od)
{
    static uint16_t buf[6 * 2 * 192 * 2];
    int64_t c1[1] = {6}, c2[1] = {9};
    fia_int_array a1 = {1, c1}, a2 = {1, c2};
    const int ntd = strcmp(layout, "NTD_TND") == 0;
    fia_tensor tq = ntd ? t3(2, 6, qd, buf) : t3(6, 2, qd, buf);
    fia_tensor tk = ntd ? t3(2, 9, qd, buf) : t3(9, 2, qd, buf);
    fia_tensor tv = ntd ? t3(2, 9, vd, buf) : t3(9, 2, vd, buf);
    static uint16_t obuf[6 * 2 * 192];
    fia_tensor to = t3(6, 2, od, obuf);
    return run(layout, 2, 2, 0.1, &tq, &tk, &tv, &to, NULL, &a1, &a2, 0,
               NULL);
}

static void rejections(void)
{
    const fia_profile was = fastGetStatusProfile();
    fastSetStatusProfile(FIA_PROFILE_DOC);
    CHECK_EQ_INT(dims("TND", 192, 128, 128), FIA_OK);
    CHECK_EQ_INT(dims("NTD_TND", 192, 128, 128), FIA_OK);
    CHECK_EQ_INT(dims("TND", 192, 192, 192), FIA_OK);
    CHECK_EQ_INT(dims("TND", 128, 192, 192), FIA_ERR_PARAM_INVALID);
    CHECK_EQ_INT(dims("NTD_TND", 192, 192, 192), FIA_ERR_PARAM_INVALID);
    CHECK_EQ_INT(dims("TND", 192, 128, 192), FIA_ERR_PARAM_INVALID);
    fastSetStatusProfile(FIA_PROFILE_CANN);
    CHECK_EQ_INT(dims("TND", 192, 128, 128), FIA_OK);
    CHECK(dims("TND", 192, 192, 192) != FIA_OK);
    fastSetStatusProfile(was);
}

int main(void)
{
    /* prefill: tiled rows, a batch of no query rows, one of one */
    static const int64_t pq[B] = {40, 0, 7}, pk[B] = {300, 9, 70};
    /* decode: one query row per batch, a long batch splits its keys */
    static const int64_t dq[B] = {1, 1, 1}, dk[B] = {300, 40, 129};
    for (int ntd = 0; ntd < 2; ntd++) {
        padded(&(call){pq, pk, 0, ntd, 1});
        padded(&(call){pq, pk, 0, ntd, 2});
        padded(&(call){pq, pk, 3, ntd, 2});
        padded(&(call){dq, dk, 0, ntd, 2});
        padded(&(call){dq, dk, 3, ntd, 3});
    }
    by_hand();
    rejections();
    return check_summary();
}
