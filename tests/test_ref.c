/* ref/: the MPFR reference against hand-computed answers: rounding,
 * uniform and one-hot rows, masks, sparse modes, lengths, GQA, layouts. */
#include "ref_testlib.h"

static void test_round_exhaustive(void)
{
    int bad = 0, badmid = 0;
    for (uint32_t h = 0; h < 0x10000u; h++) {
        double x = fia_fp16_to_double((uint16_t)h);
        if (isnan(x))
            continue;
        if (ref_round_double_bits(x, REF_FMT_FP16) != h)
            bad++;
    }
    CHECK_MSG(bad == 0, "fp16 round trip: %d", bad);
    /* midpoints between consecutive finite values, both signs */
    for (uint32_t h = 0; h < 0x7BFFu; h++) {
        double a = fia_fp16_to_double((uint16_t)h);
        double b = fia_fp16_to_double((uint16_t)(h + 1));
        double mid = (a + b) / 2; /* exact in binary64 */
        uint32_t even = (h & 1u) ? h + 1 : h;
        if (ref_round_double_bits(mid, REF_FMT_FP16) != even)
            badmid++;
        if (ref_round_double_bits(-mid, REF_FMT_FP16) != (even | 0x8000u))
            badmid++;
        if (ref_round_double_bits(nextafter(mid, 0), REF_FMT_FP16) != h)
            badmid++;
        if (ref_round_double_bits(nextafter(mid, INFINITY), REF_FMT_FP16) !=
            h + 1)
            badmid++;
    }
    CHECK_MSG(badmid == 0, "fp16 midpoints: %d", badmid);
    CHECK_EQ_INT(ref_round_double_bits(65520.0, REF_FMT_FP16), 0x7C00);
    CHECK_EQ_INT(ref_round_double_bits(nextafter(65520.0, 0), REF_FMT_FP16),
                 0x7BFF);
    CHECK_EQ_INT(ref_round_double_bits(-1e300, REF_FMT_FP16), 0xFC00);
    CHECK_EQ_INT(ref_round_double_bits(ldexp(1, -25), REF_FMT_FP16), 0);
    CHECK_EQ_INT(ref_round_double_bits(nextafter(ldexp(1, -25), 1),
                                       REF_FMT_FP16), 1);
    CHECK_EQ_INT(ref_round_double_bits(-ldexp(1, -26), REF_FMT_FP16), 0x8000);
    CHECK_EQ_INT(ref_round_double_bits(NAN, REF_FMT_FP16) & 0x7C00u, 0x7C00);
    CHECK(ref_round_double_bits(NAN, REF_FMT_FP16) & 0x3FFu);

    bad = badmid = 0;
    for (uint32_t h = 0; h < 0x10000u; h++) {
        double x = fia_bf16_to_double((uint16_t)h);
        if (isnan(x))
            continue;
        if (ref_round_double_bits(x, REF_FMT_BF16) != h)
            bad++;
    }
    CHECK_MSG(bad == 0, "bf16 round trip: %d", bad);
    for (uint32_t h = 0; h < 0x7F7Fu; h++) {
        double a = fia_bf16_to_double((uint16_t)h);
        double b = fia_bf16_to_double((uint16_t)(h + 1));
        double mid = (a + b) / 2;
        uint32_t even = (h & 1u) ? h + 1 : h;
        if (ref_round_double_bits(mid, REF_FMT_BF16) != even)
            badmid++;
        if (ref_round_double_bits(-nextafter(mid, 0), REF_FMT_BF16) !=
            (h | 0x8000u))
            badmid++;
        if (ref_round_double_bits(nextafter(mid, INFINITY), REF_FMT_BF16) !=
            h + 1)
            badmid++;
    }
    CHECK_MSG(badmid == 0, "bf16 midpoints: %d", badmid);
    /* bf16 max (1 - 2^-8) 2^128; halfway to 2^128 overflows */
    CHECK_EQ_INT(ref_round_double_bits(ldexp(1 - ldexp(1, -9), 128),
                                       REF_FMT_BF16), 0x7F80);
    CHECK_EQ_INT(ref_round_double_bits(ldexp(1, -134), REF_FMT_BF16), 0);
    CHECK_EQ_INT(ref_round_double_bits(ldexp(3, -135), REF_FMT_BF16), 1);

    /* fp32 against the hardware conversion (round to nearest even) */
    bad = 0;
    for (int i = 0; i < 200000; i++) {
        uint64_t u = rng();
        double x;
        memcpy(&x, &u, sizeof x);
        if (isnan(x))
            continue;
        /* bring most into and around the float range */
        if (i % 2 == 0)
            x = ldexp(frexp(x, &(int){0}), (int)(rng() % 300) - 160);
        float f = (float)x;
        uint32_t fb;
        memcpy(&fb, &f, sizeof fb);
        if (ref_round_double_bits(x, REF_FMT_FP32) != fb)
            bad++;
    }
    CHECK_MSG(bad == 0, "fp32 rounding: %d", bad);
}

