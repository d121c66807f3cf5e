/* Rules: an int8 attention_out, the output quantization (后量化,
 * docs/features/int8_out.md): y = sat(round(x * quant_scale2 +
 * quant_offset2)).  quant_scale2 / quant_offset2 are per-tensor (one
 * element) or per-channel (the output's H = N * D elements).  These rules
 * need no arithmetic (ref/ and fast/ compute an int8 output of an
 * fp16/bf16 query and, after full quantization, of an int8 one).
 * Exclusions elsewhere: PAD-X04 (per-channel with left padding), ANTI-024
 * (int4 key/value), TND-X06. */
#include "oracle_internal.h"

#define C_Q8IO C002_CONSTR " (int8量化相关入参)"
#define C_OUT8_GT1 C002_GT1 " (输出为int8)"

static int out_int8(const fia_oracle_facts *f)
{
    return f->out_presence == FIA_PRESENT && f->out.dtype == FIA_DT_INT8;
}

static const fia_tensor *tens(const fia_oracle_facts *f, fia_slot s)
{
    return f->given[s] ? f->t[s] : NULL;
}

static int q_is(const fia_oracle_facts *f, fia_dtype dt)
{
    return f->given[FIA_SLOT_QUERY] && f->t[FIA_SLOT_QUERY]->dtype == dt;
}

static int scales1_given(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_DEQUANT_SCALE1] ||
           f->given[FIA_SLOT_QUANT_SCALE1] || f->given[FIA_SLOT_DEQUANT_SCALE2];
}

static int same_shape(const fia_tensor *a, const fia_tensor *b)
{
    if (a->ndim != b->ndim)
        return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i])
            return 0;
    return 1;
}

static int offset_unlike(const fia_oracle_facts *f)
{
    const fia_tensor *s = f->t[FIA_SLOT_QUANT_SCALE2];
    const fia_tensor *o = f->t[FIA_SLOT_QUANT_OFFSET2];
    return o->dtype != s->dtype || !same_shape(o, s);
}

/* per-tensor (1 element) or per-channel (N * D): anything else. */
static int qs2_count_bad(const fia_oracle_facts *f)
{
    const int64_t n = f->numel[FIA_SLOT_QUANT_SCALE2];
    return n != 1 && n != f->N * f->D;
}

static int per_channel(const fia_oracle_facts *f)
{
    const fia_tensor *s = tens(f, FIA_SLOT_QUANT_SCALE2);
    return s && f->numel[FIA_SLOT_QUANT_SCALE2] > 1;
}

/* 002's interception list: rows of some batch the sparse mode leaves
 * uncomputed, with a quant_offset2 they would still receive.  Lengths are
 * the batch's actual ones (or the S dims), P the prefix length; pre and
 * next as passed. */
static int rows_uncomputed(const fia_oracle_facts *f)
{
    const fia_case *c = f->c;
    const int64_t pre = c->attrs.pre_tokens, next = c->attrs.next_tokens;
    const int64_t P = f->prefix_len_ok ? f->prefix_len : 0;
    const int mode = (int)c->attrs.sparse_mode;
    if (mode == 4 && pre < 0)
        return 1;
    if (mode == 0 && f->mask_effective && next < 0)
        return 1;
    /* q - kv - P is small (lengths are checked before); pre and next are
     * int64 as passed: compared without adding them, so no sum overflows */
    for (int64_t b = 0; b < f->B; b++) {
        const int64_t q = orc_q_len(f, b), kv = orc_kv_len(f, b);
        const __int128 d = (__int128)q - kv - P; /* any int64 lengths */
        if (mode == 0 && f->mask_effective && d > pre)
            return 1;
        if (mode == 3 && d > 0)
            return 1;
        if (mode == 4 && next < d)
            return 1;
    }
    return 0;
}

/* The lengths rows_uncomputed reads are known. */
static int lengths_known(const fia_oracle_facts *f)
{
    if (!f->q_rank_ok || !f->k_rank_ok || f->B < 0 || f->B > 65536)
        return 0;
    if (f->seq_given && orc_used_count(f->seq_count, f->B) == 0)
        return 0;
    if (f->kv_seq_given && orc_used_count(f->kv_seq_count, f->B) == 0)
        return 0;
    return 1;
}

static int offset_effective(const fia_oracle_facts *f)
{
    return f->given[FIA_SLOT_QUANT_OFFSET2] &&
           f->numel[FIA_SLOT_QUANT_OFFSET2] != 0;
}

ORC_PRED(needs_qs2, out_int8(f), !f->given[FIA_SLOT_QUANT_SCALE2])
ORC_PRED(qs2_without_int8,
         f->given[FIA_SLOT_ATTENTION_OUT] && !out_int8(f),
         f->given[FIA_SLOT_QUANT_SCALE2] || f->given[FIA_SLOT_QUANT_OFFSET2])
ORC_PRED(fp_in_scales1, out_int8(f) && f->q_float, scales1_given(f))
ORC_PRED(offset_like,
         f->given[FIA_SLOT_QUANT_SCALE2] && f->given[FIA_SLOT_QUANT_OFFSET2],
         offset_unlike(f))
ORC_PRED(qs2_bf16, f->given[FIA_SLOT_QUANT_SCALE2] && f->given[FIA_SLOT_QUERY],
         f->t[FIA_SLOT_QUANT_SCALE2]->dtype == FIA_DT_BF16 &&
             !q_is(f, FIA_DT_BF16))
