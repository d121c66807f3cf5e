/* The gather step: key and value copied, exactly and in their own dtype,
 * into contiguous [B][KV_N][KV_S][W] buffers when the call's keys are not
 * one strided tensor, so that ggml sees plain views of them.  The scenes
 * (docs/features/<feature>.md, a page each):
 *
 *   paged   a cache of blocks of block_size rows (block_table, block_size):
 *           rank 3 (blocknum, block_size, KV_N*W): key (b, kn, j) at row
 *           ((id*block_size + o)*KV_N + kn)*W, rank 4 (blocknum, KV_N,
 *           block_size, W) at ((id*KV_N + kn)*block_size + o)*W, with id =
 *           block_table[b][j / block_size], o = j % block_size; batch b
 *           reads its first ceil(kv_len / block_size) entries; KV_S =
 *           max_b nb_b * block_size (what masks cover).  The NZ cache
 *           (rank 5) is not mapped.
 *   list    B tensors of batch 1 (tensor_list), each of its own S_b, read
 *           through the query's layout; kv_len defaults to S_b; KV_S =
 *           max S_b.
 *   prefix  key/value_shared_prefix (batch 1, the layout's rank), P =
 *           actual_shared_prefix_len or S_p rows in front of every batch's
 *           own keys: logical key j' < P is prefix row j', key P + j the
 *           batch's own key j.  KV_S and kv_len count the prefix, so the
 *           mask and the pse are read at the logical column j' (002 asks
 *           P + KV_S columns of them) and the sparse offsets use kv_len'
 *           = P + kv_len, as FIA's (prefix.md).
 *   MLA     key_rope's Dr columns written after the key's D (mla.md: the
 *           score is (q.k + q_rope.k_rope)*scale, ggml's scale*(q'.k')),
 *           read through the key's own map (cache, block table) at width
 *           Dr.
 *
 * Keys past a batch's length are zeros (the mask drops them; ggml never
 * reads garbage).  The head dim is innermost in every mapped layout and
 * cache, so each key row is one memcpy. */
#include <string.h>
#include "ggml_plan.h"

enum { KEY, VALUE, KEY_ROPE };

static int64_t numel(const fia_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= t->shape[i];
    return n;
}

static int same_shape(const fia_tensor *a, const fia_tensor *b)
{
    if (a->ndim != b->ndim)
        return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i])
            return 0;
    return 1;
}

/* S of a batch-1 (or batched) tensor in the query's layout whose heads
 * and head dim are KV_N and W, or -1. */
static int64_t layout_s(const ggml_plan *p, const fia_tensor *t, int64_t W)
{
    const int bsh = t->ndim == 3;
    if (bsh)
        return t->shape[2] == p->KV_N * W ? t->shape[1] : -1;
    if (t->ndim != 4 || t->shape[3] != W)
        return -1;
    if (p->bnsd_in)
        return t->shape[1] == p->KV_N ? t->shape[2] : -1;
    return t->shape[2] == p->KV_N ? t->shape[1] : -1;
}

/* Element offset of row (kn, j) of one batch of S rows, W wide. */
static int64_t layout_row(const ggml_plan *p, int64_t kn, int64_t j,
                          int64_t S, int64_t W)
{
    return p->bnsd_in ? (kn * S + j) * W : (j * p->KV_N + kn) * W;
}

fia_status ggml_read_paged(const fia_sut_args *a, ggml_plan *p)
{
    const fia_tensor *bt = a->block_table, *k = p->k, *v = p->v;
    const int64_t bs = a->block_size;
    if (bt->dtype != FIA_DT_INT32 || bt->ndim != 2 || bt->shape[0] != p->B)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "block_table: int32 "
                             "[B, cols]");
    if (bs <= 0 || bs > 512)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "block_size %lld",
                             (long long)bs);
    if (k->ndim == 5)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "the NZ cache (rank 5) is "
                             "not mapped to ggml");
    p->cache4d = k->ndim == 4;
    const int dims_ok =
        k->ndim == 3 ? k->shape[1] == bs && k->shape[2] == p->KV_N * p->D
        : k->ndim == 4 ? (p->bnsd_in || p->tnd) && k->shape[1] == p->KV_N &&
                             k->shape[2] == bs && k->shape[3] == p->D
                       : 0;
    if (!dims_ok || !same_shape(k, v))
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "a paged cache that is not "
                             "(blocknum, block_size, KV_N*D) or, with a BNSD "
                             "query, (blocknum, KV_N, block_size, D)");
    if (a->actual_seq_lengths_kv == NULL)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "page attention without "
                             "actual_seq_lengths_kv");
    p->block_size = bs;
    p->blocknum = k->shape[0];
    p->bt_cols = bt->shape[1];
    p->bt = bt->data;
    p->own_S = p->bt_cols * bs; /* the reach: the lengths' bound */
    p->paged = p->gather = 1;
    return FIA_OK;
}

