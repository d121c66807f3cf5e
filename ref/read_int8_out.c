/* ref/ reading, feature "int8_out": an int8 attention_out quantizes the
 * output of an fp16 / bf16 query, y = sat(round(x * qs + qo))
 * (docs/features/int8_out.md).  quant_scale2 is per-tensor (one element)
 * or per-channel (N * D elements, output column (n, d) at n * D + d);
 * quant_offset2 has its shape and dtype, or is absent (qo = 0).  Both are
 * fp32 or bf16, exact in binary64.  The oracle checks the documented
 * rules; this step only refuses what it cannot read. */
#include <math.h>
#include "ref_internal.h"

fia_status ref_read_int8_out(ref_problem *p, const fia_case *c,
                             const fia_case_data *d, fia_error *err)
{
    (void)c;
    p->oq_scale = p->oq_offset = NULL;
    p->oq_per_channel = 0;
    if (p->out_dtype != FIA_DT_INT8)
        return FIA_OK;
    const fia_tensor *s = ref_slot_given(d, FIA_SLOT_QUANT_SCALE2)
                              ? fia_case_data_tensor(d, FIA_SLOT_QUANT_SCALE2)
                              : NULL;
    if (s == NULL || s->data == NULL)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "int8 attention_out without quant_scale2 data");
    if (s->dtype != FIA_DT_FP32 && s->dtype != FIA_DT_BF16)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "quant_scale2 dtype %s (fp32 or bf16)",
                        fia_dtype_name(s->dtype));
    const int64_t n = fia_tensor_numel(s);
    if (n != 1 && n != p->N * p->D)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "quant_scale2 has %lld elements: 1 or N x D = %lld",
                        (long long)n, (long long)(p->N * p->D));
    const fia_tensor *o = ref_slot_given(d, FIA_SLOT_QUANT_OFFSET2)
                              ? fia_case_data_tensor(d, FIA_SLOT_QUANT_OFFSET2)
                              : NULL;
    if (o != NULL && fia_tensor_numel(o) == 0)
        o = NULL;
    if (o != NULL && (o->data == NULL || o->dtype != s->dtype ||
                      fia_tensor_numel(o) != n))
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "quant_offset2 unlike quant_scale2 (dtype, size) or "
                        "without data");
    p->oq_scale = s;
    p->oq_offset = o;
    p->oq_per_channel = n > 1;
    return FIA_OK;
}

static double sat_rne(double y)
{
    if (y <= -128.0)
        return -128.0;
    if (y >= 127.0)
        return 127.0;
    return nearbyint(y); /* default rounding: half to even */
}

/* The permitted algorithm computes t = fl32(fl32(x^ * qs) + qo) from an
 * x^ within b of x, then rounds t to an integer (half to even or away)
 * and saturates.  |t - (x^ qs + qo)| <= u |x^ qs| + u |x^ qs + qo|
 * <= 2u (|x^ qs| + |qo|), u = 2^-24; y = x qs + qo here in binary64 adds
 * 2^-52 (|x qs| + |qo|).  So y's bound is b |qs| + (2^-23 + 2^-52)
 * ((|x| + b) |qs| + |qo|).  Cost: a few flops per element. */
int ref_int8_out(const ref_problem *p, int64_t n, int64_t d, double x,
                 double b, uint32_t *bits, double *exact, double *bound)
{
    const int64_t i = p->oq_per_channel ? n * p->D + d : 0;
    const double qs = fia_load_as_double(p->oq_scale->dtype,
                                         p->oq_scale->data, i);
    const double qo = p->oq_offset ? fia_load_as_double(p->oq_offset->dtype,
                                                        p->oq_offset->data, i)
                                   : 0.0;
    if (isnan(x) || isnan(qs) || isnan(qo) || isinf(qs) || isinf(qo)) {
        *bits = 0, *exact = NAN, *bound = INFINITY;
        return 1;
    }
    if (isinf(x)) { /* x * qs saturates (qs = 0: NaN, unspecified) */
        if (qs == 0.0) {
            *bits = 0, *exact = NAN, *bound = INFINITY;
            return 1;
        }
        double y = (x > 0) == (qs > 0) ? 127.0 : -128.0;
        *bits = (uint32_t)(uint8_t)(int8_t)y, *exact = y, *bound = 0x1p-60;
        return 0;
    }
    const double y = x * qs + qo;
    *exact = y;
    *bound = b * fabs(qs) +
             (0x1p-23 + 0x1p-52) * ((fabs(x) + b) * fabs(qs) + fabs(qo));
    if (*bound < 0x1p-60)
        *bound = 0x1p-60;
    *bits = (uint32_t)(uint8_t)(int8_t)sat_rne(y);
    return 0;
}
