/* Tests of compare/compare: ulp distance, tolerances, non-finite values. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "check.h"
#include "fia/compare.h"
#include "fia/dtype.h"

#define NMAX 16

typedef struct pair {
    fia_tensor ref, got;
    uint16_t rb[NMAX], gb[NMAX];
    float rf[NMAX], gf[NMAX];
    double exact[NMAX];
} pair;

/* fp16 / bf16 tensors of n elements from raw bits. */
static void set16(pair *p, fia_dtype dt, int n, const uint16_t *ref,
                  const uint16_t *got)
{
    memset(p, 0, sizeof *p);
    p->ref.dtype = p->got.dtype = dt;
    p->ref.ndim = p->got.ndim = 1;
    p->ref.shape[0] = p->got.shape[0] = n;
    memcpy(p->rb, ref, n * sizeof *ref);
    memcpy(p->gb, got, n * sizeof *got);
    p->ref.data = p->rb;
    p->got.data = p->gb;
    for (int i = 0; i < n; i++)
        p->exact[i] = fia_load_as_double(dt, p->rb, i);
}

static fia_compare_result cmp16(fia_dtype dt, int hp, uint16_t ref,
                                uint16_t got)
{
    pair p;
    set16(&p, dt, 1, &ref, &got);
    fia_tolerance tol = fia_tolerance_default(dt, hp);
    fia_compare_result r;
    int rc = fia_compare_tensor(&p.ref, p.exact, NULL, &p.got, &tol, &r, NULL);
    CHECK(rc == 0);
    return r;
}

static void test_ulp_fp16(void)
{
    uint16_t one = fia_double_to_fp16(1.0);
    fia_compare_result r;

    r = cmp16(FIA_DT_FP16, 1, one, one); /* exact */
    CHECK(r.pass && r.max_ulp == 0 && r.n_fail == 0 && r.n_compared == 1);
    CHECK(r.max_rel_err == 0);

    r = cmp16(FIA_DT_FP16, 1, one, (uint16_t)(one + 1)); /* 1 ulp */
    CHECK(r.pass && r.max_ulp == 1);
    CHECK_NEAR(r.max_rel_err, 0x1p-10, 1e-12);
    r = cmp16(FIA_DT_FP16, 1, one, (uint16_t)(one - 1));
    CHECK(r.pass && r.max_ulp == 1);

    r = cmp16(FIA_DT_FP16, 1, one, (uint16_t)(one + 100)); /* 100 ulps */
    CHECK(!r.pass && r.max_ulp == 100 && r.n_fail == 1);
    CHECK(r.worst_index == 0 && r.worst_ref == 1.0);
    CHECK(r.worst_got == fia_fp16_to_double((uint16_t)(one + 100)));

    /* 3 ulps: fails in high precision, passes in high performance */
    r = cmp16(FIA_DT_FP16, 1, one, (uint16_t)(one + 3));
    CHECK(!r.pass);
    r = cmp16(FIA_DT_FP16, 0, one, (uint16_t)(one + 3));
    CHECK(r.pass);
    r = cmp16(FIA_DT_FP16, 0, one, (uint16_t)(one + 5));
    CHECK(!r.pass);

    /* across zero: +min subnormal vs -min subnormal is 2 steps; +0 / -0 is
     * the same point */
    r = cmp16(FIA_DT_FP16, 1, 0x0001, 0x8001);
    CHECK(r.max_ulp == 2);
    r = cmp16(FIA_DT_FP16, 1, 0x0000, 0x8000);
    CHECK(r.pass && r.max_ulp == 0);
    r = cmp16(FIA_DT_FP16, 1, 0x8000, 0x0000);
    CHECK(r.pass && r.max_ulp == 0);
    /* exact 0, got 0 -> relative error counted as |got| = 0 */
    CHECK(r.max_rel_err == 0);
    /* exact 0 and got a subnormal: 1 ulp, rel = |got| */
    r = cmp16(FIA_DT_FP16, 1, 0x0000, 0x8001);
    CHECK(r.pass && r.max_ulp == 1);
    CHECK_NEAR(r.max_rel_err, 0x1p-24, 1e-30);

    /* sign error far from zero fails */
    uint16_t half = fia_double_to_fp16(0.5), mhalf = fia_double_to_fp16(-0.5);
    r = cmp16(FIA_DT_FP16, 1, half, mhalf);
    CHECK(!r.pass && r.max_ulp == 2.0 * (half & 0x7fff));
}

