/* ref/ reading, feature "antiquant": int8 / int4 key and value dequantized
 * on the fly (docs/features/antiquant.md).
 *
 * The scene (read_tensors.c) is an int8, int4 or int32 (eight int4 per
 * element) key and value with an fp16 / bf16 query.  Every key / value
 * element is read as
 *
 *   x = (x_int + offset) * scale
 *
 * with the scale / offset element of the table's mode (an absent offset is
 * 0).  The parameter set: the separate one (key_ / value_antiquant_scale,
 * _offset, key_ / value_antiquant_mode) when key_antiquant_scale or
 * value_antiquant_scale is given, the combined tensors then ignored
 * (ANTI-N01); else the combined one (antiquant_scale / _offset, index 0 of
 * the first dim the key's, 1 the value's, antiquant_mode read at Q_S = 1
 * only: ANTI-N02).  A per-token element is that of the key's physical S row
 * (kv left padding: kv_start + j), with page attention of the logical key
 * j; modes 4 / 5 read the block table's id of the block holding key j and
 * its slot j % block_size.
 *
 * Exactness.  x_int is an integer of at most 8 bits and scale and offset
 * are fp16, bf16 or fp32 (at most 24 bits, exponents within [-149, 128));
 * so a = x_int * scale (<= 32 bits) and c = offset * scale (<= 48 bits) are
 * exact binary64 products, normal numbers within [2^-298, 2^256] or 0.
 * x = a + c is then the sum of two binary64 numbers, held exactly as the
 * rounded sum hi and its error lo (TwoSum: exact for round-to-nearest
 * without overflow, which a + c cannot reach).  fp16 scale and offset give
 * lo = 0 always (x_int + offset spans at most 2^17 down to 2^-24, times 11
 * bits: 52 bits); fp32 per-token ones often need lo.  The math core takes
 * k + klo, v + vlo (ref_attention.c: each part's product exact).  A
 * non-finite scale or offset gives the IEEE value of (x_int + offset) *
 * scale (docs/semantics.md "Non-finite inputs"), lo 0; an exact zero the
 * sign IEEE gives it.
 *
 * The reading checks what it needs to read in bounds (shapes against the
 * mode's table, S' and blocks covering the keys read, data present) and
 * refuses the rest of an inconsistent call with FIA_ERR_PARAM_INVALID; the
 * catalogue's full rules are the oracle's (oracle/rules_antiquant.c).  Not
 * modeled (docs "Not modeled"): a per-token mode with a key/value tensor
 * list (read here); antiquant parameters with fp16 / bf16 key/value and a
 * shared prefix with int key/value (read_not_modeled.c). */
#include <math.h>
#include <string.h>
#include "ref_internal.h"


int ref_aq_int(fia_dtype dt, const void *data, int64_t idx)
{
    if (dt == FIA_DT_INT8)
        return ((const int8_t *)data)[idx];
    unsigned nib;
    if (dt == FIA_DT_INT32) { /* element 8i + k: bits 4k..4k+3 of word i */
        uint32_t w = ((const uint32_t *)data)[idx / 8];
        nib = (w >> (4 * (idx % 8))) & 0xfu;
    } else { /* int4: two per byte, low nibble first */
        uint8_t byte = ((const uint8_t *)data)[idx / 2];
        nib = (idx & 1) ? (unsigned)(byte >> 4) : (unsigned)(byte & 0xfu);
    }
    return nib >= 8 ? (int)nib - 16 : (int)nib;
}

/* ---- reading the parameters -------------------------------------------- */

static int dims_are(const fia_tensor *t, int nd, int64_t a, int64_t b,
                    int64_t c, int64_t e)
{
    const int64_t dims[4] = {a, b, c, e};
    return ref_shape_is(t, nd, dims);
}

/* The per-channel shapes with lead dims (0 or 1 leading "1" / "2"): (N,1,D),
 * (N,D), (H) after it. */
static int channel_shape(const ref_problem *p, const fia_tensor *t, int lead,
                         int64_t l0)
{
    const int64_t N = p->KV_N, D = p->D;
    if (t->ndim < lead || (lead && t->shape[0] != l0))
        return 0;
    const int r = t->ndim - lead;
    const int64_t *s = t->shape + lead;
    return (r == 3 && s[0] == N && s[1] == 1 && s[2] == D) ||
           (r == 2 && s[0] == N && s[1] == D) || (r == 1 && s[0] == N * D);
}

