/* Rules: 004's learnable_sink (docs/features/sink.md).
 *
 * 004 §函数原型 names learnable_sink and nothing more; RELEASED ("Layouts,
 * head dims and parameters beyond the documents") gives what the released
 * code does: a tensor of shape [N] (one value per query head), bfloat16 in
 * the released tests, each value a virtual key of its head's rows.  So the
 * two rejections below come from the released code, cited with 004's
 * prototype; no document registers a dtype for the sink, so its dtype check
 * is a semantic rejection (161002 doc / 561002 cann), not the registered-
 * dtype layer.
 *
 * With MLA (query_rope / key_rope, MLA's full quantization included: an
 * int8 query WITH rope) the sink means the same: one virtual key per query
 * head over MLA's scores (q.k + q_rope.k_rope) * scale; N is num_heads as
 * for any call (32, 64 or 128 at D 512).  004's prototype has both inputs
 * and no document excludes the pair.
 *
 * Not modeled (NM-015, narrowed): the sink with 002's full int8 (an int8
 * query WITHOUT rope): there P is quantized to int8 with quant_scale1 and
 * nothing says how the sink's weight would be.  It is an ARITHMETIC-layer
 * row (ORC_NM_LATE): every rule judges the call first, so it never hides a
 * documented rejection (a wrong sink, a quantization rule). */
#include "oracle_internal.h"

#define C_SINK C004_P "; " CREL("Layouts, head dims and parameters beyond the documents")

static int sink_given(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_LEARNABLE_SINK] &&
           f->t[FIA_SLOT_LEARNABLE_SINK] != NULL;
}

static int shape_bad(const fia_oracle_facts *f)
{
    const fia_tensor *s = f->t[FIA_SLOT_LEARNABLE_SINK];
    return s->ndim != 1 || s->shape[0] != f->N;
}

/* 002's full int8: an int8 query and no rope (with rope it is MLA's full
 * quantization, whose sink is modeled) */
static int full_int8(const fia_oracle_facts *f)
{
    const fia_tensor *q = f->t[FIA_SLOT_QUERY];
    return q && q->dtype == FIA_DT_INT8 && !f->given[FIA_SLOT_QUERY_ROPE] &&
           !f->given[FIA_SLOT_KEY_ROPE];
}

ORC_PRED(dtype, sink_given(f),
         f->t[FIA_SLOT_LEARNABLE_SINK]->dtype != FIA_DT_BF16)
ORC_PRED(shape, sink_given(f), shape_bad(f))
ORC_PRED(nm_sink, sink_given(f), full_int8(f))

#define SINK_REJECT(id, text, dis, fn)                                       \
    {id, "sink", FIA_RULE_REJECT, ORC_SEM, C_SINK, text, dis, ORC_FN(fn)}

const fia_rule orc_rules_sink[] = {
    SINK_REJECT("SINK-001", "learnable_sink is bf16",
                "from the released code: 004 names learnable_sink without a "
                "dtype; the released tests pass bfloat16",
                dtype),
    SINK_REJECT("SINK-002",
                "learnable_sink has shape [N]: rank 1, N = num_heads (an "
                "empty tensor breaks it)",
                "from the released code: 004 names learnable_sink without a "
                "shape; RELEASED gives [N]",
                shape),
    {"NM-015", "sink", FIA_RULE_NOT_MODELED, ORC_NM_LATE, C_SINK,
     "learnable_sink with 002's full int8 quantization (an int8 query "
     "without rope: P quantized with quant_scale1) is not modeled yet: "
     "every rule judges the call, then it is refused",
     NULL, ORC_FN(nm_sink)},
};
const size_t orc_rules_sink_count =
    sizeof orc_rules_sink / sizeof orc_rules_sink[0];
