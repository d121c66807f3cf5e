/* The reference with value narrower than the query in 003's token layouts
 * (ref/read_tnd.c: Q_D = K_D = 192, V_D = 128; attention_out of value's D).
 *
 *   padded value: the same call with value widened to 192 columns, its first
 *   128 those of the narrow call and the rest arbitrary, gives in its first
 *   128 output columns the narrow call's outputs bit for bit, and the same
 *   lse -- value's columns are independent, and the score cannot depend on
 *   value's width (TND and NTD_TND, Q_S 1 and > 1, sparse 0 and 3 + mask);
 *   the query's last 64 columns: zeroing them changes the outputs (the score
 *   runs over all 192 columns of query and key, not over value's 128);
 *   a hand-computed row: q and k meet only in column 150, past value's D,
 *   scores 0 and 1 with scale 1: out = e / (1 + e) in every column
 *   (bf16 0.73046875), lse = log(1 + e);
 *   refusals: value wider than the query (128/192) is invalid. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/ref.h"
#include "ref_testlib.h"

enum { N = 4, KVN = 2, QD = 192, VD = 128 };

typedef struct pair {
    const char *layout;   /* TND or NTD_TND */
    int64_t T, Tkv;
    const char *lens;     /* the two length lines */
    const char *extra;    /* sparse mode and mask, or "" */
} pair;

static void text_of(const pair *p, int64_t vd, uint64_t seed, char *buf,
                    size_t n)
{
    const int ntd = strcmp(p->layout, "NTD_TND") == 0;
    char qs[48], ks[48], vs[48];
    if (!ntd)
        snprintf(qs, sizeof qs, "[%lld,%d,%d]", (long long)p->T, N, QD);
    else
        snprintf(qs, sizeof qs, "[%d,%lld,%d]", N, (long long)p->T, QD);
    if (!ntd) {
        snprintf(ks, sizeof ks, "[%lld,%d,%d]", (long long)p->Tkv, KVN, QD);
        snprintf(vs, sizeof vs, "[%lld,%d,%lld]", (long long)p->Tkv, KVN,
                 (long long)vd);
    } else {
        snprintf(ks, sizeof ks, "[%d,%lld,%d]", KVN, (long long)p->Tkv, QD);
        snprintf(vs, sizeof vs, "[%d,%lld,%lld]", KVN, (long long)p->Tkv,
                 (long long)vd);
    }
    snprintf(buf, n,
             "input_layout = %s\nnum_heads = %d\nnum_key_value_heads = %d\n"
             "query = bf16 %s\nkey = bf16 %s\nvalue = bf16 %s\n%s%s"
             "softmax_lse_flag = true\nseed = %llu\n",
             p->layout, N, KVN, qs, ks, vs, p->lens, p->extra,
             (unsigned long long)seed);
}

typedef struct mat {
    fia_case c;
    fia_case_data d;
    fia_ref_result r;
    fia_status st;
} mat;

static int mat_init(mat *m, const char *text)
{
    fia_error err;
    memset(m, 0, sizeof *m);
    fia_case_init(&m->c);
    if (fia_case_parse_string(text, "<vd>", &m->c, &err) != FIA_OK ||
        fia_case_materialize(&m->c, 1, &m->d, &err) != FIA_OK) {
        fprintf(stderr, "case: %s\n", err.msg);
        return 0;
    }
    return 1;
}

static void mat_compute(mat *m)
{
    fia_error err;
    fia_ref_options o;
    fia_ref_options_default(&o);
    fia_ref_result_free(&m->r);
    m->st = fia_ref_compute(&m->c, &m->d, &o, &m->r, &err);
    if (m->st != FIA_OK)
        fprintf(stderr, "reference: %s\n", err.msg);
}

static void mat_free(mat *m)
{
    fia_ref_result_free(&m->r);
    fia_case_data_free(&m->d);
    fia_case_free(&m->c);
}

static uint16_t *bits(const mat *m, fia_slot s)
{
    return (uint16_t *)m->d.t[s]->data;
}

