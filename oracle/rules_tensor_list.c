/* Rules: key/value tensor lists (several tensors, one per batch).
 *
 * 002 约束说明 (both paths): "非连续场景下 key、value的tensorlist中的batch只能
 * 为1，个数等于query的B，N和D需要相等。由于tensorlist限制, 非连续场景下B不能
 * 大于256"; key and value tensors pairwise of one shape (LAYOUT-006;
 * profile cann: LIST-008, checked before the early return of
 * oracle/order.c) and each of the layout's rank (LAYOUT-004/005).  Each
 * tensor has its own S; batch b's default kv length is it, KV_S the
 * largest (facts_tensor_list.c).
 * The exclusions need no arithmetic of either feature: EXCLUSION layer
 * (page attention with lists: PAGED-001). */
#include "oracle_internal.h"

static int kv_antiquant(const fia_oracle_facts *f)
{
    static const fia_slot s[] = {
        FIA_SLOT_KEY_ANTIQUANT_SCALE, FIA_SLOT_KEY_ANTIQUANT_OFFSET,
        FIA_SLOT_VALUE_ANTIQUANT_SCALE, FIA_SLOT_VALUE_ANTIQUANT_OFFSET};
    return ORC_ANY_GIVEN(f, s);
}

/* A tensor of the key list whose batch is not 1. */
static int batch_not_1(const fia_oracle_facts *f)
{
    const fia_tensor_spec *k = &f->c->tensors[FIA_SLOT_KEY];
    for (int32_t i = 0; i < k->count; i++)
        if (k->t[i].ndim >= 1 && k->t[i].shape[0] != 1)
            return 1;
    return 0;
}

/* A tensor of the key list whose heads or D differ from the call's (N
 * axis KV_N and D; BSH: H = KV_N * D). */
static int heads_differ(const fia_oracle_facts *f)
{
    const fia_tensor_spec *k = &f->c->tensors[FIA_SLOT_KEY];
    for (int32_t i = 0; i < k->count; i++) {
        const fia_tensor *t = &k->t[i];
        if (t->ndim != f->q_rank_want)
            continue; /* LAYOUT-004's */
        /* int4 packed eight to an int32: the last dim is D/8 or H/8 */
        const int64_t last = t->shape[t->ndim - 1];
        const int64_t real = t->dtype == FIA_DT_INT32 && last <= INT64_MAX / 8
                                 ? 8 * last : last;
        if (f->layout == ORC_LAYOUT_BSH ? real != f->KV_N * f->D
            : f->layout == ORC_LAYOUT_BSND
                ? t->shape[2] != f->KV_N || real != f->D
                : t->shape[1] != f->KV_N || real != f->D)
            return 1;
    }
    return 0;
}

/* Key and value lists of different counts, or a key tensor whose shape
 * is not its value tensor's. */
static int pair_differs(const fia_oracle_facts *f)
{
    const fia_tensor_spec *k = &f->c->tensors[FIA_SLOT_KEY];
    const fia_tensor_spec *v = &f->c->tensors[FIA_SLOT_VALUE];
    if (k->count != v->count)
        return 1;
    for (int32_t i = 0; i < k->count; i++) {
        const fia_tensor *a = &k->t[i], *b = &v->t[i];
        if (a->ndim != b->ndim)
            return 1;
        for (int d = 0; d < a->ndim && d < FIA_MAX_RANK; d++)
            if (a->shape[d] != b->shape[d])
                return 1;
    }
    return 0;
}

/* A batch whose actual_seq_lengths_kv exceeds its own tensor's S. */
static int len_beyond_tensor(const fia_oracle_facts *f)
{
    const int64_t n = orc_used_count(f->kv_seq_count, f->B);
    for (int64_t b = 0; b < f->B && b < ORC_LIST_MAX && n > 0; b++)
        if (f->kv_seq[n == 1 ? 0 : b] > f->list_s[b])
            return 1;
    return 0;
}

static int heads_known(const fia_oracle_facts *f)
{
    return f->q_d_ok && f->KV_N > 0 && f->KV_N <= 65536 && f->D >= 0 &&
           f->D <= ((int64_t)1 << 31);
}

ORC_PRED(l_prefix, f->kv_list, orc_prefix_given(f))
ORC_PRED(l_antiquant, f->kv_list && orc_is_prefill(f), kv_antiquant(f))
ORC_PRED(l_b_max, f->kv_list && f->q_rank_ok, f->B > 256)
ORC_PRED(l_count, f->kv_list && f->q_rank_ok,
         f->count[FIA_SLOT_KEY] != f->B)
