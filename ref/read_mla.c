/* ref/ reading, feature "mla": the rope inputs of MLA (003 约束说明,
 * query_rope / key_rope; RELEASED "Numeric pipeline").
 *
 * MLA splits the query's and the key's head dim in two: query_rope and
 * key_rope carry the rope part, Dr columns per head, beside query and key
 * (D columns).  The score of key j in row i (head n, KV head kn) is
 *
 *   s_j = scale * (q . k_j + q_rope . k_rope_j) (+ pse)
 *       = scale * ([q | q_rope] . [k_j | k_rope_j]) (+ pse),
 *
 * one dot product of the concatenated vectors of Dk = D + Dr columns; the
 * mask, the softmax and P . V follow as without rope.  value has no rope
 * part, so attention_out has value's D (here the query's: the D = 512 and
 * D = 128 scenes of 003 have equal query / key / value D; a narrower value
 * with rope is refused).  So the reading
 * hands the math core query rows of Dk columns (query's then query_rope's,
 * ref_load_q_row) and key rows of Dk columns (key's then key_rope's,
 * ref_load_kv_rows), value rows of D, and the core's score is its one dot
 * product over Dk columns, exact as ever (ref_score_precision over Dk
 * products of the query / key / rope values' range, ref.c), its error
 * bound over Dk products (ref_double.c: any order in which a kernel sums
 * q k and q_rope k_rope, separately then added or in one loop, is a
 * summation of the same Dk products and errs by at most g_{Dk-1} times
 * the sum of their magnitudes).
 *
 * Shapes.  query_rope is the query's shape with the head dim D replaced by
 * Dr; key_rope the key's shape with D replaced by Dr, in every form the
 * key takes (003: "其余维度与query / key一致"):
 *
 *   BSH                 [B, Q_S, N*Dr]          key_rope [B, KV_S, KV_N*Dr]
 *   BSND                [B, Q_S, N, Dr]         [B, KV_S, KV_N, Dr]
 *   BNSD (BNSD_BSND)    [B, N, Q_S, Dr]         [B, KV_N, KV_S, Dr]
 *   TND, TND_NTD        [T, N, Dr]              [T_kv, KV_N, Dr]
 *   NTD, NTD_TND        [N, T, Dr]              [KV_N, T_kv, Dr]
 *   paged (block_table) key_rope (blocknum, block_size, KV_N*Dr) or
 *                       (blocknum, KV_N, block_size, Dr), as the key cache,
 *                       or NZ (blocknum, KV_N, Dr/16, block_size, 16)
 *                       beside an NZ key (003: "key_rope shape中D为64，其余
 *                       维度与key一致" read in the tiles of the NZ format)
 *
 * Dr is read from query_rope (its last dim; BSH: H_r / N), any Dr >= 1 (003
 * documents 64; the oracle judges the values, the reading only needs a
 * consistent call).  Since the head dim is the innermost axis of every
 * layout, element (b, n, s, d) of a rope input lives where the query's /
 * key's layout puts element (b, n, s, d) of a tensor of head dim Dr: the
 * index maps of read_layout.c (left padding's rows included), read_tnd.c
 * (tokens) and read_paged.c (the same block table, block ids and block
 * size as the key: a paged key_rope is a cache beside the key's) with
 * width Dr (ref_q_index_w, ref_kv_index_w).  A rope whose other dims differ
 * from the query's / key's, or of another dtype than the query / key (003:
 * "数据类型、数据格式与query / key一致"), or only one of the two (003: "同时配置或同时
 * 不配置"), is refused (FIA_ERR_PARAM_INVALID, nothing computed): so every
 * index read stays within the tensor (the shape equals what the index map
 * assumes, and every (b, n, s) read is one the query's / key's map reads).
 *
 * Q_S = 1.  The decode path's normalizations (sparse_mode and the tokens
 * ignored, actual_seq_lengths ignored) hold "without rope" only (003
 * sparse_mode: "Q_S为1且不带rope输入时该参数无效"; RELEASED "Silent
 * normalisations": "Q_S = 1 with BSH/BSND/BNSD and no rope"): a rope call
 * is read as a call of Q_S rows (p->decode 0), as the token layouts are.
 *
 * Full quantization (an int8 query with rope, p->query_quant:
 * read_query_quant.c): the ropes are bf16 beside the int8 query and key; the
 * query and key rows are their dequantized values (read_layout.c), so the score
 * is the same dot of Dk columns.
 *
 * Not modeled (FIA_ERR_NOT_MODELED): rope with int8 / int4 key and value
 * and a float query (antiquant; 003 excludes it), with key/value lists (003
 * excludes tensorlist) and with a shared prefix (a prefix key has no rope
 * row).  The *_NBSD outputs (003, MLA's) are the layout's
 * (read_layout.c: attention_out [N, B, Q_S, D]). */
