/* ref/: the operator's mathematics in MPFR.
 *
 * Each output element is computed from the exact input values at
 * `precision_bits` and correctly rounded (nearest-even) to the output dtype;
 * softmax_lse is correctly rounded to fp32.  ref/ interprets the case on its
 * own (layouts, masks, sparse modes, sequence lengths): it shares no code with
 * fast/.  It assumes the case was accepted by the oracle; what it does not
 * model yet it refuses with FIA_ERR_NOT_MODELED. */
#ifndef FIA_REF_H
#define FIA_REF_H

#include <stdint.h>
#include "fia/case.h"
#include "fia/status.h"

typedef struct fia_ref_options {
    long precision_bits;            /* >= 64; default 128 */
} fia_ref_options;

void fia_ref_options_default(fia_ref_options *o);

typedef struct fia_ref_result {
    /* attention_out in the output dtype and shape (owned data). */
    fia_tensor out;
    int64_t out_numel;
    double *out_exact;              /* the exact value rounded to binary64 */
    uint8_t *out_unspecified;       /* 1: the documents leave it undefined,
                                       do not compare (e.g. a fully masked
                                       row without row-invalid correction) */
    /* softmax_lse, fp32 [B,N,Q_S,1], when softmax_lse_flag is set. */
    int has_lse;
    fia_tensor lse;
    int64_t lse_numel;
    double *lse_exact;
    uint8_t *lse_unspecified;
    char error[256];
} fia_ref_result;

/* FIA_OK, FIA_ERR_NOT_MODELED, FIA_ERR_NOMEM, or FIA_ERR_PARAM_INVALID when
 * the case is not one the operator accepts (error[] says why). */
fia_status fia_ref_compute(const fia_case *c, const fia_case_data *d,
                           const fia_ref_options *opt, fia_ref_result *r);
void fia_ref_result_free(fia_ref_result *r);

#endif
