/* decode_antiquant (contract: kernels.h), AVX-512: the fused decode kernel over
 * int8 / int4 K and V, dequantized in its loads (no copy): per block of
 * DEC_KB keys Q.K^T (tiles of 4 rows x 4 keys), the softmax step of
 * decode_avx512.c (dec_softmax_avx512.h) and P.V (4 rows x 64 columns).
 *
 * Each K or V element is converted to float once per tile of rows (the
 * whole GQA group at mr <= 4) and gets its offset before any product
 * (antiquant.md: x + o, never s o sum q).  The scales leave the inner
 * loops: a per-channel key scale is folded into Q once per call (q_d s_d),
 * a per-token one multiplies the key's score; a per-token value scale
 * multiplies the key's p, a per-channel one is the caller's (acc in units
 * of 1 / s_d).  So a key element costs a widening, a conversion and an
 * add; int4 a shift, a lookup and an add (aq_ld: its lanes in a permuted
 * order, which Q, the offsets and acc take once per call). */
#include <float.h>
#include "simd_avx512.h"
#ifdef FAST_HAVE_AVX512

/* keys per block: 64, read through the pointers of FAST_DEC_KB keys.  The
 * fp16 kernel's 16 spends a larger share on the softmax step's latency;
 * the narrower int8/int4 stream loses less to it from memory.  Measured
 * (bench --fast antiquant, 2 threads, best of 3 x 2 runs): blocks of 16
 * int8 ~4.4 ms, int4 ~4.8 ms; 32 keys (prefetch 32/32) 4.3 / 3.8; 64 with
 * V 32 and K 64 keys ahead 3.9 / 3.4 (V 64 / K 64: 4.5 / 3.7) */
#define DEC_KB 64
#define DEC_PFV 32 /* keys ahead whose V is prefetched during Q.K^T */
#define DEC_PFK 64 /* keys ahead whose K is prefetched during P.V: the
                    * next block's, whose Q.K^T comes next */
#define DEC_RT 4
#define DEC_KT 4
#define DEC_DV 4

#include "dec_softmax_avx512.h"

/* 16 elements from element d of a row as float, exact: int8 in order;
 * int4 (half a byte each) in a permuted order: the 8 bytes broadcast (a
 * load, no shuffle), lane 2i takes nibble i of the low dword and lane
 * 2i + 1 nibble i of the high one (element 8 + i), shifted to the bottom,
 * its value (-8..7) looked up in a register.  The caller puts Q, the per-channel
 * offsets and acc in that order once per call. */
INLINE __m512 aq_ld(const int8_t *row, int64_t d, const int int4)
{
    if (!int4)
        return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
            _mm_loadu_si128((const __m128i *)(const void *)(row + d))));
    const __m512i sh = _mm512_set_epi32(28, 28, 24, 24, 20, 20, 16, 16,
                                        12, 12, 8, 8, 4, 4, 0, 0);
    const __m512 val = _mm512_set_ps(-1, -2, -3, -4, -5, -6, -7, -8,
                                     7, 6, 5, 4, 3, 2, 1, 0);
    int64_t w;
    memcpy(&w, row + d / 2, 8);
    /* the lane's nibble in its low 4 bits (the rest ignored) picks its
     * value out of a register */
    return _mm512_permutexvar_ps(_mm512_srlv_epi32(_mm512_set1_epi64(w), sh),
                                 val);
}

/* The order of the int4 lanes: lane i holds element PERM[i] of its 16. */
static const int32_t PERM[16] = {0, 8, 1, 9, 2, 10, 3, 11,
                                 4, 12, 5, 13, 6, 14, 7, 15};
static const int32_t UNPERM[16] = {0, 2, 4, 6, 8, 10, 12, 14,
                                   1, 3, 5, 7, 9, 11, 13, 15};

/* n floats (a multiple of 16) permuted per 16 (idx: PERM or UNPERM). */
static void permute16(const float *src, float *dst, int64_t n,
                      const int32_t *idx)
{
    const __m512i ix = _mm512_loadu_si512(idx);
    for (int64_t i = 0; i < n; i += 16)
        _mm512_storeu_ps(dst + i, _mm512_permutexvar_ps(
                                      ix, _mm512_loadu_ps(src + i)));
}

