/* The reference reads query / kv left padding (ref/read_padding.c,
 * docs/features/padding.md).  A plain call and its left-padded form, built
 * here by hand with explicit values (each batch's valid query rows moved to
 * Q_S - p_q - q_len + i, its keys to KV_S - p_kv - kv_len + j, every other
 * row of query, key and value NaN, the mask's bits moved and random bits
 * elsewhere), give bit for bit the same outputs and lse on every row the
 * documents define, in the four 002 layouts, prefill (query scene, kv
 * scene, both; sparse 0 with a mask, and its pre/next ignored; sparse 1, 3,
 * 4) and decode (kv scene, with and without a mask); the padded form's
 * other rows are unspecified.  A padding below 0 reads as 0; a start below
 * 0 leaves every row of that batch unspecified at Q_S > 1 and gives zeros
 * (lse unspecified) at Q_S = 1; INT64_MAX and INT64_MIN are read without
 * overflow.  Refused as not modeled: a padding tensor with a token layout,
 * a kv scene with a key/value list at Q_S > 1; page attention with a scene
 * at Q_S > 1 is rejected.  Ignored (the plain result): query padding at
 * Q_S = 1 or without its lengths, kv padding without its lengths, an empty
 * padding tensor, kv padding at Q_S = 1 with a list or page attention. */
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

typedef struct pad_cfg {
    const char *name, *layout;
    int64_t QS, KVS;            /* the plain call's S dims */
    int64_t QSp, KVSp;          /* the padded call's */
    int64_t q_len[NB], kv_len[NB];
    int q_lens, kv_lens;        /* actual_seq_lengths(_kv) in both calls */
    int qpad, kvpad;            /* padding tensors in the padded call */
    int64_t pq, pkv;            /* their values, written into the data */
    int empty_pad;              /* the padding tensors have 0 elements */
    int mask;                   /* a random bool mask, moved */
    const char *extra;          /* lines of both calls */
    const char *pad_extra;      /* lines of the padded call only */
} pad_cfg;

/* The physical start of a batch as the reading defines it, independently
 * of ref/: p below 0 is 0, a start below 0 is flagged (and 0). */
static int64_t want_start(int64_t S, int64_t p, int64_t len, int *neg)
{
    if (p < 0)
        p = 0;
    if (p > S - len) {
        *neg = 1;
        return 0;
    }
    return S - len - p;
}

static int64_t o_idx(const char *lay, int64_t S, int64_t b, int64_t n,
                     int64_t s, int64_t d)
{
    if (strcmp(lay, "BNSD") == 0)
        return ((b * NH + n) * S + s) * HD + d;
    return ((b * S + s) * NH + n) * HD + d; /* BSH, BSND, BNSD_BSND */
}

static int64_t l_idx(int64_t S, int64_t b, int64_t n, int64_t s)
{
    return (b * NH + n) * S + s;
}

static void lens_line(sbuf *sb, const char *name, const int64_t *len)
{
    sb_printf(sb, "%s = [%lld,%lld,%lld]\n", name, (long long)len[0],
              (long long)len[1], (long long)len[2]);
}

/* One call's text: q [NB][NH][QS][HD], k/v [NB][NKV][KVS][HD] logical,
 * mask [NB][QS][KVS] (decode [NB][KVS]) or NULL. */
