/* Case building and layout geometry for the decoders, the metamorphic
 * relation and the minimizer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_internal.h"

static void spec_clear(fia_tensor_spec *sp)
{
    free(sp->t);
    free(sp->gen.values);
    memset(sp, 0, sizeof *sp);
}

fia_status fz_case_tensor_list(fia_case *c, fia_slot s, int count, fia_dtype dt,
                          int ndim, const int64_t *shape)
{
    fia_tensor_spec *sp = &c->tensors[s];
    spec_clear(sp);
    if (count < 1)
        count = 1;
    sp->t = calloc((size_t)count, sizeof *sp->t);
    if (sp->t == NULL)
        return FIA_ERR_NOMEM;
    sp->presence = FIA_PRESENT;
    sp->count = count;
    if (ndim < 0)
        ndim = 0;
    if (ndim > FIA_MAX_RANK)
        ndim = FIA_MAX_RANK;
    for (int i = 0; i < count; i++) {
        sp->t[i].dtype = dt;
        sp->t[i].ndim = ndim;
        for (int k = 0; k < ndim; k++) /* the case format has no dim < 0 */
            sp->t[i].shape[k] = shape[k] < 0 ? 0 : shape[k];
    }
    return FIA_OK;
}

fia_status fz_case_tensor(fia_case *c, fia_slot s, fia_dtype dt, int ndim,
                     const int64_t *shape)
{
    return fz_case_tensor_list(c, s, 1, dt, ndim, shape);
}

void fz_case_null(fia_case *c, fia_slot s)
{
    spec_clear(&c->tensors[s]);
    c->tensors[s].presence = FIA_NULL;
}

void fz_case_absent(fia_case *c, fia_slot s) { spec_clear(&c->tensors[s]); }

void fz_case_values(fia_case *c, fia_slot s, double *values, int64_t n)
{
    fia_gen *g = &c->tensors[s].gen;
    free(g->values);
    memset(g, 0, sizeof *g);
    g->kind = FIA_GEN_VALUES;
    g->values = values;
    g->n_values = n;
}

void fz_case_gen(fia_case *c, fia_slot s, fia_gen_kind k, double a, double b)
{
    fia_gen *g = &c->tensors[s].gen;
    free(g->values);
    memset(g, 0, sizeof *g);
    g->kind = k;
    g->a = a;
    g->b = b;
}

fia_status fz_case_array(fia_case *c, fia_array a, int64_t count,
                    const int64_t *v)
{
    fia_int_array_spec *sp = &c->arrays[a];
    free(sp->values);
    memset(sp, 0, sizeof *sp);
    sp->presence = FIA_PRESENT;
    if (count > 0) {
        sp->values = malloc((size_t)count * sizeof *v);
        if (sp->values == NULL) {
            sp->presence = FIA_ABSENT;
            return FIA_ERR_NOMEM;
        }
        memcpy(sp->values, v, (size_t)count * sizeof *v);
    }
    sp->count = count;
    return FIA_OK;
}

void fz_case_array_null(fia_case *c, fia_array a)
{
    free(c->arrays[a].values);
    memset(&c->arrays[a], 0, sizeof c->arrays[a]);
    c->arrays[a].presence = FIA_NULL;
}

void fz_case_array_absent(fia_case *c, fia_array a)
{
    free(c->arrays[a].values);
    memset(&c->arrays[a], 0, sizeof c->arrays[a]);
}

void fz_case_attr(fia_case *c, fia_attr a, int64_t v)
{
    fia_attrs *at = &c->attrs;
    switch (a) {
    case FIA_ATTR_NUM_HEADS: at->num_heads = v; break;
    case FIA_ATTR_PRE_TOKENS: at->pre_tokens = v; break;
    case FIA_ATTR_NEXT_TOKENS: at->next_tokens = v; break;
    case FIA_ATTR_NUM_KEY_VALUE_HEADS: at->num_key_value_heads = v; break;
    case FIA_ATTR_SPARSE_MODE: at->sparse_mode = v; break;
    case FIA_ATTR_INNER_PRECISE: at->inner_precise = v; break;
    case FIA_ATTR_BLOCK_SIZE: at->block_size = v; break;
    case FIA_ATTR_ANTIQUANT_MODE: at->antiquant_mode = v; break;
    case FIA_ATTR_KEY_ANTIQUANT_MODE: at->key_antiquant_mode = v; break;
    case FIA_ATTR_VALUE_ANTIQUANT_MODE: at->value_antiquant_mode = v; break;
    case FIA_ATTR_QUERY_QUANT_MODE: at->query_quant_mode = v; break;
    case FIA_ATTR_OUT_DTYPE: at->out_dtype = v; break;
    case FIA_ATTR_SOFTMAX_LSE_FLAG: at->softmax_lse_flag = v != 0; break;
    default: return;
    }
    c->attr_given[a] = true;
}

