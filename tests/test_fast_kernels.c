/* fast/'s micro-kernels: every SIMD table this CPU supports against the
 * scalar table, kernel by kernel, on ragged sizes (row, key and column
 * tails), masks, rounding modes and non-finite values; the run-time
 * dispatch (fast_force_isa, FIA_FAST_ISA). */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fast/fast_internal.h"
#include "test_rng.h"

static uint64_t rng = 0x853c49e6748fea9bull;
static double urand(void) /* [0, 1) */ { return test_lcg64_unit(&rng); }

static float *frand(int64_t n, double amp)
{
    float *p = malloc((size_t)n * sizeof(float));
    for (int64_t i = 0; i < n; i++)
        p[i] = (float)((2 * urand() - 1) * amp);
    return p;
}

static bool near(float a, float b, double rel, double abs_)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (isinf(a) || isinf(b))
        return a == b;
    return fabs((double)a - (double)b) <= abs_ + rel * fabs((double)b);
}

#define L 80  /* row stride: >= round_up(70, 16) */
#define DMAX 144

static void qk(const fast_kernels *k, const char *isa)
{
    static const int mrs[] = {1, 3, 8, 15, 16, 17, 33, 64, 70};
    static const int nks[] = {1, 5, 8, 13, 64};
    static const int64_t Ds[] = {16, 37, 128, 144};
    int bad = 0;
    for (size_t a = 0; a < sizeof mrs / sizeof *mrs; a++)
        for (size_t b = 0; b < sizeof nks / sizeof *nks; b++)
            for (size_t c = 0; c < sizeof Ds / sizeof *Ds; c++) {
                int mr = mrs[a], nk = nks[b];
                int64_t D = Ds[c], Dp = (D + 15) & ~15;
                float *qt = calloc((size_t)(Dp * L), sizeof(float));
                float *q = calloc((size_t)(L * Dp), sizeof(float));
                float *kk = calloc((size_t)(64 * Dp), sizeof(float));
                for (int r = 0; r < mr; r++)
                    for (int64_t d = 0; d < D; d++)
                        qt[d * L + r] = q[r * Dp + d] = (float)(2 * urand() - 1);
                for (int j = 0; j < nk; j++)
                    for (int64_t d = 0; d < D; d++)
                        kk[j * Dp + d] = (float)(2 * urand() - 1);
                float *s0 = frand(64 * L, 1), *s1 = frand(64 * L, 1);
                float *s2 = frand(64 * L, 1), *s3 = frand(64 * L, 1);
                fast_kernels_scalar.qk_t(qt, L, mr, kk, Dp, nk, D, s0, L);
                k->qk_t(qt, L, mr, kk, Dp, nk, D, s1, L);
                fast_kernels_scalar.qk_dot(q, Dp, mr, kk, Dp, nk, Dp, s2, L);
                k->qk_dot(q, Dp, mr, kk, Dp, nk, Dp, s3, L);
                for (int j = 0; j < nk; j++)
                    for (int r = 0; r < mr; r++) {
                        float w = s0[j * L + r];
                        bad += !near(s1[j * L + r], w, 1e-5, 1e-5 * sqrt((double)D));
                        bad += !near(s2[j * L + r], w, 1e-5, 1e-5 * sqrt((double)D));
                        bad += !near(s3[j * L + r], w, 1e-5, 1e-5 * sqrt((double)D));
                    }
                free(qt), free(q), free(kk), free(s0), free(s1), free(s2), free(s3);
            }
    CHECK_MSG(bad == 0, "%s qk_t/qk_dot: %d scores off", isa, bad);
}

static void softmax(const fast_kernels *k, const char *isa)
{
    int bad = 0, nsub = 0, nsubdiff = 0;
    for (int it = 0; it < 80; it++) {
        int mr = 1 + (int)(urand() * 70), nk = 1 + (int)(urand() * 64);
        int round = it % 3;
        bool use_excl = it % 4 == 1, specials = it % 5 == 2;
        /* every key in every row (the SIMD kernels' unmasked path for
         * whole groups of 16 rows), often on whole groups */
        bool full = it % 4 == 3;
        if (full && it % 8 == 3)
            mr = 16 * (1 + (int)(urand() * 4));
        float *s0 = frand(64 * L, 8), *s1 = malloc(64 * L * sizeof(float));
        int32_t lo[L], hi[L];
        float m0[L], l0[L], a0[L], m1[L], l1[L], a1[L];
        uint8_t excl[64 * L];
        for (int r = 0; r < L; r++) {
            lo[r] = r < mr ? (int32_t)(urand() * nk) - 2 : 0;
            hi[r] = r < mr ? lo[r] + (int32_t)(urand() * (nk + 4)) - 2 : -1;
            if (full && r < mr)
                lo[r] = 0, hi[r] = nk - 1 + r % 3;
            bool fresh = urand() < 0.4 || r >= mr;
            m0[r] = m1[r] = fresh ? -INFINITY : (float)(urand() * 6 - 3);
            l0[r] = l1[r] = fresh ? 0.0f : (float)(1 + urand() * 10);
        }
        for (int i = 0; i < 64 * L; i++) {
            excl[i] = urand() < 0.3;
            if (specials && urand() < 0.02)
                s0[i] = urand() < 0.5 ? NAN : -INFINITY;
        }
        memcpy(s1, s0, 64 * L * sizeof(float));
        /* a wide scale every seventh step: p down through the fp16
         * subnormals (2^-24 .. 2^-14) and below */
        const bool wide = it % 7 == 4;
        const float sc = wide ? 2.5f : 0.37f;
        fast_kernels_scalar.softmax(s0, L, mr, nk, sc, lo, hi,
                                    use_excl ? excl : NULL, round, m0, l0, a0);
        k->softmax(s1, L, mr, nk, sc, lo, hi, use_excl ? excl : NULL,
                   round, m1, l1, a1);
        /* the exp differs by an ulp or two; a rounded p by one fp16/bf16
         * step where the float value sat near a midpoint (an fp16
         * subnormal step is 2^-24 absolute) */
        double prel = round == 2 ? 0x1p-7 : round == 1 ? 0x1p-10 : 4e-7;
        double pabs = round == 1 ? 0x1p-24 : 1e-37;
        for (int r = 0; r < mr; r++) {
            bad += !near(m1[r], m0[r], 0, 0);
            bad += !near(l1[r], l0[r], 2e-6, 0);
            bad += !near(a1[r], a0[r], 4e-7, 1e-37);
            for (int c = 0; c < nk; c++) {
                float x = s1[c * L + r];
                bad += !near(x, s0[c * L + r], prel, pabs);
                /* a rounded p is a value of the narrow type */
                if (round == 1 && !isnan(x))
                    bad += fast_round_fp16f(x) != x;
                /* below 2^-14 the scalar and SIMD p differ by a step only
                 * where an ulp of exp crosses a midpoint: rarely */
                if (round == 1 && x > 0 && x < 0x1p-14f) {
                    nsub++;
                    nsubdiff += x != s0[c * L + r];
                }
                if (round == 2 && !isnan(x))
                    bad += fast_round_bf16f(x) != x;
            }
        }
        free(s0), free(s1);
    }
    CHECK_MSG(bad == 0, "%s softmax: %d values off", isa, bad);
    CHECK_MSG(nsub > 100 && nsubdiff <= 2 + nsub / 100,
              "%s softmax: %d of %d fp16-subnormal p off by a step", isa,
              nsubdiff, nsub);
}

