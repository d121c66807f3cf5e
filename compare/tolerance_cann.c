/* compare/tolerance_cann: the operator vendor's "double benchmark"
 * precision criterion (include/fia/compare.h, docs/tolerance.md).
 *
 * The kernel's output x and a same-dtype benchmark's output b (what a
 * straightforward CPU implementation in the operator's dtype computes:
 * ref/'s rows, fia_cann_benchmark in harness/) are each measured against
 * the golden g (ref/'s exact value in binary64):
 *
 *   re_i   = |y_i - g_i| / max(|g_i|, small)      (small: 2^-10; elements
 *            whose golden is not finite are left to the bound profile)
 *   MaxRE  = max re_i,   MeanRE = mean re_i,   RMSE = sqrt(mean (y_i - g_i)^2)
 *
 * and the kernel passes when MaxRE_x / MaxRE_b <= 2, MeanRE_x / MeanRE_b
 * <= 1.2 and RMSE_x / RMSE_b <= 1.2.  An exact benchmark (metric 0, e.g.
 * constant data) would make any kernel error infinitely worse: the
 * benchmark's metric is taken as at least a floor (the dtype's unit
 * roundoff for the relative errors, times the golden's RMS for the RMSE).
 * Cost: O(n). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fia/compare.h"
#include "fia/dtype.h"

#define CANN_SMALL 0x1p-10 /* below it, relative errors are to 2^-10 */

const double fia_cann_limits[3] = {2.0, 1.2, 1.2};

void fia_cann_metrics(const double *x, const double *g, const uint8_t *skip,
                      int64_t n, double small, fia_cann_metric *m)
{
    double max_re = 0, sum_re = 0, sum_sq = 0;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        if ((skip != NULL && skip[i]) || !isfinite(g[i]))
            continue; /* a non-finite golden: the bound profile checks it
                         exactly; the metrics are for numbers */
        double e = fabs(x[i] - g[i]);
        if (isnan(e))
            e = INFINITY; /* a NaN where the golden is a number */
        double ag = fabs(g[i]);
        double re = e / (ag > small ? ag : small);
        max_re = re > max_re ? re : max_re;
        sum_re += re;
        sum_sq += e * e;
        k++;
    }
    m->max_re = max_re;
    m->mean_re = k > 0 ? sum_re / (double)k : 0;
    m->rmse = k > 0 ? sqrt(sum_sq / (double)k) : 0;
}

static double ratio(double kernel, double bench, double floor,
                    double *divisor)
{
    double b = bench > floor ? bench : floor;
    *divisor = b;
    if (kernel == 0)
        return 0;
    return b > 0 ? kernel / b : INFINITY;
}

void fia_cann_judge(const fia_cann_metric *kernel, const fia_cann_metric *bench,
                    double floor, double rms_floor, fia_cann_result *r)
{
    r->kernel = *kernel;
    r->bench = *bench;
    r->ratio[0] = ratio(kernel->max_re, bench->max_re, floor, &r->divisor[0]);
    r->ratio[1] = ratio(kernel->mean_re, bench->mean_re, floor, &r->divisor[1]);
    r->ratio[2] = ratio(kernel->rmse, bench->rmse, rms_floor, &r->divisor[2]);
    r->pass = 1;
    for (int i = 0; i < 3; i++)
        r->pass = r->pass && r->ratio[i] <= fia_cann_limits[i];
}

/* Elements of an fp16/bf16 tensor as doubles (NULL out of memory). */
static double *as_doubles(const fia_tensor *t, int64_t n)
{
    double *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
    for (int64_t i = 0; x != NULL && i < n; i++)
        x[i] = fia_load_as_double(t->dtype, t->data, i);
    return x;
}

fia_status fia_cann_compare(const fia_compare_ref *ref, const fia_tensor *got,
                            fia_cann_result *r, fia_error *err)
{
    memset(r, 0, sizeof *r);
    if (ref == NULL || ref->plain == NULL || ref->plain->data == NULL ||
        got == NULL || got->data == NULL || ref->exact == NULL)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "cann-double: no benchmark "
                        "or no output to measure");
    int64_t n = fia_tensor_numel(got);
    if (n != fia_tensor_numel(ref->plain) || got->dtype != ref->plain->dtype)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "cann-double: the output and "
                        "the benchmark differ in size or dtype");
    double *x = as_doubles(got, n), *b = as_doubles(ref->plain, n);
    if (x == NULL || b == NULL) {
        free(x), free(b);
        return fia_fail(err, FIA_ERR_NOMEM, "cann-double: out of memory");
    }
    fia_cann_metric mk, mb;
    fia_cann_metrics(x, ref->exact, ref->unspecified, n, CANN_SMALL, &mk);
    fia_cann_metrics(b, ref->exact, ref->unspecified, n, CANN_SMALL, &mb);
    /* the floors: the dtype's unit roundoff, times the golden's RMS */
    double u = got->dtype == FIA_DT_BF16 ? 0x1p-8 : 0x1p-11, sq = 0;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        if (!(ref->unspecified && ref->unspecified[i]) && isfinite(ref->exact[i]))
            sq += ref->exact[i] * ref->exact[i], k++;
    fia_cann_judge(&mk, &mb, u, u * (k > 0 ? sqrt(sq / (double)k) : 0), r);
    r->n = k;
    free(x), free(b);
    return FIA_OK;
}
