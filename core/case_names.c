/* Case model: names, attribute table, init / free / copy. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "case_internal.h"

static const char *const slot_names[FIA_SLOT_COUNT] = {
    [FIA_SLOT_QUERY] = "query",
    [FIA_SLOT_KEY] = "key",
    [FIA_SLOT_VALUE] = "value",
    [FIA_SLOT_PSE_SHIFT] = "pse_shift",
    [FIA_SLOT_ATTEN_MASK] = "atten_mask",
    [FIA_SLOT_DEQUANT_SCALE1] = "dequant_scale1",
    [FIA_SLOT_QUANT_SCALE1] = "quant_scale1",
    [FIA_SLOT_DEQUANT_SCALE2] = "dequant_scale2",
    [FIA_SLOT_QUANT_SCALE2] = "quant_scale2",
    [FIA_SLOT_QUANT_OFFSET2] = "quant_offset2",
    [FIA_SLOT_ANTIQUANT_SCALE] = "antiquant_scale",
    [FIA_SLOT_ANTIQUANT_OFFSET] = "antiquant_offset",
    [FIA_SLOT_BLOCK_TABLE] = "block_table",
    [FIA_SLOT_QUERY_PADDING_SIZE] = "query_padding_size",
    [FIA_SLOT_KV_PADDING_SIZE] = "kv_padding_size",
    [FIA_SLOT_KEY_ANTIQUANT_SCALE] = "key_antiquant_scale",
    [FIA_SLOT_KEY_ANTIQUANT_OFFSET] = "key_antiquant_offset",
    [FIA_SLOT_VALUE_ANTIQUANT_SCALE] = "value_antiquant_scale",
    [FIA_SLOT_VALUE_ANTIQUANT_OFFSET] = "value_antiquant_offset",
    [FIA_SLOT_KEY_SHARED_PREFIX] = "key_shared_prefix",
    [FIA_SLOT_VALUE_SHARED_PREFIX] = "value_shared_prefix",
    [FIA_SLOT_QUERY_ROPE] = "query_rope",
    [FIA_SLOT_KEY_ROPE] = "key_rope",
    [FIA_SLOT_DEQUANT_SCALE_QUERY] = "dequant_scale_query",
    [FIA_SLOT_LEARNABLE_SINK] = "learnable_sink",
    [FIA_SLOT_ATTENTION_OUT] = "attention_out",
    [FIA_SLOT_SOFTMAX_LSE] = "softmax_lse",
};

#define FIA_INTENT_NAME_(id, name) name,
static const char *const intent_names[FIA_INTENT_COUNT] = {
    FIA_INTENT_LIST(FIA_INTENT_NAME_)
};
_Static_assert(FIA_INTENT_COUNT <= 32, "fia_case.intents is a 32-bit set");

static const char *const kernel_level_names[FIA_KL_COUNT] = {
    "default", "scalar", "avx2", "avx512"};

const char *fia_kernel_level_name(fia_kernel_level k)
{
    return (int)k >= 0 && k < FIA_KL_COUNT ? kernel_level_names[k] : "?";
}

int fia_kernel_level_from_name(const char *name)
{
    for (int i = FIA_KL_SCALAR; name != NULL && i < FIA_KL_COUNT; i++)
        if (strcmp(name, kernel_level_names[i]) == 0)
            return i;
    return -1;
}

const char *fia_intent_name(fia_intent i)
{
    return (int)i >= 0 && i < FIA_INTENT_COUNT ? intent_names[i] : "?";
}

int fia_intent_from_name(const char *name)
{
    for (int i = 0; i < FIA_INTENT_COUNT; i++)
        if (strcmp(name, intent_names[i]) == 0)
            return i;
    return -1;
}

static const char *const array_names[FIA_ARR_COUNT] = {
    [FIA_ARR_ACTUAL_SEQ_LENGTHS] = "actual_seq_lengths",
    [FIA_ARR_ACTUAL_SEQ_LENGTHS_KV] = "actual_seq_lengths_kv",
    [FIA_ARR_ACTUAL_SHARED_PREFIX_LEN] = "actual_shared_prefix_len",
};

static const struct {
    const char *name;
    fia_attr_kind kind;
    size_t offset;            /* into fia_attrs */
} attr_table[FIA_ATTR_COUNT] = {
    [FIA_ATTR_NUM_HEADS] = {"num_heads", FIA_AK_INT,
                            offsetof(fia_attrs, num_heads)},
    [FIA_ATTR_SCALE] = {"scale", FIA_AK_DOUBLE, offsetof(fia_attrs, scale)},
    [FIA_ATTR_PRE_TOKENS] = {"pre_tokens", FIA_AK_INT,
                             offsetof(fia_attrs, pre_tokens)},
    [FIA_ATTR_NEXT_TOKENS] = {"next_tokens", FIA_AK_INT,
                              offsetof(fia_attrs, next_tokens)},
    [FIA_ATTR_INPUT_LAYOUT] = {"input_layout", FIA_AK_LAYOUT,
                               offsetof(fia_attrs, input_layout)},
    [FIA_ATTR_NUM_KEY_VALUE_HEADS] = {"num_key_value_heads", FIA_AK_INT,
                                      offsetof(fia_attrs, num_key_value_heads)},
    [FIA_ATTR_SPARSE_MODE] = {"sparse_mode", FIA_AK_INT,
                              offsetof(fia_attrs, sparse_mode)},
    [FIA_ATTR_INNER_PRECISE] = {"inner_precise", FIA_AK_INT,
                                offsetof(fia_attrs, inner_precise)},
    [FIA_ATTR_BLOCK_SIZE] = {"block_size", FIA_AK_INT,
                             offsetof(fia_attrs, block_size)},
    [FIA_ATTR_ANTIQUANT_MODE] = {"antiquant_mode", FIA_AK_INT,
                                 offsetof(fia_attrs, antiquant_mode)},
    [FIA_ATTR_SOFTMAX_LSE_FLAG] = {"softmax_lse_flag", FIA_AK_BOOL,
                                   offsetof(fia_attrs, softmax_lse_flag)},
    [FIA_ATTR_KEY_ANTIQUANT_MODE] = {"key_antiquant_mode", FIA_AK_INT,
                                     offsetof(fia_attrs, key_antiquant_mode)},
    [FIA_ATTR_VALUE_ANTIQUANT_MODE] = {"value_antiquant_mode", FIA_AK_INT,
                                       offsetof(fia_attrs,
                                                value_antiquant_mode)},
    [FIA_ATTR_QUERY_QUANT_MODE] = {"query_quant_mode", FIA_AK_INT,
                                   offsetof(fia_attrs, query_quant_mode)},
    [FIA_ATTR_OUT_DTYPE] = {"out_dtype", FIA_AK_INT,
                            offsetof(fia_attrs, out_dtype)},
};

