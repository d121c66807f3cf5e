/* ref/ref_kv_return: the released code's answer to a call that reads no
 * key (profile cann; RELEASED "Degenerate shapes"): attention_out all
 * zeros, softmax_lse +inf, returned before the checks of its later stage
 * (head counts, precision mode, MLA's limits, value's D, the output's
 * shape, the prefix length), so whatever those would say of the call.  The
 * reference reads that scene on its own: every used actual_seq_lengths_kv
 * value 0, or without the array (and without page attention) every key
 * tensor's S 0; the shared prefix does not count.  Exact values: zero
 * outputs, bound 0. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ref_internal.h"

/* The key's S axis for a batched layout (the input part of the name), or
 * -1. */
static int s_axis(const char *layout)
{
    if (strncmp(layout, "BSH", 3) == 0 || strncmp(layout, "BSND", 4) == 0)
        return 1;
    if (strncmp(layout, "BNSD", 4) == 0)
        return 2;
    return -1;
}

static int used_all_zero(const fia_int_array_spec *a, int64_t B)
{
    const int64_t n = a->count == 1 ? 1 : a->count >= B ? B : 0;
    if (n == 0 || a->values == NULL)
        return 0;
    for (int64_t b = 0; b < n; b++)
        if (a->values[b] != 0)
            return 0;
    return 1;
}

int ref_reads_no_key(const fia_case *c)
{
    const fia_tensor_spec *q = &c->tensors[FIA_SLOT_QUERY];
    const fia_tensor_spec *k = &c->tensors[FIA_SLOT_KEY];
    const fia_int_array_spec *kv = &c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    const int kv_given = kv->presence == FIA_PRESENT;
    if (q->presence != FIA_PRESENT || q->count < 1 ||
        fia_tensor_numel(&q->t[0]) <= 0 || k->presence != FIA_PRESENT)
        return 0;
    if (fia_layout_is_tnd(c->attrs.input_layout))
        return kv_given && kv->count >= 1 && used_all_zero(kv, kv->count);
    const int ax = s_axis(c->attrs.input_layout);
    if (ax < 0 || q->t[0].ndim < 3 || q->t[0].shape[0] < 1)
        return 0;
    const int64_t B = q->t[0].shape[0];
    if (kv_given)
        return used_all_zero(kv, B);
    if (c->tensors[FIA_SLOT_BLOCK_TABLE].presence == FIA_PRESENT ||
        k->count < 1 || (k->count > 1 && k->count != B))
        return 0;
    for (int32_t i = 0; i < k->count; i++)
        if (k->t[i].ndim <= ax || k->t[i].shape[ax] != 0)
            return 0;
    return 1;
}

/* One output of n elements of size esz, all exactly x (bits). */
static int fill(fia_tensor *t, int64_t n, size_t esz, uint32_t bits,
                double x, double **exact, uint8_t **unspec, double **bound)
{
    size_t m = (size_t)(n > 0 ? n : 0);
    if (m == 0)
        return 1;
    t->data = calloc(m, esz);
    *exact = malloc(m * sizeof(double));
    *unspec = calloc(m, 1);
    *bound = calloc(m, sizeof(double));
    if (!t->data || !*exact || !*unspec || !*bound)
        return 0;
    for (size_t i = 0; i < m; i++) {
        (*exact)[i] = x;
        if (esz == 4)
            ((uint32_t *)t->data)[i] = bits;
    }
    return 1;
}

fia_status ref_kv_return_result(const fia_case *c, fia_ref_result *r,
                                fia_error *err)
{
    fia_tensor out, lse;
    if (fia_case_output(c, FIA_SLOT_ATTENTION_OUT, &out) != FIA_PRESENT)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "no attention_out");
    r->out = out;
    r->out.data = NULL;
    r->out_numel = fia_tensor_numel(&out);
    if (!fill(&r->out, r->out_numel, sizeof(uint16_t), 0, 0.0, &r->out_exact,
              &r->out_unspecified, &r->out_bound))
        return fia_fail(err, FIA_ERR_NOMEM, "out of memory (result)");
    if (!c->attrs.softmax_lse_flag ||
        fia_case_output(c, FIA_SLOT_SOFTMAX_LSE, &lse) != FIA_PRESENT)
        return FIA_OK;
    r->has_lse = 1;
    r->lse = lse;
    r->lse.data = NULL;
    r->lse_numel = fia_tensor_numel(&lse);
    if (!fill(&r->lse, r->lse_numel, sizeof(uint32_t), 0x7f800000u, INFINITY,
              &r->lse_exact, &r->lse_unspecified, &r->lse_bound))
        return fia_fail(err, FIA_ERR_NOMEM, "out of memory (result)");
    return FIA_OK;
}