/* qk_t_max + softmax_full (a block where every key takes part in every
 * row, no mask) against the scalar qk_t, scale and softmax. */
static void qk_max(const fast_kernels *k, const char *isa)
{
    if (k->qk_t_max == NULL)
        return;
    CHECK(k->softmax_full != NULL);
    static const int mrs[] = {16, 32, 48, 64, 80, 5, 70};
    static const int nks[] = {1, 5, 6, 13, 64};
    int bad = 0, nbad_max = 0;
    for (int it = 0; it < 140; it++) {
        int mr = mrs[it % 7], nk = nks[(it / 7) % 5];
        int64_t D = it % 3 == 0 ? 37 : 128, Dp = (D + 15) & ~15;
        int round = it % 3;
        bool specials = it % 5 == 2, wide = it % 7 == 4;
        const float sc = wide ? 2.5f : 0.37f;
        float *qt = calloc((size_t)(Dp * L), sizeof(float));
        float *kk = calloc((size_t)(64 * Dp), sizeof(float));
        for (int r = 0; r < mr; r++)
            for (int64_t d = 0; d < D; d++)
                qt[d * L + r] = (float)(2 * urand() - 1);
        for (int j = 0; j < nk; j++)
            for (int64_t d = 0; d < D; d++) {
                kk[j * Dp + d] = (float)(2 * urand() - 1);
                if (specials && urand() < 0.002)
                    kk[j * Dp + d] = urand() < 0.5 ? NAN : -INFINITY;
            }
        const int rows = (mr + 15) & ~15;
        float *s0 = frand(64 * L, 1), *s1 = frand(64 * L, 1);
        float m0[L], l0[L], a0[L], m1[L], l1[L], a1[L], bmax[L];
        int32_t lo[L], hi[L];
        for (int r = 0; r < L; r++) {
            bool fresh = urand() < 0.4 || r >= mr;
            m0[r] = m1[r] = fresh ? -INFINITY : (float)(urand() * 6 - 3);
            l0[r] = l1[r] = fresh ? 0.0f : (float)(1 + urand() * 10);
            lo[r] = 0, hi[r] = nk - 1;
        }
        fast_kernels_scalar.qk_t(qt, L, rows, kk, Dp, nk, D, s0, L);
        k->qk_t_max(qt, L, mr, kk, Dp, nk, D, sc, s1, L, bmax);
        for (int r = 0; r < rows; r++) {
            float mx = -INFINITY;
            for (int c = 0; c < nk; c++) {
                float x = s1[c * L + r], w = s0[c * L + r] * sc;
                bad += !near(x, w, 1e-5, 1e-5 * sqrt((double)D) * sc);
                mx = x > mx ? x : mx;
            }
            nbad_max += bmax[r] != mx;
        }
        /* the same scaled scores into both softmax steps */
        for (int i = 0; i < 64 * L; i++)
            s0[i] = s1[i];
        fast_kernels_scalar.softmax(s0, L, rows, nk, 1.0f, lo, hi, NULL,
                                    round, m0, l0, a0);
        k->softmax_full(s1, L, mr, nk, bmax, round, m1, l1, a1);
        double prel = round == 2 ? 0x1p-7 : round == 1 ? 0x1p-10 : 4e-7;
        double pabs = round == 1 ? 0x1p-24 : 1e-37;
        for (int r = 0; r < rows; r++) {
            bad += !near(m1[r], m0[r], 0, 0);
            bad += !near(l1[r], l0[r], 2e-6, 0);
            bad += !near(a1[r], a0[r], 4e-7, 1e-37);
            for (int c = 0; c < nk; c++)
                bad += !near(s1[c * L + r], s0[c * L + r], prel, pabs);
        }
        free(qt), free(kk), free(s0), free(s1);
    }
    CHECK_MSG(bad == 0, "%s qk_t_max/softmax_full: %d values off", isa, bad);
    CHECK_MSG(nbad_max == 0, "%s qk_t_max: %d block maxima off", isa,
              nbad_max);
}