/* ---- hand-computed cases ------------------------------------------------ */

static void test_uniform_mean(void)
{
    /* identical keys: every score equal, out = mean of V.  Column 0: mean of
     * 1 and 1 + 2^-10 is the midpoint 1 + 2^-11 -> even (1.0).  Column 1:
     * 1 + 2^-10 and 1 + 2^-9 -> midpoint -> even 1 + 2^-9. */
    double q[2] = {0.5, -1.25};
    double k[4] = {1, 2, 1, 2};
    double v[4] = {1, 1 + ldexp(1, -10), 1 + ldexp(1, -10), 1 + ldexp(1, -9)};
    tcase t = {"BNSD", "fp16", 1, 1, 1, 1, 2, 2, q, k, v,
               "softmax_lse_flag = true"};
    run x;
    run_case(&x, &t);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK) {
        CHECK_EQ_INT(out_bits(&x, 0), 0x3C00);
        CHECK_EQ_INT(out_bits(&x, 1), 0x3C02);
        CHECK(x.r.out_exact[0] == 1 + ldexp(1, -11));
        CHECK(!x.r.out_unspecified[0] && !x.r.out_unspecified[1]);
        /* score = -2; lse = -2 + log 2 */
        CHECK(lse_val(&x, 0) == (float)(-2 + log(2.0)));
    }
    run_free(&x);

    /* three identical keys, v = 1, 2, 4: 7/3 correctly rounded */
    double k3[3] = {3, 3, 3}, v3[3] = {1, 2, 4}, q1[1] = {1};
    tcase t3 = {"BSND", "bf16", 1, 1, 1, 1, 3, 1, q1, k3, v3, NULL};
    run_case(&x, &t3);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK)
        CHECK_EQ_INT(out_bits(&x, 0), fia_double_to_bf16(7.0 / 3));
    run_free(&x);

    /* scale 0: uniform as well */
    double kz[3] = {1, -7, 3};
    tcase tz = {"BSH", "fp16", 1, 1, 1, 1, 3, 1, q1, kz, v3, "scale = 0"};
    run_case(&x, &tz);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK)
        CHECK_EQ_INT(out_bits(&x, 0), fia_double_to_fp16(7.0 / 3));
    run_free(&x);
}

static void test_one_hot(void)
{
    double q[4] = {100, 100, 100, 100};
    double k[12] = {100, 100, 100, 100, 0, 0, 0, 0, -1, 1, -1, 1};
    double v[12] = {0.1, -3, 7.5, 1000, 5, 5, 5, 5, -9, 9, -9, 9};
    for (int i = 0; i < 12; i++)
        v[i] = fia_fp16_to_double(fia_double_to_fp16(v[i]));
    tcase t = {"BNSD", "fp16", 1, 1, 1, 1, 3, 4, q, k, v,
               "softmax_lse_flag = true"};
    run x;
    run_case(&x, &t);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK) {
        for (int d = 0; d < 4; d++)
            CHECK(out_val(&x, d) == v[d]);
        CHECK(lse_val(&x, 0) == 40000.0f);
    }
    run_free(&x);
}