/* s[r*DEC_KB + c] = sum_d q_r[d] (x_c[d] + o), o = ko[d] per channel or
 * ko[c] per token (then times ks[c]); rt 1..4 rows x kt 1..4 keys. */
TILE_BODY void aq_qk_tile(const float *q, int64_t ldq, const int rt,
                       const int8_t *k, int64_t ldk, const int kt, int64_t D,
                       float *s, const int int4, const int ktok,
                       const float *ks, const float *ko, const int8_t *pv)
{
    __m512 a[4][4], oc[4];
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int c = 0; c < kt; c++)
            a[r][c] = _mm512_setzero_ps();
    if (ktok)
        UNROLL for (int c = 0; c < kt; c++)
            oc[c] = _mm512_set1_ps(ko[c]);
    const int64_t ldb = int4 ? ldk / 2 : ldk; /* bytes per row */
    const int64_t line = int4 ? 128 : 64;     /* elements per 64 bytes */
    for (int64_t d = 0; d < D; d += 16) {
        __m512 kv[4];
        const __m512 od = ktok ? _mm512_setzero_ps() : _mm512_loadu_ps(ko + d);
        UNROLL for (int c = 0; c < kt; c++)
            kv[c] = _mm512_add_ps(aq_ld(k + c * ldb, d, int4),
                                  ktok ? oc[c] : od);
        if (pv != NULL && d % line == 0) /* the lines of V this block reads */
            UNROLL for (int c = 0; c < kt; c++)
                _mm_prefetch((const char *)(pv + c * ldb + (int4 ? d / 2 : d)),
                             _MM_HINT_T0);
        UNROLL for (int r = 0; r < rt; r++) {
            __m512 qv = _mm512_loadu_ps(q + r * ldq + d);
            UNROLL for (int c = 0; c < kt; c++)
                a[r][c] = _mm512_fmadd_ps(qv, kv[c], a[r][c]);
        }
    }
    if (kt == 4) { /* the 4 sums of a row in one tree */
        UNROLL for (int r = 0; r < rt; r++) {
            __m128 t = hsum4x16(a[r]);
            if (ktok)
                t = _mm_mul_ps(t, _mm_loadu_ps(ks));
            _mm_storeu_ps(s + r * DEC_KB, t);
        }
        return;
    }
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int c = 0; c < kt; c++) {
            const float t = _mm512_reduce_add_ps(a[r][c]);
            s[r * DEC_KB + c] = ktok ? t * ks[c] : t;
        }
}

/* acc[r][d0 + 16j] = acc * alpha[r] + sum_c p[r][c] (x_c + o), o = vo[d]
 * per channel (the scale the caller's) or vo[c] per token (p already
 * times vs[c]); key c's row at vbl[c / 16] (a pointer per FAST_DEC_KB
 * keys) + doff bytes; the K row of key jpf + c (< nk) prefetched when pf. */
TILE_BODY void aq_pv_tile(const float *p, const int rt,
                       const void *const *vbl, int64_t doff, int64_t ldv,
                       int nb, const int dv, const float *alpha, float *acc,
                       int64_t ldacc, const int int4, const int vtok,
                       const float *vo, const void *const *kall, int64_t jpf,
                       int64_t nk, bool pf)
{
    __m512 a[4][4], od[4];
    acc_load(a, rt, dv, alpha, acc, ldacc);
    if (!vtok)
        UNROLL for (int j = 0; j < dv; j++)
            od[j] = _mm512_loadu_ps(vo + 16 * j);
    const int64_t ldb = int4 ? ldv / 2 : ldv;
    for (int c = 0; c < nb; c++) {
        const int8_t *vr = (const int8_t *)vbl[c / FAST_DEC_KB] +
                           (c % FAST_DEC_KB) * ldb + doff;
        __m512 vv[4];
        const __m512 oc = vtok ? _mm512_set1_ps(vo[c]) : _mm512_setzero_ps();
        UNROLL for (int j = 0; j < dv; j++)
            vv[j] = _mm512_add_ps(aq_ld(vr, 16 * j, int4),
                                  vtok ? oc : od[j]);
        if (pf && jpf + c < nk) /* K ahead, spread over this loop */
            _mm_prefetch((const char *)kall[(jpf + c) / FAST_DEC_KB] +
                             ((jpf + c) % FAST_DEC_KB) * ldb + doff,
                         _MM_HINT_T0);
        UNROLL for (int r = 0; r < rt; r++) {
            __m512 b = _mm512_set1_ps(p[r * DEC_KB + c]);
            UNROLL for (int j = 0; j < dv; j++)
                a[r][j] = _mm512_fmadd_ps(b, vv[j], a[r][j]);
        }
    }
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int j = 0; j < dv; j++)
            _mm512_storeu_ps(acc + r * ldacc + 16 * j, a[r][j]);
}

