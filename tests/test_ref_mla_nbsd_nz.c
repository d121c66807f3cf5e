/* The reference reads MLA's *_NBSD outputs and its NZ cache
 * (ref/read_layout.c, ref/read_output.c, ref/read_paged.c, ref/read_mla.c).
 *
 *  1. *_NBSD: BSH_NBSD, BSND_NBSD and BNSD_NBSD compute what BSH, BSND and
 *     BNSD compute (the same query, key, value: generated from the same
 *     seed and shapes), only attention_out's elements move: element (b, n,
 *     s, d) of the NBSD run at ((n B + b) Q_S + s) D + d holds, bit for bit
 *     (bits, exact value, bound, unspecified), the element the plain run
 *     holds where its layout puts (b, n, s, d).  An attention_out of
 *     another shape is refused, nothing computed.
 *  2. NZ: a cache of the NZ format (blocknum, KV_N, D/16, block_size, 16)
 *     (key, value, and key_rope (blocknum, KV_N, Dr/16, block_size, 16))
 *     gives, bit for bit, the results of the rank-3 cache (blocknum,
 *     block_size, KV_N*D) of the same rows: each row of a block cut into
 *     D/16 tiles of 16 columns, tile t of every row together.  The cache
 *     has an unused block of NaN, and the table is shuffled, so a read at
 *     the wrong block, tile, row or column shows.  BSH and TND (NZ is not
 *     taken with BNSD: the oracle's MLA-041; the reference reads it all).
 *  3. Refusals: an NZ key_rope whose tiles disagree with query_rope's Dr,
 *     an NZ cache whose last dim is not 16 (PARAM_INVALID); an int8 NZ
 *     cache, full quantization's tiles of 32 (NOT_MODELED). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/ref.h"
#include "ref_testlib.h"

static int same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

/* Element a of run x against element b of run y, every field. */
static int same_elem(const run *x, int64_t a, const run *y, int64_t b)
{
    if (x->r.out_unspecified[a] != y->r.out_unspecified[b])
        return 0;
    if (x->r.out_unspecified[a])
        return 1;
    return out_bits(x, a) == out_bits(y, b) &&
           same_double(x->r.out_exact[a], y->r.out_exact[b]) &&
           same_double(x->r.out_bound[a], y->r.out_bound[b]);
}

/* ---- 1. the *_NBSD outputs ----------------------------------------------- */

/* MLA prefill, Q_S 3, B 2, N 32 over one KV head, a rank-3 cache of block
 * size 16 (rank 4 with BNSD), sparse 3: the query in layout lay. */
static char *nbsd_text(const char *lay, int nbsd, const char *out)
{
    static const int64_t B = 2, N = 32, QS = 3, D = 512, Dr = 64;
    const int bnsd = strcmp(lay, "BNSD") == 0, bsh = strcmp(lay, "BSH") == 0;
    sbuf sb = {0};
    sb_printf(&sb, "input_layout = %s%s\nnum_heads = %lld\n"
                   "num_key_value_heads = 1\nsparse_mode = 3\n"
                   "atten_mask = bool [2048,2048]\nblock_size = 16\n"
                   "block_table = int32 [2,3]\n"
                   "block_table.values = 4,0,2,1,3,5\n"
                   "actual_seq_lengths_kv = [40,7]\nseed = 11\n",
              lay, nbsd ? "_NBSD" : "", (long long)N);
    if (bsh)
        sb_printf(&sb, "query = bf16 [%lld,%lld,%lld]\n"
                       "query_rope = bf16 [%lld,%lld,%lld]\n",
                  (long long)B, (long long)QS, (long long)(N * D),
                  (long long)B, (long long)QS, (long long)(N * Dr));
    else
        sb_printf(&sb, "query = bf16 [%lld,%lld,%lld,%lld]\n"
                       "query_rope = bf16 [%lld,%lld,%lld,%lld]\n",
                  (long long)B, (long long)(bnsd ? N : QS),
                  (long long)(bnsd ? QS : N), (long long)D, (long long)B,
                  (long long)(bnsd ? N : QS), (long long)(bnsd ? QS : N),
                  (long long)Dr);
    if (bnsd)
        sb_printf(&sb, "key = bf16 [6,1,16,512]\nvalue = bf16 [6,1,16,512]\n"
                       "key_rope = bf16 [6,1,16,64]\n");
    else
        sb_printf(&sb, "key = bf16 [6,16,512]\nvalue = bf16 [6,16,512]\n"
                       "key_rope = bf16 [6,16,64]\n");
    if (out)
        sb_printf(&sb, "attention_out = %s\n", out);
    return sb.s;
}

