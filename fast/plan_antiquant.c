/* antiquant: the plan's description of int8 / int4 key and value
 * (docs/features/antiquant.md), filled from the arguments of a call the
 * rules accepted (check_antiquant.c, check_int_inputs.c judge them; this
 * row only reads).  Which set is in use (the separate one wins when a
 * key/value scale is given), each of key / value's form by its mode and,
 * for mode 0, by shape ((1)/(2): per-tensor), the scale / offset data,
 * the combined set's value half (base) and the strides of the form's
 * index.  At Q_S > 1 antiquant_mode is ignored (mode 0's forms).  An
 * int32 key/value is int4 counted in int4 elements: D is the real one
 * (check_layout.c) and so are the layout strides fast_plan_finish derives
 * from it.
 *
 * A fill, not a rule: an argument that does not fit the table (which the
 * rules should have refused) ends the walk as not modeled with its reason,
 * never as an index phase two would read outside the tensor. */
#include "validate.h"

/* The tensor's element count (0 when malformed or absent). */
static int64_t numel_of(const fia_tensor *t)
{
    int64_t n;
    return t != NULL && fast_shape_numel(t, &n) ? n : 0;
}

/* Key (kv 0) or value (kv 1) of the mode, from scale tensor sc (offset
 * off, NULL: symmetric); base = the element its index starts at (the
 * combined set's value half).  Fails with the reason in *why. */
static bool fill_one(const fast_plan *p, fast_aq *aq, int64_t mode,
                     const fia_tensor *sc, const fia_tensor *off,
                     bool combined, int kv, const char **why)
{
    const int64_t lead = combined ? 1 : 0; /* the (2, ...) axis */
    const int64_t n = numel_of(sc), half = combined ? n / 2 : n;
    const int64_t N = p->KV_N, D = p->D;
    memset(aq, 0, sizeof *aq);
    aq->sdt = sc->dtype;
    aq->scale = sc->data;
    aq->offset = off != NULL && numel_of(off) > 0 ? off->data : NULL;
    aq->numel = n;
    aq->base = combined ? kv * half : 0;
    if (off != NULL && numel_of(off) > 0 &&
        (off->dtype != sc->dtype || numel_of(off) != n)) {
        *why = "offset's dtype or size differs from its scale's";
        return false;
    }
    if (sc->dtype != FIA_DT_FP16 && sc->dtype != FIA_DT_BF16 &&
        sc->dtype != FIA_DT_FP32) {
        *why = "scale dtype not fp16, bf16 or fp32";
        return false;
    }
    const int64_t last = sc->ndim > 0 ? sc->shape[sc->ndim - 1] : 0;
    switch (mode) {
    case 0:
        if (sc->ndim == 1 && sc->shape[0] == (combined ? 2 : 1)) {
            aq->form = FAST_AQ_TENSOR;
            return true;
        }
        aq->form = FAST_AQ_CHANNEL;
        aq->st_n = D;
        if (half != N * D)
            *why = "per-channel scale does not hold KV_N x D elements";
        return half == N * D;
    case 1:
        /* (2,B,S'), (1,B,S') or (B,S'): [b][s] */
        aq->form = FAST_AQ_TOKEN;
        aq->st_b = last, aq->st_s = 1;
        if (sc->ndim < 2 || sc->ndim > 3 || last < p->KV_S ||
            sc->shape[sc->ndim - 2] < p->B || half < p->B * last ||
            (sc->ndim == 3 && sc->shape[0] != lead + 1)) {
            *why = "per-token scale is not (B, S' >= KV_S)";
            return false;
        }
        return true;
    case 2:
        aq->form = FAST_AQ_HEAD;
        aq->st_n = 1;
        if (sc->ndim != 1 || n != N)
            *why = "per-head scale is not (KV_N)";
        return sc->ndim == 1 && n == N;
    case 3:
        aq->form = FAST_AQ_TOKEN_HEAD;
        aq->st_b = N * last, aq->st_n = last, aq->st_s = 1;
        if (sc->ndim != 3 || sc->shape[0] < p->B || sc->shape[1] != N ||
            last < p->KV_S) {
            *why = "per-token per-head scale is not (B, KV_N, S' >= KV_S)";
            return false;
        }
        return true;
    case 4:
    case 5:
        aq->form = mode == 4 ? FAST_AQ_PAGE_TOKEN : FAST_AQ_PAGE_TOKEN_HEAD;
        aq->st_s = 1;
        aq->st_n = mode == 4 ? 0 : p->page.block_size;
        aq->st_b = mode == 4 ? p->page.block_size : N * p->page.block_size;
        if (!p->page.on || sc->ndim != (mode == 4 ? 2 : 3) ||
            sc->shape[0] < p->page.blocknum || last != p->page.block_size ||
            (mode == 5 && sc->shape[1] != N)) {
            *why = "page-managed scale is not (blocknum, [KV_N,] "
                   "block_size) of a paged call";
            return false;
        }
        return true;
    default:
        *why = "mode outside 0..5";
        return false;
    }
}