/* S' of a per-token form: at least the rows read (the key's S axis, or the
 * logical keys with page attention). */
static fia_status token_cols(const ref_problem *p, int64_t cols,
                             const char *what, fia_error *err)
{
    /* page attention: the longest batch's keys (ref_max_kv_len is at
     * least 1, a buffer size: a cache no batch reads needs S' = 0) */
    int64_t need = p->KV_S;
    if (p->paged) {
        need = 0;
        for (int64_t b = 0; b < p->B; b++)
            need = ref_kv_len(p, b) > need ? ref_kv_len(p, b) : need;
    }
    if (cols < need)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "%s: per-token S' %lld "
                        "below the %lld key rows read", what, (long long)cols,
                        (long long)need);
    if (p->kv_list)
        return fia_fail(err, FIA_ERR_NOT_MODELED, "not modeled yet: %s "
                        "per-token with a key/value tensor list (whose S'?)",
                        what);
    return FIA_OK;
}

/* The form of a separate-set scale of the given mode. */
static fia_status separate_form(const ref_problem *p, ref_aq *a, int64_t mode,
                                const char *what, fia_error *err)
{
    const fia_tensor *t = a->scale;
    const int64_t N = p->KV_N, B = p->B;
    const int64_t one = 1;
    a->base = 0;
    switch (mode) {
    case 0:
        if (dims_are(t, 1, 1, 0, 0, 0) && !channel_shape(p, t, 0, 0)) {
            a->form = REF_AQ_TENSOR;
            return FIA_OK;
        }
        a->form = REF_AQ_CHANNEL;
        if (channel_shape(p, t, 1, one) || channel_shape(p, t, 0, 0))
            return FIA_OK;
        break;
    case 1:
        a->form = REF_AQ_TOKEN;
        if ((t->ndim == 3 && t->shape[0] == 1 && t->shape[1] == B) ||
            (t->ndim == 2 && t->shape[0] == B)) {
            a->cols = t->shape[t->ndim - 1];
            return token_cols(p, a->cols, what, err);
        }
        break;
    case 2:
        a->form = REF_AQ_HEAD;
        if (dims_are(t, 1, N, 0, 0, 0))
            return FIA_OK;
        break;
    case 3:
        a->form = REF_AQ_TOKEN_HEAD;
        if (t->ndim == 3 && t->shape[0] == B && t->shape[1] == N) {
            a->cols = t->shape[2];
            return token_cols(p, a->cols, what, err);
        }
        break;
    case 4:
    case 5:
        if (!p->paged)
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "%s mode %lld needs "
                            "page attention (a block_table)", what,
                            (long long)mode);
        a->form = mode == 4 ? REF_AQ_PAGE : REF_AQ_PAGE_HEAD;
        a->cols = p->block_size;
        if (mode == 4 ? dims_are(t, 2, p->blocknum, p->block_size, 0, 0)
                      : dims_are(t, 3, p->blocknum, N, p->block_size, 0))
            return FIA_OK;
        break;
    default:
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "%s mode %lld outside "
                        "0..5", what, (long long)mode);
    }
    return fia_fail(err, FIA_ERR_PARAM_INVALID, "%s: shape not one of mode "
                    "%lld's (docs/features/antiquant.md)", what,
                    (long long)mode);
}

/* The form of the combined scale (first dim 2); which picks the half. */
static fia_status combined_form(const ref_problem *p, ref_aq *a, int which,
                                int64_t mode, fia_error *err)
{
    const fia_tensor *t = a->scale;
    int ok;
    if (mode == 1) {
        a->form = REF_AQ_TOKEN;
        ok = t->ndim == 3 && t->shape[0] == 2 && t->shape[1] == p->B;
        if (ok)
            a->cols = t->shape[2];
    } else if (dims_are(t, 1, 2, 0, 0, 0) && !channel_shape(p, t, 1, 2)) {
        a->form = REF_AQ_TENSOR;
        ok = 1;
    } else {
        a->form = REF_AQ_CHANNEL;
        ok = channel_shape(p, t, 1, 2);
    }
    if (!ok)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "antiquant_scale: shape "
                        "not one of mode %lld's (docs/features/antiquant.md)",
                        (long long)mode);
    a->base = which * (fia_tensor_numel(t) / 2);
    return a->form == REF_AQ_TOKEN ? token_cols(p, a->cols, "antiquant_scale",
                                                err)
                                   : FIA_OK;
}

