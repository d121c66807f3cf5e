/* ref/: reading the case as the reference does (docs/semantics.md): the
 * layout and the dims B, N, KV_N, Q_S, KV_S, D, the effective lengths, the
 * mask access and which keys take part in each row.  Shares no code with
 * fast/ or oracle/; uses core/ for plain data only. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ref_internal.h"

#define REF_TOKEN_CLAMP ((int64_t)1 << 40)
#define REF_DIM_LIMIT ((int64_t)1 << 40)

static fia_status fail(char *err, size_t errlen, fia_status st,
                       const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static fia_status fail(char *err, size_t errlen, fia_status st,
                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return st;
}

static int64_t clamp_tokens(int64_t v)
{
    if (v > REF_TOKEN_CLAMP)
        return REF_TOKEN_CLAMP;
    if (v < -REF_TOKEN_CLAMP)
        return -REF_TOKEN_CLAMP;
    return v;
}

/* A tensor slot the call passes with at least one element.  Empty (numel 0)
 * mask / pse are "absent" (RELEASED "Silent normalisations"). */
static const fia_tensor *slot_tensor(const fia_case_data *d, fia_slot s)
{
    return fia_case_data_tensor(d, s);
}

static int slot_given(const fia_case_data *d, fia_slot s)
{
    const fia_tensor *t = slot_tensor(d, s);
    if (!t)
        return 0;
    if (s == FIA_SLOT_PSE_SHIFT || s == FIA_SLOT_ATTEN_MASK)
        return fia_tensor_numel(t) != 0;
    return 1;
}

static int is_quant_dtype(fia_dtype dt)
{
    return dt == FIA_DT_INT8 || dt == FIA_DT_INT4 || dt == FIA_DT_UINT8;
}

static int is_half(fia_dtype dt)
{
    return dt == FIA_DT_FP16 || dt == FIA_DT_BF16;
}

