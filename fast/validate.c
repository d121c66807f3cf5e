/* Phase one of fast/: imperative parameter validation, the way the kernel's
 * aclnn wrapper and tiling do it, as a list of per-feature checks
 * (fast/check_<feature>.c) walked in order.
 *
 * Layers, checked in this order (the lowest layer wins):
 *   1. nullptr           -> 161001 (002 返回值; RELEASED "Return codes";
 *                           api.c, before the table); then an unknown
 *                           interface name (apiName) -> 161002 in both
 *                           profiles (api.c)
 *   2. dtype lists       -> 161002 in both profiles (002 REG_OP / 参数说明)
 *   3. exclusions        -> as semantic rules: combinations the documents
 *                           refuse, checked before layer 4 so that a
 *                           documented rejection is not hidden by it
 *   4. not modeled yet   -> FIA_ERR_NOT_MODELED (docs/semantics.md)
 *   5. semantic rules    -> 161002 (DOC) or 561002 (CANN, RELEASED: every
 *                           semantic interception is a tiling error)
 *   6. not computed      -> FIA_ERR_NOT_MODELED for a call every rule above
 *                           accepts whose arithmetic fast/ lacks
 *   7. undocumented      -> FIA_ERR_NOT_MODELED for a call every rule above
 *                           accepts that gives a parameter no document
 *                           explains (004 out_dtype)
 * The table holds every row of a layer before the next layer, so a case that
 * breaks rules of several layers fails in the lowest; inside a layer the rows
 * keep the order in which the checks have always fired (a semantic row may
 * read what the rows above it put in the plan).  Each check has a short id
 * that starts the message (fastLastError()).
 * Validation reads shapes, dtypes and the host int arrays only, never tensor
 * data, and allocates nothing until every check has passed. */
#include <stdarg.h>
#include <stdio.h>
#include "validate.h"

