/* MLA in fuzz/ (gen_mla.c): fuzz_numeric's MLA cases are calls the rules
 * accept, of both scenes (D = 512 paged, D = 128 token layouts), decode and
 * prefill, some long enough for fast/'s key blocks and split decode (and
 * every other numeric case the rules accept too: a token layout was once
 * packed from a paged case, which TND-X03 refuses);
 * fuzz_params' MLA calls break every MLA rule now and then and obey them
 * all now and then (the *_NBSD outputs' and the NZ cache's too; full
 * quantization's rules, and valid full-quantization calls of Q_S 1 and
 * 2..16, ND and NZ caches, block_size 16 and 128).  The
 * kernels are not run (the cases are judged by the oracle), but for the
 * metamorphic relation mla-zero-rope, which runs fast/ twice. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/oracle.h"
#include "fuzz/fuzz.h"
#include "fuzz/bytes.h"
#include "fuzz/fuzz_internal.h"
#include "fuzz/gen.h"
#include "fuzz_testlib.h"

static int is_mla(const fia_case *c)
{
    return c->tensors[FIA_SLOT_QUERY_ROPE].presence == FIA_PRESENT ||
           c->tensors[FIA_SLOT_KEY_ROPE].presence == FIA_PRESENT;
}

static int64_t query_d(const fia_case *c)
{
    const fia_tensor *q = &c->tensors[FIA_SLOT_QUERY].t[0];
    int64_t d = q->shape[q->ndim - 1];
    if (strncmp(c->attrs.input_layout, "BSH", 3) == 0) /* BSH_NBSD too */
        d /= c->attrs.num_heads;
    return d;
}

/* Full quantization: an int8 query with rope. */
static int is_query_quant(const fia_case *c)
{
    return is_mla(c) && c->tensors[FIA_SLOT_QUERY].t[0].dtype == FIA_DT_INT8;
}

/* The query's S in a batched layout (BSH, BSND: dim 1; BNSD: dim 2). */
static int64_t q_s(const fia_case *c)
{
    const fia_tensor *q = &c->tensors[FIA_SLOT_QUERY].t[0];
    return strncmp(c->attrs.input_layout, "BNSD", 4) == 0 ? q->shape[2]
                                                           : q->shape[1];
}

static int64_t longest_kv(const fia_case *c)
{
    const fia_int_array_spec *a = &c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    int64_t m = 0;
    for (int64_t b = 0; a->presence == FIA_PRESENT && b < a->count; b++) {
        int64_t len = a->values[b];
        if (fia_layout_is_tnd(c->attrs.input_layout) &&
            c->tensors[FIA_SLOT_BLOCK_TABLE].presence != FIA_PRESENT && b > 0)
            len -= a->values[b - 1]; /* cumulative */
        m = len > m ? len : m;
    }
    return m;
}