/* Layer 5, after every row that fills the layout, the cache, the list and
 * the padding scene. */
fia_status fast_plan_antiquant(const fast_args *a, fast_plan *p,
                               fia_error *err)
{
    const fia_dtype kd = a->key->tensors[0]->dtype;
    p->antiquant.on = false;
    if (p->query_quant.on)
        return FIA_OK; /* MLA full quantization: int8 K/V, its own plan
                          (check_query_quant_mla.c) */
    p->kv_dt = p->dt;
    if ((kd != FIA_DT_INT8 && kd != FIA_DT_INT4 && kd != FIA_DT_INT32) ||
        (p->dt != FIA_DT_FP16 && p->dt != FIA_DT_BF16))
        return FIA_OK; /* not the scene (an int8 query: full quantization) */
    p->antiquant.on = true;
    p->kv_dt = kd == FIA_DT_INT8 ? FIA_DT_INT8 : FIA_DT_INT4;
    /* rows phase two could not place: a shared prefix's (not modeled,
     * antiquant.md), a token layout's (excluded, TND-X04) */
    if (a->opt[FAST_OPT_KEY_SHARED_PREFIX] != NULL || p->tnd.on)
        return FAST_NOTMOD("C_ANTIQUANT", "%s key/value with %s",
                           fast_dtype_name(kd),
                           p->tnd.on ? "a token layout" : "a shared prefix");
    const fia_tensor *const *o = a->opt;
    const bool separate = o[FAST_OPT_KEY_ANTIQUANT_SCALE] != NULL ||
                          o[FAST_OPT_VALUE_ANTIQUANT_SCALE] != NULL;
    const char *why = NULL;
    bool ok;
    if (separate) {
        const fia_tensor *ks = o[FAST_OPT_KEY_ANTIQUANT_SCALE];
        const fia_tensor *vs = o[FAST_OPT_VALUE_ANTIQUANT_SCALE];
        if (ks == NULL || vs == NULL)
            return FAST_NOTMOD("C_ANTIQUANT", "one of key/value_antiquant_scale "
                               "without the other (antiquant)");
        ok = fill_one(p, &p->antiquant.aq[0], a->key_antiquant_mode, ks,
                      o[FAST_OPT_KEY_ANTIQUANT_OFFSET], false, 0, &why) &&
             fill_one(p, &p->antiquant.aq[1], a->value_antiquant_mode, vs,
                      o[FAST_OPT_VALUE_ANTIQUANT_OFFSET], false, 1, &why);
    } else {
        const fia_tensor *s = o[FAST_OPT_ANTIQUANT_SCALE];
        if (s == NULL) /* an empty one may go with empty key/value */
            return FAST_NOTMOD("C_ANTIQUANT", "%s key/value without an antiquant "
                               "scale", fast_dtype_name(kd));
        const int64_t mode = p->Q_S > 1 ? 0 : a->antiquant_mode;
        if ((s->ndim < 1 || s->shape[0] != 2) &&
            !(s->ndim == 1 && s->shape[0] == 2)) {
            why = "combined scale's first dim is not 2";
            ok = false;
        } else {
            ok = fill_one(p, &p->antiquant.aq[0], mode, s,
                          o[FAST_OPT_ANTIQUANT_OFFSET], true, 0, &why) &&
                 fill_one(p, &p->antiquant.aq[1], mode, s,
                          o[FAST_OPT_ANTIQUANT_OFFSET], true, 1, &why);
        }
    }
    if (!ok)
        return FAST_NOTMOD("C_ANTIQUANT", "antiquant parameters outside the mode "
                           "table: %s", why);
    if (p->kv_dt == FIA_DT_INT4 && p->D % 2 != 0)
        return FAST_NOTMOD("C_ANTIQUANT", "int4 key/value with an odd D %lld",
                           (long long)p->D);
    return FIA_OK;
}
