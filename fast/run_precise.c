/* precise: at run time, what a row where no key takes part gives
 * (docs/features/precise.md): with the row-invalid correction (inner_precise
 * bit 1, or sparse mode 3 with q_len > kv_len, which the operator corrects
 * by itself: 002 innerPrecise) output 0 and lse +inf; without it what the
 * released code gives (RELEASED "Degenerate shapes"): every score is the
 * mask fill, so the row is the plain mean of V. */
#include "fast_internal.h"

/* The fill a fully masked row sees in every score. */
#define FAST_MASK_FILL (-1e12)

bool fast_row_corrected(const fast_plan *p, int64_t q_len, int64_t kv_len)
{
    return p->row_invalid || (p->sparse_mode == 3 && q_len > kv_len);
}

/* Row (b, n, i) as the mean of V over the logical keys [0, kv_len) (a
 * shared prefix's first) and lse = fill + log(kv_len); tmp holds D
 * floats. */
void fast_degenerate_mean(const fast_plan *p, int64_t b, int64_t n,
                          int64_t i, int64_t kv_len, float *tmp)
{
    const int64_t kvh = n / p->group;
    for (int64_t d = 0; d < p->D; d++) {
        double sum = 0.0;
        for (int64_t j = 0; j < kv_len; j++) {
            const uint16_t *kr, *vr;
            fast_kv_src(p, b, kvh, j, &kr, &vr);
            uint16_t h = vr[d];
            sum += p->dt == FIA_DT_FP16 ? fast_fp16_to_float(h)
                                        : fast_bf16_to_float(h);
        }
        tmp[d] = (float)sum;
    }
    fast_store_scalar(p->dt, tmp, (double)kv_len, fast_out_row(p, b, n, i),
                      p->D);
    fast_store_lse(p, b, n, i, FAST_MASK_FILL + log((double)kv_len));
}
