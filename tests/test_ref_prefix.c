/* The reference reads the shared system prefix (ref/read_prefix.c,
 * docs/features/prefix.md).  A plain call whose first P keys are the same
 * rows in every batch, and its prefix form built here by hand with explicit
 * values (those rows moved into key_shared_prefix / value_shared_prefix,
 * each batch's own keys shifted down by P, actual_seq_lengths_kv reduced by
 * P, the mask kept: its column j is logical key j in both), give bit for
 * bit the same outputs and lse on every row, and the same rows unspecified,
 * in the four 002 layouts: prefill with sparse 0 (mask, pre/next), 1, 2, 3
 * (the band's offset kv + P - q; its own row-invalid correction when
 * q_len > P + kv_len), 4, row-invalid correction, GQA, fp16 and bf16,
 * ragged lengths, P < S_p (a length array), P = 0 (a length of 0, an empty
 * prefix), a batch with no own key but P > 0; decode without a mask.  Every
 * row that must not be read (prefix rows P..S_p, own keys past their
 * length) is NaN.  Refused as not modeled: the length without the tensors,
 * a prefix with a token layout, a prefix with a mask at Q_S = 1; calls the
 * oracle rejects are refused (never read out of bounds).  Ignored (the same
 * result): an empty mask at Q_S = 1, a padding tensor without its scene. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/ref.h"
#include "ref_testlib.h"

#define NB 3  /* batches */
#define NH 4  /* query heads */
#define NKV 2 /* key/value heads */
#define HD 8  /* head dim */

typedef struct pre_cfg {
    const char *name, *layout, *dtype;
    int64_t QS, KVS;            /* both calls' Q_S; the plain call's KV_S */
    int64_t P, S_p;             /* the prefix used, the prefix tensors' S */
    int len_arr;                /* actual_shared_prefix_len = [P] (else P is
                                   S_p) */
    int64_t KVSo;               /* the prefix form's KV_S (>= KVS - P) */
    int64_t q_len[NB], kv_len[NB]; /* the plain call's; kv_len >= P */
    int q_lens, kv_lens;        /* the length arrays given */
    int mask;                   /* a random bool mask [NB, QS, P + KVSo] */
    const char *extra;          /* lines of both calls */
} pre_cfg;

static void lens_line(sbuf *sb, const char *name, const int64_t *len,
                      int64_t minus)
{
    sb_printf(sb, "%s = [%lld,%lld,%lld]\n", name, (long long)(len[0] - minus),
              (long long)(len[1] - minus), (long long)(len[2] - minus));
}

/* The tensors of one call, in logical (BNSD) order: q [NB][NH][QS][HD],
 * k/v [NB][NKV][KVS][HD], the prefix [NKV][S_p][HD] (NULL: none), the mask
 * [NB][QS][MC] (NULL: none). */
typedef struct call_data {
    int64_t KVS;
    const double *q, *k, *v, *pk, *pv;
    const uint8_t *m;
    int64_t MC;
} call_data;

