/* softmax (contract: kernels.h), portable: exp from libm. */
#include "../fast_internal.h"

static inline float round_p(float x, int round)
{
    return round == 1 ? fast_round_fp16f(x)
         : round == 2 ? fast_round_bf16f(x) : x;
}

void fast_softmax_scalar(float *s, int64_t lds, int mr, int nk, float scale,
                         const int32_t *lo, const int32_t *hi,
                         const uint8_t *excl, int round, float *m, float *l,
                         float *alpha)
{
    for (int r = 0; r < mr; r++) {
        float bmax = -INFINITY;
        bool any = false; /* NaN scores take part (and propagate) */
        for (int c = 0; c < nk; c++) {
            float *x = s + c * lds + r;
            bool in = c >= lo[r] && c <= hi[r] && !(excl && excl[c * lds + r]);
            *x *= scale;
            if (in) {
                bmax = *x > bmax ? *x : bmax;
                any = true;
            }
        }
        alpha[r] = 1.0f;
        if (!any) {
            for (int c = 0; c < nk; c++)
                s[c * lds + r] = 0.0f;
            continue;
        }
        float mnew = bmax > m[r] ? bmax : m[r];
        if (mnew != m[r])
            alpha[r] = expf(m[r] - mnew); /* 0 on the first block */
        /* every score so far -inf: their weights are 0 (exp(-inf - 0)),
         * not exp(-inf - (-inf)) = NaN; a later key sets the shift */
        const float msub = mnew == -INFINITY ? 0.0f : mnew;
        float sum = 0.0f;
        for (int c = 0; c < nk; c++) {
            float *x = s + c * lds + r;
            bool in = c >= lo[r] && c <= hi[r] && !(excl && excl[c * lds + r]);
            float pc = in ? expf(*x - msub) : 0.0f;
            sum += pc;
            *x = round_p(pc, round);
        }
        m[r] = mnew;
        l[r] = l[r] * alpha[r] + sum;
    }
}
