/* fast/ key/value tensor lists: their checks broken and obeyed (both
 * profiles), the exclusions decided before "not modeled", and the
 * arithmetic against the same keys batched (bit for bit: the same rows in
 * the same order), each batch's tensor of its own S with NaN rows past its
 * length.  Run once per ISA level (CMakeLists.txt). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fast_testlib.h"
#include "fast_expect.h"
#include "fia/dtype.h"
#include "fia/fast.h"

/* A BNSD call: query [B, N, Q_S, D], key/value n tensors (kt[i]). */
typedef struct call {
    int64_t B, N, KV_N, D;
    fia_tensor q, out;
    fia_tensor kt[4], vt[4];
    int n;
    fia_int_array aslkv;
    bool has_aslkv;
    const fia_tensor *prefix, *kaq;
} call;

static fia_status phase(call *c, bool run)
{
    const fia_tensor *kp[4], *vp[4];
    for (int i = 0; i < c->n; i++)
        kp[i] = &c->kt[i], vp[i] = &c->vt[i];
    fia_tensor_list kl = {c->n, kp}, vl = {c->n, vp};
    fast_executor *ex = NULL;
    uint64_t wss = 0;
    fia_status st = fastFusedInferAttentionScoreV2GetWorkspaceSize(
        &c->q, &kl, &vl, NULL, NULL, NULL, c->has_aslkv ? &c->aslkv : NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, c->kaq,
        NULL, c->kaq, NULL, c->prefix, c->prefix, NULL, c->N, 0.125,
        2147483647, 2147483647, "BNSD", c->KV_N, 0, 1, 0, 0, false, 0, 0,
        &c->out, NULL, &wss, &ex);
    if (st != FIA_OK || !run) {
        fastExecutorDestroy(ex);
        return st;
    }
    st = ftl_phase_two(ex, wss);
    return st;
}

static fia_tensor t4(int64_t a, int64_t b, int64_t c, int64_t d)
{
    return (fia_tensor){.dtype = FIA_DT_FP16, .ndim = 4, .shape = {a, b, c, d}};
}

/* B 3, N 4, KV_N 2, D 16, Q_S qs; tensors of S 30, 17, 5. */
static call base(int64_t qs)
{
    call c = {.B = 3, .N = 4, .KV_N = 2, .D = 16, .n = 3};
    c.q = c.out = t4(3, 4, qs, 16);
    const int64_t s[3] = {30, 17, 5};
    for (int i = 0; i < 3; i++)
        c.kt[i] = c.vt[i] = t4(1, 2, s[i], 16);
    return c;
}

static fia_status list_status(void *c)
{
    return phase(c, false);
}

static void expect(call *c, const char *id, int line)
{
    const fia_status want = id == NULL ? FIA_OK : FIA_ERR_PARAM_INVALID;
    ftl_expect_profiles(list_status, c, want, ftl_cann_status(want, false),
                        id, line);
}

static void validation(void)
{
    call c = base(4);
    expect(&c, NULL, __LINE__);
    c = base(1);
    expect(&c, NULL, __LINE__);
    /* one tensor per batch */
    c = base(4), c.n = 2, c.q = c.out = t4(3, 4, 4, 16);
    expect(&c, "S_LIST_COUNT", __LINE__);
    c = base(4), c.vt[2] = t4(1, 2, 6, 16);
    expect(&c, "S_LIST_SHAPE", __LINE__);
    c = base(4), c.kt[1] = c.vt[1] = t4(2, 2, 17, 16);
    expect(&c, "S_LIST_BATCH", __LINE__);
    c = base(4), c.kt[2] = c.vt[2] = t4(1, 1, 5, 16);
    expect(&c, "S_LIST_HEADS", __LINE__);
    c = base(4), c.kt[0] = c.vt[0] = t4(1, 2, 30, 32);
    expect(&c, "S_LIST_HEADS", __LINE__);
    c = base(4), c.kt[1].dtype = c.vt[1].dtype = FIA_DT_BF16;
    expect(&c, "S_KV_DTYPE", __LINE__);
    /* an int8 tensor anywhere in the lists: not the first tensor's dtype
     * (found by fuzz_params: only the first tensor was looked at); int8
     * lists throughout are the antiquant scene
     * (test_fast_antiquant_checks.c) */
    c = base(4), c.kt[2].dtype = c.vt[2].dtype = FIA_DT_INT8;
    expect(&c, "S_KV_DTYPE", __LINE__);
    /* each batch's length within its own tensor */
    static int64_t ok_len[3] = {30, 17, 0}, bad_len[3] = {30, 18, 5};
    c = base(4), c.has_aslkv = true, c.aslkv = (fia_int_array){3, ok_len};
    expect(&c, NULL, __LINE__);
    c.aslkv = (fia_int_array){3, bad_len};
    expect(&c, "S_LIST_ASLKV", __LINE__);
    /* a call that reads no key (every length 0, or every key S 0): the
     * pairs are compared all the same, in profile cann too (the released
     * code's list checks come before its early return for such a call:
     * check_tensor_list.c) */
    static int64_t no_len[3] = {0, 0, 0};
    c = base(4), c.has_aslkv = true, c.aslkv = (fia_int_array){3, no_len};
    expect(&c, NULL, __LINE__);
    c.vt[1] = t4(1, 2, 18, 16);
    expect(&c, "S_LIST_SHAPE", __LINE__);
    c = base(1);
    for (int i = 0; i < 3; i++)
        c.kt[i] = c.vt[i] = t4(1, 2, 0, 16);
    expect(&c, NULL, __LINE__);
    c.vt[2] = t4(1, 2, 1, 16);
    expect(&c, "S_LIST_SHAPE", __LINE__);
    /* B > 256 with lists (the count check would fire too; B first) */
    c = base(4), c.q = c.out = t4(257, 4, 4, 16);
    expect(&c, "S_LIST_B", __LINE__);
    /* exclusions, decided before the prefix / antiquant refusals */
    fia_tensor pfx = t4(1, 2, 8, 16), aq = {.dtype = FIA_DT_FP32, .ndim = 2,
                                            .shape = {3, 30}};
    c = base(4), c.prefix = &pfx;
    expect(&c, "S_LIST_PREFIX", __LINE__);
    c = base(4), c.kaq = &aq;
    expect(&c, "S_LIST_ANTIQUANT", __LINE__);
}

