/* compare/tolerance_plain: the plain same-dtype attention of the flash-attn
 * tolerance profile ("the kernel's error is at most twice that of a plain
 * implementation in the same low precision", as the FlashAttention tests
 * and the vendor's "double benchmark" do).  Plain = what PyTorch computes
 * with fp16/bf16 tensors: S = (Q K^T) * scale accumulated in float32 and
 * rounded to the dtype, P = softmax(S) in float32 rounded to the dtype,
 * O = P V accumulated in float32 and rounded to the dtype; lse in float32.
 * The rows come from ref/ (fia_ref_visit_rows): which keys take part is the
 * reference's reading of the case; the arithmetic is here.  int8 / int4
 * key and value come dequantized (exactly, to binary64): same dtype means
 * rounded to the output dtype, the query's in that scene
 * (docs/features/antiquant.md, 002 "反量化到FLOAT16").  Shares nothing
 * with fast/. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fia/compare.h"
#include "fia/dtype.h"

typedef struct plain_ctx {
    fia_dtype dt;
    fia_tensor *out, *lse;
    float *s;      /* [nk] */
    int64_t cap;
} plain_ctx;

static float to_dt(fia_dtype dt, float x)
{
    return dt == FIA_DT_BF16 ? fia_bf16_to_float(fia_float_to_bf16(x))
                             : fia_fp16_to_float(fia_float_to_fp16(x));
}

/* k or v element i, in the dtype (dequantized ones rounded once). */
static float kv_at(const plain_ctx *c, const fia_ref_row *row,
                   const double *x, int64_t i)
{
    if (!row->kv_dequantized)
        return (float)x[i];
    return c->dt == FIA_DT_BF16 ? fia_bf16_to_float(fia_double_to_bf16(x[i]))
                                : fia_fp16_to_float(fia_double_to_fp16(x[i]));
}

static int plain_row(const fia_ref_row *row, void *vctx)
{
    plain_ctx *c = vctx;
    const int64_t D = row->D, Dk = D + row->Dr, nk = row->nk;
    if (nk > c->cap) {
        float *s = realloc(c->s, (size_t)nk * sizeof *s);
        if (s == NULL)
            return FIA_ERR_NOMEM;
        c->s = s;
        c->cap = nk;
    }
    const float scale = (float)row->scale;
    float m = -INFINITY;
    for (int64_t t = 0; t < nk; t++) {
        /* MLA: q . k + q_rope . k_rope, one dot over the Dk columns */
        float acc = 0.0f;
        for (int64_t d = 0; d < Dk; d++)
            acc += (float)row->q[d] * kv_at(c, row, row->k, t * Dk + d);
        /* pse_shift added after the scale, in float32 (RELEASED "Numeric
         * pipeline") */
        const float bias = row->bias != NULL ? (float)row->bias[t] : 0.0f;
        c->s[t] = to_dt(c->dt, acc * scale + bias);
        if (c->s[t] > m || isnan(c->s[t]))
            m = c->s[t];
    }
    float sum = 0.0f;
    for (int64_t t = 0; t < nk; t++) {
        c->s[t] = expf(c->s[t] - m);
        sum += c->s[t];
    }
    for (int64_t t = 0; t < nk; t++)
        c->s[t] = to_dt(c->dt, c->s[t] / sum);
    for (int64_t d = 0; d < D; d++) {
        float acc = 0.0f;
        for (int64_t t = 0; t < nk; t++)
            acc += c->s[t] * kv_at(c, row, row->v, t * D + d);
        uint16_t h = c->dt == FIA_DT_BF16 ? fia_float_to_bf16(acc)
                                          : fia_float_to_fp16(acc);
        ((uint16_t *)c->out->data)[row->out_index[d]] = h;
    }
    if (c->lse && row->lse_index >= 0)
        ((float *)c->lse->data)[row->lse_index] = m + logf(sum);
    return 0;
}

fia_status fia_tolerance_plain(const fia_case *c, const fia_case_data *d,
                               fia_tensor *out, fia_tensor *lse,
                               fia_error *err)
{
    if (out == NULL || (out->dtype != FIA_DT_FP16 && out->dtype != FIA_DT_BF16)
        || (lse != NULL && lse->dtype != FIA_DT_FP32))
        return fia_fail(err, FIA_ERR_BAD_INPUT, "plain implementation: "
                        "fp16/bf16 output and fp32 lse only");
    /* the rows through ref/, each into plain_row */
    plain_ctx ctx = {.dt = out->dtype, .out = out, .lse = lse};
    fia_error verr;
    fia_error_clear(&verr);
    fia_status st = fia_ref_visit_rows(c, d, plain_row, &ctx, &verr);
    free(ctx.s);
    if (st != FIA_OK && verr.code == FIA_OK)
        return fia_fail(err, st, "plain implementation: status %d", (int)st);
    if (st != FIA_OK)
        return fia_fail(err, st, "%s", verr.msg);
    fia_error_clear(err);
    return FIA_OK;
}