#include <stdio.h>
#include "ref_internal.h"

/* Compares t's shape with like's, whose last dim is replaced by last. */
static int shape_like(const fia_tensor *t, const fia_tensor *like,
                      int64_t last)
{
    if (t->ndim != like->ndim || t->ndim < 1)
        return 0;
    for (int i = 0; i + 1 < t->ndim; i++)
        if (t->shape[i] != like->shape[i])
            return 0;
    return t->shape[t->ndim - 1] == last;
}

static void shape_text(const fia_tensor *t, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < t->ndim && k + 1 < n; i++)
        k += (size_t)snprintf(buf + k, n - k, i ? ",%lld" : "[%lld",
                              (long long)t->shape[i]);
    if (k + 1 < n)
        snprintf(buf + k, n - k, t->ndim ? "]" : "[]");
}

static fia_status wrong_shape(const char *what, const fia_tensor *t,
                              const char *like, const fia_tensor *lt,
                              int64_t last, fia_error *err)
{
    char a[160], b[160];
    shape_text(t, a, sizeof a);
    shape_text(lt, b, sizeof b);
    return fia_fail(err, FIA_ERR_PARAM_INVALID,
                    "%s shape %s is not %s's %s with its head dim replaced "
                    "by %lld (MLA: only the head dim differs)", what, a,
                    like, b, (long long)last);
}