static void test_numeric(void)
{
    fuzz_rng r = {20261126};
    static uint8_t buf[4096];
    int n = 0, d512 = 0, d128 = 0, prefill = 0, split = 0, cache4 = 0,
        bad = 0, tokens = 0, others_bad = 0, nbsd = 0, nz = 0, query_quant = 0,
        query_quant_nz = 0, query_quant_qs1 = 0;
    for (int it = 0; it < check_draws(30000); it++) {
        size_t len = ftl_random_input(&r, buf, 64, sizeof buf);
        fia_case c;
        if (fuzz_decode_numeric(buf, len, &c) != FIA_OK)
            continue;
        if (!is_mla(&c)) { /* every numeric case is a call the rules take
                              (or one not modeled yet) */
            fia_oracle_verdict v;
            if (fia_oracle_evaluate(&c, FIA_PROFILE_DOC, &v, NULL) != FIA_OK ||
                (!v.accept && !v.not_modeled)) {
                if (others_bad++ < 2)
                    fprintf(stderr, "numeric case refused: %s by %s\n",
                            c.attrs.input_layout,
                            v.n_fired ? v.fired[0]->id : "?");
            }
        }
        if (is_mla(&c)) {
            n++;
            fia_oracle_verdict v;
            int ok = fia_oracle_evaluate(&c, FIA_PROFILE_DOC, &v, NULL) ==
                         FIA_OK && v.accept;
            if (!ok && bad++ < 3) {
                char *t = fia_case_to_string(&c);
                fprintf(stderr, "refused (%s):\n%s\n",
                        v.n_fired ? v.fired[0]->id : "?", t ? t : "");
                free(t);
            }
            const int64_t d = query_d(&c);
            d512 += d == 512, d128 += d == 128;
            const fia_tensor *k = &c.tensors[FIA_SLOT_KEY].t[0];
            cache4 += c.tensors[FIA_SLOT_BLOCK_TABLE].presence ==
                          FIA_PRESENT && k->ndim == 4;
            tokens += fia_layout_is_tnd(c.attrs.input_layout);
            nbsd += strstr(c.attrs.input_layout, "_NBSD") != NULL;
            nz += c.tensors[FIA_SLOT_BLOCK_TABLE].presence == FIA_PRESENT &&
                  k->ndim == 5;
            prefill += c.attrs.sparse_mode == 3;
            split += longest_kv(&c) > 128;
            query_quant += is_query_quant(&c);
            query_quant_nz += is_query_quant(&c) && k->ndim == 5;
            query_quant_qs1 += is_query_quant(&c) && q_s(&c) == 1;
        }
        fia_case_free(&c);
    }
    fprintf(stderr, "numeric: %d MLA cases (%d D 512, %d D 128, %d token "
            "layouts, %d sparse 3, %d over 128 keys, %d rank-4 caches, %d "
            "NBSD outputs, %d NZ caches), %d refused\n", n, d512, d128,
            tokens, prefill, split, cache4, nbsd, nz, bad);
    CHECK_COUNT(n >= 50);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(others_bad, 0);
    CHECK_COUNT(d512 > 0 && d128 > 0 && tokens > 0 && prefill > 0 && split > 0 &&
          cache4 > 0);
    /* the NBSD outputs and the NZ cache: only once fast/ models them */
    CHECK_COUNT(nbsd > 0 && nz > 0);
    /* full quantization: valid, Q_S 1 and more, ND and NZ */
    fprintf(stderr, "numeric: %d full quantization (%d NZ, %d Q_S 1)\n",
            query_quant, query_quant_nz, query_quant_qs1);
    CHECK_COUNT(query_quant > 0 && query_quant_nz > 0 &&
                query_quant_nz < query_quant && query_quant_qs1 > 0 &&
                query_quant_qs1 < query_quant);
}

