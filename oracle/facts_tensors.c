/* oracle/facts_tensors: which tensors are passed, their first tensor and
 * element count, and the dtype classes of query and key/value.  The outputs'
 * entries are the effective outputs, filled by facts_output.c and
 * facts_lse.c. */
#include "oracle_internal.h"

int orc_dtype_in(fia_dtype dt, const fia_dtype *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == dt)
            return 1;
    return 0;
}

int orc_slot_dtypes_in(const fia_oracle_facts *f, fia_slot s,
                       const fia_dtype *list, size_t n)
{
    if (!f->given[s])
        return 1;
    if (s == FIA_SLOT_ATTENTION_OUT)
        return orc_dtype_in(f->out.dtype, list, n);
    if (s == FIA_SLOT_SOFTMAX_LSE)
        return orc_dtype_in(f->lse.dtype, list, n);
    const fia_tensor_spec *sp = &f->c->tensors[s];
    for (int32_t i = 0; i < sp->count; i++)
        if (!orc_dtype_in(sp->t[i].dtype, list, n))
            return 0;
    return 1;
}

int orc_any_given(const fia_oracle_facts *f, const fia_slot *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (f->given[s[i]])
            return 1;
    return 0;
}

static int is_float16ish(fia_dtype dt)
{
    return dt == FIA_DT_FP16 || dt == FIA_DT_BF16;
}

void orc_facts_tensors(const fia_case *c, fia_oracle_facts *f)
{
    for (int s = 0; s < FIA_SLOT_COUNT; s++) {
        f->numel[s] = -1;
        if (fia_slot_is_output((fia_slot)s))
            continue;
        const fia_tensor_spec *sp = &c->tensors[s];
        if (sp->presence == FIA_PRESENT && sp->count >= 1 && sp->t != NULL) {
            f->given[s] = 1;
            f->t[s] = &sp->t[0];
            f->count[s] = sp->count;
            f->numel[s] = fia_tensor_numel(&sp->t[0]);
        }
    }

    const fia_tensor *q = f->t[FIA_SLOT_QUERY];
    f->q_float = q && is_float16ish(q->dtype);
    f->kv_float = f->given[FIA_SLOT_KEY] && f->given[FIA_SLOT_VALUE];
    for (int s = FIA_SLOT_KEY; s <= FIA_SLOT_VALUE && f->kv_float; s++) {
        const fia_tensor_spec *sp = &c->tensors[s];
        for (int32_t i = 0; i < sp->count; i++)
            if (!is_float16ish(sp->t[i].dtype))
                f->kv_float = 0;
    }
}

int orc_antiquant_given(const fia_oracle_facts *f)
{
    static const fia_slot s[] = {
        FIA_SLOT_ANTIQUANT_SCALE,       FIA_SLOT_ANTIQUANT_OFFSET,
        FIA_SLOT_KEY_ANTIQUANT_SCALE,   FIA_SLOT_KEY_ANTIQUANT_OFFSET,
        FIA_SLOT_VALUE_ANTIQUANT_SCALE, FIA_SLOT_VALUE_ANTIQUANT_OFFSET};
    return ORC_ANY_GIVEN(f, s);
}

int orc_prefix_given(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_KEY_SHARED_PREFIX] ||
           f->given[FIA_SLOT_VALUE_SHARED_PREFIX];
}