static void pv(const fast_kernels *k, const char *isa)
{
    static const int mrs[] = {1, 2, 3, 4, 5, 7, 16, 33, 70};
    static const int64_t Ds[] = {16, 48, 64, 80, 128, 144};
    int bad = 0;
    for (size_t a = 0; a < sizeof mrs / sizeof *mrs; a++)
        for (size_t c = 0; c < sizeof Ds / sizeof *Ds; c++) {
            int mr = mrs[a], nk = 1 + (int)(urand() * 64);
            int64_t D = Ds[c];
            float *p = frand(64 * L, 1), *v = frand(64 * D, 2);
            float *acc0 = frand(L * D, 3), *acc1 = malloc(L * D * sizeof(float));
            float alpha[L];
            for (int r = 0; r < L; r++)
                alpha[r] = r % 3 == 0 ? 1.0f : (float)urand();
            memcpy(acc1, acc0, L * D * sizeof(float));
            fast_kernels_scalar.pv(p, L, mr, v, D, nk, D, alpha, acc0, D);
            k->pv(p, L, mr, v, D, nk, D, alpha, acc1, D);
            for (int64_t i = 0; i < L * D; i++)
                bad += !near(acc1[i], acc0[i], 1e-5, 1e-5);
            free(p), free(v), free(acc0), free(acc1);
        }
    CHECK_MSG(bad == 0, "%s pv: %d accumulators off", isa, bad);
}

static void conversions(const fast_kernels *k, const char *isa)
{
    int bad = 0;
    for (int dti = 0; dti < 2; dti++) {
        fia_dtype dt = dti ? FIA_DT_BF16 : FIA_DT_FP16;
        for (int64_t n = 1; n <= 70; n += 3) {
            /* exact-size heap blocks: ASan sees any read or write past n */
            uint16_t *src = malloc((size_t)n * 2), *o0 = malloc((size_t)n * 2);
            uint16_t *o1 = malloc((size_t)n * 2);
            float *f0 = malloc((size_t)n * 4), *f1 = malloc((size_t)n * 4);
            float *acc = malloc((size_t)n * 4);
            bool inf = n % 2 == 0;
            for (int64_t i = 0; i < n; i++) {
                src[i] = (uint16_t)(urand() * 65536);
                uint16_t em = dti ? 0x7f80 : 0x7c00;
                if ((src[i] & em) == em) /* keep finite unless wanted */
                    src[i] &= (uint16_t)~0x0400u;
                acc[i] = (float)((2 * urand() - 1) * pow(2, urand() * 40 - 20));
                if (i % 17 == 5)
                    acc[i] = i % 2 ? NAN : (i % 3 ? INFINITY : 0.0f);
                if (i % 13 == 3) /* tiny: fp16 subnormals */
                    acc[i] = (float)((2 * urand() - 1) * 1e-6);
            }
            if (inf)
                src[n / 2] = dti ? 0x7f80 : 0xfc00;
            bool fin0 = fast_kernels_scalar.widen(dt, src, f0, n);
            bool fin1 = k->widen(dt, src, f1, n);
            bad += fin0 != !inf || fin1 != fin0;
            bad += memcmp(f0, f1, (size_t)n * 4) != 0;
            for (int li = 0; li < 3; li++) {
                double l = li == 0 ? 1.0 : li == 1 ? 3.0 : 1234.5678;
                fast_kernels_scalar.store(dt, acc, l, o0, n);
                k->store(dt, acc, l, o1, n);
                bad += memcmp(o0, o1, (size_t)n * 2) != 0;
            }
            free(src), free(o0), free(o1), free(f0), free(f1), free(acc);
        }
    }
    CHECK_MSG(bad == 0, "%s widen/store: %d mismatches", isa, bad);
}

/* store_int8_out (an int8 output row): against the definition computed here —
 * x = fl32(acc / l), y = fl32(fl32(x * qs) + qo), clamped, rounded half to
 * even (a fused x * qs + qo may differ by one float32 rounding: then y's
 * integer may differ only where y is within 2^-20 of a tie) — per-channel
 * and per-tensor, with and without offset, saturation, exact ties, NaN
 * (0), ragged lengths, and nothing written past n. */
