/* The reference computes pse_shift (ref/read_pse.c, docs/features/pse.md
 * "The computation"): key j of row i gets the score scale * (q . k_j) +
 * pse[b'][n][r][c].  Asserted, in the four 002 layouts, fp16 and bf16,
 * prefill and decode, with GQA, a mask and sequence lengths:
 *
 *   - the outputs agree with an independent long double attention with the
 *     bias added after the scale (correctly rounded bits, exact values);
 *   - a pse of zeros gives the bits of no pse (and the same bounds where
 *     the precision mode does not change);
 *   - a pse constant on each row gives the outputs of no pse bit for bit
 *     (softmax invariance) and lse + c, also for a bf16 constant of 2^100
 *     (the exact scores' precision covers the bias);
 *   - a pse of batch 1 is read for every batch; S dims larger than (Q_S,
 *     KV_S) are not read past them (NaN there changes nothing);
 *   - -inf on some keys is the mask excluding them (the masked call's pse
 *     is NaN there: never read); a row all -inf is NaN (outputs and lse,
 *     compared exactly) with and without row-invalid correction
 *     (docs/semantics.md "Non-finite inputs"); +inf or NaN makes the row
 *     NaN; -inf on a key holding inf in v makes that column NaN;
 *   - left padding reads the pse at the physical row and column (moved
 *     values, NaN elsewhere: the plain call's bits), decode at row 0;
 *   - page attention and key/value lists read column j (the contiguous
 *     call's bits);
 *   - the binary64 pass and pure MPFR give the same bits on random pse
 *     cases, ties the pse makes (the rational mean, rounded to even), and
 *     non-finite pse;
 *   - an fp16 query with pse runs in high precision whatever inner_precise
 *     bit 0 says (its bounds are those of inner_precise 0);
 *   - a pse the rows cannot be read from is refused (PARAM_INVALID); an
 *     empty one is absent; a token layout takes none. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/ref.h"
#include "ref_testlib.h"

#define NB 2  /* batches */
#define NH 4  /* query heads */
#define NKV 2 /* key/value heads */
#define HD 16 /* head dim (a multiple of 16: PSE-005) */

/* One call: q [NB][NH][QS][HD], k / v [NB][NKV][KVS][HD] logical, pse
 * [pb][NH][ps][pk] (pb 0: none) in the query's dtype, exact in it. */
typedef struct pcall {
    const char *layout, *dt;
    int64_t QS, KVS;
    const double *q, *k, *v;
    double scale;
    int64_t pb, ps, pk;
    const double *pse;
    const char *extra;
} pcall;

static char *call_text(const pcall *c)
{
    sbuf sb = {0};
    sb_printf(&sb, "input_layout = %s\nnum_heads = %d\n"
              "num_key_value_heads = %d\nscale = %.17g\n"
              "softmax_lse_flag = true\n", c->layout, NH, NKV, c->scale);
    sb_printf(&sb, "query = %s ", c->dt);
    shape_str(&sb, c->layout, NB, NH, c->QS, HD);
    sb_printf(&sb, "\nkey = %s ", c->dt);
    shape_str(&sb, c->layout, NB, NKV, c->KVS, HD);
    sb_printf(&sb, "\nvalue = %s ", c->dt);
    shape_str(&sb, c->layout, NB, NKV, c->KVS, HD);
    sb_printf(&sb, "\n");
    values_line(&sb, "query", c->q, NB, NH, c->QS, HD, c->layout);
    values_line(&sb, "key", c->k, NB, NKV, c->KVS, HD, c->layout);
    values_line(&sb, "value", c->v, NB, NKV, c->KVS, HD, c->layout);
    if (c->pb > 0) {
        int64_t n = c->pb * NH * c->ps * c->pk;
        sb_printf(&sb, "pse_shift = %s [%lld,%d,%lld,%lld]\n", c->dt,
                  (long long)c->pb, NH, (long long)c->ps, (long long)c->pk);
        sb_printf(&sb, "pse_shift.values = ");
        for (int64_t e = 0; e < n; e++)
            sb_printf(&sb, e ? ",%.17g" : "%.17g", c->pse[e]);
        sb_printf(&sb, "\n");
    }
    if (c->extra)
        sb_printf(&sb, "%s\n", c->extra);
    return sb.s;
}

typedef struct res {
    fia_status st;
    fia_error err;
    fia_ref_result r;
} res;

static uint16_t obits(const res *x, int64_t i)
{
    return ((const uint16_t *)x->r.out.data)[i];
}

static double oval(const res *x, int64_t i)
{
    return x->r.out.dtype == FIA_DT_BF16 ? fia_bf16_to_double(obits(x, i))
                                         : fia_fp16_to_double(obits(x, i));
}

static float lval(const res *x, int64_t i)
{
    float f;
    memcpy(&f, (const uint32_t *)x->r.lse.data + i, sizeof f);
    return f;
}

static void compute_text(const char *text, int pure, res *x)
{
    fia_case c;
    fia_case_data d;
    memset(x, 0, sizeof *x);
    fia_case_init(&c);
    x->st = fia_case_parse_string(text, "<pse>", &c, &x->err);
    if (x->st == FIA_OK)
        x->st = fia_case_materialize(&c, 1, &d, &x->err);
    if (x->st == FIA_OK) {
        fia_ref_options o;
        fia_ref_options_default(&o);
        o.pure_mpfr = pure;
        x->st = fia_ref_compute(&c, &d, &o, &x->r, &x->err);
        fia_case_data_free(&d);
    }
    fia_case_free(&c);
}

static void compute(const pcall *c, int pure, res *x)
{
    char *t = call_text(c);
    compute_text(t, pure, x);
    free(t);
}

/* Elements (outputs, lse) whose bits or specified-ness differ. */
static int64_t differ(const fia_ref_result *a, const fia_ref_result *b)
{
    if (a->out_numel != b->out_numel || a->lse_numel != b->lse_numel)
        return -1;
    int64_t n = 0;
    const uint16_t *oa = a->out.data, *ob = b->out.data;
    for (int64_t e = 0; e < a->out_numel; e++)
        n += a->out_unspecified[e] != b->out_unspecified[e] ||
             (!a->out_unspecified[e] && oa[e] != ob[e]);
    const uint32_t *la = a->lse.data, *lb = b->lse.data;
    for (int64_t e = 0; e < a->lse_numel; e++)
        n += a->lse_unspecified[e] != b->lse_unspecified[e] ||
             (!a->lse_unspecified[e] && la[e] != lb[e]);
    return n;
}

static int64_t specified(const fia_ref_result *a)
{
    int64_t n = 0;
    for (int64_t e = 0; e < a->out_numel; e++)
        n += !a->out_unspecified[e];
    return n;
}