static char *call_text(const pre_cfg *g, const call_data *x)
{
    sbuf sb = {0};
    const char *dt = g->dtype ? g->dtype : "fp16";
    const int prefix = x->pk != NULL;
    sb_printf(&sb, "input_layout = %s\nnum_heads = %d\n"
              "num_key_value_heads = %d\nsoftmax_lse_flag = true\n",
              g->layout, NH, NKV);
    sb_printf(&sb, "query = %s ", dt);
    shape_str(&sb, g->layout, NB, NH, g->QS, HD);
    sb_printf(&sb, "\nkey = %s ", dt);
    shape_str(&sb, g->layout, NB, NKV, x->KVS, HD);
    sb_printf(&sb, "\nvalue = %s ", dt);
    shape_str(&sb, g->layout, NB, NKV, x->KVS, HD);
    sb_printf(&sb, "\n");
    values_line(&sb, "query", x->q, NB, NH, g->QS, HD, g->layout);
    if (x->KVS > 0) {
        values_line(&sb, "key", x->k, NB, NKV, x->KVS, HD, g->layout);
        values_line(&sb, "value", x->v, NB, NKV, x->KVS, HD, g->layout);
    }
    if (prefix) {
        sb_printf(&sb, "key_shared_prefix = %s ", dt);
        shape_str(&sb, g->layout, 1, NKV, g->S_p, HD);
        sb_printf(&sb, "\nvalue_shared_prefix = %s ", dt);
        shape_str(&sb, g->layout, 1, NKV, g->S_p, HD);
        sb_printf(&sb, "\n");
        if (g->S_p > 0) {
            values_line(&sb, "key_shared_prefix", x->pk, 1, NKV, g->S_p, HD,
                        g->layout);
            values_line(&sb, "value_shared_prefix", x->pv, 1, NKV, g->S_p,
                        HD, g->layout);
        }
        if (g->len_arr)
            sb_printf(&sb, "actual_shared_prefix_len = [%lld]\n",
                      (long long)g->P);
    }
    if (g->q_lens)
        lens_line(&sb, "actual_seq_lengths", g->q_len, 0);
    if (g->kv_lens)
        lens_line(&sb, "actual_seq_lengths_kv", g->kv_len, prefix ? g->P : 0);
    if (x->m) {
        sb_printf(&sb, "atten_mask = bool [%d,%lld,%lld]\n", NB,
                  (long long)g->QS, (long long)x->MC);
        sb_printf(&sb, "atten_mask.values = ");
        for (int64_t e = 0; e < NB * g->QS * x->MC; e++)
            sb_printf(&sb, e ? ",%d" : "%d", x->m[e]);
        sb_printf(&sb, "\n");
    }
    if (g->extra)
        sb_printf(&sb, "%s\n", g->extra);
    return sb.s;
}

static fia_status compute(const char *text, fia_ref_result *r, fia_error *err)
{
    fia_case c;
    fia_case_init(&c);
    memset(r, 0, sizeof *r);
    fia_status st = fia_case_parse_string(text, "<prefix>", &c, err);
    if (st == FIA_OK)
        st = ref_compute_case(&c, r, err);
    fia_case_free(&c);
    return st;
}

/* Compares r1 and r2 element by element: the same unspecified flags, the
 * same bits where specified.  Returns the elements compared. */
static int64_t same_results(const char *what, const pre_cfg *g,
                            const fia_ref_result *r1,
                            const fia_ref_result *r2)
{
    int64_t defined = 0, bad = 0, lbad = 0;
    CHECK_MSG(r1->out_numel == r2->out_numel &&
                  r1->lse_numel == r2->lse_numel,
              "%s %s: result sizes differ", what, g->layout);
    if (r1->out_numel != r2->out_numel || r1->lse_numel != r2->lse_numel)
        return 0;
    const uint16_t *a = r1->out.data, *c = r2->out.data;
    for (int64_t e = 0; e < r1->out_numel; e++) {
        if (r1->out_unspecified[e] != r2->out_unspecified[e])
            bad++;
        else if (!r1->out_unspecified[e])
            defined++, bad += a[e] != c[e];
    }
    const uint32_t *la = r1->lse.data, *lc = r2->lse.data;
    for (int64_t e = 0; e < r1->lse_numel; e++) {
        if (r1->lse_unspecified[e] != r2->lse_unspecified[e])
            lbad++;
        else if (!r1->lse_unspecified[e])
            defined++, lbad += la[e] != lc[e];
    }
    CHECK_MSG(bad == 0 && lbad == 0, "%s %s: %lld outputs, %lld lse differ",
              what, g->layout, (long long)bad, (long long)lbad);
    return defined;
}

/* The plain call of g and its prefix form; the comparison.  Returns the
 * defined elements compared (0 on a failure). */
