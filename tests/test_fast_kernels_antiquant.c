/* fast/'s antiquant micro-kernels (kernels.h: widen_antiquant,
 * decode_antiquant) at every level this CPU supports: widen_antiquant bit for
 * bit against the definition ((x + o) then * s, each rounded in float32) for
 * int8 and int4, per-channel vectors and scalars, ragged lengths, an offset
 * near -x (no cancellation allowed), non-finite results flagged;
 * decode_antiquant against the composed kernels on the dequantized rows
 * (widen_antiquant, qk_dot, softmax, pv) for every per-channel / per-token
 * pairing of key and value. */
#include <stdint.h>
#include <stdlib.h>
#include "check.h"
#include "fast/fast_internal.h"
#include "test_rng.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint32_t next32(void) { return test_lcg64_hi31(&rng); }
static double urand(void) { return (double)next32() * 0x1p-32; }

static int elem(const uint8_t *src, int int4, int64_t i)
{
    if (!int4)
        return (int8_t)src[i];
    const int x = (i & 1) ? src[i >> 1] >> 4 : src[i >> 1] & 15;
    return x >= 8 ? x - 16 : x;
}

static void widen_antiquant(const fast_kernels *k, const char *isa)
{
    static const int64_t ns[] = {2, 8, 14, 16, 30, 64, 100, 128, 130};
    int bad = 0;
    for (int it = 0; it < 144; it++) {
        const int int4 = it % 2, chan = it / 2 % 2;
        const int64_t n = ns[it / 4 % 9];
        uint8_t src[160];
        for (int i = 0; i < 160; i++)
            src[i] = (uint8_t)next32();
        float sv[130], ov[130], dst[131], want[130];
        for (int64_t d = 0; d < n; d++) {
            sv[d] = (float)(urand() * 4 - 2);
            ov[d] = it % 8 == 5 ? (float)-elem(src, int4, d) + 1e-3f
                                : (float)(urand() * 10 - 5);
        }
        const float s = (float)(urand() + 0.1), o = (float)(urand() * 3);
        for (int64_t d = 0; d < n; d++) {
            float t = (float)elem(src, int4, d) + (chan ? ov[d] : o);
            want[d] = t * (chan ? sv[d] : s);
        }
        dst[n] = 12345.0f; /* nothing written past n */
        const bool fin =
            k->widen_antiquant(src, int4, chan ? sv : NULL, ov, s, o, dst, n);
        bad += !fin || dst[n] != 12345.0f ||
               memcmp(dst, want, (size_t)n * sizeof(float)) != 0;
        /* a non-finite scale is flagged */
        if (chan) {
            sv[n - 1] = INFINITY;
            bad += k->widen_antiquant(src, int4, sv, ov, s, o, dst, n);
        }
    }
    CHECK_MSG(bad == 0, "%s: widen_antiquant: %d mismatches", isa, bad);
}

/* decode_antiquant: mr rows against nk keys of int8 / int4 K and V, the key and
 * value each per-channel or per-token, against the composed scalar kernels
 * on the rows widen_antiquant gives. */