fia_status ref_read_mla(ref_problem *p, const fia_case *c,
                        const fia_case_data *d, fia_error *err)
{
    (void)c;
    const int gq = ref_slot_given(d, FIA_SLOT_QUERY_ROPE),
              gk = ref_slot_given(d, FIA_SLOT_KEY_ROPE);
    if (!gq && !gk)
        return FIA_OK;
    if (gq != gk)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "%s given without %s (MLA: both or neither)",
                        gq ? "query_rope" : "key_rope",
                        gq ? "key_rope" : "query_rope");
    if (p->Dv != p->D) /* a token layout's narrower value (read_tnd.c) */
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "value head dim %lld unlike the query's %lld with "
                        "query_rope / key_rope (MLA: Q_D = K_D = V_D)",
                        (long long)p->Dv, (long long)p->D);
    if (p->aq || p->int8_quant)
        return fia_fail(err, FIA_ERR_NOT_MODELED,
                        "not modeled yet: query_rope / key_rope with %s "
                        "(MLA)", p->int8_quant ? "an int8 query (full int8)"
                                       : "int key/value (antiquant)");
    if (p->kv_list || d->n[FIA_SLOT_QUERY_ROPE] > 1 ||
        d->n[FIA_SLOT_KEY_ROPE] > 1)
        return fia_fail(err, FIA_ERR_NOT_MODELED,
                        "not modeled yet: query_rope / key_rope with tensor "
                        "lists (MLA)");
    if (ref_slot_given(d, FIA_SLOT_KEY_SHARED_PREFIX) ||
        ref_slot_given(d, FIA_SLOT_VALUE_SHARED_PREFIX))
        return fia_fail(err, FIA_ERR_NOT_MODELED,
                        "not modeled yet: query_rope / key_rope with a "
                        "shared prefix (MLA)");
    const fia_tensor *qr = fia_case_data_tensor(d, FIA_SLOT_QUERY_ROPE),
                     *kr = fia_case_data_tensor(d, FIA_SLOT_KEY_ROPE);
    /* full quantization (p->query_quant): bf16 ropes beside int8 query and key
     * (003 D = 512 "支持全量化场景") */
    if (p->query_quant &&
        (qr->dtype != FIA_DT_BF16 || kr->dtype != FIA_DT_BF16))
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "query_rope %s / key_rope %s: MLA full quantization "
                        "takes bf16 ropes", fia_dtype_name(qr->dtype),
                        fia_dtype_name(kr->dtype));
    if (!p->query_quant &&
        (qr->dtype != p->q->dtype || kr->dtype != p->k->dtype))
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "query_rope %s / key_rope %s unlike query %s / key "
                        "%s (MLA: the same dtypes)", fia_dtype_name(qr->dtype),
                        fia_dtype_name(kr->dtype),
                        fia_dtype_name(p->q->dtype),
                        fia_dtype_name(p->k->dtype));
    if (qr->ndim < 1 || fia_tensor_numel(qr) < 0 || fia_tensor_numel(kr) < 0)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "query_rope / key_rope: no dims, a negative dim or "
                        "an element count overflow");
    /* Dr from query_rope's last dim: the heads' columns H_r = N Dr in BSH
     * (not a token layout), the head dim itself otherwise */
    const int q_h = !p->tnd && p->layout == REF_LAYOUT_BSH;
    const int64_t qlast = qr->shape[qr->ndim - 1];
    if (q_h && qlast % p->N != 0)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "BSH: query_rope's H %lld not divisible by N %lld",
                        (long long)qlast, (long long)p->N);
    const int64_t Dr = q_h ? qlast / p->N : qlast;
    if (Dr < 1 || Dr >= REF_DIM_LIMIT)
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "query_rope's head dim %lld outside [1, 2^40) (MLA)",
                        (long long)Dr);
    if (!shape_like(qr, p->q, q_h ? p->N * Dr : Dr))
        return wrong_shape("query_rope", qr, "the query", p->q,
                           q_h ? p->N * Dr : Dr, err);
    /* NZ: the key's dims but its tiles, Dr/16 of them */
    if (p->cachenz) {
        const int64_t *ks = p->k->shape;
        const int64_t want[5] = {ks[0], ks[1], Dr / 16, ks[3], 16};
        if (Dr % 16 != 0 || !ref_shape_is(kr, 5, want))
            return fia_fail(err, FIA_ERR_PARAM_INVALID,
                            "key_rope is not the NZ key's (blocknum, KV_N, "
                            "Dr/16 = %lld, block_size, 16) for query_rope's "
                            "Dr %lld (MLA)", (long long)(Dr / 16),
                            (long long)Dr);
    }
    /* the key's last dim holds KV_N D in BSH and a rank-3 cache, else D */
    const int k_h = !p->tnd && p->k->ndim == 3;
    if (!p->cachenz && !shape_like(kr, p->k, k_h ? p->KV_N * Dr : Dr))
        return wrong_shape("key_rope", kr, "the key", p->k,
                           k_h ? p->KV_N * Dr : Dr, err);
    if (!qr->data || (fia_tensor_numel(kr) > 0 && !kr->data))
        return fia_fail(err, FIA_ERR_PARAM_INVALID,
                        "query_rope / key_rope have no data (status-only "
                        "materialization)");
    p->qr = qr;
    p->kr = kr;
    p->Dr = Dr;
    p->decode = 0; /* the Q_S = 1 normalizations are without rope only */
    return FIA_OK;
}