static int64_t prefix_one(const pre_cfg *g, uint64_t seed)
{
    rng_state = 0x9E3779B97F4A7C15ull ^ (seed * 0x100000001B3ull);
    const int64_t QS = g->QS, KVS = g->KVS, KVSo = g->KVSo, P = g->P;
    const int64_t S_p = g->S_p, MC = P + KVSo > KVS ? P + KVSo : KVS;
    double *q = rnd_array(NB * NH * QS * HD);
    double *k = rnd_array(NB * NKV * KVS * HD);
    double *v = rnd_array(NB * NKV * KVS * HD);
    double *ko = malloc(sizeof(double) * (size_t)(NB * NKV * KVSo * HD + 1));
    double *vo = malloc(sizeof(double) * (size_t)(NB * NKV * KVSo * HD + 1));
    double *pk = malloc(sizeof(double) * (size_t)(NKV * S_p * HD + 1));
    double *pv = malloc(sizeof(double) * (size_t)(NKV * S_p * HD + 1));
    uint8_t *m = NULL;
    /* the shared rows: random below P, NaN (never read) above */
    for (int64_t e = 0; e < NKV * S_p * HD; e++) {
        int64_t j = e / HD % S_p;
        pk[e] = j < P ? rnd_val() : NAN;
        pv[e] = j < P ? rnd_val() : NAN;
    }
    for (int64_t e = 0; e < NB * NKV * KVSo * HD; e++)
        ko[e] = vo[e] = NAN;
    for (int b = 0; b < NB; b++) {
        const int64_t kl = g->kv_lens ? g->kv_len[b] : KVS;
        for (int n = 0; n < NKV; n++)
            for (int64_t j = 0; j < KVS; j++)
                for (int d = 0; d < HD; d++) {
                    int64_t e = ((b * NKV + n) * KVS + j) * HD + d;
                    if (j < P) { /* the plain call's copy of the prefix */
                        k[e] = pk[(n * S_p + j) * HD + d];
                        v[e] = pv[(n * S_p + j) * HD + d];
                    } else if (j < kl) { /* own key j - P */
                        int64_t o = ((b * NKV + n) * KVSo + j - P) * HD + d;
                        ko[o] = k[e], vo[o] = v[e];
                    }
                }
    }
    if (g->mask) {
        m = malloc((size_t)(NB * QS * MC));
        for (int64_t e = 0; e < NB * QS * MC; e++)
            m[e] = rng() % 10 < 3;
    }
    call_data plain = {KVS, q, k, v, NULL, NULL, m, MC};
    call_data pre = {KVSo, q, ko, vo, pk, pv, m, MC};
    char *t1 = call_text(g, &plain);
    char *t2 = call_text(g, &pre);
    fia_ref_result r1, r2;
    fia_error e1, e2;
    fia_status s1 = compute(t1, &r1, &e1);
    fia_status s2 = compute(t2, &r2, &e2);
    CHECK_MSG(s1 == FIA_OK && s2 == FIA_OK, "%s %s: %d %s / %d %s", g->name,
              g->layout, s1, s1 ? e1.msg : "", s2, s2 ? e2.msg : "");
    int64_t defined = 0;
    if (s1 == FIA_OK && s2 == FIA_OK) {
        defined = same_results(g->name, g, &r1, &r2);
        CHECK_MSG(defined > 0, "%s %s: nothing compared", g->name, g->layout);
    }
    fia_ref_result_free(&r1);
    fia_ref_result_free(&r2);
    free(t1), free(t2);
    free(q), free(k), free(v), free(ko), free(vo), free(pk), free(pv);
    free(m);
    return defined;
}

/* ---- the configurations ------------------------------------------------ */

/* prefill: Q_S 5, plain KV_S 9; P = 3 of S_p 4 (a length array), own KV_S
 * 7 (one more than 9 - 3: NaN rows); plain kv 9, 3 (no own key), 6 */