/* After the lengths: every id a batch reads within the cache (an id
 * outside leaves FIA's result unspecified), and KV_S. */
fia_status ggml_read_paged_lengths(const fia_sut_args *a, ggml_plan *p)
{
    (void)a;
    int64_t most = 0;
    for (int64_t b = 0; b < p->B; b++) {
        const int64_t nb = (p->kv_len[b] + p->block_size - 1) / p->block_size;
        if (nb > 0 && p->bt == NULL)
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "no block_table data");
        for (int64_t m = 0; m < nb; m++) {
            const int32_t id = p->bt[b * p->bt_cols + m];
            if (id < 0 || id >= p->blocknum)
                return ggml_sut_fail(FIA_ERR_NOT_MODELED, "block id %d "
                                     "outside the cache (unspecified)",
                                     (int)id);
        }
        most = nb > most ? nb : most;
    }
    p->own_S = most * p->block_size;
    return FIA_OK;
}

static int64_t list_s(const ggml_plan *p, const fia_tensor *t)
{
    return t->ndim == 3 || !p->bnsd_in ? t->shape[1] : t->shape[2];
}

fia_status ggml_read_list(const fia_sut_args *a, ggml_plan *p)
{
    if (a->key->count != p->B || a->value->count != p->B)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "a key/value list of other "
                             "than B tensors");
    const int rank = p->q->ndim;
    int64_t most = 0;
    for (int64_t b = 0; b < p->B; b++) {
        const fia_tensor *k = a->key->tensors[b], *v = a->value->tensors[b];
        if (k == NULL || v == NULL || k->ndim != rank || !same_shape(k, v) ||
            k->shape[0] != 1 || layout_s(p, k, p->D) < 0 ||
            k->dtype != p->dt || v->dtype != p->dt ||
            (numel(k) > 0 && (k->data == NULL || v->data == NULL)))
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "list tensor %lld: not "
                                 "batch 1 with the call's heads, D and dtype",
                                 (long long)b);
        const int64_t s = list_s(p, k);
        most = s > most ? s : most;
    }
    p->klist = a->key, p->vlist = a->value;
    p->own_S = most;
    p->gather = 1;
    return FIA_OK;
}

/* Lengths default to each tensor's own S and may not pass it. */
fia_status ggml_read_list_lengths(const fia_sut_args *a, ggml_plan *p)
{
    const fia_int_array *l = a->actual_seq_lengths_kv;
    for (int64_t b = 0; b < p->B; b++) {
        const int64_t s = list_s(p, p->klist->tensors[b]);
        if (l == NULL || l->count == 0)
            p->kv_len[b] = s;
        else if (p->kv_len[b] > s)
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "a kv length beyond "
                                 "its list tensor");
    }
    return FIA_OK;
}

fia_status ggml_read_prefix(const fia_sut_args *a, ggml_plan *p)
{
    const fia_tensor *kp = a->key_shared_prefix, *vp = a->value_shared_prefix;
    if (kp == NULL && vp == NULL) {
        if (a->actual_shared_prefix_len != NULL)
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "actual_shared_prefix_"
                                 "len without the prefix tensors");
        return FIA_OK;
    }
    if (kp == NULL || vp == NULL || p->paged || p->klist != NULL ||
        p->Dr > 0)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "a shared prefix: both "
                             "tensors, no page attention, list or MLA");
    const int64_t s = layout_s(p, kp, p->D);
    if (kp->dtype != p->dt || vp->dtype != p->dt ||
        kp->ndim != p->q->ndim || kp->shape[0] != 1 || s < 0 ||
        !same_shape(kp, vp) ||
        (numel(kp) > 0 && (kp->data == NULL || vp->data == NULL)))
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "prefix tensors not "
                             "[1, S_p, ...] with the key's heads, D, dtype");
    int64_t P = s;
    const fia_int_array *l = a->actual_shared_prefix_len;
    if (l != NULL) {
        if (l->count != 1 || l->values == NULL || l->values[0] < 0 ||
            l->values[0] > s)
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "actual_shared_prefix_"
                                 "len: one value in [0, S_p]");
        P = l->values[0];
    }
    /* no document says which mask columns the prefix keys read there */
    if (p->Q_S == 1 && a->atten_mask != NULL)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "a shared prefix with a "
                             "mask at Q_S = 1");
    p->kp = kp, p->vp = vp, p->S_p = s, p->P = P;
    p->gather = 1;
    return FIA_OK;
}

