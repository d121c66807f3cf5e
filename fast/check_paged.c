/* paged: page attention (002 约束说明, "page attention场景", under Q_S > 1
 * and under Q_S = 1; 000, 001, 003 say the same with small differences).
 *
 * A block_table alone enables it ("page attention的使能必要条件是blockTable
 * 存在且有效"); block_size without one is ignored.  Key and value are then
 * one cache tensor each, (blocknum, block_size, KV_N*D) or (blocknum, KV_N,
 * block_size, D), whatever the query's layout (MLA: also NZ, (blocknum,
 * KV_N, D/16, block_size, 16)); batch b's keys are the rows of
 * the blocks block_table[b][0 .. nb_b - 1], nb_b = ceil(kv_len_b /
 * block_size).  The plan's paged fields (fast_internal.h) say where key j
 * lives; the block ids themselves are device data, checked in phase two
 * (executor.c) before anything is read. */
#include "validate.h"

static const fast_opt_input inputs[] = {
    {FAST_OPT_BLOCK_TABLE, 1, {FIA_DT_INT32}},
};
#define NINPUTS (sizeof inputs / sizeof inputs[0])

/* Layer 2.  REG_OP: block_table int32. */
fia_status fast_check_paged_dtypes(const fast_args *a, fast_plan *p,
                                   fia_error *err)
{
    (void)p;
    return fast_check_opt_dtypes(a, inputs, NINPUTS, err);
}

/* The block_size rule of each path (002 约束说明): Q_S > 1 a multiple of
 * 128 in [128, 512]; Q_S = 1 non-zero, at most 512, 16-aligned for
 * fp16/bf16 key/value and 32-aligned for int8.  Q_S = 0 (an empty query)
 * is not the decode path: its rules are Q_S > 1's. */
static fia_status check_block_size(const fast_args *a, int64_t qs,
                                   fia_error *err)
{
    const int64_t bs = a->block_size;
    if (qs != 1) {
        if (bs < 128 || bs > 512 || bs % 128 != 0)
            return FAST_REJECT("S_PAGED_BLOCK_SIZE", "block_size %lld must be a "
                               "multiple of 128 in [128, 512] (Q_S > 1)",
                               (long long)bs);
        return FIA_OK;
    }
    const int align = a->key->tensors[0]->dtype == FIA_DT_INT8 ? 32 : 16;
    if (bs <= 0 || bs > 512 || bs % align != 0)
        return FAST_REJECT("S_PAGED_BLOCK_SIZE", "block_size %lld must be non-zero, "
                           "at most 512 and %d-aligned (Q_S = 1, %s key/value)",
                           (long long)bs, align,
                           fast_dtype_name(a->key->tensors[0]->dtype));
    return FIA_OK;
}

/* The rules that need no feature's arithmetic, checked before the
 * not-modeled layer so that a documented rejection is never hidden behind
 * "not modeled": the features page attention does not support, and the
 * block_size rule (it reads only Q_S and the key's dtype).  Statuses as
 * semantic rejections. */
