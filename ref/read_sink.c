/* ref/ reading, feature "sink": 004's learnable_sink (004 §函数原型 names
 * it; RELEASED "Layouts, head dims and parameters beyond the documents"
 * gives its shape, dtype and meaning; docs/features/sink.md).
 *
 * The sink is a tensor of N values, one per query head, bf16.  Query head
 * n's rows get one virtual key whose score is sink[n] exactly: NOT
 * multiplied by the scale, no pse, no mask, no value.  It takes part in the
 * row's max and in the softmax denominator only:
 *
 *   m   = max(max_j s_j, sink_n)
 *   out = sum_j e^(s_j - m) v_j / (sum_j e^(s_j - m) + e^(sink_n - m))
 *   lse = m + log(sum_j e^(s_j - m) + e^(sink_n - m))
 *
 * (s_j the scores after scale, pse and mask, over the keys that take part.)
 * That is exactly attention over the row's keys plus one key of score
 * sink_n and value 0, which is how the math core carries it
 * (ref_row_in.has_sink / sink: ref_attention.c, ref_double.c).  A row with
 * no key taking part keeps the documents' treatment (ref_rows.c: output 0,
 * unspecified or corrected, lse likewise): the sink does not change it.
 *
 * Refused (FIA_ERR_PARAM_INVALID, nothing computed): a dtype other than
 * bf16 (RELEASED: the released tests use bf16; the oracle's SINK-001), a
 * shape other than [N] (rank 1, N = num_heads; an empty tensor is [0]:
 * SINK-002).  Not modeled (FIA_ERR_NOT_MODELED): the sink with 002's full
 * int8 (p->int8_quant, an int8 query without rope: P is quantized to int8 with
 * quant_scale1 in ref_int8_quant.c, and nothing says how the sink's weight
 * would be; the oracle's NM-015).
 *
 * With MLA (p->qr: query_rope / key_rope, D 512 or 128) and MLA's full
 * quantization (p->query_quant, an int8 query with rope) the sink means the
 * same: s_j are MLA's scores (q . k_j + q_rope . k_rope_j) * scale, then the
 * mask; N is num_heads (32, 64 or 128 at D 512).  Those rows go through the
 * same math core (ref.c compute_row sets has_sink / sink on every row), so
 * nothing here differs for them. */
#include <math.h>
#include "ref_internal.h"

fia_status ref_read_sink(ref_problem *p, const fia_case *c,
                         const fia_case_data *d, fia_error *err)
{
    (void)c;
    if (!ref_slot_given(d, FIA_SLOT_LEARNABLE_SINK))
        return FIA_OK;
    if (d->n[FIA_SLOT_LEARNABLE_SINK] > 1)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "learnable_sink is one tensor, not a list of %d",
                        (int)d->n[FIA_SLOT_LEARNABLE_SINK]);
    const fia_tensor *s = fia_case_data_tensor(d, FIA_SLOT_LEARNABLE_SINK);
    if (p->int8_quant)
        return fia_fail(err, FIA_ERR_NOT_MODELED,
                        "not modeled yet: learnable_sink with 002's full "
                        "int8 (an int8 query without rope)");
    if (s->dtype != FIA_DT_BF16)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "learnable_sink is %s, not bf16 (RELEASED: the "
                        "released code takes bf16)",
                        fia_dtype_name(s->dtype));
    if (s->ndim != 1 || s->shape[0] != p->N)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "learnable_sink's shape is not [N] = [%lld] (rank 1, "
                        "one value per query head): rank %d%s%lld",
                        (long long)p->N, (int)s->ndim,
                        s->ndim >= 1 ? ", first dim " : "",
                        s->ndim >= 1 ? (long long)s->shape[0] : 0LL);
    if (!s->data)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "learnable_sink has no data (status-only "
                        "materialization)");
    p->sink = s;
    return FIA_OK;
}

double ref_sink_value(const ref_problem *p, int64_t n)
{
    return fia_load_as_double(p->sink->dtype, p->sink->data, n);
}
