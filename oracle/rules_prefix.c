/* Rules: the shared system prefix (key_shared_prefix, value_shared_prefix,
 * actual_shared_prefix_len), docs/features/prefix.md.
 *
 * The prefix's keys and values come before each batch's own (facts_prefix.c
 * reads it through the layout).  Its rules need no prefix arithmetic, so
 * they come before everything fiacheck does not model (NM-008, in the
 * last layer, refusing only a call every documented rule accepts); the
 * combinations the documents refuse with it are exclusions (page
 * attention's is PAGED-003, left padding's PAD-X02, tensor lists'
 * LIST-001). */
#include "oracle_internal.h"

static int kp_given(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_KEY_SHARED_PREFIX];
}
static int vp_given(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_VALUE_SHARED_PREFIX];
}

/* Both given, the key read through a 002 layout (no cache, no list). */
static int both(const fia_oracle_facts *f)
{
    return kp_given(f) && vp_given(f) && f->layout_modeled && !f->paged &&
           !f->kv_list && f->given[FIA_SLOT_KEY] && f->given[FIA_SLOT_VALUE];
}

static int rank_dtype_bad(const fia_oracle_facts *f)
{
    const fia_tensor *k = f->t[FIA_SLOT_KEY], *v = f->t[FIA_SLOT_VALUE];
    const fia_tensor *kp = f->t[FIA_SLOT_KEY_SHARED_PREFIX];
    const fia_tensor *vp = f->t[FIA_SLOT_VALUE_SHARED_PREFIX];
    return kp->ndim != k->ndim || vp->ndim != k->ndim ||
           v->ndim != k->ndim || kp->dtype != k->dtype ||
           vp->dtype != k->dtype || v->dtype != k->dtype;
}

static int ranks_ok(const fia_oracle_facts *f)
{
    return !rank_dtype_bad(f) && f->q_rank_want > 0 &&
           f->t[FIA_SLOT_KEY]->ndim == f->q_rank_want;
}

static int batch_bad(const fia_oracle_facts *f)
{
    return f->t[FIA_SLOT_KEY_SHARED_PREFIX]->shape[0] != 1 ||
           f->t[FIA_SLOT_VALUE_SHARED_PREFIX]->shape[0] != 1;
}

/* The non-S, non-batch dims of p equal t's: H (BSH), N and D (BSND,
 * BNSD). */
static int heads_differ(const fia_oracle_facts *f, const fia_tensor *p,
                        const fia_tensor *t)
{
    if (f->layout == ORC_LAYOUT_BSH)
        return p->shape[2] != t->shape[2];
    int na = f->layout == ORC_LAYOUT_BSND ? 2 : 1;
    return p->shape[na] != t->shape[na] || p->shape[3] != t->shape[3];
}

static int heads_bad(const fia_oracle_facts *f)
{
    return heads_differ(f, f->t[FIA_SLOT_KEY_SHARED_PREFIX],
                        f->t[FIA_SLOT_KEY]) ||
           heads_differ(f, f->t[FIA_SLOT_VALUE_SHARED_PREFIX],
                        f->t[FIA_SLOT_VALUE]);
}

static int s_differ(const fia_oracle_facts *f)
{
    int sa = f->layout == ORC_LAYOUT_BSH || f->layout == ORC_LAYOUT_BSND ? 1
                                                                         : 2;
    return f->t[FIA_SLOT_KEY_SHARED_PREFIX]->shape[sa] !=
           f->t[FIA_SLOT_VALUE_SHARED_PREFIX]->shape[sa];
}

static const fia_int_array_spec *len_array(const fia_oracle_facts *f)
{
    const fia_int_array_spec *a =
        &f->c->arrays[FIA_ARR_ACTUAL_SHARED_PREFIX_LEN];
    return a->presence == FIA_PRESENT ? a : NULL;
}

static int len_value_bad(const fia_oracle_facts *f)
{
    const int64_t v = len_array(f)->values[0];
    return v < 0 || v > f->prefix_s;
}

static int64_t s_limit(const fia_oracle_facts *f)
{
    return orc_is_decode(f) ? 262144 : 20971520;
}