/* Everything docs/semantics.md lists under "Not modeled yet". */
static fia_status check_not_modeled(const fia_case *c, const fia_case_data *d,
                                    char *err, size_t errlen)
{
    static const struct {
        fia_slot s;
        const char *what;
    } refused[] = {
        {FIA_SLOT_PSE_SHIFT, "pse_shift"},
        {FIA_SLOT_DEQUANT_SCALE1, "dequant_scale1 (quantization)"},
        {FIA_SLOT_QUANT_SCALE1, "quant_scale1 (quantization)"},
        {FIA_SLOT_DEQUANT_SCALE2, "dequant_scale2 (quantization)"},
        {FIA_SLOT_QUANT_SCALE2, "quant_scale2 (quantization)"},
        {FIA_SLOT_QUANT_OFFSET2, "quant_offset2 (quantization)"},
        {FIA_SLOT_ANTIQUANT_SCALE, "antiquant_scale (antiquant)"},
        {FIA_SLOT_ANTIQUANT_OFFSET, "antiquant_offset (antiquant)"},
        {FIA_SLOT_BLOCK_TABLE, "block_table (paged attention)"},
        {FIA_SLOT_QUERY_PADDING_SIZE, "query_padding_size"},
        {FIA_SLOT_KV_PADDING_SIZE, "kv_padding_size"},
        {FIA_SLOT_KEY_ANTIQUANT_SCALE, "key_antiquant_scale (antiquant)"},
        {FIA_SLOT_KEY_ANTIQUANT_OFFSET, "key_antiquant_offset (antiquant)"},
        {FIA_SLOT_VALUE_ANTIQUANT_SCALE, "value_antiquant_scale (antiquant)"},
        {FIA_SLOT_VALUE_ANTIQUANT_OFFSET, "value_antiquant_offset (antiquant)"},
        {FIA_SLOT_KEY_SHARED_PREFIX, "key_shared_prefix (shared prefix)"},
        {FIA_SLOT_VALUE_SHARED_PREFIX, "value_shared_prefix (shared prefix)"},
        {FIA_SLOT_QUERY_ROPE, "query_rope (MLA)"},
        {FIA_SLOT_KEY_ROPE, "key_rope (MLA)"},
        {FIA_SLOT_DEQUANT_SCALE_QUERY, "dequant_scale_query (quantization)"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (slot_given(d, refused[i].s))
            return fail(err, errlen, FIA_ERR_NOT_MODELED,
                        "not modeled yet: %s", refused[i].what);
    if (d->arr_present[FIA_ARR_ACTUAL_SHARED_PREFIX_LEN])
        return fail(err, errlen, FIA_ERR_NOT_MODELED,
                    "not modeled yet: actual_shared_prefix_len (shared prefix)");
    if (c->attrs.query_quant_mode != 0)
        return fail(err, errlen, FIA_ERR_NOT_MODELED,
                    "not modeled yet: query_quant_mode %lld",
                    (long long)c->attrs.query_quant_mode);
    if (d->n[FIA_SLOT_KEY] > 1 || d->n[FIA_SLOT_VALUE] > 1)
        return fail(err, errlen, FIA_ERR_NOT_MODELED,
                    "not modeled yet: key/value tensor lists with more than "
                    "one tensor (%d / %d)", (int)d->n[FIA_SLOT_KEY],
                    (int)d->n[FIA_SLOT_VALUE]);
    static const fia_slot qkv[] = {FIA_SLOT_QUERY, FIA_SLOT_KEY,
                                   FIA_SLOT_VALUE};
    for (size_t i = 0; i < 3; i++) {
        const fia_tensor *t = slot_tensor(d, qkv[i]);
        if (t && is_quant_dtype(t->dtype))
            return fail(err, errlen, FIA_ERR_NOT_MODELED,
                        "not modeled yet: %s %s (quantization)",
                        fia_dtype_name(t->dtype), fia_slot_name(qkv[i]));
    }
    static const char *const later[] = {"TND", "NTD_TND", "TND_NTD", "NTD",
                                        "BSH_NBSD", "BSND_NBSD", "BNSD_NBSD"};
    for (size_t i = 0; i < sizeof later / sizeof later[0]; i++)
        if (strcmp(c->attrs.input_layout, later[i]) == 0)
            return fail(err, errlen, FIA_ERR_NOT_MODELED,
                        "not modeled yet: layout %s", later[i]);
    return FIA_OK;
}

static int parse_layout(const char *s, ref_layout *out)
{
    static const struct {
        const char *name;
        ref_layout l;
    } tab[] = {{"BSH", REF_LAYOUT_BSH},
               {"BSND", REF_LAYOUT_BSND},
               {"BNSD", REF_LAYOUT_BNSD},
               {"BNSD_BSND", REF_LAYOUT_BNSD_BSND}};
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(s, tab[i].name) == 0) {
            *out = tab[i].l;
            return 0;
        }
    return -1;
}

static int shape_is(const fia_tensor *t, int nd, const int64_t *dims)
{
    if (t->ndim != nd)
        return 0;
    for (int i = 0; i < nd; i++)
        if (t->shape[i] != dims[i])
            return 0;
    return 1;
}

/* Dims of query and key/value per layout.  Returns FIA_OK or PARAM_INVALID. */
static fia_status read_dims(ref_problem *p, char *err, size_t errlen)
{
    const fia_tensor *q = p->q, *k = p->k;
    int want = p->layout == REF_LAYOUT_BSH ? 3 : 4;
    if (q->ndim != want || k->ndim != want)
        return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                    "layout needs rank-%d query and key (got %d and %d)", want,
                    (int)q->ndim, (int)k->ndim);
    if (fia_tensor_numel(q) < 0 || fia_tensor_numel(k) < 0)
        return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                    "negative dim or element count overflow");
    /* every dim below 2^40 keeps all index arithmetic far from overflow */
    for (int i = 0; i < want; i++)
        if (q->shape[i] >= REF_DIM_LIMIT || k->shape[i] >= REF_DIM_LIMIT)
            return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                        "dim beyond 2^40");
    if (!shape_is(p->v, k->ndim, k->shape))
        return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                    "value shape differs from key shape");
    p->B = q->shape[0];
    if (k->shape[0] != p->B)
        return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                    "key batch %lld != query batch %lld",
                    (long long)k->shape[0], (long long)p->B);
    int64_t kd;
    switch (p->layout) {
    case REF_LAYOUT_BSH:
        p->Q_S = q->shape[1];
        p->KV_S = k->shape[1];
        if (q->shape[2] % p->N != 0 || k->shape[2] % p->KV_N != 0)
            return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                        "BSH: H %lld / H_kv %lld not divisible by N %lld / "
                        "KV_N %lld", (long long)q->shape[2],
                        (long long)k->shape[2], (long long)p->N,
                        (long long)p->KV_N);
        p->D = q->shape[2] / p->N;
        kd = k->shape[2] / p->KV_N;
        break;
    case REF_LAYOUT_BSND:
        p->Q_S = q->shape[1];
        p->KV_S = k->shape[1];
        if (q->shape[2] != p->N || k->shape[2] != p->KV_N)
            return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                        "BSND: head dims %lld / %lld != N %lld / KV_N %lld",
                        (long long)q->shape[2], (long long)k->shape[2],
                        (long long)p->N, (long long)p->KV_N);
        p->D = q->shape[3];
        kd = k->shape[3];
        break;
    default: /* BNSD, BNSD_BSND */
        p->Q_S = q->shape[2];
        p->KV_S = k->shape[2];
        if (q->shape[1] != p->N || k->shape[1] != p->KV_N)
            return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                        "BNSD: head dims %lld / %lld != N %lld / KV_N %lld",
                        (long long)q->shape[1], (long long)k->shape[1],
                        (long long)p->N, (long long)p->KV_N);
        p->D = q->shape[3];
        kd = k->shape[3];
        break;
    }
    if (fia_tensor_numel(q) > 0 && kd != p->D)
        return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                    "key head dim %lld != query head dim %lld", (long long)kd,
                    (long long)p->D);
    return FIA_OK;
}