static void padded_value(const pair *p, uint64_t seed)
{
    char ta[512], tb[512];
    text_of(p, VD, seed, ta, sizeof ta);
    text_of(p, QD, seed + 100, tb, sizeof tb);
    mat a, b;
    int ok = mat_init(&a, ta) & mat_init(&b, tb);
    CHECK(ok);
    if (!ok) {
        mat_free(&a), mat_free(&b);
        return;
    }
    /* b: a's query and key; a's value in columns [0, 128), its own
     * (another seed's) in [128, 192) */
    const int64_t nq = p->T * N * QD, nk = p->Tkv * KVN * QD;
    memcpy(bits(&b, FIA_SLOT_QUERY), bits(&a, FIA_SLOT_QUERY), 2 * nq);
    memcpy(bits(&b, FIA_SLOT_KEY), bits(&a, FIA_SLOT_KEY), 2 * nk);
    for (int64_t r = 0; r < p->Tkv * KVN; r++) /* D is innermost */
        memcpy(bits(&b, FIA_SLOT_VALUE) + r * QD,
               bits(&a, FIA_SLOT_VALUE) + r * VD, 2 * VD);
    mat_compute(&a);
    mat_compute(&b);
    CHECK_MSG(a.st == FIA_OK && b.st == FIA_OK, "%s: %d %d", p->layout,
              (int)a.st, (int)b.st);
    if (a.st == FIA_OK && b.st == FIA_OK) {
        CHECK(a.r.out.ndim == 3 && a.r.out.shape[2] == VD);
        CHECK(a.r.out_numel == p->T * N * VD);
        int64_t bad = 0, live = 0;
        const uint16_t *oa = a.r.out.data, *ob = b.r.out.data;
        for (int64_t r = 0; r < p->T * N; r++) /* out [T, N, D]: TND order */
            for (int64_t d = 0; d < VD; d++) {
                bad += oa[r * VD + d] != ob[r * QD + d] ||
                       a.r.out_unspecified[r * VD + d] !=
                           b.r.out_unspecified[r * QD + d];
                live += !a.r.out_unspecified[r * VD + d] &&
                        oa[r * VD + d] != 0;
            }
        CHECK_MSG(bad == 0, "%s %s: %lld of %lld outputs differ from the "
                  "padded value's", p->layout, p->extra, (long long)bad,
                  (long long)(p->T * N * VD));
        CHECK_MSG(live > p->T * N * VD / 2, "%s: %lld live outputs",
                  p->layout, (long long)live);
        CHECK(a.r.lse_numel == p->T * N && b.r.lse_numel == a.r.lse_numel);
        CHECK(ref_same_bits(&a.r.lse, &b.r.lse, a.r.lse_numel, 4));
        /* the query's columns past value's D take part in the score */
        uint16_t *q = bits(&a, FIA_SLOT_QUERY);
        for (int64_t r = 0; r < p->T * N; r++)
            memset(q + r * QD + VD, 0, 2 * (QD - VD));
        fia_ref_result before = a.r;
        memset(&a.r, 0, sizeof a.r);
        mat_compute(&a);
        int64_t moved = 0;
        for (int64_t e = 0; a.st == FIA_OK && e < a.r.out_numel; e++)
            moved += ((const uint16_t *)a.r.out.data)[e] !=
                     ((const uint16_t *)before.out.data)[e];
        CHECK_MSG(moved > a.r.out_numel / 4, "%s: zeroing the query's "
                  "last 64 columns moved %lld outputs", p->layout,
                  (long long)moved);
        fia_ref_result_free(&before);
    }
    mat_free(&a);
    mat_free(&b);
}

/* One row by hand: T = 1, T_kv = 2, one head.  q = k1 = e_150, k0 = 0:
 * scores 0 and 1 (scale 1); v0 = 0, v1 = 1 in all 128 columns.  Then
 * out[d] = e / (1 + e) = 0.731058..., bf16 187 * 2^-8 = 0.73046875, and
 * lse = log(1 + e) = 1.3132616... */