void fz_case_scale(fia_case *c, double scale)
{
    c->attrs.scale = scale;
    c->attr_given[FIA_ATTR_SCALE] = true;
}

void fz_case_layout(fia_case *c, const char *layout)
{
    snprintf(c->attrs.input_layout, sizeof c->attrs.input_layout, "%s",
             layout);
    c->attr_given[FIA_ATTR_INPUT_LAYOUT] = true;
}

void fz_case_lse_flag(fia_case *c, int on) { fz_case_attr(c, FIA_ATTR_SOFTMAX_LSE_FLAG, on); }

/* ---- geometry ------------------------------------------------------------ */

static const char *const layout_names[] = {"BSH", "BSND", "BNSD", "BNSD_BSND"};

fz_layout fz_layout_of(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(name, layout_names[i]) == 0)
            return (fz_layout)i;
    return FZ_OTHER;
}

const char *fz_layout_name(fz_layout l)
{
    return l < FZ_OTHER ? layout_names[l] : "?";
}

fz_layout fz_out_layout(fz_layout l) { return l == FZ_BNSD_BSND ? FZ_BSND : l; }

int fz_shape(fz_layout l, int64_t B, int64_t N, int64_t S, int64_t D,
             int64_t *shape)
{
    switch (l) {
    case FZ_BSH:
        shape[0] = B, shape[1] = S, shape[2] = N * D;
        return 3;
    case FZ_BSND:
        shape[0] = B, shape[1] = S, shape[2] = N, shape[3] = D;
        return 4;
    default:
        shape[0] = B, shape[1] = N, shape[2] = S, shape[3] = D;
        return 4;
    }
}

int64_t fz_index(fz_layout l, int64_t B, int64_t N, int64_t S, int64_t D,
                 int64_t b, int64_t n, int64_t s, int64_t d)
{
    (void)B;
    if (l == FZ_BSH || l == FZ_BSND)
        return ((b * S + s) * N + n) * D + d;
    return ((b * N + n) * S + s) * D + d;
}

static int single(const fia_tensor_spec *sp)
{
    return sp->presence == FIA_PRESENT && sp->count == 1;
}

/* A token layout's geometry: cumulative lengths of one count >= 1 ending
 * at the query's and key's T, rank-3 query / key / value. */
static int tnd_geom(const fia_case *c, fz_geom *g)
{
    const fia_int_array_spec *a = &c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS];
    const fia_int_array_spec *k = &c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    const fia_tensor_spec *q = &c->tensors[FIA_SLOT_QUERY];
    const fia_tensor_spec *kt = &c->tensors[FIA_SLOT_KEY];
    const fia_tensor_spec *vt = &c->tensors[FIA_SLOT_VALUE];
    int64_t N = c->attrs.num_heads, KV_N = c->attrs.num_key_value_heads;
    if (!single(q) || !single(kt) || !single(vt) || q->t->ndim != 3 ||
        kt->t->ndim != 3 || vt->t->ndim != 3 || a->presence != FIA_PRESENT ||
        k->presence != FIA_PRESENT || a->count < 1 || a->count != k->count ||
        !a->values || !k->values || N <= 0)
        return -1;
    int q_ntd = 0;
    fia_layout_token_order(c->attrs.input_layout, &q_ntd, &g->o_ntd);
    const int ti = q_ntd;
    int64_t pq = 0, pk = 0;
    for (int64_t b = 0; b < a->count; b++) {
        if (a->values[b] < pq || k->values[b] < pk)
            return -1;
        g->Q_S = a->values[b] - pq > g->Q_S ? a->values[b] - pq : g->Q_S;
        g->KV_S = k->values[b] - pk > g->KV_S ? k->values[b] - pk : g->KV_S;
        pq = a->values[b], pk = k->values[b];
    }
    if (pq != q->t->shape[ti] || pk != kt->t->shape[ti])
        return -1;
    g->tnd = 1;
    g->B = a->count, g->T = pq;
    g->N = N, g->KV_N = KV_N == 0 ? N : KV_N;
    g->D = vt->t->shape[2];
    return 0;
}

