/* The 003 token layouts for ggml (docs/features/tnd.md): TND, TND_NTD
 * (query and key [T, N, D]), NTD_TND and NTD ([N, T, D]); the part after
 * "_" is attention_out's, [T, N, Dv] or [N, T, Dv].  There is no batch
 * axis: actual_seq_lengths and actual_seq_lengths_kv hold B cumulative
 * token counts, batch b owning tokens [count[b-1], count[b]); with page
 * attention (MLA's D = 512) actual_seq_lengths_kv holds each batch's own
 * length and the keys are a cache (ggml_gather.c).
 *
 * ggml has batches of one length, so each batch's query rows are copied
 * into padded [B][N][Q_S] rows (Q_S the longest batch) and its keys
 * gathered likewise; padded rows are computed over no key (the mask) and
 * never written back.  Value's head dim Dv may be below D (TND 192/128):
 * ggml's V head dim is its own.  The sparse mode is never the decode
 * path's here: mode 3 holds at one query token too (read_mask_pse). */
#include <stdlib.h>
#include <string.h>
#include "ggml_plan.h"

int64_t ggml_row_at(const ggml_plan *p, int64_t b, int64_t n, int64_t s,
                    int64_t W, int out)
{
    if (p->tnd) {
        const int64_t tok = p->q_tok[b] + s;
        return (out ? p->o_ntd : p->q_ntd) ? (n * p->T + tok) * W
                                           : (tok * p->N + n) * W;
    }
    if (out && p->nbsd_out)
        return ((n * p->B + b) * p->Q_S + s) * W;
    if (out ? p->bnsd_out : p->bnsd_in)
        return ((b * p->N + n) * p->Q_S + s) * W;
    return ((b * p->Q_S + s) * p->N + n) * W;
}

/* B cumulative counts ending at T into tok[b], len[b]; the longest. */
static fia_status cumulative(const fia_int_array *l, int64_t B, int64_t T,
                             int64_t *tok, int64_t *len, int64_t *most)
{
    int64_t prev = 0;
    *most = 0;
    for (int64_t b = 0; b < B; b++) {
        const int64_t v = l->values[b];
        if (v < prev)
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "token counts not "
                                 "cumulative");
        tok[b] = prev, len[b] = v - prev, prev = v;
        *most = len[b] > *most ? len[b] : *most;
    }
    if (prev != T)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "token counts do not end "
                             "at T");
    return FIA_OK;
}

static fia_status alloc_lengths(ggml_plan *p)
{
    const size_t n = (size_t)p->B * sizeof(int64_t);
    p->q_len = malloc(n), p->kv_len = malloc(n);
    p->q_tok = malloc(n), p->kv_tok = calloc((size_t)p->B, sizeof(int64_t));
    if (!p->q_len || !p->kv_len || !p->q_tok || !p->kv_tok)
        return ggml_sut_fail(FIA_ERR_RUNTIME_ERROR, "out of memory");
    return FIA_OK;
}

/* Key and value [T_kv, KV_N, D | Dv] (or N-major), Dv <= D. */
static fia_status read_token_keys(const fia_sut_args *a, ggml_plan *p)
{
    const fia_tensor *k = p->k, *v = p->v;
    const int ti = p->q_ntd ? 1 : 0;
    if (a->key->count != 1 || a->value->count != 1 || k->ndim != 3 ||
        v->ndim != 3 || k->shape[1 - ti] != p->KV_N ||
        v->shape[1 - ti] != p->KV_N || k->shape[2] != p->D ||
        v->shape[ti] != k->shape[ti] || v->shape[2] > p->D ||
        v->shape[2] <= 0)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "token-layout key/value "
                             "not [T_kv, KV_N, D] / [.., Dv <= D]");
    p->T_kv = k->shape[ti];
    p->Dv = v->shape[2];
    return FIA_OK;
}

fia_status ggml_read_tnd(const fia_sut_args *a, ggml_plan *p)
{
    static const struct {
        const char *name;
        int q_ntd, o_ntd;
    } tab[] = {{"TND", 0, 0}, {"NTD", 1, 1}, {"TND_NTD", 0, 1},
               {"NTD_TND", 1, 0}};
    const char *lay = a->input_layout ? a->input_layout : "BSH";
    size_t i = 0;
    while (i < sizeof tab / sizeof tab[0] && strcmp(lay, tab[i].name) != 0)
        i++;
    if (i == sizeof tab / sizeof tab[0])
        return FIA_OK; /* a batched layout */
    p->tnd = 1, p->q_ntd = tab[i].q_ntd, p->o_ntd = tab[i].o_ntd;
    const fia_tensor *q = p->q;
    const fia_int_array *ql = a->actual_seq_lengths,
                        *kl = a->actual_seq_lengths_kv;
    const int ti = p->q_ntd ? 1 : 0;
    if (q->ndim != 3 || q->shape[1 - ti] != p->N || q->shape[2] <= 0)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "%s query shape", lay);
    if (ql == NULL || kl == NULL || ql->count <= 0 || kl->count != ql->count)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "%s: both length arrays of "
                             "B counts", lay);
    if (a->pse_shift != NULL || a->query_padding_size != NULL ||
        a->kv_padding_size != NULL || a->key_shared_prefix != NULL ||
        a->value_shared_prefix != NULL)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "%s with a pse, padding or "
                             "a prefix", lay);
    p->T = q->shape[ti], p->D = q->shape[2], p->Dv = p->D;
    p->B = ql->count;
    fia_status st = alloc_lengths(p);
    if (st == FIA_OK)
        st = cumulative(ql, p->B, p->T, p->q_tok, p->q_len, &p->Q_S);
    if (st != FIA_OK)
        return st;
    if (a->block_table != NULL) {
        /* each batch's own length (003), bounded by the cache's reach */
        if (a->key->count != 1 || a->value->count != 1)
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "paged list");
        st = ggml_read_paged(a, p);
        for (int64_t b = 0; st == FIA_OK && b < p->B; b++) {
            p->kv_len[b] = kl->values[b];
            if (p->kv_len[b] < 0 || p->kv_len[b] > p->own_S)
                st = ggml_sut_fail(FIA_ERR_NOT_MODELED, "a kv length out of "
                                   "the block table's reach");
        }
        return st;
    }
    st = read_token_keys(a, p);
    if (st == FIA_OK)
        st = cumulative(kl, p->B, p->T_kv, p->kv_tok, p->kv_len, &p->own_S);
    p->gather = 1;
    return st;
}
