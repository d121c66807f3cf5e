/* Rules: page attention (block_table, block_size).
 *
 * Enabled by a block_table alone (002 约束说明: "page attention的使能必要
 * 条件是blockTable存在且有效"); block_size without one is ignored
 * (PAGED-N01).  Key and value are then caches, (blocknum, block_size,
 * KV_N*D) or (blocknum, KV_N, block_size, D), whatever the query's layout;
 * batch b reads blocks block_table[b][0 .. nb_b - 1], nb_b =
 * ceil(kv_len_b / block_size) (facts_paged.c).  Masks cover KV_S =
 * max nb_b x block_size: the mask rules read that KV_S, which is the
 * documented "KV_S >= maxBlockNumPerSeq * blockSize when a mask is passed".
 * The block ids themselves are device data the operator does not validate:
 * no rule here reads them (the harness calls a result unspecified when an
 * id read lies outside the cache, harness/paged_ids.c).
 *
 * The exclusions and the block_size rule need no feature's arithmetic, so
 * they are in the EXCLUSION layer: decided before "not modeled" (a paged
 * call with left padding is a documented rejection even while left padding
 * is not modeled). */
#include "oracle_internal.h"

#define CPA " (page attention场景)"

static int list_kv(const fia_oracle_facts *f)
{
    return f->count[FIA_SLOT_KEY] != 1 || f->count[FIA_SLOT_VALUE] != 1;
}

/* A left-padding scene (facts_padding.c): a padding tensor with its
 * lengths, the query's only at Q_S > 1. */
static int padding(const fia_oracle_facts *f)
{
    return f->pad_q_scene || f->pad_kv_scene;
}


static fia_dtype kv_dtype(const fia_oracle_facts *f)
{
    return f->t[FIA_SLOT_KEY] ? f->t[FIA_SLOT_KEY]->dtype : FIA_DT_INVALID;
}

static int q_half(const fia_oracle_facts *f)
{
    const fia_tensor *q = f->t[FIA_SLOT_QUERY];
    return q && (q->dtype == FIA_DT_FP16 || q->dtype == FIA_DT_BF16);
}

static int bs_prefill_bad(int64_t bs)
{
    return bs < 128 || bs > 512 || bs % 128 != 0;
}

static int bs_decode_bad(int64_t bs, fia_dtype kv)
{
    return bs <= 0 || bs > 512 || bs % (kv == FIA_DT_INT8 ? 32 : 16) != 0;
}

/* The cache's dims against block_size, KV_N and the query's D. */
static int cache_dims_bad(const fia_oracle_facts *f)
{
    const int64_t *s = f->cache->shape, bs = f->block_size;
    if (f->cache_rank == 4)
        return s[1] != f->KV_N || s[2] != bs || s[3] != f->D;
    return s[1] != bs || s[2] != f->KV_N * f->D;
}

static int heads_known(const fia_oracle_facts *f)
{
    return f->q_d_ok && f->KV_N > 0 && f->KV_N <= 65536 && f->D >= 0 &&
           f->D <= ((int64_t)1 << 31);
}

static int single_cache(const fia_oracle_facts *f)
{
    return f->count[FIA_SLOT_KEY] == 1;
}

static int rank34(const fia_oracle_facts *f)
{
    return f->cache_rank == 3 || f->cache_rank == 4;
}

static int table_2d(const fia_oracle_facts *f)
{
    return f->table != NULL && f->table->ndim == 2;
}

ORC_PRED(p_list, f->paged, list_kv(f))
ORC_PRED(p_padding, f->paged && !orc_is_decode(f), padding(f))
ORC_PRED(p_padding_decode, f->paged && orc_is_decode(f), f->pad_kv_scene)
ORC_PRED(p_prefix, f->paged, orc_prefix_given(f))
ORC_PRED(p_int4, f->paged && q_half(f),
         kv_dtype(f) == FIA_DT_INT4 || kv_dtype(f) == FIA_DT_INT32)
/* MLA (D = 512) has block sizes of its own: MLA-016 */
ORC_PRED(p_bs_prefill, f->paged && orc_is_prefill(f) && !f->mla512,
         bs_prefill_bad(f->block_size))
ORC_PRED(p_bs_decode, f->paged && orc_is_decode(f) && !f->mla512,
         bs_decode_bad(f->block_size, kv_dtype(f)))
/* MLA's full quantization (an int8 query, its key/value scales) needs page
 * attention (MLA-015, rules_mla.c) */
ORC_PRED(p_int8_query, f->paged && orc_is_prefill(f) && !f->mla_query_quant,
         f->t[FIA_SLOT_QUERY]->dtype == FIA_DT_INT8)
ORC_PRED(p_antiquant, f->paged && orc_is_prefill(f) && !f->mla_query_quant,
         orc_antiquant_given(f))