const fast_check fast_checks[] = {
    /* Layer 2: registered dtypes (002 REG_OP and the 参数说明 of each
     * input), in the order of the parameters; the optional tensors in
     * REG_OP order, so antiquant has two rows (antiquant_scale/offset,
     * then after block_table and the paddings the per-K/V ones). */
    {"tensors", FAST_LAYER_DTYPE, fast_check_tensors_dtypes},
    {"pse", FAST_LAYER_DTYPE, fast_check_pse_dtypes},
    {"mask", FAST_LAYER_DTYPE, fast_check_mask_dtypes},
    {"output", FAST_LAYER_DTYPE, fast_check_output_dtypes},
    {"lse", FAST_LAYER_DTYPE, fast_check_lse_dtypes},
    {"int8_quant", FAST_LAYER_DTYPE, fast_check_int8_quant_dtypes},
    {"antiquant", FAST_LAYER_DTYPE, fast_check_antiquant_dtypes},
    {"paged", FAST_LAYER_DTYPE, fast_check_paged_dtypes},
    {"padding", FAST_LAYER_DTYPE, fast_check_padding_dtypes},
    {"antiquant", FAST_LAYER_DTYPE, fast_check_antiquant_kv_dtypes},
    {"prefix", FAST_LAYER_DTYPE, fast_check_prefix_dtypes},
    {"mla", FAST_LAYER_DTYPE, fast_check_mla_dtypes},
    {"query_quant", FAST_LAYER_DTYPE, fast_check_query_quant_dtypes},
    {"product", FAST_LAYER_DTYPE, fast_check_product_dtypes},
    /* Layer 3: documented combinations a feature excludes, checkable
     * before either feature computes (a rejection, never hidden behind
     * "not modeled"). */
    {"paged", FAST_LAYER_EXCLUSION, fast_check_paged_exclusions},
    {"tensor_list", FAST_LAYER_EXCLUSION, fast_check_tensor_list_exclusions},
    {"tnd", FAST_LAYER_EXCLUSION, fast_check_tnd_exclusions},
    {"padding", FAST_LAYER_EXCLUSION, fast_check_padding_exclusions},
    {"prefix", FAST_LAYER_EXCLUSION, fast_check_prefix_exclusions},
    {"mla", FAST_LAYER_EXCLUSION, fast_check_mla_exclusions},
    {"product", FAST_LAYER_EXCLUSION, fast_check_product_exclusions},
    /* Layer 4: documented features fast/ does not model yet. */
    {"padding", FAST_LAYER_NOT_MODELED, fast_check_padding},
    /* Layer 5: semantic rules.  tensors_empty ends the walk for an empty
     * query (p->empty): 002 returns at once, before any tiling check. */
    {"tensors", FAST_LAYER_SEMANTIC, fast_check_tensors_lists},
    {"tensors", FAST_LAYER_SEMANTIC, fast_check_tensors_empty},
    {"layout", FAST_LAYER_SEMANTIC, fast_check_layout_shapes},
    /* the quantization scenes (which scales go with which dtypes) before
     * the dtype pairing of the non-quantized path */
    {"int8_quant", FAST_LAYER_SEMANTIC, fast_check_int8_quant},
    {"int8_out", FAST_LAYER_SEMANTIC, fast_check_int8_out},
    {"tensors", FAST_LAYER_SEMANTIC, fast_check_tensors_kv_dtype},
    {"layout", FAST_LAYER_SEMANTIC, fast_check_layout_heads},
    {"gqa", FAST_LAYER_SEMANTIC, fast_check_gqa},
    {"tnd", FAST_LAYER_SEMANTIC, fast_check_tnd_shapes},
    {"layout", FAST_LAYER_SEMANTIC, fast_check_layout_kv},
    {"paged", FAST_LAYER_SEMANTIC, fast_check_paged_cache},
    {"tensor_list", FAST_LAYER_SEMANTIC, fast_check_tensor_list},
    {"layout", FAST_LAYER_SEMANTIC, fast_check_layout_limits},
    {"product", FAST_LAYER_SEMANTIC, fast_check_product_limits},
    /* MLA's own rules, before the sparse and mask rows (its sparse rule
     * replaces the Q_S = 1 normalisation) */
    {"mla", FAST_LAYER_SEMANTIC, fast_check_mla_rules},
    /* MLA's full quantization (an int8 query): its scales, modes and
     * output, then its plan (dt bf16, before the precise row's round_p);
     * query_quant_mode's values anywhere */
    {"mla", FAST_LAYER_SEMANTIC, fast_check_query_quant_mla},
    {"query_quant", FAST_LAYER_SEMANTIC, fast_check_query_quant},
    {"output", FAST_LAYER_SEMANTIC, fast_check_output},
    {"lse", FAST_LAYER_SEMANTIC, fast_check_lse},
    {"precise", FAST_LAYER_SEMANTIC, fast_check_precise},
    {"sparse", FAST_LAYER_SEMANTIC, fast_check_sparse},
    {"mask", FAST_LAYER_SEMANTIC, fast_check_mask},
    {"seqlen", FAST_LAYER_SEMANTIC, fast_check_seqlen},
    {"scale", FAST_LAYER_SEMANTIC, fast_check_scale},
    {"pse", FAST_LAYER_SEMANTIC, fast_check_pse_shape},
    {"prefix", FAST_LAYER_SEMANTIC, fast_check_prefix_shape},
    /* the int8 rules that read D, the band, the lengths and the prefix */
    {"int8_quant", FAST_LAYER_SEMANTIC, fast_check_int8_quant_d},
    {"int8_out", FAST_LAYER_SEMANTIC, fast_check_int8_out_shape},
    /* int8/int4 key/value: last, it reads the dims every row above fixed */
    {"antiquant", FAST_LAYER_SEMANTIC, fast_check_antiquant},
    /* learnable_sink's dtype and [N] (reads N) */
    {"sink", FAST_LAYER_SEMANTIC, fast_check_sink},
    /* Layer 6: judged by every rule above, but not computed. */
    {"tnd", FAST_LAYER_ARITHMETIC, fast_check_tnd_nbsd},
    {"output", FAST_LAYER_ARITHMETIC, fast_check_output_value_d},
    {"pse", FAST_LAYER_ARITHMETIC, fast_check_pse_heads},
    {"prefix", FAST_LAYER_ARITHMETIC, fast_check_prefix},
    {"antiquant", FAST_LAYER_ARITHMETIC, fast_check_antiquant_unmodeled},
    /* the antiquant description of a call every rule accepts and no row
     * above refuses (after the rows that fill the plan's layout, cache,
     * list and padding) */
    {"antiquant", FAST_LAYER_ARITHMETIC, fast_plan_antiquant},
    /* an int8 query every rule accepts: the full quantization's plan, its
     * dtypes then its scales (before int8_out's, which fills the output
     * scales of either query) */
    {"int_inputs", FAST_LAYER_ARITHMETIC, fast_check_int_inputs_query},
    {"int8_quant", FAST_LAYER_ARITHMETIC, fast_plan_int8_quant},
    {"int8_out", FAST_LAYER_ARITHMETIC, fast_check_int8_out_compute},
    /* dequant_scale_query / query_quant_mode 3 outside MLA's full
     * quantization: no document gives them another scene */
    {"query_quant", FAST_LAYER_ARITHMETIC, fast_check_query_quant_unmodeled},
    {"mla", FAST_LAYER_ARITHMETIC, fast_check_query_quant_mla_unmodeled},
    /* the sink with what it is not computed with, last: no row above
     * rejects such a call */
    {"sink", FAST_LAYER_ARITHMETIC, fast_check_sink_unmodeled},
    /* Layer 7: 004's out_dtype, which no document gives a meaning: the
     * very last row, so that no documented rejection hides behind it (an
     * empty query returns before it, as before every semantic row). */
    {"output", FAST_LAYER_UNDOCUMENTED, fast_check_output_out_dtype},
};
const size_t fast_check_count = sizeof fast_checks / sizeof fast_checks[0];