static char *call_text(const pad_cfg *g, int padded, int64_t QS, int64_t KVS,
                       const double *q, const double *k, const double *v,
                       const uint8_t *m)
{
    sbuf sb = {0};
    sb_printf(&sb, "input_layout = %s\nnum_heads = %d\n"
              "num_key_value_heads = %d\nsoftmax_lse_flag = true\n",
              g->layout, NH, NKV);
    sb_printf(&sb, "query = fp16 ");
    shape_str(&sb, g->layout, NB, NH, QS, HD);
    sb_printf(&sb, "\nkey = fp16 ");
    shape_str(&sb, g->layout, NB, NKV, KVS, HD);
    sb_printf(&sb, "\nvalue = fp16 ");
    shape_str(&sb, g->layout, NB, NKV, KVS, HD);
    sb_printf(&sb, "\n");
    values_line(&sb, "query", q, NB, NH, QS, HD, g->layout);
    values_line(&sb, "key", k, NB, NKV, KVS, HD, g->layout);
    values_line(&sb, "value", v, NB, NKV, KVS, HD, g->layout);
    if (g->q_lens)
        lens_line(&sb, "actual_seq_lengths", g->q_len);
    if (g->kv_lens)
        lens_line(&sb, "actual_seq_lengths_kv", g->kv_len);
    if (m) {
        int64_t n = QS == 1 ? NB * KVS : NB * QS * KVS;
        if (QS == 1)
            sb_printf(&sb, "atten_mask = bool [%d,%lld]\n", NB,
                      (long long)KVS);
        else
            sb_printf(&sb, "atten_mask = bool [%d,%lld,%lld]\n", NB,
                      (long long)QS, (long long)KVS);
        sb_printf(&sb, "atten_mask.values = ");
        for (int64_t e = 0; e < n; e++)
            sb_printf(&sb, e ? ",%d" : "%d", m[e]);
        sb_printf(&sb, "\n");
    }
    if (padded) {
        const char *shape = g->empty_pad ? "[0]" : "[1]";
        if (g->qpad)
            sb_printf(&sb, "query_padding_size = int64 %s\n%s", shape,
                      g->empty_pad ? "" : "query_padding_size.values = 0\n");
        if (g->kvpad)
            sb_printf(&sb, "kv_padding_size = int64 %s\n%s", shape,
                      g->empty_pad ? "" : "kv_padding_size.values = 0\n");
        if (g->pad_extra)
            sb_printf(&sb, "%s\n", g->pad_extra);
    }
    if (g->extra)
        sb_printf(&sb, "%s\n", g->extra);
    return sb.s;
}

/* Parses and materializes text, writes the padding values into the data
 * (exact int64, whatever they are), computes the reference. */
static fia_status compute(const char *text, const pad_cfg *g, int padded,
                          fia_ref_result *r, fia_error *err)
{
    fia_case c;
    fia_case_data d;
    memset(r, 0, sizeof *r);
    fia_case_init(&c);
    fia_status st = fia_case_parse_string(text, "<padding>", &c, err);
    if (st == FIA_OK)
        st = fia_case_materialize(&c, 1, &d, err);
    if (st != FIA_OK) {
        fia_case_free(&c);
        return st;
    }
    if (padded && !g->empty_pad) {
        if (g->qpad)
            memcpy(d.t[FIA_SLOT_QUERY_PADDING_SIZE]->data, &g->pq, 8);
        if (g->kvpad)
            memcpy(d.t[FIA_SLOT_KV_PADDING_SIZE]->data, &g->pkv, 8);
    }
    fia_ref_options o;
    fia_ref_options_default(&o);
    st = fia_ref_compute(&c, &d, &o, r, err);
    fia_case_data_free(&d);
    fia_case_free(&c);
    return st;
}