static void store_int8_out(const fast_kernels *k, const char *isa)
{
    int bad = 0, ties = 0, sat = 0;
    for (int64_t n = 1; n <= 70; n += (n < 20 ? 1 : 13)) {
        float acc[80], qs[80], qo[80];
        int8_t out[96];
        for (int64_t i = 0; i < n; i++) {
            acc[i] = (float)((2 * urand() - 1) * 3.0);
            qs[i] = (float)((urand() < 0.1 ? -1 : 1) * (1 + urand() * 100));
            qo[i] = (float)(floor(urand() * 16 - 8) + (urand() < 0.3 ? 0.5 : 0));
        }
        acc[0] = 0.0f; /* x = 0: y = qo, a tie when qo is a half */
        if (n > 3)
            acc[3] = NAN;
        for (int pc = 0; pc < 2; pc++)
            for (int off = 0; off < 2; off++)
                for (int li = 0; li < 2; li++) {
                    const double l = li ? 2.5 : 1.0;
                    memset(out, 0x5a, sizeof out);
                    k->store_int8_out(acc, l, qs, off ? qo : NULL, pc, out, n);
                    for (int64_t i = 0; i < n; i++) {
                        const int64_t j = pc ? i : 0;
                        const float x = (float)((double)acc[i] / l);
                        const float xs = x * qs[j];
                        float y = off ? xs + qo[j] : xs;
                        int want;
                        if (isnan(y)) {
                            want = 0;
                        } else {
                            float c = y < -128 ? -128 : y > 127 ? 127 : y;
                            want = (int)nearbyintf(c);
                            sat += y < -128 || y > 127;
                            ties += c - floorf(c) == 0.5f;
                        }
                        const double fused = (double)x * qs[j] +
                                             (off ? qo[j] : 0.0);
                        const int near_tie =
                            fabs(fabs(fused - floor(fused)) - 0.5) < 0x1p-20;
                        if (out[i] != want && !near_tie)
                            bad++;
                    }
                    for (int64_t i = n; i < 96; i++)
                        bad += out[i] != 0x5a;
                }
    }
    CHECK_MSG(bad == 0, "%s store_int8_out: %d mismatches", isa, bad);
    CHECK_MSG(ties > 0 && sat > 0, "%s store_int8_out: %d ties, %d saturated",
              isa, ties, sat);
}

/* widen_t: 16 columns of Q^T from up to 16 rows (NULL rows and rows past
 * nrows zero), against widen row by row; nothing else of dst written. */
static void widen_t(const fast_kernels *k, const char *isa)
{
    int bad = 0, runs = 0;
    for (int it = 0; it < 400; it++) {
        const fia_dtype dt = it % 2 ? FIA_DT_BF16 : FIA_DT_FP16;
        const int nrows = 1 + it % 16;
        const int64_t n = 1 + (int64_t)(urand() * 70);
        const int64_t ldd = 16 + (it / 16 % 3) * 16 + (it % 5 == 0 ? 3 : 0);
        uint16_t *src[16], *rows[16];
        float *dst = malloc((size_t)(n * ldd) * 4);
        float *row = malloc((size_t)n * 4);
        for (int64_t i = 0; i < n * ldd; i++)
            dst[i] = -7.0f; /* guard */
        for (int r = 0; r < 16; r++) {
            src[r] = malloc((size_t)n * 2); /* exact size: ASan */
            for (int64_t d = 0; d < n; d++)
                src[r][d] = (uint16_t)(urand() * 65536);
            rows[r] = r % 7 == 3 ? NULL : src[r];
        }
        k->widen_t(dt, (const uint16_t *const *)rows, nrows, n, dst, ldd);
        for (int r = 0; r < 16; r++) {
            const bool zero = r >= nrows || rows[r] == NULL;
            if (!zero)
                fast_kernels_scalar.widen(dt, src[r], row, n);
            for (int64_t d = 0; d < n; d++) {
                float want = zero ? 0.0f : row[d], got = dst[d * ldd + r];
                /* bits, or NaN for NaN (the F16C conversion quiets a
                 * signaling NaN, the scalar one keeps it) */
                bad += memcmp(&want, &got, 4) != 0 &&
                       !(isnan(want) && isnan(got));
            }
        }
        for (int64_t d = 0; d < n; d++)
            for (int64_t c = 16; c < ldd; c++)
                bad += dst[d * ldd + c] != -7.0f;
        for (int r = 0; r < 16; r++)
            free(src[r]);
        free(dst), free(row);
        runs++;
    }
    CHECK_MSG(bad == 0, "%s widen_t: %d mismatches in %d runs", isa, bad,
              runs);
}

/* widen_mla_nz: rows of an NZ cache's block (tiles of 16 elements, ld apart,
 * each tile's rows 16 apart) against widen of each row gathered
 * contiguous: the same floats (NaN for NaN, as widen_t's) and the same
 * finite answer; nothing outside the rows' n columns written, nothing
 * read past the last tile's last row (exact-size source: ASan). */
static void widen_mla_nz(const fast_kernels *k, const char *isa)
{
    int bad = 0, runs = 0;
    for (int it = 0; it < 150; it++) {
        const fia_dtype dt = it % 2 ? FIA_DT_BF16 : FIA_DT_FP16;
        const int nrows = 1 + it % 9;
        const int64_t n = 16 * (1 + (int64_t)(urand() * 40));
        const int64_t ld = it / 2 % 3 == 0 ? 16 * nrows
                           : it / 2 % 3 == 1 ? 16 * nrows + 48 : 2048;
        const int64_t ldd = n + (it % 4) * 16, tiles = n / 16;
        const int64_t len = (tiles - 1) * ld + 16 * nrows;
        uint16_t *src = malloc((size_t)len * 2), *row = malloc((size_t)n * 2);
        float *want = malloc((size_t)n * 4);
        float *got = malloc((size_t)(nrows * ldd) * 4);
        const uint16_t em = dt == FIA_DT_BF16 ? 0x7f80 : 0x7c00;
        for (int64_t i = 0; i < len; i++) {
            src[i] = (uint16_t)(urand() * 65536);
            if ((src[i] & em) == em) /* finite unless wanted */
                src[i] &= (uint16_t)~0x0400u;
        }
        if (it % 3 == 0) /* an inf: the last tile's last row's last one */
            src[len - 1] = em;
        for (int64_t i = 0; i < nrows * ldd; i++)
            got[i] = -7.0f;
        const bool fin = k->widen_mla_nz(dt, src, ld, nrows, got, ldd, n);
        bad += fin != (it % 3 != 0);
        for (int r = 0; r < nrows; r++) {
            for (int64_t d = 0; d < n; d++)
                row[d] = src[d / 16 * ld + r * 16 + d % 16];
            fast_kernels_scalar.widen(dt, row, want, n);
            for (int64_t d = 0; d < n; d++) {
                const float g = got[r * ldd + d];
                bad += memcmp(&want[d], &g, 4) != 0 &&
                       !(isnan(want[d]) && isnan(g));
            }
            for (int64_t d = n; d < ldd; d++)
                bad += got[r * ldd + d] != -7.0f;
        }
        free(src), free(row), free(want), free(got);
        runs++;
    }
    CHECK_MSG(bad == 0, "%s widen_mla_nz: %d mismatches in %d runs", isa, bad,
              runs);
}

