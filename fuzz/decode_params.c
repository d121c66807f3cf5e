/* fuzz_params' decoder: bytes -> any call of the operator, biased toward
 * what breaks validators (0, 1, limits and limits +- 1, alignments +- 1,
 * dims that must agree and do not, every layout x sparse mode x path).
 * Shapes may be huge: the target checks statuses only, with no data.
 *
 * The decoder is its list of fragments (fuzz/gen.h, one gen_<feature>.c
 * each), applied in the order the bytes are consumed. */
#include <stdio.h>
#include <string.h>
#include "fuzz/gen.h"

static const fz_fragment params_fragments[] = {
    {FIA_FEATURE_LAYOUT, fz_params_layout},
    {FIA_FEATURE_TENSORS, fz_params_tensors_dtype},
    {FIA_FEATURE_LAYOUT, fz_params_layout_dims},
    {FIA_FEATURE_GQA, fz_params_gqa_heads},
    {FIA_FEATURE_LAYOUT, fz_params_layout_seq},
    {FIA_FEATURE_TENSORS, fz_params_tensors_shapes},
    {FIA_FEATURE_TENSOR_LIST, fz_params_tensor_list},
    {FIA_FEATURE_TENSORS, fz_params_tensors_qkv},
    {FIA_FEATURE_LAYOUT, fz_params_layout_heads},
    {FIA_FEATURE_GQA, fz_params_gqa_attr},
    {FIA_FEATURE_SPARSE, fz_params_sparse_mode},
    {FIA_FEATURE_SPARSE, fz_params_sparse_tokens},
    {FIA_FEATURE_PRECISE, fz_params_precise},
    {FIA_FEATURE_SCALE, fz_params_scale},
    {FIA_FEATURE_PAGED, fz_params_paged},
    {FIA_FEATURE_ANTIQUANT, fz_params_antiquant},
    {FIA_FEATURE_QUERY_QUANT, fz_params_query_quant},
    {FIA_FEATURE_MASK, fz_params_mask},
    {FIA_FEATURE_SEQLEN, fz_params_seqlen},
    {FIA_FEATURE_PREFIX, fz_params_prefix},
    {FIA_FEATURE_LSE, fz_params_lse},
    {FIA_FEATURE_OUTPUT, fz_params_output},
    {FIA_FEATURE_TENSORS, fz_params_tensors_optional},
    {FIA_FEATURE_PAGED, fz_params_paged_cache},
    {FIA_FEATURE_TENSOR_LIST, fz_params_tensor_list_shapes},
    {FIA_FEATURE_TND, fz_params_tnd},
    {FIA_FEATURE_PADDING, fz_params_padding},
    {FIA_FEATURE_PADDING, fz_params_padding_scene},
    {FIA_FEATURE_PSE, fz_params_pse},
    {FIA_FEATURE_PREFIX, fz_params_prefix_tensors},
    {FIA_FEATURE_ANTIQUANT, fz_params_antiquant_scene},
    {FIA_FEATURE_INT8_OUT, fz_params_int8_out_scene},
    {FIA_FEATURE_INT8_QUANT, fz_params_int8_quant_scene},
    {FIA_FEATURE_MLA, fz_params_mla},
    {FIA_FEATURE_SINK, fz_params_sink},
    {FIA_FEATURE_PRODUCT, fz_params_product},
};

/* The case model refuses a tensor whose element count overflows int64
 * (docs/case-format.md; no such tensor can exist, so the operator is not
 * asked): edge values multiplied together (a [B, S, S] mask of 65536 x
 * 20971520^2) can get there, so halve the largest dim until it fits. */
static void fit_shapes(fia_case *c)
{
    for (int s = 0; s < FIA_SLOT_COUNT; s++) {
        fia_tensor_spec *sp = &c->tensors[s];
        for (int i = 0; sp->t != NULL && i < sp->count; i++) {
            fia_tensor *t = &sp->t[i];
            while (fia_tensor_numel(t) < 0) {
                int big = 0;
                for (int d = 1; d < t->ndim; d++)
                    big = t->shape[d] > t->shape[big] ? d : big;
                if (t->ndim == 0 || t->shape[big] <= 0)
                    break; /* negative dims: not made here */
                t->shape[big] /= 2;
            }
        }
    }
}

fia_status fuzz_decode_params(const uint8_t *data, size_t size, fia_case *c)
{
    fz_bytes f;
    fz_gen g;
    fz_bytes_init(&f, data, size);
    fia_case_init(c);
    memset(&g, 0, sizeof g);
    g.f = &f;
    g.c = c;
    snprintf(c->name, sizeof c->name, "fuzz_params");
    c->seed = fz_bytes_u8(&f);
    /* Strict inputs (40 % of them) take no deliberate break: they keep the
     * validity rate within 30-70 % under libFuzzer, whose mutations
     * otherwise drift toward the many ways to be invalid.  Strict from a
     * hash of the whole input, not from a byte libFuzzer could settle:
     * every mutation re-draws it, so the corpus cannot drift to the
     * non-strict half. */
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    g.strict = h % 100 < 40;
    g.qs1 = fz_bytes_chance(&f, 35);
    fz_gen_apply(&g, params_fragments, FZ_ARRLEN(params_fragments));
    fit_shapes(c);
    return g.status;
}