static void snap_dt(double *x, int64_t n, const char *dt)
{
    for (int64_t i = 0; i < n; i++)
        if (isfinite(x[i]))
            x[i] = strcmp(dt, "bf16") == 0
                       ? fia_bf16_to_double(fia_double_to_bf16(x[i]))
                       : fia_fp16_to_double(fia_double_to_fp16(x[i]));
}

/* ---- the independent long double attention with a bias --------------- */

/* allow[(b * QS + i) * KVS + j]: key j takes part in row i of batch b. */
static double bias_of(const pcall *c, int64_t b, int64_t n, int64_t i,
                      int64_t j)
{
    int64_t bb = c->pb == 1 ? 0 : b, r = c->QS == 1 ? 0 : i;
    return c->pse ? c->pse[((bb * NH + n) * c->ps + r) * c->pk + j] : 0.0;
}

/* Compares every specified element of x with long double; returns the
 * number of rows compared. */
static int64_t check_ld(const pcall *c, const uint8_t *allow, const res *x,
                        const char *what)
{
    const int64_t QS = c->QS, KVS = c->KVS;
    long double s[64];
    int64_t rows = 0, bad = 0, lbad = 0;
    for (int64_t b = 0; b < NB; b++)
        for (int64_t n = 0; n < NH; n++)
            for (int64_t i = 0; i < QS; i++) {
                int64_t kn = n / (NH / NKV), cnt = 0;
                long double m = -INFINITY, S = 0;
                for (int64_t j = 0; j < KVS; j++) {
                    if (!allow[(b * QS + i) * KVS + j])
                        continue;
                    long double dot = 0;
                    for (int64_t d = 0; d < HD; d++)
                        dot += (long double)c->q[((b * NH + n) * QS + i) *
                                                 HD + d] *
                               c->k[((b * NKV + kn) * KVS + j) * HD + d];
                    s[j] = dot * c->scale + bias_of(c, b, n, i, j);
                    m = s[j] > m ? s[j] : m;
                    cnt++;
                }
                if (cnt == 0)
                    continue;
                for (int64_t j = 0; j < KVS; j++)
                    if (allow[(b * QS + i) * KVS + j])
                        S += expl(s[j] - m);
                rows++;
                for (int64_t d = 0; d < HD; d++) {
                    long double num = 0;
                    for (int64_t j = 0; j < KVS; j++)
                        if (allow[(b * QS + i) * KVS + j])
                            num += expl(s[j] - m) *
                                   c->v[((b * NKV + kn) * KVS + j) * HD + d];
                    long double e = num / S;
                    tcase t = {.layout = c->layout, .B = NB, .N = NH,
                               .QS = QS, .D = HD};
                    int64_t oi = out_index(&t, b, n, i, d);
                    if (x->r.out_unspecified[oi]) {
                        bad++;
                        continue;
                    }
                    double ex = x->r.out_exact[oi];
                    bad += fabsl(ex - e) > 4e-15L + fabsl(e) * 1e-14L;
                    uint16_t want = x->r.out.dtype == FIA_DT_BF16
                                        ? fia_double_to_bf16(ex)
                                        : fia_double_to_fp16(ex);
                    bad += want != obits(x, oi);
                }
                int64_t li = (b * NH + n) * QS + i;
                long double l = m + logl(S);
                lbad += x->r.lse_unspecified[li] ||
                        fabsl(x->r.lse_exact[li] - l) > 1e-13L * (1 + fabsl(l));
            }
    CHECK_MSG(bad == 0 && lbad == 0, "%s: %lld outputs, %lld lse differ from "
              "long double", what, (long long)bad, (long long)lbad);
    return rows;
}

/* ---- the equivalences on one configuration ---------------------------- */

typedef struct cfg {
    const char *layout, *dt;
    int64_t QS, KVS;
    int lens, mask;
    int ip;                 /* inner_precise */
} cfg;

/* The call's lines for lengths, mask, inner_precise; allow[] to match. */
static void geometry(const cfg *g, sbuf *sb, uint8_t *allow)
{
    const int64_t QS = g->QS, KVS = g->KVS;
    int64_t ql[NB] = {QS, QS > 1 ? QS - 2 : 1};
    int64_t kl[NB] = {KVS, g->lens ? KVS - 3 : KVS};
    if (!g->lens)
        ql[1] = QS;
    sb_printf(sb, "inner_precise = %d\n", g->ip);
    if (g->lens) {
        if (QS > 1)
            sb_printf(sb, "actual_seq_lengths = [%lld,%lld]\n",
                      (long long)ql[0], (long long)ql[1]);
        sb_printf(sb, "actual_seq_lengths_kv = [%lld,%lld]\n",
                  (long long)kl[0], (long long)kl[1]);
    }
    uint8_t *m = calloc((size_t)(NB * QS * KVS), 1);
    if (g->mask) {
        for (int64_t e = 0; e < NB * QS * KVS; e++)
            m[e] = rng() % 10 < 3;
        if (QS > 1)
            sb_printf(sb, "atten_mask = bool [%d,%lld,%lld]\n", NB,
                      (long long)QS, (long long)KVS);
        else
            sb_printf(sb, "atten_mask = bool [%d,%lld]\n", NB,
                      (long long)KVS);
        sb_printf(sb, "atten_mask.values = ");
        for (int64_t e = 0; e < NB * QS * KVS; e++)
            sb_printf(sb, e ? ",%d" : "%d", m[e]);
        sb_printf(sb, "\n");
    }
    for (int64_t b = 0; b < NB; b++)
        for (int64_t i = 0; i < QS; i++)
            for (int64_t j = 0; j < KVS; j++)
                allow[(b * QS + i) * KVS + j] =
                    i < ql[b] && j < kl[b] && !m[(b * QS + i) * KVS + j];
    free(m);
}