/* The plain and padded calls of g, and the comparison row by row. */
static void pad_one(const pad_cfg *g, uint64_t seed)
{
    rng_state = 0x9E3779B97F4A7C15ull ^ (seed * 0x100000001B3ull);
    const int64_t QS = g->QS, KVS = g->KVS, QSp = g->QSp, KVSp = g->KVSp;
    const int decode = QS == 1;
    double *q = rnd_array(NB * NH * QS * HD);
    double *k = rnd_array(NB * NKV * KVS * HD);
    double *v = rnd_array(NB * NKV * KVS * HD);
    double *qp = malloc(sizeof(double) * NB * NH * QSp * HD);
    double *kp = malloc(sizeof(double) * NB * NKV * KVSp * HD);
    double *vp = malloc(sizeof(double) * NB * NKV * KVSp * HD);
    uint8_t *m = NULL, *mp = NULL;
    for (int64_t e = 0; e < NB * NH * QSp * HD; e++)
        qp[e] = NAN;
    for (int64_t e = 0; e < NB * NKV * KVSp * HD; e++)
        kp[e] = vp[e] = NAN;
    if (g->mask) {
        m = malloc((size_t)(NB * QS * KVS));
        mp = malloc((size_t)(NB * QSp * KVSp));
        for (int64_t e = 0; e < NB * QS * KVS; e++)
            m[e] = rng() % 10 < 3;
        for (int64_t e = 0; e < NB * QSp * KVSp; e++)
            mp[e] = rng() % 2;
    }
    /* the scenes and starts as the reading defines them */
    const int qscene = g->qpad && !g->empty_pad && g->q_lens && QSp > 1;
    const int kvscene = g->kvpad && !g->empty_pad && g->kv_lens;
    int64_t qs[NB], ks[NB], ql[NB], kl[NB];
    int neg[NB];
    for (int b = 0; b < NB; b++) {
        neg[b] = 0;
        ql[b] = decode ? 1 : g->q_lens ? g->q_len[b] : QS;
        kl[b] = g->kv_lens ? g->kv_len[b] : KVS;
        qs[b] = qscene ? want_start(QSp, g->pq, ql[b], &neg[b]) : 0;
        ks[b] = kvscene ? want_start(KVSp, g->pkv, kl[b], &neg[b]) : 0;
        if (neg[b])
            qs[b] = ks[b] = 0;
        for (int n = 0; n < NH; n++)
            for (int64_t i = 0; i < ql[b]; i++)
                for (int d = 0; d < HD; d++)
                    qp[((b * NH + n) * QSp + qs[b] + i) * HD + d] =
                        q[((b * NH + n) * QS + i) * HD + d];
        for (int n = 0; n < NKV; n++)
            for (int64_t j = 0; j < kl[b]; j++)
                for (int d = 0; d < HD; d++) {
                    int64_t to = ((b * NKV + n) * KVSp + ks[b] + j) * HD + d;
                    int64_t from = ((b * NKV + n) * KVS + j) * HD + d;
                    kp[to] = k[from], vp[to] = v[from];
                }
        for (int64_t i = 0; m && i < (decode ? 1 : ql[b]); i++)
            for (int64_t j = 0; j < kl[b]; j++)
                mp[(b * QSp + qs[b] + i) * KVSp + ks[b] + j] =
                    m[(b * QS + i) * KVS + j];
    }
    char *t1 = call_text(g, 0, QS, KVS, q, k, v, m);
    char *t2 = call_text(g, 1, QSp, KVSp, qp, kp, vp, mp);
    fia_ref_result r1, r2;
    fia_error e1, e2;
    fia_status s1 = compute(t1, g, 0, &r1, &e1);
    fia_status s2 = compute(t2, g, 1, &r2, &e2);
    CHECK_MSG(s1 == FIA_OK && s2 == FIA_OK, "%s %s: %d %s / %d %s", g->name,
              g->layout, s1, s1 ? e1.msg : "", s2, s2 ? e2.msg : "");
    int64_t defined = 0, bad = 0, lbad = 0, pad_bad = 0, zeros = 0;
    for (int b = 0; s1 == FIA_OK && s2 == FIA_OK && b < NB; b++)
        for (int n = 0; n < NH; n++)
            for (int64_t s = 0; s < QSp; s++) {
                const int64_t i = s - qs[b];
                const int64_t l2 = l_idx(QSp, b, n, s);
                const uint32_t *lse2 = r2.lse.data;
                if (neg[b]) {
                    /* prefill: all unspecified; decode: zeros */
                    for (int d = 0; d < HD; d++) {
                        int64_t o = o_idx(g->layout, QSp, b, n, s, d);
                        if (decode)
                            zeros += !r2.out_unspecified[o] &&
                                     ((const uint16_t *)r2.out.data)[o] == 0;
                        else
                            pad_bad += !r2.out_unspecified[o];
                    }
                    pad_bad += !r2.lse_unspecified[l2];
                    continue;
                }
                if (i < 0 || i >= ql[b]) { /* a padding row */
                    for (int d = 0; d < HD; d++)
                        pad_bad += !r2.out_unspecified[o_idx(g->layout, QSp,
                                                             b, n, s, d)];
                    pad_bad += !r2.lse_unspecified[l2];
                    continue;
                }
                for (int d = 0; d < HD; d++) {
                    int64_t o1 = o_idx(g->layout, QS, b, n, i, d);
                    int64_t o2 = o_idx(g->layout, QSp, b, n, s, d);
                    const uint16_t *a = r1.out.data, *c = r2.out.data;
                    if (r1.out_unspecified[o1] != r2.out_unspecified[o2])
                        bad++;
                    else if (!r1.out_unspecified[o1]) {
                        defined++;
                        bad += a[o1] != c[o2];
                    }
                }
                const int64_t l1 = l_idx(QS, b, n, i);
                const uint32_t *lse1 = r1.lse.data;
                if (r1.lse_unspecified[l1] != r2.lse_unspecified[l2])
                    lbad++;
                else if (!r1.lse_unspecified[l1])
                    lbad += lse1[l1] != lse2[l2];
            }
    int64_t nneg = 0;
    for (int b = 0; b < NB; b++)
        nneg += neg[b];
    CHECK_MSG(bad == 0 && lbad == 0, "%s %s: %lld outputs, %lld lse differ "
              "from the plain call", g->name, g->layout, (long long)bad,
              (long long)lbad);
    CHECK_MSG(pad_bad == 0, "%s %s: %lld padding / start<0 elements are "
              "specified", g->name, g->layout, (long long)pad_bad);
    CHECK_MSG(defined > 0 || nneg == NB, "%s %s: nothing compared", g->name,
              g->layout);
    if (decode && nneg > 0)
        CHECK_MSG(zeros == nneg * NH * HD, "%s %s: %lld of %lld outputs of a "
                  "start below 0 are +0", g->name, g->layout,
                  (long long)zeros, (long long)(nneg * NH * HD));
    fia_ref_result_free(&r1);
    fia_ref_result_free(&r2);
    free(t1), free(t2);
    free(q), free(k), free(v), free(qp), free(kp), free(vp), free(m), free(mp);
}

