/* oracle/facts_padding: the left-padding scenes (docs/features/padding.md).
 *
 * A padding tensor counts when it holds an element (an empty one is absent,
 * like an empty mask or pse); its value is device data the oracle never
 * reads.  The query scene is query_padding_size with actual_seq_lengths at
 * Q_S > 1 (002 参数说明: "仅支持Q_S大于1，其余场景该参数无效"; 约束说明:
 * "需要与actualSeqLengths参数一起使能，否则默认为query右padding场景"); the
 * kv scene is kv_padding_size with actual_seq_lengths_kv, on either path.
 * Runs after the lengths and the layout (the path). */
#include "oracle_internal.h"

int orc_pad_counts(const fia_oracle_facts *f, fia_slot s)
{
    return f->given[s] && f->numel[s] != 0;
}

void orc_facts_padding(const fia_case *c, fia_oracle_facts *f)
{
    (void)c;
    f->pad_q_scene = orc_pad_counts(f, FIA_SLOT_QUERY_PADDING_SIZE) &&
                     f->seq_given && orc_is_prefill(f);
    f->pad_kv_scene = orc_pad_counts(f, FIA_SLOT_KV_PADDING_SIZE) &&
                      f->kv_seq_given;
}
