/* antiquant at run time (docs/features/antiquant.md "The computation"):
 * where an int8 / int4 key or value row lies, the scale and offset of each
 * of its elements (the plan's fast_aq, plan_antiquant.c), and the two
 * ways phase two reads the cache: rows dequantized into float (the
 * prefill's kv_pre and per-block widening, kernel widen_antiquant) and the
 * fused decode kernel that dequantizes in its loads (kernel decode_antiquant),
 * fed a block pointer per FAST_DEC_KB keys and the call's per-token scales.
 * Never a dequantized copy of the cache beyond what the fp16 path keeps
 * (its float rows).  A shared prefix never comes with antiquant (not
 * modeled, antiquant.md): keys are the batch's own rows. */
#include "fast_internal.h"

/* Element i of a scale or offset tensor of dtype dt, as float. */
static float aq_val(fia_dtype dt, const void *t, int64_t i)
{
    if (dt == FIA_DT_FP32)
        return ((const float *)t)[i];
    const uint16_t h = ((const uint16_t *)t)[i];
    return dt == FIA_DT_FP16 ? fast_fp16_to_float(h) : fast_bf16_to_float(h);
}

static bool is_token(fast_aq_form f)
{
    return f == FAST_AQ_TOKEN || f == FAST_AQ_TOKEN_HEAD ||
           f == FAST_AQ_PAGE_TOKEN || f == FAST_AQ_PAGE_TOKEN_HEAD;
}

bool fast_aq_head(const fast_plan *p, int kv, int64_t n, float *sv,
                  float *ov)
{
    const fast_aq *a = &p->antiquant.aq[kv];
    if (is_token(a->form))
        return false;
    for (int64_t d = 0; d < p->D; d++) {
        /* per-tensor [k], per-head [n], per-channel [n][d] */
        const int64_t i = a->base + (a->form == FAST_AQ_TENSOR ? 0
                                     : a->form == FAST_AQ_HEAD ? n
                                                               : n * p->D + d);
        sv[d] = aq_val(a->sdt, a->scale, i);
        ov[d] = a->offset ? aq_val(a->sdt, a->offset, i) : 0.0f;
    }
    return true;
}

void fast_aq_key(const fast_plan *p, int kv, int64_t b, int64_t n, int64_t j,
                 float *s, float *o)
{
    const fast_aq *a = &p->antiquant.aq[kv];
    int64_t i;
    if (a->form == FAST_AQ_PAGE_TOKEN || a->form == FAST_AQ_PAGE_TOKEN_HEAD) {
        /* the slot that holds logical key j, through the block table */
        const int64_t id =
            p->page.bt[b * p->page.bt_cols + j / p->page.block_size];
        i = id * a->st_b + n * a->st_n + (j % p->page.block_size) * a->st_s;
    } else {
        /* the physical row of the key's S axis (kv left padding), the
         * logical key of a paged cache or a list */
        const int64_t s = p->padding.kv_start ? p->padding.kv_start[b] + j : j;
        i = a->base + b * a->st_b + n * a->st_n + s * a->st_s;
    }
    *s = aq_val(a->sdt, a->scale, i);
    *o = a->offset ? aq_val(a->sdt, a->offset, i) : 0.0f;
}

void fast_aq_src(const fast_plan *p, int64_t b, int64_t h, int64_t j,
                 const void **k, const void **v)
{
    int64_t o = fast_kv_row(p, b, h, j); /* in elements */
    if (p->kv_dt == FIA_DT_INT4)
        o /= 2; /* every row starts at an even element: D is even */
    *k = (const char *)fast_k_base(p, b) + o;
    *v = (const char *)fast_v_base(p, b) + o;
}

