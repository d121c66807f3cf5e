/* oracle/facts_lse: the effective softmax_lse (fia_case_output). */
#include "oracle_internal.h"

void orc_facts_lse(const fia_case *c, fia_oracle_facts *f)
{
    f->lse_presence = fia_case_output(c, FIA_SLOT_SOFTMAX_LSE, &f->lse);
    if (f->lse_presence == FIA_PRESENT) {
        f->given[FIA_SLOT_SOFTMAX_LSE] = 1;
        f->t[FIA_SLOT_SOFTMAX_LSE] = &f->lse;
        f->count[FIA_SLOT_SOFTMAX_LSE] = 1;
        f->numel[FIA_SLOT_SOFTMAX_LSE] = fia_tensor_numel(&f->lse);
    }
}
