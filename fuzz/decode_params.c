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
    {FIA_FEATURE_LAYOUT, fzp_layout},
    {FIA_FEATURE_TENSORS, fzp_tensors_dtype},
    {FIA_FEATURE_LAYOUT, fzp_layout_dims},
    {FIA_FEATURE_GQA, fzp_gqa_heads},
    {FIA_FEATURE_LAYOUT, fzp_layout_seq},
    {FIA_FEATURE_TENSORS, fzp_tensors_shapes},
    {FIA_FEATURE_TENSOR_LIST, fzp_tensor_list},
    {FIA_FEATURE_TENSORS, fzp_tensors_qkv},
    {FIA_FEATURE_LAYOUT, fzp_layout_heads},
    {FIA_FEATURE_GQA, fzp_gqa_attr},
    {FIA_FEATURE_SPARSE, fzp_sparse_mode},
    {FIA_FEATURE_SPARSE, fzp_sparse_tokens},
    {FIA_FEATURE_PRECISE, fzp_precise},
    {FIA_FEATURE_SCALE, fzp_scale},
    {FIA_FEATURE_PAGED, fzp_paged},
    {FIA_FEATURE_ANTIQUANT, fzp_antiquant},
    {FIA_FEATURE_QUERY_QUANT, fzp_query_quant},
    {FIA_FEATURE_MASK, fzp_mask},
    {FIA_FEATURE_SEQLEN, fzp_seqlen},
    {FIA_FEATURE_PREFIX, fzp_prefix},
    {FIA_FEATURE_LSE, fzp_lse},
    {FIA_FEATURE_OUTPUT, fzp_output},
    {FIA_FEATURE_TENSORS, fzp_tensors_optional},
    {FIA_FEATURE_PAGED, fzp_paged_cache},
    {FIA_FEATURE_TENSOR_LIST, fzp_tensor_list_shapes},
    {FIA_FEATURE_TND, fzp_tnd},
    {FIA_FEATURE_PADDING, fzp_padding},
    {FIA_FEATURE_PADDING, fzp_padding_scene},
    {FIA_FEATURE_PSE, fzp_pse},
    {FIA_FEATURE_PREFIX, fzp_prefix_tensors},
    {FIA_FEATURE_ANTIQUANT, fzp_antiquant_scene},
    {FIA_FEATURE_INT8_OUT, fzp_int8_out_scene},
    {FIA_FEATURE_INT8_QUANT, fzp_int8_quant_scene},
    {FIA_FEATURE_MLA, fzp_mla},
    {FIA_FEATURE_SINK, fzp_sink},
    {FIA_FEATURE_PRODUCT, fzp_product},
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
    fdp f;
    fz_gen g;
    fdp_init(&f, data, size);
    fia_case_init(c);
    memset(&g, 0, sizeof g);
    g.f = &f;
    g.c = c;
    snprintf(c->name, sizeof c->name, "fuzz_params");
    c->seed = fdp_u8(&f);
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
    g.qs1 = fdp_chance(&f, 35);
    fz_gen_apply(&g, params_fragments, FZ_ARRLEN(params_fragments));
    fit_shapes(c);
    return g.status;
}