/* The lists against the batched call of the same keys. */
static void list_vs_batched(int64_t qs, int threads)
{
    enum { B = 3, N = 4, KVN = 2, D = 16, S = 30 };
    static int64_t lens[B] = {30, 17, 5};
    fastSetThreadCount(threads);
    const int64_t nq = B * N * qs * D, nkv = B * KVN * S * D;
    uint16_t *q = malloc((size_t)nq * 2), *k = malloc((size_t)nkv * 2);
    uint16_t *v = malloc((size_t)nkv * 2);
    uint16_t *o1 = calloc((size_t)nq, 2), *o2 = calloc((size_t)nq, 2);
    for (int64_t i = 0; i < nq; i++) q[i] = ftl_rnd(FIA_DT_FP16);
    for (int64_t i = 0; i < nkv; i++)
        k[i] = ftl_rnd(FIA_DT_FP16), v[i] = ftl_rnd(FIA_DT_FP16);
    call c = {.B = B, .N = N, .KV_N = KVN, .D = D, .n = 1, .has_aslkv = true,
              .aslkv = {B, lens}};
    c.q = t4(B, N, qs, D), c.q.data = q;
    c.out = c.q, c.out.data = o1;
    c.kt[0] = t4(B, KVN, S, D), c.kt[0].data = k;
    c.vt[0] = c.kt[0], c.vt[0].data = v;
    CHECK_EQ_INT(phase(&c, true), FIA_OK);
    /* tensor b: [1, KVN, S_b, D], S_b = lens[b] + 2, NaN past lens[b] */
    uint16_t *kl[B], *vl[B];
    c.n = B;
    for (int b = 0; b < B; b++) {
        const int64_t sb = lens[b] + 2;
        kl[b] = malloc((size_t)(KVN * sb * D) * 2);
        vl[b] = malloc((size_t)(KVN * sb * D) * 2);
        for (int64_t h = 0; h < KVN; h++)
            for (int64_t j = 0; j < sb; j++)
                for (int64_t d = 0; d < D; d++) {
                    int64_t dst = (h * sb + j) * D + d;
                    int64_t src = ((b * KVN + h) * S + j) * D + d;
                    kl[b][dst] = j < lens[b] ? k[src] : 0x7e00;
                    vl[b][dst] = j < lens[b] ? v[src] : 0x7e00;
                }
        c.kt[b] = t4(1, KVN, sb, D), c.kt[b].data = kl[b];
        c.vt[b] = c.kt[b], c.vt[b].data = vl[b];
    }
    c.out.data = o2;
    CHECK_EQ_INT(phase(&c, true), FIA_OK);
    CHECK_MSG(memcmp(o1, o2, (size_t)nq * 2) == 0, "Q_S %lld threads %d: the "
              "lists' outputs differ from the batched call's", (long long)qs,
              threads);
    /* a list tensor without data: a runtime error, not a read */
    c.kt[1].data = NULL;
    CHECK_EQ_INT(phase(&c, true), FIA_ERR_RUNTIME_ERROR);
    for (int b = 0; b < B; b++)
        free(kl[b]), free(vl[b]);
    free(q), free(k), free(v), free(o1), free(o2);
    fastSetThreadCount(0);
}

int main(void)
{
    validation();
    list_vs_batched(1, 2);
    list_vs_batched(1, 3);
    list_vs_batched(6, 1);
    list_vs_batched(40, 2);
    return check_summary();
}