static void equivalences(const cfg *g, uint64_t seed)
{
    rng_state = 0x9E3779B97F4A7C15ull ^ (seed * 0x100000001B3ull);
    const int64_t QS = g->QS, KVS = g->KVS, nr = NB * NH * QS;
    char what[160];
    snprintf(what, sizeof what, "%s %s Q_S %lld%s%s ip %d", g->layout, g->dt,
             (long long)QS, g->lens ? " lens" : "", g->mask ? " mask" : "",
             g->ip);
    double *q = rnd_array(nr * HD), *k = rnd_array(NB * NKV * KVS * HD);
    double *v = rnd_array(NB * NKV * KVS * HD);
    double *pse = rnd_array(nr * KVS), *zero = calloc((size_t)(nr * KVS), 8);
    snap_dt(q, nr * HD, g->dt);
    snap_dt(k, NB * NKV * KVS * HD, g->dt);
    snap_dt(v, NB * NKV * KVS * HD, g->dt);
    snap_dt(pse, nr * KVS, g->dt);
    double *shift = malloc(sizeof(double) * (size_t)(nr * KVS));
    double *cst = malloc(sizeof(double) * (size_t)nr);
    for (int64_t r = 0; r < nr; r++) {
        static const double cs[] = {-3.5, 0.75, 6.0, -20.0, 0.0, 1e3};
        cst[r] = cs[rng() % 6];
        for (int64_t j = 0; j < KVS; j++)
            shift[r * KVS + j] = cst[r];
    }
    uint8_t *allow = malloc((size_t)(NB * QS * KVS));
    sbuf geo = {0};
    geometry(g, &geo, allow);
    pcall base = {g->layout, g->dt, QS, KVS, q, k, v, 0.3, NB, QS, KVS, pse,
                  geo.s};
    pcall none = base, zc = base, sc = base;
    none.pb = 0;
    none.pse = NULL;
    zc.pse = zero;
    sc.pse = shift;
    res rb, rn, rz, rs;
    compute(&base, 0, &rb);
    compute(&none, 0, &rn);
    compute(&zc, 0, &rz);
    compute(&sc, 0, &rs);
    CHECK_MSG(rb.st == FIA_OK && rn.st == FIA_OK && rz.st == FIA_OK &&
                  rs.st == FIA_OK, "%s: %d %d %d %d %s %s", what, rb.st,
              rn.st, rz.st, rs.st, rb.err.msg, rn.err.msg);
    if (rb.st != FIA_OK || rn.st != FIA_OK || rz.st != FIA_OK ||
        rs.st != FIA_OK)
        goto out;
    CHECK_MSG(check_ld(&base, allow, &rb, what) > 0, "%s: no row", what);
    CHECK_MSG(differ(&rb.r, &rn.r) > 0, "%s: the pse changes nothing", what);
    CHECK_MSG(differ(&rz.r, &rn.r) == 0, "%s: zeros differ from none", what);
    /* the bound: the same unless the pse changed the precision mode */
    if (strcmp(g->dt, "bf16") == 0 || !(g->ip & 1))
        CHECK_MSG(memcmp(rz.r.out_bound, rn.r.out_bound,
                         (size_t)rn.r.out_numel * 8) == 0 &&
                      memcmp(rz.r.lse_bound, rn.r.lse_bound,
                             (size_t)rn.r.lse_numel * 8) == 0,
                  "%s: zeros change the bound", what);
    /* a constant per row: the outputs of no pse, lse + c */
    int64_t obad = 0, lbad = 0;
    const uint16_t *os = rs.r.out.data, *on = rn.r.out.data;
    for (int64_t e = 0; e < rn.r.out_numel; e++)
        obad += rs.r.out_unspecified[e] != rn.r.out_unspecified[e] ||
                (!rn.r.out_unspecified[e] && os[e] != on[e]);
    for (int64_t li = 0; li < nr; li++) {
        if (rn.r.lse_unspecified[li] || rs.r.lse_unspecified[li]) {
            lbad += rn.r.lse_unspecified[li] != rs.r.lse_unspecified[li];
            continue;
        }
        double want = rn.r.lse_exact[li] + cst[li], got = rs.r.lse_exact[li];
        lbad += fabs(got - want) > 0x1p-48 * (fabs(want) + fabs(cst[li]));
        lbad += lval(&rs, li) != (float)got;
    }
    CHECK_MSG(obad == 0 && lbad == 0, "%s: row constants: %lld outputs, %lld "
              "lse", what, (long long)obad, (long long)lbad);
    /* batch 1 broadcast: batch 0's pse replicated */
    {
        double *rep = malloc(sizeof(double) * (size_t)(nr * KVS));
        for (int64_t b = 0; b < NB; b++)
            memcpy(rep + b * NH * QS * KVS, pse,
                   sizeof(double) * (size_t)(NH * QS * KVS));
        pcall b1 = base, bb = base;
        b1.pb = 1;
        bb.pse = rep;
        res r1, r2;
        compute(&b1, 0, &r1);
        compute(&bb, 0, &r2);
        CHECK_MSG(r1.st == FIA_OK && r2.st == FIA_OK &&
                      differ(&r1.r, &r2.r) == 0 && specified(&r1.r) > 0,
                  "%s: batch 1 differs from its broadcast", what);
        if (r1.st == FIA_OK)
            check_ld(&b1, allow, &r1, what);
        fia_ref_result_free(&r1.r);
        fia_ref_result_free(&r2.r);
        free(rep);
    }
    /* larger S dims, NaN past (Q_S, KV_S): not read */
    {
        const int64_t ps = QS > 1 ? QS + 3 : 1, pk = KVS + 5;
        double *big = malloc(sizeof(double) * (size_t)(NB * NH * ps * pk));
        for (int64_t e = 0; e < NB * NH * ps * pk; e++)
            big[e] = NAN;
        for (int64_t r = 0; r < nr; r++) /* r = (b N + n) QS + i */
            memcpy(big + ((r / QS) * ps + r % QS) * pk, pse + r * KVS,
                   sizeof(double) * (size_t)KVS);
        pcall pc = base;
        pc.ps = ps, pc.pk = pk, pc.pse = big;
        res r1;
        compute(&pc, 0, &r1);
        CHECK_MSG(r1.st == FIA_OK && differ(&r1.r, &rb.r) == 0,
                  "%s: padded pse dims differ (%s)", what, r1.err.msg);
        fia_ref_result_free(&r1.r);
        free(big);
    }
out:
    fia_ref_result_free(&rb.r);
    fia_ref_result_free(&rn.r);
    fia_ref_result_free(&rz.r);
    fia_ref_result_free(&rs.r);
    free(q), free(k), free(v), free(pse), free(zero), free(shift), free(cst);
    free(allow), free(geo.s);
}

static void all_equivalences(void)
{
    static const char *lay[] = {"BSH", "BSND", "BNSD", "BNSD_BSND"};
    static const char *dts[] = {"fp16", "bf16"};
    uint64_t seed = 1;
    for (int l = 0; l < 4; l++)
        for (int t = 0; t < 2; t++) {
            const cfg cs[] = {
                {lay[l], dts[t], 5, 11, 0, 0, 0},
                {lay[l], dts[t], 5, 11, 1, 1, 1},
                {lay[l], dts[t], 1, 13, 0, 0, 1},
                {lay[l], dts[t], 1, 13, 1, 1, 2},
            };
            for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
                equivalences(&cs[i], seed++);
        }
}

/* A bf16 constant of 2^100 on every key: the scores' exact precision must
 * cover the bias (binary64 cannot hold 2^100 + s), both paths. */