/* The physical row of query row s of batch b under a query left-padding
 * scene (docs/features/padding.md): q_start = Q_S - p_q - q_len, compared
 * as p_q > Q_S - q_len so that nothing overflows; -1 for a row past the
 * length or a start < 0 (unspecified). */
static int64_t padded_row(const fia_case *c, const fz_geom *g, int64_t b,
                          int64_t s)
{
    const int64_t len = fz_q_len(c, g, b);
    if (len < 0 || len > g->Q_S || s >= len || g->p_q > g->Q_S - len)
        return -1;
    return g->Q_S - g->p_q - len + s;
}

int64_t fz_out_index(const fia_case *c, const fz_geom *g, int64_t b,
                     int64_t n, int64_t s, int64_t d)
{
    if (!g->tnd && g->qpad && (s = padded_row(c, g, b, s)) < 0)
        return -1;
    if (!g->tnd)
        return fz_index(fz_out_layout(g->layout), g->B, g->N, g->Q_S, g->D,
                        b, n, s, d);
    const int64_t *v = c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS].values;
    const int64_t t0 = b ? v[b - 1] : 0;
    if (s >= v[b] - t0)
        return -1;
    return (g->o_ntd ? n * g->T + t0 + s : (t0 + s) * g->N + n) * g->D + d;
}

int64_t fz_lse_index(const fia_case *c, const fz_geom *g, int64_t b,
                     int64_t n, int64_t s)
{
    if (!g->tnd && g->qpad && (s = padded_row(c, g, b, s)) < 0)
        return -1;
    if (!g->tnd)
        return (b * g->N + n) * g->Q_S + s;
    fz_geom tn = *g; /* (T, N, 1) read as [T, N] of D 1 */
    tn.o_ntd = 0, tn.D = 1;
    return fz_out_index(c, &tn, b, n, s, 0);
}

/* A padding tensor's value as the operator reads it (element 0, one for
 * every batch) against S: below 0 read as 0, past S as S + 1 (a start < 0
 * for every length); 0 when it has no element (*given 0) or its data
 * cannot be made (a generated tensor too large to make for one value). */
static int64_t padding_value(const fia_case *c, fia_slot s, int64_t S,
                             int *given)
{
    const fia_tensor_spec *sp = &c->tensors[s];
    *given = sp->presence == FIA_PRESENT && sp->count >= 1 && sp->t != NULL &&
             fia_tensor_numel(&sp->t[0]) >= 1;
    if (!*given)
        return 0;
    double v = 0, *data = NULL;
    int64_t n = 0;
    if (sp->gen.kind == FIA_GEN_VALUES && sp->gen.n_values >= 1)
        v = sp->gen.values[0];
    else if (fia_tensor_numel(&sp->t[0]) <= 4096 &&
             fz_slot_data(c, s, &data, &n, NULL) == FIA_OK && n >= 1)
        v = data[0];
    free(data);
    v = nearbyint(v); /* as the int64 data holds it */
    return !(v > 0) ? 0 : v > (double)S ? S + 1 : (int64_t)v;
}

/* The left-padding scenes of a call of geometry g, and their values. */
static void padding_scenes(const fia_case *c, fz_geom *g)
{
    int qgiven, kvgiven;
    g->p_q = padding_value(c, FIA_SLOT_QUERY_PADDING_SIZE, g->Q_S, &qgiven);
    g->p_kv = padding_value(c, FIA_SLOT_KV_PADDING_SIZE, g->KV_S, &kvgiven);
    const int q_seq = c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS].presence ==
                      FIA_PRESENT;
    const int kv_seq = c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV].presence ==
                       FIA_PRESENT;
    /* token layouts take no padding (not modeled); a decode list or page
     * table ignores kv padding (profile doc rejects the page table) */
    g->qpad = !g->tnd && qgiven && q_seq && g->Q_S > 1;
    g->kvpad = !g->tnd && kvgiven && kv_seq &&
               !(g->Q_S == 1 && (g->list || g->paged));
    if (!g->qpad)
        g->p_q = 0;
    if (!g->kvpad)
        g->p_kv = 0;
}

/* The shared prefix's length P of c (docs/features/prefix.md): with both
 * prefix tensors in the layout's rank, actual_shared_prefix_len[0] within
 * [0, S_p] when given, else S_p; 0 otherwise.  The outputs do not move:
 * only the keys a row reads (signature.c) and the pse's columns do. */
