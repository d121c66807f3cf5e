/* The minimizer: shrinks a failing case structurally while a predicate
 * (normally "the same signature still fails") holds.  Passes, repeated
 * until nothing changes: drop optional tensors, arrays and attributes;
 * reduce B, KV_N, the GQA group, Q_S, KV_S, D together across query, key,
 * value, mask and sequence lengths (slicing explicit data); shrink single
 * tensor dims (for status findings, where shapes need not agree); simplify
 * data toward small integers and zeros; reset the seed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_internal.h"
#include "fuzz/signature.h"

typedef struct mctx {
    fuzz_pred pred;
    void *ctx;
    int attempts, max_attempts, accepted;
} mctx;

/* Tries cand: when it holds and is no larger, it replaces *c. */
static int try_cand(mctx *m, fia_case *c, fia_case *cand)
{
    int ok = 0;
    if (m->attempts < m->max_attempts &&
        fuzz_case_size(cand) <= fuzz_case_size(c) && !fia_case_equal(cand, c)) {
        m->attempts++;
        if (m->pred(cand, m->ctx)) {
            fia_case_free(c);
            *c = *cand;
            fia_case_init(cand);
            m->accepted++;
            ok = 1;
        }
    }
    fia_case_free(cand);
    return ok;
}

double fuzz_case_size(const fia_case *c)
{
    double s = 0;
    for (int k = 0; k < FIA_SLOT_COUNT; k++) {
        const fia_tensor_spec *sp = &c->tensors[k];
        if (sp->presence == FIA_ABSENT)
            continue;
        s += 1000;
        for (int i = 0; i < sp->count; i++) {
            double n = 1;
            for (int d = 0; d < sp->t[i].ndim; d++)
                n *= (double)(sp->t[i].shape[d] < 0 ? 1 : sp->t[i].shape[d]);
            s += n + 10 * sp->t[i].ndim;
        }
        if (sp->gen.kind == FIA_GEN_VALUES)
            for (int64_t i = 0; i < sp->gen.n_values; i++) {
                double x = sp->gen.values[i];
                s += x == 0 ? 0 : isfinite(x) && x == floor(x) && fabs(x) <= 8 ? 0.5 : 1;
            }
        else if (sp->gen.kind != FIA_GEN_DEFAULT)
            s += 1;
    }
    for (int a = 0; a < FIA_ARR_COUNT; a++)
        if (c->arrays[a].presence != FIA_ABSENT)
            s += 100 + (double)c->arrays[a].count;
    for (int a = 0; a < FIA_ATTR_COUNT; a++)
        if (c->attr_given[a])
            s += 10;
    return s + (c->seed != 0);
}

static fia_status copy(fia_case *dst, const fia_case *src)
{
    fia_case_init(dst);
    return fia_case_copy(dst, src);
}

/* ---- structural passes ---------------------------------------------------- */

static void pass_drop(mctx *m, fia_case *c)
{
    fia_case cand;
    for (int s = FIA_SLOT_PSE_SHIFT; s < FIA_SLOT_COUNT; s++)
        if (c->tensors[s].presence != FIA_ABSENT && copy(&cand, c) == 0) {
            fz_case_absent(&cand, (fia_slot)s);
            try_cand(m, c, &cand);
        }
    for (int a = 0; a < FIA_ARR_COUNT; a++)
        if (c->arrays[a].presence != FIA_ABSENT && copy(&cand, c) == 0) {
            fz_case_array_absent(&cand, (fia_array)a);
            try_cand(m, c, &cand);
        }
    /* a dropped line takes the default of the case's interface */
    fia_attrs def;
    fia_api_attrs_default(c->api, &def);
    for (int a = 0; a < FIA_ATTR_COUNT; a++) {
        if (a == FIA_ATTR_INPUT_LAYOUT || a == FIA_ATTR_NUM_HEADS ||
            !c->attr_given[a] || copy(&cand, c) != 0)
            continue;
        switch (a) {
        case FIA_ATTR_SCALE: cand.attrs.scale = def.scale; break;
        case FIA_ATTR_PRE_TOKENS: cand.attrs.pre_tokens = def.pre_tokens; break;
        case FIA_ATTR_NEXT_TOKENS: cand.attrs.next_tokens = def.next_tokens; break;
        case FIA_ATTR_NUM_KEY_VALUE_HEADS: cand.attrs.num_key_value_heads = def.num_key_value_heads; break;
        case FIA_ATTR_SPARSE_MODE: cand.attrs.sparse_mode = 0; break;
        case FIA_ATTR_INNER_PRECISE: cand.attrs.inner_precise = def.inner_precise; break;
        case FIA_ATTR_BLOCK_SIZE: cand.attrs.block_size = 0; break;
        case FIA_ATTR_ANTIQUANT_MODE: cand.attrs.antiquant_mode = 0; break;
        case FIA_ATTR_SOFTMAX_LSE_FLAG: cand.attrs.softmax_lse_flag = false; break;
        case FIA_ATTR_KEY_ANTIQUANT_MODE: cand.attrs.key_antiquant_mode = 0; break;
        case FIA_ATTR_VALUE_ANTIQUANT_MODE: cand.attrs.value_antiquant_mode = 0; break;
        case FIA_ATTR_QUERY_QUANT_MODE: cand.attrs.query_quant_mode = 0; break;
        default: break;
        }
        cand.attr_given[a] = false;
        try_cand(m, c, &cand);
    }
    if (c->seed != 0 && copy(&cand, c) == 0) {
        cand.seed = 0;
        try_cand(m, c, &cand);
    }
}

