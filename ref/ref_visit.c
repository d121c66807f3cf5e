/* ref/: the rows of a case as the reference reads them, for other parts of
 * the reference side (compare/'s plain same-dtype implementation).  Only
 * the reading (ref_problem.c, ref_rows.c); no arithmetic.  Each computed
 * row's keys are handed over packed: k[t], v[t] for its t-th key (k of
 * D + Dr columns, MLA's key_rope after the key's; q alike; v of Dv). */
#include <stdlib.h>
#include <string.h>
#include "ref_internal.h"

typedef struct visit_ctx {
    const ref_problem *p;
    fia_ref_row_fn fn;
    void *fn_ctx;
    fia_ref_row row;
    double *k, *v;    /* [max kv_len'][D + Dr], [max kv_len'][D], packed */
    double *bias;     /* [max kv_len'], packed (pse) */
    int64_t *idx;     /* [D] */
} visit_ctx;

static fia_status visit_row(const ref_row_view *rv, void *vctx,
                            fia_error *err)
{
    (void)err;
    visit_ctx *x = vctx;
    const ref_problem *p = x->p;
    if (!rv->computed)
        return FIA_OK;
    const int64_t Dk = p->D + p->Dr, Dv = p->Dv;
    size_t rowbytes = (size_t)Dv * sizeof(double);
    for (int64_t t = 0; t < rv->nk; t++) {
        memcpy(x->k + t * Dk, rv->kbuf + rv->keys[t] * Dk,
               (size_t)Dk * sizeof(double));
        memcpy(x->v + t * Dv, rv->vbuf + rv->keys[t] * Dv, rowbytes);
    }
    if (rv->bias != NULL)
        for (int64_t t = 0; t < rv->nk; t++)
            x->bias[t] = rv->bias[rv->keys[t]];
    x->row.bias = rv->bias != NULL ? x->bias : NULL;
    for (int64_t dd = 0; dd < Dv; dd++)
        x->idx[dd] = ref_out_index(p, rv->b, rv->n, rv->i, dd);
    x->row.q = rv->q;
    x->row.nk = rv->nk;
    x->row.lse_index = p->has_lse ? ref_lse_index(p, rv->b, rv->n, rv->i)
                                  : -1;
    return (fia_status)x->fn(&x->row, x->fn_ctx);
}

fia_status fia_ref_visit_rows(const fia_case *c, const fia_case_data *d,
                              fia_ref_row_fn fn, void *ctx, fia_error *err)
{
    ref_problem p;
    fia_status st = ref_problem_init(&p, c, d, err);
    if (st != FIA_OK)
        return st;
    if (p.empty_query) {
        ref_problem_free(&p);
        return FIA_OK;
    }
    size_t dn = (size_t)(p.Dv > 0 ? p.Dv : 1);
    size_t dk = (size_t)(p.D + p.Dr > 0 ? p.D + p.Dr : 1);
    size_t kv = (size_t)ref_max_kv_len(&p);
    visit_ctx x = {.p = &p, .fn = fn, .fn_ctx = ctx};
    x.k = malloc(kv * dk * sizeof(double));
    x.v = malloc(kv * dn * sizeof(double));
    x.idx = malloc(dn * sizeof(int64_t));
    x.bias = malloc(kv * sizeof(double));
    if (!x.k || !x.v || !x.idx || !x.bias) {
        st = fia_fail(err, FIA_ERR_NOMEM, "out of memory (visit rows)");
    } else {
        /* the row's D is the output's (value's) columns, its Dr every
         * score column past them (MLA's rope, a narrower value's rest) */
        x.row = (fia_ref_row){.D = p.Dv, .Dr = p.D + p.Dr - p.Dv,
                              .scale = p.scale,
                              .k = x.k,
                              .v = x.v, .out_index = x.idx,
                              .kv_dequantized = p.aq};
        st = ref_rows_walk(&p, visit_row, &x, err);
    }
    free(x.k), free(x.v), free(x.idx), free(x.bias);
    ref_problem_free(&p);
    return st;
}

/* ---- fia_ref_visit_keys: the keys of every row, nothing computed ------- */

typedef struct keys_ctx {
    const ref_problem *p;
    fia_ref_key_fn fn;
    void *fn_ctx;
    double *kd;   /* MLA: [max kv_len'][D], the key rows without their
                     rope columns (the rows handed over are D wide) */
} keys_ctx;

static fia_status key_row(const ref_row_view *rv, void *vctx, fia_error *err)
{
    (void)err;
    keys_ctx *x = vctx;
    const ref_problem *p = x->p;
    const double *k = rv->kbuf;
    if (p->Dr > 0) { /* D columns of each D + Dr wide key row */
        for (int64_t j = 0; j < ref_kv_len(p, rv->b); j++)
            memcpy(x->kd + j * p->D, rv->kbuf + j * (p->D + p->Dr),
                   (size_t)p->D * sizeof(double));
        k = x->kd;
    }
    fia_ref_key_row row = {
        .b = rv->b, .n = rv->n, .kv_head = ref_kv_head(p, rv->n), .i = rv->i,
        .q_len = p->q_len[rv->b], .kv_len = ref_kv_len(p, rv->b),
        /* a left-padding start below 0: the batch has no computed row */
        .padding = rv->i >= p->q_len[rv->b] || ref_pad_start_neg(p, rv->b),
        .lse_inf = rv->lse_inf,
        .nk = rv->nk, .keys = rv->keys, .q = rv->computed ? rv->q : NULL,
        .k = k, .v = rv->vbuf};
    return (fia_status)x->fn(&row, x->fn_ctx);
}

fia_status fia_ref_visit_keys(const fia_case *c, const fia_case_data *d,
                              fia_ref_dims *dims, fia_ref_key_fn fn,
                              void *ctx, fia_error *err)
{
    memset(dims, 0, sizeof *dims);
    ref_problem p;
    fia_status st = ref_problem_init(&p, c, d, err);
    if (st != FIA_OK)
        return st;
    *dims = (fia_ref_dims){.B = p.B, .N = p.N, .KV_N = p.KV_N, .Q_S = p.Q_S,
                           .KV_S = p.KV_S, .D = p.D, .Dv = p.Dv,
                           .empty_query = p.empty_query};
    keys_ctx x = {.p = &p, .fn = fn, .fn_ctx = ctx};
    if (!p.empty_query && p.Dr > 0) {
        x.kd = malloc((size_t)ref_max_kv_len(&p) * (size_t)(p.D > 0 ? p.D : 1) *
                      sizeof(double));
        if (x.kd == NULL)
            st = fia_fail(err, FIA_ERR_NOMEM, "out of memory (visit keys)");
    }
    if (!p.empty_query && st == FIA_OK)
        st = ref_rows_walk(&p, key_row, &x, err);
    free(x.kd);
    ref_problem_free(&p);
    return st;
}