ORC_PRED(p_aslkv, f->paged, !f->kv_seq_given)
/* rank 5: MLA's NZ cache (rules_mla.c) */
ORC_PRED(p_rank, f->paged && f->cache != NULL && single_cache(f),
         !rank34(f) && !(f->cache_rank == 5 && f->rope))
ORC_PRED(p_4d_layout, f->paged && f->cache_rank == 4 && f->layout_modeled,
         f->layout != ORC_LAYOUT_BNSD && f->layout != ORC_LAYOUT_BNSD_BSND)
ORC_PRED(p_dims, f->paged && f->cache != NULL && rank34(f) && heads_known(f),
         cache_dims_bad(f))
ORC_PRED(p_h_max, f->paged && f->cache_rank == 3 && heads_known(f),
         f->KV_N * f->D > 65535)
ORC_PRED(p_table_2d, f->paged && f->table != NULL && f->q_rank_ok,
         f->table->ndim != 2 || f->table->shape[0] != f->B)
ORC_PRED(p_table_cols, f->paged && f->nb_ok && table_2d(f),
         f->table->shape[1] < f->max_nb)
ORC_PRED(p_blocknum, f->paged && f->nb_ok && f->cache != NULL &&
                         f->cache_rank >= 1,
         f->cache->shape[0] < f->sum_nb)
ORC_PRED(p_numel, f->paged && orc_is_decode(f) && f->numel[FIA_SLOT_KEY] >= 0,
         f->numel[FIA_SLOT_KEY] > INT32_MAX)
ORC_PRED(block_size_alone, 1,
         !f->given[FIA_SLOT_BLOCK_TABLE] && f->c->attrs.block_size != 0)

