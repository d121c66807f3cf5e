/* ref/ reading, feature "paged": page attention (002 约束说明, page
 * attention场景).
 *
 * A block_table makes key and value caches of blocks of block_size rows:
 *
 *   rank 3  (blocknum, block_size, KV_N*D): element (b, kn, j, d) at
 *           ((id * block_size + o) * KV_N + kn) * D + d
 *   rank 4  (blocknum, KV_N, block_size, D): at
 *           ((id * KV_N + kn) * block_size + o) * D + d
 *   rank 5  the NZ format of MLA (003 约束说明, query的D等于512; RELEASED
 *           "NZ-format paged KV cache"), (blocknum, KV_N, D/16, block_size,
 *           16): each block of a head is D/16 tiles of (block_size, 16),
 *           tile t holding columns 16t .. 16t + 15 of every row, so at
 *           (((id * KV_N + kn) * (D/16) + d/16) * block_size + o) * 16
 *           + d % 16
 *
 * with id = block_table[b][j / block_size] and o = j % block_size; an MLA
 * key_rope cache (read_mla.c) is read through the same ids and offsets,
 * with its head dim Dr for D (ref_paged_kv_index's width W; an NZ
 * key_rope is (blocknum, KV_N, Dr/16, block_size, 16)).  The NZ tiles are
 * 16 elements wide for fp16 / bf16 and 32 for int8 (MLA full
 * quantization, 003: "数据类型为int8时，输入参数key和value的格式为
 * [blockNum, N, D/32, blockSize, 32]"), p->nz_tile, element (b, kn, j, d)
 * then at (((id * KV_N + kn) * (D/32) + d/32) * block_size + o) * 32
 * + d % 32; key_rope stays bf16 with tiles of 16.  An int8 NZ cache of
 * another call (not full quantization) is refused here.  Batch b
 * reads the first nb_b = ceil(kv_len_b / block_size) entries of its row, and
 * nothing else of the table.  KV_S of a paged call is max_b nb_b x
 * block_size: the length masks are read against.  The ids are device data
 * the operator does not validate (002: "当前不会对blockid的合法性进行校验"):
 * an id read outside [0, blocknum) leaves the result unspecified, so the
 * reading refuses the case (nothing computed) before any key is loaded.
 * Every index stays below blocknum x block_size x KV_N x D, the cache's
 * element count, which fits int64 (the case model checks it). */
#include "ref_internal.h"

fia_status ref_read_paged(ref_problem *p, const fia_case *c,
                          const fia_case_data *d, fia_error *err)
{
    if (!ref_slot_given(d, FIA_SLOT_BLOCK_TABLE) &&
        c->tensors[FIA_SLOT_BLOCK_TABLE].presence != FIA_PRESENT)
        return FIA_OK; /* block_size alone is ignored (PAGED-N01) */
    const fia_tensor *bt = fia_case_data_tensor(d, FIA_SLOT_BLOCK_TABLE);
    p->paged = 1;
    p->block_size = c->attrs.block_size;
    if (bt == NULL || bt->dtype != FIA_DT_INT32 || bt->ndim != 2)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "block_table must be a "
                        "2-D int32 tensor");
    if (p->block_size <= 0 || p->block_size > 512)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "block_size %lld outside "
                        "(0, 512]", (long long)p->block_size);
    if (p->k->ndim < 3 || p->k->ndim > 5)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "the key cache has rank "
                        "%d (takes 3, 4 or 5, NZ)", (int)p->k->ndim);
    p->cache4d = p->k->ndim == 4;
    p->cachenz = p->k->ndim == 5;
    p->nz_tile = p->query_quant ? 32 : 16;
    if (p->cachenz && !p->query_quant && p->k->dtype != FIA_DT_FP16 &&
        p->k->dtype != FIA_DT_BF16)
        return fia_fail(err, FIA_ERR_NOT_MODELED, "not modeled yet: an NZ "
                        "cache of %s outside MLA full quantization",
                        fia_dtype_name(p->k->dtype));
    p->bt = bt->data;
    p->bt_cols = bt->shape[1];
    return FIA_OK;
}

