/* mask: at run time, the atten_mask bits of a block of keys
 * (docs/features/mask.md).  The plan's mask.data is NULL unless it is read
 * (modes 0 and 1; decode); element (b, i, j) is at data[b * sb + i * ss +
 * j] (sb = 0 broadcasts), and on the decode path every row reads
 * mask row 0.  i and j are physical rows: under left padding the mask of
 * query row i, key j is element (q_start + i, kv_start + j)
 * (docs/features/padding.md: the released kernels offset the mask by both
 * paddings).  With a shared prefix (never with left padding) j is the
 * logical key: prefix key j reads column j, own key j column P + j
 * (prefix.md; PREFIX-009 made the mask that wide). */
#include "fast_internal.h"

/* excl[c * ld + r] = the mask bit of key j0 + c for task row r (query row
 * i0 + r % nq of batch b), c < nk, for the rows that use a key of the block
 * (lo[r] <= hi[r]); other rows' bits are left as they are (unused). */
void fast_mask_block(const fast_plan *p, int64_t b, int64_t i0, int nq,
                     int mr, int64_t j0, int nk, const int32_t *lo,
                     const int32_t *hi, uint8_t *excl, int64_t ld)
{
    const int64_t kv0 = p->padding.kv_start ? p->padding.kv_start[b] : 0;
    const uint8_t *mask = p->mask.data + b * p->mask.sb + kv0 + j0;
    const bool q1 = p->Q_S == 1; /* decode: mask row 0 */
    for (int r = 0; r < mr; r++) {
        if (lo[r] > hi[r])
            continue; /* no key of this block: bits unused */
        int64_t i = fast_q_phys(p, b, i0 + r % nq);
        const uint8_t *mrow = mask + (q1 ? 0 : i * p->mask.ss);
        for (int c = 0; c < nk; c++)
            excl[c * ld + r] = mrow[c];
    }
}

/* Whether some key j in [jlo, jhi] of query row i of batch b is not masked
 * out (no mask: whether the range is not empty).  For a row whose online
 * softmax ended with l = 0: with such a key every key it used scored -inf
 * (the row is NaN, docs/semantics.md), without one it had no key. */
bool fast_mask_any_open(const fast_plan *p, int64_t b, int64_t i,
                        int64_t jlo, int64_t jhi)
{
    if (jlo > jhi || p->mask.data == NULL)
        return jlo <= jhi;
    const int64_t kv0 = p->padding.kv_start ? p->padding.kv_start[b] : 0;
    const uint8_t *mrow = p->mask.data + b * p->mask.sb + kv0 +
                          (p->Q_S == 1 ? 0 : fast_q_phys(p, b, i) * p->mask.ss);
    for (int64_t j = jlo; j <= jhi; j++)
        if (mrow[j] == 0)
            return true;
    return false;
}