fia_status fast_validate(const fast_args *a, fast_plan *p, fia_error *err)
{
    /* the released code's early return for a call that reads no key
     * (check_order.c): its later-stage checks pass such a call */
    p->kv_return = a->profile == FIA_PROFILE_CANN && fast_no_key_read(a);
    for (size_t i = 0; i < fast_check_count; i++) {
        /* an empty query: nothing to compute, no further row applies
         * (RELEASED "Degenerate shapes": it returns at once with success
         * after the nullptr and dtype checks; out_dtype's too) */
        if (p->empty)
            continue;
        fia_status st = fast_checks[i].run(a, p, err);
        if (st != FIA_OK)
            return st;
    }
    return FIA_OK;
}

/* ---- helpers ------------------------------------------------------------- */
fia_status fast_fail(fia_error *err, fia_status st, const char *check,
                     const char *fmt, ...)
{
    if (err == NULL)
        return st;
    err->code = st;
    err->file[0] = '\0';
    err->line = 0;
    int n = snprintf(err->msg, sizeof err->msg, "%s: ", check);
    if (n < 0 || (size_t)n >= sizeof err->msg)
        return st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
    va_end(ap);
    return st;
}

const char *fast_optional_name(fast_optional o)
{
    static const char *const names[] = {
#define FAST_OPTIONAL_NAME(id, name) name,
        FAST_OPTIONAL_LIST(FAST_OPTIONAL_NAME)
#undef FAST_OPTIONAL_NAME
    };
    return (unsigned)o < FAST_OPT_COUNT ? names[o] : "?";
}

bool fast_shape_numel(const fia_tensor *t, int64_t *out)
{
    if (t->ndim < 0 || t->ndim > FIA_MAX_RANK)
        return false;
    int64_t n = 1;
    bool zero = false;
    for (int i = 0; i < t->ndim; i++) {
        int64_t d = t->shape[i];
        if (d < 0)
            return false;
        if (d == 0)
            zero = true;
        else if (!zero && n > INT64_MAX / d)
            return false;
        else if (!zero)
            n *= d;
    }
    *out = zero ? 0 : n;
    return true;
}