typedef struct aq_args {
    const float *q;
    int64_t ldq;
    int mr;
    const void *const *k, *const *v;
    int64_t ldkv;
    const fast_aq_dec *ka, *va;
    const uint16_t *const *bias;
    int64_t nk, D;
    float scale;
    int round, bf;
    float *m, *l, *acc;
    int64_t ldacc;
} aq_args;

/* Keys j0 .. j0 + nb - 1 (a multiple of FAST_DEC_KB from j0 on): a tile
 * of DEC_KT keys never spans two of the 16-key pointers. */
INLINE void aq_qk(const aq_args *x, int64_t j0, int nb, float *s,
                  const int int4, const int ktok, const float *ks,
                  const float *ko)
{
    const int64_t rowb = int4 ? x->ldkv / 2 : x->ldkv;
    for (int r0 = 0; r0 < x->mr; r0 += DEC_RT) {
        const int rt = FAST_TILE_EXTENT(x->mr, r0, 1, DEC_RT);
        for (int c0 = 0; c0 < nb; c0 += DEC_KT) {
            const int kt = FAST_TILE_EXTENT(nb, c0, 1, DEC_KT);
            const int64_t j = j0 + c0, jv = j + DEC_PFV;
            const float *qq = x->q + r0 * x->ldq;
            const int8_t *kk = (const int8_t *)x->k[j / FAST_DEC_KB] +
                               (j % FAST_DEC_KB) * rowb;
            /* the V rows DEC_PFV keys ahead */
            const int8_t *pp = r0 == 0 && jv < x->nk
                ? (const int8_t *)x->v[jv / FAST_DEC_KB] +
                      (jv % FAST_DEC_KB) * rowb
                : NULL;
            float *ss = s + r0 * DEC_KB + c0;
            const float *kss = ktok ? ks + c0 : ks;
            const float *koo = ktok ? ko + c0 : ko;
#define AQK_CASE(R, K)                                                     \
    case FAST_TILE(R, K):                                                  \
        aq_qk_tile(qq, x->ldq, R, kk, x->ldkv, K, x->D, ss, int4, ktok,    \
                   kss, koo, pp);                                          \
        break;
            switch (FAST_TILE(rt, kt)) {
            FAST_TILE_CASES(DEC_RT, DEC_KT, AQK_CASE)
            default: break;
            }
#undef AQK_CASE
        }
    }
}

