/* oracle/: private declarations shared by the oracle/ sources.
 *
 * fia_oracle_facts is computed once per case (facts.c) and is all a rule's
 * predicate ever looks at.  Every derived number carries a flag saying whether
 * it could be derived; a predicate that needs an unknown number does not fire
 * (it never reads out of bounds or divides by zero).  Nothing here reads
 * tensor data: only shapes, dtypes, attributes and the host int arrays. */
#ifndef FIA_ORACLE_INTERNAL_H
#define FIA_ORACLE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "fia/case.h"
#include "fia/oracle.h"
#include "fia/status.h"
#include "fia/tensor.h"

typedef enum orc_layout {
    ORC_LAYOUT_BSH = 0,
    ORC_LAYOUT_BSND,
    ORC_LAYOUT_BNSD,
    ORC_LAYOUT_BNSD_BSND,
    ORC_LAYOUT_TND,      /* the 003 token layouts (facts_tnd.c) */
    ORC_LAYOUT_TND_NTD,
    ORC_LAYOUT_NTD_TND,
    ORC_LAYOUT_NTD,      /* RELEASED only */
    ORC_LAYOUT_INVALID   /* no document knows it */
} orc_layout;

typedef enum orc_path {
    ORC_PATH_UNKNOWN = 0, /* the query's S could not be read */
    ORC_PATH_DECODE,      /* Q_S == 1 (IncreFlashAttention branch) */
    ORC_PATH_PREFILL,     /* Q_S != 1 (PromptFlashAttention branch) */
    ORC_PATH_TND          /* a token layout: 003's own constraint list */
} orc_path;

/* The most tensors a key/value list may hold (002 约束说明: B <= 256). */
#define ORC_LIST_MAX 256

struct fia_oracle_facts {
    const fia_case *c;

    /* facts_tensors.c.  Tensors as passed.  given[s]: a tensor (list) is
     * passed; for the outputs this is the effective output of
     * fia_case_output() (facts_output.c, facts_lse.c).  t[s]: the first
     * tensor of the slot (NULL when not given).  numel[s]: of t[s], -1 when
     * not given or not computable.  Dtype classes: q_float, query fp16 /
     * bf16; kv_float, every key/value tensor fp16 / bf16. */
    int given[FIA_SLOT_COUNT];
    const fia_tensor *t[FIA_SLOT_COUNT];
    int32_t count[FIA_SLOT_COUNT];
    int64_t numel[FIA_SLOT_COUNT];
    int q_float;
    int kv_float;

    /* facts_output.c: the effective attention_out, and the empty query
     * (002 约束说明, 入参为空的处理): short_circuit when the query and
     * attention_out are both empty. */
    fia_tensor out;
    fia_presence out_presence;
    int query_empty, out_empty;
    int short_circuit;

    /* facts_lse.c: the effective softmax_lse. */
    fia_tensor lse;
    fia_presence lse_presence;

    /* facts_gqa.c: the head counts. */
    int64_t N;                        /* num_heads attribute */
    int64_t KV_N;                     /* effective: 0 means N */

    /* facts_layout.c: the layout and the dims read through it.  The
     * *_NBSD outputs of 003 (BSH_NBSD, BSND_NBSD, BNSD_NBSD) read query,
     * key and value in the layout before '_' (layout BSH, BSND or BNSD)
     * and set o_nbsd: attention_out is then (N, B, Q_S, D). */
    orc_layout layout;
    int o_nbsd;
    int layout_modeled;               /* one of the four 002 layouts (an
                                         NBSD output's input included) */
    int q_rank_want;                  /* 3 or 4 (0: layout not modeled) */

    /* Query: q_rank_ok -> B, Q_S known; q_d_ok -> D known (BSH needs
     * num_heads > 0 dividing H). QN: the N axis of a 4-D query (-1 for BSH). */
    int q_rank_ok, q_d_ok;
    int64_t B, Q_S, QN, D, H;

    /* Key (first tensor): k_rank_ok -> KB, KV_S known; k_d_ok -> KD known. */
    int k_rank_ok, k_d_ok;
    int64_t KB, KV_S, KN, KD, KH;
    int v_rank_ok;
    orc_path path;

    /* facts_mask.c: atten_mask passed with at least one element (an empty
     * one is absent). */
    int mask_effective;

    /* facts_seqlen.c: the host int arrays. */
    int seq_given, kv_seq_given;
    int64_t seq_count, kv_seq_count;
    const int64_t *seq, *kv_seq;