static void big_constant(void)
{
    rng_state = 77;
    double *q = rnd_array(NB * NH * 4 * HD), *k = rnd_array(NB * NKV * 9 * HD);
    double *v = rnd_array(NB * NKV * 9 * HD);
    snap_dt(q, NB * NH * 4 * HD, "bf16");
    snap_dt(k, NB * NKV * 9 * HD, "bf16");
    snap_dt(v, NB * NKV * 9 * HD, "bf16");
    double *c = malloc(sizeof(double) * NB * NH * 4 * 9);
    for (int e = 0; e < NB * NH * 4 * 9; e++)
        c[e] = 0x1p100;
    pcall with = {"BNSD", "bf16", 4, 9, q, k, v, 0.3, NB, 4, 9, c, NULL};
    pcall none = with;
    none.pb = 0;
    res rw, rp, rn;
    compute(&with, 0, &rw);
    compute(&with, 1, &rp);
    compute(&none, 0, &rn);
    CHECK(rw.st == FIA_OK && rp.st == FIA_OK && rn.st == FIA_OK);
    if (rw.st == FIA_OK && rp.st == FIA_OK && rn.st == FIA_OK) {
        const uint16_t *a = rw.r.out.data, *b = rn.r.out.data,
                       *p = rp.r.out.data;
        int64_t bad = 0;
        for (int64_t e = 0; e < rn.r.out_numel; e++)
            bad += a[e] != b[e] || p[e] != b[e];
        CHECK_MSG(bad == 0, "2^100 constant: %lld outputs differ",
                  (long long)bad);
        CHECK(rw.r.n_escalated > 0);
        for (int64_t li = 0; li < rn.r.lse_numel; li++)
            CHECK(lval(&rw, li) == 0x1p100f);
    }
    fia_ref_result_free(&rw.r);
    fia_ref_result_free(&rp.r);
    fia_ref_result_free(&rn.r);
    free(q), free(k), free(v), free(c);
}

/* ---- -inf is a mask; the other non-finite values ---------------------- */

static void neg_inf_is_mask(int64_t QS, int ip, uint64_t seed)
{
    rng_state = seed;
    const int64_t KVS = 10, nr = NB * NH * QS;
    double *q = rnd_array(nr * HD), *k = rnd_array(NB * NKV * KVS * HD);
    double *v = rnd_array(NB * NKV * KVS * HD);
    double *pa = rnd_array(nr * KVS), *pm = malloc(sizeof(double) *
                                                   (size_t)(nr * KVS));
    uint8_t *m = malloc((size_t)(NB * QS * KVS));
    for (int64_t e = 0; e < NB * QS * KVS; e++)
        m[e] = rng() % 10 < 4;
    for (int64_t j = 0; j < KVS; j++)
        m[j] = 1; /* batch 0's row 0: every key excluded */
    sbuf mk = {0};
    sb_printf(&mk, "inner_precise = %d\n", ip);
    if (QS > 1)
        sb_printf(&mk, "atten_mask = bool [%d,%lld,%lld]\n", NB,
                  (long long)QS, (long long)KVS);
    else
        sb_printf(&mk, "atten_mask = bool [%d,%lld]\n", NB, (long long)KVS);
    sb_printf(&mk, "atten_mask.values = ");
    for (int64_t e = 0; e < NB * QS * KVS; e++)
        sb_printf(&mk, e ? ",%d" : "%d", m[e]);
    /* pse (b, n, i, j) = pa, -inf where the mask excludes; the masked
     * call's is NaN there */
    for (int64_t b = 0; b < NB; b++)
        for (int64_t n = 0; n < NH; n++)
            for (int64_t i = 0; i < QS; i++)
                for (int64_t j = 0; j < KVS; j++) {
                    int64_t e = ((b * NH + n) * QS + i) * KVS + j;
                    pm[e] = pa[e];
                    if (m[(b * QS + i) * KVS + j])
                        pa[e] = -INFINITY, pm[e] = NAN;
                }
    char ipl[32];
    snprintf(ipl, sizeof ipl, "inner_precise = %d", ip);
    pcall a = {"BSND", "fp16", QS, KVS, q, k, v, 0.5, NB, QS, KVS, pa, ipl};
    pcall b = a;
    b.pse = pm;
    b.extra = mk.s;
    res ra, rb;
    compute(&a, 0, &ra);
    compute(&b, 0, &rb);
    CHECK_MSG(ra.st == FIA_OK && rb.st == FIA_OK, "-inf: %s %s", ra.err.msg,
              rb.err.msg);
    int64_t same = 0, bad = 0, nanrows = 0;
    for (int64_t b_ = 0; ra.st == FIA_OK && rb.st == FIA_OK && b_ < NB; b_++)
        for (int64_t n = 0; n < NH; n++)
            for (int64_t i = 0; i < QS; i++) {
                int full = 1;
                for (int64_t j = 0; j < KVS; j++)
                    full &= m[(b_ * QS + i) * KVS + j];
                tcase t = {.layout = "BSND", .B = NB, .N = NH, .QS = QS,
                           .D = HD};
                int64_t li = (b_ * NH + n) * QS + i;
                for (int64_t d = 0; d < HD; d++) {
                    int64_t oi = out_index(&t, b_, n, i, d);
                    if (full) { /* all -inf: NaN, compared exactly */
                        bad += ra.r.out_unspecified[oi] ||
                               !isnan(oval(&ra, oi)) ||
                               ra.r.out_bound[oi] != 0.0;
                        continue;
                    }
                    bad += ra.r.out_unspecified[oi] ||
                           rb.r.out_unspecified[oi] ||
                           obits(&ra, oi) != obits(&rb, oi);
                    same++;
                }
                if (full) {
                    nanrows++;
                    bad += ra.r.lse_unspecified[li] ||
                           !isnan(lval(&ra, li)) ||
                           ra.r.lse_bound[li] != 0.0;
                    /* the masked call: corrected or unspecified */
                    bad += ip & 2 ? rb.r.lse_unspecified[li] ||
                                        lval(&rb, li) != INFINITY
                                  : !rb.r.lse_unspecified[li];
                } else {
                    bad += ((const uint32_t *)ra.r.lse.data)[li] !=
                           ((const uint32_t *)rb.r.lse.data)[li];
                }
            }
    CHECK_MSG(bad == 0 && same > 0 && nanrows == NH,
              "-inf vs mask Q_S %lld ip %d: %lld bad, %lld same, %lld NaN "
              "rows", (long long)QS, ip, (long long)bad, (long long)same,
              (long long)nanrows);
    fia_ref_result_free(&ra.r);
    fia_ref_result_free(&rb.r);
    free(q), free(k), free(v), free(pa), free(pm), free(m), free(mk.s);
}

/* One row, D = 16, 4 keys, BNSD, explicit pse: +inf / NaN make the row
 * NaN; -inf on a key holding inf in v column 0 makes that column NaN. */