static void test_params(void)
{
    static const char *const want[] = {
        "MLA-001", "MLA-002", "MLA-003", "MLA-004", "MLA-005", "MLA-010",
        "MLA-011", "MLA-012", "MLA-013", "MLA-014", "MLA-015", "MLA-016",
        "MLA-X01", "MLA-020", "MLA-X02", "MLA-022", "MLA-030", "MLA-031",
        "MLA-040", "MLA-041", "MLA-042", "OUT-003",
        /* full quantization */
        "MLA-043", "MLA-050", "MLA-051", "MLA-052", "MLA-053", "MLA-054",
        "MLA-055", "MLA-X03", "QQ-002", "QQ-003", "TND-X05"};
    enum { W = sizeof want / sizeof want[0] };
    int hit[W] = {0};
    /* every break of full quantization breaks a rule this test counts */
    int query_quant_breaks = 0;
    for (int b = 1; fz_mla_query_quant_break_rule(b) != NULL;
         b++, query_quant_breaks++) {
        int known = 0;
        for (int w = 0; w < W; w++)
            known |= strcmp(fz_mla_query_quant_break_rule(b), want[w]) == 0;
        CHECK_MSG(known, "break %d's %s not counted", b,
                  fz_mla_query_quant_break_rule(b));
    }
    CHECK_EQ_INT(query_quant_breaks, 9);
    CHECK(fz_mla_query_quant_break_rule(0) == NULL);
    int n = 0, accepted = 0, nbsd_ok = 0, nz_ok = 0, query_quant_ok = 0,
        query_quant_nz = 0, query_quant_qs1 = 0, query_quant_qs = 0,
        query_quant_bs16 = 0, query_quant_bs128 = 0;
    fuzz_rng r = {1126};
    static uint8_t buf[2048];
    for (int it = 0; it < check_draws(40000); it++) {
        size_t len = ftl_random_input(&r, buf, 32, sizeof buf);
        fia_case c;
        if (fuzz_decode_params(buf, len, &c) != FIA_OK)
            continue;
        /* an NBSD output without its ropes is gen_mla.c's too (MLA-030) */
        if (is_mla(&c) || strstr(c.attrs.input_layout, "_NBSD") != NULL) {
            n++;
            fia_oracle_verdict v;
            if (fia_oracle_evaluate(&c, FIA_PROFILE_DOC, &v, NULL) == FIA_OK) {
                accepted += v.accept;
                nbsd_ok += v.accept &&
                           strstr(c.attrs.input_layout, "_NBSD") != NULL;
                nz_ok += v.accept && c.tensors[FIA_SLOT_KEY].t[0].ndim == 5;
                if (v.accept && is_query_quant(&c)) {
                    query_quant_ok++;
                    query_quant_nz += c.tensors[FIA_SLOT_KEY].t[0].ndim == 5;
                    query_quant_qs1 += q_s(&c) == 1;
                    query_quant_qs += q_s(&c) > 1 && q_s(&c) <= 16;
                    query_quant_bs16 += c.attrs.block_size == 16;
                    query_quant_bs128 += c.attrs.block_size == 128;
                }
                for (int i = 0; i < v.n_fired; i++)
                    for (int w = 0; w < W; w++)
                        hit[w] += strcmp(v.fired[i]->id, want[w]) == 0;
            }
        }
        fia_case_free(&c);
    }
    fprintf(stderr, "params: %d MLA calls, %d accepted\n", n, accepted);
    CHECK_COUNT(n >= 100);
    CHECK_COUNT(accepted > 0);
    /* valid NBSD and NZ calls too, whatever fuzz_numeric makes */
    CHECK_COUNT_MSG(nbsd_ok > 0 && nz_ok > 0, "%d valid NBSD calls, %d NZ", nbsd_ok,
              nz_ok);
    /* valid full quantization: Q_S 1 and 2..16, ND and NZ, block_size 16
     * and 128 */
    fprintf(stderr,
            "params: %d valid full quantization (%d NZ, %d Q_S 1, "
            "%d Q_S 2..16, %d bs 16, %d bs 128)\n",
            query_quant_ok, query_quant_nz, query_quant_qs1, query_quant_qs,
            query_quant_bs16, query_quant_bs128);
    CHECK_COUNT(query_quant_ok > 0 && query_quant_nz > 0 &&
                query_quant_qs1 > 0 && query_quant_qs > 0 &&
                query_quant_bs16 > 0 && query_quant_bs128 > 0 &&
                query_quant_nz < query_quant_ok);
    for (int w = 0; w < W; w++)
        CHECK_COUNT_MSG(hit[w] > 0, "%s never broken", want[w]);
}

/* fuzz_metamorphic: an MLA base with zero ropes takes mla-zero-rope, and
 * the relation holds on fast/ (the MLA path against the general one): it
 * applies to some (the form without rope is a valid call when G <= 64)
 * and none is a finding. */