/* ---- the configurations ------------------------------------------------ */

/* prefill: Q_S 5 -> 8, KV_S 9 -> 14; starts q 1,4,2 and kv 2,8,5 */
#define PREFILL 5, 9, 8, 14, {5, 2, 4}, {9, 3, 6}, 1, 1
/* decode: KV_S 9 -> 14; kv starts 2,8,5 */
#define DECODE 1, 9, 1, 14, {1, 1, 1}, {9, 3, 6}, 0, 1

static void layouts(void)
{
    static const char *lay[] = {"BSH", "BSND", "BNSD", "BNSD_BSND"};
    for (int l = 0; l < 4; l++) {
        const pad_cfg cfgs[] = {
            {"query scene", lay[l], PREFILL, 1, 0, 2, 0, 0, 0, NULL, NULL},
            {"query scene, mask", lay[l], PREFILL, 1, 0, 2, 0, 0, 1, NULL,
             NULL},
            {"kv scene, mask", lay[l], PREFILL, 0, 1, 0, 3, 0, 1, NULL, NULL},
            {"both, mask", lay[l], PREFILL, 1, 1, 2, 3, 0, 1, NULL, NULL},
            /* 002 sparseMode: pre/next ignored with a mask in the scene */
            {"both, mask, pre/next ignored", lay[l], PREFILL, 1, 1, 2, 3, 0,
             1, NULL, "pre_tokens = 0\nnext_tokens = 0"},
            {"kv scene, mask, pre/next ignored", lay[l], PREFILL, 0, 1, 0, 3,
             0, 1, NULL, "pre_tokens = 1\nnext_tokens = -1"},
            {"both, sparse 1", lay[l], PREFILL, 1, 1, 2, 3, 0, 1,
             "sparse_mode = 1", NULL},
            {"both, sparse 3", lay[l], PREFILL, 1, 1, 2, 3, 0, 0,
             "sparse_mode = 3\natten_mask = bool [2048,2048]", NULL},
            {"both, sparse 4", lay[l], PREFILL, 1, 1, 2, 3, 0, 0,
             "sparse_mode = 4\npre_tokens = 2\nnext_tokens = 1\n"
             "atten_mask = bool [2048,2048]", NULL},
            {"both, sparse 2, row-invalid", lay[l], PREFILL, 1, 1, 2, 3, 0,
             0, "sparse_mode = 2\ninner_precise = 2\n"
             "atten_mask = bool [2048,2048]", NULL},
            {"decode kv scene", lay[l], DECODE, 0, 1, 0, 3, 0, 0, NULL,
             NULL},
            {"decode kv scene, mask", lay[l], DECODE, 0, 1, 0, 3, 0, 1, NULL,
             NULL},
        };
        for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++)
            pad_one(&cfgs[i], 100 * (uint64_t)l + i);
    }
}