static fia_status check_out(ref_problem *p, char *err, size_t errlen)
{
    int64_t dims[4];
    int nd;
    if (p->layout == REF_LAYOUT_BSH) {
        nd = 3;
        dims[0] = p->B, dims[1] = p->Q_S, dims[2] = p->q->shape[2];
    } else if (p->layout == REF_LAYOUT_BNSD) {
        nd = 4;
        dims[0] = p->B, dims[1] = p->N, dims[2] = p->Q_S, dims[3] = p->D;
    } else { /* BSND, BNSD_BSND */
        nd = 4;
        dims[0] = p->B, dims[1] = p->Q_S, dims[2] = p->N, dims[3] = p->D;
    }
    if (p->empty_query) {
        if (fia_tensor_numel(p->out_t) != 0)
            return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                        "query is empty but attention_out is not");
        return FIA_OK;
    }
    if (!shape_is(p->out_t, nd, dims))
        return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                    "attention_out shape does not match the query's for the "
                    "layout");
    return FIA_OK;
}

/* q_len / kv_len from an actual_seq_lengths array (or the full S). */
static fia_status read_lengths(const fia_case_data *d, fia_array a,
                               int64_t B, int64_t S, int64_t *len,
                               const char *what, char *err, size_t errlen)
{
    if (!d->arr_present[a]) {
        for (int64_t b = 0; b < B; b++)
            len[b] = S;
        return FIA_OK;
    }
    const fia_int_array *ar = &d->arr[a];
    if (ar->count <= 0 || (ar->count != 1 && ar->count < B))
        return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                    "%s has %lld values for batch %lld", what,
                    (long long)ar->count, (long long)B);
    for (int64_t b = 0; b < B; b++) {
        int64_t v = ar->values[ar->count == 1 ? 0 : b];
        if (v < 0 || v > S)
            return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                        "%s[%lld] = %lld outside [0, %lld]", what,
                        (long long)b, (long long)v, (long long)S);
        len[b] = v;
    }
    return FIA_OK;
}