#define PRE_RAGGED "fp16", 5, 9, 3, 4, 1, 7, {5, 2, 4}, {9, 3, 6}, 1, 1
/* P = S_p = 2, no length arrays (own KV_S 7, every key read) */
#define PRE_FULL "fp16", 5, 9, 2, 2, 0, 7, {5, 5, 5}, {9, 9, 9}, 0, 0
/* decode: plain KV_S 9, P = 4 of S_p 6, own kv 5, 0, 2 */
#define DEC_RAGGED "fp16", 1, 9, 4, 6, 1, 5, {1, 1, 1}, {9, 4, 6}, 0, 1

static int64_t total_defined;

static void layouts(void)
{
    static const char *lay[] = {"BSH", "BSND", "BNSD", "BNSD_BSND"};
    for (int l = 0; l < 4; l++) {
        const pre_cfg cfgs[] = {
            {"sparse 0", lay[l], PRE_RAGGED, 0, NULL},
            {"sparse 0, mask", lay[l], PRE_RAGGED, 1, NULL},
            {"sparse 0, mask, pre/next", lay[l], PRE_RAGGED, 1,
             "pre_tokens = 1\nnext_tokens = 2"},
            {"sparse 0, mask, P = S_p", lay[l], PRE_FULL, 1,
             "pre_tokens = 3\nnext_tokens = 0"},
            {"sparse 1, mask", lay[l], PRE_RAGGED, 1, "sparse_mode = 1"},
            {"sparse 2", lay[l], PRE_RAGGED, 0,
             "sparse_mode = 2\natten_mask = bool [2048,2048]"},
            {"sparse 2, row-invalid", lay[l], PRE_RAGGED, 0,
             "sparse_mode = 2\ninner_precise = 2\n"
             "atten_mask = bool [2048,2048]"},
            {"sparse 3", lay[l], PRE_RAGGED, 0,
             "sparse_mode = 3\natten_mask = bool [2048,2048]"},
            {"sparse 3, P = S_p", lay[l], PRE_FULL, 0,
             "sparse_mode = 3\natten_mask = bool [2048,2048]"},
            {"sparse 4", lay[l], PRE_RAGGED, 0,
             "sparse_mode = 4\npre_tokens = 2\nnext_tokens = -1\n"
             "atten_mask = bool [2048,2048]"},
            {"sparse 1, mask, row-invalid, high performance", lay[l],
             PRE_RAGGED, 1, "sparse_mode = 1\ninner_precise = 3"},
            {"decode", lay[l], DEC_RAGGED, 0, NULL},
            {"decode, P = S_p", lay[l], "fp16", 1, 9, 3, 3, 0, 6, {1, 1, 1},
             {9, 9, 9}, 0, 0, 0, NULL},
        };
        for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++)
            total_defined += prefix_one(&cfgs[i], 100 * (uint64_t)l + i);
    }
}

/* The lengths: P = 0 (a length of 0, an empty prefix), own keys none,
 * sparse 3 with q_len > kv_len' (the operator's own correction) and with
 * q_len > kv_len alone (none), bf16. */