static int all_int8(const fia_oracle_facts *f)
{
    static const fia_slot s[] = {FIA_SLOT_QUERY, FIA_SLOT_KEY, FIA_SLOT_VALUE};
    for (int i = 0; i < 3; i++)
        if (!f->given[s[i]] || f->t[s[i]]->dtype != FIA_DT_INT8)
            return 0;
    return 1;
}

/* Prefill with a full mask read (sparse 0 / 1) or a pse: their KV dim
 * covers prefix_len + KV_S. */
static int covers_prefix(const fia_oracle_facts *f, fia_slot s)
{
    const fia_tensor *t = f->t[s];
    return t->shape[t->ndim - 1] >= f->prefix_len + f->KV_S;
}

static int prefix_known(const fia_oracle_facts *f)
{
    return both(f) && f->prefix_len_ok && f->k_rank_ok && orc_is_prefill(f);
}

ORC_PRED(pair, kp_given(f) || vp_given(f), !kp_given(f) || !vp_given(f))
ORC_PRED(rank_dtype, both(f), rank_dtype_bad(f))
ORC_PRED(batch1, both(f) && ranks_ok(f), batch_bad(f))
ORC_PRED(heads, both(f) && ranks_ok(f), heads_bad(f))
ORC_PRED(same_s, both(f) && ranks_ok(f), s_differ(f))
ORC_PRED(len_shape, len_array(f) != NULL, len_array(f)->count != 1)
ORC_PRED(len_value,
         len_array(f) != NULL && len_array(f)->count == 1 &&
             len_array(f)->values != NULL && both(f) && f->prefix_s_ok,
         len_value_bad(f))
ORC_PRED(s_sum, both(f) && f->prefix_s_ok && f->k_rank_ok &&
                    f->path != ORC_PATH_UNKNOWN,
         f->prefix_s + f->KV_S > s_limit(f))
ORC_PRED(mask_cols,
         prefix_known(f) && f->mask_effective &&
             (f->c->attrs.sparse_mode == 0 || f->c->attrs.sparse_mode == 1),
         !covers_prefix(f, FIA_SLOT_ATTEN_MASK))
ORC_PRED(pse_cols,
         prefix_known(f) && f->given[FIA_SLOT_PSE_SHIFT] &&
             f->numel[FIA_SLOT_PSE_SHIFT] != 0 &&
             f->t[FIA_SLOT_PSE_SHIFT]->ndim == 4,
         !covers_prefix(f, FIA_SLOT_PSE_SHIFT))
ORC_PRED(x_int8, orc_prefix_given(f) && orc_is_prefill(f), all_int8(f))
static int token_layout(const fia_oracle_facts *f)
{
    return f->layout == ORC_LAYOUT_TND || f->layout == ORC_LAYOUT_TND_NTD ||
           f->layout == ORC_LAYOUT_NTD_TND || f->layout == ORC_LAYOUT_NTD;
}

/* Q_S = 1 with a prefix: a 4-D pse narrower than the prefix length + key
 * S (its rule asks KV_S columns; the logical columns reach P + KV_S). */
static int decode_pse_narrow(const fia_oracle_facts *f)
{
    const fia_tensor *t = f->t[FIA_SLOT_PSE_SHIFT];
    return t != NULL && f->numel[FIA_SLOT_PSE_SHIFT] != 0 && t->ndim == 4 &&
           f->prefix_len_ok && f->k_rank_ok &&
           t->shape[3] < f->prefix_len + f->KV_S;
}

/* Not modeled: the length without the tensors (undocumented), a prefix
 * with a token layout (003 has no prefix parameters), a decode call with a
 * prefix and a mask, or a pse narrower than its logical keys (no document
 * says which of their columns the prefix keys read). */
ORC_PRED(nm_prefix, 1,
         (len_array(f) != NULL && !orc_prefix_given(f)) ||
             (orc_prefix_given(f) && token_layout(f)) ||
             (kp_given(f) && vp_given(f) && orc_is_decode(f) &&
              (f->mask_effective || decode_pse_narrow(f))))

