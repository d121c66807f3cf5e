/* The five interfaces of the operator and their parameter names.
 *
 * The documents describe one operator behind five interfaces (002 the aclnn
 * C API, 003 torch_npu v2, 000 MindSpore, 001 torch_npu's decode-only
 * predecessor, 004 TorchAir v2), each with its own names, defaults and
 * limits.  A case is written through one of them (`api = NAME`); these
 * tables translate its names into the one internal vocabulary of
 * include/fia/case.h (002's REG_OP names) at parse and print time, so
 * nothing past the parser knows which interface wrote the call.
 *
 * A table row is (the interface's name, the internal name).  The internal
 * name is NULL for a parameter the interface documents but fiacheck does not
 * model (a reserved 预留参数, out_dtype): the parser accepts
 * only `null` (its default None) for those.  The decisions behind each row
 * are in docs/case-format.md "Interfaces". */
#include <stdio.h>
#include <string.h>
#include "case_internal.h"

typedef struct api_row {
    const char *name;      /* the interface's spelling */
    const char *internal;  /* 002 REG_OP snake_case; NULL: not modeled */
} api_row;

/* aclnn_v2: the REG_OP names of 002 (the snake_case of the C API's
 * parameters) plus the 003 extras fast/ takes through its extended entry
 * point; the vocabulary every case had before interfaces were named. */
static const api_row aclnn_v2_rows[] = {
    {"query", "query"}, {"key", "key"}, {"value", "value"},
    {"pse_shift", "pse_shift"}, {"atten_mask", "atten_mask"},
    {"actual_seq_lengths", "actual_seq_lengths"},
    {"actual_seq_lengths_kv", "actual_seq_lengths_kv"},
    {"dequant_scale1", "dequant_scale1"}, {"quant_scale1", "quant_scale1"},
    {"dequant_scale2", "dequant_scale2"}, {"quant_scale2", "quant_scale2"},
    {"quant_offset2", "quant_offset2"},
    {"antiquant_scale", "antiquant_scale"},
    {"antiquant_offset", "antiquant_offset"},
    {"block_table", "block_table"},
    {"query_padding_size", "query_padding_size"},
    {"kv_padding_size", "kv_padding_size"},
    {"key_antiquant_scale", "key_antiquant_scale"},
    {"key_antiquant_offset", "key_antiquant_offset"},
    {"value_antiquant_scale", "value_antiquant_scale"},
    {"value_antiquant_offset", "value_antiquant_offset"},
    {"key_shared_prefix", "key_shared_prefix"},
    {"value_shared_prefix", "value_shared_prefix"},
    {"actual_shared_prefix_len", "actual_shared_prefix_len"},
    {"query_rope", "query_rope"}, {"key_rope", "key_rope"},
    {"dequant_scale_query", "dequant_scale_query"},
    {"learnable_sink", "learnable_sink"},
    {"num_heads", "num_heads"}, {"scale", "scale"},
    {"pre_tokens", "pre_tokens"}, {"next_tokens", "next_tokens"},
    {"input_layout", "input_layout"},
    {"num_key_value_heads", "num_key_value_heads"},
    {"sparse_mode", "sparse_mode"}, {"inner_precise", "inner_precise"},
    {"block_size", "block_size"}, {"antiquant_mode", "antiquant_mode"},
    {"softmax_lse_flag", "softmax_lse_flag"},
    {"key_antiquant_mode", "key_antiquant_mode"},
    {"value_antiquant_mode", "value_antiquant_mode"},
    {"query_quant_mode", "query_quant_mode"},
    {"out_dtype", "out_dtype"},
    {"attention_out", "attention_out"}, {"softmax_lse", "softmax_lse"},
};

