/* ref/ reading, feature "mask": atten_mask's geometry and which keys it
 * excludes (docs/features/mask.md).  A nonzero element excludes
 * the key.
 *
 * Prefill (Q_S > 1): the last two dims are (rows >= Q_S, cols >= P + KV_S),
 * P the shared prefix's length (0 without; PREFIX-009); element (b, i, j)
 * at b * bstride + i * cols + j, j the logical key (a prefix's keys first,
 * read_prefix.c), with bstride 0 for a rank-2 mask or a batch dim of 1,
 * numel / B for a batch dim of B.  Only
 * sparse modes 0 and 1 read the bits; modes 2-4 use the geometry the
 * compressed mask encodes (keys_sparse.c), so the mask is not read.
 * Decode (Q_S = 1; the mode is forced to 0): (B, KV_S), (B, 1, KV_S) or
 * (B, 1, 1, KV_S), dim 0 the batch, row 0 for the single query row (never
 * with a prefix: not modeled, read_prefix.c).
 * With left padding (read_padding.c) the element read is the physical one:
 * (b, q_start + i, kv_start + j), at Q_S = 1 (b, kv_start + j) (the
 * released kernels offset the mask by both paddings); both stay within the
 * (Q_S, KV_S) the geometry checks. */
#include "ref_internal.h"

fia_status ref_read_mask(ref_problem *p, const fia_case *c,
                         const fia_case_data *d, fia_error *err)
{
    (void)c;
    p->mask = NULL;
    if (!ref_slot_given(d, FIA_SLOT_ATTEN_MASK))
        return FIA_OK;
    if (!p->decode && p->sparse_mode != 0 && p->sparse_mode != 1)
        return FIA_OK;
    const fia_tensor *m = fia_case_data_tensor(d, FIA_SLOT_ATTEN_MASK);
    if (!m->data)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "atten_mask has no data");
    int nd = m->ndim;
    if (nd < 2 || nd > 4)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "atten_mask rank %d (expected 2..4)", nd);
    int64_t cols = m->shape[nd - 1];
    int64_t numel = fia_tensor_numel(m);
    int64_t bdim;
    if (p->decode) {
        bdim = m->shape[0];
        if (cols < p->KV_S)
            return fia_fail(err, FIA_ERR_PARAM_INVALID,
                            "atten_mask has %lld columns < KV_S %lld",
                            (long long)cols, (long long)p->KV_S);
    } else {
        int64_t rows = m->shape[nd - 2];
        if (rows < p->Q_S || cols < p->P + p->KV_S)
            return fia_fail(err, FIA_ERR_PARAM_INVALID,
                            "atten_mask last dims (%lld, %lld) smaller than "
                            "(Q_S, prefix + KV_S) = (%lld, %lld)",
                            (long long)rows, (long long)cols,
                            (long long)p->Q_S, (long long)(p->P + p->KV_S));
        bdim = nd == 2 ? 1 : m->shape[0];
    }
    if (bdim == 1 || (!p->decode && nd == 2))
        p->mask_bstride = 0;
    else if (bdim == p->B)
        p->mask_bstride = numel / bdim;
    else
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "atten_mask batch dim %lld is neither 1 nor B %lld",
                        (long long)bdim, (long long)p->B);
    p->mask_cols = cols;
    p->mask = m;
    return FIA_OK;
}

int ref_mask_admits(const ref_problem *p, int64_t b, int64_t i, int64_t j)
{
    if (!p->mask)
        return 1;
    /* left padding: the element at the physical row and key */
    int64_t row = p->decode ? 0 : ref_pad_q_row(p, b, i);
    int64_t idx = b * p->mask_bstride + row * p->mask_cols +
                  ref_pad_kv_row(p, b, j);
    return fia_load_as_double(p->mask->dtype, p->mask->data, idx) == 0.0;
}
