/* oracle/facts_paged: page attention's facts.  A block_table passed (even
 * empty) enables it (002 约束说明, page attention场景); the key and value
 * are then caches of blocks, batch b reading the first ceil(kv_len_b /
 * block_size) entries of its row of the table.  KV_S of a paged call, the
 * length masks and lengths are checked against, is the longest batch's
 * blocks times block_size (002: "KV_S需要大于等于maxBlockNumPerSeq *
 * blockSize" where a mask is passed). */
#include "oracle_internal.h"

void orc_facts_paged(const fia_case *c, fia_oracle_facts *f)
{
    if (!f->paged)
        return;
    f->table = f->t[FIA_SLOT_BLOCK_TABLE];
    f->cache = f->t[FIA_SLOT_KEY];
    f->cache_rank = f->cache ? f->cache->ndim : 0;
    f->block_size = c->attrs.block_size;
    orc_paged_blocks(f);
}

void orc_paged_blocks(fia_oracle_facts *f)
{
    /* the blocks per batch: known with a usable length array and B */
    if (!f->paged || f->nb_ok || !f->q_rank_ok || f->block_size <= 0 || !f->kv_seq_given ||
        orc_used_count(f->kv_seq_count, f->B) == 0 || f->B > 65536)
        return;
    f->nb_ok = 1;
    for (int64_t b = 0; b < f->B; b++) {
        int64_t len = orc_kv_len(f, b);
        if (len <= 0)
            continue;
        int64_t nb = len / f->block_size + (len % f->block_size != 0);
        f->max_nb = nb > f->max_nb ? nb : f->max_nb;
        f->sum_nb = f->sum_nb > INT64_MAX - nb ? INT64_MAX : f->sum_nb + nb;
    }
    if (f->max_nb <= INT64_MAX / f->block_size) {
        f->KV_S = f->max_nb * f->block_size;
        f->k_rank_ok = 1;
    }
}