static void test_atol_rtol(void)
{
    /* near zero, many ulps but tiny absolute error: atol passes it */
    uint16_t ref = fia_double_to_fp16(1e-5);
    uint16_t got = fia_double_to_fp16(1e-5 + 1e-4);
    fia_compare_result r = cmp16(FIA_DT_FP16, 1, ref, got);
    CHECK(r.max_ulp > 2 && r.pass);
    /* a gross error near zero does not */
    got = fia_double_to_fp16(0.01);
    r = cmp16(FIA_DT_FP16, 1, ref, got);
    CHECK(!r.pass);

    /* explicit tolerance: ulp-only */
    pair p;
    uint16_t a = fia_double_to_fp16(2.0), b = (uint16_t)(a + 3);
    set16(&p, FIA_DT_FP16, 1, &a, &b);
    fia_tolerance tol = {3, 0, 0};
    CHECK(fia_compare_tensor(&p.ref, p.exact, NULL, &p.got, &tol,
                             &(fia_compare_result){0}, NULL) == FIA_OK);
    fia_compare_result rr;
    fia_compare_tensor(&p.ref, p.exact, NULL, &p.got, &tol, &rr, NULL);
    CHECK(rr.pass);
    tol.max_ulp = 2;
    fia_compare_tensor(&p.ref, p.exact, NULL, &p.got, &tol, &rr, NULL);
    CHECK(!rr.pass);
    tol.rtol = 0.01; /* 3 ulps at 2.0 = 0.0059 <= 0.02 */
    fia_compare_tensor(&p.ref, p.exact, NULL, &p.got, &tol, &rr, NULL);
    CHECK(rr.pass);
    /* rtol is against the exact value, not the rounded one */
    p.exact[0] = 2.0 + 0x1p-12;
    tol.rtol = 0;
    tol.atol = fabs(fia_fp16_to_double(b) - p.exact[0]);
    fia_compare_tensor(&p.ref, p.exact, NULL, &p.got, &tol, &rr, NULL);
    CHECK(rr.pass);
    tol.atol *= 0.99;
    fia_compare_tensor(&p.ref, p.exact, NULL, &p.got, &tol, &rr, NULL);
    CHECK(!rr.pass);
}

static void test_nonfinite(void)
{
    const uint16_t pinf = 0x7c00, ninf = 0xfc00, qnan = 0x7e00;
    uint16_t one = fia_double_to_fp16(1.0);
    fia_compare_result r;

    r = cmp16(FIA_DT_FP16, 1, one, qnan); /* NaN leak */
    CHECK(!r.pass && r.n_nan_leak == 1 && r.n_fail == 1);
    CHECK(isinf(r.max_ulp) && r.worst_index == 0);
    r = cmp16(FIA_DT_FP16, 1, one, pinf); /* inf where finite */
    CHECK(!r.pass && r.n_nan_leak == 1);
    r = cmp16(FIA_DT_FP16, 1, pinf, pinf); /* inf matched */
    CHECK(r.pass && r.n_nan_leak == 0 && r.max_ulp == 0);
    r = cmp16(FIA_DT_FP16, 1, ninf, ninf);
    CHECK(r.pass);
    r = cmp16(FIA_DT_FP16, 1, pinf, ninf); /* wrong infinity */
    CHECK(!r.pass && r.n_nan_leak == 0);
    r = cmp16(FIA_DT_FP16, 1, pinf, 0x7bff); /* finite where inf: fails */
    CHECK(!r.pass);
    r = cmp16(FIA_DT_FP16, 1, qnan, qnan); /* NaN matched (any payload) */
    CHECK(r.pass);
    r = cmp16(FIA_DT_FP16, 1, qnan, 0xfe01);
    CHECK(r.pass);
    r = cmp16(FIA_DT_FP16, 1, qnan, one); /* NaN required */
    CHECK(!r.pass);
}