/* The padding values: below 0, past S, INT64_MAX / INT64_MIN. */
static void values(void)
{
    const pad_cfg cfgs[] = {
        {"negative = 0", "BSND", PREFILL, 1, 1, -5, -1, 0, 1, NULL, NULL},
        {"decode negative = 0", "BNSD", DECODE, 0, 1, 0, -7, 0, 1, NULL,
         NULL},
        {"INT64_MIN = 0", "BSH", PREFILL, 1, 1, INT64_MIN, INT64_MIN, 0, 1,
         NULL, NULL},
        /* batch 0: q start 8 - 5 - 4 = -1; batch 2: start 0 */
        {"query start < 0", "BSND", PREFILL, 1, 1, 4, 3, 0, 1, NULL, NULL},
        /* batch 0: kv start 14 - 9 - 6 = -1 */
        {"kv start < 0", "BNSD", PREFILL, 1, 1, 2, 6, 0, 1, NULL, NULL},
        {"kv start < 0, kv scene alone", "BSH", PREFILL, 0, 1, 0, 6, 0, 0,
         NULL, NULL},
        {"decode start < 0", "BSND", DECODE, 0, 1, 0, 6, 0, 1, NULL, NULL},
        {"INT64_MAX", "BNSD_BSND", PREFILL, 1, 1, INT64_MAX, INT64_MAX, 0,
         1, NULL, NULL},
        {"INT64_MAX kv", "BSND", PREFILL, 1, 1, 1, INT64_MAX, 0, 1, NULL,
         NULL},
        {"decode INT64_MAX", "BSH", DECODE, 0, 1, 0, INT64_MAX, 0, 1, NULL,
         NULL},
        {"decode past KV_S", "BNSD", DECODE, 0, 1, 0, 15, 0, 0, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++)
        pad_one(&cfgs[i], 7000 + i);
}

/* Padding that is ignored: the padded call is the plain one. */
static void ignored(void)
{
    const pad_cfg cfgs[] = {
        /* query padding at Q_S = 1, with actual_seq_lengths */
        {"query padding at Q_S = 1", "BSND", 1, 9, 1, 9, {1, 1, 1},
         {9, 3, 6}, 1, 1, 1, 0, 3, 0, 0, 1, NULL, NULL},
        /* without its lengths: right padding */
        {"query padding without lengths", "BNSD", 5, 9, 5, 9, {5, 5, 5},
         {9, 3, 6}, 0, 1, 1, 0, 2, 0, 0, 1,
         "pre_tokens = 0\nnext_tokens = 0", NULL},
        {"kv padding without lengths", "BSH", 5, 9, 5, 9, {5, 2, 4},
         {9, 9, 9}, 1, 0, 0, 1, 0, 3, 0, 1, NULL, NULL},
        {"decode kv padding without lengths", "BSND", 1, 9, 1, 9,
         {1, 1, 1}, {9, 9, 9}, 0, 0, 0, 1, 0, 3, 0, 1, NULL, NULL},
        /* empty padding tensors are absent, lengths or not */
        {"empty padding tensors", "BNSD", 5, 9, 5, 9, {5, 2, 4}, {9, 3, 6},
         1, 1, 1, 1, 0, 0, 1, 1, "pre_tokens = 0\nnext_tokens = 0", NULL},
    };
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++)
        pad_one(&cfgs[i], 9000 + i);
}

