/* fast/ page attention: its checks broken and obeyed (both profiles), the
 * block ids phase two checks before reading, and its arithmetic against the
 * same keys laid out contiguously (fast/ against itself: the reference
 * comparison is the corpus's).  Run once per ISA level (CMakeLists.txt). */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fast_testlib.h"
#include "fast_expect.h"
#include "fia/dtype.h"
#include "fia/fast.h"
#include "test_rng.h"

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint32_t next32(void) { return test_lcg64_hi31(&rng); }

static uint16_t rand_fp16(void)
{
    /* a float in [-2, 2) with 10 fraction bits: exact in fp16 */
    float x = ((float)(next32() % 4096) - 2048.0f) / 1024.0f;
    return fia_float_to_fp16(x);
}

/* One call: query BNSD [B, N, Q_S, D] or BSH [B, Q_S, N*D]; key/value a
 * contiguous [B, KV_N, KV_S, D] (BNSD) / [B, KV_S, KV_N*D] (BSH) or a cache
 * (rank 3 or 4) with a block table. */
typedef struct call {
    const char *layout;
    int64_t B, N, KV_N, Q_S, D, block_size;
    fia_tensor q, k, v, out, bt;
    bool paged;
    fia_int_array aslkv;
    bool has_aslkv;
} call;

static fia_status phase_one(call *c, fast_executor **ex, uint64_t *ws)
{
    const fia_tensor *kp[1] = {&c->k}, *vp[1] = {&c->v};
    fia_tensor_list kl = {1, kp}, vl = {1, vp};
    return fastFusedInferAttentionScoreV2GetWorkspaceSize(
        &c->q, &kl, &vl, NULL, NULL, NULL, c->has_aslkv ? &c->aslkv : NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, c->paged ? &c->bt : NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, c->N, 0.125,
        2147483647, 2147483647, c->layout, c->KV_N, 0, 1, c->block_size, 0,
        false, 0, 0, &c->out, NULL, ws, ex);
}

static fia_status run(call *c)
{
    fast_executor *ex = NULL;
    uint64_t wss = 0;
    fia_status st = phase_one(c, &ex, &wss);
    if (st != FIA_OK)
        return st;
    st = ftl_phase_two(ex, wss);
    return st;
}

static fia_tensor tensor(int nd, const int64_t *dims, fia_dtype dt)
{
    fia_tensor t = {.dtype = dt, .ndim = nd};
    for (int i = 0; i < nd; i++)
        t.shape[i] = dims[i];
    return t;
}

/* ---- validation ------------------------------------------------------ */

/* BNSD B=2 N=2 KV_N=1 D=16 fp16, Q_S given, a 3-D cache of 20 blocks of
 * block_size rows, kv lengths {200, 56}: at block_size 128 blocks 2 + 1
 * (16: 13 + 4), table [2, 13]. */
static int64_t lens[2] = {200, 56};
static call base(int64_t qs, int64_t bs)
{
    call c = {.layout = "BNSD", .B = 2, .N = 2, .KV_N = 1, .Q_S = qs,
              .D = 16, .block_size = bs, .paged = true, .has_aslkv = true};
    c.q = c.out = tensor(4, (int64_t[]){2, 2, qs, 16}, FIA_DT_FP16);
    c.k = c.v = tensor(3, (int64_t[]){20, bs, 16}, FIA_DT_FP16);
    c.bt = tensor(2, (int64_t[]){2, 13}, FIA_DT_INT32);
    c.aslkv = (fia_int_array){2, lens};
    return c;
}

/* Phase one's status in the profile set (the executor destroyed). */
static fia_status paged_status(void *c)
{
    fast_executor *ex = NULL;
    uint64_t ws = 0;
    fia_status got = phase_one(c, &ex, &ws);
    fastExecutorDestroy(ex);
    return got;
}

static void expect(call *c, fia_status want_doc, const char *id, int line)
{
    ftl_expect_profiles(paged_status, c, want_doc,
                        ftl_cann_status(want_doc, ftl_dtype_layer_id(id)), id,
                        line);
}

#define OK(...) do { call c_ok = __VA_ARGS__; expect(&c_ok, FIA_OK, NULL, __LINE__); } while (0)
#define BAD(id, ...) do { call c_bad = __VA_ARGS__; expect(&c_bad, FIA_ERR_PARAM_INVALID, id, __LINE__); } while (0)
#define SET(field, value) ({ call c_ = base(4, 128); c_.field = value; c_; })

static call with_bs(int64_t qs, int64_t bs, fia_dtype kvdt)
{
    call c = base(qs, bs);
    c.k.dtype = c.v.dtype = kvdt;
    if (kvdt != FIA_DT_INT8)
        c.q.dtype = c.out.dtype = kvdt;
    return c;
}