/* Mask geometry (semantics.md "Mask indexing"). */
static fia_status read_mask(ref_problem *p, const fia_case_data *d, char *err,
                            size_t errlen)
{
    p->mask = NULL;
    if (!slot_given(d, FIA_SLOT_ATTEN_MASK))
        return FIA_OK;
    /* Q_S > 1: only modes 0 and 1 read the mask bits; 2-4 use the geometry
     * the compressed mask encodes.  Q_S = 1: the mode is forced to 0. */
    if (!p->decode && p->sparse_mode != 0 && p->sparse_mode != 1)
        return FIA_OK;
    const fia_tensor *m = slot_tensor(d, FIA_SLOT_ATTEN_MASK);
    if (!m->data)
        return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                    "atten_mask has no data");
    int nd = m->ndim;
    if (nd < 2 || nd > 4)
        return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                    "atten_mask rank %d (expected 2..4)", nd);
    int64_t cols = m->shape[nd - 1];
    int64_t numel = fia_tensor_numel(m);
    int64_t bdim;
    if (p->decode) {
        /* (B,KV_S), (B,1,KV_S), (B,1,1,KV_S): dim 0 is the batch, row 0 */
        bdim = m->shape[0];
        if (cols < p->KV_S)
            return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                        "atten_mask has %lld columns < KV_S %lld",
                        (long long)cols, (long long)p->KV_S);
    } else {
        int64_t rows = m->shape[nd - 2];
        if (rows < p->Q_S || cols < p->KV_S)
            return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                        "atten_mask last dims (%lld, %lld) smaller than "
                        "(Q_S, KV_S) = (%lld, %lld)", (long long)rows,
                        (long long)cols, (long long)p->Q_S,
                        (long long)p->KV_S);
        bdim = nd == 2 ? 1 : m->shape[0];
    }
    if (bdim == 1 || (!p->decode && nd == 2))
        p->mask_bstride = 0;
    else if (bdim == p->B)
        p->mask_bstride = numel / bdim;
    else
        return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                    "atten_mask batch dim %lld is neither 1 nor B %lld",
                    (long long)bdim, (long long)p->B);
    p->mask_cols = cols;
    p->mask = m;
    return FIA_OK;
}

