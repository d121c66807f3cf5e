/* decode_antiquant (contract: kernels.h), AVX2: the fused decode kernel over
 * int8 / int4 K and V, dequantized in its loads (no copy): per block of
 * DEC_KB keys Q.K^T (tiles of 4 rows x 2 keys), the softmax step of
 * decode_avx2.c (dec_softmax_avx2.h) and P.V (4 rows x 16 columns).  The
 * arithmetic of decode_antiquant_avx512.c: the offset added to each element
 * before its product, a per-channel key scale folded into Q once per call,
 * a per-token one multiplying the score, a per-token value scale the key's
 * p, a per-channel one the caller's (acc in units of 1 / s_d).  int4: the
 * dword of 8 nibbles in every lane, each lane's shifted to the top and
 * back (arithmetic: the sign). */
#include <float.h>
#include "simd_avx2.h"
#ifdef FAST_HAVE_AVX2

#define DEC_KB 16
#define DEC_PFV 16 /* as decode_avx2.c */
#define DEC_PFK 32
#define DEC_RT 4
#define DEC_KT 2

#include "dec_softmax_avx2.h"

/* 8 elements from element d of a row (int8, or int4 at half a byte each),
 * as float, exact. */
INLINE __m256 aq_ld8(const int8_t *row, int64_t d, const int int4)
{
    if (!int4) {
        int64_t w;
        memcpy(&w, row + d, 8);
        return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128(w)));
    }
    const __m256i sh = _mm256_set_epi32(0, 4, 8, 12, 16, 20, 24, 28);
    int32_t w;
    memcpy(&w, row + d / 2, 4);
    return _mm256_cvtepi32_ps(_mm256_srai_epi32(
        _mm256_sllv_epi32(_mm256_set1_epi32(w), sh), 28));
}

TILE_BODY void aq_qk_tile(const float *q, int64_t ldq, const int rt,
                       const int8_t *k, int64_t ldk, const int kt, int64_t D,
                       float *s, const int int4, const int ktok,
                       const float *ks, const float *ko, const int8_t *pv)
{
    __m256 a[4][2], oc[2];
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int c = 0; c < kt; c++)
            a[r][c] = _mm256_setzero_ps();
    if (ktok)
        UNROLL for (int c = 0; c < kt; c++)
            oc[c] = _mm256_set1_ps(ko[c]);
    const int64_t ldb = int4 ? ldk / 2 : ldk;
    const int64_t line = int4 ? 128 : 64;
    for (int64_t d = 0; d < D; d += 8) {
        __m256 kv[2];
        const __m256 od = ktok ? _mm256_setzero_ps() : _mm256_loadu_ps(ko + d);
        UNROLL for (int c = 0; c < kt; c++)
            kv[c] = _mm256_add_ps(aq_ld8(k + c * ldb, d, int4),
                                  ktok ? oc[c] : od);
        if (pv != NULL && d % line == 0)
            UNROLL for (int c = 0; c < kt; c++)
                _mm_prefetch((const char *)(pv + c * ldb + (int4 ? d / 2 : d)),
                             _MM_HINT_T0);
        UNROLL for (int r = 0; r < rt; r++) {
            __m256 qv = _mm256_loadu_ps(q + r * ldq + d);
            UNROLL for (int c = 0; c < kt; c++)
                a[r][c] = _mm256_fmadd_ps(qv, kv[c], a[r][c]);
        }
    }
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int c = 0; c < kt; c++) {
            const float t = hsum8(a[r][c]);
            s[r * DEC_KB + c] = ktok ? t * ks[c] : t;
        }
}