    /* facts_paged.c (and facts_layout.c, which leaves a paged key to it):
     * page attention is on when a block_table is passed.  The key is then
     * a cache (cache_rank 3: (blocknum, block_size, KV_N*D); 4: (blocknum,
     * KV_N, block_size, D)), not read through the layout.  nb_ok: the
     * blocks each batch needs are known (a valid actual_seq_lengths_kv and
     * block_size > 0): max_nb the most of one batch, sum_nb their total;
     * then KV_S (and k_rank_ok) is max_nb * block_size, what masks and
     * lengths are checked against. */
    /* facts_tensor_list.c: key/value lists of several tensors (one per
     * batch, [1, S_b, ...] in the layout): list_ok when every tensor
     * reads through the layout; then list_s[b] (b < ORC_LIST_MAX) is
     * batch b's S, the default kv length of its batch, and KV_S the
     * largest. */
    int kv_list, list_ok;
    int64_t list_s[ORC_LIST_MAX];

    /* facts_tnd.c: a token layout (TND, NTD, TND_NTD, NTD_TND; path
     * ORC_PATH_TND).  Query [T, N, D] or, q_ntd, [N, T, D]; key/value the
     * same with T_kv, KV_N and their own D (VD: value's).  The length
     * arrays are cumulative token counts and give B (their count); cum_ok:
     * both given, of one count >= 1, non-negative, non-decreasing, ending
     * at T and T_kv: then B, Q_S and KV_S (the longest batch) are known,
     * q_rank_ok and k_rank_ok set, and orc_q_len / orc_kv_len are the
     * differences. */
    int tnd, q_ntd, o_ntd;
    int64_t T, T_kv, VD, VT, VN;
    int v_d_ok, cum_ok;

    /* facts_padding.c: the left-padding scenes (docs/features/padding.md):
     * a padding tensor of at least one element with its lengths, the
     * query's only at Q_S > 1. */
    int pad_q_scene, pad_kv_scene;

    /* facts_prefix.c: the shared prefix read through the layout: its S
     * (prefix_s_ok: both tensors given, of the key's rank) and the length
     * the call uses (prefix_len_ok: the array's one value, or S_p). */
    int prefix_s_ok, prefix_len_ok;
    int64_t prefix_s, prefix_len;

    /* facts_antiquant.c: the antiquant scene (docs/features/antiquant.md):
     * an fp16/bf16 query with int8 or int4 (int4 or int32) key and value.
     * aq_sep: the separate set is in use (a key or value antiquant scale
     * given); aq_comb: otherwise a combined tensor is given.  aq_int4: the
     * key is int4 or int32. */
    int aq_scene, aq_int4, aq_sep, aq_comb;

    /* facts_mla.c: the MLA scene (003): rope, query_rope or key_rope
     * passed; mla512 / mla128, and the query's D is 512 / 128.  nz: a
     * paged call whose key cache is rank 5, the NZ format (blockNum, KV_N,
     * D/16, block_size, 16) of 003's MLA list.  mla_query_quant: MLA's full
     * quantization scene, D = 512 with an int8 query (003 D = 512 list
     * "支持全量化场景": int8 query/key/value, bf16 ropes and output, the
     * scales dequant_scale_query / _key / _value); the 002 rules of an int8
     * query (int8_quant, antiquant, paged) leave it to rules_mla.c and
     * rules_query_quant.c. */
    int rope, mla512, mla128, nz, mla_query_quant;

    /* order.c: no batch reads a key (every used actual_seq_lengths_kv 0,
     * or without the array a key/value S of 0; the shared prefix does not
     * count): the released code returns zeros here before the checks of
     * its later stage (orc_after_empty_kv), profile cann only. */
    int kv_none;

    int paged;
    int cache_rank;
    const fia_tensor *cache, *table;
    int nb_ok;
    int64_t block_size, max_nb, sum_nb;
};

/* Status pairs per layer (RELEASED-BEHAVIOUR.md "Return codes, by layer"). */
#define ORC_NULLPTR FIA_LAYER_NULLPTR, FIA_ERR_PARAM_NULLPTR, FIA_ERR_PARAM_NULLPTR
#define ORC_DTYPE FIA_LAYER_DTYPE, FIA_ERR_PARAM_INVALID, FIA_ERR_PARAM_INVALID
#define ORC_SEM FIA_LAYER_SEMANTIC, FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR
#define ORC_EXCL FIA_LAYER_EXCLUSION, FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR
#define ORC_NM FIA_LAYER_SEMANTIC, FIA_ERR_NOT_MODELED, FIA_ERR_NOT_MODELED
#define ORC_NM_LATE FIA_LAYER_ARITHMETIC, FIA_ERR_NOT_MODELED, FIA_ERR_NOT_MODELED
#define ORC_NORM FIA_LAYER_SEMANTIC, FIA_OK, FIA_OK

