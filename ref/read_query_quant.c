/* ref/ reading, feature "query_quant": MLA's full quantization (003
 * §约束说明 > MLA > query的D等于512 > 支持全量化场景; §参数说明
 * dequant_scale_query, query_quant_mode, dequant_scale_key / _value).
 *
 * The scene is read_tensors.c's (p->query_quant: an int8 query with rope, int8
 * key and value).  Its values are the dequantized ones:
 *
 *   q[b, n, s, :] = q_int8[b, n, s, :] * dequant_scale_query[token (b, s),
 *                   head n]                      (per-token-per-head, mode 3)
 *   k[b, j, :]    = k_int8[b, j, :] * dequant_scale_key[0]   (per-tensor)
 *   v[b, j, :]    = v_int8[b, j, :] * dequant_scale_value[0] (per-tensor)
 *
 * and the rest is MLA's (read_mla.c): s_j = scale * (q . k_j + q_rope .
 * k_rope_j), the mask, the softmax, o = sum p_j v_j rounded to bf16.  Each
 * product int8 x fp32 has at most 8 + 24 significant bits: exact in
 * binary64, so the rows the math core sees are the exact values
 * (read_layout.c multiplies as it loads; 003 calls dequant_scale_key /
 * _value the slots key_antiquant_scale / value_antiquant_scale of the case
 * model, docs/case-format.md).
 *
 * dequant_scale_query has the query's shape without D (the released code's
 * shape, QQ-003): BSH and BSND (B, Q_S, N), BNSD (B, N, Q_S); the *_NBSD
 * outputs read the query in their input layout.  Scale of row (b, n, i):
 * BSH/BSND element (b Q_S + i) N + n, BNSD (b N + n) Q_S + i.
 *
 * Refused (FIA_ERR_PARAM_INVALID, nothing computed): what the oracle's
 * rules reject and the reading cannot read past (a scale missing, of
 * another dtype or shape, a mode other than 3 / 0 / 0, key/value offsets,
 * output quantization, a token layout); FIA_ERR_NOT_MODELED: 002's
 * dequant_scale1 / quant_scale1 / dequant_scale2 beside the scene (NM-010).
 *
 * The tolerance model (ref.c, docs/tolerance.md "MLA full quantization")
 * covers scales whose dequantized values are normal float32 numbers or 0
 * with no float32 overflow: each scale 0 or of magnitude in [2^-126,
 * FLT_MAX / 2^8).  Any other finite scale leaves the bounds infinite
 * (p->query_quant_unmodeled); a NaN or infinite scale too. */
#include <float.h>
#include <math.h>
#include "ref_internal.h"

static const fia_tensor *slot(const fia_case_data *d, fia_slot s)
{
    return ref_slot_given(d, s) ? fia_case_data_tensor(d, s) : NULL;
}

/* A per-tensor scale: fp32 of shape [1], with data. */
static fia_status read_one(const fia_case_data *d, fia_slot s, double *out,
                           fia_error *err)
{
    const fia_tensor *t = slot(d, s);
    if (t == NULL || t->dtype != FIA_DT_FP32 || t->ndim != 1 ||
        t->shape[0] != 1 || t->data == NULL)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "MLA full quantization: "
                        "%s must be an fp32 [1] with data", fia_slot_name(s));
    *out = fia_load_as_double(FIA_DT_FP32, t->data, 0);
    return FIA_OK;
}

/* A dequantized value x_int8 * s (|x_int8| <= 128) is 0 or a normal float32
 * number, and rounding it to float32 or a product with it cannot overflow
 * by itself, when s is 0 or 2^-126 <= |s| < FLT_MAX / 2^8. */
static int scale_modeled(double s)
{
    const double a = fabs(s);
    return a == 0.0 || (a >= FLT_MIN && a < FLT_MAX / 256.0);
}

static int64_t dsq_index(const ref_problem *p, int64_t b, int64_t n,
                         int64_t i)
{
    if (p->layout == REF_LAYOUT_BNSD)
        return (b * p->N + n) * p->Q_S + i;
    return (b * p->Q_S + i) * p->N + n;
}

