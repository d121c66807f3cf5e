/* output: attention_out's presence (api.c's layer 1), dtype and shape, and
 * 004's out_dtype. */
#include "validate.h"

/* Layer 2.  REG_OP: fp16, int8, bf16 (an int8 output's rules:
 * check_int8_out.c). */
fia_status fast_check_output_dtypes(const fast_args *a, fast_plan *p,
                                    fia_error *err)
{
    (void)p;
    fia_dtype od = a->out->dtype;
    if (!fast_dtype_in(od, FAST_DTYPES(FIA_DT_FP16, FIA_DT_INT8, FIA_DT_BF16)))
        return FAST_BADTYPE("T_OUT", "attention_out dtype %s not in {fp16, int8, "
                            "bf16}", fast_dtype_name(od));
    return FIA_OK;
}

/* out has q's shape but for its last dim, last. */
static bool same_but_last(const fia_tensor *out, const fia_tensor *q,
                          int64_t last)
{
    if (out->ndim != q->ndim || q->ndim < 1)
        return false;
    for (int d = 0; d + 1 < q->ndim; d++)
        if (out->shape[d] != q->shape[d])
            return false;
    return out->shape[q->ndim - 1] == last;
}

/* Layer 6 (profile cann).  Value's D 128 beside key's 192 in a batched
 * layout: accepted by the released code; fast/ computes a narrower value
 * for the token layouts only (plan_tnd.c), and on the decode path the
 * released code reads value with the query's D, which no document gives
 * a meaning.  Refused once every rule has judged the call. */
fia_status fast_check_output_value_d(const fast_args *a, fast_plan *p,
                                     fia_error *err)
{
    /* a call that reads no key returns zeros first (check_order.c) */
    if (a->profile == FIA_PROFILE_CANN && fast_value_d_128(a) && !p->kv_return)
        return FAST_NOTMOD("M_VALUE_D", "value head dim 128 beside key's 192 in %s "
                           "is not computed", a->layout);
    return FIA_OK;
}

/* Layer 4.  002 attentionOut: the query's dtype, and the query's shape
 * ([B, Q_S, N, D] for BNSD_BSND, [N, B, Q_S, D] for the *_NBSD ones).
 * The quantized paths choose their own output dtypes: an int8 output
 * (check_int8_out.c), an int8 query's int8 or fp16 output (Q8-003,
 * check_int8_quant.c).  Fills out and out_numel. */
fia_status fast_check_output(const fast_args *a, fast_plan *p, fia_error *err)
{
    const fia_tensor *q = a->query, *out = a->out;
    int64_t on;
    if (out->dtype != q->dtype && out->dtype != FIA_DT_INT8 &&
        q->dtype != FIA_DT_INT8)
        return FAST_REJECT("S_OUT_DTYPE", "attention_out dtype %s != query dtype %s",
                           fast_dtype_name(out->dtype), fast_dtype_name(q->dtype));
    /* the released code: value's D 128 beside key's 192 gives
     * attention_out value's D at Q_S > 1 (tMLA_RopeCombine_BSH succeeds,
     * tErr_value_D_neq_out_D is rejected); on the decode path it takes
     * value's D to be the query's (tErr_PA_value_D_neq_vHeadDim) */
    const int64_t dout = a->profile == FIA_PROFILE_CANN && p->Q_S > 1 &&
                                 fast_value_d_128(a)
                             ? 128 : p->D;
    bool shape_ok;
    if (p->tnd.on) /* 003 返回值说明: T, N in the output's order, value's D */
        shape_ok = out->ndim == 3 &&
                   out->shape[0] == (p->tnd.o_ntd ? p->N : p->tnd.T) &&
                   out->shape[1] == (p->tnd.o_ntd ? p->tnd.T : p->N) &&
                   out->shape[2] == p->tnd.Dv;
    else if (p->o_nbsd) /* 003 input_layout: the part after `_` */
        shape_ok = out->ndim == 4 && out->shape[0] == p->N &&
                   out->shape[1] == p->B && out->shape[2] == p->Q_S &&
                   out->shape[3] == dout;
    else if (p->layout == FAST_LAYOUT_BNSD_BSND)
        shape_ok = out->ndim == 4 && out->shape[0] == p->B &&
                   out->shape[1] == p->Q_S && out->shape[2] == p->N &&
                   out->shape[3] == dout;
    else if (dout != p->D)
        shape_ok = same_but_last(out, q, q->ndim == 3 ? p->N * dout : dout);
    else
        shape_ok = fast_same_shape(out, q);
    if (!shape_ok && !p->kv_return) /* cann's early return: check_order.c */
        return FAST_REJECT("S_OUT_SHAPE", "attention_out shape does not match %s",
                           p->tnd.on ? "(T, N, Dv) / (N, T, Dv)"
                           : p->o_nbsd ? "[N, B, Q_S, D]"
                           : p->layout == FAST_LAYOUT_BNSD_BSND ? "[B, Q_S, N, D]"
                                                                : "the query shape");
    if (!fast_shape_numel(out, &on))
        return FAST_REJECT("S_OUT_SHAPE", "attention_out shape is invalid");
    p->out_numel = on;
    p->out = out->data;
    return FIA_OK;
}

/* Layer 7, the table's last row.  004 names `int? out_dtype=None` in its
 * prototype and nowhere else: no 参数说明, no constraint, and RELEASED says
 * nothing of it.  A given one (any code) may mean another output dtype, so
 * fast/ cannot say what the call returns: refused as not modeled, after
 * every documented rule has accepted the call (an empty query included),
 * never hiding a documented rejection. */
fia_status fast_check_output_out_dtype(const fast_args *a, fast_plan *p,
                                       fia_error *err)
{
    (void)p;
    if (a->out_dtype == NULL)
        return FIA_OK;
    return FAST_NOTMOD("M_OUT_DTYPE", "out_dtype (004) = %lld has no documented "
                       "meaning: not modeled", (long long)*a->out_dtype);
}