static void nonfinite(void)
{
    double q[HD], k[4 * HD], v[4 * HD];
    for (int d = 0; d < HD; d++)
        q[d] = d % 3 - 1.0;
    for (int e = 0; e < 4 * HD; e++)
        k[e] = (e % 5) * 0.25, v[e] = (e % 7) - 3.0;
    tcase t = {"BNSD", "fp16", 1, 1, 1, 1, 4, HD, q, k, v, NULL};
    char *base = build(&t);
    static const struct {
        const char *pse;
        int row_nan;
    } cs[] = {
        {"1,inf,0,2", 1}, {"nan,0,0,0", 1}, {"inf,-inf,0,0", 1},
        {"-inf,-inf,-inf,-inf", 1}, {"-inf,0,1,2", 0},
    };
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        char text[8192];
        snprintf(text, sizeof text, "%ssoftmax_lse_flag = true\n"
                 "inner_precise = 2\npse_shift = fp16 [1,1,1,4]\n"
                 "pse_shift.values = %s\n", base, cs[c].pse);
        res r, p;
        compute_text(text, 0, &r);
        compute_text(text, 1, &p);
        CHECK_MSG(r.st == FIA_OK && p.st == FIA_OK, "%s: %s", cs[c].pse,
                  r.err.msg);
        if (r.st == FIA_OK && p.st == FIA_OK) {
            CHECK_MSG(differ(&r.r, &p.r) == 0, "%s: paths differ", cs[c].pse);
            if (cs[c].row_nan) {
                int ok = isnan(lval(&r, 0)) && r.r.lse_bound[0] == 0.0;
                for (int d = 0; d < HD; d++)
                    ok &= isnan(oval(&r, d)) && r.r.out_bound[d] == 0.0;
                CHECK_MSG(ok, "%s: the row is not NaN", cs[c].pse);
            } else {
                /* key 0 drops: the row of keys 1..3 */
                CHECK(isfinite(lval(&r, 0)) && isfinite(oval(&r, 0)));
            }
        }
        fia_ref_result_free(&r.r);
        fia_ref_result_free(&p.r);
    }
    /* -inf on key 0 whose v[0][0] is inf: column 0 NaN (0 * inf), the
     * others those of keys 1..3 alone */
    v[0] = INFINITY;
    char *with_inf = build(&t);
    double k3[3 * HD], v3[3 * HD];
    memcpy(k3, k + HD, sizeof k3);
    memcpy(v3, v + HD, sizeof v3);
    tcase t3 = {"BNSD", "fp16", 1, 1, 1, 1, 3, HD, q, k3, v3, NULL};
    char *three = build(&t3);
    char text[8192], text3[8192];
    snprintf(text, sizeof text, "%ssoftmax_lse_flag = true\n"
             "pse_shift = fp16 [1,1,1,4]\npse_shift.values = -inf,0,1,2\n",
             with_inf);
    snprintf(text3, sizeof text3, "%ssoftmax_lse_flag = true\n"
             "pse_shift = fp16 [1,1,1,3]\npse_shift.values = 0,1,2\n", three);
    res r, r3;
    compute_text(text, 0, &r);
    compute_text(text3, 0, &r3);
    CHECK(r.st == FIA_OK && r3.st == FIA_OK);
    if (r.st == FIA_OK && r3.st == FIA_OK) {
        CHECK(isnan(oval(&r, 0)) && r.r.out_bound[0] == 0.0);
        int same = lval(&r, 0) == lval(&r3, 0);
        for (int d = 1; d < HD; d++)
            same &= obits(&r, d) == obits(&r3, d);
        CHECK_MSG(same, "-inf key with an inf v: the other columns differ");
    }
    fia_ref_result_free(&r.r);
    fia_ref_result_free(&r3.r);
    free(base), free(with_inf), free(three);
}

/* ---- left padding: the physical row and column ------------------------ */

/* A plain call and its left-padded form (query and kv scenes at Q_S > 1,
 * the kv scene at Q_S = 1): q / k / v / pse moved to the physical rows and
 * columns, NaN elsewhere. */
static void padding(const char *layout, int64_t QS, uint64_t seed)
{
    rng_state = seed;
    const int decode = QS == 1;
    const int64_t KVS = 9, QSp = decode ? 1 : QS + 3, KVSp = KVS + 5;
    const int64_t pq = 1, pkv = 2, ql[NB] = {QS, decode ? 1 : QS - 2},
                  kl[NB] = {KVS, KVS - 4};
    double *q = rnd_array(NB * NH * QS * HD);
    double *k = rnd_array(NB * NKV * KVS * HD);
    double *v = rnd_array(NB * NKV * KVS * HD);
    double *pse = rnd_array(NB * NH * QS * KVS);
    double *qp = malloc(sizeof(double) * NB * NH * QSp * HD);
    double *kp = malloc(sizeof(double) * NB * NKV * KVSp * HD);
    double *vp = malloc(sizeof(double) * NB * NKV * KVSp * HD);
    double *pp = malloc(sizeof(double) * NB * NH * QSp * KVSp);
    for (int64_t e = 0; e < NB * NH * QSp * HD; e++)
        qp[e] = NAN;
    for (int64_t e = 0; e < NB * NKV * KVSp * HD; e++)
        kp[e] = vp[e] = NAN;
    for (int64_t e = 0; e < NB * NH * QSp * KVSp; e++)
        pp[e] = NAN;
    int64_t qs[NB], ks[NB];
    for (int64_t b = 0; b < NB; b++) {
        qs[b] = decode ? 0 : QSp - pq - ql[b];
        ks[b] = KVSp - pkv - kl[b];
        for (int64_t n = 0; n < NH; n++)
            for (int64_t i = 0; i < ql[b]; i++) {
                for (int64_t d = 0; d < HD; d++)
                    qp[((b * NH + n) * QSp + qs[b] + i) * HD + d] =
                        q[((b * NH + n) * QS + i) * HD + d];
                for (int64_t j = 0; j < kl[b]; j++)
                    pp[((b * NH + n) * QSp + qs[b] + i) * KVSp + ks[b] + j] =
                        pse[((b * NH + n) * QS + i) * KVS + j];
            }
        for (int64_t n = 0; n < NKV; n++)
            for (int64_t j = 0; j < kl[b]; j++)
                for (int64_t d = 0; d < HD; d++) {
                    int64_t to = ((b * NKV + n) * KVSp + ks[b] + j) * HD + d;
                    int64_t from = ((b * NKV + n) * KVS + j) * HD + d;
                    kp[to] = k[from], vp[to] = v[from];
                }
    }
    char lens[256], lensp[512];
    snprintf(lens, sizeof lens, "%s[%lld,%lld]\n"
             "actual_seq_lengths_kv = [%lld,%lld]",
             decode ? "# " : "actual_seq_lengths = ", (long long)ql[0],
             (long long)ql[1], (long long)kl[0], (long long)kl[1]);
    snprintf(lensp, sizeof lensp, "%s\nkv_padding_size = int64 [1]\n"
             "kv_padding_size.values = %lld\n%s%lld", lens, (long long)pkv,
             decode ? "# " : "query_padding_size = int64 [1]\n"
                             "query_padding_size.values = ",
             (long long)pq);
    pcall a = {layout, "fp16", QS, KVS, q, k, v, 0.3, NB, QS, KVS, pse, lens};
    pcall b = {layout, "fp16", QSp, KVSp, qp, kp, vp, 0.3, NB, QSp, KVSp, pp,
               lensp};
    res ra, rb;
    compute(&a, 0, &ra);
    compute(&b, 0, &rb);
    CHECK_MSG(ra.st == FIA_OK && rb.st == FIA_OK, "padding %s Q_S %lld: %s %s",
              layout, (long long)QS, ra.err.msg, rb.err.msg);
    int64_t bad = 0, cmp = 0;
    tcase ta = {.layout = layout, .B = NB, .N = NH, .QS = QS, .D = HD};
    tcase tb = {.layout = layout, .B = NB, .N = NH, .QS = QSp, .D = HD};
    for (int64_t b_ = 0; ra.st == FIA_OK && rb.st == FIA_OK && b_ < NB; b_++)
        for (int64_t n = 0; n < NH; n++)
            for (int64_t i = 0; i < ql[b_]; i++) {
                for (int64_t d = 0; d < HD; d++) {
                    int64_t o1 = out_index(&ta, b_, n, i, d);
                    int64_t o2 = out_index(&tb, b_, n, qs[b_] + i, d);
                    bad += ra.r.out_unspecified[o1] ||
                           rb.r.out_unspecified[o2] ||
                           obits(&ra, o1) != obits(&rb, o2);
                    cmp++;
                }
                bad += ((const uint32_t *)ra.r.lse.data)[(b_ * NH + n) * QS +
                                                         i] !=
                       ((const uint32_t *)rb.r.lse.data)[(b_ * NH + n) * QSp +
                                                         qs[b_] + i];
            }
    CHECK_MSG(bad == 0 && cmp > 0, "padding %s Q_S %lld: %lld of %lld differ",
              layout, (long long)QS, (long long)bad, (long long)cmp);
    fia_ref_result_free(&ra.r);
    fia_ref_result_free(&rb.r);
    free(q), free(k), free(v), free(pse), free(qp), free(kp), free(vp);
    free(pp);
}

