/* pse: pse_shift, the positional bias added to the scores.  Not modeled
 * yet: its registered dtypes, then its refusal. */
#include "validate.h"

/* Layer 2.  REG_OP: pse_shift fp16 or bf16. */
fia_status fast_check_pse_dtypes(const fast_args *a, fast_plan *p,
                                 fia_error *err)
{
    (void)p;
    if (a->pse && !fast_dtype_in(a->pse->dtype,
                                 FAST_DTYPES(FIA_DT_FP16, FIA_DT_BF16)))
        FAST_BADTYPE("T_PSE", "pse_shift dtype %s not in {fp16, bf16}",
                     fast_dtype_name(a->pse->dtype));
    return FIA_OK;
}

/* Layer 3.  RELEASED "Silent normalisations": an empty pse is treated as
 * absent, so only a non-empty one is refused. */
fia_status fast_check_pse(const fast_args *a, fast_plan *p, fia_error *err)
{
    (void)p;
    if (fast_present(a->pse))
        FAST_NOTMOD("M_PSE", "pse_shift is not modeled yet");
    return FIA_OK;
}
