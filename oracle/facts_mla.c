/* oracle/facts_mla: the MLA scene (003 §约束说明, "query_rope和key_rope输入
 * 时即为MLA场景").  A call is MLA when query_rope or key_rope is passed;
 * the query's head dim splits it into the D = 512 scene (KV_N 1, page
 * attention, Q_S 1..16) and the D = 128 scene (the token layouts only).
 * A rank-5 key cache is the NZ format of 003's D = 512 list ("输入参数key和
 * value的格式为[blockNum, N, D/16, blockSize, 16]"; RELEASED "NZ-format
 * paged KV cache"): each block stored as D/16 tiles of (block_size, 16).
 * Full quantization (003 D = 512 list, "支持全量化场景") is the D = 512
 * scene with an int8 query: its int8 NZ cache is [blockNum, KV_N, D/32,
 * block_size, 32] (D/32 tiles of 32), its key_rope NZ stays bf16's
 * [blockNum, KV_N, 64/16, block_size, 16].
 * Runs after the layout, the paged cache and the token layouts, whose D it
 * reads. */
#include "oracle_internal.h"

void orc_facts_mla(const fia_case *c, fia_oracle_facts *f)
{
    (void)c;
    f->rope = f->given[FIA_SLOT_QUERY_ROPE] || f->given[FIA_SLOT_KEY_ROPE];
    f->mla512 = f->rope && f->q_d_ok && f->D == 512;
    f->mla128 = f->rope && f->q_d_ok && f->D == 128;
    f->nz = f->paged && f->cache_rank == 5;
    f->mla_query_quant = f->mla512 && f->given[FIA_SLOT_QUERY] &&
                f->t[FIA_SLOT_QUERY]->dtype == FIA_DT_INT8;
}

/* Heads folded into the last dim: BSH's H, a rank-3 cache's KV_N*D. */
static int rope_shape_bad(const fia_tensor *x, const fia_tensor *r,
                          int64_t folded)
{
    if (r->ndim != x->ndim || x->ndim < 1)
        return 1;
    for (int i = 0; i + 1 < x->ndim; i++)
        if (r->shape[i] != x->shape[i])
            return 1;
    return folded <= 0 || r->shape[x->ndim - 1] != folded * ORC_ROPE_D;
}

int orc_query_rope_shape_bad(const fia_oracle_facts *f)
{
    const int64_t folded = f->layout == ORC_LAYOUT_BSH ? f->N : 1;
    return rope_shape_bad(f->t[FIA_SLOT_QUERY], f->t[FIA_SLOT_QUERY_ROPE],
                          folded);
}

/* An NZ cache's key_rope: [blockNum, KV_N, Dr/16, block_size, 16], the
 * key's dims but the tiles (003: "key_rope shape中D为64，其余维度与key一致"
 * read in the NZ format). */
static int nz_rope_shape_bad(const fia_tensor *k, const fia_tensor *r)
{
    return r->ndim != 5 || r->shape[0] != k->shape[0] ||
           r->shape[1] != k->shape[1] || r->shape[2] != ORC_ROPE_D / 16 ||
           r->shape[3] != k->shape[3] || r->shape[4] != 16;
}

int orc_key_rope_shape_bad(const fia_oracle_facts *f)
{
    if (f->nz)
        return nz_rope_shape_bad(f->t[FIA_SLOT_KEY],
                                 f->t[FIA_SLOT_KEY_ROPE]);
    const int folds = f->paged ? f->cache_rank == 3
                               : f->layout == ORC_LAYOUT_BSH;
    return rope_shape_bad(f->t[FIA_SLOT_KEY], f->t[FIA_SLOT_KEY_ROPE],
                          folds ? f->KV_N : 1);
}
