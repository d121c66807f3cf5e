/* int8_quant at run time (docs/features/int8_quant.md "The computation"):
 * the three scales, device data read once before the run, and where an
 * int8 key / value row lies.  The two passes over the keys are
 * attention_int8_quant.c's. */
#include "fast_internal.h"

fia_status fast_int8_quant_check_data(const fast_plan *p, fia_error *err)
{
    if (p->empty || !p->int8_quant.on)
        return FIA_OK;
    for (int i = 0; i < 3; i++)
        if (p->int8_quant.s[i] == NULL)
            return fast_fail(err, FIA_ERR_RUNTIME_ERROR, "R_NO_DATA",
                             "%s has no data",
                             i == 0 ? "dequant_scale1"
                             : i == 1 ? "quant_scale1" : "dequant_scale2");
    return FIA_OK;
}

/* Scale i as float32: a uint64 dequant scale holds a float32 in its low
 * 32 bits of which the vendor keeps bits 31..13 (step 1: a 19-bit float,
 * sign, 8 exponent and 10 mantissa bits); a float32 one as given. */
static float scale_of(const fast_plan *p, int i)
{
    if (p->int8_quant.sdt[i] == FIA_DT_UINT64) {
        uint64_t u;
        memcpy(&u, p->int8_quant.s[i], sizeof u);
        return fast_bits_to_float((uint32_t)u & 0xFFFFE000u);
    }
    float f;
    memcpy(&f, p->int8_quant.s[i], sizeof f);
    return f;
}

void fast_int8_quant_apply(fast_plan *p)
{
    if (p->empty || !p->int8_quant.on)
        return;
    /* one factor for the scores (dot * ds1 * scale with the product
     * ds1 * scale rounded first: a rounding the tolerance permits) */
    p->int8_quant.sc = scale_of(p, 0) * p->scale;
    p->int8_quant.qs1 = scale_of(p, 1);
    p->int8_quant.ds2 = scale_of(p, 2);
}

void fast_int8_quant_src(const fast_plan *p, int64_t b, int64_t h, int64_t j,
                         const int8_t **k, const int8_t **v)
{
    /* contiguous or a list's tensor (no cache, prefix or token layout:
     * the exclusions), the offset in elements = bytes */
    const int64_t o = fast_kv_row(p, b, h, j);
    *k = (const int8_t *)(const void *)fast_k_base(p, b) + o;
    *v = (const int8_t *)(const void *)fast_v_base(p, b) + o;
}
