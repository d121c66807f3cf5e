/* oracle/facts_output: the effective attention_out (fia_case_output) and the
 * empty query (002 约束说明 > 入参为空的处理; RELEASED Degenerate shapes). */
#include "oracle_internal.h"

void orc_facts_output(const fia_case *c, fia_oracle_facts *f)
{
    f->out_presence = fia_case_output(c, FIA_SLOT_ATTENTION_OUT, &f->out);
    if (f->out_presence == FIA_PRESENT) {
        f->given[FIA_SLOT_ATTENTION_OUT] = 1;
        f->t[FIA_SLOT_ATTENTION_OUT] = &f->out;
        f->count[FIA_SLOT_ATTENTION_OUT] = 1;
        f->numel[FIA_SLOT_ATTENTION_OUT] = fia_tensor_numel(&f->out);
    }

    f->query_empty = f->given[FIA_SLOT_QUERY] && f->numel[FIA_SLOT_QUERY] == 0;
    f->out_empty = f->given[FIA_SLOT_ATTENTION_OUT] &&
                   f->numel[FIA_SLOT_ATTENTION_OUT] == 0;
    f->short_circuit = f->query_empty && f->out_empty;
}
