/* compare/tolerance_cann: the double benchmark's metrics on hand-computed
 * arrays, its ratios and limits, the floor for an exact benchmark, and a
 * planted error three times the benchmark's failing it. */
#include <math.h>
#include "check.h"
#include "fia/compare.h"
#include "fia/dtype.h"

static int near(double a, double b) { return fabs(a - b) <= 1e-12 * (1 + fabs(b)); }

static void test_metrics(void)
{
    /* golden 1, -2, 0.5, 0 (below small: relative to 2^-10), NaN skipped,
     * and one element skipped by the mask */
    const double g[6] = {1, -2, 0.5, 0, NAN, 3};
    const double x[6] = {1.1, -2, 0.25, 0x1p-12, 7, 100};
    const uint8_t skip[6] = {0, 0, 0, 0, 0, 1};
    fia_cann_metric m;
    fia_cann_metrics(x, g, skip, 6, 0x1p-10, &m);
    /* re: 0.1, 0, 0.5, 2^-12 / 2^-10 = 0.25 */
    CHECK(near(m.max_re, 0.5));
    CHECK(near(m.mean_re, (0.1 + 0 + 0.5 + 0.25) / 4));
    CHECK(near(m.rmse, sqrt((0.01 + 0 + 0.0625 + 0x1p-24) / 4)));
    /* a NaN where the golden is a number: infinitely wrong */
    const double xn[1] = {NAN}, gn[1] = {1};
    fia_cann_metrics(xn, gn, NULL, 1, 0x1p-10, &m);
    CHECK(isinf(m.max_re));
}

static void test_judge(void)
{
    fia_cann_metric bench = {0.01, 0.001, 0.0001};
    fia_cann_metric ok = {0.02, 0.0012, 0.00012}; /* at the limits */
    fia_cann_metric worse = {0.03, 0.001, 0.0001}; /* 3x the max */
    fia_cann_result r;
    fia_cann_judge(&ok, &bench, 0x1p-11, 1e-9, &r);
    CHECK(r.pass && near(r.ratio[0], 2) && near(r.ratio[1], 1.2) &&
          near(r.ratio[2], 1.2));
    fia_cann_judge(&worse, &bench, 0x1p-11, 1e-9, &r);
    CHECK(!r.pass && near(r.ratio[0], 3));
    /* an exact benchmark: its metrics taken as the floor */
    fia_cann_metric exact = {0, 0, 0}, half_ulp = {0x1p-12, 0x1p-12, 0};
    fia_cann_judge(&half_ulp, &exact, 0x1p-11, 1e-9, &r);
    CHECK(r.pass && near(r.ratio[0], 0.5) && r.ratio[2] == 0);
    fia_cann_judge(&exact, &exact, 0x1p-11, 1e-9, &r);
    CHECK(r.pass && r.ratio[0] == 0);
}

/* fia_cann_compare on fp16 tensors: a kernel with three times the
 * benchmark's error fails, one equal to it passes. */
static void test_compare(void)
{
    enum { N = 64 };
    uint16_t kb[N], pb[N], good[N];
    double exact[N];
    for (int i = 0; i < N; i++) {
        exact[i] = 0.3 + 0.01 * i + 1e-5;
        fia_store_from_double(FIA_DT_FP16, pb, i, exact[i] * (1 + 0x1p-11));
        fia_store_from_double(FIA_DT_FP16, good, i, exact[i] * (1 + 0x1p-11));
        fia_store_from_double(FIA_DT_FP16, kb, i, exact[i] * (1 + 3 * 0x1p-9));
    }
    fia_tensor plain = {FIA_DT_FP16, 1, {N}, pb};
    fia_tensor bad = {FIA_DT_FP16, 1, {N}, kb};
    fia_tensor same = {FIA_DT_FP16, 1, {N}, good};
    fia_compare_ref ref = {&plain, exact, NULL, NULL, &plain};
    fia_cann_result r;
    fia_error err;
    CHECK_EQ_INT(fia_cann_compare(&ref, &bad, &r, &err), FIA_OK);
    CHECK_MSG(!r.pass && r.ratio[0] > 2, "ratio %g", r.ratio[0]);
    CHECK_EQ_INT(fia_cann_compare(&ref, &same, &r, &err), FIA_OK);
    CHECK(r.pass && r.n == N && near(r.ratio[0], 1));
    fia_compare_ref none = {&plain, exact, NULL, NULL, NULL};
    CHECK_EQ_INT(fia_cann_compare(&none, &bad, &r, &err), FIA_ERR_BAD_INPUT);
    fia_tol_profile p;
    CHECK(fia_tol_profile_parse("cann-double", &p) == 0 &&
          p == FIA_TOL_CANN_DOUBLE);
}

int main(void)
{
    test_metrics();
    test_judge();
    test_compare();
    return check_summary();
}
