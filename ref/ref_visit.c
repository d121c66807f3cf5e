/* ref/: the rows of a case as the reference reads them, for other parts of
 * the reference side (oracle/'s plain same-dtype implementation).  Only the
 * interpretation of ref_problem.c; no arithmetic. */
#include <stdio.h>
#include <stdlib.h>
#include "ref_internal.h"

typedef struct visit_buf {
    double *q, *k, *v;
    int64_t *idx;
} visit_buf;

static void vb_free(visit_buf *b)
{
    free(b->q), free(b->k), free(b->v), free(b->idx);
}

static int vb_alloc(visit_buf *b, int64_t D, int64_t KV_S)
{
    size_t d = (size_t)(D > 0 ? D : 1), kv = (size_t)(KV_S > 0 ? KV_S : 1);
    b->q = malloc(d * sizeof(double));
    b->k = malloc(kv * d * sizeof(double));
    b->v = malloc(kv * d * sizeof(double));
    b->idx = malloc(d * sizeof(int64_t));
    return b->q && b->k && b->v && b->idx ? 0 : -1;
}

fia_status fia_ref_visit_rows(const fia_case *c, const fia_case_data *d,
                              fia_ref_row_fn fn, void *ctx, char *err,
                              size_t errlen)
{
    ref_problem p;
    fia_status st = ref_problem_init(&p, c, d, err, errlen);
    if (st != FIA_OK)
        return st;
    if (p.empty_query) {
        ref_problem_free(&p);
        return FIA_OK;
    }
    visit_buf vb = {0};
    if (vb_alloc(&vb, p.D, p.KV_S) != 0) {
        vb_free(&vb);
        ref_problem_free(&p);
        snprintf(err, errlen, "out of memory (visit rows)");
        return FIA_ERR_NOMEM;
    }
    fia_ref_row row = {.D = p.D, .scale = p.scale, .q = vb.q, .k = vb.k,
                       .v = vb.v, .out_index = vb.idx};
    for (int64_t b = 0; b < p.B && st == FIA_OK; b++)
        for (int64_t n = 0; n < p.N && st == FIA_OK; n++) {
            int64_t kn = n / p.group;
            for (int64_t i = 0; i < p.q_len[b] && st == FIA_OK; i++) {
                int64_t nk = 0;
                for (int64_t j = 0; j < p.kv_len[b]; j++) {
                    if (!ref_key_takes_part(&p, b, i, j))
                        continue;
                    for (int64_t dd = 0; dd < p.D; dd++) {
                        int64_t x = ref_kv_index(&p, b, kn, j, dd);
                        vb.k[nk * p.D + dd] =
                            fia_load_as_double(p.k->dtype, p.k->data, x);
                        vb.v[nk * p.D + dd] =
                            fia_load_as_double(p.v->dtype, p.v->data, x);
                    }
                    nk++;
                }
                if (nk == 0)
                    continue;
                for (int64_t dd = 0; dd < p.D; dd++) {
                    vb.q[dd] = fia_load_as_double(p.q->dtype, p.q->data,
                                                  ref_q_index(&p, b, n, i, dd));
                    vb.idx[dd] = ref_out_index(&p, b, n, i, dd);
                }
                row.nk = nk;
                row.lse_index = p.has_lse ? ref_lse_index(&p, b, n, i) : -1;
                st = fn(&row, ctx);
            }
        }
    vb_free(&vb);
    ref_problem_free(&p);
    return st;
}
