/* compare/compare: fast/ output against the reference.
 *
 * Tolerance profiles (docs/tolerance.md), chosen with `--tolerance`:
 *   bound      (default) the per-element error bound of the permitted
 *              algorithm that ref/ evaluates from the data (out_bound);
 *   flash-attn error against the exact value at most 2x the largest error of
 *              a plain same-dtype implementation (compare/tolerance_plain.c);
 *   vendor     RELEASED-BEHAVIOUR.md's fp16/bf16 criteria;
 *   allclose   |got - exact| <= ATOL + RTOL |exact|;
 *   ulp        the first model below (kept for comparison).
 *
 * First tolerance model (the `ulp` profile): an element passes
 * when its distance to the correctly rounded reference is at most `max_ulp`
 * units in the last place of the output dtype, or its relative error to the
 * exact value is at most `rtol` (plus `atol` absolute).  NaN, +-inf are
 * compared exactly; NaN where the reference has none is always a finding.
 * Unspecified elements are skipped and counted. */
#ifndef FIA_COMPARE_H
#define FIA_COMPARE_H

#include <stdint.h>
#include "fia/error.h"
#include "fia/ref.h"
#include "fia/status.h"
#include "fia/tensor.h"

typedef struct fia_tolerance {
    double max_ulp;
    double rtol;
    double atol;
} fia_tolerance;

/* Default tolerance for an output dtype (fp16, bf16, fp32 for lse). */
fia_tolerance fia_tolerance_default(fia_dtype dt, int high_precision);

typedef struct fia_compare_result {
    int64_t n_total;
    int64_t n_compared;
    int64_t n_unspecified;
    int64_t n_fail;              /* outside tolerance */
    int64_t n_nan_leak;          /* NaN/inf where the reference is finite */
    double max_ulp;              /* vs the correctly rounded reference */
    double max_rel_err;          /* vs the exact value */
    int64_t worst_index;         /* flat index of the largest ulp error, -1 */
    double worst_ref, worst_got;
    int pass;
    /* profile measures: bound: max |got - exact| / (bound + half an ulp of
     * the output format at exact) ("tightness", 1 = at the bound); flash:
     * max err / (2 max plain err); vendor: largest vendor relative error;
     * allclose: max err / (atol + rtol |exact|). */
    double max_ratio;
    int64_t n_within;            /* compared and within the tolerance */
} fia_compare_result;

/* Compares `got` (same dtype and numel as the reference) element by element.
 * FIA_OK, or FIA_ERR_BAD_INPUT (message in err) when an argument is missing
 * or the tensors do not match in dtype or size. */
fia_status fia_compare_tensor(const fia_tensor *ref_rounded,
                              const double *ref_exact,
                              const uint8_t *unspecified, const fia_tensor *got,
                              const fia_tolerance *tol, fia_compare_result *r,
                              fia_error *err);

typedef enum fia_tol_profile {
    FIA_TOL_BOUND = 0,
    FIA_TOL_FLASH_ATTN,
    FIA_TOL_VENDOR,
    FIA_TOL_ALLCLOSE,
    FIA_TOL_ULP,
    FIA_TOL_CANN_DOUBLE,  /* per element: bound; plus the vendor's double
                             benchmark (fia_cann_judge) over the case */
    FIA_TOL_COUNT
} fia_tol_profile;

const char *fia_tol_profile_name(fia_tol_profile p);
/* 0 and *out on "bound", "flash-attn", "vendor", "allclose", "ulp",
 * "cann-double"; -1. */
int fia_tol_profile_parse(const char *s, fia_tol_profile *out);

/* ---- the CANN double benchmark (compare/tolerance_cann.c) ----------------
 * The operator vendor's precision criterion: the kernel and a same-dtype
 * benchmark implementation are both measured against the high-precision
 * golden (ref/'s exact values); the kernel passes when its errors are at
 * most 2x (max relative error), 1.2x (mean relative error) and 1.2x
 * (RMSE) the benchmark's.  Definitions in docs/tolerance.md. */
typedef struct fia_cann_metric {
    double max_re, mean_re, rmse;
} fia_cann_metric;

typedef struct fia_cann_result {
    int64_t n;                  /* elements measured */
    fia_cann_metric kernel, bench;
    double ratio[3];            /* kernel / benchmark: max_re, mean_re, rmse */
    double divisor[3];          /* what each ratio divided by: the
                                   benchmark's figure, or its floor when
                                   the figure is below it */
    int pass;
} fia_cann_result;

/* The limits of the three ratios: 2, 1.2, 1.2. */
extern const double fia_cann_limits[3];

/* Metrics of x against golden g over the n elements with skip[i] == 0
 * (skip may be NULL): relative error |x - g| / max(|g|, small). */
void fia_cann_metrics(const double *x, const double *g, const uint8_t *skip,
                      int64_t n, double small, fia_cann_metric *m);
/* The ratios and the verdict; floor: the smallest benchmark max/mean
 * relative error divided by (an exact benchmark does not make every
 * kernel error infinitely worse), rms_floor the same for the RMSE. */