/* widen_query_quant_nz: rows of an int8 NZ cache's block (tiles of 32, ld
 * apart, each tile's rows 32 apart) times a scale against the definition
 * fl((float)x * s) and against the portable kernel bit for bit (NaN for
 * NaN), the same finite answer (an inf or NaN scale, a product beyond
 * float32: false); nothing outside the rows' n columns written, nothing
 * read past the last tile's last row (exact-size source: ASan). */
static void widen_query_quant_nz(const fast_kernels *k, const char *isa)
{
    int bad = 0, runs = 0;
    for (int it = 0; it < 150; it++) {
        const int nrows = 1 + it % 9;
        const int64_t n = 32 * (1 + (int64_t)(urand() * 20));
        const int64_t ld = it / 2 % 3 == 0 ? 32 * nrows
                           : it / 2 % 3 == 1 ? 32 * nrows + 96 : 4096;
        const int64_t ldd = n + (it % 4) * 16, tiles = n / 32;
        const int64_t len = (tiles - 1) * ld + 32 * nrows;
        /* finite scales of any size, and now and then inf, NaN or one
         * whose product with 128 overflows */
        float s = (float)((urand() - 0.5) * 0.1);
        if (it % 10 == 3)
            s = INFINITY;
        else if (it % 10 == 6)
            s = NAN;
        else if (it % 10 == 9)
            s = 3e37f;
        int8_t *src = malloc((size_t)len);
        float *got = malloc((size_t)(nrows * ldd) * 4);
        float *sc = malloc((size_t)(nrows * ldd) * 4);
        for (int64_t i = 0; i < len; i++)
            src[i] = (int8_t)(urand() * 256 - 128);
        src[len - 1] = -128; /* the last tile's last row's last one */
        for (int64_t i = 0; i < nrows * ldd; i++)
            got[i] = sc[i] = -7.0f;
        const bool fin =
            k->widen_query_quant_nz(src, ld, nrows, s, got, ldd, n);
        const bool sfin = fast_kernels_scalar.widen_query_quant_nz(
            src, ld, nrows, s, sc, ldd, n);
        bool want_fin = true;
        for (int r = 0; r < nrows; r++) {
            for (int64_t d = 0; d < n; d++) {
                const float want =
                    (float)src[d / 32 * ld + r * 32 + d % 32] * s;
                const float g = got[r * ldd + d], c = sc[r * ldd + d];
                want_fin &= isfinite(want) != 0;
                bad += memcmp(&want, &g, 4) != 0 && !(isnan(want) && isnan(g));
                bad += memcmp(&want, &c, 4) != 0 && !(isnan(want) && isnan(c));
            }
            for (int64_t d = n; d < ldd; d++)
                bad += got[r * ldd + d] != -7.0f;
        }
        bad += fin != want_fin || sfin != want_fin;
        bad += (it % 10 == 3 || it % 10 == 6 || it % 10 == 9) && fin;
        free(src), free(got), free(sc);
        runs++;
    }
    CHECK_MSG(bad == 0, "%s widen_query_quant_nz: %d mismatches in %d runs",
              isa, bad, runs);
}

/* The fused decode kernel against the scalar kernels composed as the
 * attention does (widen, qk_dot, softmax over all keys, pv) in blocks of 64
 * keys: m, l and acc / l, fp16 and bf16, each P rounding, strided K/V rows,
 * row and key tails; a non-finite K or V must make it return false.  Q and
 * K hold small integers, so the scores are exact in any order and only the
 * exp implementations differ: a P rounding left out would show. */
