/* ref/ reading: the walk over the rows of a case, the one place where the
 * reading meets the math.  For each row (b, n, i), in that order:
 *
 *   - the key and value rows of its KV head (gqa: ref_kv_head) for the
 *     logical keys j < kv_len'[b] (MLA: each key row followed by its
 *     key_rope row, the query row by its query_rope row, read_mla.c) (seqlen; a shared prefix's P keys first,
 *     read_prefix.c; int key/value dequantized, read_antiquant.c), loaded
 *     once per (b, KV head) and shared by the group's query heads;
 *   - a padding row i >= q_len[b] (seqlen) has no value: output and lse
 *     unspecified;
 *   - a batch whose left-padding start is below 0 (read_padding.c): every
 *     row's output and lse unspecified at Q_S > 1, output 0 and lse
 *     unspecified at Q_S = 1;
 *   - otherwise its keys, those every key rule admits (ref_key_takes_part),
 *     ascending, its query row and, with pse, its keys' biases
 *     (read_pse.c);
 *   - a row with no key is degenerate (docs/features/precise.md, seqlen.md):
 *       kv_len'[b] = 0 (empty key sequence; kv_len[b] = 0 with a prefix of
 *         P > 0 keys is not): output 0 exactly; lse +inf when KV_S = 0 or
 *         the row is corrected, unspecified otherwise;
 *       fully masked and corrected (ref_row_corrected): output 0, lse +inf;
 *       fully masked otherwise: output and lse unspecified.
 *
 * Rows are logical: i runs over [0, Q_S) and the index maps
 * (read_layout.c, read_lse.c) place row i at its physical row, with left
 * padding a rotation of the S axis, so that every physical row of
 * attention_out and softmax_lse is visited exactly once.
 *
 * Cost: O(B KV_N kv_len' (D + Dr)) loads, O(B N Q_S kv_len') key-rule evaluations;
 * the arithmetic on the rows is the caller's. */
#include <stdlib.h>
#include "ref_internal.h"

typedef struct rows_buf {
    double *k, *v, *q; /* [max kv_len'][D + Dr], [max kv_len'][Dv],
                          [D + Dr] */
    double *klo, *vlo; /* antiquant: the rests, like k, v (else NULL) */
    int64_t *keys;     /* [max kv_len'] */
    double *bias;      /* [max kv_len'] */
} rows_buf;

static void rb_free(rows_buf *rb)
{
    free(rb->k), free(rb->v), free(rb->q), free(rb->keys), free(rb->bias);
    free(rb->klo), free(rb->vlo);
}

/* Key rows of Dk = D + Dr columns, value rows of Dv. */
static fia_status rb_alloc(rows_buf *rb, int64_t Dk, int64_t Dv,
                           int64_t KV_S, int aq, fia_error *err)
{
    size_t d = (size_t)(Dv > 0 ? Dv : 1), kv = (size_t)(KV_S > 0 ? KV_S : 1);
    size_t dk = (size_t)(Dk > 0 ? Dk : 1);
    rb->k = malloc(kv * dk * sizeof(double));
    rb->v = malloc(kv * d * sizeof(double));
    rb->q = malloc(dk * sizeof(double));
    rb->keys = malloc(kv * sizeof(int64_t));
    rb->bias = malloc(kv * sizeof(double));
    if (aq) {
        rb->klo = malloc(kv * dk * sizeof(double));
        rb->vlo = malloc(kv * d * sizeof(double));
        if (!rb->klo || !rb->vlo)
            return fia_fail(err, FIA_ERR_NOMEM, "out of memory (reference "
                            "rows)");
    }
    if (!rb->k || !rb->v || !rb->q || !rb->keys || !rb->bias)
        return fia_fail(err, FIA_ERR_NOMEM, "out of memory (reference rows)");
    return FIA_OK;
}

/* What the documents say of row (b, .) with no key taking part. */
static void degenerate(const ref_problem *p, int64_t b, ref_row_view *row)
{
    int corr = ref_row_corrected(p, b);
    row->computed = 0;
    if (ref_kv_len(p, b) == 0) {
        row->out_unspec = 0;
        row->lse_inf = p->KV_S == 0 || corr;
    } else if (corr) {
        row->out_unspec = 0;
        row->lse_inf = 1;
    } else {
        row->out_unspec = 1;
        row->lse_inf = 0;
    }
}

int64_t ref_max_kv_len(const ref_problem *p)
{
    int64_t m = 1;
    for (int64_t b = 0; b < p->B; b++)
        m = ref_kv_len(p, b) > m ? ref_kv_len(p, b) : m;
    return m;
}

fia_status ref_rows_walk(const ref_problem *p, ref_row_fn fn, void *ctx,
                         fia_error *err)
{
    rows_buf rb = {0};
    fia_status st = rb_alloc(&rb, p->D + p->Dr, p->Dv, ref_max_kv_len(p),
                             p->aq, err);
    if (st != FIA_OK) {
        rb_free(&rb);
        return st;
    }
    ref_row_view row = {.q = rb.q, .kbuf = rb.k, .vbuf = rb.v,
                        .bias = p->pse ? rb.bias : NULL, .keys = rb.keys};
    for (int64_t b = 0; b < p->B && st == FIA_OK; b++) {
        const int neg = ref_pad_start_neg(p, b);
        for (int64_t kn = 0; kn < p->KV_N && st == FIA_OK; kn++) {
            /* the rests of dequantized elements, when some is nonzero */
            int lo = ref_load_kv_rows(p, b, kn, ref_kv_len(p, b), rb.k, rb.v,
                                      rb.klo, rb.vlo);
            row.klo = lo ? rb.klo : NULL;
            row.vlo = lo ? rb.vlo : NULL;
            for (int64_t n = 0; n < p->N && st == FIA_OK; n++) {
                if (ref_kv_head(p, n) != kn)
                    continue;
                /* a token layout has no padding rows */
                int64_t rows = p->tnd ? p->q_len[b] : p->Q_S;
                for (int64_t i = 0; i < rows && st == FIA_OK; i++) {
                    row.b = b, row.n = n, row.i = i;
                    row.nk = 0;
                    if (neg) { /* a left-padding start below 0 */
                        row.computed = 0;
                        row.out_unspec = !p->decode;
                        row.lse_inf = 0;
                        st = fn(&row, ctx, err);
                        continue;
                    }
                    if (i >= p->q_len[b]) { /* padding row */
                        row.computed = 0;
                        row.out_unspec = 1;
                        row.lse_inf = 0;
                        st = fn(&row, ctx, err);
                        continue;
                    }
                    for (int64_t j = 0; j < ref_kv_len(p, b); j++)
                        if (ref_key_takes_part(p, b, i, j))
                            rb.keys[row.nk++] = j;
                    if (row.nk == 0) {
                        degenerate(p, b, &row);
                    } else {
                        row.computed = 1;
                        ref_load_q_row(p, b, n, i, rb.q);
                        ref_load_pse_row(p, b, n, i, rb.keys, row.nk, rb.bias);
                    }
                    st = fn(&row, ctx, err);
                }
            }
        }
    }
    rb_free(&rb);
    return st;
}