/* ---- page attention and key/value lists: column j --------------------- */

static void values_of(sbuf *sb, const char *name, const double *x, int64_t n)
{
    sb_printf(sb, "%s.values = ", name);
    for (int64_t e = 0; e < n; e++)
        sb_printf(sb, e ? ",%.17g" : "%.17g", x[e]);
    sb_printf(sb, "\n");
}

/* The same keys contiguous (BNSD or BSH), behind a shuffled block table
 * (BNSD: a (blocknum, KV_N, bs, D) cache; BSH: (blocknum, bs, KV_N*D)),
 * and, BNSD, as a list of a tensor per batch: the same bits; the pse's
 * column is the key index j in all three.  Cache rows and list rows no key
 * uses are NaN. */
static void paged_and_lists(int bsh, int64_t QS, uint64_t seed)
{
    rng_state = seed;
    enum { BS = 4, NBLK = 8, KVS = 13, PK = 16 };
    const int64_t kl[NB] = {13, 6};
    const char *lay = bsh ? "BSH" : "BNSD";
    double *q = rnd_array(NB * NH * QS * HD);
    double *k = rnd_array(NB * NKV * KVS * HD);
    double *v = rnd_array(NB * NKV * KVS * HD);
    double *pse = rnd_array(NB * NH * QS * PK);
    double kc[NBLK * NKV * BS * HD], vc[NBLK * NKV * BS * HD];
    for (int e = 0; e < NBLK * NKV * BS * HD; e++)
        kc[e] = vc[e] = NAN;
    int32_t ids[NB][4] = {{5, 0, 7, 2}, {3, 6, 1, 4}};
    for (int64_t b = 0; b < NB; b++)
        for (int64_t kn = 0; kn < NKV; kn++)
            for (int64_t j = 0; j < kl[b]; j++)
                for (int64_t d = 0; d < HD; d++) {
                    int64_t id = ids[b][j / BS], o = j % BS;
                    int64_t to = bsh ? ((id * BS + o) * NKV + kn) * HD + d
                                     : ((id * NKV + kn) * BS + o) * HD + d;
                    int64_t from = ((b * NKV + kn) * KVS + j) * HD + d;
                    kc[to] = k[from], vc[to] = v[from];
                }
    char lens[128];
    snprintf(lens, sizeof lens, "actual_seq_lengths_kv = [%lld,%lld]",
             (long long)kl[0], (long long)kl[1]);
    pcall plain = {lay, "fp16", QS, KVS, q, k, v, 0.3, NB, QS, PK, pse, lens};
    res r1, r2, r3, r4;
    compute(&plain, 0, &r1);
    /* paged: the query and pse lines of the plain call, the cache instead */
    sbuf sb = {0};
    sb_printf(&sb, "input_layout = %s\nnum_heads = %d\n"
              "num_key_value_heads = %d\nscale = 0.3\nsoftmax_lse_flag = true\n"
              "%s\nblock_size = %d\nblock_table = int32 [%d,4]\n"
              "block_table.values = 5,0,7,2,3,6,1,4\nquery = fp16 ", lay, NH,
              NKV, lens, BS, NB);
    shape_str(&sb, lay, NB, NH, QS, HD);
    sb_printf(&sb, "\n");
    values_line(&sb, "query", q, NB, NH, QS, HD, lay);
    if (bsh)
        sb_printf(&sb, "key = fp16 [%d,%d,%d]\nvalue = fp16 [%d,%d,%d]\n",
                  NBLK, BS, NKV * HD, NBLK, BS, NKV * HD);
    else
        sb_printf(&sb, "key = fp16 [%d,%d,%d,%d]\n"
                  "value = fp16 [%d,%d,%d,%d]\n", NBLK, NKV, BS, HD, NBLK,
                  NKV, BS, HD);
    values_of(&sb, "key", kc, NBLK * NKV * BS * HD);
    values_of(&sb, "value", vc, NBLK * NKV * BS * HD);
    sb_printf(&sb, "pse_shift = fp16 [%d,%d,%lld,%d]\n", NB, NH,
              (long long)QS, PK);
    values_of(&sb, "pse_shift", pse, NB * NH * QS * PK);
    compute_text(sb.s, 0, &r2);
    CHECK_MSG(r1.st == FIA_OK && r2.st == FIA_OK, "%s Q_S %lld: %s / %s", lay,
              (long long)QS, r1.err.msg, r2.err.msg);
    if (r1.st == FIA_OK && r2.st == FIA_OK)
        CHECK_MSG(differ(&r1.r, &r2.r) == 0 && specified(&r1.r) > 0,
                  "%s Q_S %lld: paged differs", lay, (long long)QS);
    /* a list (BNSD): batch b's tensor [1, KV_N, kl[b] + 1, D], NaN last */
    if (!bsh) {
        sbuf sl = {0};
        sb_printf(&sl, "input_layout = BNSD\nnum_heads = %d\n"
                  "num_key_value_heads = %d\nscale = 0.3\n"
                  "softmax_lse_flag = true\n%s\nquery = fp16 ", NH, NKV,
                  lens);
        shape_str(&sl, lay, NB, NH, QS, HD);
        sb_printf(&sl, "\n");
        values_line(&sl, "query", q, NB, NH, QS, HD, lay);
        for (int t = 0; t < 2; t++) {
            const double *src = t ? v : k;
            sb_printf(&sl, "%s = fp16 [1,%d,%lld,%d]; fp16 [1,%d,%lld,%d]\n"
                      "%s.values = ", t ? "value" : "key", NKV,
                      (long long)(kl[0] + 1), HD, NKV, (long long)(kl[1] + 1),
                      HD, t ? "value" : "key");
            int first = 1;
            for (int64_t b = 0; b < NB; b++)
                for (int64_t kn = 0; kn < NKV; kn++)
                    for (int64_t j = 0; j <= kl[b]; j++)
                        for (int64_t d = 0; d < HD; d++) {
                            double x = j < kl[b]
                                ? src[((b * NKV + kn) * KVS + j) * HD + d]
                                : NAN;
                            sb_printf(&sl, first ? "%.17g" : ",%.17g", x);
                            first = 0;
                        }
            sb_printf(&sl, "\n");
        }
        sb_printf(&sl, "pse_shift = fp16 [%d,%d,%lld,%d]\n", NB, NH,
                  (long long)QS, PK);
        values_of(&sl, "pse_shift", pse, NB * NH * QS * PK);
        compute_text(sl.s, 0, &r3);
        CHECK_MSG(r3.st == FIA_OK && r1.st == FIA_OK &&
                      differ(&r1.r, &r3.r) == 0,
                  "BNSD Q_S %lld: list differs (%s)", (long long)QS,
                  r3.err.msg);
        fia_ref_result_free(&r3.r);
        free(sl.s);
    }
    /* the pse is read: without it the outputs change */
    plain.pb = 0;
    compute(&plain, 0, &r4);
    if (r1.st == FIA_OK && r4.st == FIA_OK)
        CHECK(differ(&r1.r, &r4.r) > 0);
    fia_ref_result_free(&r1.r);
    fia_ref_result_free(&r2.r);
    fia_ref_result_free(&r4.r);
    free(sb.s);
    free(q), free(k), free(v), free(pse);
}

