/* ref/ reading, feature "int8_quant": full int8 quantization, an int8
 * query with int8 key and value (docs/features/int8_quant.md "The
 * computation").  The scene is read_tensors.c's (p->int8_quant); this step
 * reads the three per-tensor scales:
 *
 *   dequant_scale1 (after Q.K^T), dequant_scale2 (after P.V): uint64, the
 *     low 32 bits an IEEE float32 of which the vendor keeps bits 31..13
 *     (RELEASED "Numeric pipeline": a 19-bit float), or float32 as given;
 *   quant_scale1 (P before P.V): float32 as given.
 *
 * Every value is exact in binary64.  The oracle checks the documented rules
 * (Q8-001..008); this step only refuses what it cannot read. */
#include <string.h>
#include "ref_internal.h"

/* Element 0 of a dequant scale: the 19-bit float of a uint64's low word,
 * or a float32. */
static double dequant_value(const fia_tensor *t)
{
    if (t->dtype == FIA_DT_UINT64) {
        uint64_t w;
        memcpy(&w, t->data, sizeof w);
        uint32_t bits = (uint32_t)(w & 0xFFFFFFFFu) & 0xFFFFE000u;
        float f;
        memcpy(&f, &bits, sizeof f);
        return (double)f;
    }
    return fia_load_as_double(FIA_DT_FP32, t->data, 0);
}

static fia_status read_scale(const fia_case_data *d, fia_slot s, int dq,
                             double *out, fia_error *err)
{
    const fia_tensor *t = ref_slot_given(d, s) ? fia_case_data_tensor(d, s)
                                               : NULL;
    if (t == NULL || t->data == NULL || fia_tensor_numel(t) != 1)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "int8 query without a one-element %s with data",
                        fia_slot_name(s));
    if (t->dtype != FIA_DT_FP32 && !(dq && t->dtype == FIA_DT_UINT64))
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "%s dtype %s",
                        fia_slot_name(s), fia_dtype_name(t->dtype));
    *out = dq ? dequant_value(t) : fia_load_as_double(FIA_DT_FP32, t->data, 0);
    return FIA_OK;
}

fia_status ref_read_int8_quant(ref_problem *p, const fia_case *c,
                               const fia_case_data *d, fia_error *err)
{
    (void)c;
    if (!p->int8_quant)
        return FIA_OK;
    fia_status st =
        read_scale(d, FIA_SLOT_DEQUANT_SCALE1, 1, &p->int8_quant_ds1, err);
    if (st == FIA_OK)
        st = read_scale(d, FIA_SLOT_QUANT_SCALE1, 0, &p->int8_quant_qs1, err);
    if (st == FIA_OK)
        st = read_scale(d, FIA_SLOT_DEQUANT_SCALE2, 1, &p->int8_quant_ds2, err);
    return st;
}