static void test_meta_zero_rope(void)
{
    fuzz_rng r = {2611};
    static uint8_t buf[4096];
    int n = 0, applied = 0, findings = 0;
    for (int it = 0; it < 20000 && applied < 6; it++) {
        size_t len = ftl_random_input(&r, buf, 64, sizeof buf);
        fia_case c;
        char tr[64];
        if (fuzz_decode_metamorphic(buf, len, &c, tr, sizeof tr) != FIA_OK ||
            strcmp(tr, "mla-zero-rope") != 0) {
            fia_case_free(&c);
            continue;
        }
        n++;
        CHECK(is_mla(&c) && fz_mla_zero_rope_applies(&c));
        fuzz_meta_result m;
        fuzz_meta_check(&c, tr, FIA_PROFILE_DOC, &m);
        applied += m.applicable;
        if (m.finding && findings++ < 2)
            fprintf(stderr, "mla-zero-rope finding: %s: %s\n", m.signature,
                    m.message);
        fia_case_free(&c);
    }
    fprintf(stderr, "metamorphic: %d MLA bases, %d related\n", n, applied);
    CHECK(applied >= 3);
    CHECK_EQ_INT(findings, 0);
}

/* fuzz_metamorphic: now and then an MLA base takes mla-heads-rev (ropes
 * made non-zero): the transform reverses the query's and query_rope's
 * heads (checked on the data), and the relation holds on fast/ (head h of
 * the second form is head N - 1 - h of the first) for some bases, none a
 * finding. */
static void test_meta_heads_rev(void)
{
    fuzz_rng r = {2631};
    static uint8_t buf[4096];
    int n = 0, applied = 0, findings = 0, reversed = 0;
    for (int it = 0; it < 40000 && applied < 6; it++) {
        size_t len = ftl_random_input(&r, buf, 64, sizeof buf);
        fia_case c;
        char tr[64];
        if (fuzz_decode_metamorphic(buf, len, &c, tr, sizeof tr) != FIA_OK ||
            strcmp(tr, "mla-heads-rev") != 0) {
            fia_case_free(&c);
            continue;
        }
        n++;
        CHECK(is_mla(&c) && fz_mla_heads_rev_applies(&c));
        CHECK(c.tensors[FIA_SLOT_QUERY_ROPE].gen.kind != FIA_GEN_CONST);
        fia_case c2;
        fz_geom g;
        if (n <= 3 && fz_geom_of_call(&c, &g) == 0 &&
            fuzz_meta_transform(&c, tr, &c2, NULL) == FIA_OK) {
            double *a = NULL, *b = NULL;
            int64_t na = 0, nb = 0;
            if (fz_slot_data(&c, FIA_SLOT_QUERY_ROPE, &a, &na, NULL) == FIA_OK &&
                fz_slot_data(&c2, FIA_SLOT_QUERY_ROPE, &b, &nb, NULL) == FIA_OK &&
                na == nb) {
                int same = 1;
                for (int64_t h = 0; h < g.N; h++)
                    for (int64_t d = 0; d < FZ_MLA_ROPE_D; d++)
                        same &= a[fz_index(g.layout, g.B, g.N, g.Q_S,
                                           FZ_MLA_ROPE_D, 0, h, 0, d)] ==
                                b[fz_index(g.layout, g.B, g.N, g.Q_S,
                                           FZ_MLA_ROPE_D, 0, g.N - 1 - h, 0,
                                           d)];
                reversed += same;
            }
            free(a);
            free(b);
            fia_case_free(&c2);
        }
        fuzz_meta_result m;
        fuzz_meta_check(&c, tr, FIA_PROFILE_DOC, &m);
        applied += m.applicable;
        if (m.finding && findings++ < 2)
            fprintf(stderr, "mla-heads-rev finding: %s: %s\n", m.signature,
                    m.message);
        fia_case_free(&c);
    }
    fprintf(stderr, "metamorphic: %d MLA bases reversed, %d related\n", n,
            applied);
    CHECK(reversed >= 1);
    CHECK(applied >= 3);
    CHECK_EQ_INT(findings, 0);
}

int main(void)
{
    test_numeric();
    test_meta_zero_rope();
    test_meta_heads_rev();
    test_params();
    return check_summary();
}