/* ---- both paths; ties ------------------------------------------------- */

static int64_t n_elems, n_esc, n_ok, n_cases;

static void both_paths(const char *text, const char *what)
{
    res a, b;
    compute_text(text, 0, &a);
    compute_text(text, 1, &b);
    CHECK_MSG(a.st == b.st, "%s: %d vs %d", what, a.st, b.st);
    n_cases++;
    if (a.st != FIA_OK)
        fprintf(stderr, "%s: not computed: %s\n", what, a.err.msg);
    if (a.st == FIA_OK && b.st == FIA_OK) {
        n_ok++;
        CHECK_MSG(differ(&a.r, &b.r) == 0, "%s: binary64 pass and pure MPFR "
                  "differ\n%s", what, text);
        n_elems += a.r.n_elements;
        n_esc += a.r.n_escalated;
    }
    fia_ref_result_free(&a.r);
    fia_ref_result_free(&b.r);
}

static void random_both(void)
{
    static const char *lay[] = {"BSH", "BSND", "BNSD", "BNSD_BSND"};
    static const char *gens[] = {"normal(0,1)", "normal(0,8)",
                                 "uniform(-0.01,0.01)", "const(0)",
                                 "normal(0,3000)"};
    char text[4096];
    rng_state = 4242;
    for (int c = 0; c < 120; c++) {
        const char *l = lay[rng() % 4], *dt = rng() % 2 ? "fp16" : "bf16";
        int64_t qs = rng() % 3 == 0 ? 1 : 1 + (int64_t)(rng() % 9);
        int64_t kvs = 1 + (int64_t)(rng() % 40);
        int sm = qs == 1 ? 0 : (int)(rng() % 5);
        sbuf sb = {0};
        sb_printf(&sb, "input_layout = %s\nnum_heads = %d\n"
                  "num_key_value_heads = %d\nquery = %s ", l, NH, NKV, dt);
        shape_str(&sb, l, NB, NH, qs, HD);
        sb_printf(&sb, "\nkey = %s ", dt);
        shape_str(&sb, l, NB, NKV, kvs, HD);
        sb_printf(&sb, "\nvalue = %s ", dt);
        shape_str(&sb, l, NB, NKV, kvs, HD);
        sb_printf(&sb, "\nseed = %d\nsoftmax_lse_flag = true\n"
                  "inner_precise = %d\nsparse_mode = %d\nscale = %.17g\n"
                  "pse_shift = %s [%d,%d,%lld,%lld]\npse_shift.gen = %s\n",
                  c, (int)(rng() % 4), sm, 0.05 + (double)(rng() % 100) / 50,
                  dt, rng() % 2 ? 1 : NB, NH, (long long)qs,
                  (long long)(kvs + (int64_t)(rng() % 3)), gens[rng() % 5]);
        if (sm >= 2)
            sb_printf(&sb, "atten_mask = bool [2048,2048]\n");
        else if (rng() % 2)
            sb_printf(&sb, "atten_mask = bool [%d,%lld,%lld]\n", NB,
                      (long long)qs, (long long)kvs);
        if (rng() % 2)
            sb_printf(&sb, "actual_seq_lengths_kv = [%lld]\n",
                      (long long)(rng() % (uint64_t)(kvs + 1)));
        snprintf(text, sizeof text, "%s", sb.s);
        free(sb.s);
        both_paths(text, "random");
    }
}

/* Scores tied by the pse: key j's q.k is j / 4, its pse -j / 4 + (j % 2),
 * so two classes of equal scores; v in each class averages to exactly the
 * midpoint 1 + 2^-11 between two fp16 values: the output is that rational
 * mean, rounded to even (1.0), on both paths. */
