/* Rules: page attention: block_table and block_size.
 *
 * Page attention is enabled by a block_table only (002: "page attention的
 * 使能必要条件是blockTable存在且有效"); block_size alone enables nothing.
 * Not modeled yet: NM-006 refuses the feature (ORC_NM_ROW). */
#include "oracle_internal.h"

ORC_PRED(nm_paged, 1, f->given[FIA_SLOT_BLOCK_TABLE])
ORC_PRED(block_size_alone, 1,
         !f->given[FIA_SLOT_BLOCK_TABLE] && f->c->attrs.block_size != 0)

const fia_rule orc_rules_paged[] = {
    ORC_NM_ROW("NM-006", "paged", nm_paged,
               C002_GT1 " (page attention场景); " C002_EQ1,
               "page attention (a block_table given) is not modeled yet",
               "002 (Q_S > 1) requires block_size in 128..512, multiple of "
               "128; 002 (Q_S = 1), 000 and 001 require only a nonzero value "
               "aligned to 16 (fp16/bf16) or 32 (int8), at most 512; 000 calls "
               "block_table and block_size invalid when Q_S > 1, while 002 and "
               "003 document page attention on Q_S > 1"),
    {"PAGED-N01", "paged", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_GT1 " (page attention场景)",
     "block_size without a block_table is ignored: page attention is "
     "enabled only by a present and valid block_table",
     "the documents give block_size rules only where page attention is "
     "enabled and say nothing of block_size alone; fiacheck reads it as "
     "ignored (fast/ and ref/ alike)",
     ORC_FN(block_size_alone)},
};
const size_t orc_rules_paged_count =
    sizeof orc_rules_paged / sizeof orc_rules_paged[0];