double ref_query_quant_q_scale(const ref_problem *p, int64_t b, int64_t n,
                               int64_t i)
{
    return fia_load_as_double(FIA_DT_FP32, p->query_quant_dsq->data,
                              dsq_index(p, b, n, i));
}

static fia_status refuse_extras(const ref_problem *p, const fia_case *c,
                                const fia_case_data *d, fia_error *err)
{
    static const fia_slot int8_quant_slots[] = {FIA_SLOT_DEQUANT_SCALE1,
                                                FIA_SLOT_QUANT_SCALE1,
                                                FIA_SLOT_DEQUANT_SCALE2};
    static const fia_slot no[] = {
        FIA_SLOT_QUANT_SCALE2, FIA_SLOT_QUANT_OFFSET2,
        FIA_SLOT_KEY_ANTIQUANT_OFFSET, FIA_SLOT_VALUE_ANTIQUANT_OFFSET,
        FIA_SLOT_ANTIQUANT_SCALE, FIA_SLOT_ANTIQUANT_OFFSET};
    if (p->tnd)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "a token layout takes no "
                        "full quantization (003)");
    if (c->attrs.query_quant_mode != 3 || c->attrs.key_antiquant_mode != 0 ||
        c->attrs.value_antiquant_mode != 0)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "MLA full quantization: "
                        "query_quant_mode 3, key / value modes 0");
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        if (slot(d, no[i]))
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "MLA full "
                            "quantization takes no %s",
                            fia_slot_name(no[i]));
    for (size_t i = 0; i < sizeof int8_quant_slots / sizeof int8_quant_slots[0];
         i++)
        if (slot(d, int8_quant_slots[i]))
            return fia_fail(err, FIA_ERR_NOT_MODELED, "not modeled yet: %s "
                            "beside MLA full quantization",
                            fia_slot_name(int8_quant_slots[i]));
    return FIA_OK;
}

fia_status ref_read_query_quant(ref_problem *p, const fia_case *c,
                                const fia_case_data *d, fia_error *err)
{
    if (!p->query_quant)
        return FIA_OK;
    fia_status st = refuse_extras(p, c, d, err);
    if (st != FIA_OK)
        return st;
    const fia_tensor *t = slot(d, FIA_SLOT_DEQUANT_SCALE_QUERY);
    const int bnsd = p->layout == REF_LAYOUT_BNSD;
    const int64_t want[3] = {p->B, bnsd ? p->N : p->Q_S,
                             bnsd ? p->Q_S : p->N};
    if (t == NULL || t->dtype != FIA_DT_FP32 || !ref_shape_is(t, 3, want) ||
        t->data == NULL)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "MLA full quantization: "
                        "dequant_scale_query must be fp32 (%lld, %lld, %lld) "
                        "with data", (long long)want[0], (long long)want[1],
                        (long long)want[2]);
    p->query_quant_dsq = t;
    st = read_one(d, FIA_SLOT_KEY_ANTIQUANT_SCALE, &p->query_quant_dsk, err);
    if (st == FIA_OK)
        st = read_one(d, FIA_SLOT_VALUE_ANTIQUANT_SCALE, &p->query_quant_dsv,
                      err);
    if (st != FIA_OK)
        return st;
    p->query_quant_unmodeled = !scale_modeled(p->query_quant_dsk) ||
                               !scale_modeled(p->query_quant_dsv);
    /* the query scales of the rows computed (a scale no row reads does not
     * matter) */
    for (int64_t b = 0; b < p->B && !p->query_quant_unmodeled; b++)
        for (int64_t n = 0; n < p->N; n++)
            for (int64_t i = 0; i < p->q_len[b]; i++)
                if (!scale_modeled(ref_query_quant_q_scale(p, b, n, i)))
                    p->query_quant_unmodeled = 1;
    return FIA_OK;
}
