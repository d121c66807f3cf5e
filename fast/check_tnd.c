/* tnd: the 003 layouts (TND, NTD, the *_NBSD ones ...).  Not
 * modeled yet: the refusal of their names, before the layout check
 * (check_layout.c) would reject them as unknown. */
#include "validate.h"

/* Layer 3. */
fia_status fast_check_tnd(const fast_args *a, fast_plan *p,
                          fia_error *err)
{
    (void)p;
    static const char *const later[] = {"TND", "NTD_TND", "TND_NTD", "NTD",
                                        "BSH_NBSD", "BSND_NBSD", "BNSD_NBSD"};
    if (a->layout)
        for (size_t i = 0; i < sizeof later / sizeof later[0]; i++)
            if (strcmp(a->layout, later[i]) == 0)
                FAST_NOTMOD("M_LAYOUT", "input_layout %s (003) is not "
                            "modeled yet", a->layout);
    return FIA_OK;
}
