/* oracle/facts: what the rules may know about a case, computed once.
 *
 * Reads only the case's descriptors (shapes, dtypes), attributes and host int
 * arrays.  Each derived dimension is guarded by a flag; when the layout or a
 * rank is wrong the dims stay unknown (-1) and the rules that need them do not
 * fire. */
#include <string.h>
#include "oracle_internal.h"

static const struct {
    const char *name;
    orc_layout layout;
} layout_names[] = {
    {"BSH", ORC_LAYOUT_BSH},
    {"BSND", ORC_LAYOUT_BSND},
    {"BNSD", ORC_LAYOUT_BNSD},
    {"BNSD_BSND", ORC_LAYOUT_BNSD_BSND},
    /* 003 §参数说明 > input_layout; NTD as listed by docs/semantics.md. */
    {"TND", ORC_LAYOUT_V2},
    {"TND_NTD", ORC_LAYOUT_V2},
    {"NTD_TND", ORC_LAYOUT_V2},
    {"NTD", ORC_LAYOUT_V2},
    {"BSH_NBSD", ORC_LAYOUT_V2},
    {"BSND_NBSD", ORC_LAYOUT_V2},
    {"BNSD_NBSD", ORC_LAYOUT_V2},
};

int orc_dtype_in(fia_dtype dt, const fia_dtype *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == dt)
            return 1;
    return 0;
}

int orc_slot_dtypes_in(const fia_oracle_facts *f, fia_slot s,
                       const fia_dtype *list, size_t n)
{
    if (!f->given[s])
        return 1;
    if (s == FIA_SLOT_ATTENTION_OUT)
        return orc_dtype_in(f->out.dtype, list, n);
    if (s == FIA_SLOT_SOFTMAX_LSE)
        return orc_dtype_in(f->lse.dtype, list, n);
    const fia_tensor_spec *sp = &f->c->tensors[s];
    for (int32_t i = 0; i < sp->count; i++)
        if (!orc_dtype_in(sp->t[i].dtype, list, n))
            return 0;
    return 1;
}

int64_t orc_used_count(int64_t count, int64_t B)
{
    if (count == 1)
        return 1;
    if (B >= 0 && count >= B && count > 0)
        return B;
    return 0;
}

static int64_t eff_len(int given, int64_t count, const int64_t *v, int64_t b,
                       int64_t B, int64_t dflt)
{
    if (!given || v == NULL)
        return dflt;
    if (count == 1)
        return v[0];
    if (count >= B && b >= 0 && b < count)
        return v[b];
    return dflt;
}

int64_t orc_q_len(const fia_oracle_facts *f, int64_t b)
{
    if (f->path == ORC_PATH_DECODE)
        return 1; /* ignored on the decode path */
    return eff_len(f->seq_given, f->seq_count, f->seq, b, f->B, f->Q_S);
}

int64_t orc_kv_len(const fia_oracle_facts *f, int64_t b)
{
    return eff_len(f->kv_seq_given, f->kv_seq_count, f->kv_seq, b, f->B,
                   f->KV_S);
}

int orc_is_prefill(const fia_oracle_facts *f)
{
    return f->path == ORC_PATH_PREFILL;
}

int orc_is_decode(const fia_oracle_facts *f)
{
    return f->path == ORC_PATH_DECODE;
}

static int is_float16ish(fia_dtype dt)
{
    return dt == FIA_DT_FP16 || dt == FIA_DT_BF16;
}

