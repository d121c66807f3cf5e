/* ref/ reading, feature "output": attention_out's dtype (fp16 / bf16, or
 * int8 from an fp16 / bf16 query; fp16 or int8 from an int8 one; others
 * are refused as not modeled) and
 * its shape, the query's
 * for the layout: BSH [B, Q_S, H], BNSD [B, N, Q_S, D], BSND and BNSD_BSND
 * [B, Q_S, N, D]; the *_NBSD outputs [N, B, Q_S, D] (003 §参数说明
 * input_layout).  Where its elements live: ref_out_index (read_layout.c). */
#include "ref_internal.h"

static int is_half(fia_dtype dt)
{
    return dt == FIA_DT_FP16 || dt == FIA_DT_BF16;
}

/* An int8 attention_out quantizes the output of an fp16 / bf16 query
 * (read_int8_out.c); full int8 (int8 query) has an fp16 or int8 one
 * (int8_quant.md). */
static int out_ok(const ref_problem *p)
{
    if (p->query_quant) /* MLA full quantization: bf16 (003) */
        return p->out_t->dtype == FIA_DT_BF16;
    if (p->int8_quant)
        return p->out_t->dtype == FIA_DT_FP16 ||
               p->out_t->dtype == FIA_DT_INT8;
    return is_half(p->out_t->dtype) ||
           (p->out_t->dtype == FIA_DT_INT8 && is_half(p->in_dtype));
}

fia_status ref_read_output_dtype(ref_problem *p, const fia_case *c,
                                 const fia_case_data *d, fia_error *err)
{
    (void)c, (void)d;
    if (!out_ok(p))
        return fia_fail(err, FIA_ERR_NOT_MODELED,
                        "not modeled yet: attention_out dtype %s with a %s "
                        "query", fia_dtype_name(p->out_t->dtype),
                        fia_dtype_name(p->in_dtype));
    p->out_dtype = p->out_t->dtype;
    return FIA_OK;
}

fia_status ref_read_output_shape(ref_problem *p, const fia_case *c,
                                 const fia_case_data *d, fia_error *err)
{
    (void)c, (void)d;
    int64_t dims[4];
    int nd;
    if (p->tnd) {
        nd = 3;
        dims[0] = p->o_ntd ? p->N : p->T, dims[1] = p->o_ntd ? p->T : p->N;
        dims[2] = p->Dv; /* value's D (003 §返回值说明, read_tnd.c) */
    } else if (p->o_nbsd) {
        nd = 4;
        dims[0] = p->N, dims[1] = p->B, dims[2] = p->Q_S, dims[3] = p->D;
    } else if (p->layout == REF_LAYOUT_BSH) {
        nd = 3;
        dims[0] = p->B, dims[1] = p->Q_S, dims[2] = p->q->shape[2];
    } else if (p->layout == REF_LAYOUT_BNSD) {
        nd = 4;
        dims[0] = p->B, dims[1] = p->N, dims[2] = p->Q_S, dims[3] = p->D;
    } else { /* BSND, BNSD_BSND */
        nd = 4;
        dims[0] = p->B, dims[1] = p->Q_S, dims[2] = p->N, dims[3] = p->D;
    }
    if (!ref_shape_is(p->out_t, nd, dims))
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "attention_out shape does not match the query's for "
                        "the layout");
    return FIA_OK;
}