static void decode(const fast_kernels *k, const char *isa)
{
    if (k->decode == NULL)
        return;
    static const int64_t Ds[] = {16, 48, 128, 144};
    int bad = 0, runs = 0, ndropped = 0;
    for (int it2 = 0; it2 < 192; it2++) {
        /* the second half with a bias (a pse row per query row, exact
         * size: ASan sees a read past the keys), -inf on every fifth key
         * and in one kind of run on every key of row 0 */
        const int it = it2 % 96;
        const bool with_bias = it2 >= 96;
        const int mr = 1 + it % FAST_DOT_MAX;
        const int64_t D = Ds[it / 8 % 4], ldkv = D + (it % 3 == 0 ? 16 : 0);
        /* probe: at most 8 keys (one block of the kernel) and V rows unit
         * vectors, so acc[r][c] is the rounded p of key c itself */
        const bool probe = it % 4 == 1;
        const int64_t nk = probe ? 1 + it % 8 : 1 + (int64_t)(urand() * 300);
        const fia_dtype dt = it % 2 ? FIA_DT_BF16 : FIA_DT_FP16;
        const int round = it / 2 % 3;
        const float scale = (float)(0.01 + 0.05 * urand());
        const int poison = it % 16 == 15 ? 1 : it % 16 == 7 ? 2 : 0;
        const int64_t Dp = D; /* D is a multiple of 16 here */
        uint16_t *kh = malloc((size_t)(nk * ldkv) * 2);
        uint16_t *vh = malloc((size_t)(nk * ldkv) * 2);
        for (int64_t i = 0; i < nk * ldkv; i++) {
            float a = (float)((int)(urand() * 7) - 3); /* exact scores */
            float b = (float)((2 * urand() - 1) * 2);
            if (dt == FIA_DT_FP16) {
                kh[i] = fast_double_to_fp16(a), vh[i] = fast_double_to_fp16(b);
            } else {
                kh[i] = fast_double_to_bf16(a), vh[i] = fast_double_to_bf16(b);
            }
        }
        const uint16_t inf = dt == FIA_DT_FP16 ? 0x7c00 : 0x7f80;
        for (int64_t c = 0; probe && c < nk; c++)
            for (int64_t d = 0; d < D; d++)
                vh[c * ldkv + d] = d == c ? (dt == FIA_DT_FP16 ? 0x3c00 : 0x3f80)
                                          : 0;
        if (poison == 1) /* inf in V: p > 0 times inf */
            vh[(nk / 2) * ldkv + D - 1] = inf;
        if (poison == 2) /* NaN in K */
            kh[(nk - 1) * ldkv] = (uint16_t)(inf | 1);
        uint16_t *bias[FAST_DOT_MAX];
        const uint16_t *bb[FAST_DOT_MAX];
        const uint16_t ninf = dt == FIA_DT_FP16 ? 0xfc00 : 0xff80;
        for (int r = 0; with_bias && r < mr; r++) {
            bias[r] = malloc((size_t)nk * 2);
            for (int64_t c = 0; c < nk; c++) {
                double x = (double)((int)(urand() * 17) - 8) / 4;
                bias[r][c] = dt == FIA_DT_FP16 ? fast_double_to_fp16(x)
                                               : fast_double_to_bf16(x);
                if (c % 5 == 3 || (r == 0 && it % 8 == 6))
                    bias[r][c] = ninf;
            }
        }
        float *q = frand(FAST_DOT_MAX * Dp, 1);
        for (int64_t i = 0; i < FAST_DOT_MAX * Dp; i++)
            q[i] = (float)(int)(q[i] * 2.5f); /* integers -2..2 */
        float m0[16], l0[16], m1[16], l1[16], alpha[16];
        float *acc0 = calloc((size_t)(16 * Dp), sizeof(float));
        float *acc1 = calloc((size_t)(16 * Dp), sizeof(float));
        float *kf = calloc((size_t)(64 * Dp), sizeof(float));
        float *vf = calloc((size_t)(64 * Dp), sizeof(float));
        float *st = calloc((size_t)(64 * 16), sizeof(float));
        for (int r = 0; r < 16; r++)
            m0[r] = m1[r] = -INFINITY, l0[r] = l1[r] = 0.0f;
        const fast_kernels *sc = &fast_kernels_scalar;
        for (int64_t j0 = 0; j0 < nk; j0 += 64) {
            int nb = nk - j0 < 64 ? (int)(nk - j0) : 64;
            int32_t lo[16], hi[16];
            for (int r = 0; r < 16; r++)
                lo[r] = 0, hi[r] = nb - 1;
            for (int c = 0; c < nb; c++) {
                sc->widen(dt, kh + (j0 + c) * ldkv, kf + c * Dp, D);
                sc->widen(dt, vh + (j0 + c) * ldkv, vf + c * Dp, D);
            }
            sc->qk_dot(q, Dp, mr, kf, Dp, nb, D, st, 16);
            for (int r = 0; with_bias && r < mr; r++)
                bb[r] = bias[r] + j0;
            if (with_bias)
                sc->pse_bias(dt, bb, mr, nb, scale, st, 16, NULL);
            sc->softmax(st, 16, mr, nb, with_bias ? 1.0f : scale, lo, hi,
                        NULL, round, m0, l0, alpha);
            sc->pv(st, 16, mr, vf, Dp, nb, D, alpha, acc0, Dp);
        }
        /* a pointer per 16 keys: every other run scatters them as a
         * paged cache does, reversed (the rows are copied, so the sums
         * are those of the contiguous keys) */
        const int64_t nblk = (nk + FAST_DEC_KB - 1) / FAST_DEC_KB;
        const uint16_t **kp = malloc((size_t)nblk * sizeof *kp);
        const uint16_t **vp = malloc((size_t)nblk * sizeof *vp);
        uint16_t *ks = NULL, *vs = NULL;
        if (runs % 2 == 1) {
            ks = malloc((size_t)(nblk * FAST_DEC_KB * ldkv) * 2);
            vs = malloc((size_t)(nblk * FAST_DEC_KB * ldkv) * 2);
        }
        for (int64_t i = 0; i < nblk; i++) {
            int64_t rows = nk - i * FAST_DEC_KB < FAST_DEC_KB
                               ? nk - i * FAST_DEC_KB : FAST_DEC_KB;
            if (ks == NULL) {
                kp[i] = kh + i * FAST_DEC_KB * ldkv;
                vp[i] = vh + i * FAST_DEC_KB * ldkv;
                continue;
            }
            int64_t slot = (nblk - 1 - i) * FAST_DEC_KB * ldkv;
            memcpy(ks + slot, kh + i * FAST_DEC_KB * ldkv,
                   (size_t)(rows * ldkv) * 2);
            memcpy(vs + slot, vh + i * FAST_DEC_KB * ldkv,
                   (size_t)(rows * ldkv) * 2);
            kp[i] = ks + slot, vp[i] = vs + slot;
        }
        for (int r = 0; with_bias && r < mr; r++)
            bb[r] = bias[r];
        bool ok = k->decode(q, Dp, mr, kp, vp, ldkv, with_bias ? bb : NULL,
                            nk, D, dt, scale, round, m1, l1, acc1, Dp);
        for (int r = 0; with_bias && r < mr; r++)
            free(bias[r]);
        if (with_bias && it % 8 == 6 && !poison) { /* row 0 all -inf */
            ndropped++;
            bad += m1[0] != -FLT_MAX || m0[0] != -FLT_MAX;
        }
        free(kp), free(vp), free(ks), free(vs);
        runs++;
        if (poison) {
            bad += ok; /* must hand the case back */
        } else {
            bad += !ok;
            /* P rounding may differ by one step where p is near a tie
             * (up to 2 ulp of the format times |v| <= 2 in acc / l) */
            const double tol = round == 0 ? 2e-5 : round == 1 ? 2e-3 : 1.6e-2;
            for (int r = 0; r < mr; r++) {
                bad += !near(m1[r], m0[r], 1e-5, 1e-5 * sqrt((double)D));
                bad += !near(l1[r], l0[r], 1e-4, 1e-6);
                for (int64_t d = 0; d < D; d++)
                    bad += !near(acc1[r * Dp + d] / l1[r],
                                 acc0[r * Dp + d] / l0[r], 0, tol);
                for (int64_t c = 0; probe && round && c < nk; c++) {
                    float x = acc1[r * Dp + c];
                    bad += x != (round == 1 ? fast_round_fp16f(x)
                                            : fast_round_bf16f(x));
                }
            }
        }
        free(kh), free(vh), free(q), free(acc0), free(acc1), free(kf);
        free(vf), free(st);
    }
    CHECK_MSG(bad == 0, "%s decode: %d values off in %d runs", isa, bad,
              runs);
    CHECK_MSG(ndropped > 0, "%s decode: no row of every key -inf", isa);
}