fia_status ggml_read_rope(const fia_sut_args *a, ggml_plan *p)
{
    const fia_tensor *qr = a->query_rope, *kr = a->key_rope, *q = p->q;
    if (qr == NULL && kr == NULL)
        return FIA_OK;
    if (qr == NULL || kr == NULL || qr->dtype != p->dt ||
        kr->dtype != p->dt || qr->ndim != q->ndim || qr->data == NULL ||
        kr->data == NULL || p->klist != NULL)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "MLA: query_rope and "
                             "key_rope of the query's dtype, no list");
    for (int i = 0; i + 1 < q->ndim; i++)
        if (qr->shape[i] != q->shape[i])
            return ggml_sut_fail(FIA_ERR_NOT_MODELED, "query_rope's shape");
    const int64_t last = qr->shape[q->ndim - 1];
    const int bsh = q->ndim == 3 && !p->tnd; /* H = N * Dr */
    const int64_t Dr = bsh ? last / p->N : last;
    if (Dr <= 0 || (bsh && last % p->N != 0))
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "query_rope's head dim");
    const fia_tensor *k = p->k;
    int ok = kr->ndim == k->ndim;
    for (int i = 0; ok && i + 1 < k->ndim; i++)
        ok = kr->shape[i] == k->shape[i];
    const int64_t kl =
        k->ndim == 4 || (p->tnd && !p->paged) ? Dr : p->KV_N * Dr;
    if (!ok || kr->shape[kr->ndim - 1] != kl)
        return ggml_sut_fail(FIA_ERR_NOT_MODELED, "key_rope's shape is not "
                             "the key's with Dr");
    p->q_rope = qr, p->k_rope = kr, p->Dr = Dr;
    p->gather = 1;
    return FIA_OK;
}

const uint16_t *ggml_query_rope_row(const ggml_plan *p, int64_t b, int64_t n,
                                    int64_t s)
{
    if (p->q_rope == NULL)
        return NULL;
    return (const uint16_t *)p->q_rope->data +
           ggml_row_at(p, b, n, s, p->Dr, 0);
}

/* Batch b's own key j (after the prefix) of key, value or key_rope. */
static const uint16_t *own_row(const ggml_plan *p, int which, int64_t b,
                               int64_t kn, int64_t j)
{
    const int64_t W = which == KEY_ROPE ? p->Dr : which == VALUE ? p->Dv : p->D;
    if (p->paged) {
        const fia_tensor *t = which == KEY ? p->k : which == VALUE ? p->v
                                                                   : p->k_rope;
        const int64_t id = p->bt[b * p->bt_cols + j / p->block_size];
        const int64_t o = j % p->block_size;
        const int64_t at =
            p->cache4d ? ((id * p->KV_N + kn) * p->block_size + o) * W
                       : ((id * p->block_size + o) * p->KV_N + kn) * W;
        return (const uint16_t *)t->data + at;
    }
    if (p->klist != NULL) {
        const fia_tensor *t = (which == KEY ? p->klist : p->vlist)->tensors[b];
        return (const uint16_t *)t->data +
               layout_row(p, kn, j, list_s(p, t), W);
    }
    const fia_tensor *t = which == KEY ? p->k : which == VALUE ? p->v
                                                               : p->k_rope;
    if (p->tnd) {
        const int64_t tok = p->kv_tok[b] + j;
        return (const uint16_t *)t->data +
               (p->q_ntd ? (kn * p->T_kv + tok) * W : (tok * p->KV_N + kn) * W);
    }
    return (const uint16_t *)t->data + b * p->KV_N * p->own_S * W +
           layout_row(p, kn, j, p->own_S, W);
}

void ggml_gather(const ggml_plan *p, uint16_t *kbuf, uint16_t *vbuf)
{
    const int64_t Dk = p->D + p->Dr, Dv = p->Dv;
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t kn = 0; kn < p->KV_N; kn++)
            for (int64_t j = 0; j < p->KV_S; j++) {
                const int64_t row = (b * p->KV_N + kn) * p->KV_S + j;
                uint16_t *kd = kbuf + row * Dk, *vd = vbuf + row * Dv;
                if (j >= p->kv_len[b]) {
                    memset(kd, 0, (size_t)Dk * 2);
                    memset(vd, 0, (size_t)Dv * 2);
                } else if (j < p->P) {
                    const int64_t at = layout_row(p, kn, j, p->S_p, p->D);
                    memcpy(kd, (const uint16_t *)p->kp->data + at,
                           (size_t)p->D * 2);
                    memcpy(vd, (const uint16_t *)p->vp->data + at,
                           (size_t)Dv * 2);
                } else {
                    memcpy(kd, own_row(p, KEY, b, kn, j - p->P),
                           (size_t)p->D * 2);
                    memcpy(vd, own_row(p, VALUE, b, kn, j - p->P),
                           (size_t)Dv * 2);
                    if (p->Dr > 0)
                        memcpy(kd + p->D,
                               own_row(p, KEY_ROPE, b, kn, j - p->P),
                               (size_t)p->Dr * 2);
                }
            }
}