fia_status ref_problem_init(ref_problem *p, const fia_case *c,
                           const fia_case_data *d, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (!c || !d)
        return fail(err, errlen, FIA_ERR_PARAM_INVALID, "no case or data");
    p->q = slot_tensor(d, FIA_SLOT_QUERY);
    p->k = slot_tensor(d, FIA_SLOT_KEY);
    p->v = slot_tensor(d, FIA_SLOT_VALUE);
    p->out_t = slot_tensor(d, FIA_SLOT_ATTENTION_OUT);
    if (!p->q || !p->k || !p->v || !p->out_t)
        return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                    "query, key, value and attention_out are required");
    fia_status st = check_not_modeled(c, d, err, errlen);
    if (st != FIA_OK)
        return st;
    /* 002 约束说明 入参为空的处理: an empty query returns at once, whatever
     * the layout or the other shapes; nothing is written, so there is
     * nothing to compute (RELEASED "Degenerate shapes"). */
    if (fia_tensor_numel(p->q) == 0) {
        if (fia_tensor_numel(p->out_t) != 0)
            return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                        "query is empty but attention_out is not");
        p->empty_query = 1;
        p->out_dtype = p->out_t->dtype;
        return FIA_OK;
    }
    if (parse_layout(c->attrs.input_layout, &p->layout) != 0)
        return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                    "unknown input_layout '%s'", c->attrs.input_layout);
    static const fia_slot qkv[] = {FIA_SLOT_QUERY, FIA_SLOT_KEY,
                                   FIA_SLOT_VALUE};
    for (size_t i = 0; i < 3; i++) {
        const fia_tensor *t = slot_tensor(d, qkv[i]);
        if (!is_half(t->dtype))
            return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                        "%s dtype %s (expected fp16 or bf16)",
                        fia_slot_name(qkv[i]), fia_dtype_name(t->dtype));
    }
    if (!is_half(p->out_t->dtype))
        return fail(err, errlen, FIA_ERR_NOT_MODELED,
                    "not modeled yet: attention_out dtype %s (only fp16/bf16)",
                    fia_dtype_name(p->out_t->dtype));
    p->out_dtype = p->out_t->dtype;
    p->N = c->attrs.num_heads;
    p->KV_N = c->attrs.num_key_value_heads == 0 ? p->N
                                                 : c->attrs.num_key_value_heads;
    if (p->N <= 0 || p->KV_N <= 0 || p->N % p->KV_N != 0)
        return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                    "num_heads %lld / num_key_value_heads %lld: need N > 0 "
                    "and N a multiple of KV_N", (long long)c->attrs.num_heads,
                    (long long)c->attrs.num_key_value_heads);
    p->group = p->N / p->KV_N;
    st = read_dims(p, err, errlen);
    if (st != FIA_OK)
        return st;
    p->empty_query = fia_tensor_numel(p->q) == 0;
    st = check_out(p, err, errlen);
    if (st != FIA_OK)
        return st;

    p->scale = c->attrs.scale;
    p->decode = p->Q_S == 1;
    p->sparse_mode = c->attrs.sparse_mode;
    if (!p->decode && (p->sparse_mode < 0 || p->sparse_mode > 4))
        return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                    "sparse_mode %lld (expected 0..4)",
                    (long long)p->sparse_mode);
    if (c->attrs.inner_precise < 0 || c->attrs.inner_precise > 3)
        return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                    "inner_precise %lld (expected 0..3)",
                    (long long)c->attrs.inner_precise);
    p->row_invalid = (c->attrs.inner_precise & 2) != 0;
    /* 002 innerPrecise: bf16 has no high-precision mode; RELEASED "Numeric
     * pipeline": P is rounded to the input dtype before P.V. */
    p->in_dtype = p->q->dtype;
    p->round_p = p->in_dtype == FIA_DT_BF16 || (c->attrs.inner_precise & 1);
    p->pre = clamp_tokens(c->attrs.pre_tokens);
    p->next = clamp_tokens(c->attrs.next_tokens);

    /* softmax_lse: fp32, [B, N, Q_S, 1] (or the case's own descriptor when it
     * has the same number of elements). */
    p->has_lse = c->attrs.softmax_lse_flag;
    if (p->has_lse) {
        const fia_tensor *l = slot_tensor(d, FIA_SLOT_SOFTMAX_LSE);
        int64_t want;
        if (__builtin_mul_overflow(p->B, p->N, &want) ||
            __builtin_mul_overflow(want, p->Q_S, &want))
            return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                        "softmax_lse size overflows");
        /* value, exact double and flag per element */
        if (want > FIA_MATERIALIZE_LIMIT / 13)
            return fail(err, errlen, FIA_ERR_NOMEM,
                        "softmax_lse of %lld elements is beyond the "
                        "reference's memory limit", (long long)want);
        if (l) {
            if (l->dtype != FIA_DT_FP32 || fia_tensor_numel(l) != want)
                return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                            "softmax_lse must be fp32 with B*N*Q_S elements");
            p->lse_ndim = l->ndim;
            memcpy(p->lse_shape, l->shape, sizeof p->lse_shape);
        } else {
            p->lse_ndim = 4;
            p->lse_shape[0] = p->B, p->lse_shape[1] = p->N;
            p->lse_shape[2] = p->Q_S, p->lse_shape[3] = 1;
        }
    }
    if (p->empty_query)
        return FIA_OK;

    if (!p->q->data || (fia_tensor_numel(p->k) > 0 && (!p->k->data ||
                                                       !p->v->data)))
        return fail(err, errlen, FIA_ERR_PARAM_INVALID,
                    "tensors have no data (status-only materialization)");
    /* B, Q_S, KV_S are bounded by the materialized sizes; allocate lengths */
    p->q_len = malloc((size_t)p->B * sizeof *p->q_len);
    p->kv_len = malloc((size_t)p->B * sizeof *p->kv_len);
    if (!p->q_len || !p->kv_len) {
        ref_problem_free(p);
        return fail(err, errlen, FIA_ERR_NOMEM, "out of memory");
    }
    if (p->decode) {
        for (int64_t b = 0; b < p->B; b++)
            p->q_len[b] = 1; /* actual_seq_lengths ignored */
    } else {
        st = read_lengths(d, FIA_ARR_ACTUAL_SEQ_LENGTHS, p->B, p->Q_S,
                          p->q_len, "actual_seq_lengths", err, errlen);
        if (st != FIA_OK) {
            ref_problem_free(p);
            return st;
        }
    }
    st = read_lengths(d, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, p->B, p->KV_S,
                      p->kv_len, "actual_seq_lengths_kv", err, errlen);
    if (st == FIA_OK)
        st = read_mask(p, d, err, errlen);
    if (st != FIA_OK)
        ref_problem_free(p);
    return st;
}