fia_status fast_check_paged_exclusions(const fast_args *a, fast_plan *p,
                                       fia_error *err)
{
    (void)p;
    if (a->opt[FAST_OPT_BLOCK_TABLE] == NULL)
        return FIA_OK;
    /* 002 (both paths): "不支持tensorlist场景". */
    if (a->key->count != 1 || a->value->count != 1)
        return FAST_REJECT("S_PAGED_LIST", "page attention takes one key/value "
                           "cache tensor, not lists of %d/%d", (int)a->key->count,
                           (int)a->value->count);
    /* 002 query/kv 左padding: "不支持PageAttention，不能与blocktable参数一起
     * 使能"; page attention: "不支持左padding场景" — a left-padding scene
     * (check_padding.c), not any padding tensor.  At Q_S = 1 only the kv
     * scene exists (query padding is ignored there), and the released code
     * ignores kv_padding_size with page attention: profile cann accepts
     * (the padding without effect), profile doc rejects. */
    const int64_t qs = fast_early_q_s(a);
    bool qscene, kvscene;
    fast_padding_scene(a, &qscene, &kvscene);
    if (qs != 1 && (qscene || kvscene))
        return FAST_REJECT("S_PAGED_PADDING", "page attention with a %s "
                           "left-padding scene (Q_S > 1)", qscene ? "query" : "kv");
    if (qs == 1 && kvscene && a->profile != FIA_PROFILE_CANN)
        return FAST_REJECT("S_PAGED_PADDING", "page attention with a kv "
                           "left-padding scene (Q_S = 1)");
    /* 002 prefix: "prefix不支持PageAttention场景". */
    if (a->opt[FAST_OPT_KEY_SHARED_PREFIX] ||
        a->opt[FAST_OPT_VALUE_SHARED_PREFIX])
        return FAST_REJECT("S_PAGED_PREFIX", "page attention with a shared prefix");
    /* 002 (both paths): no fp16/bf16 query with int4 KV. */
    const fia_dtype qd = a->query->dtype, kd = a->key->tensors[0]->dtype;
    if ((qd == FIA_DT_FP16 || qd == FIA_DT_BF16) &&
        (kd == FIA_DT_INT4 || kd == FIA_DT_INT32)) /* int32: packed int4 */
        return FAST_REJECT("S_PAGED_INT4", "page attention with a %s query and int4 "
                           "key/value", fast_dtype_name(qd));
    if (qs < 0)
        return FIA_OK; /* the layout check rejects the call */
    /* MLA (query D 512) has its own block_size rule at any Q_S: 16 or 128
     * (S_MLA_BLOCK_SIZE, layer 5) */
    fia_status st = fast_mla512(a) ? FIA_OK : check_block_size(a, qs, err);
    if (st != FIA_OK)
        return st;
    if (qs != 1) {
        /* 002 Q_S > 1: "不支持query为int8" (003 MLA, query D 512,
         * documents its full quantization with page attention required:
         * its own rules, check_query_quant_mla.c). */
        const bool query_quant = qd == FIA_DT_INT8 && fast_mla512(a);
        if (qd == FIA_DT_INT8 && !query_quant)
            return FAST_REJECT("S_PAGED_INT8_QUERY", "page attention with an int8 "
                               "query (Q_S > 1)");
        /* 002 Q_S > 1: "不支持伪量化场景"; kv伪量化参数分离: "不支持...page
         * attention特性".  With MLA's int8 query the separate set is
         * its full quantization's dequant scales (003 dequant_scale_key
         * ...), not antiquant: its rules, check_query_quant_mla.c. */
        if (a->opt[FAST_OPT_ANTIQUANT_SCALE] ||
            a->opt[FAST_OPT_ANTIQUANT_OFFSET] ||
            (!query_quant && (a->opt[FAST_OPT_KEY_ANTIQUANT_SCALE] ||
                              a->opt[FAST_OPT_VALUE_ANTIQUANT_SCALE] ||
                              a->opt[FAST_OPT_KEY_ANTIQUANT_OFFSET] ||
                              a->opt[FAST_OPT_VALUE_ANTIQUANT_OFFSET])))
            return FAST_REJECT("S_PAGED_ANTIQUANT", "page attention with antiquant "
                               "parameters (Q_S > 1)");
    }
    return FIA_OK;
}

/* ceil(len / bs) for each batch's effective kv length: *max the most blocks
 * of one batch, *sum their total.  A length array the seqlen check will
 * reject (bad count, negative values) counts its usable values only. */
static void block_counts(const fast_args *a, int64_t B, int64_t bs,
                         int64_t *max, int64_t *sum)
{
    const fia_int_array *kv = a->aslkv;
    *max = 0, *sum = 0;
    if (kv->count <= 0 || kv->values == NULL ||
        (kv->count != 1 && kv->count < B) || B > 65536)
        return; /* the seqlen / layout checks reject the call */
    for (int64_t b = 0; b < B; b++) {
        int64_t len = kv->values[kv->count == 1 ? 0 : b];
        if (len <= 0)
            continue;
        int64_t nb = len / bs + (len % bs != 0);
        *max = nb > *max ? nb : *max;
        *sum = *sum > INT64_MAX - nb ? INT64_MAX : *sum + nb;
    }
}

/* Layer 5, in place of the key's reading by the layout (check_layout.c
 * leaves a paged call's key to this row): the cache's shape against
 * block_size, KV_N and D, the block table, the lengths, and KV_S. */
