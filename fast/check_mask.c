/* mask: atten_mask's dtypes and shapes, and which keys it excludes (the
 * plan's mask.data, .sb, .ss; attention.c applies the bits). */
#include "validate.h"

/* Layer 2.  REG_OP registers FLOAT16 for atten_mask; tiling rejects it
 * later (RELEASED), see S_MASK_DTYPE. */
fia_status fast_check_mask_dtypes(const fast_args *a, fast_plan *p,
                                  fia_error *err)
{
    (void)p;
    if (a->mask && !fast_dtype_in(a->mask->dtype,
                                  FAST_DTYPES(FIA_DT_BOOL, FIA_DT_INT8,
                                              FIA_DT_UINT8, FIA_DT_FP16)))
        return FAST_BADTYPE("T_MASK", "atten_mask dtype %s not in {bool, int8, "
                            "uint8, fp16}", fast_dtype_name(a->mask->dtype));
    return FIA_OK;
}

/* Mask shape rules (002 attenMaskOptional, 约束说明 sparseMode).  The
 * documents allow the last two dims to be aligned up ("可以向上取到对齐的S");
 * we accept any rows >= Q_S and cols >= KV_S rather than only the 16/32
 * alignments (decision: the reading of docs/features/mask.md).  The batch dim
 * may be B or 1 for Q_S > 1 (the listed shapes); for Q_S = 1 the listed
 * shapes all start with B, so only B is accepted (1 when B = 1). */
static fia_status check_shape(const fast_args *a, fast_plan *p, fia_error *err)
{
    const fia_tensor *m = a->mask;
    int r = m->ndim;
    const int64_t *s = m->shape;
    int64_t bdim = -1, rows, cols, mid = 1, numel;
    if (!fast_shape_numel(m, &numel))
        return FAST_REJECT("S_MASK_SHAPE", "atten_mask shape is invalid (rank %d, "
                           "negative dim or int64 overflow)", r);
    if (m->dtype == FIA_DT_FP16)
        return FAST_REJECT("S_MASK_DTYPE", "atten_mask fp16 is registered but not "
                           "supported (002 attenMaskOptional: BOOL/INT8/UINT8)");
    if ((p->Q_S > 1 || p->tnd.on) && p->sparse.mode >= 2) {
        /* 002 约束说明 Q_S>1: (S,S), (1,S,S) or (1,1,S,S) with S = 2048. */
        bool ok = (r == 2) || (r == 3 && s[0] == 1) ||
                  (r == 4 && s[0] == 1 && s[1] == 1);
        if (!ok || s[r - 2] != 2048 || s[r - 1] != 2048)
            return FAST_REJECT("S_MASK_SHAPE", "sparse_mode %d needs a 2048x2048 "
                               "compressed atten_mask ((S,S), (1,S,S) or (1,1,S,S))",
                               p->sparse.mode);
        p->mask.data = NULL; /* the mode's geometry is used, not the bits */
        return FIA_OK;
    }
    if (p->Q_S > 1) {
        if (r == 2) {
            rows = s[0], cols = s[1];
        } else if (r == 3) {
            bdim = s[0], rows = s[1], cols = s[2];
        } else if (r == 4) {
            bdim = s[0], mid = s[1], rows = s[2], cols = s[3];
        } else {
            return FAST_REJECT("S_MASK_SHAPE", "atten_mask rank %d (Q_S > 1 takes "
                               "(Q_S,KV_S), (B|1,Q_S,KV_S) or (B|1,1,Q_S,KV_S))", r);
        }
        if ((bdim != -1 && bdim != 1 && bdim != p->B) || mid != 1 ||
            rows < p->Q_S || cols < p->KV_S)
            return FAST_REJECT("S_MASK_SHAPE", "atten_mask shape does not cover "
                               "(B=%lld, Q_S=%lld, KV_S=%lld)", (long long)p->B,
                               (long long)p->Q_S, (long long)p->KV_S);
    } else {
        if (r == 2) {
            bdim = s[0], rows = 1, cols = s[1];
        } else if (r == 3) {
            bdim = s[0], rows = s[1], cols = s[2];
        } else if (r == 4) {
            bdim = s[0], mid = s[1], rows = s[2], cols = s[3];
        } else {
            return FAST_REJECT("S_MASK_SHAPE", "atten_mask rank %d (Q_S = 1 takes "
                               "(B,KV_S), (B,1,KV_S) or (B,1,1,KV_S))", r);
        }
        /* 002 attenMaskOptional (Q_S = 1): (B,KV_S), (B,1,KV_S),
         * (B,1,1,KV_S) — one row; a taller mask was found accepted by
         * fuzz_params against MASK-007. */
        if (bdim != p->B || mid != 1 || rows != 1 || cols < p->KV_S)
            return FAST_REJECT("S_MASK_SHAPE", "atten_mask shape does not cover "
                               "(B=%lld, 1, KV_S=%lld)", (long long)p->B,
                               (long long)p->KV_S);
    }
    p->mask.data = (const uint8_t *)m->data;
    p->mask.ss = cols;
    p->mask.sb = (bdim == -1 || (bdim == 1 && p->B != 1)) ? 0 : rows * cols;
    return FIA_OK;
}

/* Layer 4 (after check_sparse.c: the mode decides what the mask must be).
 * Fills mask.on, and with a mask of bits mask.data, .sb and .ss. */
fia_status fast_check_mask(const fast_args *a, fast_plan *p, fia_error *err)
{
    /* RELEASED: a float16 mask passes the registered list and tiling
     * rejects it — by its dtype, so even an empty one (MASK-002). */
    if (a->mask != NULL && a->mask->dtype == FIA_DT_FP16)
        return FAST_REJECT("S_MASK_DTYPE", "atten_mask fp16 is registered but not "
                           "supported (002 attenMaskOptional: BOOL/INT8/UINT8)");
    p->mask.on = fast_present(a->mask); /* RELEASED: empty mask = absent */
    /* 002 sparseMode: mode 1 needs the full mask, 2/3/4 the compressed one
     * (约束说明: "不传入attenMask...报错"). */
    if ((p->Q_S > 1 || p->tnd.on) && p->sparse.mode >= 1 && !p->mask.on)
        return FAST_REJECT("S_MASK_REQUIRED", "sparse_mode %d needs an atten_mask",
                           p->sparse.mode);
    if (p->mask.on)
        return check_shape(a, p, err);
    return FIA_OK;
}