const char *fia_slot_name(fia_slot s)
{
    if ((int)s < 0 || s >= FIA_SLOT_COUNT)
        return "?";
    return slot_names[s];
}

int fia_slot_from_name(const char *name)
{
    if (!name)
        return -1;
    for (int s = 0; s < FIA_SLOT_COUNT; s++)
        if (strcmp(name, slot_names[s]) == 0)
            return s;
    return -1;
}

int fia_slot_is_list(fia_slot s)
{
    return s == FIA_SLOT_KEY || s == FIA_SLOT_VALUE;
}

int fia_slot_is_output(fia_slot s)
{
    return s == FIA_SLOT_ATTENTION_OUT || s == FIA_SLOT_SOFTMAX_LSE;
}

const char *fia_array_name(fia_array a)
{
    if ((int)a < 0 || a >= FIA_ARR_COUNT)
        return "?";
    return array_names[a];
}

int fia_array_from_name(const char *name)
{
    if (!name)
        return -1;
    for (int a = 0; a < FIA_ARR_COUNT; a++)
        if (strcmp(name, array_names[a]) == 0)
            return a;
    return -1;
}

const char *fia_attr_name(fia_attr a)
{
    if ((int)a < 0 || a >= FIA_ATTR_COUNT)
        return "?";
    return attr_table[a].name;
}

int fia_attr_from_name(const char *name)
{
    if (!name)
        return -1;
    for (int a = 0; a < FIA_ATTR_COUNT; a++)
        if (strcmp(name, attr_table[a].name) == 0)
            return a;
    return -1;
}

fia_attr_kind fia__attr_kind(fia_attr a)
{
    return attr_table[a].kind;
}

int64_t *fia__attr_int(fia_attrs *at, fia_attr a)
{
    if (attr_table[a].kind != FIA_AK_INT)
        return NULL;
    return (int64_t *)(void *)((char *)at + attr_table[a].offset);
}

const int64_t *fia__attr_cint(const fia_attrs *at, fia_attr a)
{
    if (attr_table[a].kind != FIA_AK_INT)
        return NULL;
    return (const int64_t *)(const void *)((const char *)at +
                                           attr_table[a].offset);
}

int fia__double_same(double x, double y)
{
    if (isnan(x) || isnan(y))
        return isnan(x) && isnan(y);
    return memcmp(&x, &y, sizeof x) == 0;   /* distinguishes -0 from +0 */
}

int fia__attr_equal(const fia_attrs *x, const fia_attrs *y, fia_attr a)
{
    switch (attr_table[a].kind) {
    case FIA_AK_INT:
        return *fia__attr_cint(x, a) == *fia__attr_cint(y, a);
    case FIA_AK_DOUBLE:
        return fia__double_same(x->scale, y->scale);
    case FIA_AK_BOOL:
        return x->softmax_lse_flag == y->softmax_lse_flag;
    case FIA_AK_LAYOUT:
        return strncmp(x->input_layout, y->input_layout, FIA_LAYOUT_MAX) == 0;
    }
    return 0;
}

