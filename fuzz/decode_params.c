/* fuzz_params' decoder: bytes -> any call of the operator, biased toward
 * what breaks validators (0, 1, limits and limits +- 1, alignments +- 1,
 * dims that must agree and do not, every layout x sparse mode x path).
 * Shapes may be huge: the target checks statuses only, with no data. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/fdp.h"
#include "fuzz/fuzz_internal.h"

#define ARRLEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Strict inputs (half of them, by a hash) take no deliberate break:
 * they keep the validity rate within 30-70 % under libFuzzer, whose
 * mutations otherwise drift toward the many ways to be invalid.  The
 * bytes are consumed either way, so one input decodes stably. */
static int g_strict;

/* A deliberate break with probability pct %, never when strict. */
static int odd(fdp *f, int pct)
{
    int r = fdp_rare(f, pct);
    return g_strict ? 0 : r;
}

/* A weighted choice whose first n_valid options are the valid ones. */
static int wpick(fdp *f, const int *w, int n, int n_valid)
{
    int r = fdp_weighted(f, w, n);
    return g_strict && r >= n_valid ? r % n_valid : r;
}

/* A value: usually in [lo, hi], else one of the edges. */
static int64_t pick_dim(fdp *f, int64_t lo, int64_t hi, const int64_t *edges,
                        int n_edges, int edge_pct)
{
    if (fdp_rare(f, edge_pct))
        return edges[fdp_pick(f, n_edges)];
    return fdp_range(f, lo, hi);
}

static const int64_t B_EDGES[] = {0, 1, 128, 129, 65536, 65537, 2147483648LL};
static const int64_t N_EDGES[] = {0, 3, 64, 65, 255, 256, 257, 512};
static const int64_t D_EDGES[] = {0, 1, 8, 15, 17, 24, 127, 128, 511, 512, 513};
static const int64_t QS_EDGES[] = {0, 1, 2, 2047, 2048, 2049, 20971520,
                                   20971521};
static const int64_t KVS_EDGES[] = {0, 1, 2048, 262143, 262144, 262145,
                                    20971520, 20971521};
static const int64_t TOK_EDGES[] = {0, 1, -1, 2, -2, 2147483647LL,
                                    2147483648LL, -2147483648LL,
                                    -2147483649LL, INT64_MAX, INT64_MIN};
/* (N, D) pairs around the N*D < 65535 limit of BSH/BSND prefill. */
static const int64_t ND_EDGES[][2] = {{128, 512}, {256, 256}, {255, 256},
                                      {127, 512}, {256, 255}, {128, 511},
                                      {255, 257}, {64, 512}};

static fia_dtype pick_float_dtype(fdp *f, int odd_pct)
{
    if (odd(f, odd_pct))
        return (fia_dtype)fdp_range(f, FIA_DT_FP16, FIA_DT_COUNT - 1);
    return fdp_bool(f) ? FIA_DT_BF16 : FIA_DT_FP16;
}