static void nbsd_case(const char *lay)
{
    static const int64_t B = 2, N = 32, QS = 3, D = 512;
    char *tp = nbsd_text(lay, 0, NULL);
    char *tn = nbsd_text(lay, 1, "bf16 [32,2,3,512]");
    run p, m;
    run_text(&p, tp, 0);
    run_text(&m, tn, 0);
    CHECK_MSG(p.ok && p.st == FIA_OK && m.ok && m.st == FIA_OK,
              "%s_NBSD: statuses %d %d (%s / %s)", lay, (int)p.st, (int)m.st,
              p.err.msg, m.err.msg);
    if (p.ok && p.st == FIA_OK && m.ok && m.st == FIA_OK) {
        const int bnsd = strcmp(lay, "BNSD") == 0;
        CHECK(m.r.out.ndim == 4 && m.r.out.shape[0] == N &&
              m.r.out.shape[1] == B && m.r.out.shape[2] == QS &&
              m.r.out.shape[3] == D);
        int bad = 0, spec = 0;
        for (int64_t b = 0; b < B; b++)
            for (int64_t n = 0; n < N; n++)
                for (int64_t s = 0; s < QS; s++)
                    for (int64_t d = 0; d < D; d++) {
                        const int64_t a = ((n * B + b) * QS + s) * D + d;
                        const int64_t o = bnsd
                                              ? ((b * N + n) * QS + s) * D + d
                                              : ((b * QS + s) * N + n) * D + d;
                        bad += !same_elem(&m, a, &p, o);
                        spec += !m.r.out_unspecified[a];
                    }
        CHECK_MSG(spec > 0, "%s_NBSD: nothing specified", lay);
        CHECK_MSG(bad == 0, "%s_NBSD: %d elements differ from %s's", lay,
                  bad, lay);
    }
    run_free(&p), run_free(&m);
    free(tp), free(tn);
    /* attention_out in the query's layout: refused */
    char *tw = nbsd_text(lay, 1, strcmp(lay, "BSH") == 0
                                     ? "bf16 [2,3,16384]"
                                     : "bf16 [2,32,3,512]");
    run w;
    run_text(&w, tw, 0);
    CHECK_MSG(w.ok && w.st == FIA_ERR_PARAM_INVALID && w.r.out.data == NULL,
              "%s_NBSD, out in the query's layout: status %d", lay,
              (int)w.st);
    run_free(&w);
    free(tw);
}

static void test_nbsd(void)
{
    nbsd_case("BSH");
    nbsd_case("BSND");
    nbsd_case("BNSD");
}

/* ---- 2. the NZ cache ----------------------------------------------------- */

enum { NBLK = 6, BS = 16, KD = 512, KR = 64 };

/* A rank-3 cache [NBLK, BS, W] (KV_N 1) of values x, or its NZ form
 * [NBLK, 1, W/16, BS, 16]: row o of block id, column d at
 * ((id W/16 + d/16) BS + o) 16 + d % 16. */
static void emit_cache(sbuf *sb, const char *name, const double *x,
                       int64_t W, int nz)
{
    if (nz)
        sb_printf(sb, "%s = bf16 [%d,1,%lld,%d,16]\n%s.values = ", name,
                  NBLK, (long long)(W / 16), BS, name);
    else
        sb_printf(sb, "%s = bf16 [%d,%d,%lld]\n%s.values = ", name, NBLK, BS,
                  (long long)W, name);
    const int64_t n = (int64_t)NBLK * BS * W;
    for (int64_t e = 0; e < n; e++) {
        int64_t src = e;
        if (nz) { /* e = ((id W/16 + t) BS + o) 16 + c */
            const int64_t c = e % 16, o = e / 16 % BS,
                          t = e / (16 * BS) % (W / 16),
                          id = e / (BS * W);
            src = (id * BS + o) * W + t * 16 + c;
        }
        sb_printf(sb, e ? ",%.17g" : "%.17g", x[src]);
    }
    sb_printf(sb, "\n");
}

/* Rank-3 cache data: rows of the blocks the table uses, NaN in block 5. */
static double *cache_data(int64_t W, double f)
{
    const int64_t n = (int64_t)NBLK * BS * W;
    double *x = rnd_array(n);
    for (int64_t i = 0; i < n; i++)
        x[i] = i >= 5 * BS * W ? NAN : x[i] * f;
    snap(x, n, "bf16");
    return x;
}