INLINE void aq_pv(const aq_args *x, const float *p, int64_t j0, int nb,
                  const float *alpha, const int int4, const int vtok,
                  const float *vo)
{
    const void *const *vbl = x->v + j0 / FAST_DEC_KB;
    for (int r0 = 0; r0 < x->mr; r0 += DEC_RT) {
        const int rt = FAST_TILE_EXTENT(x->mr, r0, 1, DEC_RT);
        for (int64_t d0 = 0; d0 < x->D; d0 += 16 * DEC_DV) {
            const int dv = FAST_TILE_EXTENT(x->D, d0, 16, DEC_DV);
            const float *pp_ = p + r0 * DEC_KB, *al = alpha + r0;
            const int64_t doff = int4 ? d0 / 2 : d0;
            float *ac = x->acc + r0 * x->ldacc + d0;
            const float *voo = vtok ? vo : vo + d0;
            const int64_t lb = int4 ? 128 : 64; /* elements per line */
            /* one prefetch per 64-byte line of the K rows ahead */
            const bool pf = r0 == 0 && d0 % lb == 0;
#define APV_CASE(R, V)                                                     \
    case FAST_TILE(R, V):                                                  \
        aq_pv_tile(pp_, R, vbl, doff, x->ldkv, nb, V, al, ac, x->ldacc,    \
                   int4, vtok, voo, x->k, j0 + DEC_PFK, x->nk, pf);        \
        break;
            switch (FAST_TILE(rt, dv)) {
            FAST_TILE_CASES(DEC_RT, DEC_DV, APV_CASE)
            default: break;
            }
#undef APV_CASE
        }
    }
}

/* One function per (int4, ktok) for a block's Q.K^T and per (int4, vtok)
 * for its P.V, called once per block (DEC_KB keys) by aq_run.  Inlined
 * into aq_run's eight instances instead, all 256 tile bodies sat in one
 * function, which compilers take time superlinear in its size for (38 s
 * of gcc -O2, 6 min of clang -O1 with ASan + UBSan: CodeGen Prepare). */
#define AQ_STEP_FNS(I4, TOK)                                               \
    BLOCK_STEP void aq_qk_##I4##TOK(const aq_args *x, int64_t j0, int nb,  \
                                    float *s, const float *ks,             \
                                    const float *ko)                       \
    {                                                                      \
        aq_qk(x, j0, nb, s, I4, TOK, ks, ko);                              \
    }                                                                      \
    BLOCK_STEP void aq_pv_##I4##TOK(const aq_args *x, const float *p,      \
                                    int64_t j0, int nb, const float *alpha, \
                                    const float *vo)                       \
    {                                                                      \
        aq_pv(x, p, j0, nb, alpha, I4, TOK, vo);                           \
    }
AQ_STEP_FNS(0, 0)
AQ_STEP_FNS(0, 1)
AQ_STEP_FNS(1, 0)
AQ_STEP_FNS(1, 1)
#undef AQ_STEP_FNS

/* The whole range for one (int4, ktok, vtok); q already times the
 * per-channel key scale. */
INLINE void aq_run(const aq_args *x, const int int4, const int ktok,
                   const int vtok)
{
    float s[FAST_DOT_MAX * DEC_KB] __attribute__((aligned(64))) = {0};
    float alpha[16];
    const uint16_t *bb[FAST_DOT_MAX];
    const float *ks = x->ka->s, *ko = x->ka->o, *vs = x->va->s,
                *vo = x->va->o;
    for (int64_t j0 = 0; j0 < x->nk; j0 += DEC_KB) {
        const int nb = x->nk - j0 < DEC_KB ? (int)(x->nk - j0) : DEC_KB;
        (int4 ? ktok ? aq_qk_11 : aq_qk_10 : ktok ? aq_qk_01 : aq_qk_00)(
            x, j0, nb, s, ktok ? ks + j0 : ks, ktok ? ko + j0 : ko);
        const uint16_t *const *br = NULL;
        if (x->bias != NULL) {
            for (int r = 0; r < x->mr; r++)
                bb[r] = x->bias[r] + j0;
            br = bb;
        }
        if (x->round == 1)
            dec_softmax(s, x->mr, nb, x->scale, 1, x->m, x->l, alpha, br,
                        x->bf);
        else if (x->round == 2)
            dec_softmax(s, x->mr, nb, x->scale, 2, x->m, x->l, alpha, br,
                        x->bf);
        else
            dec_softmax(s, x->mr, nb, x->scale, 0, x->m, x->l, alpha, br,
                        x->bf);
        for (int c = 0; vtok && c < nb; c += 16) {
            /* p_c s_c: the value's per-token scale */
            const __mmask16 km = nb - c >= 16
                                     ? 0xffff
                                     : (__mmask16)((1u << (nb - c)) - 1);
            const __m512 sv = _mm512_maskz_loadu_ps(km, vs + j0 + c);
            for (int r = 0; r < x->mr; r++)
                _mm512_storeu_ps(s + r * DEC_KB + c,
                                 _mm512_mul_ps(
                                     _mm512_loadu_ps(s + r * DEC_KB + c), sv));
        }
        (int4 ? vtok ? aq_pv_11 : aq_pv_10 : vtok ? aq_pv_01 : aq_pv_00)(
            x, s, j0, nb, alpha, vtok ? vo + j0 : vo);
    }
}