const fia_rule orc_rules_paged[] = {
    {"PAGED-001", "paged", FIA_RULE_REJECT, ORC_EXCL,
     C002_GT1 CPA "; " C002_EQ1 CPA "; " C003_EQ1,
     "page attention takes one key and one value cache, not tensor lists",
     NULL, ORC_FN(p_list)},
    {"PAGED-002", "paged", FIA_RULE_REJECT, ORC_EXCL,
     C002_GT1 CPA " and (query左padding场景, kv左padding场景); "
         C000_KW("query_padding_size"),
     "Q_S > 1: page attention excludes left padding: no query or kv "
     "left-padding scene (a padding tensor with its lengths) with a "
     "block_table",
     NULL, ORC_FN(p_padding)},
    {"PAGED-003", "paged", FIA_RULE_REJECT, ORC_EXCL,
     C002_GT1 " (prefix相关参数约束)",
     "page attention excludes the shared prefix (key/value_shared_prefix)",
     "002 says so under Q_S > 1 only; fiacheck applies it on both paths "
     "(the prefix section is not split by path)",
     ORC_FN(p_prefix)},
    {"PAGED-004", "paged", FIA_RULE_REJECT, ORC_EXCL,
     C002_GT1 CPA "; " C002_EQ1 CPA,
     "page attention excludes int4 key/value with an fp16/bf16 query", NULL,
     ORC_FN(p_int4)},
    {"PAGED-005", "paged", FIA_RULE_REJECT, ORC_EXCL, C002_GT1 CPA "; "
     C003_GT1,
     "Q_S > 1: block_size a multiple of 128 in [128, 512]",
     "000 calls block_size invalid when Q_S > 1 (000 §关键字参数 block_size) "
     "and gives only the Q_S = 1 rule; 001 knows Q_S = 1 only; the doc "
     "profile follows 002 and 003, which document page attention at Q_S > 1",
     ORC_FN(p_bs_prefill)},
    {"PAGED-006", "paged", FIA_RULE_REJECT, ORC_EXCL,
     C002_EQ1 CPA "; " C000_EQ1 "; " C001_CONSTR,
     "Q_S = 1: block_size non-zero, at most 512, a multiple of 16 for "
     "fp16/bf16 key/value and of 32 for int8",
     "001 gives the alignment but no upper bound", ORC_FN(p_bs_decode)},
    {"PAGED-007", "paged", FIA_RULE_REJECT, ORC_EXCL, C002_GT1 CPA,
     "Q_S > 1: page attention excludes an int8 query",
     "003 says it on both paths; 002 under Q_S > 1 only, where fiacheck "
     "applies it (an int8 query at Q_S = 1 is not modeled); 003's MLA D = "
     "512 list requires page attention and allows full quantization: that "
     "scene is exempt",
     ORC_FN(p_int8_query)},
    {"PAGED-008", "paged", FIA_RULE_REJECT, ORC_EXCL,
     C002_GT1 CPA " and (kv伪量化参数分离)",
     "Q_S > 1: page attention excludes antiquant (antiquant_scale/offset, "
     "key/value_antiquant_scale/offset)",
     "at Q_S = 1 002 documents per-token antiquant managed by page "
     "attention (key_antiquant_mode 4, 5): no exclusion there; in MLA's "
     "full quantization the key/value scales are that scene's (MLA-X01 and "
     "MLA-X03 decide the antiquant and offset tensors there)",
     ORC_FN(p_antiquant)},
    {"PAGED-009", "paged", FIA_RULE_REJECT, ORC_SEM,
     C002_GT1 CPA "; " C002_EQ1 CPA "; " C001_CONSTR,
     "page attention requires actual_seq_lengths_kv", NULL,
     ORC_FN(p_aslkv)},
    {"PAGED-010", "paged", FIA_RULE_REJECT, ORC_SEM,
     C002_GT1 CPA "; " C002_EQ1 CPA "; " C003_CONSTR " > MLA (query_rope、"
     "key_rope) > query的D等于512",
     "the key/value cache is rank 3 (blocknum, block_size, H) or rank 4 "
     "(blocknum, KV_N, block_size, D), whatever the query's layout; with "
     "rope (MLA) also rank 5, the NZ format (MLA-040..042)",
     "003's MLA list (query的D等于512) adds the NZ format "
     "[blockNum, N, D/16, blockSize, 16]",
     ORC_FN(p_rank)},
    {"PAGED-011", "paged", FIA_RULE_REJECT, ORC_SEM,
     C002_GT1 CPA "; " C002_EQ1 CPA "; " C001_CONSTR,
     "a (blocknum, KV_N, block_size, D) cache only with a BNSD query; "
     "BSH and BSND take (blocknum, block_size, H)",
     "the documents name BNSD only (003 adds TND); fiacheck also accepts "
     "BNSD_BSND, whose input is BNSD",
     ORC_FN(p_4d_layout)},
    {"PAGED-012", "paged", FIA_RULE_REJECT, ORC_SEM,
     C002_GT1 CPA "; " C002_EQ1 CPA,
     "the cache's dims: block dim = block_size, H = KV_N*D (rank 3), or "
     "KV_N and D of the call (rank 4)",
     "the documents give the two formats but no explicit check of their "
     "dims; a cache whose dims disagree cannot be read as either",
     ORC_FN(p_dims)},
    {"PAGED-013", "paged", FIA_RULE_REJECT, ORC_SEM,
     C002_GT1 CPA "; " C002_EQ1 CPA "; " C000_EQ1,
     "a (blocknum, block_size, H) cache with KV_N*D above 65535 is "
     "intercepted",
     "002 Q_S > 1 says above 65535; 002 Q_S = 1, 000 and 003 say above 64k "
     "(65536 would then pass): fiacheck takes 65535 on both paths",
     ORC_FN(p_h_max)},
    {"PAGED-014", "paged", FIA_RULE_REJECT, ORC_SEM,
     C002_GT1 CPA "; " C002_EQ1 CPA "; " C001_CONSTR,
     "block_table is 2-D and its first dim is B", NULL,
     ORC_FN(p_table_2d)},
    {"PAGED-015", "paged", FIA_RULE_REJECT, ORC_SEM,
     C002_GT1 CPA "; " C002_EQ1 CPA "; " C001_CONSTR,
     "block_table's second dim is at least maxBlockNumPerSeq, the blocks "
     "of the longest actual_seq_lengths_kv",
     NULL, ORC_FN(p_table_cols)},
    {"PAGED-016", "paged", FIA_RULE_REJECT, ORC_SEM,
     C002_GT1 CPA "; " C002_EQ1 CPA "; " C001_CONSTR,
     "blocknum (the cache's first dim) is at least the blocks all batches "
     "need together",
     NULL, ORC_FN(p_blocknum)},
    {"PAGED-017", "paged", FIA_RULE_REJECT, ORC_SEM, C000_EQ1 "; " C003_EQ1,
     "Q_S = 1: the key and value caches' element counts fit int32",
     "002 does not state it", ORC_FN(p_numel)},
    {"PAGED-018", "paged", FIA_RULE_REJECT, FIA_LAYER_EXCLUSION,
     FIA_ERR_PARAM_INVALID, FIA_OK,
     C002_EQ1 CPA " and (kv左padding场景); " C001_CONSTR "; "
         CREL("Silent normalisations"),
     "Q_S = 1: page attention excludes kv left padding (kv_padding_size "
     "with actual_seq_lengths_kv and a block_table)",
     "RELEASED ignores kv_padding_size with page attention on the decode "
     "path (right padding): profile cann accepts the call",
     ORC_FN(p_padding_decode)},
    {"PAGED-N01", "paged", FIA_RULE_NORMALIZE, ORC_NORM,
     C002_GT1 CPA,
     "block_size without a block_table is ignored: page attention is "
     "enabled only by a present and valid block_table",
     "the documents give block_size rules only where page attention is "
     "enabled and say nothing of block_size alone; fiacheck reads it as "
     "ignored (fast/ and ref/ alike)",
     ORC_FN(block_size_alone)},
};
const size_t orc_rules_paged_count =
    sizeof orc_rules_paged / sizeof orc_rules_paged[0];