static void lengths(void)
{
    const pre_cfg cfgs[] = {
        {"P = 0 of S_p 3", "BSND", "fp16", 5, 9, 0, 3, 1, 9, {5, 2, 4},
         {9, 0, 6}, 1, 1, 1, NULL},
        {"empty prefix", "BNSD", "fp16", 5, 9, 0, 0, 0, 9, {5, 2, 4},
         {9, 3, 6}, 1, 1, 1, NULL},
        {"empty prefix, length 0", "BSH", "fp16", 5, 9, 0, 0, 1, 9,
         {5, 2, 4}, {9, 3, 0}, 1, 1, 0, "sparse_mode = 3\n"
         "atten_mask = bool [2048,2048]"},
        {"decode P = 0", "BSND", "fp16", 1, 9, 0, 2, 1, 9, {1, 1, 1},
         {9, 0, 6}, 0, 1, 0, NULL},
        {"no own key anywhere", "BNSD", "fp16", 5, 4, 4, 4, 0, 0, {5, 3, 1},
         {4, 4, 4}, 1, 0, 1, NULL},
        {"decode, no own key anywhere", "BSH", "fp16", 1, 3, 3, 5, 1, 0,
         {1, 1, 1}, {3, 3, 3}, 0, 0, 0, NULL},
        /* q 5 > kv' 3, 2 (corrected), q 5 <= kv' 6 with own kv 4 < 5 */
        {"sparse 3, q_len > kv_len'", "BSND", "fp16", 5, 6, 2, 3, 1, 4,
         {5, 5, 5}, {3, 2, 6}, 1, 1, 0, "sparse_mode = 3\n"
         "atten_mask = bool [2048,2048]"},
        {"sparse 3, q_len > kv_len', row-invalid", "BNSD_BSND", "fp16", 5,
         6, 2, 3, 1, 4, {5, 5, 5}, {3, 2, 6}, 1, 1, 0, "sparse_mode = 3\n"
         "inner_precise = 2\natten_mask = bool [2048,2048]"},
        {"sparse 4, q_len > kv_len'", "BSH", "fp16", 5, 6, 2, 3, 1, 4,
         {5, 5, 5}, {3, 2, 6}, 1, 1, 0, "sparse_mode = 4\npre_tokens = 1\n"
         "next_tokens = 0\natten_mask = bool [2048,2048]"},
        {"sparse 0 mask, fully masked, row-invalid", "BSND", "fp16", 5, 9,
         3, 4, 1, 7, {5, 2, 4}, {9, 3, 6}, 1, 1, 1,
         "pre_tokens = -1\nnext_tokens = 0\ninner_precise = 2"},
        {"bf16", "BNSD", "bf16", 5, 9, 3, 4, 1, 7, {5, 2, 4}, {9, 3, 6}, 1,
         1, 1, "sparse_mode = 1"},
        {"bf16 decode", "BSH", "bf16", 1, 9, 4, 6, 1, 5, {1, 1, 1},
         {9, 4, 6}, 0, 1, 0, NULL},
    };
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++)
        total_defined += prefix_one(&cfgs[i], 7000 + i);
}

/* ---- calls written as text --------------------------------------------- */

static fia_status status_of(const char *text, fia_ref_result *r,
                            fia_error *err)
{
    fia_error_clear(err);
    return compute(text, r, err);
}

static void expect_status(const char *what, const char *text, fia_status want,
                          const char *msg_part)
{
    fia_ref_result r;
    fia_error err;
    fia_status st = status_of(text, &r, &err);
    CHECK_MSG(st == want, "%s: status %d, want %d (%s)", what, st, want,
              err.msg);
    if (msg_part)
        CHECK_MSG(st != FIA_OK && strstr(err.msg, msg_part) != NULL,
                  "%s: message '%s' lacks '%s'", what, err.msg, msg_part);
    fia_ref_result_free(&r);
}

/* text with and without the lines `more` give the same bits. */
static void same_as_without(const char *what, const char *text,
                            const char *more)
{
    char with[4096];
    snprintf(with, sizeof with, "%s%s", text, more);
    fia_ref_result r1, r2;
    fia_error e1, e2;
    fia_status s1 = status_of(text, &r1, &e1);
    fia_status s2 = status_of(with, &r2, &e2);
    CHECK_MSG(s1 == FIA_OK && s2 == FIA_OK, "%s: %d %s / %d %s", what, s1,
              e1.msg, s2, e2.msg);
    if (s1 == FIA_OK && s2 == FIA_OK) {
        pre_cfg g = {.name = what, .layout = ""};
        CHECK_MSG(same_results(what, &g, &r1, &r2) > 0, "%s: nothing "
                  "compared", what);
    }
    fia_ref_result_free(&r1);
    fia_ref_result_free(&r2);
}

#define KP_LINE "key_shared_prefix = fp16 [1,4,2,16]\n"
#define VP_LINE "value_shared_prefix = fp16 [1,4,2,16]\n"

/* A prefill / decode call in BSND (B 3, N 4 on 2, D 16, own KV_S 9) with
 * the prefix lines kp, vp (S_p 4 in KP_LINE, VP_LINE), its data generated
 * from the seed. */