/* mindspore (000 §函数原型): 002's names, without the 003 extras. */
static const api_row mindspore_rows[] = {
    {"query", "query"}, {"key", "key"}, {"value", "value"},
    {"pse_shift", "pse_shift"}, {"atten_mask", "atten_mask"},
    {"actual_seq_lengths", "actual_seq_lengths"},
    {"actual_seq_lengths_kv", "actual_seq_lengths_kv"},
    {"dequant_scale1", "dequant_scale1"}, {"quant_scale1", "quant_scale1"},
    {"dequant_scale2", "dequant_scale2"}, {"quant_scale2", "quant_scale2"},
    {"quant_offset2", "quant_offset2"},
    {"antiquant_scale", "antiquant_scale"},
    {"antiquant_offset", "antiquant_offset"},
    {"key_antiquant_scale", "key_antiquant_scale"},
    {"key_antiquant_offset", "key_antiquant_offset"},
    {"value_antiquant_scale", "value_antiquant_scale"},
    {"value_antiquant_offset", "value_antiquant_offset"},
    {"block_table", "block_table"},
    {"query_padding_size", "query_padding_size"},
    {"kv_padding_size", "kv_padding_size"},
    {"key_shared_prefix", "key_shared_prefix"},
    {"value_shared_prefix", "value_shared_prefix"},
    {"actual_shared_prefix_len", "actual_shared_prefix_len"},
    {"num_heads", "num_heads"}, {"scale", "scale"},
    {"pre_tokens", "pre_tokens"}, {"next_tokens", "next_tokens"},
    {"input_layout", "input_layout"},
    {"num_key_value_heads", "num_key_value_heads"},
    {"sparse_mode", "sparse_mode"}, {"inner_precise", "inner_precise"},
    {"block_size", "block_size"}, {"antiquant_mode", "antiquant_mode"},
    {"key_antiquant_mode", "key_antiquant_mode"},
    {"value_antiquant_mode", "value_antiquant_mode"},
    {"softmax_lse_flag", "softmax_lse_flag"},
    {"attention_out", "attention_out"}, {"softmax_lse", "softmax_lse"},
};

/* The parameters 003 and 004 share after actual_seq_*: the dequant_* of
 * "kv伪量化参数分离" are the separate key/value antiquant set of 002 (the
 * MLA full-quantization scene, int8 query with dequant_scale_query, reads
 * them as its key/value dequant scales; 002 has no such scene and the rules
 * refuse it as not modeled, NM-010, so one slot serves both). */
#define V2_COMMON_ROWS                                                       \
    {"block_table", "block_table"},                                          \
    {"dequant_scale_query", "dequant_scale_query"},                          \
    {"dequant_scale_key", "key_antiquant_scale"},                            \
    {"dequant_offset_key", "key_antiquant_offset"},                          \
    {"dequant_scale_value", "value_antiquant_scale"},                        \
    {"dequant_offset_value", "value_antiquant_offset"},                      \
    {"dequant_scale_key_rope", NULL},                                        \
    {"quant_scale_out", "quant_scale2"},                                     \
    {"quant_offset_out", "quant_offset2"}
#define V2_ATTR_ROWS                                                         \
    {"num_query_heads", "num_heads"},                                        \
    {"num_key_value_heads", "num_key_value_heads"},                          \
    {"softmax_scale", "scale"}, {"pre_tokens", "pre_tokens"},                \
    {"next_tokens", "next_tokens"}, {"input_layout", "input_layout"},        \
    {"sparse_mode", "sparse_mode"}, {"block_size", "block_size"},            \
    {"query_quant_mode", "query_quant_mode"},                                \
    {"key_quant_mode", "key_antiquant_mode"},                                \
    {"value_quant_mode", "value_antiquant_mode"},                            \
    {"inner_precise", "inner_precise"},                                      \
    {"return_softmax_lse", "softmax_lse_flag"}
/* 预留参数，暂未使用 (003 §参数说明): only their default None */
#define V2_RESERVED_ROWS                                                     \
    {"query_dtype", NULL}, {"key_dtype", NULL}, {"value_dtype", NULL},       \
    {"query_rope_dtype", NULL}, {"key_rope_dtype", NULL},                    \
    {"key_shared_prefix_dtype", NULL},                                       \
    {"value_shared_prefix_dtype", NULL},                                     \
    {"dequant_scale_query_dtype", NULL},                                     \
    {"dequant_scale_key_dtype", NULL},                                       \
    {"dequant_scale_value_dtype", NULL},                                     \
    {"dequant_scale_key_rope_dtype", NULL}

/* torch_npu_v2 (003 §函数原型): the sequence lengths are actual_seq_qlen /
 * actual_seq_kvlen (int lists). */
static const api_row torch_npu_v2_rows[] = {
    {"query", "query"}, {"key", "key"}, {"value", "value"},
    {"query_rope", "query_rope"}, {"key_rope", "key_rope"},
    {"pse_shift", "pse_shift"}, {"atten_mask", "atten_mask"},
    {"actual_seq_qlen", "actual_seq_lengths"},
    {"actual_seq_kvlen", "actual_seq_lengths_kv"},
    V2_COMMON_ROWS,
    V2_ATTR_ROWS,
    V2_RESERVED_ROWS,
    {"attention_out", "attention_out"}, {"softmax_lse", "softmax_lse"},
};