static void decode_antiquant(const fast_kernels *k, const char *isa)
{
    if (k->decode_antiquant == NULL)
        return;
    int bad = 0;
    for (int it = 0; it < 64; it++) {
        const int int4 = it % 2, ktok = it / 2 % 2, vtok = it / 4 % 2;
        const int mr = 1 + it % FAST_DOT_MAX;
        const int64_t D = it % 3 == 0 ? 64 : 128, ldkv = D * (1 + it % 2);
        const int64_t nk = 1 + (int64_t)(urand() * 300);
        const int round = it / 8 % 3;
        const fia_dtype dt = it % 5 == 0 ? FIA_DT_BF16 : FIA_DT_FP16;
        const int64_t nbytes = int4 ? nk * ldkv / 2 : nk * ldkv;
        uint8_t *kx = malloc((size_t)nbytes), *vx = malloc((size_t)nbytes);
        for (int64_t i = 0; i < nbytes; i++)
            kx[i] = (uint8_t)next32(), vx[i] = (uint8_t)next32();
        /* powers of two and small offsets: the dequantized values exact */
        float kcs[128], kco[128], vcs[128], vco[128];
        float *kts = malloc((size_t)nk * 4), *kto = malloc((size_t)nk * 4);
        float *vts = malloc((size_t)nk * 4), *vto = malloc((size_t)nk * 4);
        for (int64_t d = 0; d < D; d++) {
            kcs[d] = ldexpf(1, -(int)(next32() % 5) - (int4 ? 0 : 4));
            vcs[d] = ldexpf(1, -(int)(next32() % 5) - (int4 ? 0 : 4));
            kco[d] = (float)((int)(next32() % 5) - 2);
            vco[d] = (float)((int)(next32() % 5) - 2);
        }
        for (int64_t c = 0; c < nk; c++) {
            kts[c] = ldexpf(1, -(int)(next32() % 5) - (int4 ? 0 : 4));
            vts[c] = ldexpf(1, -(int)(next32() % 5) - (int4 ? 0 : 4));
            kto[c] = (float)((int)(next32() % 5) - 2);
            vto[c] = (float)((int)(next32() % 5) - 2);
        }
        float q[FAST_DOT_MAX * 128];
        for (int i = 0; i < FAST_DOT_MAX * 128; i++)
            q[i] = (float)(int)(urand() * 5 - 2.5) / 4;
        float m0[16], l0[16], m1[16], l1[16], alpha[16];
        float *acc0 = calloc((size_t)(16 * D), 4);
        float *acc1 = calloc((size_t)(16 * D), 4);
        float *kf = calloc((size_t)(64 * D), 4), *vf = calloc((size_t)(64 * D), 4);
        float st[64 * 16];
        for (int r = 0; r < 16; r++)
            m0[r] = m1[r] = -INFINITY, l0[r] = l1[r] = 0.0f;
        const fast_kernels *sc = &fast_kernels_scalar;
        const float scale = 0.0883883476f;
        const int64_t eb = int4 ? 2 : 1; /* elements per byte */
        for (int64_t j0 = 0; j0 < nk; j0 += 64) {
            const int nb = nk - j0 < 64 ? (int)(nk - j0) : 64;
            int32_t lo[16], hi[16];
            for (int r = 0; r < 16; r++)
                lo[r] = 0, hi[r] = nb - 1;
            for (int c = 0; c < nb; c++) {
                const int64_t j = j0 + c;
                sc->widen_antiquant(kx + j * ldkv / eb, int4, ktok ? NULL : kcs,
                                    kco, kts[j], kto[j], kf + c * D, D);
                sc->widen_antiquant(vx + j * ldkv / eb, int4, vtok ? NULL : vcs,
                                    vco, vts[j], vto[j], vf + c * D, D);
            }
            sc->qk_dot(q, D, mr, kf, D, nb, D, st, 16);
            sc->softmax(st, 16, mr, nb, scale, lo, hi, NULL, round, m0, l0,
                        alpha);
            sc->pv(st, 16, mr, vf, D, nb, D, alpha, acc0, D);
        }
        /* the kernel: a pointer per FAST_DEC_KB keys */
        const int64_t nblk = (nk + FAST_DEC_KB - 1) / FAST_DEC_KB;
        const void **kp = malloc((size_t)nblk * sizeof *kp);
        const void **vp = malloc((size_t)nblk * sizeof *vp);
        for (int64_t i = 0; i < nblk; i++)
            kp[i] = kx + i * FAST_DEC_KB * ldkv / eb,
            vp[i] = vx + i * FAST_DEC_KB * ldkv / eb;
        const fast_aq_dec ka = {ktok, ktok ? kts : kcs, ktok ? kto : kco};
        const fast_aq_dec va = {vtok, vtok ? vts : vcs, vtok ? vto : vco};
        const bool ok =
            k->decode_antiquant(q, D, mr, kp, vp, ldkv, int4, &ka, &va, NULL,
                                nk, D, dt, scale, round, m1, l1, acc1, D);
        if (!vtok) /* acc in units of 1 / s_d */
            for (int r = 0; r < mr; r++)
                for (int64_t d = 0; d < D; d++)
                    acc1[r * D + d] *= vcs[d];
        const int bad0 = bad;
        bad += !ok;
        for (int r = 0; r < mr; r++) {
            bad += fabsf(m0[r] - m1[r]) > 1e-4f * fabsf(m0[r]) + 1e-4f;
            bad += fabsf(l0[r] - l1[r]) > 1e-5f * l0[r];
            for (int64_t d = 0; d < D; d++) {
                const float a = acc0[r * D + d] / l0[r];
                const float b = acc1[r * D + d] / l1[r];
                /* P rounded (round 1, 2) against the maxima of blocks of
                 * 64 keys here, of 16 in the kernel: u of the dtype
                 * relative to the values (up to ~8), not to their sum */
                const float u = round == 2 ? 0x1p-7f : 0x1p-10f;
                bad += fabsf(a - b) > u * (fabsf(a) + 1.0f);
            }
        }
        if (bad != bad0) fprintf(stderr, "it %d int4 %d ktok %d vtok %d mr %d D %lld nk %lld ok %d: %d\n", it, int4, ktok, vtok, mr, (long long)D, (long long)nk, ok, bad - bad0);
        free(kx), free(vx), free(kts), free(kto), free(vts), free(vto);
        free(acc0), free(acc1), free(kf), free(vf), free(kp), free(vp);
    }
    CHECK_MSG(bad == 0, "%s: decode_antiquant: %d mismatches", isa, bad);
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
        CHECK_MSG(k->widen_antiquant != NULL, "%s: widen_antiquant missing",
                  isa);
        widen_antiquant(k, isa);
        decode_antiquant(k, isa);
        printf("%s: tested\n", isa);
    }
    return check_summary();
}