fia_status ref_paged_key_dims(ref_problem *p, int64_t *kd, fia_error *err)
{
    const fia_tensor *k = p->k;
    const int64_t bs = p->block_size;
    if (p->cachenz) {
        const int64_t w = p->nz_tile;
        if (k->shape[1] != p->KV_N || k->shape[3] != bs || k->shape[4] != w)
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "NZ cache [%lld,"
                            "%lld,%lld,%lld,%lld] is not (blocknum, "
                            "KV_N=%lld, D/%lld, block_size=%lld, %lld)",
                            (long long)k->shape[0], (long long)k->shape[1],
                            (long long)k->shape[2], (long long)k->shape[3],
                            (long long)k->shape[4], (long long)p->KV_N,
                            (long long)w, (long long)bs, (long long)w);
        *kd = k->shape[2] * w;
    } else if (p->cache4d) {
        if (k->shape[1] != p->KV_N || k->shape[2] != bs)
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "cache [%lld,%lld,"
                            "%lld,%lld] is not (blocknum, KV_N=%lld, "
                            "block_size=%lld, D)", (long long)k->shape[0],
                            (long long)k->shape[1], (long long)k->shape[2],
                            (long long)k->shape[3], (long long)p->KV_N,
                            (long long)bs);
        *kd = ref_kv_last_dim(p, k);
    } else {
        if (k->shape[1] != bs || ref_kv_last_dim(p, k) % p->KV_N != 0)
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "cache [%lld,%lld,"
                            "%lld] is not (blocknum, block_size=%lld, "
                            "KV_N*D)", (long long)k->shape[0],
                            (long long)k->shape[1], (long long)k->shape[2],
                            (long long)bs);
        *kd = ref_kv_last_dim(p, k) / p->KV_N;
    }
    p->blocknum = k->shape[0];
    if (p->bt_cols > REF_DIM_LIMIT / bs)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "block_table's %lld "
                        "columns reach beyond 2^40 keys",
                        (long long)p->bt_cols);
    p->KV_S = p->bt_cols * bs; /* the reach, until the lengths are read */
    return FIA_OK;
}

fia_status ref_read_paged_blocks(ref_problem *p, const fia_case *c,
                                 const fia_case_data *d, fia_error *err)
{
    (void)c;
    if (!p->paged)
        return FIA_OK;
    const fia_tensor *bt = fia_case_data_tensor(d, FIA_SLOT_BLOCK_TABLE);
    if (bt->shape[0] != p->B)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "block_table has %lld "
                        "rows, B is %lld", (long long)bt->shape[0],
                        (long long)p->B);
    int64_t max_nb = 0, sum = 0;
    for (int64_t b = 0; b < p->B; b++) {
        const int64_t len = p->kv_len[b];
        const int64_t nb = len / p->block_size + (len % p->block_size != 0);
        if (nb > p->bt_cols)
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "batch %lld needs "
                            "%lld blocks, block_table has %lld columns",
                            (long long)b, (long long)nb,
                            (long long)p->bt_cols);
        if (nb > 0 && p->bt == NULL)
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "block_table has no "
                            "data");
        for (int64_t m = 0; m < nb; m++) {
            const int32_t id = p->bt[b * p->bt_cols + m];
            if (id < 0 || id >= p->blocknum)
                return fia_fail(err, FIA_ERR_PARAM_INVALID,
                                "block_table[%lld][%lld] = %d outside the "
                                "cache's %lld blocks: the result is "
                                "unspecified", (long long)b, (long long)m,
                                (int)id, (long long)p->blocknum);
        }
        max_nb = nb > max_nb ? nb : max_nb;
        sum += nb;
    }
    (void)sum; /* blocknum >= sum is the catalogue's rule, not a read's */
    p->KV_S = max_nb * p->block_size;
    return FIA_OK;
}

int64_t ref_paged_kv_index(const ref_problem *p, int64_t b, int64_t kn,
                           int64_t j, int64_t dd, int64_t W, int64_t tile)
{
    const int64_t id = p->bt[b * p->bt_cols + j / p->block_size];
    const int64_t o = j % p->block_size;
    if (p->cachenz)
        return (((id * p->KV_N + kn) * (W / tile) + dd / tile) *
                    p->block_size + o) * tile + dd % tile;
    if (p->cache4d)
        return ((id * p->KV_N + kn) * p->block_size + o) * W + dd;
    return ((id * p->block_size + o) * p->KV_N + kn) * W + dd;
}
