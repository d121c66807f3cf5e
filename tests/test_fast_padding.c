/* fast/ query / kv left padding (docs/features/padding.md): a call and its
 * left-padded equivalent (the same rows moved to the end of the S axes
 * minus the padding, every other row NaN) give the same outputs on every
 * valid row, bit for bit — the same Q_S, KV_S and threads give the same
 * schedule, and a row's arithmetic reads the same values in the same
 * order — in every layout, on the prefill path (query scene, kv scene,
 * both; a mask whose pre/next the scene ignores; sparse 1, 3, 4) and the
 * decode path (kv scene, with and without a mask, split across threads).
 * NaN rows show any read of a padding row (the plain call's valid outputs
 * must be finite), and so do finite poison rows in a second pass (the
 * decode kernel's non-finite results are recomputed, which NaN alone would
 * let hide a wrong read of its own); guards after attention_out and
 * softmax_lse show any write outside them.  Then the statuses (not modeled, page attention per
 * profile, the ignored cases, which must change nothing), a padding
 * tensor without data, and padding values anywhere in int64.  Run once per
 * ISA level (CMakeLists.txt: ^test_fast). */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/dtype.h"
#include "fia/fast.h"
#include "fast_testlib.h"
#include "fast_expect.h"

enum { B = 3, N = 4, KVN = 2, D = 64, GUARD = 64 };
#define SENT 0x5a5au
#define I32MAX 2147483647

/* ---- one call of both phases ------------------------------------------- */
typedef struct api {
    const char *layout;
    int64_t N, KVN, sparse, pre, next, block_size;
    fia_tensor q, out, lse, mask;
    const fia_tensor *k[B], *v[B];
    int kcount;
    fia_tensor qpad, kvpad, bt;
    bool has_mask, has_qpad, has_kvpad, has_bt;
    fia_int_array asl, aslkv;
    bool has_asl, has_aslkv;
} api;