/* Keeps the first `keep` entries along axis `ax` of a row-major tensor;
 * NULL out of memory. */
static double *slice_axis(const double *v, int nd, const int64_t *sh, int ax,
                          int64_t keep, int64_t *nout)
{
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < ax; i++)
        outer *= sh[i];
    for (int i = ax + 1; i < nd; i++)
        inner *= sh[i];
    *nout = outer * keep * inner;
    double *o = malloc((size_t)(*nout > 0 ? *nout : 1) * sizeof *o);
    if (o == NULL)
        return NULL;
    for (int64_t a = 0; a < outer; a++)
        memcpy(o + a * keep * inner, v + a * sh[ax] * inner,
               (size_t)(keep * inner) * sizeof *o);
    return o;
}

/* Slices one tensor of a case along an axis (its explicit values too).
 * FIA_ERR_BAD_INPUT when the slot has no such single tensor or axis, or
 * keep is out of it; NOMEM.  (A failure only means: no candidate.) */
static fia_status slice_tensor(fia_case *c, fia_slot s, int ax, int64_t keep)
{
    fia_tensor_spec *sp = &c->tensors[s];
    if (sp->presence != FIA_PRESENT || sp->count != 1 || ax >= sp->t[0].ndim ||
        keep < 0 || keep > sp->t[0].shape[ax])
        return FIA_ERR_BAD_INPUT;
    if (sp->gen.kind == FIA_GEN_VALUES) {
        int64_t n;
        double *v = slice_axis(sp->gen.values, sp->t[0].ndim, sp->t[0].shape, ax,
                               keep, &n);
        if (v == NULL)
            return FIA_ERR_NOMEM;
        fz_case_values(c, s, v, n);
    }
    sp->t[0].shape[ax] = keep;
    return FIA_OK;
}

enum { DIM_B, DIM_KVN, DIM_GRP, DIM_QS, DIM_KVS, DIM_D };

/* c with one logical dimension reduced to v, consistently, into *out;
 * as slice_tensor (out freed on failure). */