bool fast_present(const fia_tensor *t)
{
    int64_t n;
    if (t == NULL)
        return false;
    if (!fast_shape_numel(t, &n))
        return true; /* malformed: present, the shape check rejects it */
    return n > 0;
}

bool fast_dtype_in(fia_dtype dt, const fia_dtype *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == dt)
            return true;
    return false;
}

const char *fast_dtype_name(fia_dtype dt)
{
    static const char *names[] = {"invalid", "fp16",  "bf16",  "fp32",
                                  "int8",    "uint8", "int4",  "int32",
                                  "int64",   "uint64", "bool"};
    return (unsigned)dt < sizeof names / sizeof names[0] ? names[dt] : "?";
}

bool fast_same_shape(const fia_tensor *a, const fia_tensor *b)
{
    if (a->ndim != b->ndim)
        return false;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i])
            return false;
    return true;
}

fia_status fast_check_opt_dtypes(const fast_args *a, const fast_opt_input *in,
                                 size_t n, fia_error *err)
{
    for (size_t i = 0; i < n; i++) {
        const fia_tensor *t = a->opt[in[i].input];
        if (t && !fast_dtype_in(t->dtype, in[i].dtypes,
                                (size_t)in[i].ndtypes))
            return FAST_BADTYPE("T_OPTIONAL", "%s dtype %s not in its registered list",
                                fast_optional_name(in[i].input),
                                fast_dtype_name(t->dtype));
    }
    return FIA_OK;
}

fia_status fast_refuse_opt(const fast_args *a, const fast_opt_input *in,
                           size_t n, fia_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (a->opt[in[i].input])
            return FAST_NOTMOD("M_OPTIONAL", "%s is not modeled yet",
                               fast_optional_name(in[i].input));
    return FIA_OK;
}

int64_t fast_early_q_s(const fast_args *a)
{
    const fia_tensor *q = a->query;
    if (a->layout == NULL)
        return -1;
    /* the *_NBSD outputs: the query's layout before the `_` */
    if (strcmp(a->layout, "BSH") == 0 || strcmp(a->layout, "BSH_NBSD") == 0)
        return q->ndim == 3 ? q->shape[1] : -1;
    if (strcmp(a->layout, "BSND") == 0 || strcmp(a->layout, "BSND_NBSD") == 0)
        return q->ndim == 4 ? q->shape[1] : -1;
    if (strcmp(a->layout, "BNSD") == 0 || strcmp(a->layout, "BNSD_BSND") == 0 ||
        strcmp(a->layout, "BNSD_NBSD") == 0)
        return q->ndim == 4 ? q->shape[2] : -1;
    return -1;
}

/* The five interfaces (include/fia/fast.h fast_v2_extras.apiName). */
static const struct {
    const char *name, *label;
} apis[] = {
    [FAST_API_ACLNN_V2] = {"aclnn_v2", "aclnn_v2 (002)"},
    [FAST_API_TORCH_NPU_V2] = {"torch_npu_v2", "torch_npu_v2 (003)"},
    [FAST_API_MINDSPORE] = {"mindspore", "mindspore (000)"},
    [FAST_API_IFA] = {"incre_flash_attention", "incre_flash_attention (001)"},
    [FAST_API_TORCHAIR_V2] = {"torchair_v2", "torchair_v2 (004)"},
};

bool fast_api_from_name(const char *name, fast_api *out)
{
    *out = FAST_API_ACLNN_V2;
    if (name == NULL)
        return true;
    for (size_t i = 0; i < sizeof apis / sizeof apis[0]; i++)
        if (strcmp(name, apis[i].name) == 0) {
            *out = (fast_api)i;
            return true;
        }
    return false;
}

const char *fast_api_label(fast_api api)
{
    return (size_t)api < sizeof apis / sizeof apis[0] ? apis[api].label : "?";
}