static int is_float(fia_dtype dt)
{
    return dt == FIA_DT_FP16 || dt == FIA_DT_BF16 || dt == FIA_DT_FP32;
}

/* Scale and offset readable, the offset of the scale's shape; an offset
 * whose |o| + 128 the query's dtype cannot hold leaves the permitted
 * algorithm's intermediate x_int + o out of range: no bound (the reading
 * itself stays exact). */
static fia_status check_pair(ref_problem *p, const ref_aq *a,
                             const char *what, fia_error *err)
{
    const fia_tensor *s = a->scale, *o = a->offset;
    if (!is_float(s->dtype) || (o && !is_float(o->dtype)))
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "%s: scale / offset "
                        "dtype not fp16, bf16 or fp32", what);
    if (o && !ref_shape_is(o, s->ndim, s->shape))
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "%s: offset shape "
                        "differs from the scale's", what);
    /* an empty scale (over empty key/value) has nothing to read */
    if ((!s->data && fia_tensor_numel(s) > 0) ||
        (o && !o->data && fia_tensor_numel(o) > 0))
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "%s: scale / offset "
                        "has no data", what);
    const double lim = p->in_dtype == FIA_DT_BF16 ? 0x1.fep127 : 65504.0;
    for (int64_t i = 0; o && i < fia_tensor_numel(o); i++) {
        double v = fia_load_as_double(o->dtype, o->data, i);
        if (!(fabs(v) + 128.0 <= lim))
            p->aq_unmodeled = 1;
    }
    return FIA_OK;
}

static fia_status read_separate(ref_problem *p, const fia_case *c,
                                const fia_case_data *d, fia_error *err)
{
    static const char *const names[2] = {"key_antiquant_scale",
                                         "value_antiquant_scale"};
    const int64_t mode[2] = {c->attrs.key_antiquant_mode,
                             c->attrs.value_antiquant_mode};
    for (int w = 0; w < 2; w++) {
        fia_slot ss = w ? FIA_SLOT_VALUE_ANTIQUANT_SCALE
                        : FIA_SLOT_KEY_ANTIQUANT_SCALE;
        fia_slot os = w ? FIA_SLOT_VALUE_ANTIQUANT_OFFSET
                        : FIA_SLOT_KEY_ANTIQUANT_OFFSET;
        if (!ref_slot_given(d, ss))
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "key and value "
                            "antiquant scales go together (%s missing)",
                            names[w]);
        if (!p->decode && mode[w] != 0 && mode[w] != 1)
            return fia_fail(err, FIA_ERR_PARAM_INVALID, "%s mode %lld at "
                            "Q_S > 1 (0 or 1)", names[w], (long long)mode[w]);
        ref_aq *a = &p->aqp[w];
        a->scale = fia_case_data_tensor(d, ss);
        a->offset = ref_slot_given(d, os) ? fia_case_data_tensor(d, os)
                                          : NULL;
        fia_status st = separate_form(p, a, mode[w], names[w], err);
        if (st == FIA_OK)
            st = check_pair(p, a, names[w], err);
        if (st != FIA_OK)
            return st;
    }
    if (mode[0] != mode[1] && !(p->decode && mode[0] == 0 && mode[1] == 1))
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "key_antiquant_mode %lld "
                        "with value_antiquant_mode %lld",
                        (long long)mode[0], (long long)mode[1]);
    return FIA_OK;
}