/* aq_run's eight instances, each its own function (the same reason). */
#define AQ_RUN_FN(I4, KT, VT)                                              \
    BLOCK_STEP void aq_run_##I4##KT##VT(const aq_args *x)                  \
    {                                                                      \
        aq_run(x, I4, KT, VT);                                             \
    }
AQ_RUN_FN(0, 0, 0)
AQ_RUN_FN(0, 0, 1)
AQ_RUN_FN(0, 1, 0)
AQ_RUN_FN(0, 1, 1)
AQ_RUN_FN(1, 0, 0)
AQ_RUN_FN(1, 0, 1)
AQ_RUN_FN(1, 1, 0)
AQ_RUN_FN(1, 1, 1)
#undef AQ_RUN_FN

bool fast_decode_antiquant_avx512(const float *q, int64_t ldq, int mr,
                                  const void *const *k, const void *const *v,
                                  int64_t ldkv, int int4, const fast_aq_dec *ka,
                                  const fast_aq_dec *va,
                                  const uint16_t *const *bias, int64_t nk,
                                  int64_t D, fia_dtype dt, float scale,
                                  int round, float *m, float *l, float *acc,
                                  int64_t ldacc)
{
    /* q times the per-channel key scale, once per call */
    float qs[FAST_DOT_MAX * 512] __attribute__((aligned(64)));
    float ko[512] __attribute__((aligned(64)));
    float vo[512] __attribute__((aligned(64)));
    const float *qq = q;
    int64_t ldqq = ldq;
    if (!ka->tok) {
        for (int r = 0; r < mr; r++)
            for (int64_t d = 0; d < D; d += 16)
                _mm512_storeu_ps(qs + r * D + d,
                                 _mm512_mul_ps(_mm512_loadu_ps(q + r * ldq + d),
                                               _mm512_loadu_ps(ka->s + d)));
        qq = qs, ldqq = D;
    }
    fast_aq_dec kx = *ka, vx = *va;
    if (int4) { /* aq_ld's order: Q, per-channel offsets and acc */
        for (int r = 0; r < mr; r++)
            permute16(qq + r * ldqq, qs + r * D, D, PERM);
        qq = qs, ldqq = D;
        if (!ka->tok)
            permute16(ka->o, ko, D, PERM), kx.o = ko;
        if (!va->tok)
            permute16(va->o, vo, D, PERM), vx.o = vo;
        for (int r = 0; r < mr; r++)
            permute16(acc + r * ldacc, acc + r * ldacc, D, PERM);
    }
    const aq_args x = {qq, ldqq, mr, k, v, ldkv, &kx, &vx, bias, nk, D,
                       scale, round, dt == FIA_DT_BF16, m, l, acc, ldacc};
    const int sel = (int4 ? 4 : 0) | (ka->tok ? 2 : 0) | (va->tok ? 1 : 0);
    switch (sel) {
    case 0: aq_run_000(&x); break;
    case 1: aq_run_001(&x); break;
    case 2: aq_run_010(&x); break;
    case 3: aq_run_011(&x); break;
    case 4: aq_run_100(&x); break;
    case 5: aq_run_101(&x); break;
    case 6: aq_run_110(&x); break;
    default: aq_run_111(&x); break;
    }
    if (int4)
        for (int r = 0; r < mr; r++)
            permute16(acc + r * ldacc, acc + r * ldacc, D, UNPERM);
    return dec_finite(mr, m, l, acc, ldacc, D);
}

#endif