/* torchair_v2 (004 §函数原型 and §参数说明): 003's parameters, but the
 * sequence lengths are actual_seq_lengths / actual_seq_lengths_kv (device
 * tensors there, written as arrays here), its table adds
 * actual_shared_prefix_len (the prototype has no prefix tensors),
 * learnable_sink (RELEASED gives its meaning) and out_dtype (named in the
 * prototype alone: the catalogue's NM-017 refuses a given one). */
static const api_row torchair_v2_rows[] = {
    {"query", "query"}, {"key", "key"}, {"value", "value"},
    {"query_rope", "query_rope"}, {"key_rope", "key_rope"},
    {"pse_shift", "pse_shift"}, {"atten_mask", "atten_mask"},
    {"actual_seq_lengths", "actual_seq_lengths"},
    {"actual_seq_lengths_kv", "actual_seq_lengths_kv"},
    V2_COMMON_ROWS,
    {"learnable_sink", "learnable_sink"},
    V2_ATTR_ROWS,
    V2_RESERVED_ROWS,
    {"out_dtype", "out_dtype"},
    {"actual_shared_prefix_len", "actual_shared_prefix_len"},
    {"attention_out", "attention_out"}, {"softmax_lse", "softmax_lse"},
};

/* incre_flash_attention (001 §函数原型): decode only; its
 * actual_seq_lengths are the key/value lengths ("代表key、value中有效的S序列
 * 长度"), it has no query lengths, and it returns attention_out only. */
static const api_row incre_rows[] = {
    {"query", "query"}, {"key", "key"}, {"value", "value"},
    {"padding_mask", NULL},
    {"pse_shift", "pse_shift"}, {"atten_mask", "atten_mask"},
    {"actual_seq_lengths", "actual_seq_lengths_kv"},
    {"dequant_scale1", "dequant_scale1"}, {"quant_scale1", "quant_scale1"},
    {"dequant_scale2", "dequant_scale2"}, {"quant_scale2", "quant_scale2"},
    {"quant_offset2", "quant_offset2"},
    {"antiquant_scale", "antiquant_scale"},
    {"antiquant_offset", "antiquant_offset"},
    {"block_table", "block_table"},
    {"kv_padding_size", "kv_padding_size"},
    {"num_heads", "num_heads"}, {"scale_value", "scale"},
    {"input_layout", "input_layout"},
    {"num_key_value_heads", "num_key_value_heads"},
    {"block_size", "block_size"}, {"inner_precise", "inner_precise"},
    {"attention_out", "attention_out"},
};

#define ROWS(r) r, (int)(sizeof r / sizeof r[0])
static const struct api_def {
    const char *name, *doc, *function;
    const api_row *rows;
    int n;
} apis[FIA_API_COUNT] = {
    [FIA_API_ACLNN_V2] = {"aclnn_v2", "002",
                          "aclnnFusedInferAttentionScoreV2",
                          ROWS(aclnn_v2_rows)},
    [FIA_API_TORCH_NPU_V2] = {"torch_npu_v2", "003",
                              "torch_npu.npu_fused_infer_attention_score_v2",
                              ROWS(torch_npu_v2_rows)},
    [FIA_API_MINDSPORE] = {"mindspore", "000",
                           "mindspore.ops.fused_infer_attention_score",
                           ROWS(mindspore_rows)},
    [FIA_API_INCRE_FLASH_ATTENTION] = {"incre_flash_attention", "001",
                                       "torch_npu.npu_incre_flash_attention",
                                       ROWS(incre_rows)},
    [FIA_API_TORCHAIR_V2] = {"torchair_v2", "004",
                             "npu_fused_infer_attention_score_v2 (TorchAir)",
                             ROWS(torchair_v2_rows)},
};

static int valid(fia_api a)
{
    return (int)a >= 0 && a < FIA_API_COUNT;
}

const char *fia_api_name(fia_api a)
{
    return valid(a) ? apis[a].name : "?";
}

int fia_api_from_name(const char *name)
{
    for (int i = 0; name != NULL && i < FIA_API_COUNT; i++)
        if (strcmp(name, apis[i].name) == 0)
            return i;
    return -1;
}