static fia_status reduce_dim(const fia_case *c, const fz_geom *g, int which,
                             int64_t v, fia_case *out)
{
    fia_status rc = copy(out, c);
    if (rc != FIA_OK)
        return rc;
    int bsh = g->layout == FZ_BSH, sn = g->layout == FZ_BSND || bsh;
    int ax_s = sn ? 1 : 2, ax_n = sn ? 2 : 1;
    int64_t grp = g->N / g->KV_N;
    static const fia_slot qkv[] = {FIA_SLOT_QUERY, FIA_SLOT_KEY, FIA_SLOT_VALUE};
    for (int t = 0; t < 3 && rc == FIA_OK; t++) {
        fia_tensor_spec *sp = &out->tensors[qkv[t]];
        int64_t H = t ? g->KV_N : g->N;
        /* view BSH as [B, S, H/D, D] while slicing */
        if (bsh) {
            sp->t[0].ndim = 4;
            sp->t[0].shape[2] = H, sp->t[0].shape[3] = g->D;
        }
        switch (which) {
        case DIM_B: rc = slice_tensor(out, qkv[t], 0, v); break;
        case DIM_KVN: rc = slice_tensor(out, qkv[t], ax_n, t ? v : v * grp); break;
        case DIM_GRP: if (!t) rc = slice_tensor(out, qkv[t], ax_n, g->KV_N * v); break;
        case DIM_QS: if (!t) rc = slice_tensor(out, qkv[t], ax_s, v); break;
        case DIM_KVS: if (t) rc = slice_tensor(out, qkv[t], ax_s, v); break;
        default: rc = slice_tensor(out, qkv[t], 3, v); break;
        }
        if (bsh) {
            sp->t[0].ndim = 3;
            sp->t[0].shape[2] *= sp->t[0].shape[3];
        }
    }
    if (rc != FIA_OK) {
        fia_case_free(out);
        return rc;
    }
    int64_t N2 = which == DIM_KVN ? v * grp : which == DIM_GRP ? g->KV_N * v : g->N;
    int64_t KV2 = which == DIM_KVN ? v : g->KV_N;
    fz_case_attr(out, FIA_ATTR_NUM_HEADS, N2);
    if (out->attrs.num_key_value_heads != 0 || KV2 != N2)
        fz_case_attr(out, FIA_ATTR_NUM_KEY_VALUE_HEADS, KV2);
    /* mask */
    fia_tensor_spec *ms = &out->tensors[FIA_SLOT_ATTEN_MASK];
    if (ms->presence == FIA_PRESENT && ms->count == 1 && ms->t[0].ndim >= 2) {
        int nd = ms->t[0].ndim;
        int64_t *sh = ms->t[0].shape;
        if (which == DIM_B && sh[0] == g->B && (nd >= 3 || g->Q_S == 1))
            slice_tensor(out, FIA_SLOT_ATTEN_MASK, 0, v);
        if (which == DIM_QS && sh[nd - 2] == g->Q_S)
            slice_tensor(out, FIA_SLOT_ATTEN_MASK, nd - 2, v);
        if (which == DIM_KVS && sh[nd - 1] == g->KV_S)
            slice_tensor(out, FIA_SLOT_ATTEN_MASK, nd - 1, v);
    }
    /* sequence lengths */
    for (int a = 0; a < 2; a++) {
        fia_int_array_spec *ar = &out->arrays[a];
        if (ar->presence != FIA_PRESENT)
            continue;
        if (which == DIM_B && ar->count > v && ar->count > 1)
            ar->count = v;
        int64_t lim = (a == 0 && which == DIM_QS) || (a == 1 && which == DIM_KVS) ? v : -1;
        for (int64_t i = 0; i < ar->count && lim >= 0; i++)
            if (ar->values[i] > lim)
                ar->values[i] = lim;
    }
    return FIA_OK;
}

static void pass_dims(mctx *m, fia_case *c)
{
    for (int which = DIM_B; which <= DIM_D; which++) {
        for (int step = 0; step < 3; step++) {
            fz_geom g;
            if (fz_geom_of(c, &g) != 0)
                return;
            int64_t cur[] = {g.B, g.KV_N, g.N / g.KV_N, g.Q_S, g.KV_S, g.D};
            int64_t x = cur[which], lo = which == DIM_KVS ? 0 : 1;
            int64_t tries[3] = {lo, x / 2, x - 1};
            if (which == DIM_D)
                tries[0] = 16, tries[1] = x / 2 / 16 * 16;
            int64_t v = tries[step];
            fia_case cand;
            if (v < lo || v >= x || reduce_dim(c, &g, which, v, &cand) != FIA_OK)
                continue;
            if (try_cand(m, c, &cand))
                step = -1; /* again from the smallest */
        }
    }
}

/* Single tensor dims, for findings where shapes need not agree. */
static void pass_tensor_dims(mctx *m, fia_case *c)
{
    for (int s = 0; s < FIA_SLOT_COUNT; s++) {
        const fia_tensor_spec *sp = &c->tensors[s];
        if (sp->presence != FIA_PRESENT || sp->count != 1)
            continue;
        for (int ax = 0; ax < sp->t[0].ndim; ax++) {
            int64_t x = c->tensors[s].t[0].shape[ax];
            int64_t tries[] = {1, x / 2, x - 1};
            for (int k = 0; k < 3; k++) {
                fia_case cand;
                if (tries[k] < 1 || tries[k] >= x || copy(&cand, c) != FIA_OK)
                    continue;
                if (slice_tensor(&cand, (fia_slot)s, ax, tries[k]) != FIA_OK) {
                    fia_case_free(&cand);
                    continue;
                }
                if (try_cand(m, c, &cand))
                    break;
            }
        }
    }
}

