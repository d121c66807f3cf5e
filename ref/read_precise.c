/* ref/ reading, feature "precise": inner_precise 0..3.
 *
 * Bit 0 (high precision / high performance) does not change the
 * mathematics, only the permitted algorithm the tolerance models: P is
 * rounded to the input dtype before P.V when bit 0 is set, and always for
 * bf16, which has no high-precision mode (002 innerPrecise; RELEASED
 * "Numeric pipeline").  Bit 1 is row-invalid correction: a fully masked
 * row gives output 0 and lse +inf instead of unspecified values. */
#include "ref_internal.h"

fia_status ref_read_precise(ref_problem *p, const fia_case *c,
                            const fia_case_data *d, fia_error *err)
{
    (void)d;
    if (c->attrs.inner_precise < 0 || c->attrs.inner_precise > 3)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "inner_precise %lld (expected 0..3)",
                        (long long)c->attrs.inner_precise);
    p->row_invalid = (c->attrs.inner_precise & 2) != 0;
    p->round_p = p->in_dtype == FIA_DT_BF16 || (c->attrs.inner_precise & 1);
    return FIA_OK;
}

int ref_precise_corrects(const ref_problem *p, int64_t b)
{
    (void)b;
    return p->row_invalid;
}