static void test_causal_modes(void)
{
    run x;
    /* mode 2: row 0 sees only key 0 */
    {
        int64_t QS = 4, KVS = 4, D = 8;
        double *q = rnd_array(QS * D), *k = rnd_array(KVS * D),
               *v = rnd_array(KVS * D);
        tcase t = {"BNSD", "fp16", 1, 1, 1, QS, KVS, D, q, k, v,
                   "sparse_mode = 2\natten_mask = bool [2048,2048]\n"
                   "atten_mask.gen = causal\nsoftmax_lse_flag = true"};
        run_case(&x, &t);
        CHECK_EQ_INT(x.st, FIA_OK);
        if (x.st == FIA_OK) {
            for (int d = 0; d < D; d++)
                CHECK(out_val(&x, d) == v[d]);
            geo g = {2, 0, 0, NULL, NULL, NULL, QS, KVS};
            check_vs_ld(&x, &t, 1.0, allow_geo, &g, "mode 2");
        }
        run_free(&x);
        free(q), free(k), free(v);
    }
    /* mode 3 with kv_len > q_len: row i sees j <= i + 2 */
    {
        int64_t QS = 3, KVS = 5, D = 4;
        double *q = rnd_array(QS * D), *k = rnd_array(KVS * D),
               *v = rnd_array(KVS * D);
        tcase t = {"BNSD", "fp16", 1, 1, 1, QS, KVS, D, q, k, v,
                   "sparse_mode = 3\natten_mask = bool [2048,2048]\n"
                   "softmax_lse_flag = true\nscale = 0.5"};
        run_case(&x, &t);
        CHECK_EQ_INT(x.st, FIA_OK);
        if (x.st == FIA_OK) {
            geo g = {3, 0, 0, NULL, NULL, NULL, QS, KVS};
            check_vs_ld(&x, &t, 0.5, allow_geo, &g, "mode 3");
        }
        run_free(&x);
        /* the same with keys beyond i + 2 changed: no effect on row 0 */
        double *k2 = malloc(sizeof(double) * KVS * D);
        memcpy(k2, k, sizeof(double) * KVS * D);
        for (int d = 0; d < D; d++)
            k2[3 * D + d] = k2[4 * D + d] = 3.5;
        run y;
        t.k = k2;
        run_case(&x, &t);
        t.k = k;
        run_case(&y, &t);
        if (x.st == FIA_OK && y.st == FIA_OK)
            for (int d = 0; d < D; d++)
                CHECK(out_bits(&x, d) == out_bits(&y, d));
        run_free(&x), run_free(&y);
        free(q), free(k), free(v), free(k2);
    }
    /* mode 3 with q_len > kv_len: the first rows are invalid -> 0, +inf */
    {
        int64_t QS = 5, KVS = 3, D = 4;
        double *q = rnd_array(QS * D), *k = rnd_array(KVS * D),
               *v = rnd_array(KVS * D);
        tcase t = {"BNSD", "fp16", 1, 1, 1, QS, KVS, D, q, k, v,
                   "sparse_mode = 3\natten_mask = bool [2048,2048]\n"
                   "softmax_lse_flag = true\ninner_precise = 0"};
        run_case(&x, &t);
        CHECK_EQ_INT(x.st, FIA_OK);
        if (x.st == FIA_OK) {
            for (int i = 0; i < 2; i++) {
                for (int d = 0; d < D; d++) {
                    CHECK(!x.r.out_unspecified[i * D + d]);
                    CHECK_EQ_INT(out_bits(&x, i * D + d), 0);
                }
                CHECK(!x.r.lse_unspecified[i]);
                CHECK(isinf(lse_val(&x, i)) && lse_val(&x, i) > 0);
            }
            geo g = {3, 0, 0, NULL, NULL, NULL, QS, KVS};
            check_vs_ld(&x, &t, 1.0, allow_geo, &g, "mode 3 q>kv");
        }
        run_free(&x);
        free(q), free(k), free(v);
    }
    /* band mode 4, small pre / next, with kv > q */
    {
        int64_t QS = 6, KVS = 8, D = 4;
        double *q = rnd_array(QS * D), *k = rnd_array(KVS * D),
               *v = rnd_array(KVS * D);
        tcase t = {"BNSD", "fp16", 1, 1, 1, QS, KVS, D, q, k, v,
                   "sparse_mode = 4\natten_mask = bool [2048,2048]\n"
                   "pre_tokens = 1\nnext_tokens = 0\n"
                   "softmax_lse_flag = true\ninner_precise = 2"};
        run_case(&x, &t);
        CHECK_EQ_INT(x.st, FIA_OK);
        if (x.st == FIA_OK) {
            geo g = {4, 1, 0, NULL, NULL, NULL, QS, KVS};
            check_vs_ld(&x, &t, 1.0, allow_geo, &g, "mode 4");
            /* row 0 sees keys 1 and 2 only: keys 2 is i + off */
            int cnt = 0;
            for (int j = 0; j < KVS; j++)
                cnt += allow_geo(&g, 0, 0, j);
            CHECK_EQ_INT(cnt, 2);
        }
        run_free(&x);
        free(q), free(k), free(v);
    }
}