static int64_t prefix_of(const fia_case *c, const fz_geom *g)
{
    const fia_tensor_spec *kp = &c->tensors[FIA_SLOT_KEY_SHARED_PREFIX];
    const fia_tensor_spec *vp = &c->tensors[FIA_SLOT_VALUE_SHARED_PREFIX];
    const int nd = g->layout == FZ_BSH ? 3 : 4;
    if (g->layout == FZ_OTHER || !single(kp) || !single(vp) ||
        kp->t->ndim != nd)
        return 0;
    const int64_t sp = kp->t->shape[g->layout == FZ_BSH ||
                                            g->layout == FZ_BSND ? 1 : 2];
    const fia_int_array_spec *a = &c->arrays[FIA_ARR_ACTUAL_SHARED_PREFIX_LEN];
    if (a->presence != FIA_PRESENT || a->count < 1 || a->values == NULL)
        return sp;
    return a->values[0] < 0 ? 0 : a->values[0] > sp ? sp : a->values[0];
}

static int geom_of_call(const fia_case *c, fz_geom *g);

int fz_geom_of_call(const fia_case *c, fz_geom *g)
{
    if (geom_of_call(c, g) != 0)
        return -1;
    padding_scenes(c, g);
    g->P = prefix_of(c, g);
    return 0;
}

/* fz_geom_of_call without the padding. */
static int geom_of_call(const fia_case *c, fz_geom *g)
{
    if (fz_geom_of(c, g) == 0)
        return 0;
    if (fia_layout_is_tnd(c->attrs.input_layout)) {
        memset(g, 0, sizeof *g);
        g->layout = FZ_OTHER;
        return tnd_geom(c, g);
    }
    const fia_tensor_spec *q = &c->tensors[FIA_SLOT_QUERY];
    const fia_tensor_spec *t = &c->tensors[FIA_SLOT_BLOCK_TABLE];
    const fia_tensor_spec *k = &c->tensors[FIA_SLOT_KEY];
    memset(g, 0, sizeof *g);
    g->layout = fz_layout_of(c->attrs.input_layout);
    int64_t N = c->attrs.num_heads, KV_N = c->attrs.num_key_value_heads;
    KV_N = KV_N == 0 ? N : KV_N;
    const int paged = single(t) && t->t->ndim == 2 && c->attrs.block_size > 0;
    const int list = k->presence == FIA_PRESENT && k->count > 1;
    if (g->layout == FZ_OTHER || !single(q) || N <= 0 || KV_N <= 0 ||
        (!paged && !list))
        return -1;
    const fia_tensor *qt = q->t;
    g->N = N, g->KV_N = KV_N, g->paged = paged, g->list = list;
    if (paged) {
        g->KV_S = t->t->shape[1] * c->attrs.block_size;
    } else { /* the longest tensor of the list */
        int sa = g->layout == FZ_BNSD || g->layout == FZ_BNSD_BSND ? 2 : 1;
        for (int32_t i = 0; i < k->count; i++)
            if (k->t[i].ndim > sa && k->t[i].shape[sa] > g->KV_S)
                g->KV_S = k->t[i].shape[sa];
    }
    if (g->layout == FZ_BSH) {
        if (qt->ndim != 3 || qt->shape[2] % N)
            return -1;
        g->B = qt->shape[0], g->Q_S = qt->shape[1], g->D = qt->shape[2] / N;
        return 0;
    }
    int sa = g->layout == FZ_BSND ? 1 : 2, na = g->layout == FZ_BSND ? 2 : 1;
    if (qt->ndim != 4 || qt->shape[na] != N)
        return -1;
    g->B = qt->shape[0], g->Q_S = qt->shape[sa], g->D = qt->shape[3];
    return 0;
}