/* One of the mask shapes, valid or one step off. */
static int mask_shape(fdp *f, int qs1, int sparse, int64_t B, int64_t Q_S,
                      int64_t KV_S, int64_t *sh)
{
    /* The unsupported modes 5..8 get the compressed mask too: with any
     * other mask a validator that let them through would still reject
     * the call for the mask, and the status alone would not show it. */
    if (!qs1 && sparse >= 2) {
        static const int w[] = {45, 18, 18, 2, 2, 2, 2, 1};
        switch (wpick(f, w, ARRLEN(w), 3)) {
        case 0: sh[0] = 2048, sh[1] = 2048; return 2;
        case 1: sh[0] = 1, sh[1] = 2048, sh[2] = 2048; return 3;
        case 2: sh[0] = sh[1] = 1, sh[2] = sh[3] = 2048; return 4;
        case 3: sh[0] = 2047, sh[1] = 2048; return 2;
        case 4: sh[0] = 2048, sh[1] = 2049; return 2;
        case 5: sh[0] = 2, sh[1] = 2048, sh[2] = 2048; return 3;
        case 6: sh[0] = Q_S, sh[1] = KV_S; return 2;
        default: sh[0] = 2048; return 1;
        }
    }
    if (qs1) {
        static const int w[] = {30, 20, 20, 4, 4, 4, 4, 3, 3};
        switch (wpick(f, w, ARRLEN(w), 3)) {
        case 0: sh[0] = B, sh[1] = KV_S; return 2;
        case 1: sh[0] = B, sh[1] = 1, sh[2] = KV_S; return 3;
        case 2: sh[0] = B, sh[1] = 1, sh[2] = 1, sh[3] = KV_S; return 4;
        case 3: sh[0] = B, sh[1] = KV_S - 1; return 2;
        case 4: sh[0] = B, sh[1] = KV_S + 16; return 2;
        case 5: sh[0] = B + 1, sh[1] = KV_S; return 2;
        case 6: sh[0] = B, sh[1] = 2, sh[2] = KV_S; return 3;
        case 7: sh[0] = KV_S; return 1;
        default: sh[0] = B, sh[1] = 1, sh[2] = 1, sh[3] = 1, sh[4] = KV_S;
            return 5;
        }
    }
    static const int w[] = {25, 15, 10, 15, 8, 6, 3, 3, 3, 3, 2, 2, 2};
    switch (wpick(f, w, ARRLEN(w), 6)) {
    case 0: sh[0] = Q_S, sh[1] = KV_S; return 2;
    case 1: sh[0] = B, sh[1] = Q_S, sh[2] = KV_S; return 3;
    case 2: sh[0] = 1, sh[1] = Q_S, sh[2] = KV_S; return 3;
    case 3: sh[0] = B, sh[1] = 1, sh[2] = Q_S, sh[3] = KV_S; return 4;
    case 4: sh[0] = 1, sh[1] = 1, sh[2] = Q_S, sh[3] = KV_S; return 4;
    case 5: sh[0] = (Q_S + 15) / 16 * 16, sh[1] = (KV_S + 31) / 32 * 32;
        return 2;
    case 6: sh[0] = Q_S - 1, sh[1] = KV_S; return 2;
    case 7: sh[0] = Q_S, sh[1] = KV_S - 1; return 2;
    case 8: sh[0] = B + 1, sh[1] = Q_S, sh[2] = KV_S; return 3;
    case 9: sh[0] = B, sh[1] = 2, sh[2] = Q_S, sh[3] = KV_S; return 4;
    case 10: sh[0] = KV_S; return 1;
    case 11: sh[0] = 0, sh[1] = KV_S; return 2;
    default: sh[0] = 1, sh[1] = B, sh[2] = 1, sh[3] = Q_S, sh[4] = KV_S;
        return 5;
    }
}

/* A sequence-length array: absent mostly, else a length around B and values
 * around the limit. */
static void seq_array(fdp *f, fia_case *c, fia_array a, int pct, int64_t B,
                      int64_t S)
{
    if (!fdp_chance(f, pct))
        return;
    if (odd(f, 4)) {
        fb_array_null(c, a);
        return;
    }
    static const int w[] = {30, 45, 5, 5, 4};
    int64_t len;
    switch (wpick(f, w, ARRLEN(w), 2)) {
    case 0: len = 1; break;
    case 1: len = B; break;
    case 2: len = B + 1; break;
    case 3: len = B - 1; break;
    default: len = 0; break;
    }
    if (len < 0 || len > 64)
        len = len < 0 ? 0 : 64;
    int64_t v[64];
    for (int64_t i = 0; i < len; i++) {
        static const int vw[] = {80, 6, 5, 4, 5};
        switch (wpick(f, vw, ARRLEN(vw), 2)) {
        case 0: v[i] = fdp_range(f, 0, S < 4096 ? S : 4096); break;
        case 1: v[i] = S; break;
        case 2: v[i] = S + 1; break;
        case 3: v[i] = -1; break;
        default: v[i] = 0; break;
        }
    }
    fb_array(c, a, len, v);
}

/* One of the optional tensors nobody models yet, or with a wrong dtype. */
static void odd_tensor(fdp *f, fia_case *c, int64_t B, int64_t N, int64_t Q_S,
                       int64_t KV_S)
{
    fia_slot s = (fia_slot)fdp_range(f, FIA_SLOT_PSE_SHIFT,
                                     FIA_SLOT_DEQUANT_SCALE_QUERY);
    if (s == FIA_SLOT_ATTEN_MASK)
        s = FIA_SLOT_PSE_SHIFT;
    int64_t sh[4] = {B, N, Q_S, KV_S};
    int nd = fdp_bool(f) ? 4 : 1;
    if (nd == 1)
        sh[0] = fdp_chance(f, 20) ? 0 : 1;
    fia_dtype dt = (fia_dtype)fdp_range(f, FIA_DT_FP16, FIA_DT_COUNT - 1);
    if (fdp_chance(f, 10))
        fb_null(c, s);
    else
        fb_tensor(c, s, dt, nd, sh);
}