ORC_PRED(l_batch, f->kv_list, batch_not_1(f))
ORC_PRED(l_heads, f->kv_list && f->layout_modeled && heads_known(f),
         heads_differ(f))
ORC_PRED(l_pairs,
         f->kv_list && f->given[FIA_SLOT_KEY] && f->given[FIA_SLOT_VALUE] &&
             !f->tnd,
         pair_differs(f))
ORC_PRED(l_len, f->kv_list && f->list_ok && f->kv_seq_given &&
                    f->count[FIA_SLOT_KEY] == f->B && f->B <= ORC_LIST_MAX,
         len_beyond_tensor(f))

const fia_rule orc_rules_tensor_list[] = {
    {"LIST-001", "tensor_list", FIA_RULE_REJECT, ORC_EXCL,
     C002_GT1 " (prefix相关参数约束)",
     "key/value tensor lists exclude the shared prefix",
     "002 says so under Q_S > 1 only; fiacheck applies it on both paths "
     "(the prefix section is not split by path)",
     ORC_FN(l_prefix)},
    {"LIST-002", "tensor_list", FIA_RULE_REJECT, ORC_EXCL,
     C002_GT1 " (kv伪量化参数分离); " C003_GT1,
     "Q_S > 1: key/value tensor lists exclude separate key/value antiquant "
     "(key/value_antiquant_scale/offset)",
     NULL, ORC_FN(l_antiquant)},
    {"LIST-003", "tensor_list", FIA_RULE_REJECT, ORC_SEM, C002_CONSTR,
     "with key/value tensor lists B is at most 256", NULL, ORC_FN(l_b_max)},
    {"LIST-004", "tensor_list", FIA_RULE_REJECT, ORC_SEM,
     C002_CONSTR "; " C003_CONSTR,
     "a key/value list holds B tensors, one per batch", NULL,
     ORC_FN(l_count)},
    {"LIST-005", "tensor_list", FIA_RULE_REJECT, ORC_SEM,
     C002_CONSTR "; " C003_CONSTR,
     "each tensor of a key/value list has batch 1", NULL, ORC_FN(l_batch)},
    {"LIST-006", "tensor_list", FIA_RULE_REJECT, ORC_SEM,
     C002_CONSTR "; " C003_CONSTR,
     "each tensor of a key/value list has the call's KV heads and D (N and "
     "D equal)",
     NULL, ORC_FN(l_heads)},
    {"LIST-007", "tensor_list", FIA_RULE_REJECT, ORC_SEM,
     C002_P("actualSeqLengthsKvOptional"),
     "with tensor lists each batch's actual_seq_lengths_kv is at most its "
     "own tensor's S",
     "the documents bound the lengths by the key's S and give each list "
     "tensor its own S; fiacheck reads the bound per tensor",
     ORC_FN(l_len)},
    /* cann only: LAYOUT-006 read for lists, before the early return */
    {"LIST-008", "tensor_list", FIA_RULE_REJECT, FIA_LAYER_SEMANTIC, FIA_OK,
     FIA_ERR_INNER_TILING_ERROR, C002_CONSTR,
     "each tensor of a key list has the shape of its value tensor, and the "
     "lists have one count, even in a call that reads no key: the released "
     "code's rejection",
     "002 asks key and value of one shape (LAYOUT-006, profile doc, lists "
     "included); the released code compares a list's pairs before its "
     "early return for a call that reads no key, unlike a single tensor's "
     "(LAYOUT-014, oracle/order.c): in the public ops-transformer source "
     "the Q_S = 1 path compares each pair in IFATiling::KvShapePostProcess "
     "(incre_flash_attention_tiling.cpp; that tiling has no such return, "
     "ZeroTensorProcess only gives an all-empty key a working S), the "
     "Q_S > 1 path in CheckKvPFA's GetCumulativeKeyValueSIn{BSH,BNSD,BSND} "
     "(fused_infer_attention_score_tiling.cpp, from "
     "ConvertContextToParamsPFA), before "
     "PromptFlashAttentionTiling::RunBigKernelTilingWithParams takes its "
     "empty-key tiling key; a call with an empty key tensor takes these "
     "paths (IsEmptyTensor in CheckGqaConstrain keeps it from the newer "
     "tiling, whose FiaTilingCheck::Process returns before its list "
     "checks when no key or value tensor has an element) but in that "
     "tiling's own scenes (isNotLegacyGQA: value's D not the query's, "
     "ropes), which this row does not tell apart; no vendor tiling test "
     "has lists; profile doc does not apply this row",
     ORC_FN_CANN(l_pairs)},
};
const size_t orc_rules_tensor_list_count =
    sizeof orc_rules_tensor_list / sizeof orc_rules_tensor_list[0];
