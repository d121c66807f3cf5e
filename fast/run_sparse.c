/* sparse: at run time, the keys each query row may use under the sparse
 * mode and pre_tokens / next_tokens (docs/features/sparse.md).  The plan
 * holds the effective mode (0 when Q_S = 1) and pre/next clamped to int32;
 * the mask bits of modes 0/1 are applied on top (run_mask.c). */
#include "fast_internal.h"

/* Row i of a batch with lengths q_len, kv_len: keys [*lo, *hi] within
 * [0, kv_len) (empty when *lo > *hi).  Mode 0 with a mask: i - pre .. i +
 * next; 2: up to i; 3: up to i + off; 4: i + off - pre .. i + off + next,
 * with off = kv_len - q_len (logical rows, also under left padding; with
 * a shared prefix kv_len is the logical P + own, so mode 3's next is kv +
 * P - q as RELEASED offsets it, prefix.md); 0
 * without a mask or in a left-padding scene, and 1: every key.  pre/next
 * are clamped to int32 and i, off bounded by 2^25, so nothing overflows. */
void fast_row_band(const fast_plan *p, int64_t i, int64_t q_len,
                   int64_t kv_len, int64_t *lo, int64_t *hi)
{
    int64_t off = kv_len - q_len, l = 0, h = kv_len - 1;
    switch (p->sparse.mode) {
    case 0:
        /* mode 0 without a mask ignores pre/next, and so does mode 0 with
         * a mask in a left-padding scene (002 约束说明 sparseMode) */
        if (p->mask.data != NULL && !p->padding.on) {
            l = i - p->sparse.pre;
            h = i + p->sparse.next;
        }
        break;
    case 2: h = i; break;
    case 3: h = i + off; break;
    case 4:
        l = i + off - p->sparse.pre;
        h = i + off + p->sparse.next;
        break;
    default: break; /* 1: the mask alone */
    }
    *lo = l < 0 ? 0 : l;
    *hi = h > kv_len - 1 ? kv_len - 1 : h;
}