bool fast_widen_antiquant_rows(const fast_plan *p, const fast_kernels *kern,
                               int64_t b, int64_t h, int64_t j0, int nk,
                               const float *hv, float *kd, float *vd,
                               int64_t ldd)
{
    const int64_t D = p->D, Dp = p->sched.Dp;
    const int int4 = p->kv_dt == FIA_DT_INT4;
    const bool kch = !is_token(p->antiquant.aq[0].form),
               vch = !is_token(p->antiquant.aq[1].form);
    bool vfinite = true;
    for (int c = 0; c < nk; c++) {
        const void *kr, *vr;
        fast_aq_src(p, b, h, j0 + c, &kr, &vr);
        float ks = 0, ko = 0, vs = 0, vo = 0;
        if (!kch)
            fast_aq_key(p, 0, b, h, j0 + c, &ks, &ko);
        if (!vch)
            fast_aq_key(p, 1, b, h, j0 + c, &vs, &vo);
        kern->widen_antiquant(kr, int4, kch ? hv : NULL, hv + Dp, ks, ko,
                              kd + c * ldd, D);
        vfinite &= kern->widen_antiquant(vr, int4, vch ? hv + 2 * Dp : NULL,
                                         hv + 3 * Dp, vs, vo, vd + c * ldd, D);
    }
    return vfinite;
}

void fast_aq_heads(const fast_plan *p, int64_t h, float *hv)
{
    const int64_t Dp = p->sched.Dp;
    memset(hv, 0, (size_t)(4 * Dp) * sizeof(float));
    fast_aq_head(p, 0, h, hv, hv + Dp);
    fast_aq_head(p, 1, h, hv + 2 * Dp, hv + 3 * Dp);
}

bool fast_aq_decode(const fast_plan *p, const fast_kernels *kern, int64_t b,
                    int64_t h, const float *q, int mr, int64_t jmin,
                    int64_t jmax, int round, const uint16_t *const *bias,
                    const float *hv, float *tok, float *m, float *l,
                    float *acc)
{
    const int64_t Dp = p->sched.Dp;
    const int int4 = p->kv_dt == FIA_DT_INT4;
    const bool kch = !is_token(p->antiquant.aq[0].form),
               vch = !is_token(p->antiquant.aq[1].form);
    const void *kp[64], *vp[64];
    const uint16_t *bb[FAST_DOT_MAX];
    for (int64_t j = jmin; j <= jmax;) {
        const int64_t start = j;
        int n = 0;
        while (j <= jmax && n < 64) {
            const int64_t run = fast_kv_run(p, j, jmax + 1 - j);
            const int64_t g = run < FAST_DEC_KB ? run : FAST_DEC_KB;
            fast_aq_src(p, b, h, j, &kp[n], &vp[n]);
            n++;
            j += g;
            if (g < FAST_DEC_KB)
                break; /* only the last block of a call may be short */
        }
        const int64_t nk = j - start;
        /* the call's per-token scales and offsets (tok: 4 x 1024) */
        for (int64_t c = 0; c < nk; c++) {
            if (!kch)
                fast_aq_key(p, 0, b, h, start + c, &tok[c], &tok[1024 + c]);
            if (!vch)
                fast_aq_key(p, 1, b, h, start + c, &tok[2048 + c],
                            &tok[3072 + c]);
        }
        const fast_aq_dec ka = {!kch, kch ? hv : tok, kch ? hv + Dp
                                                          : tok + 1024};
        const fast_aq_dec va = {!vch, vch ? hv + 2 * Dp : tok + 2048,
                                vch ? hv + 3 * Dp : tok + 3072};
        if (bias != NULL)
            for (int r = 0; r < mr; r++)
                bb[r] = bias[r] + (start - jmin);
        if (!kern->decode_antiquant(q, Dp, mr, kp, vp, p->k_ss, int4, &ka, &va,
                                    bias ? bb : NULL, nk, p->D, p->dt, p->scale,
                                    round, m, l, acc, Dp))
            return false;
    }
    if (vch) /* acc in units of 1 / s_d (kernels.h: decode_antiquant) */
        for (int r = 0; r < mr; r++)
            for (int64_t d = 0; d < p->D; d++)
                acc[r * Dp + d] *= hv[2 * Dp + d];
    return true;
}

fia_status fast_aq_check_data(const fast_plan *p, fia_error *err)
{
    if (p->empty || !p->antiquant.on)
        return FIA_OK;
    /* a scale without elements (a per-token S' of 0 over empty key/value)
     * has no data to read, and none is read */
    if ((p->antiquant.aq[0].scale == NULL && p->antiquant.aq[0].numel > 0) ||
        (p->antiquant.aq[1].scale == NULL && p->antiquant.aq[1].numel > 0))
        return fast_fail(err, FIA_ERR_RUNTIME_ERROR, "R_NO_DATA",
                         "an antiquant scale has no data");
    return FIA_OK;
}