/* The case model refuses a tensor whose element count overflows int64
 * (docs/case-format.md; no such tensor can exist, so the operator is not
 * asked): edge values multiplied together (a [B, S, S] mask of 65536 x
 * 20971520^2) can get there, so halve the largest dim until it fits. */
static void fit_shapes(fia_case *c)
{
    for (int s = 0; s < FIA_SLOT_COUNT; s++) {
        fia_tensor_spec *sp = &c->tensors[s];
        for (int i = 0; sp->t != NULL && i < sp->count; i++) {
            fia_tensor *t = &sp->t[i];
            while (fia_tensor_numel(t) < 0) {
                int big = 0;
                for (int d = 1; d < t->ndim; d++)
                    big = t->shape[d] > t->shape[big] ? d : big;
                if (t->ndim == 0 || t->shape[big] <= 0)
                    break; /* negative dims: not made here */
                t->shape[big] /= 2;
            }
        }
    }
}

void fuzz_decode_params(const uint8_t *data, size_t size, fia_case *c)
{
    fdp f;
    fdp_init(&f, data, size);
    fia_case_init(c);
    snprintf(c->name, sizeof c->name, "fuzz_params");
    c->seed = fdp_u8(&f);
    /* strict from a hash of the whole input, not from a byte libFuzzer
     * could settle: every mutation re-draws it, so the corpus cannot drift
     * to the non-strict half */
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    g_strict = h % 100 < 40;
    int qs1 = fdp_chance(&f, 35);

    static const char *const layouts[] = {"BSH", "BSND", "BNSD", "BNSD_BSND",
                                          "TND", "BSH_NBSD", "bsh", "B", "NSD"};
    static const int lw[] = {27, 25, 27, 16, 1, 1, 1, 1, 1};
    const char *layout = layouts[wpick(&f, lw, ARRLEN(lw), 4)];
    if (qs1 && strcmp(layout, "BNSD_BSND") == 0 && (fdp_chance(&f, 75) || g_strict))
        layout = "BNSD";
    fb_layout(c, layout);
    fz_layout L = fz_layout_of(layout);
    if (L == FZ_OTHER)
        L = (fz_layout)fdp_pick(&f, 3);

    fia_dtype qdt = pick_float_dtype(&f, 5);
    fia_dtype kvdt = !odd(&f, 6) ? qdt : pick_float_dtype(&f, 60);

    int64_t B = pick_dim(&f, 1, 4, B_EDGES, ARRLEN(B_EDGES), 5);
    int64_t N = fdp_chance(&f, 92) ? ((int64_t)1 << fdp_range(&f, 0, 4))
                                   : N_EDGES[fdp_pick(&f, ARRLEN(N_EDGES))];
    int64_t D;
    if (fdp_chance(&f, 93))
        D = 16 * ((int64_t)1 << fdp_range(&f, 0, 3));
    else
        D = D_EDGES[fdp_pick(&f, ARRLEN(D_EDGES))];
    if (!qs1 && L != FZ_BNSD && L != FZ_BNSD_BSND && fdp_chance(&f, 6)) {
        int e = fdp_pick(&f, ARRLEN(ND_EDGES));
        N = ND_EDGES[e][0], D = ND_EDGES[e][1];
    }
    int64_t KV_N = N;
    static const int kw[] = {58, 32, 3, 3, 2, 2};
    switch (wpick(&f, kw, ARRLEN(kw), 2)) {
    case 0: break;
    case 1: /* a divisor */
        for (int64_t k = fdp_range(&f, 0, 6); k > 0 && KV_N % 2 == 0; k--)
            KV_N /= 2;
        break;
    case 2: KV_N = N > 1 ? N - 1 : 2; break;
    case 3: KV_N = N * 2; break;
    case 4: N = fdp_bool(&f) ? 128 : 130, KV_N = fdp_bool(&f) ? 1 : 2; break;
    default: KV_N = 1, N = 64 + fdp_range(&f, 0, 1); break;
    }
    int64_t Q_S = qs1 ? 1 : pick_dim(&f, 2, 32, QS_EDGES, ARRLEN(QS_EDGES), 5);
    int64_t KV_S = pick_dim(&f, 1, 64, KVS_EDGES, ARRLEN(KVS_EDGES), 5);

    /* query, key, value */
    int64_t qsh[FIA_MAX_RANK], ksh[FIA_MAX_RANK], vsh[FIA_MAX_RANK];
    int qnd = fz_shape(L, B, N, Q_S, D, qsh);
    int knd = fz_shape(L, B, KV_N, KV_S, D, ksh);
    memcpy(vsh, ksh, sizeof ksh);
    int vnd = knd;
    if (odd(&f, 2))   /* a dim of the key that must agree */
        ksh[fdp_pick(&f, knd)] += fdp_bool(&f) ? 1 : -1;
    if (odd(&f, 2))
        vsh[fdp_pick(&f, vnd)] += 1;
    if (odd(&f, 2))
        qsh[fdp_pick(&f, qnd)] += fdp_bool(&f) ? 1 : -1;
    if (odd(&f, 2))
        qnd = qnd == 3 ? 4 : 3, qsh[3] = D;
    if (odd(&f, 2))
        knd = vnd = knd == 3 ? 4 : 3, ksh[3] = vsh[3] = D;
    fb_tensor(c, FIA_SLOT_QUERY, qdt, qnd, qsh);
    int list = odd(&f, 1) ? 2 : 1;
    fb_tensor_list(c, FIA_SLOT_KEY, list, kvdt, knd, ksh);
    /* Now and then a value dtype of its own (TENS-040: key and value
     * must share one dtype). */
    fia_dtype vdt = !odd(&f, 3) ? kvdt : pick_float_dtype(&f, 30);
    fb_tensor_list(c, FIA_SLOT_VALUE, list, vdt, vnd, vsh);
    if (odd(&f, 1))
        fb_null(c, FIA_SLOT_QUERY);
    if (odd(&f, 1))
        fb_null(c, fdp_bool(&f) ? FIA_SLOT_KEY : FIA_SLOT_VALUE);

    /* attributes */
    int64_t nh = N;
    if (odd(&f, 3))
        nh = (int64_t[]){0, -1, N + 1, N * 2, 1}[fdp_pick(&f, 5)];
    fb_attr(c, FIA_ATTR_NUM_HEADS, nh);
    int64_t kvh = KV_N == N && fdp_bool(&f) ? 0 : KV_N;
    if (odd(&f, 2))
        kvh = -1;
    if (kvh != 0 || fdp_bool(&f))
        fb_attr(c, FIA_ATTR_NUM_KEY_VALUE_HEADS, kvh);
    static const int sw[] = {32, 12, 15, 18, 15, 1, 1, 1, 1, 1, 1};
    static const int64_t smodes[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, -1, 9};
    int64_t sparse = smodes[wpick(&f, sw, ARRLEN(sw), 5)];
    if (sparse != 0 || fdp_bool(&f))
        fb_attr(c, FIA_ATTR_SPARSE_MODE, sparse);
    if (fdp_chance(&f, 35))
        fb_attr(c, FIA_ATTR_PRE_TOKENS, fdp_chance(&f, 50)
                    ? fdp_range(&f, -4, 40)
                    : TOK_EDGES[fdp_pick(&f, ARRLEN(TOK_EDGES))]);
    if (fdp_chance(&f, 35))
        fb_attr(c, FIA_ATTR_NEXT_TOKENS, fdp_chance(&f, 50)
                    ? fdp_range(&f, -4, 40)
                    : TOK_EDGES[fdp_pick(&f, ARRLEN(TOK_EDGES))]);
    if (fdp_chance(&f, 50)) {
        static const int pw[] = {24, 24, 24, 24, 2, 2};
        static const int64_t pv[] = {0, 1, 2, 3, 4, -1};
        int64_t ip = pv[wpick(&f, pw, ARRLEN(pw), 4)];
        if (qs1 && ip >= 2 && (fdp_chance(&f, 85) || g_strict))
            ip -= 2;
        fb_attr(c, FIA_ATTR_INNER_PRECISE, ip);
    }
    if (fdp_chance(&f, 60)) {
        static const double sc[] = {0.125, 1.0, 0.0, -1.0, 1e30, -0.0};
        double s = fdp_chance(&f, 85) ? 1.0 / sqrt((double)(D > 0 ? D : 1))
                                      : sc[fdp_pick(&f, ARRLEN(sc))];
        if (fdp_chance(&f, 2))
            s = fdp_bool(&f) ? NAN : INFINITY;
        fb_scale(c, s);
    }
    if (odd(&f, 2))
        fb_attr(c, FIA_ATTR_BLOCK_SIZE, (int64_t[]){0, 16, 128, -1, 512}[fdp_pick(&f, 5)]);
    if (odd(&f, 2))
        fb_attr(c, fdp_bool(&f) ? FIA_ATTR_ANTIQUANT_MODE
                                : FIA_ATTR_VALUE_ANTIQUANT_MODE,
                fdp_range(&f, -1, 2));
    if (odd(&f, 1))
        fb_attr(c, FIA_ATTR_KEY_ANTIQUANT_MODE, fdp_range(&f, -1, 2));
    if (odd(&f, 1))
        fb_attr(c, FIA_ATTR_QUERY_QUANT_MODE, fdp_range(&f, 0, 3));

    /* atten_mask */
    int want_mask;
    if (!qs1 && sparse >= 1 && sparse <= 4)
        want_mask = fdp_chance(&f, 92);
    else
        want_mask = fdp_chance(&f, qs1 ? 30 : 40);
    if (want_mask) {
        int64_t msh[FIA_MAX_RANK];
        int mnd = mask_shape(&f, qs1, (int)sparse, B, Q_S, KV_S, msh);
        static const int dw[] = {70, 10, 10, 4, 2, 2, 2};
        static const fia_dtype md[] = {FIA_DT_BOOL, FIA_DT_INT8, FIA_DT_UINT8,
                                       FIA_DT_FP16, FIA_DT_FP32, FIA_DT_INT32,
                                       FIA_DT_BF16};
        fb_tensor(c, FIA_SLOT_ATTEN_MASK, md[wpick(&f, dw, ARRLEN(dw), 3)],
                  mnd, msh);
    } else if (fdp_chance(&f, 5)) {
        fb_null(c, FIA_SLOT_ATTEN_MASK);
    }

    /* sequence lengths */
    seq_array(&f, c, FIA_ARR_ACTUAL_SEQ_LENGTHS, qs1 ? 10 : 25, B, Q_S);
    seq_array(&f, c, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, 25, B, KV_S);
    if (odd(&f, 1))
        seq_array(&f, c, FIA_ARR_ACTUAL_SHARED_PREFIX_LEN, 100, B, KV_S);

    /* outputs */
    int lse = fdp_chance(&f, 30);
    if (lse || fdp_chance(&f, 5))
        fb_lse_flag(c, lse);
    if (odd(&f, 6)) {
        int64_t lsh[4] = {B, N, Q_S, 1};
        switch (fdp_pick(&f, 5)) {
        case 0: fb_null(c, FIA_SLOT_SOFTMAX_LSE); break;
        case 1: fb_tensor(c, FIA_SLOT_SOFTMAX_LSE, FIA_DT_FP16, 4, lsh); break;
        case 2: fb_tensor(c, FIA_SLOT_SOFTMAX_LSE, FIA_DT_FP32, 3, lsh); break;
        case 3: lsh[3] = 2; /* fall through */
        default: fb_tensor(c, FIA_SLOT_SOFTMAX_LSE, FIA_DT_FP32, 4, lsh); break;
        }
    }
    if (odd(&f, 5)) {
        int64_t osh[FIA_MAX_RANK];
        int ond = fz_shape(fz_out_layout(L), B, N, Q_S, D, osh);
        switch (fdp_pick(&f, 5)) {
        case 0: fb_null(c, FIA_SLOT_ATTENTION_OUT); break;
        case 1: fb_tensor(c, FIA_SLOT_ATTENTION_OUT,
                          qdt == FIA_DT_FP16 ? FIA_DT_BF16 : FIA_DT_FP16, ond,
                          osh); break;
        case 2: osh[ond - 1] += 1; /* fall through */
        case 3: fb_tensor(c, FIA_SLOT_ATTENTION_OUT, qdt, ond, osh); break;
        default: osh[0] = 0;
            fb_tensor(c, FIA_SLOT_ATTENTION_OUT, fdp_bool(&f) ? FIA_DT_INT8 : qdt,
                      ond, osh);
            break;
        }
    }
    if (odd(&f, 4))
        odd_tensor(&f, c, B, N, Q_S, KV_S);
    fit_shapes(c);
}