/* ---- calls written as text --------------------------------------------- */

static fia_status status_of(const char *text, fia_ref_result *r,
                            fia_error *err)
{
    fia_case c;
    fia_case_init(&c);
    fia_status st = fia_case_parse_string(text, "<padding>", &c, err);
    if (st == FIA_OK)
        st = ref_compute_case(&c, r, err);
    else
        memset(r, 0, sizeof *r);
    fia_case_free(&c);
    return st;
}

/* text with and without the line `pad` give the same bits. */
static void same_as_without(const char *what, const char *text,
                            const char *pad)
{
    char with[2048];
    snprintf(with, sizeof with, "%s%s", text, pad);
    fia_ref_result r1, r2;
    fia_error err;
    fia_status s1 = status_of(text, &r1, &err);
    fia_status s2 = status_of(with, &r2, &err);
    CHECK_MSG(s1 == FIA_OK && s2 == FIA_OK, "%s: %d %d %s", what, s1, s2,
              err.msg);
    if (s1 == FIA_OK && s2 == FIA_OK) {
        int64_t spec = 0;
        for (int64_t e = 0; e < r1.out_numel; e++)
            spec += !r1.out_unspecified[e];
        CHECK_MSG(spec > 0, "%s: nothing specified", what);
        CHECK_MSG(r1.out_numel == r2.out_numel &&
                      ref_same_bits(&r1.out, &r2.out, r1.out_numel, 2) &&
                      memcmp(r1.out_unspecified, r2.out_unspecified,
                             (size_t)r1.out_numel) == 0,
                  "%s: outputs differ", what);
        CHECK_MSG(r1.lse_numel == r2.lse_numel &&
                      ref_same_bits(&r1.lse, &r2.lse, r1.lse_numel, 4),
                  "%s: lse differs", what);
    }
    fia_ref_result_free(&r1);
    fia_ref_result_free(&r2);
}

static void expect_status(const char *what, const char *text, fia_status want,
                          const char *msg_part)
{
    fia_ref_result r;
    fia_error err;
    fia_error_clear(&err);
    fia_status st = status_of(text, &r, &err);
    CHECK_MSG(st == want, "%s: status %d, want %d (%s)", what, st, want,
              err.msg);
    if (msg_part)
        CHECK_MSG(st != FIA_OK && strstr(err.msg, msg_part) != NULL,
                  "%s: message '%s' lacks '%s'", what, err.msg, msg_part);
    fia_ref_result_free(&r);
}

static const char *list_base(int64_t qs)
{
    static char text[1024];
    snprintf(text, sizeof text,
             "input_layout = BSND\nnum_heads = 4\nnum_key_value_heads = 2\n"
             "query = fp16 [3,%lld,4,16]\n"
             "key = fp16 [1,12,2,16]; fp16 [1,7,2,16]; fp16 [1,9,2,16]\n"
             "value = fp16 [1,12,2,16]; fp16 [1,7,2,16]; fp16 [1,9,2,16]\n"
             "softmax_lse_flag = true\nseed = 3\n"
             "actual_seq_lengths_kv = [10,7,4]\n", (long long)qs);
    return text;
}

static const char *paged_base(int64_t qs)
{
    static char text[1024];
    snprintf(text, sizeof text,
             "input_layout = BSH\nnum_heads = 4\nnum_key_value_heads = 2\n"
             "query = fp16 [3,%lld,64]\nkey = fp16 [12,16,32]\n"
             "value = fp16 [12,16,32]\nblock_table = int32 [3,4]\n"
             "block_size = 16\nactual_seq_lengths_kv = [50,7,33]\n"
             "softmax_lse_flag = true\nseed = 5\n", (long long)qs);
    return text;
}