/* The bound profile on the reference's non-finite elements (non-finite
 * inputs, docs/semantics.md): bound 0 compares them exactly, NaN with any
 * NaN, an infinity with the same one; an infinite bound is not compared. */
static void test_nonfinite_bound(void)
{
    const uint16_t pinf = 0x7c00, ninf = 0xfc00, qnan = 0x7e00;
    const uint16_t one = fia_double_to_fp16(1.0);
    const uint16_t ref[6] = {qnan, qnan, pinf, pinf, qnan, pinf};
    const uint16_t got[6] = {0xfe01, one, pinf, ninf, one, one};
    const double bound[6] = {0, 0, 0, 0, INFINITY, INFINITY};
    pair p;
    set16(&p, FIA_DT_FP16, 6, ref, got);
    fia_compare_ref cr = {&p.ref, p.exact, NULL, bound, NULL};
    fia_compare_result r;
    CHECK(fia_compare_profile(FIA_TOL_BOUND, 0, 0, &cr, &p.got, &r, NULL) ==
          FIA_OK);
    CHECK_EQ_INT(r.n_compared, 4);
    CHECK_EQ_INT(r.n_unspecified, 2);
    CHECK_EQ_INT(r.n_within, 2);  /* NaN by NaN, +inf by +inf */
    CHECK_EQ_INT(r.n_fail, 2);    /* 1 for NaN, -inf for +inf */
    CHECK_EQ_INT(r.n_nan_leak, 0);
    CHECK(!r.pass);
}

static void test_unspecified_and_counts(void)
{
    pair p;
    uint16_t ref[4], got[4];
    for (int i = 0; i < 4; i++)
        ref[i] = got[i] = fia_double_to_bf16(0.25 * (i + 1));
    got[1] = 0x7fc0;            /* NaN, but unspecified: skipped */
    got[3] = (uint16_t)(ref[3] + 40); /* bad */
    set16(&p, FIA_DT_BF16, 4, ref, got);
    uint8_t unspec[4] = {0, 1, 0, 0};
    fia_tolerance tol = fia_tolerance_default(FIA_DT_BF16, 1);
    fia_compare_result r;
    CHECK(fia_compare_tensor(&p.ref, p.exact, unspec, &p.got, &tol, &r, NULL) ==
          FIA_OK);
    CHECK_EQ_INT(r.n_total, 4);
    CHECK_EQ_INT(r.n_unspecified, 1);
    CHECK_EQ_INT(r.n_compared, 3);
    CHECK_EQ_INT(r.n_fail, 1);
    CHECK_EQ_INT(r.n_nan_leak, 0);
    CHECK_EQ_INT(r.worst_index, 3);
    CHECK(r.max_ulp == 40 && !r.pass);
    /* all unspecified -> pass, nothing compared */
    uint8_t all[4] = {1, 1, 1, 1};
    CHECK(fia_compare_tensor(&p.ref, p.exact, all, &p.got, &tol, &r, NULL) ==
          FIA_OK);
    CHECK(r.pass && r.n_compared == 0 && r.worst_index == -1);
    /* no exact values: the rounded reference is used */
    got[3] = ref[3];
    set16(&p, FIA_DT_BF16, 4, ref, got);
    CHECK(fia_compare_tensor(&p.ref, NULL, unspec, &p.got, &tol, &r, NULL) ==
          FIA_OK);
    CHECK(r.pass);
}