static void test_mask_mode0_1(void)
{
    int64_t QS = 7, KVS = 9, D = 5;
    double *q = rnd_array(QS * D), *k = rnd_array(KVS * D),
           *v = rnd_array(KVS * D);
    uint8_t mask[7 * 9];
    for (int i = 0; i < QS * KVS; i++)
        mask[i] = rng() % 3 == 0;
    for (int j = 0; j < KVS; j++)
        mask[3 * KVS + j] = 1; /* row 3 fully masked */
    sbuf sb = {0};
    sb_printf(&sb, "atten_mask = bool [%lld,%lld]\natten_mask.values = ",
              (long long)QS, (long long)KVS);
    for (int i = 0; i < QS * KVS; i++)
        sb_printf(&sb, i ? ", %d" : "%d", mask[i]);
    char *base = sb.s;
    for (int mode = 0; mode <= 1; mode++) {
        for (int ip = 0; ip <= 2; ip += 2) {
            char extra[4096];
            snprintf(extra, sizeof extra,
                     "%s\nsparse_mode = %d\npre_tokens = 2\nnext_tokens = 1\n"
                     "softmax_lse_flag = true\ninner_precise = %d\n"
                     "scale = -0.75",
                     base, mode, ip);
            tcase t = {"BNSD", "fp16", 1, 1, 1, QS, KVS, D, q, k, v, extra};
            run x;
            run_case(&x, &t);
            CHECK_EQ_INT(x.st, FIA_OK);
            if (x.st == FIA_OK) {
                geo g = {mode, 2, 1, NULL, NULL, mask, QS, KVS};
                check_vs_ld(&x, &t, -0.75, allow_geo, &g, "mask");
                for (int d = 0; d < D; d++) {
                    if (ip == 2) {
                        CHECK(!x.r.out_unspecified[3 * D + d]);
                        CHECK_EQ_INT(out_bits(&x, 3 * D + d), 0);
                    } else {
                        CHECK(x.r.out_unspecified[3 * D + d]);
                    }
                }
                CHECK_EQ_INT(x.r.lse_unspecified[3], ip == 0);
                if (ip == 2)
                    CHECK(isinf(lse_val(&x, 3)));
            }
            run_free(&x);
        }
    }
    free(base);
    free(q), free(k), free(v);
}