void orc_facts_compute(const fia_case *c, fia_oracle_facts *f)
{
    memset(f, 0, sizeof *f);
    f->c = c;
    for (int s = 0; s < FIA_SLOT_COUNT; s++) {
        f->numel[s] = -1;
        if (fia_slot_is_output((fia_slot)s))
            continue;
        const fia_tensor_spec *sp = &c->tensors[s];
        if (sp->presence == FIA_PRESENT && sp->count >= 1 && sp->t != NULL) {
            f->given[s] = 1;
            f->t[s] = &sp->t[0];
            f->count[s] = sp->count;
            f->numel[s] = fia_tensor_numel(&sp->t[0]);
        }
    }
    f->out_presence = fia_case_output(c, FIA_SLOT_ATTENTION_OUT, &f->out);
    if (f->out_presence == FIA_PRESENT) {
        f->given[FIA_SLOT_ATTENTION_OUT] = 1;
        f->t[FIA_SLOT_ATTENTION_OUT] = &f->out;
        f->count[FIA_SLOT_ATTENTION_OUT] = 1;
        f->numel[FIA_SLOT_ATTENTION_OUT] = fia_tensor_numel(&f->out);
    }
    f->lse_presence = fia_case_output(c, FIA_SLOT_SOFTMAX_LSE, &f->lse);
    if (f->lse_presence == FIA_PRESENT) {
        f->given[FIA_SLOT_SOFTMAX_LSE] = 1;
        f->t[FIA_SLOT_SOFTMAX_LSE] = &f->lse;
        f->count[FIA_SLOT_SOFTMAX_LSE] = 1;
        f->numel[FIA_SLOT_SOFTMAX_LSE] = fia_tensor_numel(&f->lse);
    }

    /* Attributes. */
    f->N = c->attrs.num_heads;
    f->KV_N = c->attrs.num_key_value_heads == 0 ? c->attrs.num_heads
                                                : c->attrs.num_key_value_heads;

    /* Layout. */
    f->layout = ORC_LAYOUT_INVALID;
    for (size_t i = 0; i < sizeof layout_names / sizeof layout_names[0]; i++)
        if (strcmp(c->attrs.input_layout, layout_names[i].name) == 0)
            f->layout = layout_names[i].layout;
    f->layout_modeled = f->layout <= ORC_LAYOUT_BNSD_BSND;
    f->q_rank_want = !f->layout_modeled ? 0
                     : f->layout == ORC_LAYOUT_BSH ? 3 : 4;

    f->B = f->Q_S = f->QN = f->D = f->H = -1;
    f->KB = f->KV_S = f->KN = f->KD = f->KH = -1;

    /* Query dims. */
    const fia_tensor *q = f->t[FIA_SLOT_QUERY];
    if (q && f->q_rank_want && q->ndim == f->q_rank_want) {
        f->q_rank_ok = 1;
        f->B = q->shape[0];
        switch (f->layout) {
        case ORC_LAYOUT_BSH:
            f->Q_S = q->shape[1];
            f->H = q->shape[2];
            if (f->N > 0 && f->H % f->N == 0) {
                f->D = f->H / f->N;
                f->q_d_ok = 1;
            }
            break;
        case ORC_LAYOUT_BSND:
            f->Q_S = q->shape[1];
            f->QN = q->shape[2];
            f->D = q->shape[3];
            f->q_d_ok = 1;
            break;
        default: /* BNSD, BNSD_BSND */
            f->QN = q->shape[1];
            f->Q_S = q->shape[2];
            f->D = q->shape[3];
            f->q_d_ok = 1;
            break;
        }
        f->path = f->Q_S == 1 ? ORC_PATH_DECODE : ORC_PATH_PREFILL;
    }

    /* Key dims (first tensor of the list). */
    const fia_tensor *k = f->t[FIA_SLOT_KEY];
    if (k && f->q_rank_want && k->ndim == f->q_rank_want) {
        f->k_rank_ok = 1;
        f->KB = k->shape[0];
        switch (f->layout) {
        case ORC_LAYOUT_BSH:
            f->KV_S = k->shape[1];
            f->KH = k->shape[2];
            if (f->KV_N > 0 && f->KH % f->KV_N == 0) {
                f->KD = f->KH / f->KV_N;
                f->k_d_ok = 1;
            }
            break;
        case ORC_LAYOUT_BSND:
            f->KV_S = k->shape[1];
            f->KN = k->shape[2];
            f->KD = k->shape[3];
            f->k_d_ok = 1;
            break;
        default:
            f->KN = k->shape[1];
            f->KV_S = k->shape[2];
            f->KD = k->shape[3];
            f->k_d_ok = 1;
            break;
        }
    }
    const fia_tensor *v = f->t[FIA_SLOT_VALUE];
    f->v_rank_ok = v && f->q_rank_want && v->ndim == f->q_rank_want;

    /* Empty query (002 约束说明 > 入参为空的处理; RELEASED Degenerate shapes). */
    f->query_empty = f->given[FIA_SLOT_QUERY] && f->numel[FIA_SLOT_QUERY] == 0;
    f->out_empty = f->given[FIA_SLOT_ATTENTION_OUT] &&
                   f->numel[FIA_SLOT_ATTENTION_OUT] == 0;
    f->short_circuit = f->query_empty && f->out_empty;

    f->mask_effective = f->given[FIA_SLOT_ATTEN_MASK] &&
                        f->numel[FIA_SLOT_ATTEN_MASK] != 0;

    f->q_float = q && is_float16ish(q->dtype);
    f->kv_float = f->given[FIA_SLOT_KEY] && f->given[FIA_SLOT_VALUE];
    for (int s = FIA_SLOT_KEY; s <= FIA_SLOT_VALUE && f->kv_float; s++) {
        const fia_tensor_spec *sp = &c->tensors[s];
        for (int32_t i = 0; i < sp->count; i++)
            if (!is_float16ish(sp->t[i].dtype))
                f->kv_float = 0;
    }

    const fia_int_array_spec *a = &c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS];
    f->seq_given = a->presence == FIA_PRESENT;
    f->seq_count = f->seq_given ? a->count : 0;
    f->seq = f->seq_given ? a->values : NULL;
    if (f->seq == NULL)
        f->seq_count = 0;
    a = &c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    f->kv_seq_given = a->presence == FIA_PRESENT;
    f->kv_seq_count = f->kv_seq_given ? a->count : 0;
    f->kv_seq = f->kv_seq_given ? a->values : NULL;
    if (f->kv_seq == NULL)
        f->kv_seq_count = 0;
}
