/* antiquant (metamorphic): a call with quantized key/value against the
 * same call with key/value of the query's dtype holding the dequantized
 * values (docs/features/antiquant.md).
 *
 *   antiquant=<seed>  the base (int8, int4 or int32-packed key/value with
 *                     the combined or the separate set, contiguous: no
 *                     page table, list or padding) against the form whose
 *                     key and value are (x + offset) * scale, the element
 *                     of the doc's table for each (b, n, s, d), in the
 *                     query's dtype, with no antiquant tensor or mode.
 *                     It applies only when every dequantized value is
 *                     exact in that dtype (fuzz_numeric's metamorphic
 *                     bases take powers of two and integer offsets): the
 *                     permitted algorithm then computes one problem both
 *                     ways, and the forms must agree within the fixed
 *                     tolerance or the reference's bound (meta.c).  The
 *                     seed is not read (kept for the transform's form).
 *
 * fz_aq_form_of_mode and the shapes: gen_antiquant.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_internal.h"

static int given(const fia_case *c, fia_slot s)
{
    const fia_tensor_spec *sp = &c->tensors[s];
    return sp->presence == FIA_PRESENT && sp->count == 1 && sp->t != NULL &&
           fia_tensor_numel(&sp->t[0]) > 0;
}

int fz_antiquant_in_use(const fia_case *c)
{
    const fia_tensor_spec *q = &c->tensors[FIA_SLOT_QUERY];
    const fia_tensor_spec *k = &c->tensors[FIA_SLOT_KEY];
    /* an empty key (no keys) is the scene too */
    if (q->presence != FIA_PRESENT || q->count != 1 ||
        k->presence != FIA_PRESENT || k->count != 1)
        return 0;
    const fia_dtype qd = q->t[0].dtype, kd = k->t[0].dtype;
    return (qd == FIA_DT_FP16 || qd == FIA_DT_BF16) &&
           (kd == FIA_DT_INT8 || kd == FIA_DT_INT4 || kd == FIA_DT_INT32);
}

/* The separate set is in use (a separate scale given: ANTI-N01). */
static int separate(const fia_case *c)
{
    return given(c, FIA_SLOT_KEY_ANTIQUANT_SCALE) ||
           given(c, FIA_SLOT_VALUE_ANTIQUANT_SCALE);
}

/* Key (role 0) or value (1)'s form, its scale and offset slots; -1 when
 * it has none the relation reads (modes 4 / 5, unknown modes). */
static int role_form(const fia_case *c, const fz_geom *g, int role,
                     fia_slot *ss, fia_slot *os)
{
    if (!separate(c)) {
        *ss = FIA_SLOT_ANTIQUANT_SCALE, *os = FIA_SLOT_ANTIQUANT_OFFSET;
        if (!given(c, *ss))
            return -1;
        const fia_tensor *t = &c->tensors[*ss].t[0];
        if (g->Q_S == 1 && c->attrs.antiquant_mode == 1)
            return FZ_AQ_TOKEN;
        return fia_tensor_numel(t) == 2 ? FZ_AQ_TENSOR : FZ_AQ_CHANNEL;
    }
    *ss = role ? FIA_SLOT_VALUE_ANTIQUANT_SCALE : FIA_SLOT_KEY_ANTIQUANT_SCALE;
    *os = role ? FIA_SLOT_VALUE_ANTIQUANT_OFFSET : FIA_SLOT_KEY_ANTIQUANT_OFFSET;
    if (!given(c, *ss))
        return -1;
    const int64_t m = role ? c->attrs.value_antiquant_mode
                           : c->attrs.key_antiquant_mode;
    const int f = fz_aq_form_of_mode(
        m, fia_tensor_numel(&c->tensors[*ss].t[0]) == 1);
    return f == FZ_AQ_PAGE_TOKEN || f == FZ_AQ_PAGE_TOKEN_HEAD ? -1 : f;
}

int fz_antiquant_applies(const fia_case *c, const fz_geom *g)
{
    fia_slot ss, os;
    return fz_antiquant_in_use(c) && !g->paged && !g->list &&
           c->tensors[FIA_SLOT_BLOCK_TABLE].presence != FIA_PRESENT &&
           c->tensors[FIA_SLOT_QUERY_PADDING_SIZE].presence != FIA_PRESENT &&
           c->tensors[FIA_SLOT_KV_PADDING_SIZE].presence != FIA_PRESENT &&
           c->tensors[FIA_SLOT_KEY_SHARED_PREFIX].presence != FIA_PRESENT &&
           role_form(c, g, 0, &ss, &os) >= 0 &&
           role_form(c, g, 1, &ss, &os) >= 0;
}

/* The flat index of the scale element covering (b, n, s, d) of role
 * (combined: the half of the leading 2), -1 past the tensor. */
static int64_t scale_index(int form, int combined, int role,
                           const fia_tensor *t, const fz_geom *g, int64_t b,
                           int64_t n, int64_t s, int64_t d)
{
    const int64_t numel = fia_tensor_numel(t);
    const int64_t half = combined ? numel / 2 : numel;
    const int64_t sp = t->ndim > 0 ? t->shape[t->ndim - 1] : 1; /* S' */
    int64_t at;
    switch (form) {
    case FZ_AQ_TENSOR: at = 0; break;
    case FZ_AQ_CHANNEL: at = n * g->D + d; break;
    case FZ_AQ_TOKEN: at = b * sp + s; break;
    case FZ_AQ_HEAD: at = n; break;
    default: at = (b * g->KV_N + n) * sp + s; break; /* per token per head */
    }
    if (at >= half)
        return -1;
    return (combined ? role * half : 0) + at;
}