/* pse_bias (the pse after the scale) against the scalar kernel bit for bit:
 * each element is one multiplication, one addition and a clamp, in any
 * order of elements.  Ragged rows and keys, NULL rows, fp16 and bf16,
 * -inf / +inf / NaN in the bias and NaN / -inf scores, with and without
 * the block max; pse rows of exactly nk values (ASan sees a read past the
 * keys), nothing outside round_up(mr, 16) rows x nk keys written.  The
 * scalar kernel against the contract on the special values. */
static void pse_bias(const fast_kernels *k, const char *isa)
{
    int bad = 0;
    for (int it = 0; it < 160; it++) {
        const int mr = it % 8 == 0 ? 16 * (1 + it / 8 % 4)
                                   : 1 + (int)(urand() * 70);
        const int nk = it % 6 == 0 ? 64 : 1 + (int)(urand() * 64);
        const fia_dtype dt = it % 2 ? FIA_DT_BF16 : FIA_DT_FP16;
        const bool with_max = it % 3 != 0, specials = it % 4 == 1;
        const float scale = it % 5 == 0 ? 2.5f : 0.37f;
        uint16_t *rows[L];
        const uint16_t *rp[L];
        for (int r = 0; r < mr; r++) {
            rows[r] = malloc((size_t)nk * 2);
            for (int c = 0; c < nk; c++) {
                double x = (2 * urand() - 1) * 6;
                rows[r][c] = dt == FIA_DT_FP16 ? fast_double_to_fp16(x)
                                               : fast_double_to_bf16(x);
                if (specials && urand() < 0.05) {
                    static const uint16_t sp[2][3] = {{0xfc00, 0x7c00, 0x7e00},
                                                      {0xff80, 0x7f80, 0x7fc0}};
                    rows[r][c] = sp[dt == FIA_DT_BF16][(int)(urand() * 3)];
                }
            }
            rp[r] = r % 9 == 4 ? NULL : rows[r];
        }
        float *s0 = frand(64 * L, 8), *s1 = malloc(64 * L * sizeof(float));
        for (int i = 0; specials && i < 64 * L; i++)
            if (urand() < 0.02)
                s0[i] = urand() < 0.5 ? NAN : -INFINITY;
        memcpy(s1, s0, 64 * L * sizeof(float));
        float bm0[L + 16], bm1[L + 16];
        for (int r = 0; r < L + 16; r++)
            bm0[r] = bm1[r] = 7.0f; /* guard */
        fast_kernels_scalar.pse_bias(dt, rp, mr, nk, scale, s0, L,
                                     with_max ? bm0 : NULL);
        k->pse_bias(dt, rp, mr, nk, scale, s1, L, with_max ? bm1 : NULL);
        const int rows16 = (mr + 15) & ~15;
        for (int c = 0; c < 64; c++)
            for (int r = 0; r < L; r++) {
                const float a = s0[c * L + r], b = s1[c * L + r];
                bad += memcmp(&a, &b, 4) != 0 && !(isnan(a) && isnan(b));
            }
        for (int r = 0; r < L + 16; r++) {
            bad += memcmp(&bm0[r], &bm1[r], 4) != 0;
            bad += (r >= rows16 || !with_max) && bm1[r] != 7.0f;
        }
        for (int r = 0; r < mr; r++)
            free(rows[r]);
        free(s0), free(s1);
    }
    CHECK_MSG(bad == 0, "%s pse_bias: %d values off", isa, bad);
    if (k != &fast_kernels_scalar)
        return;
    /* the contract on special values, one row of 5 keys (fp16) */
    const uint16_t b5[5] = {0xfc00, 0x3c00, 0x7c00, 0x7e00, 0x0000};
    const uint16_t *rp[1] = {b5};
    float st[5 * 16] = {0}, bm[16];
    st[0] = 1.0f, st[16] = 2.0f, st[32] = 1.0f, st[48] = 1.0f;
    st[64] = NAN;
    fast_kernels_scalar.pse_bias(FIA_DT_FP16, rp, 1, 5, 0.5f, st, 16, bm);
    CHECK(st[0] == -FLT_MAX);              /* 0.5 + -inf, clamped */
    CHECK(st[16] == 2.0f);                 /* 1 + 1 */
    CHECK(isinf(st[32]) && st[32] > 0);    /* +inf stays */
    CHECK(isnan(st[48]) && isnan(st[64])); /* NaN stays */
    CHECK(bm[0] == INFINITY && st[1] == 0.0f && bm[1] == 0.0f);
}