static const char *base_with(int64_t qs, const char *kp, const char *vp)
{
    static char text[1024];
    snprintf(text, sizeof text,
             "input_layout = BSND\nnum_heads = 4\nnum_key_value_heads = 2\n"
             "query = fp16 [3,%lld,4,16]\nkey = fp16 [3,9,2,16]\n"
             "value = fp16 [3,9,2,16]\n%s%s"
             "softmax_lse_flag = true\nseed = 11\n", (long long)qs, kp, vp);
    return text;
}

static const char *base(int64_t qs)
{
    return base_with(qs, KP_LINE, VP_LINE);
}

static void not_modeled(void)
{
    char text[2048];
    /* the length without the tensors: undocumented */
    expect_status("length without tensors",
                  "input_layout = BSND\nnum_heads = 2\n"
                  "query = fp16 [2,4,2,16]\nkey = fp16 [2,8,2,16]\n"
                  "value = fp16 [2,8,2,16]\nactual_shared_prefix_len = [2]\n",
                  FIA_ERR_NOT_MODELED, "not modeled yet");
    /* the token layouts */
    static const char *tok[] = {"TND", "NTD", "TND_NTD", "NTD_TND"};
    for (int l = 0; l < 4; l++) {
        snprintf(text, sizeof text,
                 "input_layout = %s\nnum_heads = 2\nquery = bf16 [6,2,128]\n"
                 "key = bf16 [9,2,128]\nvalue = bf16 [9,2,128]\n"
                 "key_shared_prefix = bf16 [3,2,128]\n"
                 "value_shared_prefix = bf16 [3,2,128]\n"
                 "actual_seq_lengths = [2,4,6]\n"
                 "actual_seq_lengths_kv = [3,6,9]\n", tok[l]);
        expect_status(tok[l], text, FIA_ERR_NOT_MODELED, "token layout");
    }
    /* Q_S = 1 with a mask (any width) */
    snprintf(text, sizeof text, "%satten_mask = bool [3,13]\n", base(1));
    expect_status("decode + mask", text, FIA_ERR_NOT_MODELED,
                  "not modeled yet");
    snprintf(text, sizeof text, "%satten_mask = bool [3,1,9]\n"
             "actual_shared_prefix_len = [0]\n", base(1));
    expect_status("decode + mask, P = 0", text, FIA_ERR_NOT_MODELED,
                  "not modeled yet");
}

/* Calls the oracle rejects before the reference runs: refused, never
 * read out of bounds. */