static fia_status read_combined(ref_problem *p, const fia_case *c,
                                const fia_case_data *d, fia_error *err)
{
    if (!ref_slot_given(d, FIA_SLOT_ANTIQUANT_SCALE))
        return fia_fail(err, FIA_ERR_PARAM_INVALID, ref_slot_given(
                            d, FIA_SLOT_ANTIQUANT_OFFSET)
                            ? "antiquant_offset without antiquant_scale"
                            : "int8/int4 key and value without an antiquant "
                              "scale");
    const int64_t mode = p->decode ? c->attrs.antiquant_mode : 0;
    if (mode != 0 && mode != 1)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "antiquant_mode %lld at "
                        "Q_S = 1 (0 or 1)", (long long)mode);
    for (int w = 0; w < 2; w++) {
        ref_aq *a = &p->aqp[w];
        a->scale = fia_case_data_tensor(d, FIA_SLOT_ANTIQUANT_SCALE);
        a->offset = ref_slot_given(d, FIA_SLOT_ANTIQUANT_OFFSET)
                        ? fia_case_data_tensor(d, FIA_SLOT_ANTIQUANT_OFFSET)
                        : NULL;
        fia_status st = combined_form(p, a, w, mode, err);
        if (st == FIA_OK)
            st = check_pair(p, a, "antiquant_scale", err);
        if (st != FIA_OK)
            return st;
    }
    return FIA_OK;
}

fia_status ref_read_antiquant(ref_problem *p, const fia_case *c,
                              const fia_case_data *d, fia_error *err)
{
    if (!p->aq)
        return FIA_OK;
    if (p->tnd)
        return fia_fail(err, FIA_ERR_PARAM_INVALID, "int8/int4 key and value "
                        "with the token layout %s (TND-X04)",
                        c->attrs.input_layout);
    if (ref_slot_given(d, FIA_SLOT_KEY_ANTIQUANT_SCALE) ||
        ref_slot_given(d, FIA_SLOT_VALUE_ANTIQUANT_SCALE))
        return read_separate(p, c, d, err);
    return read_combined(p, c, d, err);
}

/* ---- one element ------------------------------------------------------- */

static int64_t aq_elem(const ref_problem *p, const ref_aq *a, int64_t b,
                       int64_t kn, int64_t j, int64_t dd)
{
    const int64_t s = p->paged ? j : ref_pad_kv_row(p, b, j);
    int64_t id = 0;
    if (a->form == REF_AQ_PAGE || a->form == REF_AQ_PAGE_HEAD)
        id = p->bt[b * p->bt_cols + j / p->block_size];
    switch (a->form) {
    case REF_AQ_CHANNEL:
        return a->base + kn * p->D + dd;
    case REF_AQ_TOKEN:
        return a->base + b * a->cols + s;
    case REF_AQ_HEAD:
        return a->base + kn;
    case REF_AQ_TOKEN_HEAD:
        return a->base + (b * p->KV_N + kn) * a->cols + s;
    case REF_AQ_PAGE:
        return a->base + id * a->cols + j % p->block_size;
    case REF_AQ_PAGE_HEAD:
        return a->base + (id * p->KV_N + kn) * a->cols + j % p->block_size;
    default:
        return a->base;
    }
}

void ref_aq_load(const ref_problem *p, int which, int64_t b, int64_t kn,
                 int64_t j, int64_t dd, double *hi, double *lo)
{
    const ref_aq *a = &p->aqp[which];
    const fia_tensor *t = which ? ref_v_tensor(p, b) : ref_k_tensor(p, b);
    const int xi = ref_aq_int(t->dtype, t->data, ref_kv_index(p, b, kn, j, dd));
    const int64_t e = aq_elem(p, a, b, kn, j, dd);
    const double s = fia_load_as_double(a->scale->dtype, a->scale->data, e);
    const double o = a->offset ? fia_load_as_double(a->offset->dtype,
                                                    a->offset->data, e)
                               : 0.0;
    if (!isfinite(s) || !isfinite(o)) {
        *hi = ((double)xi + o) * s;
        *lo = 0.0;
        return;
    }
    /* exact products (file comment), then TwoSum */
    const double x = (double)xi * s, y = o * s;
    const double h = x + y, z = h - x;
    double l = (x - (h - z)) + (y - z);
    double hh = h;
    if (hh == 0.0) { /* exactly 0: the sign of the IEEE evaluation */
        hh = ((double)xi + o) * s;
        l = 0.0;
    }
    *hi = hh;
    *lo = l;
}
