/* precise: inner_precise, the precision mode and the row-invalid fix. */
#include "validate.h"

/* Layer 4.  002 innerPrecise: 0..3; Q_S = 1 only 0 and 1 (profile cann:
 * after the early return for a call that reads no key, check_order.c).
 * Fills inner_precise, row_invalid (bit 1) and round_p. */
fia_status fast_check_precise(const fast_args *a, fast_plan *p,
                              fia_error *err)
{
    if (p->kv_return) {
        p->inner_precise = 0; /* nothing is computed */
        return FIA_OK;
    }
    if (a->inner_precise < 0 || a->inner_precise > 3)
        return FAST_REJECT("S_INNER_PRECISE", "inner_precise %lld not in 0..3",
                           (long long)a->inner_precise);
    if (p->Q_S <= 1 && !p->tnd.on && a->inner_precise > 1)
        return FAST_REJECT("S_INNER_PRECISE", "inner_precise %lld not in 0..1 "
                           "(Q_S = 1)", (long long)a->inner_precise);
    p->inner_precise = (int)a->inner_precise;
    p->row_invalid = (p->inner_precise & 2) != 0;
    /* 002 innerPrecise: bf16 has no high-precision mode; RELEASED: P is
     * rounded to the input dtype before P.V. */
    p->round_p = p->dt == FIA_DT_BF16 || (p->inner_precise & 1) != 0;
    return FIA_OK;
}