static void rejected(void)
{
    char text[2048];
    static const struct {
        const char *what, *kp, *vp, *lines;
    } bad[] = {
        {"key prefix alone", KP_LINE, "", ""},
        {"value prefix alone", "key_shared_prefix = null\n", VP_LINE, ""},
        {"batch 2", "key_shared_prefix = fp16 [2,4,2,16]\n",
         "value_shared_prefix = fp16 [2,4,2,16]\n", ""},
        {"heads", "key_shared_prefix = fp16 [1,4,1,16]\n",
         "value_shared_prefix = fp16 [1,4,1,16]\n", ""},
        {"D", KP_LINE, "value_shared_prefix = fp16 [1,4,2,8]\n", ""},
        {"S differ", KP_LINE, "value_shared_prefix = fp16 [1,5,2,16]\n", ""},
        {"rank", "key_shared_prefix = fp16 [4,2,16]\n",
         "value_shared_prefix = fp16 [4,2,16]\n", ""},
        {"dtype", "key_shared_prefix = bf16 [1,4,2,16]\n",
         "value_shared_prefix = bf16 [1,4,2,16]\n", ""},
        {"length past S_p", KP_LINE, VP_LINE,
         "actual_shared_prefix_len = [5]\n"},
        {"length below 0", KP_LINE, VP_LINE,
         "actual_shared_prefix_len = [-1]\n"},
        {"two lengths", KP_LINE, VP_LINE,
         "actual_shared_prefix_len = [1,2]\n"},
        {"no length", KP_LINE, VP_LINE, "actual_shared_prefix_len = []\n"},
        {"mask narrower than P + KV_S", KP_LINE, VP_LINE,
         "atten_mask = bool [3,5,12]\nactual_shared_prefix_len = [4]\n"},
        {"left padding", KP_LINE, VP_LINE, "kv_padding_size = int64 [1]\n"
         "actual_seq_lengths_kv = [9,2,5]\n"},
        {"query left padding", KP_LINE, VP_LINE,
         "query_padding_size = int64 [1]\nactual_seq_lengths = [5,2,3]\n"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "%s%s",
                 base_with(5, bad[i].kp, bad[i].vp), bad[i].lines);
        fia_ref_result r;
        fia_error err;
        fia_status st = status_of(text, &r, &err);
        CHECK_MSG(st == FIA_ERR_PARAM_INVALID,
                  "%s: status %d (%s)", bad[i].what, st, err.msg);
        fia_ref_result_free(&r);
    }
    /* the widest mask it asks: P + KV_S = 13 */
    snprintf(text, sizeof text, "%satten_mask = bool [3,5,13]\n", base(5));
    expect_status("mask of P + KV_S columns", text, FIA_OK, NULL);
    snprintf(text, sizeof text, "%satten_mask = bool [3,5,12]\n"
             "actual_shared_prefix_len = [3]\n", base(5));
    expect_status("mask of P + KV_S columns, P < S_p", text, FIA_OK, NULL);
    /* page attention, a key/value list */
    snprintf(text, sizeof text,
             "input_layout = BSH\nnum_heads = 4\nnum_key_value_heads = 2\n"
             "query = fp16 [3,4,64]\nkey = fp16 [12,16,32]\n"
             "value = fp16 [12,16,32]\nblock_table = int32 [3,4]\n"
             "block_size = 16\nactual_seq_lengths_kv = [50,7,33]\n"
             "key_shared_prefix = fp16 [1,4,32]\n"
             "value_shared_prefix = fp16 [1,4,32]\n");
    expect_status("page attention", text, FIA_ERR_PARAM_INVALID,
                  "page attention");
    snprintf(text, sizeof text,
             "input_layout = BSND\nnum_heads = 4\nnum_key_value_heads = 2\n"
             "query = fp16 [3,1,4,16]\n"
             "key = fp16 [1,12,2,16]; fp16 [1,7,2,16]; fp16 [1,9,2,16]\n"
             "value = fp16 [1,12,2,16]; fp16 [1,7,2,16]; fp16 [1,9,2,16]\n"
             "key_shared_prefix = fp16 [1,4,2,16]\n"
             "value_shared_prefix = fp16 [1,4,2,16]\n");
    expect_status("tensor list", text, FIA_ERR_PARAM_INVALID, "list");
}

/* What a prefix call ignores: an empty mask at Q_S = 1, padding tensors
 * without their scene. */
static void ignored(void)
{
    same_as_without("decode, empty mask", base(1),
                    "atten_mask = bool [3,0]\n");
    same_as_without("kv padding without its lengths", base(5),
                    "kv_padding_size = int64 [1]\n"
                    "kv_padding_size.values = 2\n");
    same_as_without("query padding without its lengths", base(5),
                    "query_padding_size = int64 [1]\n"
                    "query_padding_size.values = 1\n");
    same_as_without("decode, query padding", base(1),
                    "actual_seq_lengths = [1,1,1]\n"
                    "query_padding_size = int64 [1]\n"
                    "query_padding_size.values = 0\n");
    /* the length array of S_p is the default */
    same_as_without("length = S_p", base(5),
                    "actual_shared_prefix_len = [4]\n");
}

int main(void)
{
    layouts();
    lengths();
    not_modeled();
    rejected();
    ignored();
    printf("%lld defined elements compared\n", (long long)total_defined);
    return check_summary();
}