static void ties(void)
{
    for (int nk = 4; nk <= 8; nk += 4) {
        double q[HD] = {1.0}, k[8 * HD], v[8 * HD], pse[8];
        memset(k, 0, sizeof k);
        for (int j = 0; j < nk; j++) {
            k[j * HD] = j * 0.25;
            pse[j] = -j * 0.25 + (j % 2);
            for (int d = 0; d < HD; d++)
                v[j * HD + d] = (j / 2) % 2 ? 1.0 + 0x1p-10 : 1.0;
        }
        tcase t = {"BNSD", "fp16", 1, 1, 1, 1, nk, HD, q, k, v, NULL};
        char *base = build(&t);
        sbuf sb = {0};
        sb_printf(&sb, "%ssoftmax_lse_flag = true\npse_shift = fp16 "
                  "[1,1,1,%d]\npse_shift.values = ", base, nk);
        for (int j = 0; j < nk; j++)
            sb_printf(&sb, j ? ",%.17g" : "%.17g", pse[j]);
        sb_printf(&sb, "\n");
        res r;
        compute_text(sb.s, 0, &r);
        CHECK(r.st == FIA_OK);
        if (r.st == FIA_OK)
            for (int d = 0; d < HD; d++)
                CHECK_MSG(obits(&r, d) == 0x3C00 &&
                              r.r.out_exact[d] == 1.0 + 0x1p-11,
                          "tie %d: %#x %.17g", nk, obits(&r, d),
                          r.r.out_exact[d]);
        both_paths(sb.s, "tie");
        fia_ref_result_free(&r.r);
        free(sb.s), free(base);
    }
}

/* ---- precision mode; refusals ----------------------------------------- */

static void high_precision(void)
{
    static const char *base =
        "input_layout = BNSD\nnum_heads = 2\nquery = fp16 [1,2,6,16]\n"
        "key = fp16 [1,2,20,16]\nvalue = fp16 [1,2,20,16]\nseed = 9\n"
        "softmax_lse_flag = true\n";
    char text[1024];
    res r[4];
    for (int ip = 0; ip < 2; ip++)
        for (int p = 0; p < 2; p++) {
            snprintf(text, sizeof text, "%sinner_precise = %d\n%s", base, ip,
                     p ? "pse_shift = fp16 [1,2,6,20]\n"
                         "pse_shift.gen = const(0)\n" : "");
            compute_text(text, 0, &r[ip * 2 + p]);
            CHECK(r[ip * 2 + p].st == FIA_OK);
        }
    if (r[0].st == FIA_OK && r[2].st == FIA_OK && r[3].st == FIA_OK) {
        size_t n = (size_t)r[0].r.out_numel * 8;
        /* fp16 with pse, inner_precise 1: the bounds of inner_precise 0 */
        CHECK(memcmp(r[3].r.out_bound, r[0].r.out_bound, n) == 0);
        CHECK(memcmp(r[2].r.out_bound, r[0].r.out_bound, n) != 0);
    }
    for (int i = 0; i < 4; i++)
        fia_ref_result_free(&r[i].r);
}

static void refusals(void)
{
    static const char *base =
        "input_layout = BNSD\nnum_heads = 2\nquery = fp16 [2,2,4,16]\n"
        "key = fp16 [2,2,8,16]\nvalue = fp16 [2,2,8,16]\n";
    static const struct {
        const char *pse;
        fia_status want;
    } cs[] = {
        {"pse_shift = fp16 [2,2,4,7]", FIA_ERR_PARAM_INVALID},
        {"pse_shift = fp16 [2,2,3,8]", FIA_ERR_PARAM_INVALID},
        {"pse_shift = fp16 [3,2,4,8]", FIA_ERR_PARAM_INVALID},
        {"pse_shift = fp16 [2,1,4,8]", FIA_ERR_PARAM_INVALID},
        {"pse_shift = fp16 [2,4,8]", FIA_ERR_PARAM_INVALID},
        {"pse_shift = fp32 [2,2,4,8]", FIA_ERR_PARAM_INVALID},
        {"pse_shift = fp16 [2,2,0,8]", FIA_OK}, /* empty: absent */
        {"pse_shift = fp16 [1,2,4,8]", FIA_OK},
        {"pse_shift = fp16 [2,2,6,32]", FIA_OK},
    };
    char text[1024];
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        snprintf(text, sizeof text, "%s%s\n", base, cs[i].pse);
        res r;
        compute_text(text, 0, &r);
        CHECK_MSG(r.st == cs[i].want, "%s: %d (%s)", cs[i].pse, r.st,
                  r.err.msg);
        if (cs[i].want != FIA_OK)
            CHECK(strstr(r.err.msg, "pse_shift") != NULL &&
                  r.r.out.data == NULL);
        fia_ref_result_free(&r.r);
    }
    /* decode: (., ., 1, >= KV_S) */
    res r;
    compute_text("input_layout = BSH\nnum_heads = 2\nquery = bf16 [2,1,128]\n"
                 "key = bf16 [2,20,128]\nvalue = bf16 [2,20,128]\n"
                 "pse_shift = bf16 [2,2,1,19]\n", 0, &r);
    CHECK_EQ_INT(r.st, FIA_ERR_PARAM_INVALID);
    fia_ref_result_free(&r.r);
    compute_text("input_layout = BSH\nnum_heads = 2\nquery = bf16 [2,1,128]\n"
                 "key = bf16 [2,20,128]\nvalue = bf16 [2,20,128]\n"
                 "pse_shift = bf16 [2,2,1,32]\n", 0, &r);
    CHECK_EQ_INT(r.st, FIA_OK);
    fia_ref_result_free(&r.r);
    /* a token layout takes no pse */
    compute_text("input_layout = TND\nnum_heads = 2\nquery = bf16 [6,2,128]\n"
                 "key = bf16 [9,2,128]\nvalue = bf16 [9,2,128]\n"
                 "actual_seq_lengths = [2,4,6]\n"
                 "actual_seq_lengths_kv = [3,6,9]\n"
                 "pse_shift = bf16 [3,2,2,3]\n", 0, &r);
    CHECK_EQ_INT(r.st, FIA_ERR_PARAM_INVALID);
    fia_ref_result_free(&r.r);
}

int main(void)
{
    all_equivalences();
    big_constant();
    for (int ip = 0; ip < 4; ip += 2) {
        neg_inf_is_mask(6, ip, 100 + (uint64_t)ip);
        neg_inf_is_mask(1, ip, 200 + (uint64_t)ip);
    }
    nonfinite();
    static const char *lay[] = {"BSH", "BSND", "BNSD", "BNSD_BSND"};
    for (int l = 0; l < 4; l++) {
        padding(lay[l], 6, 300 + (uint64_t)l);
        padding(lay[l], 1, 400 + (uint64_t)l);
    }
    for (int bsh = 0; bsh < 2; bsh++) {
        paged_and_lists(bsh, 1, 11 + (uint64_t)bsh);
        paged_and_lists(bsh, 5, 21 + (uint64_t)bsh);
    }
    random_both();
    ties();
    printf("%lld of %lld cases, %lld elements on both paths, %lld escalated "
           "to MPFR\n", (long long)n_ok, (long long)n_cases,
           (long long)n_elems, (long long)n_esc);
    CHECK(n_ok == n_cases);
    CHECK(n_esc > 0 && n_esc < n_elems);
    high_precision();
    refusals();
    return check_summary();
}