static void test_fp32_and_errors(void)
{
    pair p;
    memset(&p, 0, sizeof p);
    p.ref.dtype = p.got.dtype = FIA_DT_FP32;
    p.ref.ndim = p.got.ndim = 2;
    p.ref.shape[0] = p.got.shape[0] = 2;
    p.ref.shape[1] = p.got.shape[1] = 2;
    p.rf[0] = 10.5f;  p.gf[0] = nextafterf(10.5f, 11);
    p.rf[1] = INFINITY; p.gf[1] = INFINITY;   /* lse of an empty row */
    p.rf[2] = -0.0f;  p.gf[2] = 0.0f;
    p.rf[3] = 3.0f;   p.gf[3] = 3.0f + 1e-4f;  /* too far */
    p.ref.data = p.rf;
    p.got.data = p.gf;
    for (int i = 0; i < 4; i++)
        p.exact[i] = p.rf[i];
    fia_tolerance tol = fia_tolerance_default(FIA_DT_FP32, 1);
    CHECK(tol.rtol == 1e-5 && tol.atol == 1e-5);
    fia_compare_result r;
    CHECK(fia_compare_tensor(&p.ref, p.exact, NULL, &p.got, &tol, &r, NULL) ==
          FIA_OK);
    CHECK_EQ_INT(r.n_fail, 1);
    CHECK_EQ_INT(r.worst_index, 3);
    p.gf[3] = 3.0f + 2e-5f; /* within rtol*3 + atol */
    CHECK(fia_compare_tensor(&p.ref, p.exact, NULL, &p.got, &tol, &r, NULL) ==
          FIA_OK);
    CHECK(r.pass);

    /* mismatched dtype / size */
    fia_tensor other = p.got;
    other.dtype = FIA_DT_FP16;
    fia_error err;
    CHECK(fia_compare_tensor(&p.ref, p.exact, NULL, &other, &tol, &r, &err) ==
          FIA_ERR_BAD_INPUT);
    CHECK_MSG(err.code == FIA_ERR_BAD_INPUT && strstr(err.msg, "fp16") &&
                  strstr(err.msg, "fp32"), "%s", err.msg);
    other = p.got;
    other.shape[1] = 3;
    CHECK(fia_compare_tensor(&p.ref, p.exact, NULL, &other, &tol, &r, NULL) ==
          FIA_ERR_BAD_INPUT);
    CHECK(fia_compare_tensor(NULL, NULL, NULL, &p.got, &tol, &r, &err) ==
          FIA_ERR_BAD_INPUT);
    CHECK(err.msg[0] != '\0');
    CHECK(fia_compare_tensor(&p.ref, p.exact, NULL, &p.got, &tol, &r, &err) ==
          FIA_OK);
    CHECK(err.code == FIA_OK);

    /* empty tensors compare equal */
    fia_tensor e1 = {FIA_DT_FP16, 2, {0, 4}, NULL};
    CHECK(fia_compare_tensor(&e1, NULL, NULL, &e1, &tol, &r, NULL) == 0);
    CHECK(r.pass && r.n_total == 0);
}

static void test_defaults(void)
{
    fia_tolerance a = fia_tolerance_default(FIA_DT_FP16, 1);
    fia_tolerance b = fia_tolerance_default(FIA_DT_FP16, 0);
    fia_tolerance c = fia_tolerance_default(FIA_DT_BF16, 0);
    CHECK(a.max_ulp == 2 && b.max_ulp == 4 && c.max_ulp == 2);
    CHECK(b.atol >= a.atol && b.rtol >= a.rtol);
    fia_tolerance d = fia_tolerance_default(FIA_DT_INT8, 1);
    CHECK(d.max_ulp == 0 && d.rtol == 0 && d.atol == 0);
}

int main(void)
{
    test_ulp_fp16();
    test_atol_rtol();
    test_nonfinite();
    test_nonfinite_bound();
    test_unspecified_and_counts();
    test_fp32_and_errors();
    test_defaults();
    return check_summary();
}