fia_status fast_check_paged_cache(const fast_args *a, fast_plan *p,
                                  fia_error *err)
{
    const fia_tensor *bt = a->opt[FAST_OPT_BLOCK_TABLE];
    if (bt == NULL)
        return FIA_OK;
    const fia_tensor *k = a->key->tensors[0];
    const int64_t bs = a->block_size;
    /* 002: the cache is (blocknum, blocksize, H) or (blocknum, KV_N,
     * blocksize, D), the latter only with a BNSD query (BNSD_BSND reads a
     * BNSD query too: accepted). */
    if (k->ndim == 4) {
        /* a token layout of MLA (query D 512) takes either cache: 002's
         * BNSD rule is about the batched layouts */
        if (p->layout != FAST_LAYOUT_BNSD &&
            p->layout != FAST_LAYOUT_BNSD_BSND &&
            !(p->tnd.on && fast_mla512(a)))
            return FAST_REJECT("S_PAGED_CACHE", "a (blocknum, KV_N, block_size, D) "
                               "cache needs a BNSD query, not %s", a->layout);
        if (k->shape[1] != p->KV_N || k->shape[2] != bs || k->shape[3] != p->D)
            return FAST_REJECT("S_PAGED_CACHE", "cache [%lld,%lld,%lld,%lld] is not "
                               "(blocknum, KV_N=%lld, block_size=%lld, D=%lld)",
                               (long long)k->shape[0], (long long)k->shape[1],
                               (long long)k->shape[2], (long long)k->shape[3],
                               (long long)p->KV_N, (long long)bs, (long long)p->D);
    } else if (k->ndim == 3) {
        if (k->shape[1] != bs || k->shape[2] != p->KV_N * p->D)
            return FAST_REJECT("S_PAGED_CACHE", "cache [%lld,%lld,%lld] is not "
                               "(blocknum, block_size=%lld, KV_N*D=%lld)",
                               (long long)k->shape[0], (long long)k->shape[1],
                               (long long)k->shape[2], (long long)bs,
                               (long long)(p->KV_N * p->D));
        /* 002: a (blocknum, blocksize, H) cache with KV_N*D above 65535 is
         * intercepted (hardware instruction limit). */
        if (p->KV_N * p->D > 65535)
            return FAST_REJECT("S_PAGED_H_MAX", "(blocknum, block_size, H) cache "
                               "with KV_N*D = %lld > 65535",
                               (long long)(p->KV_N * p->D));
    } else if (k->ndim == 5 && fast_mla512(a)) {
        /* MLA's NZ cache (003 "当input_layout为NZ时，数据类型为float16或
         * bfloat16时，输入参数key和value的格式为[blockNum, N, D/16,
         * blockSize, 16]；当数据类型为int8时，...[blockNum, N, D/32,
         * blockSize, 32]": tiles of 32 bytes either way; int8 is full
         * quantization's, check_query_quant_mla.c; its layouts and block_size:
         * the exclusions of check_mla.c) */
        const int w = k->dtype == FIA_DT_INT8 ? 32 : 16;
        if (k->shape[1] != p->KV_N || k->shape[2] * w != p->D ||
            k->shape[3] != bs || k->shape[4] != w)
            return FAST_REJECT("S_PAGED_CACHE", "NZ cache [%lld,%lld,%lld,%lld,"
                               "%lld] is not (blocknum, KV_N=%lld, D/%d=%lld, "
                               "block_size=%lld, %d) for %s key/value",
                               (long long)k->shape[0],
                               (long long)k->shape[1], (long long)k->shape[2],
                               (long long)k->shape[3], (long long)k->shape[4],
                               (long long)p->KV_N, w, (long long)(p->D / w),
                               (long long)bs, w, fast_dtype_name(k->dtype));
        p->page.nz_w = w;
    } else {
        return FAST_REJECT("S_PAGED_CACHE", "key/value cache of rank %d (takes 3 or "
                           "4%s)", (int)k->ndim, fast_mla512(a) ? ", or MLA's NZ 5"
                                                                : "");
    }
    /* 000 / 003 (Q_S = 1): each cache's element count within int32. */
    if (p->Q_S == 1 && p->kv_numel > INT32_MAX)
        return FAST_REJECT("S_PAGED_NUMEL", "cache of %lld elements beyond int32 "
                           "(Q_S = 1)", (long long)p->kv_numel);
    /* 002: actual_seq_lengths_kv is required. */
    if (a->aslkv == NULL)
        return FAST_REJECT("S_PAGED_ASLKV", "page attention needs "
                           "actual_seq_lengths_kv");
    int64_t max_nb, sum_nb;
    block_counts(a, p->B, bs, &max_nb, &sum_nb);
    /* 002: block_table 2-D, [B, >= maxBlockNumPerSeq]. */
    if (bt->ndim != 2 || bt->shape[0] != p->B || bt->shape[1] < max_nb)
        return FAST_REJECT("S_PAGED_TABLE", "block_table must be [B=%lld, >= "
                           "%lld blocks]", (long long)p->B, (long long)max_nb);
    /* 002: blocknum not below the blocks all batches need. */
    if (k->shape[0] < sum_nb)
        return FAST_REJECT("S_PAGED_BLOCKNUM", "blocknum %lld < %lld blocks the "
                           "batches need", (long long)k->shape[0],
                           (long long)sum_nb);
    p->page.on = true;
    p->page.cache4d = k->ndim == 4;
    p->page.nz = k->ndim == 5;
    p->page.bt = (const int32_t *)bt->data;
    p->page.bt_cols = bt->shape[1];
    p->page.block_size = bs;
    p->page.blocknum = k->shape[0];
    /* What masks and lengths are checked against: the longest batch's
     * blocks (002: "KV_S需要大于等于maxBlockNumPerSeq * blockSize"). */
    p->KV_S = max_nb * bs;
    return FIA_OK;
}