/* The integers of slot s in element order (an int32 unpacked into eight
 * int4, low bits first); *n the real count. */
static fia_status kv_ints(const fia_case *c, fia_slot s, double **out,
                          int64_t *n)
{
    double *v;
    int64_t m;
    fia_status st = fz_slot_data(c, s, &v, &m, NULL);
    if (st != FIA_OK || c->tensors[s].t[0].dtype != FIA_DT_INT32) {
        *out = st == FIA_OK ? v : NULL, *n = st == FIA_OK ? m : 0;
        return st;
    }
    double *u = malloc((size_t)(m * 8 > 0 ? m * 8 : 1) * sizeof *u);
    if (u == NULL) {
        free(v);
        return FIA_ERR_NOMEM;
    }
    for (int64_t i = 0; i < m; i++) {
        const uint32_t w = (uint32_t)(int32_t)v[i];
        for (int k = 0; k < 8; k++) {
            const int nib = (int)((w >> (4 * k)) & 0xf);
            u[i * 8 + k] = nib >= 8 ? nib - 16 : nib;
        }
    }
    free(v);
    *out = u, *n = m * 8;
    return FIA_OK;
}

/* 1 when x is exact in dt. */
static int exact(fia_dtype dt, double x)
{
    const double r = dt == FIA_DT_FP16 ? fia_fp16_to_double(fia_double_to_fp16(x))
                                       : fia_bf16_to_double(fia_double_to_bf16(x));
    return r == x;
}

/* Role's key or value dequantized in place (v: its integers, [B, KV_N,
 * KV_S, D] in g's layout); FIA_ERR_BAD_INPUT when a value is not exact
 * in dt or the tensors do not cover it. */
static fia_status dequantize(const fia_case *c, const fz_geom *g, int role,
                             fia_dtype dt, double *v)
{
    fia_slot ss, os;
    const int form = role_form(c, g, role, &ss, &os);
    double *sc = NULL, *of = NULL;
    int64_t ns = 0, no = 0;
    fia_status st = form < 0 ? FIA_ERR_BAD_INPUT
                             : fz_slot_data(c, ss, &sc, &ns, NULL);
    if (st == FIA_OK && given(c, os))
        st = fz_slot_data(c, os, &of, &no, NULL);
    if (st == FIA_OK && of != NULL && no != ns)
        st = FIA_ERR_BAD_INPUT;
    const fia_tensor *t = st == FIA_OK ? &c->tensors[ss].t[0] : NULL;
    const int comb = ss == FIA_SLOT_ANTIQUANT_SCALE;
    for (int64_t b = 0; st == FIA_OK && b < g->B; b++)
        for (int64_t n = 0; st == FIA_OK && n < g->KV_N; n++)
            for (int64_t s = 0; st == FIA_OK && s < g->KV_S; s++)
                for (int64_t d = 0; d < g->D; d++) {
                    const int64_t at = fz_index(g->layout, g->B, g->KV_N,
                                                g->KV_S, g->D, b, n, s, d);
                    const int64_t e = scale_index(form, comb, role, t, g, b,
                                                  n, s, d);
                    if (e < 0) {
                        st = FIA_ERR_BAD_INPUT;
                        break;
                    }
                    const double x = (v[at] + (of ? of[e] : 0.0)) * sc[e];
                    if (!exact(dt, x)) {
                        st = FIA_ERR_BAD_INPUT;
                        break;
                    }
                    v[at] = x;
                }
    free(sc);
    free(of);
    return st;
}

fia_status fz_meta_antiquant(const fia_case *c, const fz_geom *g,
                             const char *arg, fia_case *out, fia_error *err)
{
    unsigned long long seed = 0;
    if (sscanf(arg, "%llu", &seed) != 1)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "antiquant=%s: want <seed>",
                        arg);
    if (!fz_antiquant_applies(c, g))
        return fia_fail(err, FIA_ERR_BAD_INPUT, "the case is no contiguous "
                        "antiquant call");
    const fia_dtype dt = c->tensors[FIA_SLOT_QUERY].t[0].dtype;
    const int64_t n = g->B * g->KV_N * g->KV_S * g->D;
    for (int role = 0; role < 2; role++) {
        const fia_slot kv = role ? FIA_SLOT_VALUE : FIA_SLOT_KEY;
        double *v = NULL;
        int64_t m = 0;
        fia_status st = kv_ints(c, kv, &v, &m);
        if (st == FIA_OK && m != n)
            st = FIA_ERR_BAD_INPUT;
        if (st == FIA_OK)
            st = dequantize(c, g, role, dt, v);
        if (st != FIA_OK) {
            free(v);
            return fia_fail(err, st, st == FIA_ERR_NOMEM ? "no memory"
                            : "a dequantized %s value is not exact in the "
                              "query's dtype", role ? "value" : "key");
        }
        int64_t sh[FIA_MAX_RANK];
        const int nd = fz_shape(g->layout, g->B, g->KV_N, g->KV_S, g->D, sh);
        if (fz_case_tensor(out, kv, dt, nd, sh) != FIA_OK) {
            free(v);
            return fia_fail(err, FIA_ERR_NOMEM, "no memory");
        }
        fz_case_values(out, kv, v, n);
    }
    for (int i = 0; i < FZ_AQ_NT; i++)
        fz_case_absent(out, fz_aq_slot[i]);
    const fia_attr modes[] = {FIA_ATTR_ANTIQUANT_MODE,
                              FIA_ATTR_KEY_ANTIQUANT_MODE,
                              FIA_ATTR_VALUE_ANTIQUANT_MODE};
    for (int i = 0; i < 3; i++) {
        fz_case_attr(out, modes[i], 0);
        out->attr_given[modes[i]] = false;
    }
    return FIA_OK;
}