static void validation(void)
{
    OK(base(4, 128));
    OK(base(1, 128));
    /* block_size per path (002 约束说明): Q_S > 1 multiple of 128 in
     * [128, 512]; Q_S = 1 non-zero, <= 512, 16-aligned (fp16/bf16) */
    OK(base(4, 512));
    BAD("S_PAGED_BLOCK_SIZE", base(4, 64));
    BAD("S_PAGED_BLOCK_SIZE", base(4, 640));
    BAD("S_PAGED_BLOCK_SIZE", base(4, 192));
    OK(base(1, 16));
    OK(base(1, 48));
    BAD("S_PAGED_BLOCK_SIZE", base(1, 8));
    BAD("S_PAGED_BLOCK_SIZE", base(1, 528));
    BAD("S_PAGED_BLOCK_SIZE", base(1, 0));
    OK(with_bs(1, 512, FIA_DT_BF16));
    /* an empty query (Q_S = 0) is not the decode path: Q_S > 1's rules
     * (the oracle's path is Q_S == 1 ? decode : prefill; found by
     * fuzz_params) */
    BAD("S_PAGED_BLOCK_SIZE", base(0, 32));
    /* int8 KV needs 32-alignment at Q_S = 1: the check reads the dtype
     * before int8 KV (antiquant, not modeled) is refused */
    BAD("S_PAGED_BLOCK_SIZE", with_bs(1, 48, FIA_DT_INT8));
    /* the cache: rank, dims, 4-D only with BNSD */
    {
        call c = base(4, 128);
        c.k = c.v = tensor(3, (int64_t[]){4, 64, 16}, FIA_DT_FP16);
        BAD("S_PAGED_CACHE", c);
    }
    {
        call c = base(4, 128);
        c.k = c.v = tensor(3, (int64_t[]){4, 128, 32}, FIA_DT_FP16);
        BAD("S_PAGED_CACHE", c);
    }
    {
        call c = base(4, 128);
        c.k = c.v = tensor(4, (int64_t[]){4, 1, 128, 16}, FIA_DT_FP16);
        OK(c);
        c.layout = "BNSD_BSND"; /* its input is BNSD */
        c.out = tensor(4, (int64_t[]){2, 4, 2, 16}, FIA_DT_FP16);
        OK(c);
        c.layout = "BNSD";
        c.out = c.q;
        c.k = c.v = tensor(4, (int64_t[]){4, 2, 128, 16}, FIA_DT_FP16);
        BAD("S_PAGED_CACHE", c);
        c.k = c.v = tensor(4, (int64_t[]){4, 1, 256, 16}, FIA_DT_FP16);
        BAD("S_PAGED_CACHE", c);
        c.k = c.v = tensor(4, (int64_t[]){4, 1, 128, 32}, FIA_DT_FP16);
        BAD("S_PAGED_CACHE", c);
        c.k = c.v = tensor(2, (int64_t[]){4, 2048}, FIA_DT_FP16);
        BAD("S_PAGED_CACHE", c);
        c.k = c.v = tensor(5, (int64_t[]){4, 1, 128, 16, 1}, FIA_DT_FP16);
        BAD("S_PAGED_CACHE", c);
    }
    {
        /* 4-D cache with a BSH query: refused; a 3-D one is fine */
        call c = base(4, 128);
        c.layout = "BSH";
        c.q = c.out = tensor(3, (int64_t[]){2, 4, 32}, FIA_DT_FP16);
        OK(c);
        c.k = c.v = tensor(4, (int64_t[]){4, 1, 128, 16}, FIA_DT_FP16);
        BAD("S_PAGED_CACHE", c);
    }
    {
        /* (blocknum, block_size, H) with KV_N*D above 65535 */
        call c = base(1, 16);
        c.N = c.KV_N = 256;
        c.D = 512;
        c.q = c.out = tensor(4, (int64_t[]){2, 256, 1, 512}, FIA_DT_FP16);
        c.k = c.v = tensor(3, (int64_t[]){4, 16, 256 * 512}, FIA_DT_FP16);
        c.bt = tensor(2, (int64_t[]){2, 13}, FIA_DT_INT32);
        BAD("S_PAGED_H_MAX", c);
        /* the 4-D cache has no such limit */
        c.k = c.v = tensor(4, (int64_t[]){17, 256, 16, 512}, FIA_DT_FP16);
        OK(c);
        /* Q_S = 1: a cache beyond int32 elements (000 / 003) */
        c.k = c.v = tensor(4, (int64_t[]){17 * 1024, 256, 16, 512}, FIA_DT_FP16);
        BAD("S_PAGED_NUMEL", c);
    }
    /* lengths and table */
    BAD("S_PAGED_ASLKV", SET(has_aslkv, false));
    BAD("S_PAGED_TABLE", SET(bt, tensor(2, (int64_t[]){2, 1}, FIA_DT_INT32)));
    BAD("S_PAGED_TABLE", SET(bt, tensor(2, (int64_t[]){1, 13}, FIA_DT_INT32)));
    BAD("S_PAGED_TABLE", SET(bt, tensor(1, (int64_t[]){4}, FIA_DT_INT32)));
    OK(SET(bt, tensor(2, (int64_t[]){2, 9}, FIA_DT_INT32)));
    {
        call c = base(4, 128);
        c.k = c.v = tensor(3, (int64_t[]){2, 128, 16}, FIA_DT_FP16);
        BAD("S_PAGED_BLOCKNUM", c);
        c.k = c.v = tensor(3, (int64_t[]){3, 128, 16}, FIA_DT_FP16);
        OK(c); /* exactly the 2 + 1 blocks */
    }
    BAD("T_OPTIONAL", SET(bt, tensor(2, (int64_t[]){2, 13}, FIA_DT_INT64)));
    /* kv lengths beyond the table's reach are the seqlen rule's, through
     * KV_S = the longest batch's blocks x block_size */
    {
        static int64_t neg[2] = {-1, 56};
        BAD("S_ASLKV_VALUE", SET(aslkv, ((fia_int_array){2, neg})));
    }
}

