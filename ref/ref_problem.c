/* ref/: reading the case as the reference does (docs/semantics.md), as
 * three lists over the per-feature files.
 *
 * The reading steps run in order and the first that fails names the error
 * (the order is part of the behaviour: a case with two faults reports the
 * same one every time).  The interception rules that apply to every call
 * (required tensors, then what is not modeled yet) come first; an empty
 * query stops the reading (002 约束说明 入参为空的处理).
 *
 * A key takes part in a row when every key rule admits it; a fully masked
 * row is corrected (output 0, lse +inf) when some correction rule applies.
 * A new feature adds its file and one line here.  Shares no code with
 * fast/ or oracle/; uses core/ for plain data only. */
#include <stdlib.h>
#include <string.h>
#include "ref_internal.h"

static const ref_read_step read_steps[] = {
    ref_read_tensors_required, /* query, key, value, attention_out */
    ref_read_not_modeled,      /* refusals: FIA_ERR_NOT_MODELED */
    ref_read_tensors_empty,    /* empty query: nothing more to read */
    ref_read_layout_name,      /* input_layout */
    ref_read_tensors_dtypes,   /* fp16 / bf16 or int8 query, key, value */
    ref_read_output_dtype,     /* fp16 / bf16 attention_out */
    ref_read_gqa,              /* N, KV_N, the head groups */
    ref_read_paged,            /* a block_table: key/value are caches */
    ref_read_tensor_list,      /* key/value lists: a tensor per batch */
    ref_read_layout_dims,      /* B, Q_S, KV_S, D */
    ref_read_mla,              /* query_rope / key_rope: Dr (not decode) */
    ref_read_sink,             /* learnable_sink: bf16 [N] (after gqa, mla) */
    ref_read_padding_scene,    /* left padding: which scenes (or refused) */
    ref_read_output_shape,     /* attention_out's shape for the layout */
    ref_read_scale,
    ref_read_sparse,           /* sparse_mode, pre/next tokens */
    ref_read_precise,          /* inner_precise */
    ref_read_lse,              /* softmax_lse_flag and its shape */
    ref_read_tensors_data,     /* the values are materialized */
    ref_read_prefix,           /* shared prefix: its tensors and P */
    ref_read_seqlen,           /* q_len, kv_len per batch */
    ref_read_paged_blocks,     /* paged: KV_S, the block ids read */
    ref_read_tensor_list_lengths, /* lists: each batch within its S */
    ref_read_padding,          /* left padding: the physical starts */
    ref_read_antiquant,        /* int key/value: scale / offset forms */
    ref_read_int8_out,         /* int8 attention_out: quant_scale2/offset2 */
    ref_read_int8_quant,       /* int8 query: the three scales */
    ref_read_query_quant,      /* MLA full quantization: its scales */
    ref_read_pse,              /* pse_shift (after precise and padding) */
    ref_read_mask,             /* atten_mask geometry (after lengths) */
};

/* In this order: the cheap length test first; the mask before the sparse
 * band (sparse mode 0 reads both). */
static const ref_key_rule key_rules[] = {
    ref_seqlen_admits,
    ref_mask_admits,
    ref_sparse_admits,
};

typedef int (*ref_correction_rule)(const ref_problem *p, int64_t b);
static const ref_correction_rule correction_rules[] = {
    ref_precise_corrects,
    ref_sparse_corrects,
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

fia_status ref_problem_init(ref_problem *p, const fia_case *c,
                            const fia_case_data *d, fia_error *err)
{
    memset(p, 0, sizeof *p);
    if (!c || !d)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "no case or data");
    for (size_t s = 0; s < COUNT(read_steps) && !p->empty_query; s++) {
        fia_status st = read_steps[s](p, c, d, err);
        if (st != FIA_OK) {
            ref_problem_free(p);
            return st;
        }
    }
    return FIA_OK;
}

void ref_problem_free(ref_problem *p)
{
    free(p->q_len);
    free(p->kv_len);
    free(p->list_s);
    free(p->q_tok);
    free(p->kv_tok);
    free(p->q_start);
    free(p->kv_start);
    free(p->start_neg);
    p->q_len = p->kv_len = p->list_s = p->q_tok = p->kv_tok = NULL;
    p->q_start = p->kv_start = NULL;
    p->start_neg = NULL;
}

int ref_key_takes_part(const ref_problem *p, int64_t b, int64_t i, int64_t j)
{
    for (size_t r = 0; r < COUNT(key_rules); r++)
        if (!key_rules[r](p, b, i, j))
            return 0;
    return 1;
}

int ref_row_corrected(const ref_problem *p, int64_t b)
{
    for (size_t r = 0; r < COUNT(correction_rules); r++)
        if (correction_rules[r](p, b))
            return 1;
    return 0;
}