static void test_seq_lengths(void)
{
    int64_t B = 2, QS = 4, KVS = 8, D = 4;
    double *q = rnd_array(B * QS * D), *k = rnd_array(B * KVS * D),
           *v = rnd_array(B * KVS * D);
    tcase t = {"BNSD", "fp16", B, 1, 1, QS, KVS, D, q, k, v,
               "actual_seq_lengths = [2, 4]\nactual_seq_lengths_kv = [5, 8]\n"
               "softmax_lse_flag = true"};
    run x;
    run_case(&x, &t);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK) {
        int64_t ql[2] = {2, 4}, kl[2] = {5, 8};
        geo g = {0, 0, 0, ql, kl, NULL, QS, KVS};
        check_vs_ld(&x, &t, 1.0, allow_geo, &g, "seq lengths");
        for (int i = 0; i < QS; i++) {
            for (int d = 0; d < D; d++)
                CHECK_EQ_INT(x.r.out_unspecified[i * D + d], i >= 2);
            CHECK_EQ_INT(x.r.lse_unspecified[i], i >= 2);
        }
        /* batch 0 equals the run on the first 5 keys and 2 rows */
        double *k5 = malloc(sizeof(double) * 5 * D);
        double *v5 = malloc(sizeof(double) * 5 * D);
        memcpy(k5, k, sizeof(double) * 5 * D);
        memcpy(v5, v, sizeof(double) * 5 * D);
        tcase t5 = {"BNSD", "fp16", 1, 1, 1, 2, 5, D, q, k5, v5,
                    "softmax_lse_flag = true"};
        run y;
        run_case(&y, &t5);
        CHECK_EQ_INT(y.st, FIA_OK);
        if (y.st == FIA_OK) {
            for (int i = 0; i < 2 * D; i++)
                CHECK(out_bits(&x, i) == out_bits(&y, i));
            for (int i = 0; i < 2; i++)
                CHECK(lse_val(&x, i) == lse_val(&y, i));
        }
        run_free(&y);
        free(k5), free(v5);
    }
    run_free(&x);

    /* kv length 0 for one batch: zeros; lse unspecified (KV_S > 0) */
    tcase tz = {"BNSD", "fp16", B, 1, 1, QS, KVS, D, q, k, v,
                "actual_seq_lengths_kv = [0, 8]\nsoftmax_lse_flag = true"};
    run_case(&x, &tz);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK) {
        for (int i = 0; i < QS * D; i++) {
            CHECK(!x.r.out_unspecified[i]);
            CHECK_EQ_INT(out_bits(&x, i), 0);
        }
        CHECK(x.r.lse_unspecified[0]);
        CHECK(!x.r.lse_unspecified[QS]);
    }
    run_free(&x);
    /* broadcast length-1 arrays; bad length -> PARAM_INVALID */
    tcase tb = {"BNSD", "fp16", B, 1, 1, QS, KVS, D, q, k, v,
                "actual_seq_lengths = [9]"};
    run_case(&x, &tb);
    CHECK_EQ_INT(x.st, FIA_ERR_PARAM_INVALID);
    run_free(&x);
    free(q), free(k), free(v);
}

static void test_kv_empty(void)
{
    double q[8];
    for (int i = 0; i < 8; i++)
        q[i] = i;
    tcase t = {"BNSD", "fp16", 1, 2, 2, 1, 0, 4, q, NULL, NULL,
               "softmax_lse_flag = true"};
    run x;
    run_case(&x, &t);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK) {
        CHECK_EQ_INT(x.r.out_numel, 8);
        for (int i = 0; i < 8; i++) {
            CHECK(!x.r.out_unspecified[i]);
            CHECK_EQ_INT(out_bits(&x, i), 0);
        }
        for (int i = 0; i < 2; i++) {
            CHECK(!x.r.lse_unspecified[i]);
            CHECK(isinf(lse_val(&x, i)) && lse_val(&x, i) > 0);
        }
    }
    run_free(&x);
    /* empty query */
    tcase te = {"BSND", "fp16", 0, 2, 2, 3, 4, 4, NULL, NULL, NULL,
                "softmax_lse_flag = true"};
    run_case(&x, &te);
    CHECK_EQ_INT(x.st, FIA_OK);
    CHECK_EQ_INT(x.r.out_numel, 0);
    run_free(&x);
}