/* Exclusions: rejected even where the other feature is not modeled. */
static void exclusions(void)
{
    call c = base(4, 128);
    const fia_tensor *kp[2] = {&c.k, &c.k}, *vp[2] = {&c.v, &c.v};
    fia_tensor_list kl = {2, kp}, vl = {2, vp};
    fia_tensor pad = tensor(1, (int64_t[]){1}, FIA_DT_INT64);
    /* query padding is a scene with its lengths (test_fast_padding.c has
     * the rest of the reading) */
    static int64_t qlens[2] = {4, 3};
    fia_int_array asl = {2, qlens};
    fia_tensor aq = tensor(1, (int64_t[]){1}, FIA_DT_FP16);
    fia_tensor pfx = tensor(4, (int64_t[]){1, 1, 16, 16}, FIA_DT_FP16);
    for (int x = 0; x < 5; x++) {
        for (int prof = 0; prof < 2; prof++) {
            fastSetStatusProfile(prof ? FIA_PROFILE_CANN : FIA_PROFILE_DOC);
            const fia_tensor *op[16] = {0};
            op[7] = &c.bt;
            const char *id = "S_PAGED_LIST";
            if (x == 1) op[8] = &pad, id = "S_PAGED_PADDING";
            if (x == 2) op[9] = &pad, id = "S_PAGED_PADDING";
            if (x == 3) op[14] = op[15] = &pfx, id = "S_PAGED_PREFIX";
            if (x == 4) op[5] = &aq, id = "S_PAGED_ANTIQUANT";
            uint64_t ws;
            fast_executor *ex = NULL;
            fia_status st = fastFusedInferAttentionScoreV2GetWorkspaceSize(
                &c.q, x == 0 ? &kl : &(fia_tensor_list){1, kp},
                x == 0 ? &vl : &(fia_tensor_list){1, vp}, NULL, NULL,
                x == 1 ? &asl : NULL, &c.aslkv, op[0], op[1], op[2], op[3], op[4], op[5], op[6],
                op[7], op[8], op[9], op[10], op[11], op[12], op[13], op[14],
                op[15], NULL, c.N, 0.125, 2147483647, 2147483647, c.layout,
                c.KV_N, 0, 1, c.block_size, 0, false, 0, 0, &c.out, NULL,
                &ws, &ex);
            CHECK_MSG(st == (prof ? FIA_ERR_INNER_TILING_ERROR
                                  : FIA_ERR_PARAM_INVALID),
                      "exclusion %d: status %d (%s)", x, st, fastLastError());
            CHECK_MSG(strncmp(fastLastError(), id, strlen(id)) == 0,
                      "exclusion %d: \"%s\" does not name %s", x,
                      fastLastError(), id);
            fastExecutorDestroy(ex);
        }
    }
    fastSetStatusProfile(FIA_PROFILE_DOC);
    /* int8 query at Q_S > 1; at Q_S = 1 the exclusion does not apply (int8
     * query is then refused as not modeled) */
    call q_int8 = base(4, 128);
    q_int8.q.dtype = FIA_DT_INT8;
    expect(&q_int8, FIA_ERR_PARAM_INVALID, "S_PAGED_INT8_QUERY", __LINE__);
    /* int4 KV with an fp16 query */
    /* antiquant with an empty query (Q_S = 0): refused as at Q_S > 1 */
    call aq0 = base(0, 128);
    {
        fia_tensor aqs = tensor(1, (int64_t[]){1}, FIA_DT_FP16);
        const fia_tensor *kp1[1] = {&aq0.k}, *vp1[1] = {&aq0.v};
        fia_tensor_list kl1 = {1, kp1}, vl1 = {1, vp1};
        uint64_t ws;
        fast_executor *ex = NULL;
        fia_status st = fastFusedInferAttentionScoreV2GetWorkspaceSize(
            &aq0.q, &kl1, &vl1, NULL, NULL, NULL, &aq0.aslkv, NULL, NULL,
            NULL, NULL, NULL, &aqs, NULL, &aq0.bt, NULL, NULL, NULL, NULL,
            NULL, NULL, NULL, NULL, NULL, aq0.N, 0.125, 2147483647,
            2147483647, aq0.layout, aq0.KV_N, 0, 1, aq0.block_size, 0, false,
            0, 0, &aq0.out, NULL, &ws, &ex);
        CHECK_MSG(st == FIA_ERR_PARAM_INVALID &&
                      strncmp(fastLastError(), "S_PAGED_ANTIQUANT", 17) == 0,
                  "antiquant at Q_S = 0: %d %s", st, fastLastError());
        fastExecutorDestroy(ex);
    }
    call k4 = base(1, 16);
    k4.k.dtype = k4.v.dtype = FIA_DT_INT4;
    expect(&k4, FIA_ERR_PARAM_INVALID, "S_PAGED_INT4", __LINE__);
}