void ref_problem_free(ref_problem *p)
{
    free(p->q_len);
    free(p->kv_len);
    p->q_len = p->kv_len = NULL;
}

int64_t ref_q_index(const ref_problem *p, int64_t b, int64_t n, int64_t i,
                    int64_t dd)
{
    if (p->layout == REF_LAYOUT_BSH || p->layout == REF_LAYOUT_BSND)
        return ((b * p->Q_S + i) * p->N + n) * p->D + dd;
    return ((b * p->N + n) * p->Q_S + i) * p->D + dd;
}

int64_t ref_kv_index(const ref_problem *p, int64_t b, int64_t kn, int64_t j,
                     int64_t dd)
{
    if (p->layout == REF_LAYOUT_BSH || p->layout == REF_LAYOUT_BSND)
        return ((b * p->KV_S + j) * p->KV_N + kn) * p->D + dd;
    return ((b * p->KV_N + kn) * p->KV_S + j) * p->D + dd;
}

int64_t ref_out_index(const ref_problem *p, int64_t b, int64_t n, int64_t i,
                      int64_t dd)
{
    if (p->layout == REF_LAYOUT_BNSD)
        return ((b * p->N + n) * p->Q_S + i) * p->D + dd;
    return ((b * p->Q_S + i) * p->N + n) * p->D + dd;
}

int64_t ref_lse_index(const ref_problem *p, int64_t b, int64_t n, int64_t i)
{
    return (b * p->N + n) * p->Q_S + i;
}

static int mask_excludes(const ref_problem *p, int64_t b, int64_t i, int64_t j)
{
    if (!p->mask)
        return 0;
    int64_t row = p->decode ? 0 : i;
    int64_t idx = b * p->mask_bstride + row * p->mask_cols + j;
    return fia_load_as_double(p->mask->dtype, p->mask->data, idx) != 0.0;
}

int ref_key_takes_part(const ref_problem *p, int64_t b, int64_t i, int64_t j)
{
    if (j >= p->kv_len[b])
        return 0;
    if (p->decode) /* mode forced to 0, tokens INT_MAX: the mask only */
        return !mask_excludes(p, b, i, j);
    /* |i|, |j|, |off| < 2^40 (tensor sizes), |pre|, |next| <= 2^40: no
     * int64 overflow below. */
    int64_t off = p->kv_len[b] - p->q_len[b];
    switch (p->sparse_mode) {
    case 0:
        if (!p->mask)
            return 1;
        return !mask_excludes(p, b, i, j) && i - p->pre <= j &&
               j <= i + p->next;
    case 1:
        return !mask_excludes(p, b, i, j);
    case 2:
        return j <= i;
    case 3:
        return j <= i + off;
    case 4:
        return i + off - p->pre <= j && j <= i + off + p->next;
    default:
        return 0;
    }
}

int ref_row_corrected(const ref_problem *p, int64_t b)
{
    if (p->row_invalid)
        return 1;
    return !p->decode && p->sparse_mode == 3 && p->q_len[b] > p->kv_len[b];
}