static void test_gqa(void)
{
    int64_t N = 4, KVN = 2, QS = 2, KVS = 3, D = 2;
    double *q = rnd_array(N * QS * D), *k = rnd_array(KVN * KVS * D);
    double *v = malloc(sizeof(double) * KVN * KVS * D);
    for (int i = 0; i < KVN * KVS * D; i++)
        v[i] = i < KVS * D ? 1.0 : 2.0;
    tcase t = {"BNSD", "fp16", 1, N, KVN, QS, KVS, D, q, k, v,
               "softmax_lse_flag = true"};
    run x;
    run_case(&x, &t);
    CHECK_EQ_INT(x.st, FIA_OK);
    if (x.st == FIA_OK) {
        for (int n = 0; n < N; n++)
            for (int i = 0; i < QS * D; i++)
                CHECK(out_val(&x, n * QS * D + i) == (n < 2 ? 1.0 : 2.0));
    }
    run_free(&x);
    double *v2 = rnd_array(KVN * KVS * D);
    t.v = v2;
    run_case(&x, &t);
    if (x.st == FIA_OK)
        check_vs_ld(&x, &t, 1.0, allow_all, NULL, "gqa");
    run_free(&x);
    free(q), free(k), free(v), free(v2);
}

static void test_layouts(void)
{
    int64_t B = 2, N = 2, KVN = 1, QS = 3, KVS = 5, D = 4;
    double *q = rnd_array(B * N * QS * D), *k = rnd_array(B * KVN * KVS * D),
           *v = rnd_array(B * KVN * KVS * D);
    const char *lays[4] = {"BNSD", "BSH", "BSND", "BNSD_BSND"};
    run x[4];
    for (int l = 0; l < 4; l++) {
        tcase t = {lays[l], "bf16", B, N, KVN, QS, KVS, D, q, k, v,
                   "softmax_lse_flag = true\nscale = 0.3"};
        run_case(&x[l], &t);
        CHECK_EQ_INT(x[l].st, FIA_OK);
    }
    int bad = 0;
    for (int l = 1; l < 4; l++) {
        if (x[l].st != FIA_OK || x[0].st != FIA_OK)
            continue;
        tcase t0 = {lays[0], "bf16", B, N, KVN, QS, KVS, D, q, k, v, NULL};
        tcase tl = {lays[l], "bf16", B, N, KVN, QS, KVS, D, q, k, v, NULL};
        for (int b = 0; b < B; b++)
            for (int n = 0; n < N; n++)
                for (int i = 0; i < QS; i++) {
                    for (int d = 0; d < D; d++)
                        bad += out_bits(&x[0], out_index(&t0, b, n, i, d)) !=
                               out_bits(&x[l], out_index(&tl, b, n, i, d));
                    int64_t li = (b * N + n) * QS + i;
                    bad += lse_val(&x[0], li) != lse_val(&x[l], li);
                }
    }
    CHECK_MSG(bad == 0, "layouts differ in %d elements", bad);
    if (x[3].st == FIA_OK) {
        CHECK_EQ_INT(x[3].r.out.ndim, 4);
        CHECK_EQ_INT(x[3].r.out.shape[1], QS);
        tcase t = {"BNSD_BSND", "bf16", B, N, KVN, QS, KVS, D, q, k, v, NULL};
        check_vs_ld(&x[3], &t, 0.3, allow_all, NULL, "BNSD_BSND");
    }
    for (int l = 0; l < 4; l++)
        run_free(&x[l]);
    free(q), free(k), free(v);
}

int main(void)
{
    test_round_exhaustive();
    test_uniform_mean();
    test_one_hot();
    test_causal_modes();
    test_mask_mode0_1();
    test_seq_lengths();
    test_kv_empty();
    test_gqa();
    test_layouts();
    return check_summary();
}