/* ---- arithmetic ------------------------------------------------------ */

/* BNSD problem B=3 N=4 KV_N=2 D=32, kv lengths {300, 0, 129}, Q_S given:
 * run contiguously, then paged with a shuffled table (3-D or 4-D cache, a
 * block shared by batches 0 and 2 when `share`), outputs compared. */
static void paged_vs_contiguous(int64_t qs, int64_t bs, bool cache4d,
                                bool share, int threads)
{
    enum { B = 3, N = 4, KVN = 2, D = 32, KVS = 320 };
    static int64_t kvl[B] = {300, 0, 129};
    fastSetThreadCount(threads);
    const int64_t nq = (int64_t)B * N * qs * D, nkv = (int64_t)B * KVN * KVS * D;
    uint16_t *q = malloc((size_t)nq * 2), *k = malloc((size_t)nkv * 2);
    uint16_t *v = malloc((size_t)nkv * 2);
    uint16_t *o1 = calloc((size_t)nq, 2), *o2 = calloc((size_t)nq, 2);
    for (int64_t i = 0; i < nq; i++) q[i] = rand_fp16();
    for (int64_t i = 0; i < nkv; i++) k[i] = rand_fp16(), v[i] = rand_fp16();
    /* batch 2's first block shares batch 0's first: make its keys equal */
    if (share)
        for (int64_t h = 0; h < KVN; h++)
            for (int64_t j = 0; j < bs && j < kvl[2]; j++) {
                int64_t src = ((0 * KVN + h) * KVS + j) * D;
                int64_t dst = ((2 * KVN + h) * KVS + j) * D;
                memcpy(k + dst, k + src, D * 2);
                memcpy(v + dst, v + src, D * 2);
            }
    call c = {.layout = "BNSD", .B = B, .N = N, .KV_N = KVN, .Q_S = qs,
              .D = D, .has_aslkv = true, .aslkv = {B, kvl}};
    c.q = tensor(4, (int64_t[]){B, N, qs, D}, FIA_DT_FP16);
    c.q.data = q;
    c.out = c.q;
    c.out.data = o1;
    c.k = tensor(4, (int64_t[]){B, KVN, KVS, D}, FIA_DT_FP16);
    c.v = c.k;
    c.k.data = k, c.v.data = v;
    CHECK_EQ_INT(run(&c), FIA_OK);

    /* the table: each batch's blocks, ids a shuffle of 0..blocknum-1 */
    const int64_t cols = (KVS + bs - 1) / bs, blocknum = B * cols + 1;
    int32_t *tab = malloc((size_t)(B * cols) * sizeof *tab);
    int32_t *perm = malloc((size_t)blocknum * sizeof *perm);
    for (int64_t i = 0; i < blocknum; i++) perm[i] = (int32_t)i;
    for (int64_t i = blocknum - 1; i > 0; i--) {
        int64_t j = next32() % (uint32_t)(i + 1);
        int32_t t = perm[i]; perm[i] = perm[j]; perm[j] = t;
    }
    for (int64_t i = 0; i < B * cols; i++)
        tab[i] = perm[i];
    for (int64_t b = 0; b < B; b++) /* entries no key reaches: anything */
        for (int64_t m = (kvl[b] + bs - 1) / bs; m < cols; m++)
            tab[b * cols + m] = -1 - (int32_t)m;
    if (share)
        tab[2 * cols] = tab[0];
    const int64_t ncache = blocknum * bs * KVN * D;
    uint16_t *kc = calloc((size_t)ncache, 2), *vc = calloc((size_t)ncache, 2);
    for (int64_t b = 0; b < B; b++)
        for (int64_t h = 0; h < KVN; h++)
            for (int64_t j = 0; j < kvl[b]; j++) {
                int64_t id = tab[b * cols + j / bs], o = j % bs;
                int64_t dst = cache4d ? ((id * KVN + h) * bs + o) * D
                                      : ((id * bs + o) * KVN + h) * D;
                int64_t src = ((b * KVN + h) * KVS + j) * D;
                memcpy(kc + dst, k + src, D * 2);
                memcpy(vc + dst, v + src, D * 2);
            }
    c.paged = true;
    c.block_size = bs;
    c.k = cache4d ? tensor(4, (int64_t[]){blocknum, KVN, bs, D}, FIA_DT_FP16)
                  : tensor(3, (int64_t[]){blocknum, bs, KVN * D}, FIA_DT_FP16);
    c.v = c.k;
    c.k.data = kc, c.v.data = vc;
    c.bt = tensor(2, (int64_t[]){B, cols}, FIA_DT_INT32);
    c.bt.data = tab;
    c.out.data = o2;
    CHECK_EQ_INT(run(&c), FIA_OK);
    /* The same keys in the same order, block sizes multiples of 16 as the
     * kernels' blocks: the same arithmetic, bit for bit. */
    int64_t worst = 0;
    for (int64_t i = 0; i < nq; i++) {
        int64_t d = (int64_t)o1[i] - (int64_t)o2[i];
        d = d < 0 ? -d : d;
        if ((o1[i] ^ o2[i]) & 0x8000)
            d = o1[i] == o2[i] ? 0 : 1000; /* sign differs */
        worst = d > worst ? d : worst;
    }
    int64_t allowed = 0;
    CHECK_MSG(worst <= allowed, "Q_S %lld bs %lld %s%s threads %d: %lld ulps "
              "apart (allowed %lld)", (long long)qs, (long long)bs,
              cache4d ? "4-D" : "3-D", share ? " shared" : "", threads,
              (long long)worst, (long long)allowed);

    /* an id read that lies outside the cache: 361001, output untouched */
    memset(o2, 0x7e, (size_t)nq * 2);
    tab[cols] = tab[0]; /* batch 1 reads nothing: still fine */
    CHECK_EQ_INT(run(&c), FIA_OK);
    const int64_t last = 2 * cols + (kvl[2] + bs - 1) / bs - 1;
    int32_t keep = tab[last];
    tab[last] = (int32_t)blocknum;
    memset(o2, 0x7e, (size_t)nq * 2);
    CHECK_EQ_INT(run(&c), FIA_ERR_RUNTIME_ERROR);
    CHECK(strstr(fastLastError(), "R_BLOCK_ID") != NULL);
    CHECK(o2[0] == 0x7e7e && o2[nq - 1] == 0x7e7e);
    tab[last] = -5;
    CHECK_EQ_INT(run(&c), FIA_ERR_RUNTIME_ERROR);
    tab[last] = keep;
    /* no data for the table: a runtime error too */
    c.bt.data = NULL;
    CHECK_EQ_INT(run(&c), FIA_ERR_RUNTIME_ERROR);
    free(q), free(k), free(v), free(o1), free(o2), free(tab), free(perm);
    free(kc), free(vc);
    fastSetThreadCount(0);
}

int main(void)
{
    validation();
    exclusions();
    for (int cache4d = 0; cache4d < 2; cache4d++)
        for (int share = 0; share < 2; share++) {
            paged_vs_contiguous(1, 16, cache4d, share, 2);
            paged_vs_contiguous(1, 128, cache4d, share, 3);
            paged_vs_contiguous(1, 48, cache4d, share, 1);
            paged_vs_contiguous(5, 128, cache4d, share, 2);
            paged_vs_contiguous(70, 256, cache4d, share, 1);
        }
    return check_summary();
}