/* A table (one file per kernel, assembled in fast/kernel/table_<isa>.c)
 * fills every operation FAST_KERNEL_LIST marks REQUIRED, and qk_t_max with
 * softmax_full or neither. */
#define REQUIRED_PRESENT(op) \
    CHECK_MSG(k->op != NULL, "%s: the mandatory kernel %s missing", isa, #op);
#define OPTIONAL_PRESENT(op)
#define CHECK_PRESENT(op, presence) presence##_PRESENT(op)
static void table_complete(const fast_kernels *k, const char *isa)
{
    CHECK_MSG(k->name != NULL, "%s: the table has no name", isa);
    FAST_KERNEL_LIST(CHECK_PRESENT)
    CHECK_MSG((k->qk_t_max == NULL) == (k->softmax_full == NULL),
              "%s: qk_t_max and softmax_full come together", isa);
}
#undef CHECK_PRESENT
#undef OPTIONAL_PRESENT
#undef REQUIRED_PRESENT

/* The best level this CPU has at or below level top. */
static const fast_kernels *best_at_most(int top)
{
    for (int i = top; i > 0; i--)
        if (fast_kernels_for((fast_isa)i) != NULL)
            return fast_kernels_for((fast_isa)i);
    return &fast_kernels_scalar;
}

/* The automatic choice: without FIA_FAST_ISA (or "auto") the best level
 * the CPU has (no test runs at the automatic level itself: CMakeLists.txt
 * runs every fast/ test at each level instead, which covers it only if
 * this holds), with it the best level at or below the one it names. */
static void automatic_choice(void)
{
    const char *env = getenv("FIA_FAST_ISA");
    char *saved = env != NULL ? strdup(env) : NULL;
    unsetenv("FIA_FAST_ISA");
    CHECK(fast_force_isa(FAST_ISA_COUNT));
    CHECK_MSG(fast_kernels_select() == best_at_most(FAST_ISA_COUNT - 1),
           "unset: automatic %s", fast_kernels_select()->name);
    setenv("FIA_FAST_ISA", "auto", 1);
    CHECK(fast_force_isa(FAST_ISA_COUNT));
    CHECK(fast_kernels_select() == best_at_most(FAST_ISA_COUNT - 1));
    for (int i = 0; i < FAST_ISA_COUNT; i++) {
        setenv("FIA_FAST_ISA", fast_isa_name((fast_isa)i), 1);
        CHECK(fast_force_isa(FAST_ISA_COUNT));
        CHECK_MSG(fast_kernels_select() == best_at_most(i),
               "FIA_FAST_ISA=%s: automatic %s", fast_isa_name((fast_isa)i),
               fast_kernels_select()->name);
    }
    if (saved != NULL)
        setenv("FIA_FAST_ISA", saved, 1);
    else
        unsetenv("FIA_FAST_ISA");
    free(saved);
    CHECK(fast_force_isa(FAST_ISA_COUNT));
}

static void dispatch(void)
{
    CHECK(fast_kernels_for(FAST_ISA_SCALAR) == &fast_kernels_scalar);
    CHECK(fast_force_isa(FAST_ISA_SCALAR));
    CHECK(fast_kernels_select() == &fast_kernels_scalar);
    for (int i = 1; i < FAST_ISA_COUNT; i++) {
        const fast_kernels *k = fast_kernels_for((fast_isa)i);
        CHECK(fast_force_isa((fast_isa)i) == (k != NULL));
        if (k != NULL)
            CHECK(fast_kernels_select() == k);
    }
    CHECK(fast_force_isa(FAST_ISA_COUNT)); /* back to automatic */
    CHECK(fast_kernels_select() != NULL);
    printf("dispatch: automatic choice %s\n", fast_kernels_select()->name);
    automatic_choice();
}

int main(void)
{
    for (int i = 0; i < FAST_ISA_COUNT; i++) {
        const fast_kernels *k = fast_kernels_for((fast_isa)i);
        const char *isa = fast_isa_name((fast_isa)i);
        if (k == NULL) {
            printf("%s: not supported on this CPU, skipped\n", isa);
            continue;
        }
        table_complete(k, isa);
        qk(k, isa);
        softmax(k, isa);
        qk_max(k, isa);
        pv(k, isa);
        conversions(k, isa);
        store_int8_out(k, isa);
        widen_t(k, isa);
        widen_mla_nz(k, isa);
        widen_query_quant_nz(k, isa);
        pse_bias(k, isa);
        decode(k, isa);
        printf("%s: tested\n", isa);
    }
    dispatch();
    return check_summary();
}