/* Data toward small integers and zeros. */
static void pass_data(mctx *m, fia_case *c)
{
    static const fia_slot slots[] = {FIA_SLOT_QUERY, FIA_SLOT_KEY, FIA_SLOT_VALUE,
                                     FIA_SLOT_ATTEN_MASK};
    for (int t = 0; t < 4; t++) {
        fia_slot s = slots[t];
        fia_tensor_spec *sp = &c->tensors[s];
        if (sp->presence != FIA_PRESENT)
            continue;
        fia_case cand;
        if (sp->gen.kind != FIA_GEN_VALUES) {
            if (sp->gen.kind == FIA_GEN_CONST || copy(&cand, c) != 0)
                continue;
            /* the generated data, rounded to small integers */
            int64_t n = 0;
            double *v;
            if (fz_slot_data(c, s, &v, &n, NULL) != FIA_OK || n > 65536) {
                free(v);
                fia_case_free(&cand);
                continue;
            }
            for (int64_t i = 0; i < n; i++)
                if (isfinite(v[i]))
                    v[i] = fmax(-8, fmin(8, round(v[i])));
            fz_case_values(&cand, s, v, n);
            try_cand(m, c, &cand);
            continue;
        }
        /* explicit values: round, then zero chunks */
        if (copy(&cand, c) == 0) {
            fia_gen *g = &cand.tensors[s].gen;
            for (int64_t i = 0; i < g->n_values; i++)
                if (isfinite(g->values[i]))
                    g->values[i] = fmax(-8, fmin(8, round(g->values[i])));
            try_cand(m, c, &cand);
        }
        for (int64_t chunk = c->tensors[s].gen.n_values; chunk >= 1; chunk /= 2) {
            int64_t n = c->tensors[s].gen.n_values;
            if (n / chunk > 64)
                break;
            for (int64_t at = 0; at < n; at += chunk) {
                if (copy(&cand, c) != 0)
                    return;
                fia_gen *g = &cand.tensors[s].gen;
                int64_t changed = 0;
                for (int64_t i = at; i < at + chunk && i < n; i++) {
                    changed += g->values[i] != 0;
                    g->values[i] = 0;
                }
                if (changed)
                    try_cand(m, c, &cand);
                else
                    fia_case_free(&cand);
            }
        }
    }
}

int fuzz_minimize(fia_case *c, fuzz_pred pred, void *ctx, int max_attempts)
{
    mctx m = {pred, ctx, 0, max_attempts, 0};
    for (int round = 0; round < 8; round++) {
        int before = m.accepted;
        pass_drop(&m, c);
        pass_dims(&m, c);
        pass_tensor_dims(&m, c);
        pass_data(&m, c);
        if (m.accepted == before || m.attempts >= m.max_attempts)
            break;
    }
    return m.accepted;
}

/* ---- the standard predicate ---------------------------------------------- */

int fuzz_case_signature(const fia_case *c, fuzz_target_id t, fia_profile p,
                        const char *transform, fuzz_case_verdict *v)
{
    fia_check_options o;
    fia_check_options_default(&o);
    o.profile = p;
    return fuzz_case_judge(c, t, &o, transform, v);
}

int fuzz_case_judge(const fia_case *c, fuzz_target_id t,
                    const fia_check_options *opt, const char *transform,
                    fuzz_case_verdict *v)
{
    fia_profile p = opt->profile;
    memset(v, 0, sizeof *v);
    if (t == FUZZ_METAMORPHIC && transform != NULL && transform[0]) {
        fuzz_meta_result r;
        fuzz_meta_check(c, transform, p, &r);
        if (!r.applicable)
            return v->finding = -1;
        if (r.finding) {
            snprintf(v->signature, sizeof v->signature, "%s", r.signature);
            snprintf(v->message, sizeof v->message, "%s", r.message);
        }
        return v->finding = r.finding;
    }
    static fia_check_result r;
    fia_check_options o = *opt;
    o.status_only = t == FUZZ_PARAMS;
    o.fail_masks = 1; /* the signature names where the output fails */
    fia_check_case(c, &o, &r);
    snprintf(v->message, sizeof v->message, "%s", r.reason.msg);
    v->finding = fia_verdict_is_finding(r.v) ? 1 : r.v == FIA_V_PASS ? 0 : -1;
    if (v->finding == 1)
        fuzz_signature(c, &r, p, v->signature, sizeof v->signature);
    fia_check_result_release(&r);
    return v->finding;
}

int fuzz_same_signature(const fia_case *c, void *ctx)
{
    const fuzz_sig_pred *p = ctx;
    static fuzz_case_verdict v;
    if (p->check != NULL)
        return fuzz_case_judge(c, p->target, p->check, p->transform, &v) == 1 &&
               fuzz_signature_compatible(v.signature, p->signature);
    return fuzz_case_signature(c, p->target, p->profile, p->transform, &v) == 1 &&
           fuzz_signature_compatible(v.signature, p->signature);
}
