/* ref/ reading, feature "padding": query / kv left padding
 * (query_padding_size, kv_padding_size; docs/features/padding.md).
 *
 * The scenes, decided by presence (a padding tensor of numel 0 is absent,
 * ref_slot_given):
 *   query scene  query_padding_size with actual_seq_lengths, at Q_S > 1
 *                (002: "仅支持Q_S大于1，其余场景该参数无效");
 *   kv scene     kv_padding_size with actual_seq_lengths_kv, on both paths
 *                but ignored at Q_S = 1 with a key/value list or page
 *                attention (RELEASED; profile doc rejects the latter before
 *                the reference runs).
 * Without its lengths a padding tensor is ignored (right padding).  Not
 * modeled: a kv scene with a key/value list at Q_S > 1 (no document says
 * where a list's padded rows are); a padding tensor with a token layout is
 * refused earlier (read_not_modeled.c).  Page attention with a scene at
 * Q_S > 1 is a documented rejection (002 "不支持PageAttention").
 *
 * The values: element 0 of the int64 tensor, one value for every batch, a
 * value below 0 taken as 0 (002 "小于0时将被置为0").  Per batch
 *   q_start[b]  = Q_S  - p_q  - q_len[b]
 *   kv_start[b] = KV_S - p_kv - kv_len[b]
 * and a start below 0 (p > S - len, decided without forming S - p - len:
 * the value may be anything up to INT64_MAX) makes the batch's rows
 * unspecified at Q_S > 1 (002/000 "否则结果将不符合预期") and its output 0,
 * lse unspecified, at Q_S = 1 (002 "返回数据结果为全0"; ref_rows.c); its
 * starts are then 0 so that nothing is read outside the tensors.
 *
 * Everything else (sparse bands, row-invalid correction, empty sequences)
 * reads the logical i, j; the physical rows are only where elements live
 * (read_layout.c, read_lse.c) and where the mask is read (keys_mask.c). */
#include <stdlib.h>
#include <string.h>
#include "ref_internal.h"

fia_status ref_read_padding_scene(ref_problem *p, const fia_case *c,
                                  const fia_case_data *d, fia_error *err)
{
    (void)c;
    if (p->tnd)
        return FIA_OK; /* no padding with a token layout (read_not_modeled.c) */
    p->q_pad = !p->decode && ref_slot_given(d, FIA_SLOT_QUERY_PADDING_SIZE) &&
               d->arr_present[FIA_ARR_ACTUAL_SEQ_LENGTHS];
    p->kv_pad = ref_slot_given(d, FIA_SLOT_KV_PADDING_SIZE) &&
                d->arr_present[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    if (p->decode && (p->kv_list || p->paged))
        p->kv_pad = 0; /* ignored (RELEASED; PAD-N03) */
    if (!p->decode && p->paged && (p->q_pad || p->kv_pad))
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "page attention takes no left padding (002: "
                        "不支持PageAttention)");
    if (!p->decode && p->kv_pad && p->kv_list)
        return fia_fail(err, FIA_ERR_NOT_MODELED,
                        "not modeled yet: kv left padding (kv_padding_size "
                        "with actual_seq_lengths_kv) with a key/value tensor "
                        "list at Q_S > 1");
    return FIA_OK;
}

/* Element 0 of padding tensor s, below 0 taken as 0. */
static fia_status pad_value(const fia_case_data *d, fia_slot s, int64_t *v,
                            fia_error *err)
{
    const fia_tensor *t = fia_case_data_tensor(d, s);
    if (t->dtype != FIA_DT_INT64)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "%s dtype %s (expected "
                        "int64)", fia_slot_name(s), fia_dtype_name(t->dtype));
    if (t->data == NULL)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "%s has no data",
                        fia_slot_name(s));
    int64_t x;
    memcpy(&x, t->data, sizeof x);
    *v = x < 0 ? 0 : x;
    return FIA_OK;
}

/* S - pad - len, or -1 when that is below 0.  0 <= len <= S < 2^40 and
 * pad >= 0, so S - len and the difference below cannot overflow. */
static int64_t start_of(int64_t S, int64_t pad, int64_t len)
{
    return pad > S - len ? -1 : S - len - pad;
}

fia_status ref_read_padding(ref_problem *p, const fia_case *c,
                            const fia_case_data *d, fia_error *err)
{
    (void)c;
    if (!p->q_pad && !p->kv_pad)
        return FIA_OK;
    const size_t n = (size_t)(p->B > 0 ? p->B : 1);
    int64_t pq = 0, pkv = 0;
    fia_status st = FIA_OK;
    p->start_neg = calloc(n, 1);
    if (p->q_pad) {
        p->q_start = malloc(n * sizeof *p->q_start);
        st = pad_value(d, FIA_SLOT_QUERY_PADDING_SIZE, &pq, err);
    }
    if (p->kv_pad && st == FIA_OK) {
        p->kv_start = malloc(n * sizeof *p->kv_start);
        st = pad_value(d, FIA_SLOT_KV_PADDING_SIZE, &pkv, err);
    }
    if (st != FIA_OK)
        return st;
    if (!p->start_neg || (p->q_pad && !p->q_start) ||
        (p->kv_pad && !p->kv_start))
        return fia_fail(err, FIA_ERR_NOMEM, "out of memory");
    for (int64_t b = 0; b < p->B; b++) {
        int64_t qs = p->q_pad ? start_of(p->Q_S, pq, p->q_len[b]) : 0;
        int64_t ks = p->kv_pad ? start_of(p->KV_S, pkv, p->kv_len[b]) : 0;
        p->start_neg[b] = qs < 0 || ks < 0;
        if (p->start_neg[b])
            qs = ks = 0;
        if (p->q_pad)
            p->q_start[b] = qs;
        if (p->kv_pad)
            p->kv_start[b] = ks;
    }
    return FIA_OK;
}

int ref_pad_scene(const ref_problem *p)
{
    return p->q_pad || p->kv_pad;
}

/* A rotation of the S axis by q_start[b]: row i < q_len[b] lands in the
 * valid segment, rows q_len[b] .. Q_S - 1 on the rows after it and then
 * those before it (q_start[b] + q_len[b] <= Q_S). */
int64_t ref_pad_q_row(const ref_problem *p, int64_t b, int64_t i)
{
    if (!p->q_start)
        return i;
    int64_t r = p->q_start[b] + i;
    return r < p->Q_S ? r : r - p->Q_S;
}

int64_t ref_pad_kv_row(const ref_problem *p, int64_t b, int64_t j)
{
    return p->kv_start ? p->kv_start[b] + j : j;
}

int ref_pad_start_neg(const ref_problem *p, int64_t b)
{
    return p->start_neg && p->start_neg[b];
}
