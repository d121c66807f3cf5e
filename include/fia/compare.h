/* oracle/compare: fast/ output against the reference.
 *
 * First tolerance model (refined by the error-model issue): an element passes
 * when its distance to the correctly rounded reference is at most `max_ulp`
 * units in the last place of the output dtype, or its relative error to the
 * exact value is at most `rtol` (plus `atol` absolute).  NaN, +-inf are
 * compared exactly; NaN where the reference has none is always a finding.
 * Unspecified elements are skipped and counted. */
#ifndef FIA_COMPARE_H
#define FIA_COMPARE_H

#include <stdint.h>
#include "fia/ref.h"
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
} fia_compare_result;

/* Compares `got` (same dtype and numel as the reference) element by element.
 * Returns 0, or -1 when the tensors do not match in dtype or size. */
int fia_compare_tensor(const fia_tensor *ref_rounded, const double *ref_exact,
                       const uint8_t *unspecified, const fia_tensor *got,
                       const fia_tolerance *tol, fia_compare_result *r);

#endif