/* Citations.  File prefix, then the section path. */
#define C002_API "002 §aclnnFusedInferAttentionScoreV2GetWorkspaceSize > 参数说明"
#define C002_P(x) C002_API " > " x
#define C002_RET "002 §aclnnFusedInferAttentionScoreV2GetWorkspaceSize > 返回值"
#define C002_CONSTR "002 §约束说明"
#define C002_GT1 "002 §约束说明 > 当Q_S大于1时"
#define C002_EQ1 "002 §约束说明 > 当Q_S等于1时"
#define C002_EMPTY "002 §约束说明 > 入参为空的处理"
#define C002_REGOP "002 §算子原型"
#define C000_P(x) "000 §参数 > " x
#define C000_KW(x) "000 §关键字参数 > " x
#define C000_GT1 "000 §约束 > 全量推理场景（Q_S > 1）"
#define C000_EQ1 "000 §约束 > 增量推理场景（Q_S = 1）"
#define C001_P(x) "001 §参数说明 > " x
#define C001_CONSTR "001 §约束说明"
#define C003_P(x) "003 §参数说明 > " x
#define C003_CONSTR "003 §约束说明"
#define C003_GT1 "003 §约束说明 > 当Q_S大于1时"
#define C003_EQ1 "003 §约束说明 > 当Q_S等于1时"
#define C003_RET "003 §返回值说明"
#define C004_P "004 §函数原型"
#define CREL(x) "RELEASED §" x

/* Predicate boilerplate: a rule is a scope (when it is applicable) and a
 * violation (within the scope).  fires = scope && violated; applies = scope
 * && !violated. */
#define ORC_PRED(name, scope, violated)                                      \
    static int name##_scope(const fia_oracle_facts *f)                       \
    {                                                                        \
        (void)f;                                                             \
        return (scope);                                                      \
    }                                                                        \
    static int name##_fires(const fia_oracle_facts *f)                       \
    {                                                                        \
        return name##_scope(f) && (violated);                                \
    }                                                                        \
    static int name##_applies(const fia_oracle_facts *f)                     \
    {                                                                        \
        return name##_scope(f) && !(violated);                               \
    }
#define ORC_FN(name) name##_fires, name##_applies, 0
/* a row of profile cann only (fia_rule.cann_only) */
#define ORC_FN_CANN(name) name##_fires, name##_applies, 1

/* The rule files, one per feature of include/fia/feature.h, in catalogue
 * order: oracle/rules_<name>.c defines orc_rules_<name>[] and
 * orc_rules_<name>_count, and every row's feature is "<name>".  A new
 * feature adds its rules file (and, when it derives facts of its own, a
 * facts_<name>.c) and one line here. */
#define ORC_RULE_FILES(X)                                                    \
    X(tensors) X(layout) X(gqa) X(mask) X(sparse) X(seqlen) X(lse)           \
    X(precise) X(output) X(scale) X(pse) X(int8_quant) X(antiquant)               \
    X(int_inputs) X(int8_out) X(paged) X(padding) X(prefix)               \
    X(tensor_list) X(mla) X(query_quant) X(tnd) X(sink) X(product) X(reserved)

#define ORC_GROUP(g)                                                         \
    extern const fia_rule orc_rules_##g[];                                   \
    extern const size_t orc_rules_##g##_count;
ORC_RULE_FILES(ORC_GROUP)
#undef ORC_GROUP

/* A documented feature fiacheck does not model yet (its page
 * docs/features/<feature>.md says so): its row refuses the feature with FIA_ERR_NOT_MODELED; the
 * evaluator lets the nullptr and dtype layers decide first. */
#define ORC_NM_ROW(id, feat, fn, cite, text, dis)                            \
    {id, feat, FIA_RULE_NOT_MODELED, ORC_NM, cite, text, dis, ORC_FN(fn)}

/* Facts (facts.c, the driver): computed once per case, in steps, one per
 * feature that derives facts of its own (facts_<feature>.c).  A step may read
 * what the steps before it derived; the driver's order is the one below. */