#define CPX " (prefix相关参数约束)"
#define C_BOTH C002_GT1 CPX "; " C002_EQ1 CPX

const fia_rule orc_rules_prefix[] = {
    {"PREFIX-X02", "prefix", FIA_RULE_REJECT, ORC_EXCL, C002_GT1 CPX,
     "Q_S > 1: the shared prefix takes no call whose query, key and value "
     "are all int8", NULL, ORC_FN(x_int8)},
    {"PREFIX-001", "prefix", FIA_RULE_REJECT, ORC_SEM, C_BOTH,
     "key_shared_prefix and value_shared_prefix are both given or neither",
     NULL, ORC_FN(pair)},
    {"PREFIX-002", "prefix", FIA_RULE_REJECT, ORC_SEM, C_BOTH,
     "key_shared_prefix, value_shared_prefix, key and value have one rank "
     "and one dtype",
     NULL, ORC_FN(rank_dtype)},
    {"PREFIX-003", "prefix", FIA_RULE_REJECT, ORC_SEM, C_BOTH,
     "the prefix tensors' batch (first dim) is 1", NULL, ORC_FN(batch1)},
    {"PREFIX-004", "prefix", FIA_RULE_REJECT, ORC_SEM, C_BOTH,
     "the prefix tensors' N and D (BSND, BNSD) or H (BSH) are the key's "
     "(value's)", NULL, ORC_FN(heads)},
    {"PREFIX-005", "prefix", FIA_RULE_REJECT, ORC_SEM, C_BOTH,
     "key_shared_prefix and value_shared_prefix have one S",
     NULL, ORC_FN(same_s)},
    {"PREFIX-006", "prefix", FIA_RULE_REJECT, ORC_SEM, C_BOTH,
     "actual_shared_prefix_len, when given, has shape [1] (one value)",
     NULL, ORC_FN(len_shape)},
    {"PREFIX-007", "prefix", FIA_RULE_REJECT, ORC_SEM,
     C_BOTH "; " C002_P("actualSharedPrefixLenOptional"),
     "actual_shared_prefix_len is at most the prefix tensors' S (and not "
     "negative)",
     "no document states the lower bound; a negative length has no "
     "meaning: we reject it (as SEQ-014)",
     ORC_FN(len_value)},
    {"PREFIX-008", "prefix", FIA_RULE_REJECT, ORC_SEM, C_BOTH,
     "the prefix's S plus the key's S stays within the key's S limit "
     "(20971520 at Q_S > 1, 262144 at Q_S = 1)",
     NULL, ORC_FN(s_sum)},
    {"PREFIX-009", "prefix", FIA_RULE_REJECT, ORC_SEM, C002_GT1 CPX,
     "Q_S > 1, sparse_mode 0 or 1 with an atten_mask: its last dim is at "
     "least actual_shared_prefix_len + the key's S",
     NULL, ORC_FN(mask_cols)},
    {"PREFIX-010", "prefix", FIA_RULE_REJECT, ORC_SEM,
     C002_GT1 " (pseShift功能使用限制)",
     "Q_S > 1 with pse_shift: its KV_S is at least actual_shared_prefix_len "
     "+ the key's S",
     NULL, ORC_FN(pse_cols)},
    {"NM-008", "prefix", FIA_RULE_NOT_MODELED, ORC_NM_LATE,
     C002_GT1 CPX,
     "not modeled, refused only when every documented rule accepts the "
     "call: actual_shared_prefix_len without prefix tensors, a prefix with "
     "a token layout, Q_S = 1 with a prefix and an atten_mask or a "
     "pse_shift narrower than the prefix length + key S",
     "000 calls these parameters reserved and not enabled yet; the length "
     "alone is undocumented; 003 has no prefix parameters; the decode mask "
     "and pse rules ask KV_S columns and no document says which the prefix "
     "reads (a pse of P + KV_S columns is read at the logical key, as at "
     "Q_S > 1)",
     ORC_FN(nm_prefix)},
};
const size_t orc_rules_prefix_count =
    sizeof orc_rules_prefix / sizeof orc_rules_prefix[0];