int fz_geom_of(const fia_case *c, fz_geom *g)
{
    memset(g, 0, sizeof *g);
    g->layout = fz_layout_of(c->attrs.input_layout);
    const fia_tensor_spec *q = &c->tensors[FIA_SLOT_QUERY];
    const fia_tensor_spec *k = &c->tensors[FIA_SLOT_KEY];
    const fia_tensor_spec *v = &c->tensors[FIA_SLOT_VALUE];
    if (g->layout == FZ_OTHER || !single(q) || !single(k) || !single(v))
        return -1;
    const fia_tensor *qt = q->t, *kt = k->t, *vt = v->t;
    if (kt->ndim != vt->ndim)
        return -1;
    for (int i = 0; i < kt->ndim; i++)
        if (kt->shape[i] != vt->shape[i])
            return -1;
    int64_t N = c->attrs.num_heads, KV_N = c->attrs.num_key_value_heads;
    if (KV_N == 0)
        KV_N = N;
    if (N <= 0 || KV_N <= 0)
        return -1;
    g->N = N, g->KV_N = KV_N;
    /* int4 packed eight to an int32 key/value: the last dim / 8
     * (docs/features/antiquant.md) */
    const int64_t pk = kt->dtype == FIA_DT_INT32 && qt->dtype != FIA_DT_INT32
                           ? 8 : 1;
    if (g->layout == FZ_BSH) {
        if (qt->ndim != 3 || kt->ndim != 3 || qt->shape[2] % N ||
            (kt->shape[2] * pk) % KV_N)
            return -1;
        g->B = qt->shape[0], g->Q_S = qt->shape[1], g->D = qt->shape[2] / N;
        g->KV_S = kt->shape[1];
        if (kt->shape[2] * pk / KV_N != g->D || kt->shape[0] != g->B)
            return -1;
        g->P = prefix_of(c, g);
        return 0;
    }
    if (qt->ndim != 4 || kt->ndim != 4)
        return -1;
    int sa = g->layout == FZ_BSND ? 1 : 2, na = g->layout == FZ_BSND ? 2 : 1;
    g->B = qt->shape[0], g->Q_S = qt->shape[sa], g->D = qt->shape[3];
    g->KV_S = kt->shape[sa];
    if (qt->shape[na] != N || kt->shape[na] != KV_N ||
        kt->shape[3] * pk != g->D ||
        kt->shape[0] != g->B)
        return -1;
    g->P = prefix_of(c, g);
    return 0;
}

static int64_t eff_len(const fia_int_array_spec *a, int64_t b, int64_t dflt)
{
    if (a->presence != FIA_PRESENT || a->count == 0)
        return dflt;
    return a->count == 1 ? a->values[0] : b < a->count ? a->values[b] : dflt;
}

/* A token layout's batch b: the step of a cumulative array. */
static int64_t tnd_len(const fia_int_array_spec *a, int64_t b)
{
    return a->values[b] - (b ? a->values[b - 1] : 0);
}

int64_t fz_q_len(const fia_case *c, const fz_geom *g, int64_t b)
{
    if (g->tnd)
        return tnd_len(&c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS], b);
    if (g->Q_S == 1)
        return 1;
    return eff_len(&c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS], b, g->Q_S);
}

int64_t fz_kv_len(const fia_case *c, const fz_geom *g, int64_t b)
{
    if (g->tnd)
        return tnd_len(&c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV], b);
    return eff_len(&c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV], b, g->KV_S);
}

fia_status fz_slot_data(const fia_case *c, fia_slot s, double **out,
                        int64_t *n, fia_error *err)
{
    fia_case_data d;
    *out = NULL;
    *n = 0;
    if (c->tensors[s].presence != FIA_PRESENT)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s is not present",
                        fia_slot_name(s));
    /* A view of c with only slot s: its data depends on the seed, the slot,
     * its generator and shape only, so the others need not be made. */
    fia_case view = *c;
    for (int k = 0; k < FIA_SLOT_COUNT; k++)
        if (k != (int)s)
            view.tensors[k].presence =
                k == FIA_SLOT_ATTENTION_OUT || k == FIA_SLOT_SOFTMAX_LSE ||
                k == FIA_SLOT_QUERY || k == FIA_SLOT_KEY || k == FIA_SLOT_VALUE
                    ? FIA_NULL : FIA_ABSENT;
    fia_status st = fia_case_materialize(&view, 1, &d, err);
    if (st != FIA_OK)
        return st;
    int64_t total = 0;
    for (int i = 0; i < d.n[s]; i++)
        total += fia_tensor_numel(&d.t[s][i]);
    double *v = malloc((size_t)(total > 0 ? total : 1) * sizeof *v);
    if (v == NULL) {
        fia_case_data_free(&d);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the data of %s",
                        fia_slot_name(s));
    }
    int64_t k = 0;
    for (int i = 0; i < d.n[s]; i++) {
        int64_t m = fia_tensor_numel(&d.t[s][i]);
        for (int64_t j = 0; j < m; j++)
            v[k++] = fia_load_as_double(d.t[s][i].dtype, d.t[s][i].data, j);
    }
    fia_case_data_free(&d);
    *out = v;
    *n = total;
    return FIA_OK;
}