static void texts(void)
{
    static const char *tnd =
        "input_layout = TND\nnum_heads = 2\nquery = bf16 [6,2,128]\n"
        "key = bf16 [9,2,128]\nvalue = bf16 [9,2,128]\n"
        "actual_seq_lengths = [2,4,6]\nactual_seq_lengths_kv = [3,6,9]\n";
    char text[2048];
    /* a token layout takes no padding tensor (an empty one is absent) */
    snprintf(text, sizeof text, "%skv_padding_size = int64 [1]\n", tnd);
    expect_status("TND + kv_padding_size", text, FIA_ERR_NOT_MODELED,
                  "not modeled yet");
    snprintf(text, sizeof text, "%squery_padding_size = int64 [2]\n", tnd);
    expect_status("TND + query_padding_size", text, FIA_ERR_NOT_MODELED,
                  "not modeled yet");
    snprintf(text, sizeof text,
             "input_layout = NTD_TND\nnum_heads = 2\nquery = bf16 [2,6,128]\n"
             "key = bf16 [2,9,128]\nvalue = bf16 [2,9,128]\n"
             "actual_seq_lengths = [2,4,6]\nactual_seq_lengths_kv = [3,6,9]\n"
             "query_padding_size = int64 [1]\n");
    expect_status("NTD_TND + query_padding_size", text, FIA_ERR_NOT_MODELED,
                  "not modeled yet");
    snprintf(text, sizeof text, "%skv_padding_size = int64 [0]\n"
             "query_padding_size = int64 [0]\n", tnd);
    expect_status("TND + empty padding", text, FIA_OK, NULL);

    /* a kv scene with a key/value list at Q_S > 1: not modeled */
    snprintf(text, sizeof text, "%skv_padding_size = int64 [1]\n",
             list_base(5));
    expect_status("prefill list + kv scene", text, FIA_ERR_NOT_MODELED,
                  "not modeled yet");
    /* the list with query padding alone, or kv padding without lengths */
    snprintf(text, sizeof text, "%sactual_seq_lengths = [5,2,4]\n"
             "query_padding_size = int64 [1]\n", list_base(5));
    expect_status("prefill list + query scene", text, FIA_OK, NULL);
    /* decode: kv padding with a list is ignored */
    same_as_without("decode list + kv scene", list_base(1),
                    "kv_padding_size = int64 [1]\n"
                    "kv_padding_size.values = 2\n");
    same_as_without("decode list + INT64_MAX kv padding", list_base(1),
                    "kv_padding_size = int64 [1]\n"
                    "kv_padding_size.values = 9.3e18\n");

    /* page attention: ignored at Q_S = 1 (profile cann), rejected above */
    same_as_without("decode paged + kv scene", paged_base(1),
                    "kv_padding_size = int64 [1]\n"
                    "kv_padding_size.values = 3\n");
    snprintf(text, sizeof text, "%skv_padding_size = int64 [1]\n",
             paged_base(4));
    expect_status("prefill paged + kv scene", text, FIA_ERR_PARAM_INVALID,
                  "PageAttention");
    snprintf(text, sizeof text, "%sactual_seq_lengths = [4,1,2]\n"
             "query_padding_size = int64 [1]\n", paged_base(4));
    expect_status("prefill paged + query scene", text, FIA_ERR_PARAM_INVALID,
                  "PageAttention");

    /* a padding tensor of another dtype, read: refused */
    snprintf(text, sizeof text,
             "input_layout = BNSD\nnum_heads = 1\nquery = fp16 [1,1,4,16]\n"
             "key = fp16 [1,1,8,16]\nvalue = fp16 [1,1,8,16]\n"
             "kv_padding_size = int32 [1]\nactual_seq_lengths_kv = [6]\n");
    expect_status("int32 kv_padding_size", text, FIA_ERR_PARAM_INVALID,
                  "int64");
}

int main(void)
{
    layouts();
    values();
    ignored();
    texts();
    return check_summary();
}
