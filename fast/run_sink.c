/* sink: at run time, how 004's learnable_sink ends a row (check_sink.c;
 * docs/features/sink.md).  Head n's sink is one more key of score
 * sink[n] (not scaled) and no value: with the row's keys' running max m,
 * sum l = sum_j e^(s_j - m) and acc = sum_j e^(s_j - m) v_j,
 *     out = acc / (l + e^(sink - m)),
 *     lse = M + log(l e^(m - M) + e^(sink - M)),  M = max(m, sink).
 * The key loops (every path: the tiled and dot forms, the fused decode
 * kernel, antiquant, pse, masks, MLA's rope columns and NZ rows, MLA's
 * full quantization) never see it: it changes only how a row ends, once
 * per row: where a task stores a row, or where the decode splits (and a
 * shared prefix's partials) merge, after the merge, never per split.
 * Every call's rows end in those two places (MLA's too: its scores are
 * one reduction over D + rope.D columns, its m, l, acc those of any call; an
 * int8 MLA query's dequantized rows likewise), so the sink needs nothing
 * per path; only 002's full int8 (P quantized against quant_scale1) is
 * refused (check_sink.c).  acc is not rescaled: the sink goes into the
 * divisor, in double like the division and the lse (fast_store_row).
 *
 * Through the formula in IEEE arithmetic (docs/semantics.md "Non-finite
 * inputs", the sink being a score):
 *   sink -inf: weight e^(-inf - m) = 0, the row is the row without a sink
 *     (its NaN too when its keys all scored -inf: -inf - -inf);
 *   sink NaN: the max is NaN, the row NaN (outputs and lse);
 *   sink +inf: a score of +inf makes the row NaN (+inf - +inf), as a key's
 *     does, not the limit 0 / lse +inf;
 *   sink finite, the row's keys all scored -inf (l = 0 and m = -inf, or a
 *     pse's -inf clamped to -FLT_MAX: fast_pse_all_dropped): every key's
 *     weight is 0, so the output is 0 (NaN where 0 meets a non-finite v:
 *     acc already holds that NaN, or, under the clamp, the non-finite sum
 *     of v), lse = sink.  e^(sink - m) = +inf gives exactly that: acc / inf.
 *   A finite sink far above m: e^(sink - m) may overflow the double; the
 *     output is then acc / inf = 0, which it is below the output's
 *     smallest subnormal anyway, and the lse, formed against M, stays
 *     right.
 * A row that uses no key (fully masked, kv length 0, padding, beyond its
 * batch) never comes here: it ends as without a sink (the notes' reading:
 * the sink does not change what such a row gives). */
#include "fast_internal.h"

bool fast_sink_end(const fast_plan *p, int64_t b, int64_t n, int64_t i,
                   float m, double l, const float *acc,
                   const struct fast_kernels *kern)
{
    const double s = (double)fast_bf16_to_float(p->sink.data[n]);
    if (s == -INFINITY)
        return false;
    if (isnan(s) || s == INFINITY) {
        fast_store_nan(p, b, n, i);
        return true;
    }
    /* the clamp stands for -inf: every key's weight is 0 */
    const double mm = l == 0.0 || fast_pse_all_dropped(p, m) ? -INFINITY
                                                             : (double)m;
    const double big = mm > s ? mm : s;
    /* mm = -inf: l e^(-inf) = l * 0 = 0 (l finite) */
    const double lse = big + log(l * exp(mm - big) + exp(s - big));
    fast_store_row(p, b, n, i, acc, l + exp(s - mm), kern);
    fast_store_lse(p, b, n, i, lse);
    return true;
}