TILE_BODY void aq_pv_tile(const float *p, const int rt, const int8_t *v,
                       int64_t ldv, int nb, const float *alpha, float *acc,
                       int64_t ldacc, const int int4, const int vtok,
                       const float *vo, const int8_t *pk)
{
    __m256 a[4][2], od[2];
    acc_load(a, rt, alpha, acc, ldacc);
    if (!vtok)
        UNROLL for (int j = 0; j < 2; j++)
            od[j] = _mm256_loadu_ps(vo + 8 * j);
    const int64_t ldb = int4 ? ldv / 2 : ldv;
    for (int c = 0; c < nb; c++) {
        __m256 vv[2];
        const __m256 oc = vtok ? _mm256_set1_ps(vo[c]) : _mm256_setzero_ps();
        UNROLL for (int j = 0; j < 2; j++)
            vv[j] = _mm256_add_ps(aq_ld8(v + c * ldb, 8 * j, int4),
                                  vtok ? oc : od[j]);
        if (pk != NULL)
            _mm_prefetch((const char *)(pk + c * ldb), _MM_HINT_T0);
        UNROLL for (int r = 0; r < rt; r++) {
            __m256 b = _mm256_broadcast_ss(p + r * DEC_KB + c);
            UNROLL for (int j = 0; j < 2; j++)
                a[r][j] = _mm256_fmadd_ps(b, vv[j], a[r][j]);
        }
    }
    UNROLL for (int r = 0; r < rt; r++)
        UNROLL for (int j = 0; j < 2; j++)
            _mm256_storeu_ps(acc + r * ldacc + 8 * j, a[r][j]);
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

INLINE void aq_qk(const aq_args *x, const int8_t *kb, int nb, float *s,
                  const int int4, const int ktok, const float *ks,
                  const float *ko, const int8_t *pv)
{
    const int64_t rowb = int4 ? x->ldkv / 2 : x->ldkv;
    for (int r0 = 0; r0 < x->mr; r0 += DEC_RT) {
        const int rt = FAST_TILE_EXTENT(x->mr, r0, 1, DEC_RT);
        for (int c0 = 0; c0 < nb; c0 += DEC_KT) {
            const int kt = FAST_TILE_EXTENT(nb, c0, 1, DEC_KT);
            const float *qq = x->q + r0 * x->ldq;
            const int8_t *kk = kb + c0 * rowb;
            const int8_t *pp = r0 == 0 && pv != NULL ? pv + c0 * rowb : NULL;
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

INLINE void aq_pv(const aq_args *x, const float *p, const int8_t *vb,
                  int nb, const float *alpha, const int int4, const int vtok,
                  const float *vo, const int8_t *pk)
{
    for (int r0 = 0; r0 < x->mr; r0 += DEC_RT) {
        const int rt = FAST_TILE_EXTENT(x->mr, r0, 1, DEC_RT);
        for (int64_t d0 = 0; d0 < x->D; d0 += 16) {
            const float *pp_ = p + r0 * DEC_KB, *al = alpha + r0;
            const int8_t *vv = vb + (int4 ? d0 / 2 : d0);
            float *ac = x->acc + r0 * x->ldacc + d0;
            const float *voo = vtok ? vo : vo + d0;
            const int64_t lb = int4 ? 128 : 64; /* elements per line */
            const int8_t *pp = r0 == 0 && pk != NULL && d0 % lb == 0
                                   ? pk + (int4 ? d0 / 2 : d0) : NULL;
#define APV_CASE(R, V)                                                     \
    case FAST_TILE(R, V):                                                  \
        aq_pv_tile(pp_, R, vv, x->ldkv, nb, al, ac, x->ldacc, int4, vtok,  \
                   voo, pp);                                               \
        break;
            switch (FAST_TILE(rt, 1)) {
            FAST_TILE_CASES(DEC_RT, 1, APV_CASE)
            default: break;
            }
#undef APV_CASE
        }
    }
}

INLINE void aq_run(const aq_args *x, const int int4, const int ktok,
                   const int vtok)
{
    float s[FAST_DOT_MAX * DEC_KB] __attribute__((aligned(32))) = {0};
    float alpha[16];
    const uint16_t *bb[FAST_DOT_MAX];
    const float *ks = x->ka->s, *ko = x->ka->o, *vs = x->va->s,
                *vo = x->va->o;
    for (int64_t j0 = 0; j0 < x->nk; j0 += DEC_KB) {
        const int nb = x->nk - j0 < DEC_KB ? (int)(x->nk - j0) : DEC_KB;
        const int64_t i = j0 / DEC_KB;
        const int8_t *kb = x->k[i], *vb = x->v[i];
        const bool pfv = j0 + nb + DEC_PFV <= x->nk;
        const bool pfk = j0 + nb + DEC_PFK <= x->nk;
        aq_qk(x, kb, nb, s, int4, ktok, ktok ? ks + j0 : ks,
              ktok ? ko + j0 : ko,
              pfv ? (const int8_t *)x->v[i + DEC_PFV / DEC_KB] : NULL);
        const uint16_t *const *br = NULL;
        if (x->bias != NULL) {
            for (int r = 0; r < x->mr; r++)
                bb[r] = x->bias[r] + j0;
            br = bb;
        }
        dec_softmax(s, x->mr, nb, x->scale, x->round, x->m, x->l, alpha, br,
                    x->bf);
        if (vtok) /* p_c s_c: the value's per-token scale */
            for (int r = 0; r < x->mr; r++)
                for (int c = 0; c < nb; c++)
                    s[r * DEC_KB + c] *= vs[j0 + c];
        aq_pv(x, s, vb, nb, alpha, int4, vtok, vtok ? vo + j0 : vo,
              pfk ? (const int8_t *)x->k[i + DEC_PFK / DEC_KB] : NULL);
    }
}

/* aq_run's eight instances, each its own function: inlined into one, its
 * 160 tile bodies made the slowest function of the tree to compile. */
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

bool fast_decode_antiquant_avx2(const float *q, int64_t ldq, int mr,
                                const void *const *k, const void *const *v,
                                int64_t ldkv, int int4, const fast_aq_dec *ka,
                                const fast_aq_dec *va,
                                const uint16_t *const *bias, int64_t nk,
                                int64_t D, fia_dtype dt, float scale, int round,
                                float *m, float *l, float *acc, int64_t ldacc)
{
    float qs[FAST_DOT_MAX * 512] __attribute__((aligned(32)));
    const float *qq = q;
    int64_t ldqq = ldq;
    if (!ka->tok) { /* q times the per-channel key scale, once per call */
        for (int r = 0; r < mr; r++)
            for (int64_t d = 0; d < D; d += 8)
                _mm256_storeu_ps(qs + r * D + d,
                                 _mm256_mul_ps(_mm256_loadu_ps(q + r * ldq + d),
                                               _mm256_loadu_ps(ka->s + d)));
        qq = qs, ldqq = D;
    }
    const aq_args x = {qq, ldqq, mr, k, v, ldkv, ka, va, bias, nk, D, scale,
                       round, dt == FIA_DT_BF16, m, l, acc, ldacc};
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
    return dec_finite(mr, m, l, acc, ldacc, D);
}

#endif
