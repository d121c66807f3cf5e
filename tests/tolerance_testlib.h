/* Helpers of the tolerance tests (tests/test_tolerance_*.c): a case with its
 * data and the reference's result, and the rounding of a float to the
 * input dtype the permitted algorithms written in those tests use. */
#ifndef FIA_TESTS_TOLERANCE_TESTLIB_H
#define FIA_TESTS_TOLERANCE_TESTLIB_H
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/compare.h"
#include "fia/dtype.h"
#include "fia/ref.h"

typedef struct call {
    fia_case c;
    fia_case_data d;
    fia_ref_result r;
    int ok;
} call;

/* Parses, materializes and runs the reference on text; 1 when all worked
 * (then close_call frees it), else 0 with a failed check. */
static inline int open_call(call *x, const char *text)
{
    fia_error err;
    memset(x, 0, sizeof *x);
    fia_case_init(&x->c);
    if (fia_case_parse_string(text, "<tolerance>", &x->c, &err) != FIA_OK ||
        fia_case_materialize(&x->c, 1, &x->d, &err) != FIA_OK) {
        CHECK_MSG(0, "case: %s\n%s", err.msg, text);
        fia_case_free(&x->c);
        return 0;
    }
    fia_status st = fia_ref_compute(&x->c, &x->d, NULL, &x->r, &err);
    CHECK_MSG(st == FIA_OK, "reference: %s", err.msg);
    x->ok = st == FIA_OK;
    if (!x->ok) {
        fia_case_data_free(&x->d);
        fia_case_free(&x->c);
    }
    return x->ok;
}

static inline void close_call(call *x)
{
    if (!x->ok)
        return;
    fia_ref_result_free(&x->r);
    fia_case_data_free(&x->d);
    fia_case_free(&x->c);
}

/* p rounded (nearest even) to fp16 or bf16. */
static inline float to_dt(double p, fia_dtype dt)
{
    return dt == FIA_DT_BF16 ? (float)fia_bf16_to_double(fia_double_to_bf16(p))
                             : (float)fia_fp16_to_double(fia_double_to_fp16(p));
}
/* The outputs got and lse glse of a kernel against reference ref's bound:
 * the number of elements outside it (-1 when not compared); *ratio the
 * largest error / bound. */
static inline int64_t outside(const fia_ref_result *ref, const fia_tensor *got,
                       const fia_tensor *glse, double *ratio)
{
    fia_compare_ref co = {&ref->out, ref->out_exact, ref->out_unspecified,
                          ref->out_bound, &ref->out};
    fia_compare_ref cl = {&ref->lse, ref->lse_exact, ref->lse_unspecified,
                          ref->lse_bound, &ref->lse};
    fia_compare_result ro, rl;
    fia_error err;
    if (fia_compare_profile(FIA_TOL_BOUND, 0, 0, &co, got, &ro, &err) !=
            FIA_OK ||
        fia_compare_profile(FIA_TOL_BOUND, 0, 0, &cl, glse, &rl, &err) !=
            FIA_OK) {
        CHECK_MSG(0, "compare: %s", err.msg);
        return -1;
    }
    CHECK(ro.n_compared == ro.n_total && rl.n_compared == rl.n_total);
    *ratio = ro.max_ratio > rl.max_ratio ? ro.max_ratio : rl.max_ratio;
    return ro.n_fail + ro.n_nan_leak + rl.n_fail + rl.n_nan_leak;
}
#endif