static char *nz_text(const char *layout, int nz, const double *k,
                     const double *v, const double *kr)
{
    sbuf sb = {0};
    if (strcmp(layout, "BSH") == 0)
        sb_printf(&sb, "input_layout = BSH\nquery = bf16 [2,1,16384]\n"
                       "query_rope = bf16 [2,1,2048]\n"
                       "actual_seq_lengths_kv = [40,7]\n");
    else /* TND: 2 and 3 query tokens, per-batch kv lengths (paged) */
        sb_printf(&sb, "input_layout = TND\nquery = bf16 [5,32,512]\n"
                       "query_rope = bf16 [5,32,64]\n"
                       "actual_seq_lengths = [2,5]\n"
                       "actual_seq_lengths_kv = [40,7]\nsparse_mode = 3\n"
                       "atten_mask = bool [2048,2048]\n");
    sb_printf(&sb, "num_heads = 32\nnum_key_value_heads = 1\n"
                   "block_size = %d\nblock_table = int32 [2,3]\n"
                   "block_table.values = 4,0,2,1,3,3\nseed = 5\n", BS);
    emit_cache(&sb, "key", k, KD, nz);
    emit_cache(&sb, "value", v, KD, nz);
    emit_cache(&sb, "key_rope", kr, KR, nz);
    return sb.s;
}

static void nz_case(const char *layout)
{
    double *k = cache_data(KD, 0.5), *v = cache_data(KD, 1.0),
           *kr = cache_data(KR, 0.5);
    char *t3 = nz_text(layout, 0, k, v, kr), *tz = nz_text(layout, 1, k, v, kr);
    run p, m;
    run_text(&p, t3, 0);
    run_text(&m, tz, 0);
    CHECK_MSG(p.ok && p.st == FIA_OK && m.ok && m.st == FIA_OK,
              "%s NZ: statuses %d %d (%s / %s)", layout, (int)p.st,
              (int)m.st, p.err.msg, m.err.msg);
    if (p.ok && p.st == FIA_OK && m.ok && m.st == FIA_OK) {
        CHECK(p.r.out_numel == m.r.out_numel && p.r.out_numel > 0);
        int bad = 0, spec = 0;
        for (int64_t i = 0; i < m.r.out_numel && i < p.r.out_numel; i++) {
            bad += !same_elem(&m, i, &p, i);
            spec += !m.r.out_unspecified[i];
        }
        CHECK_MSG(spec == m.r.out_numel, "%s NZ: %lld of %lld specified",
                  layout, (long long)spec, (long long)m.r.out_numel);
        CHECK_MSG(bad == 0, "%s NZ: %d elements differ from the rank-3 "
                  "cache's", layout, bad);
    }
    run_free(&p), run_free(&m);
    free(t3), free(tz), free(k), free(v), free(kr);
}

static void test_nz(void)
{
    nz_case("BSH");
    nz_case("TND");
}

/* ---- 3. refusals --------------------------------------------------------- */

static void refused(const char *text, fia_status want, const char *needle,
                    const char *what)
{
    run x;
    run_text(&x, text, 0);
    CHECK_MSG(x.ok && x.st == want && strstr(x.err.msg, needle) != NULL &&
                  x.r.out.data == NULL,
              "%s: status %d (want %d), message '%s' (want '%s')", what,
              (int)x.st, (int)want, x.err.msg, needle);
    run_free(&x);
}

#define NZ_BASE                                                              \
    "input_layout = BSH\nnum_heads = 32\nnum_key_value_heads = 1\n"          \
    "query = bf16 [2,1,16384]\nquery_rope = bf16 [2,1,2048]\n"               \
    "block_size = 16\nblock_table = int32 [2,3]\n"                           \
    "block_table.values = 0,1,2,3,4,5\nactual_seq_lengths_kv = [40,7]\n"

static void test_refusals(void)
{
    refused(NZ_BASE "key = bf16 [6,1,32,16,16]\nvalue = bf16 [6,1,32,16,16]\n"
                    "key_rope = bf16 [6,1,2,16,16]\n",
            FIA_ERR_PARAM_INVALID, "key_rope is not the NZ key's",
            "NZ key_rope of 2 tiles for Dr 64");
    refused(NZ_BASE "key = bf16 [6,1,32,16,16]\nvalue = bf16 [6,1,32,16,16]\n"
                    "key_rope = bf16 [6,16,64]\n",
            FIA_ERR_PARAM_INVALID, "key_rope is not the NZ key's",
            "rank-3 key_rope beside an NZ key");
    refused(NZ_BASE "key = bf16 [6,1,16,16,32]\nvalue = bf16 [6,1,16,16,32]\n"
                    "key_rope = bf16 [6,1,2,16,32]\n",
            FIA_ERR_PARAM_INVALID, "NZ cache", "NZ tiles of 32 (bf16)");
    refused(NZ_BASE "key = int8 [6,1,16,16,32]\nvalue = int8 [6,1,16,16,32]\n"
                    "key_rope = bf16 [6,1,2,16,32]\n",
            FIA_ERR_NOT_MODELED, "NZ cache of int8", "int8 NZ cache");
}

int main(void)
{
    test_nbsd();
    test_nz();
    test_refusals();
    return check_summary();
}
