/* output (and lse): where the results of row (b, n, i) go
 * (docs/features/output.md, lse.md, int8_out.md).  attention_out's strides
 * come from the layout (executor.c); softmax_lse is [B, N, Q_S, 1] float32.
 * Row i is physical row fast_q_phys (left padding:
 * docs/features/padding.md).  An int8 attention_out holds the row
 * quantized with quant_scale2 / quant_offset2 (store_int8_out). */
#include "fast_internal.h"

/* Element offset of row (b, n, i)'s first output. */
static int64_t out_off(const fast_plan *p, int64_t b, int64_t n, int64_t i)
{
    const int64_t base = p->tnd.on ? p->tnd.q_tok[b] * p->o_ss : b * p->o_sb;
    return base + n * p->o_sn + fast_q_phys(p, b, i) * p->o_ss;
}

uint16_t *fast_out_row(const fast_plan *p, int64_t b, int64_t n, int64_t i)
{
    return (uint16_t *)p->out + out_off(p, b, n, i);
}

static int8_t *out_row8(const fast_plan *p, int64_t b, int64_t n, int64_t i)
{
    return (int8_t *)p->out + out_off(p, b, n, i);
}

void fast_store_int8_out_fill(const fast_plan *p, int64_t b, int64_t n,
                              int64_t i, int8_t v)
{
    memset(out_row8(p, b, n, i), (unsigned char)v, (size_t)p->D);
}

/* Head n's quant_scale2 / quant_offset2 as float32 (exact: fp32 or bf16):
 * an fp32 per-channel row in place, else converted into sb / ob; *stride
 * 1 per-channel, 0 per-tensor; *qo NULL without an offset. */
static void oq_row(const fast_plan *p, int64_t n, float *sb, float *ob,
                   const float **qs, const float **qo, int64_t *stride)
{
    const int64_t cnt = p->int8_out.pc ? p->D : 1,
                  at = p->int8_out.pc ? n * p->D : 0;
    *stride = p->int8_out.pc ? 1 : 0;
    if (p->int8_out.dt == FIA_DT_FP32) {
        *qs = (const float *)p->int8_out.s + at;
        *qo = p->int8_out.o ? (const float *)p->int8_out.o + at : NULL;
        return;
    }
    for (int64_t d = 0; d < cnt; d++) {
        sb[d] = fast_bf16_to_float(((const uint16_t *)p->int8_out.s)[at + d]);
        if (p->int8_out.o)
            ob[d] =
                fast_bf16_to_float(((const uint16_t *)p->int8_out.o)[at + d]);
    }
    *qs = sb;
    *qo = p->int8_out.o ? ob : NULL;
}

void fast_store_row(const fast_plan *p, int64_t b, int64_t n, int64_t i,
                    const float *acc, double l, const fast_kernels *kern)
{
    if (!p->int8_out.on) {
        (kern ? kern->store : fast_store_scalar)(p->dt, acc, l,
                                                 fast_out_row(p, b, n, i),
                                                 p->D);
        return;
    }
    float sb[FAST_D_LIMIT], ob[FAST_D_LIMIT];
    const float *qs, *qo;
    int64_t stride;
    oq_row(p, n, sb, ob, &qs, &qo, &stride);
    (kern ? kern->store_int8_out : fast_store_int8_out_scalar)(
        acc, l, qs, qo, stride, out_row8(p, b, n, i), p->D);
}

void fast_store_lse(const fast_plan *p, int64_t b, int64_t n, int64_t i,
                    double x)
{
    if (p->lse != NULL && p->tnd.on) /* (T, N, 1) */
        p->lse[(p->tnd.q_tok[b] + i) * p->N + n] = (float)x;
    else if (p->lse != NULL)
        p->lse[(b * p->N + n) * p->Q_S + fast_q_phys(p, b, i)] = (float)x;
}

/* Output 0 exactly (an int8 output: 0 quantized, sat(round(qo))), lse
 * +inf. */
void fast_store_zero(const fast_plan *p, int64_t b, int64_t n, int64_t i)
{
    if (p->int8_out.on) {
        static const float zeros[FAST_D_LIMIT];
        fast_store_row(p, b, n, i, zeros, 1.0, NULL);
    } else {
        memset(fast_out_row(p, b, n, i), 0, (size_t)p->D * sizeof(uint16_t));
    }
    fast_store_lse(p, b, n, i, INFINITY);
}

void fast_store_kv_return(const fast_plan *p)
{
    if (p->out != NULL)
        memset(p->out, 0, (size_t)p->out_numel * (p->int8_out.on ? 1u : 2u));
    for (int64_t j = 0; p->lse != NULL && j < p->lse_numel; j++)
        p->lse[j] = INFINITY;
}