static fia_status phase_one(api *a, fast_executor **ex, uint64_t *ws)
{
    fia_tensor_list kl = {a->kcount, a->k}, vl = {a->kcount, a->v};
    return fastFusedInferAttentionScoreV2GetWorkspaceSize(
        &a->q, &kl, &vl, NULL, a->has_mask ? &a->mask : NULL,
        a->has_asl ? &a->asl : NULL, a->has_aslkv ? &a->aslkv : NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, a->has_bt ? &a->bt : NULL,
        a->has_qpad ? &a->qpad : NULL, a->has_kvpad ? &a->kvpad : NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, a->N, 0.125, a->pre, a->next,
        a->layout, a->KVN, a->sparse, 1, a->block_size, 0, true, 0, 0,
        &a->out, &a->lse, ws, ex);
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

/* Phase one's status in a profile (the executor destroyed). */
static fia_status status_in(api *a, fia_profile prof)
{
    fastSetStatusProfile(prof);
    fast_executor *ex = NULL;
    uint64_t ws = 0;
    fia_status st = phase_one(a, &ex, &ws);
    fastExecutorDestroy(ex);
    fastSetStatusProfile(FIA_PROFILE_DOC);
    return st;
}

/* The status in profile doc and cann, and the check id when refused. */
static void expect(api *a, fia_status doc, fia_status cann, const char *id,
                   int line)
{
    ftl_expect_status(status_in(a, FIA_PROFILE_DOC), doc, id, "doc", line);
    ftl_expect_status(status_in(a, FIA_PROFILE_CANN), cann, id, "cann", line);
}

/* ---- a call and its left-padded equivalent ------------------------------ */
/* The padding tensors passed: n elements (-1: not passed; 0: empty), the
 * first v (then 999, -1: only element 0 counts); q_scene / kv_scene: the
 * scenes expected to take effect (the rows are moved only for those). */
typedef struct spec {
    const char *layout;
    fia_dtype dt;
    int64_t QS, KVS;
    const int64_t *qlen, *kvlen; /* NULL: not passed (S for every batch) */
    int qpad_n, kvpad_n;
    int64_t qv, kvv;
    bool q_scene, kv_scene;
    int mask;   /* 0 none, 1 a mask of every batch's (Q_S,) KV_S bits */
    int sparse; /* 2..4: with the compressed 2048x2048 mask */
    int64_t pre, next;
    int threads;
    bool list;  /* key/value as lists of B tensors (slices of one) */
} spec;

/* 002: the first of len rows followed by pad rows (below 0: 0) on an axis
 * of S rows, -1 before row 0; no overflow whatever pad. */
static int64_t start_of(int64_t S, int64_t pad, int64_t len)
{
    pad = pad < 0 ? 0 : pad;
    return pad > S - len ? -1 : S - len - pad;
}

typedef struct buffers {
    uint16_t *q, *k, *v, *o;
    float *lse;
    uint8_t *mask;
    int64_t nq, nkv, nlse, nmask;
} buffers;

static buffers alloc_buffers(const spec *s)
{
    buffers x;
    x.nq = B * N * s->QS * D, x.nkv = B * KVN * s->KVS * D;
    x.nlse = B * N * s->QS;
    x.nmask = s->sparse >= 2 ? 2048 * 2048 : B * s->QS * s->KVS;
    x.q = malloc((size_t)x.nq * 2);
    x.k = malloc((size_t)x.nkv * 2), x.v = malloc((size_t)x.nkv * 2);
    x.o = malloc((size_t)(x.nq + GUARD) * 2);
    x.lse = malloc((size_t)(x.nlse + GUARD) * 4);
    x.mask = malloc((size_t)x.nmask);
    for (int64_t i = 0; i < x.nq; i++) x.q[i] = ftl_poison(s->dt);
    for (int64_t i = 0; i < x.nkv; i++) x.k[i] = x.v[i] = ftl_poison(s->dt);
    for (int64_t i = 0; i < x.nq + GUARD; i++) x.o[i] = SENT;
    for (int64_t i = 0; i < x.nlse + GUARD; i++) x.lse[i] = -7.0f;
    for (int64_t i = 0; i < x.nmask; i++) x.mask[i] = ftl_next32() % 2;
    return x;
}

static void free_buffers(buffers *x)
{
    free(x->q), free(x->k), free(x->v), free(x->o), free(x->lse);
    free(x->mask);
}

/* The api of buffers x under spec s: padded adds the padding tensors. */
static api api_of(const spec *s, buffers *x, bool padded, int64_t *pq,
                  int64_t *pkv, fia_tensor *kt, fia_tensor *vt)
{
    const bool bn = ftl_bnsd(s->layout);
    api a = {.layout = s->layout, .N = N, .KVN = KVN, .sparse = s->sparse,
             .pre = s->pre, .next = s->next, .kcount = s->list ? B : 1};
    a.q = ftl_tensor(s->layout, bn, s->dt, B, N, s->QS, D, x->q);
    a.out = ftl_tensor(s->layout, strcmp(s->layout, "BNSD") == 0, s->dt, B,
                      N, s->QS, D, x->o);
    for (int b = 0; b < a.kcount; b++) {
        const int64_t off = s->list ? b * KVN * s->KVS * D : 0;
        kt[b] = ftl_tensor(s->layout, bn, s->dt, s->list ? 1 : B, KVN,
                          s->KVS, D, x->k + off);
        vt[b] = ftl_tensor(s->layout, bn, s->dt, s->list ? 1 : B, KVN,
                          s->KVS, D, x->v + off);
        a.k[b] = &kt[b], a.v[b] = &vt[b];
    }
    a.lse = (fia_tensor){.dtype = FIA_DT_FP32, .ndim = 4,
                         .shape = {B, N, s->QS, 1}, .data = x->lse};
    if (s->sparse >= 2) {
        a.has_mask = true;
        a.mask = (fia_tensor){.dtype = FIA_DT_BOOL, .ndim = 2,
                              .shape = {2048, 2048}, .data = x->mask};
    } else if (s->mask) {
        a.has_mask = true;
        a.mask = s->QS == 1
            ? (fia_tensor){.dtype = FIA_DT_BOOL, .ndim = 2,
                           .shape = {B, s->KVS}, .data = x->mask}
            : (fia_tensor){.dtype = FIA_DT_BOOL, .ndim = 3,
                           .shape = {B, s->QS, s->KVS}, .data = x->mask};
    }
    a.has_asl = s->qlen != NULL, a.has_aslkv = s->kvlen != NULL;
    a.asl = (fia_int_array){B, s->qlen};
    a.aslkv = (fia_int_array){B, s->kvlen};
    if (!padded) {
        /* sparse mode 0 with a mask in a scene ignores pre/next */
        if (s->sparse == 0 && s->mask && (s->q_scene || s->kv_scene))
            a.pre = a.next = I32MAX;
        return a;
    }
    pq[0] = s->qv, pq[1] = 999, pq[2] = -1;
    pkv[0] = s->kvv, pkv[1] = 999, pkv[2] = -1;
    a.has_qpad = s->qpad_n >= 0, a.has_kvpad = s->kvpad_n >= 0;
    a.qpad = (fia_tensor){.dtype = FIA_DT_INT64, .ndim = 1,
                          .shape = {s->qpad_n}, .data = pq};
    a.kvpad = (fia_tensor){.dtype = FIA_DT_INT64, .ndim = 1,
                           .shape = {s->kvpad_n}, .data = pkv};
    return a;
}

/* Fills the plain call's buffers (rows from 0) and the padded call's
 * (rows from the starts qs, ks) with the same logical rows; a batch with a
 * start below 0 only in the plain call's (the padded call's stays NaN). */
static void fill(const spec *s, buffers *plain, buffers *pad,
                 const int64_t *ql, const int64_t *kl, const int64_t *qs,
                 const int64_t *ks)
{
    const bool bn = ftl_bnsd(s->layout);
    for (int64_t b = 0; b < B; b++) {
        const bool placed = qs[b] >= 0 && ks[b] >= 0;
        for (int64_t n = 0; n < N; n++)
            for (int64_t i = 0; i < ql[b]; i++)
                for (int64_t d = 0; d < D; d++) {
                    uint16_t x = ftl_rnd(s->dt);
                    plain->q[ftl_at(bn, N, s->QS, D, b, n, i) + d] = x;
                    if (placed)
                        pad->q[ftl_at(bn, N, s->QS, D, b, n, qs[b] + i) + d] = x;
                }
        for (int64_t h = 0; h < KVN; h++)
            for (int64_t j = 0; j < kl[b]; j++)
                for (int64_t d = 0; d < D; d++) {
                    uint16_t x = ftl_rnd(s->dt), y = ftl_rnd(s->dt);
                    plain->k[ftl_at(bn, KVN, s->KVS, D, b, h, j) + d] = x;
                    plain->v[ftl_at(bn, KVN, s->KVS, D, b, h, j) + d] = y;
                    if (!placed)
                        continue;
                    pad->k[ftl_at(bn, KVN, s->KVS, D, b, h, ks[b] + j) + d] = x;
                    pad->v[ftl_at(bn, KVN, s->KVS, D, b, h, ks[b] + j) + d] = y;
                }
        if (s->sparse >= 2 || !s->mask || !placed)
            continue;
        for (int64_t i = 0; i < (s->QS == 1 ? 1 : ql[b]); i++)
            for (int64_t j = 0; j < kl[b]; j++) {
                int64_t r = s->QS == 1 ? 0 : i;
                if (b == 1 && r == 0) /* a row without a key: the mean */
                    plain->mask[(b * s->QS + r) * s->KVS + j] = 1;
                pad->mask[(b * s->QS + qs[b] * (s->QS > 1) + r) * s->KVS +
                          ks[b] + j] =
                    plain->mask[(b * s->QS + r) * s->KVS + j];
            }
    }
    if (s->sparse >= 2) /* the compressed causal mask */
        for (int64_t i = 0; i < 2048 * 2048; i++)
            plain->mask[i] = pad->mask[i] = (i % 2048) > (i / 2048);
}

/* The padded call against the plain call: every valid row bit for bit
 * (and the plain call's finite), a batch starting before row 0 zero at
 * Q_S = 1 (unspecified at Q_S > 1), the guards intact. */
static void padded_vs_plain(const spec *s, const char *what)
{
    fastSetThreadCount(s->threads);
    int64_t ql[B], kl[B], qs[B], ks[B];
    for (int64_t b = 0; b < B; b++) {
        ql[b] = s->QS == 1 ? 1 : s->qlen ? s->qlen[b] : s->QS;
        kl[b] = s->kvlen ? s->kvlen[b] : s->KVS;
        qs[b] = s->q_scene ? start_of(s->QS, s->qv, ql[b]) : 0;
        ks[b] = s->kv_scene ? start_of(s->KVS, s->kvv, kl[b]) : 0;
    }
    buffers x = alloc_buffers(s), y = alloc_buffers(s);
    fill(s, &x, &y, ql, kl, qs, ks);
    int64_t pq[3], pkv[3];
    fia_tensor k1[B], v1[B], k2[B], v2[B];
    api plain = api_of(s, &x, false, pq, pkv, k1, v1);
    api pad = api_of(s, &y, true, pq, pkv, k2, v2);
    fia_status st1 = run(&plain), st2 = run(&pad);
    CHECK_MSG(st1 == FIA_OK && st2 == FIA_OK, "%s: status %d / %d (%s)",
              what, st1, st2, fastLastError());
    const bool obn = strcmp(s->layout, "BNSD") == 0;
    int64_t bad = 0, lbad = 0, nonfinite = 0, zbad = 0;
    for (int64_t b = 0; b < B; b++) {
        const bool placed = qs[b] >= 0 && ks[b] >= 0;
        for (int64_t n = 0; n < N; n++) {
            if (!placed && s->QS == 1) { /* 002: a start < 0 gives 0 */
                const uint16_t *o = y.o + ftl_at(obn, N, 1, D, b, n, 0);
                for (int64_t d = 0; d < D; d++)
                    zbad += o[d] != 0;
                continue;
            }
            if (!placed)
                continue; /* Q_S > 1: unspecified */
            for (int64_t i = 0; i < ql[b]; i++) {
                const uint16_t *o1 = x.o + ftl_at(obn, N, s->QS, D, b, n, i);
                const uint16_t *o2 = y.o + ftl_at(obn, N, s->QS, D, b, n, qs[b] + i);
                for (int64_t d = 0; d < D; d++)
                    nonfinite += ftl_is_nan16(s->dt, o1[d]);
                bad += memcmp(o1, o2, D * 2) != 0;
                lbad += memcmp(x.lse + (b * N + n) * s->QS + i,
                               y.lse + (b * N + n) * s->QS + qs[b] + i,
                               4) != 0;
            }
        }
    }
    int guards = 0;
    for (int64_t i = 0; i < GUARD; i++)
        guards += (y.o[x.nq + i] != SENT) + (y.lse[x.nlse + i] != -7.0f);
    CHECK_MSG(bad == 0 && lbad == 0 && nonfinite == 0 && zbad == 0 &&
                  guards == 0,
              "%s %s %s threads %d: %lld rows and %lld lse differ from the "
              "plain call's, %lld NaN in the plain call, %lld nonzero in a "
              "batch starting before 0, %d guards overwritten", what,
              s->layout, s->dt == FIA_DT_FP16 ? "fp16" : "bf16", s->threads,
              (long long)bad, (long long)lbad, (long long)nonfinite,
              (long long)zbad, guards);
    free_buffers(&x), free_buffers(&y);
    fastSetThreadCount(0);
}

static const char *const layouts[] = {"BSH", "BSND", "BNSD", "BNSD_BSND"};

/* Prefill: Q_S 100 (two query blocks), KV_S 150; batches of different
 * lengths, so of different starts (one starting at row 0). */
static void prefill(void)
{
    static const int64_t ql[B] = {97, 61, 17}, kl[B] = {150, 130, 9};
    for (int l = 0; l < 4; l++) {
        spec s = {.layout = layouts[l], .dt = l % 2 ? FIA_DT_BF16
                                                    : FIA_DT_FP16,
                  .QS = 100, .KVS = 150, .qlen = ql, .kvlen = kl,
                  .qpad_n = 1, .kvpad_n = -1, .qv = 3, .q_scene = true,
                  .pre = I32MAX, .next = I32MAX, .threads = 2};
        padded_vs_plain(&s, "query scene");
        s.qpad_n = -1, s.q_scene = false;
        s.kvpad_n = 1, s.kvv = 0, s.kv_scene = true;
        padded_vs_plain(&s, "kv scene");
        s.qpad_n = 3, s.q_scene = true;
        s.kvv = 5, s.threads = 1;
        padded_vs_plain(&s, "both scenes");
        /* mode 0 with a mask: pre/next ignored in the scene */
        s.mask = 1, s.pre = 3, s.next = 1;
        padded_vs_plain(&s, "mask, pre/next ignored");
        s.qpad_n = -1, s.q_scene = false, s.threads = 2;
        padded_vs_plain(&s, "kv scene, mask, pre/next ignored");
        s.qpad_n = 1, s.q_scene = true, s.kvpad_n = -1, s.kv_scene = false;
        padded_vs_plain(&s, "query scene, mask, pre/next ignored");
        s.kvpad_n = 1, s.kv_scene = true, s.sparse = 1;
        padded_vs_plain(&s, "sparse 1");
        s.mask = 0, s.sparse = 3, s.pre = s.next = I32MAX;
        padded_vs_plain(&s, "sparse 3");
        s.sparse = 4, s.pre = 20, s.next = 2;
        padded_vs_plain(&s, "sparse 4");
    }
}

/* Decode: KV_S 600, split across threads (flash-decoding) or not, the fused
 * decode kernel (no mask) or the blocked loop (mask). */
static void decode(void)
{
    static const int64_t kl[B] = {593, 200, 0};
    for (int l = 0; l < 3; l++) { /* BNSD_BSND needs Q_S > 1 */
        spec s = {.layout = layouts[l], .dt = l % 2 ? FIA_DT_FP16
                                                    : FIA_DT_BF16,
                  .QS = 1, .KVS = 600, .kvlen = kl, .qpad_n = -1,
                  .kvpad_n = 1, .kvv = 7, .kv_scene = true, .pre = I32MAX,
                  .next = I32MAX, .threads = 3};
        padded_vs_plain(&s, "decode kv scene");
        s.threads = 1;
        padded_vs_plain(&s, "decode kv scene, one thread");
        s.mask = 1, s.threads = 2;
        padded_vs_plain(&s, "decode kv scene, mask");
        /* batch 0 (593 + 8 > 600) starts before row 0: zeros */
        s.kvv = 8, s.threads = 3;
        padded_vs_plain(&s, "decode, a start below 0");
        s.mask = 0;
        padded_vs_plain(&s, "decode, a start below 0, no mask");
    }
}

/* What is ignored changes nothing; what is read is element 0, a value
 * below 0 is 0, a start below 0 is never read (nor written outside). */
static void ignored_and_values(void)
{
    static const int64_t ql[B] = {97, 61, 17}, kl[B] = {150, 130, 9};
    static const int64_t dkl[B] = {593, 200, 0}, ones[B] = {1, 1, 1};
    spec s = {.layout = "BNSD", .dt = FIA_DT_FP16, .QS = 100, .KVS = 150,
              .kvlen = kl, .qpad_n = 1, .kvpad_n = -1, .qv = 5,
              .mask = 1, .pre = 3, .next = 1, .threads = 2};
    /* query padding without actual_seq_lengths: right padding, and
     * pre/next still apply */
    padded_vs_plain(&s, "query padding without its lengths");
    /* kv padding without actual_seq_lengths_kv */
    s.qlen = ql, s.kvlen = NULL, s.qpad_n = -1, s.kvpad_n = 1, s.kvv = 4;
    padded_vs_plain(&s, "kv padding without its lengths");
    /* empty padding tensors are absent */
    s.kvlen = kl, s.qpad_n = 0, s.kvpad_n = 0;
    padded_vs_plain(&s, "empty padding tensors");
    /* values below 0 are 0: the rows end at the axes' ends */
    s.mask = 0, s.pre = s.next = I32MAX;
    s.qpad_n = s.kvpad_n = 1, s.q_scene = s.kv_scene = true;
    s.qv = -5, s.kvv = INT64_MIN;
    padded_vs_plain(&s, "negative paddings");
    /* a start below 0 at Q_S > 1 (batch 0: 97 + 4 > 100): that batch is
     * unspecified, the others right; INT64_MAX: every batch */
    s.qv = 4, s.kvv = 0;
    padded_vs_plain(&s, "a query start below 0");
    s.qv = 0, s.kvv = 1, s.sparse = 3; /* batch 0: 150 + 1 > 150 */
    padded_vs_plain(&s, "a kv start below 0");
    s.qv = INT64_MAX, s.kvv = INT64_MAX - 1, s.sparse = 0;
    padded_vs_plain(&s, "INT64_MAX paddings");
    s.qv = 1, s.kvv = INT64_MAX;
    padded_vs_plain(&s, "INT64_MAX kv padding");
    /* decode: query padding (even with its lengths) is no scene */
    spec d = {.layout = "BSND", .dt = FIA_DT_BF16, .QS = 1, .KVS = 600,
              .qlen = ones, .kvlen = dkl, .qpad_n = 1, .qv = 2,
              .kvpad_n = -1, .pre = I32MAX, .next = I32MAX, .threads = 3};
    padded_vs_plain(&d, "decode query padding");
    /* every batch before row 0: zeros */
    d.qpad_n = -1, d.kvpad_n = 1, d.kvv = INT64_MAX, d.kv_scene = true;
    padded_vs_plain(&d, "decode INT64_MAX");
    d.kvv = 601;
    padded_vs_plain(&d, "decode padding beyond KV_S");
    d.kvv = -1;
    padded_vs_plain(&d, "decode padding -1");
}

/* Key/value tensor lists: kv padding at Q_S = 1 is ignored (RELEASED),
 * the query scene works with them. */
static void lists(void)
{
    static const int64_t ql[B] = {20, 7, 31}, kl[B] = {100, 64, 3};
    for (int l = 0; l < 3; l++) {
        spec s = {.layout = layouts[l], .dt = FIA_DT_FP16, .QS = 32,
                  .KVS = 100, .qlen = ql, .kvlen = kl, .qpad_n = 1,
                  .kvpad_n = -1, .qv = 1, .q_scene = true, .mask = 1,
                  .pre = 0, .next = 0, .threads = 2, .list = true};
        padded_vs_plain(&s, "lists, query scene");
        s.QS = 1, s.qlen = NULL, s.qpad_n = -1, s.q_scene = false;
        s.kvpad_n = 1, s.kvv = 3, s.mask = 0, s.pre = s.next = I32MAX;
        padded_vs_plain(&s, "lists, decode, kv padding ignored");
    }
}

/* ---- statuses ---------------------------------------------------------- */
/* BNSD fp16 shapes without data (status only), or TND ones. */
static fia_tensor small_k[B];
static api small(int64_t qs, int64_t kvs)
{
    api a = {.layout = "BNSD", .N = N, .KVN = KVN, .pre = I32MAX,
             .next = I32MAX, .kcount = 1};
    a.q = a.out = ftl_tensor("BNSD", true, FIA_DT_FP16, B, N, qs, D, NULL);
    small_k[0] = ftl_tensor("BNSD", true, FIA_DT_FP16, B, KVN, kvs, D, NULL);
    a.k[0] = a.v[0] = &small_k[0];
    a.lse = (fia_tensor){.dtype = FIA_DT_FP32, .ndim = 4,
                         .shape = {B, N, qs, 1}};
    a.qpad = a.kvpad = (fia_tensor){.dtype = FIA_DT_INT64, .ndim = 1,
                                    .shape = {1}};
    return a;
}

static int64_t lens_q[B] = {4, 2, 1}, lens_kv[B] = {40, 20, 0};
static int64_t cum_q[B] = {4, 6, 7}, cum_kv[B] = {40, 60, 60};

static void statuses(void)
{
    const fia_status SEM_DOC = FIA_ERR_PARAM_INVALID;
    const fia_status NM = FIA_ERR_NOT_MODELED;
    /* the scenes and what is ignored are accepted */
    api a = small(4, 40);
    a.has_qpad = a.has_asl = true, a.asl = (fia_int_array){B, lens_q};
    expect(&a, FIA_OK, FIA_OK, NULL, __LINE__);
    a.has_kvpad = a.has_aslkv = true, a.aslkv = (fia_int_array){B, lens_kv};
    expect(&a, FIA_OK, FIA_OK, NULL, __LINE__);
    a.has_asl = a.has_aslkv = false;
    expect(&a, FIA_OK, FIA_OK, NULL, __LINE__);
    /* a token layout: not modeled with any padding tensor of an element,
     * with or without its lengths; an empty one is absent */
    api t = small(4, 40);
    t.layout = "TND";
    t.q = t.out = (fia_tensor){.dtype = FIA_DT_BF16, .ndim = 3,
                               .shape = {7, N, 128}};
    small_k[0] = (fia_tensor){.dtype = FIA_DT_BF16, .ndim = 3,
                              .shape = {60, KVN, 128}};
    t.lse = (fia_tensor){.dtype = FIA_DT_FP32, .ndim = 3, .shape = {7, N, 1}};
    t.has_asl = t.has_aslkv = true;
    t.asl = (fia_int_array){B, cum_q}, t.aslkv = (fia_int_array){B, cum_kv};
    expect(&t, FIA_OK, FIA_OK, NULL, __LINE__);
    t.has_kvpad = true;
    expect(&t, NM, NM, "M_PADDING_LAYOUT", __LINE__);
    t.has_kvpad = false, t.has_qpad = true, t.layout = "NTD_TND";
    t.q = (fia_tensor){.dtype = FIA_DT_BF16, .ndim = 3, .shape = {N, 7, 128}};
    small_k[0] = (fia_tensor){.dtype = FIA_DT_BF16, .ndim = 3,
                              .shape = {KVN, 60, 128}};
    expect(&t, NM, NM, "M_PADDING_LAYOUT", __LINE__);
    t.qpad.shape[0] = 0;
    expect(&t, FIA_OK, FIA_OK, NULL, __LINE__);
    /* a kv scene with tensor lists at Q_S > 1: not modeled; at Q_S = 1,
     * or without the lengths, accepted */
    api l = small(4, 40);
    fia_tensor lk = ftl_tensor("BNSD", true, FIA_DT_FP16, 1, KVN, 40, D, NULL);
    l.kcount = B;
    for (int b = 0; b < B; b++)
        l.k[b] = l.v[b] = &lk;
    l.has_kvpad = true;
    expect(&l, FIA_OK, FIA_OK, NULL, __LINE__);
    l.has_aslkv = true, l.aslkv = (fia_int_array){B, lens_kv};
    expect(&l, NM, NM, "M_PADDING_LIST", __LINE__);
    l.kvpad.shape[0] = 0;
    expect(&l, FIA_OK, FIA_OK, NULL, __LINE__);
    l.kvpad.shape[0] = 1;
    l.q = l.out = ftl_tensor("BNSD", true, FIA_DT_FP16, B, N, 1, D, NULL);
    l.lse.shape[2] = 1;
    expect(&l, FIA_OK, FIA_OK, NULL, __LINE__);
    /* the dtype layer comes first */
    api x = small(4, 40);
    x.has_kvpad = x.has_aslkv = true, x.aslkv = (fia_int_array){B, lens_kv};
    x.kvpad.dtype = FIA_DT_INT32;
    expect(&x, SEM_DOC, SEM_DOC, "T_OPTIONAL", __LINE__);
}

/* Page attention: a left-padding scene is rejected at Q_S > 1 in both
 * profiles; at Q_S = 1 the kv scene is rejected in profile doc, ignored in
 * profile cann (the outputs those of the call without it); query padding
 * at Q_S = 1 is no scene. */
static void paged(void)
{
    enum { KVS = 256 };
    static int64_t kl[B] = {256, 100, 17}, ql[B] = {4, 3, 1};
    static int64_t padv[1] = {7};
    for (int64_t qs = 4; qs >= 1; qs -= 3) {
        const int64_t bs = qs == 1 ? 16 : 128, cols = KVS / bs;
        const int64_t blocknum = B * cols, nc = blocknum * bs * KVN * D;
        const int64_t nq = B * N * qs * D;
        int32_t *tab = malloc((size_t)blocknum * sizeof *tab);
        uint16_t *kc = malloc((size_t)nc * 2), *vc = malloc((size_t)nc * 2);
        uint16_t *q = malloc((size_t)nq * 2), *o1 = malloc((size_t)nq * 2);
        uint16_t *o2 = malloc((size_t)nq * 2);
        float *l1 = malloc((size_t)(B * N * qs) * 4);
        float *l2 = malloc((size_t)(B * N * qs) * 4);
        for (int64_t i = 0; i < blocknum; i++) tab[i] = (int32_t)i;
        for (int64_t i = 0; i < nc; i++)
            kc[i] = ftl_rnd(FIA_DT_FP16), vc[i] = ftl_rnd(FIA_DT_FP16);
        for (int64_t i = 0; i < nq; i++) q[i] = ftl_rnd(FIA_DT_FP16);
        fia_tensor kt = {.dtype = FIA_DT_FP16, .ndim = 3,
                         .shape = {blocknum, bs, KVN * D}, .data = kc};
        fia_tensor vt = kt;
        vt.data = vc;
        api a = small(qs, KVS);
        a.q.data = q, a.out.data = o1, a.lse.data = l1;
        a.k[0] = &kt, a.v[0] = &vt;
        a.has_bt = true, a.block_size = bs;
        a.bt = (fia_tensor){.dtype = FIA_DT_INT32, .ndim = 2,
                            .shape = {B, cols}, .data = tab};
        a.has_aslkv = true, a.aslkv = (fia_int_array){B, kl};
        a.qpad.data = a.kvpad.data = padv;
        expect(&a, FIA_OK, FIA_OK, NULL, __LINE__);
        a.has_qpad = true; /* without actual_seq_lengths: no scene */
        expect(&a, FIA_OK, FIA_OK, NULL, __LINE__);
        a.has_asl = true, a.asl = (fia_int_array){B, ql};
        if (qs > 1)
            expect(&a, FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
                   "S_PAGED_PADDING", __LINE__);
        else /* query padding at Q_S = 1 is no scene */
            expect(&a, FIA_OK, FIA_OK, NULL, __LINE__);
        a.has_qpad = a.has_asl = false;
        a.has_kvpad = true;
        a.kvpad.shape[0] = 0; /* empty: absent */
        expect(&a, FIA_OK, FIA_OK, NULL, __LINE__);
        a.kvpad.shape[0] = 1;
        expect(&a, FIA_ERR_PARAM_INVALID,
               qs > 1 ? FIA_ERR_INNER_TILING_ERROR : FIA_OK,
               "S_PAGED_PADDING", __LINE__);
        if (qs == 1) {
            /* profile cann: the kv padding changes nothing */
            fastSetStatusProfile(FIA_PROFILE_CANN);
            fastSetThreadCount(2);
            CHECK_EQ_INT(run(&a), FIA_OK);
            a.has_kvpad = false, a.out.data = o2, a.lse.data = l2;
            CHECK_EQ_INT(run(&a), FIA_OK);
            CHECK_MSG(memcmp(o1, o2, (size_t)nq * 2) == 0 &&
                          memcmp(l1, l2, (size_t)(B * N) * 4) == 0,
                      "paged decode: kv padding not ignored in profile cann");
            fastSetThreadCount(0);
            fastSetStatusProfile(FIA_PROFILE_DOC);
        }
        free(tab), free(kc), free(vc), free(q), free(o1), free(o2);
        free(l1), free(l2);
    }
}

/* A scene's padding tensor without data: 361001 before anything is
 * written; an ignored one is never read. */
static void no_data(void)
{
    static const int64_t ql[B] = {9, 10, 1}, kl[B] = {20, 3, 0};
    spec s = {.layout = "BSND", .dt = FIA_DT_FP16, .QS = 10, .KVS = 20,
              .qlen = ql, .kvlen = kl, .qpad_n = 1, .kvpad_n = 1,
              .pre = I32MAX, .next = I32MAX};
    buffers x = alloc_buffers(&s);
    for (int64_t i = 0; i < x.nq; i++) x.q[i] = ftl_rnd(s.dt);
    for (int64_t i = 0; i < x.nkv; i++) x.k[i] = x.v[i] = ftl_rnd(s.dt);
    int64_t pq[3], pkv[3];
    fia_tensor kt[B], vt[B];
    api a = api_of(&s, &x, true, pq, pkv, kt, vt);
    for (int w = 0; w < 2; w++) {
        a.qpad.data = w ? pq : NULL;
        a.kvpad.data = w ? NULL : pkv;
        CHECK_EQ_INT(run(&a), FIA_ERR_RUNTIME_ERROR);
        CHECK_MSG(strncmp(fastLastError(), "R_NO_DATA", 9) == 0, "%s",
                  fastLastError());
        CHECK(x.o[0] == SENT && x.o[x.nq - 1] == SENT);
    }
    /* no scene without the lengths: nothing read */
    a.has_asl = a.has_aslkv = false;
    a.qpad.data = a.kvpad.data = NULL;
    CHECK_EQ_INT(run(&a), FIA_OK);
    /* query padding at Q_S = 1: nothing read either */
    free_buffers(&x);
}

int main(void)
{
    prefill();
    decode();
    ftl_poison_finite = true;
    prefill();
    decode();
    ftl_poison_finite = false;
    ignored_and_values();
    lists();
    statuses();
    paged();
    no_data();
    return check_summary();
}