int fia__attr_differs_from_default(const fia_attrs *at, fia_attr a,
                                   fia_api api)
{
    fia_attrs def;
    fia_api_attrs_default(api, &def);
    return !fia__attr_equal(at, &def, a);
}

int fia__gen_arity(fia_gen_kind k)
{
    switch (k) {
    case FIA_GEN_NORMAL:
    case FIA_GEN_UNIFORM:
        return 2;
    case FIA_GEN_RANDOM:
    case FIA_GEN_CONST:
        return 1;
    default:
        return 0;
    }
}

const char *fia__gen_name(fia_gen_kind k)
{
    switch (k) {
    case FIA_GEN_DEFAULT: return "default";
    case FIA_GEN_NORMAL: return "normal";
    case FIA_GEN_UNIFORM: return "uniform";
    case FIA_GEN_RANDOM: return "random";
    case FIA_GEN_CAUSAL: return "causal";
    case FIA_GEN_CONST: return "const";
    case FIA_GEN_VALUES: return NULL;
    case FIA_GEN_BLOCKS: return "blocks";
    }
    return NULL;
}

int64_t fia__spec_numel(const fia_tensor_spec *s)
{
    int64_t total = 0;
    if (!s->t)
        return 0;
    for (int32_t i = 0; i < s->count; i++) {
        int64_t n = fia_tensor_numel(&s->t[i]);
        if (n < 0 || total > INT64_MAX - n)
            return -1;
        total += n;
    }
    return total;
}

void fia__gen_free(fia_gen *g)
{
    free(g->values);
    memset(g, 0, sizeof *g);
}

void fia__spec_free(fia_tensor_spec *s)
{
    free(s->t);
    fia__gen_free(&s->gen);
    memset(s, 0, sizeof *s);
}

void fia__array_free(fia_int_array_spec *a)
{
    free(a->values);
    memset(a, 0, sizeof *a);
}

void fia_case_init(fia_case *c)
{
    memset(c, 0, sizeof *c);   /* api: FIA_API_ACLNN_V2 */
    fia_api_attrs_default(FIA_API_ACLNN_V2, &c->attrs);
}

void fia_case_free(fia_case *c)
{
    if (!c)
        return;
    for (int s = 0; s < FIA_SLOT_COUNT; s++)
        fia__spec_free(&c->tensors[s]);
    for (int a = 0; a < FIA_ARR_COUNT; a++)
        fia__array_free(&c->arrays[a]);
    fia_case_init(c);
}

static void *dup_mem(const void *p, size_t n)
{
    if (!p || n == 0)
        return NULL;
    void *q = malloc(n);
    if (q)
        memcpy(q, p, n);
    return q;
}

fia_status fia_case_copy(fia_case *dst, const fia_case *src)
{
    if (!dst || !src)
        return FIA_ERR_NOMEM;
    if (dst == src)
        return FIA_OK;
    fia_case tmp = *src;   /* shallow; owned pointers replaced below */
    for (int s = 0; s < FIA_SLOT_COUNT; s++) {
        tmp.tensors[s].t = NULL;
        tmp.tensors[s].gen.values = NULL;
    }
    for (int a = 0; a < FIA_ARR_COUNT; a++)
        tmp.arrays[a].values = NULL;

    for (int s = 0; s < FIA_SLOT_COUNT; s++) {
        const fia_tensor_spec *ss = &src->tensors[s];
        fia_tensor_spec *ds = &tmp.tensors[s];
        if (ss->t && ss->count > 0) {
            ds->t = dup_mem(ss->t, (size_t)ss->count * sizeof *ss->t);
            if (!ds->t)
                goto nomem;
            for (int32_t i = 0; i < ss->count; i++)
                ds->t[i].data = NULL;
        }
        if (ss->gen.values && ss->gen.n_values > 0) {
            ds->gen.values = dup_mem(ss->gen.values,
                                     (size_t)ss->gen.n_values * sizeof(double));
            if (!ds->gen.values)
                goto nomem;
        }
    }
    for (int a = 0; a < FIA_ARR_COUNT; a++) {
        const fia_int_array_spec *sa = &src->arrays[a];
        if (sa->values && sa->count > 0) {
            tmp.arrays[a].values = dup_mem(sa->values,
                                           (size_t)sa->count * sizeof(int64_t));
            if (!tmp.arrays[a].values)
                goto nomem;
        }
    }
    *dst = tmp;
    return FIA_OK;
nomem:
    fia_case_free(&tmp);
    fia_case_init(dst);
    return FIA_ERR_NOMEM;
}