static void by_hand(void)
{
    sbuf sb = {0};
    sb_printf(&sb, "input_layout = TND\nnum_heads = 1\n"
                   "num_key_value_heads = 1\nscale = 1\n"
                   "query = bf16 [1,1,192]\nkey = bf16 [2,1,192]\n"
                   "value = bf16 [2,1,128]\nactual_seq_lengths = [1]\n"
                   "actual_seq_lengths_kv = [2]\nsoftmax_lse_flag = true\n");
    sb_printf(&sb, "query.values = ");
    for (int d = 0; d < QD; d++)
        sb_printf(&sb, d ? ", %d" : "%d", d == 150);
    sb_printf(&sb, "\nkey.values = ");
    for (int j = 0; j < 2; j++)
        for (int d = 0; d < QD; d++)
            sb_printf(&sb, j + d ? ", %d" : "%d", j == 1 && d == 150);
    sb_printf(&sb, "\nvalue.values = ");
    for (int j = 0; j < 2; j++)
        for (int d = 0; d < VD; d++)
            sb_printf(&sb, j + d ? ", %d" : "%d", j);
    sb_printf(&sb, "\n");
    run x;
    run_text(&x, sb.s, 0);
    free(sb.s);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK) {
        CHECK(x.r.out.ndim == 3 && x.r.out.shape[0] == 1 &&
              x.r.out.shape[1] == 1 && x.r.out.shape[2] == VD);
        int bad = 0;
        for (int d = 0; d < VD; d++)
            bad += out_val(&x, d) != 0.73046875 || x.r.out_unspecified[d];
        CHECK_MSG(bad == 0, "%d columns not e/(1+e) in bf16 (col 0: %g)",
                  bad, out_val(&x, 0));
        CHECK(fabs(lse_val(&x, 0) - 1.3132616875182228) < 1e-6);
    }
    run_free(&x);
}

static void refused(const char *layout, int qd, int vd)
{
    char text[512];
    snprintf(text, sizeof text,
             "input_layout = %s\nnum_heads = 2\nquery = bf16 [6,2,%d]\n"
             "key = bf16 [9,2,%d]\nvalue = bf16 [9,2,%d]\n"
             "actual_seq_lengths = [6]\nactual_seq_lengths_kv = [9]\n",
             layout, qd, qd, vd);
    run x;
    run_text(&x, text, 0);
    CHECK_MSG(x.st == FIA_ERR_PARAM_INVALID, "%s %d/%d: status %d", layout,
              qd, vd, (int)x.st);
    CHECK(x.r.out.data == NULL);
    run_free(&x);
}

int main(void)
{
    static const char *lay[] = {"TND", "NTD_TND"};
    for (int l = 0; l < 2; l++) {
        /* Q_S > 1 per batch, sparse 0 (a batch of no query token) */
        const pair p0 = {lay[l], 17, 43,
                         "actual_seq_lengths = [5,5,17]\n"
                         "actual_seq_lengths_kv = [9,13,43]\n", ""};
        /* Q_S > 1, sparse 3 with the optimized mask, more keys than the
         * query in every batch */
        const pair p3 = {lay[l], 20, 70,
                         "actual_seq_lengths = [12,20]\n"
                         "actual_seq_lengths_kv = [40,70]\n",
                         "sparse_mode = 3\natten_mask = bool [2048,2048]\n"};
        /* one query token per batch */
        const pair p1 = {lay[l], 3, 150,
                         "actual_seq_lengths = [1,2,3]\n"
                         "actual_seq_lengths_kv = [100,100,150]\n", ""};
        padded_value(&p0, 1 + (uint64_t)l);
        padded_value(&p3, 3 + (uint64_t)l);
        padded_value(&p1, 5 + (uint64_t)l);
    }
    by_hand();
    refused("TND", 128, 192);
    refused("NTD_TND", 128, 192);
    return check_summary();
}