/* In 003's prototype order (004 has the same eleven). */
static const char *const reserved_names[FIA_RESERVED_COUNT] = {
    "query_dtype", "key_dtype", "value_dtype", "query_rope_dtype",
    "key_rope_dtype", "key_shared_prefix_dtype", "value_shared_prefix_dtype",
    "dequant_scale_query_dtype", "dequant_scale_key_dtype",
    "dequant_scale_value_dtype", "dequant_scale_key_rope_dtype"};

const char *fia_reserved_name(int i)
{
    return i >= 0 && i < FIA_RESERVED_COUNT ? reserved_names[i] : NULL;
}

int fia_reserved_from_name(const char *name)
{
    for (int i = 0; name != NULL && i < FIA_RESERVED_COUNT; i++)
        if (strcmp(name, reserved_names[i]) == 0)
            return i;
    return -1;
}

/* 1 when interface a has the reserved parameters (003, 004). */
static int has_reserved(fia_api a)
{
    int un = 0;
    return fia_api_internal(a, reserved_names[0], &un) == NULL && un;
}

static const char *const product_names[FIA_PRODUCT_COUNT] = {
    [FIA_PRODUCT_ATLAS_A2] = "atlas_a2",
    [FIA_PRODUCT_INFERENCE_CARD] = "atlas_inference_card",
};

const char *fia_product_name(fia_product p)
{
    return (int)p >= 0 && p < FIA_PRODUCT_COUNT ? product_names[p] : "?";
}

int fia_product_from_name(const char *name)
{
    for (int i = 0; name != NULL && i < FIA_PRODUCT_COUNT; i++)
        if (strcmp(name, product_names[i]) == 0)
            return i;
    return -1;
}

/* 产品支持情况 of each document: A2 / A3 everywhere; the inference card in
 * 001's table only. */
int fia_api_has_product(fia_api a, fia_product p)
{
    if (p == FIA_PRODUCT_ATLAS_A2)
        return valid(a);
    return p == FIA_PRODUCT_INFERENCE_CARD &&
           a == FIA_API_INCRE_FLASH_ATTENTION;
}

const char *fia_api_doc(fia_api a)
{
    return valid(a) ? apis[a].doc : "?";
}

const char *fia_api_function(fia_api a)
{
    return valid(a) ? apis[a].function : "?";
}

const char *fia_api_param(fia_api a, const char *internal)
{
    if (!valid(a) || internal == NULL)
        return NULL;
    for (int i = 0; i < apis[a].n; i++)
        if (apis[a].rows[i].internal &&
            strcmp(apis[a].rows[i].internal, internal) == 0)
            return apis[a].rows[i].name;
    return NULL;
}

const char *fia_api_internal(fia_api a, const char *name, int *unmodeled)
{
    if (unmodeled)
        *unmodeled = 0;
    if (!valid(a) || name == NULL)
        return NULL;
    for (int i = 0; i < apis[a].n; i++)
        if (strcmp(apis[a].rows[i].name, name) == 0) {
            if (apis[a].rows[i].internal == NULL && unmodeled)
                *unmodeled = 1;
            return apis[a].rows[i].internal;
        }
    return NULL;
}

const char *fia_api_param_at(fia_api a, int i, const char **internal)
{
    if (!valid(a) || i < 0 || i >= apis[a].n)
        return NULL;
    if (internal)
        *internal = apis[a].rows[i].internal;
    return apis[a].rows[i].name;
}

void fia_api_attrs_default(fia_api a, fia_attrs *at)
{
    /* 002 REG_OP (num_heads is required there: 1 as 000, 001 and 003) */
    memset(at, 0, sizeof *at);
    at->num_heads = 1;
    at->scale = 1.0;
    at->pre_tokens = 2147483647;
    at->next_tokens = 2147483647;
    strcpy(at->input_layout, "BSH");
    at->inner_precise = 1;
    at->out_dtype = -1;               /* 004's None */
    switch (a) {
    case FIA_API_TORCH_NPU_V2:
        at->inner_precise = 0;        /* 003 §函数原型 inner_precise=0 */
        break;
    case FIA_API_TORCHAIR_V2:
        /* 004 §函数原型: num_key_value_heads=1; inner_precise has no
         * default there, and "其他参数 ... 与 ..._v2 接口同名参数要求一致"
         * sends it to 003's 0 */
        at->num_key_value_heads = 1;
        at->inner_precise = 0;
        break;
    default:                          /* 002, 000, 001: as REG_OP */
        break;
    }
}

