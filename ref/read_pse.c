/* ref/ reading, feature "pse": pse_shift, the positional bias added to the
 * scores (docs/features/pse.md "The computation").
 *
 * Key j of row i (batch b, head n) has the score scale * (q_i . k_j) +
 * pse[b'][n][r][c]: b' = 0 for a pse of batch 1, else b; r the query row's
 * physical row (q_start + i with left padding, 0 at Q_S = 1) and c the
 * key's physical column (kv_start + j with left padding; j, the logical key
 * index, with page attention or a key/value list, whose padding is ignored
 * or refused: read_padding.c).  The S dims may be larger than (Q_S, KV_S)
 * (002 "多余部分的填充值不做要求"): the rest is never read.
 *
 * The shape and dtype rules (PSE-001..005, TENS-013) and the token layouts'
 * refusal (TND-X02) are the oracle's, checked before the reference runs;
 * here only what the rows cannot be read from is refused
 * (FIA_ERR_PARAM_INVALID), so that no element outside the tensor is ever
 * read: another dtype than fp16 / bf16, another rank than 4, a batch
 * neither 1 nor B, heads other than N, S dims short of the rows and columns
 * read.  An empty pse is absent (ref_slot_given).
 *
 * An fp16 query with pse runs in high precision whatever inner_precise bit
 * 0 says (002 约束说明, 000; RELEASED "float16 + pse_shift +
 * high-performance inner_precise is run in high precision"): the permitted
 * algorithm does not round P before P.V (round_p 0).  bf16 always rounds
 * P; row-invalid correction (bit 1) is unchanged. */
#include "ref_internal.h"

fia_status ref_read_pse(ref_problem *p, const fia_case *c,
                        const fia_case_data *d, fia_error *err)
{
    (void)c;
    p->pse = NULL;
    if (!ref_slot_given(d, FIA_SLOT_PSE_SHIFT))
        return FIA_OK;
    if (p->tnd)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "a token layout takes no pse_shift (TND-X02)");
    const fia_tensor *t = fia_case_data_tensor(d, FIA_SLOT_PSE_SHIFT);
    if (t->dtype != FIA_DT_FP16 && t->dtype != FIA_DT_BF16)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "pse_shift dtype %s (expected fp16 or bf16)",
                        fia_dtype_name(t->dtype));
    if (t->ndim != 4)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "pse_shift has rank %d (expected 4)", (int)t->ndim);
    /* a shared prefix: the pse's columns are the logical keys (prefix key
     * j at j, own key j at P + j; PREFIX-010 makes them that many at
     * Q_S > 1); at Q_S = 1 PSE-004 asks only KV_S columns: a pse that wide
     * is read the same way, a narrower one is not modeled */
    const int64_t cols = p->KV_S + (p->kp != NULL ? p->P : 0);
    if (p->kp != NULL && p->decode && t->ndim == 4 && t->shape[3] < cols)
        return fia_fail(err, FIA_ERR_NOT_MODELED, "not modeled yet: "
                        "pse_shift of %lld columns with a shared prefix at "
                        "Q_S = 1 (fewer than the prefix length + key S = "
                        "%lld)", (long long)t->shape[3], (long long)cols);
    const int64_t rows = p->decode ? 1 : p->Q_S;
    if ((t->shape[0] != 1 && t->shape[0] != p->B) || t->shape[1] != p->N ||
        t->shape[2] < rows || t->shape[3] < cols)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "pse_shift [%lld,%lld,%lld,%lld] is not (1 or B=%lld, "
                        "N=%lld, >= %lld, >= %lld)",
                        (long long)t->shape[0], (long long)t->shape[1],
                        (long long)t->shape[2], (long long)t->shape[3],
                        (long long)p->B, (long long)p->N, (long long)rows,
                        (long long)cols);
    if (t->data == NULL)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "pse_shift has no data");
    /* the element count fits int64 (the case model), so do these */
    p->pse_cols = t->shape[3];
    p->pse_nstride = t->shape[2] * t->shape[3];
    p->pse_bstride = t->shape[0] == 1 ? 0 : p->N * p->pse_nstride;
    p->pse = t;
    if (p->in_dtype == FIA_DT_FP16)
        p->round_p = 0;
    return FIA_OK;
}

void ref_load_pse_row(const ref_problem *p, int64_t b, int64_t n, int64_t i,
                      const int64_t *keys, int64_t nk, double *bias)
{
    if (!p->pse)
        return;
    const int64_t r = p->decode ? 0 : ref_pad_q_row(p, b, i);
    const int64_t base = b * p->pse_bstride + n * p->pse_nstride +
                         r * p->pse_cols;
    for (int64_t t = 0; t < nk; t++)
        bias[keys[t]] = fia_load_as_double(p->pse->dtype, p->pse->data,
                                           base + ref_pad_kv_row(p, b,
                                                                 keys[t]));
}

void ref_pse_range(const ref_problem *p, ref_value_range *r)
{
    if (!p->pse)
        return;
    for (int64_t b = 0; b < p->B; b++) {
        if (ref_pad_start_neg(p, b))
            continue; /* a left-padding start below 0: no row computed */
        const int64_t rows = p->decode ? 1 : p->q_len[b];
        for (int64_t n = 0; n < p->N; n++)
            for (int64_t i = 0; i < rows; i++) {
                const int64_t rr = p->decode ? 0 : ref_pad_q_row(p, b, i);
                const int64_t base = b * p->pse_bstride +
                                     n * p->pse_nstride + rr * p->pse_cols;
                for (int64_t j = 0; j < ref_kv_len(p, b); j++)
                    ref_value_range_add(r, fia_load_as_double(
                        p->pse->dtype, p->pse->data,
                        base + ref_pad_kv_row(p, b, j)));
            }
    }
}