ORC_PRED(qs2_count,
         f->given[FIA_SLOT_QUANT_SCALE2] && f->q_d_ok && f->N > 0 &&
             f->numel[FIA_SLOT_QUANT_SCALE2] >= 0,
         qs2_count_bad(f))
ORC_PRED(pc_d32, out_int8(f) && orc_is_prefill(f) && per_channel(f) && f->q_d_ok,
         f->D % 32 != 0)
ORC_PRED(band_negative, out_int8(f) && orc_is_prefill(f) &&
                            f->c->attrs.sparse_mode == 4,
         f->c->attrs.pre_tokens < 0 || f->c->attrs.next_tokens < 0)
ORC_PRED(uncomputed,
         out_int8(f) && orc_is_prefill(f) && offset_effective(f) &&
             lengths_known(f),
         rows_uncomputed(f))
ORC_PRED(out8_d32, out_int8(f) && orc_is_prefill(f) && f->q_d_ok,
         f->D % 32 != 0)

const fia_rule orc_rules_int8_out[] = {
    {"OQ-001", "int8_out", FIA_RULE_REJECT, ORC_SEM,
     C_Q8IO "; " C003_CONSTR "; " C001_CONSTR,
     "an int8 attention_out needs quant_scale2", NULL, ORC_FN(needs_qs2)},
    {"OQ-002", "int8_out", FIA_RULE_REJECT, ORC_SEM,
     C_Q8IO "; " C001_CONSTR,
     "quant_scale2 and quant_offset2 only with an int8 attention_out",
     "002 says so for int8 input with fp16 output; for fp16/bf16 input 001 "
     "says the pair makes the output int8: fiacheck rejects it with any "
     "other output",
     ORC_FN(qs2_without_int8)},
    {"OQ-003", "int8_out", FIA_RULE_REJECT, ORC_SEM,
     C_Q8IO "; " C001_CONSTR,
     "fp16/bf16 input with an int8 attention_out takes no dequant_scale1, "
     "quant_scale1 or dequant_scale2",
     NULL, ORC_FN(fp_in_scales1)},
    {"OQ-004", "int8_out", FIA_RULE_REJECT, ORC_SEM,
     C_Q8IO "; " C003_P("quant_offset_out") "; " C000_KW("quant_offset2"),
     "quant_offset2 has quant_scale2's dtype and shape", NULL,
     ORC_FN(offset_like)},
    {"OQ-005", "int8_out", FIA_RULE_REJECT, ORC_SEM,
     C_Q8IO "; " C003_P("quant_scale_out"),
     "a bf16 quant_scale2 (and offset) only with a bf16 query; otherwise "
     "fp32",
     "000 lists fp16 instead of bf16 in its parameter line (TENS-023)",
     ORC_FN(qs2_bf16)},
    {"OQ-006", "int8_out", FIA_RULE_REJECT, ORC_SEM,
     C_Q8IO "; " C003_P("quant_scale_out"),
     "quant_scale2 is per-tensor (one element) or per-channel (the output's "
     "H = N x D elements, any shape of that product)",
     "the documents recommend shapes per layout ([1,1,H] or [H], [1,N,1,D] "
     "or [N,D], [1,1,N,D] or [N,D]) but require only the product",
     ORC_FN(qs2_count)},
    {"OQ-007", "int8_out", FIA_RULE_REJECT, ORC_SEM,
     C_OUT8_GT1 "; " C000_KW("quant_scale2") "; " C003_GT1,
     "Q_S > 1, per-channel quant_scale2: D is a multiple of 32 (32 bytes of "
     "int8)",
     "000 states it without a path; 002 and 003 under Q_S > 1, which "
     "fiacheck follows",
     ORC_FN(pc_d32)},
    {"OQ-008", "int8_out", FIA_RULE_REJECT, ORC_SEM,
     C_OUT8_GT1 "; " C000_KW("quant_scale2") "; " C003_GT1,
     "Q_S > 1, int8 attention_out: sparse_mode 4 (band) takes no negative "
     "pre_tokens or next_tokens",
     "000 states it without a path", ORC_FN(band_negative)},
    {"OQ-009", "int8_out", FIA_RULE_REJECT, ORC_SEM,
     C002_GT1 " (输出为INT8时，入参quantOffset2…拦截); " C000_KW("quant_scale2") "; "
         C003_GT1,
     "Q_S > 1, int8 attention_out with a non-empty quant_offset2: rejected "
     "when rows stay uncomputed — sparse 0 with a mask and some batch with "
     "q - kv - P - pre > 0, or next < 0; sparse 3 and some batch with kv + "
     "P - q < 0; sparse 4 and pre < 0 or some batch with next + kv + P - q < "
     "0 (q, kv actual lengths, P the prefix length)",
     "003 and 000 give the formulas without the prefix length P; 000 "
     "without a path",
     ORC_FN(uncomputed)},
    {"OQ-010", "int8_out", FIA_RULE_REJECT, ORC_SEM, C002_GT1 "; " C003_GT1,
     "Q_S > 1, int8 attention_out: D is a multiple of 32", NULL,
     ORC_FN(out8_d32)},
};
const size_t orc_rules_int8_out_count =
    sizeof orc_rules_int8_out / sizeof orc_rules_int8_out[0];