int fia_case_expressible(const fia_case *c, fia_api a, char *why, size_t n)
{
    char dummy[8];
    if (why == NULL) {
        why = dummy;
        n = sizeof dummy;
    }
    if (n > 0)
        why[0] = '\0';
    if (!valid(a)) {
        snprintf(why, n, "no interface %d", (int)a);
        return 0;
    }
    if (c->reserved_given != 0 && !has_reserved(a)) {
        snprintf(why, n, "%s (%s) has no reserved *_dtype parameters",
                 apis[a].name, apis[a].doc);
        return 0;
    }
    if (!fia_api_has_product(a, c->product)) {
        snprintf(why, n, "%s (%s) does not document the product %s",
                 apis[a].name, apis[a].doc, fia_product_name(c->product));
        return 0;
    }
    for (int s = 0; s < FIA_SLOT_COUNT; s++) {
        const char *in = fia_slot_name((fia_slot)s);
        if (c->tensors[s].presence != FIA_ABSENT &&
            fia_api_param(a, in) == NULL) {
            snprintf(why, n, "%s (%s) has no parameter for %s", apis[a].name,
                     apis[a].doc, in);
            return 0;
        }
    }
    for (int r = 0; r < FIA_ARR_COUNT; r++) {
        const char *in = fia_array_name((fia_array)r);
        if (c->arrays[r].presence != FIA_ABSENT &&
            fia_api_param(a, in) == NULL) {
            snprintf(why, n, "%s (%s) has no parameter for %s", apis[a].name,
                     apis[a].doc, in);
            return 0;
        }
    }
    fia_attrs def;
    fia_api_attrs_default(a, &def);
    for (int k = 0; k < FIA_ATTR_COUNT; k++) {
        const char *in = fia_attr_name((fia_attr)k);
        if (fia_api_param(a, in) == NULL &&
            !fia__attr_equal(&c->attrs, &def, (fia_attr)k)) {
            snprintf(why, n, "%s (%s) has no parameter for %s and passes "
                     "its default", apis[a].name, apis[a].doc, in);
            return 0;
        }
    }
    return 1;
}

fia_status fia_case_set_api(fia_case *c, fia_api a, char *why, size_t n)
{
    if (c == NULL || !fia_case_expressible(c, a, why, n))
        return FIA_ERR_BAD_INPUT;
    /* an attribute left at the old interface's default that is not the new
     * one's default needs its line now (as reading the printed case would
     * give) */
    fia_attrs def;
    fia_api_attrs_default(a, &def);
    for (int k = 0; k < FIA_ATTR_COUNT; k++) {
        if (fia_api_param(a, fia_attr_name((fia_attr)k)) == NULL)
            c->attr_given[k] = false;   /* no line to write it on */
        else if (!fia__attr_equal(&c->attrs, &def, (fia_attr)k))
            c->attr_given[k] = true;
    }
    c->api = a;
    return FIA_OK;
}

int fia__api_foreign(fia_api api, const char *key, char *msg, size_t n)
{
    const char *in = NULL;
    if (fia_slot_from_name(key) >= 0 || fia_attr_from_name(key) >= 0 ||
        fia_array_from_name(key) >= 0)
        in = key;
    int known = in != NULL;
    for (int a = 0; a < FIA_API_COUNT && in == NULL; a++) {
        int unmodeled = 0;
        in = fia_api_internal((fia_api)a, key, &unmodeled);
        known |= in != NULL || unmodeled;
    }
    if (!known || !valid(api))
        return 0;
    const char *here = in ? fia_api_param(api, in) : NULL;
    if (here) {
        snprintf(msg, n, "%s (%s) has no parameter %.60s; it is %s",
                 apis[api].name, apis[api].doc, key, here);
        return 1;
    }
    char who[160] = "";
    for (int a = 0; a < FIA_API_COUNT; a++) {
        int unmodeled = 0;
        if (fia_api_internal((fia_api)a, key, &unmodeled) != NULL ||
            unmodeled)
            snprintf(who + strlen(who), sizeof who - strlen(who), "%s%s",
                     who[0] ? ", " : "", apis[a].name);
    }
    snprintf(msg, n, "%s (%s) has no parameter %.60s%s%s%s", apis[api].name,
             apis[api].doc, key, who[0] ? " (" : "", who,
             who[0] ? " have it)" : "");
    return 1;
}