void orc_facts_compute(const fia_case *c, fia_oracle_facts *f);
void orc_facts_tensors(const fia_case *c, fia_oracle_facts *f);
void orc_facts_output(const fia_case *c, fia_oracle_facts *f);
void orc_facts_lse(const fia_case *c, fia_oracle_facts *f);
void orc_facts_gqa(const fia_case *c, fia_oracle_facts *f);
void orc_facts_layout(const fia_case *c, fia_oracle_facts *f);
void orc_facts_mask(const fia_case *c, fia_oracle_facts *f);
void orc_facts_seqlen(const fia_case *c, fia_oracle_facts *f);
void orc_facts_paged(const fia_case *c, fia_oracle_facts *f);
void orc_facts_tensor_list(const fia_case *c, fia_oracle_facts *f);
void orc_facts_tnd(const fia_case *c, fia_oracle_facts *f);
void orc_facts_padding(const fia_case *c, fia_oracle_facts *f);
void orc_facts_prefix(const fia_case *c, fia_oracle_facts *f);
void orc_facts_antiquant(const fia_case *c, fia_oracle_facts *f);
void orc_facts_mla(const fia_case *c, fia_oracle_facts *f);
void orc_facts_order(const fia_case *c, fia_oracle_facts *f);

/* order.c: the rules the released code checks only after its early return
 * for a call that reads no key (f->kv_none): in profile cann such a call
 * does not evaluate them (as OUT-N01's empty query evaluates no semantic
 * rule).  A rule is in that stage by its id, listed in order.c with the
 * kind of check it is; orc_after_empty_kv_id(i) walks the list (NULL past
 * its end) so that the tests can check every id names a rule. */
int orc_after_empty_kv(const fia_rule *r);
/* What `fiacheck rules` says of such a rule (why its profiles differ). */
#define ORC_AFTER_EMPTY_KV_NOTE                                              \
    "checked only after the released code's early return for a call that "   \
    "reads no key (zeros, lse +inf): not applied to such a call (vendor "     \
    "tiling tests; oracle/order.c, docs/features/output.md)"
const char *orc_after_empty_kv_id(size_t i);

/* Helpers for predicates. */
/* facts_tensors.c */
int orc_dtype_in(fia_dtype dt, const fia_dtype *list, size_t n);
/* 1 when every tensor of slot s (given) has a dtype in the list. */
int orc_slot_dtypes_in(const fia_oracle_facts *f, fia_slot s,
                       const fia_dtype *list, size_t n);
/* 1 when any of the n slots is given. */
int orc_any_given(const fia_oracle_facts *f, const fia_slot *s, size_t n);
#define ORC_ANY_GIVEN(f, list)                                               \
    orc_any_given(f, list, sizeof(list) / sizeof((list)[0]))
/* 1 when a shared prefix tensor (key or value) is passed. */
int orc_prefix_given(const fia_oracle_facts *f);
/* 1 when an antiquant scale or offset (shared or key/value apart) is
 * passed. */
int orc_antiquant_given(const fia_oracle_facts *f);
/* facts_seqlen.c.  Effective lengths of batch b (0 <= b < B): from the array
 * (broadcast of a length-1 array, else element b) or the S dim.  Only
 * meaningful when the array's count is valid (1 or >= B). */
int64_t orc_q_len(const fia_oracle_facts *f, int64_t b);
int64_t orc_kv_len(const fia_oracle_facts *f, int64_t b);
/* Number of array entries the operator reads: 1 for a length-1 array, B when
 * count >= B, 0 when the count is not valid. */
int64_t orc_used_count(int64_t count, int64_t B);
/* facts_mask.c: the given mask is not the optimized (2048, 2048) one
 * (leading dims 1) that sparse modes 2-4 take. */
int orc_mask_opt_shape_bad(const fia_oracle_facts *f);
/* facts_padding.c: a padding tensor passed with at least one element. */
int orc_pad_counts(const fia_oracle_facts *f, fia_slot s);
/* facts_mla.c: the rope D 003 documents, and whether query_rope /
 * key_rope (given) break "the query's / key's shape with D 64" (heads
 * folded into the last dim as in the tensor it follows). */
#define ORC_ROPE_D 64
int orc_query_rope_shape_bad(const fia_oracle_facts *f);
int orc_key_rope_shape_bad(const fia_oracle_facts *f);
/* facts_paged.c: the blocks each batch reads (nb_ok, max_nb, sum_nb) and
 * the paged KV_S, once B and the lengths are known (a token layout knows
 * its B only in facts_tnd.c, which calls it again). */
void orc_paged_blocks(fia_oracle_facts *f);
/* facts_layout.c */
/* 1 for a batched (not token) single key and value of one shape but for
 * value's head dim 128 where the key's is 192 (heads x D in a rank-3
 * tensor): RELEASED "Head dims on the current path"; the released code's
 * reading of LAYOUT-006 (LAYOUT-014). */
int orc_value_d_pair(const fia_oracle_facts *f);
int orc_is_prefill(const fia_oracle_facts *f);
int orc_is_decode(const fia_oracle_facts *f);

#endif