void fia_cann_judge(const fia_cann_metric *kernel, const fia_cann_metric *bench,
                    double floor, double rms_floor, fia_cann_result *r);

/* The reference side of one tensor. */
typedef struct fia_compare_ref {
    const fia_tensor *rounded;      /* correctly rounded reference */
    const double *exact;            /* exact value (binary64) */
    const uint8_t *unspecified;     /* may be NULL */
    const double *bound;            /* bound profile (ref's out_bound) */
    const fia_tensor *plain;        /* flash-attn, cann-double: plain
                                       same-dtype implementation */
} fia_compare_ref;

/* The double benchmark of got (fp16/bf16) against ref->exact with
 * ref->plain as the benchmark, over the elements ref->unspecified leaves
 * to compare.  FIA_OK, or FIA_ERR_BAD_INPUT (no plain, sizes differ). */
fia_status fia_cann_compare(const fia_compare_ref *ref, const fia_tensor *got,
                            fia_cann_result *r, fia_error *err);

/* What failed where: a failing element's class, so that a finding can be
 * named by where and how badly the output fails (fuzz/signature.c).  The
 * measure is the profile's ratio (1 = at the tolerance). */
typedef enum fia_fail_code {
    FIA_FAIL_NONE = 0,      /* within, or not compared */
    FIA_FAIL_NEAR,          /* ratio below 10 */
    FIA_FAIL_FAR,           /* 10 up to 1e3 */
    FIA_FAIL_GROSS,         /* above 1e3 */
    FIA_FAIL_NONFINITE      /* NaN/inf where the reference differs */
} fia_fail_code;

/* The code of an element judged not within (ok 0) with the profile's ratio;
 * FIA_FAIL_NONE when ok. */
fia_fail_code fia_fail_code_of(int ok, double got, double ratio);

/* fia_compare_tensor, also writing each element's fia_fail_code into fail
 * (n elements; may be NULL), the ratio being the error over
 * atol + rtol |exact| (or over the max_ulp distance, the larger). */
fia_status fia_compare_tensor_fail(const fia_tensor *ref_rounded,
                                   const double *ref_exact,
                                   const uint8_t *unspecified,
                                   const fia_tensor *got,
                                   const fia_tolerance *tol,
                                   fia_compare_result *r, uint8_t *fail,
                                   fia_error *err);

/* Element verdicts, common to all profiles: an unspecified element is not
 * compared; a NaN reference needs a NaN, an infinite one the same infinity;
 * a non-finite result where the reference is finite is a NaN/inf leak
 * (bound profile: unless the bound interval itself rounds to that
 * infinity).  ±0: the sign of zero is checked only where the documents make
 * the value an exact zero (bound 0: empty or corrected rows); elsewhere
 * +0 and -0 are the same value.
 *
 * bound: within when RN(exact - bound) <= got <= RN(exact + bound) in the
 *   output format (every result of one final rounding of a value within the
 *   bound); elements whose bound is infinite (outside the error model) are
 *   counted as unspecified.
 * vendor: |got - exact| <= atol + rtol |exact| (fp16: 0.005 / 2.5e-5; bf16:
 *   2^-7 / 1e-4; fp32 lse: the fp16 numbers); the tensor passes when at
 *   least 99.5 % of the compared elements are within and the largest
 *   relative error |a-b| / max(|a|, |b|, 2^-14 / 0.005) is below 10.
 * allclose: per element, rtol / atol as given.
 * flash-attn: per element |got - exact| <= 2 max_k |plain_k - exact_k|.
 *
 * FIA_OK, or FIA_ERR_BAD_INPUT (message in err) when the tensors do not
 * match in dtype or size or the profile's inputs are missing. */
fia_status fia_compare_profile(fia_tol_profile prof, double rtol, double atol,
                               const fia_compare_ref *ref,
                               const fia_tensor *got, fia_compare_result *r,
                               fia_error *err);
/* The same, also writing each element's fia_fail_code into fail (the
 * tensor's element count; may be NULL): 0 within or not compared. */
fia_status fia_compare_profile_fail(fia_tol_profile prof, double rtol,
                                    double atol, const fia_compare_ref *ref,
                                    const fia_tensor *got,
                                    fia_compare_result *r, uint8_t *fail,
                                    fia_error *err);

/* compare/tolerance_plain.c: the plain same-dtype attention of the
 * flash-attn profile (what PyTorch computes in fp16/bf16: scores rounded to
 * the dtype after a float32 Q.K^T * scale, softmax in float32, P rounded to
 * the dtype, P.V accumulated in float32, rounded to the dtype; lse in
 * float32).  out / lse (fp32, may be NULL) must have the reference's dtype
 * and size and be initialized (e.g. with the reference's values: rows the
 * plain implementation does not compute keep them).  FIA_OK, or the status
 * of the failure with its message in err: FIA_ERR_BAD_INPUT for other
 * dtypes, else ref/'s (FIA_ERR_NOMEM, or a case the reference does not
 * read). */
fia_status fia_tolerance_plain(const fia_case *c, const fia_case_data *d,
                               fia_tensor *out, fia_tensor *lse,
                               fia_error *err);

#endif
