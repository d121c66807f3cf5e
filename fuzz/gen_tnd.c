/* The 003 token layouts (TND, NTD_TND, TND_NTD, NTD) in generated cases.
 *
 * fuzz_params: at the end of the list, now and then the call becomes a
 * token-layout call: B batches of random query and key/value lengths,
 * their cumulative counts, query [T, N, D] or [N, T, D], key/value alike,
 * with each of the layout's rules broken now and then (a count that goes
 * back, one that ends off T, the counts of another B, an array missing,
 * fp16, head dims 003 or the released code does not take (a value wider
 * than the query, NTD_TND's 192/192; value narrower, 192/128, is valid),
 * sparse modes and masks they refuse, a square causal
 * batch, a tensor of rank 4 or of other heads, T past 2^20, B past 4096,
 * the exclusions the fragments before may have set).
 *
 * fuzz_numeric: a valid case packed as TND or NTD_TND (meta_tnd.c), now
 * and then: its sparse band kept where the layout can say it, else its
 * mask dropped; fp16 data rounded to bf16; query and key of 192 over a
 * value of 128 now and then.
 * Fragment contract: fuzz/gen.h. */
#include "fuzz/gen.h"

/* The query lengths and the key/value lengths of B batches into q, kv
 * (cumulative), some zero; the totals into *T, *T_kv. */
static void lengths(fz_gen *g, int64_t B, int64_t *q, int64_t *kv,
                    int64_t *T, int64_t *T_kv)
{
    fz_bytes *f = g->f;
    int64_t tq = 0, tk = 0;
    for (int64_t b = 0; b < B; b++) {
        int64_t ql = fz_bytes_rare(f, 10) ? 0 : fz_bytes_range(f, 1, 24);
        int64_t kl = ql + (fz_bytes_rare(f, 10) ? 0 : fz_bytes_range(f, 1, 40));
        q[b] = tq += ql;
        kv[b] = tk += kl;
    }
    *T = tq, *T_kv = tk;
}

/* Head dims: mostly ones a profile takes (128/128, 192/192, 192/128,
 * 64/64; the layout decides which: NTD_TND's V_D is 128), now and then
 * neither (a value wider than the query among them). */
static void head_dims(fz_gen *g, int64_t *D, int64_t *Dv)
{
    static const int64_t pairs[][2] = {{128, 128}, {192, 192}, {192, 128},
                                       {64, 64},   {96, 96},   {128, 64},
                                       {512, 512}, {128, 192}};
    static const int w[] = {40, 10, 14, 10, 2, 2, 2, 3};
    int k = fz_wpick(g, w, FZ_ARRLEN(w), 4);
    *D = pairs[k][0], *Dv = pairs[k][1];
}

void fz_params_tnd(fz_gen *g)
{
    fz_bytes *f = g->f;
    fia_case *c = g->c;
    if (!fz_bytes_rare(f, 12))
        return;
    static const char *const names[] = {"TND", "NTD_TND", "NTD", "TND_NTD"};
    static const int lw[] = {60, 30, 6, 4};
    const int li = fz_wpick(g, lw, FZ_ARRLEN(lw), 2);
    const int ntd = li == 1 || li == 2;
    fz_case_layout(c, names[li]);
    enum { MAXB = 4097 }; /* one past 003's 4096 */
    int64_t B = fz_odd(g, 2) ? MAXB : fz_bytes_range(f, 1, 5);
    int64_t q[MAXB + 1], kv[MAXB + 1];
    int64_t T, T_kv, D, Dv;
    lengths(g, B, q, kv, &T, &T_kv);
    head_dims(g, &D, &Dv);
    if (fz_odd(g, 2) && B > 1) /* a count goes back */
        q[B - 2] = q[B - 1] + 1;
    if (fz_odd(g, 2)) /* ends off T */
        T += fz_bytes_bool(f) ? 1 : -1;
    if (fz_odd(g, 2)) /* a negative count */
        kv[0] = -1;
    if (fz_odd(g, 1)) /* T past 2^20 */
        T = ((int64_t)1 << 20) + 1, q[B - 1] = T;
    int64_t nq = B, nkv = B + (fz_odd(g, 3) ? (fz_bytes_bool(f) ? 1 : -1) : 0);
    if (nkv < 1)
        nkv = 1;
    if (nkv > B)
        kv[B] = kv[B - 1];
    if (!fz_odd(g, 3))
        fz_note(g, fz_case_array(c, FIA_ARR_ACTUAL_SEQ_LENGTHS, nq, q));
    else
        fz_case_array_absent(c, FIA_ARR_ACTUAL_SEQ_LENGTHS);
    if (!fz_odd(g, 3))
        fz_note(g, fz_case_array(c, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, nkv, kv));
    else
        fz_case_array_absent(c, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV);
    /* tensors: rank 3 (4 now and then), heads off by one now and then */
    const int64_t N = g->N > 0 && g->N <= 256 ? g->N : 1;
    const int64_t KV_N = g->KV_N > 0 && g->KV_N <= N ? g->KV_N : N;
    fz_case_attr(c, FIA_ATTR_NUM_HEADS, N);
    fz_case_attr(c, FIA_ATTR_NUM_KEY_VALUE_HEADS, KV_N == N ? 0 : KV_N);
    const fia_dtype dt = fz_odd(g, 5) ? FIA_DT_FP16 : FIA_DT_BF16;
    const int rank = fz_odd(g, 2) ? 4 : 3;
    const int64_t hq = N + (fz_odd(g, 2) ? 1 : 0);
    const int64_t hk = KV_N + (fz_odd(g, 2) ? 1 : 0);
    const int64_t tv = T_kv + (fz_odd(g, 2) ? 1 : 0);
    int64_t qs[4] = {ntd ? hq : T, ntd ? T : hq, D, 0};
    int64_t ks[4] = {ntd ? hk : T_kv, ntd ? T_kv : hk, D, 0};
    int64_t vs[4] = {ntd ? hk : tv, ntd ? tv : hk, Dv, 0};
    if (rank == 4) {
        qs[3] = qs[2], qs[2] = qs[1], qs[1] = qs[0], qs[0] = 1;
        ks[3] = ks[2], ks[2] = ks[1], ks[1] = ks[0], ks[0] = 1;
        vs[3] = vs[2], vs[2] = vs[1], vs[1] = vs[0], vs[0] = 1;
    }
    int count = g->kv_count > 1 ? g->kv_count : 1;
    fz_note(g, fz_case_tensor(c, FIA_SLOT_QUERY, dt, rank, qs));
    fz_note(g, fz_case_tensor_list(c, FIA_SLOT_KEY, count, dt, rank, ks));
    fz_note(g, fz_case_tensor_list(c, FIA_SLOT_VALUE, count, dt, rank, vs));
    /* sparse 0 without a mask or 3 with the optimized one, or not */
    static const int sw[] = {50, 40, 4, 3, 3};
    static const int64_t modes[] = {0, 3, 0, 3, 2};
    const int sk = fz_wpick(g, sw, FZ_ARRLEN(sw), 2);
    fz_case_attr(c, FIA_ATTR_SPARSE_MODE, modes[sk]);
    if (modes[sk] == 3 && sk == 1 && fz_odd(g, 3)) /* a square batch */
        kv[0] = q[0];
    int64_t msh[2] = {2048, 2048};
    if (sk == 2) /* mode 0 with a mask */
        msh[0] = T, msh[1] = T_kv;
    if (sk == 1 || sk == 2 || sk == 4)
        fz_note(g, fz_case_tensor(c, FIA_SLOT_ATTEN_MASK, FIA_DT_BOOL, 2, msh));
    else
        fz_case_absent(c, FIA_SLOT_ATTEN_MASK);
    /* the outputs follow the layout, or are off now and then */
    fz_case_absent(c, FIA_SLOT_ATTENTION_OUT);
    if (fz_odd(g, 3)) {
        int64_t os[3] = {T, N, Dv + 1};
        fz_note(g, fz_case_tensor(c, FIA_SLOT_ATTENTION_OUT, dt, 3, os));
    }
    fz_case_absent(c, FIA_SLOT_SOFTMAX_LSE);
    if (c->attrs.softmax_lse_flag && fz_odd(g, 3)) {
        int64_t ls[4] = {B, N, T, 1};
        fz_note(g, fz_case_tensor(c, FIA_SLOT_SOFTMAX_LSE, FIA_DT_FP32, 4, ls));
    }
}

void fz_numeric_tnd(fz_gen *g)
{
    fz_bytes *f = g->f;
    if (!fz_bytes_rare(f, 10) || g->c->live_rows || g->meta)
        return;
    uint64_t seed = fz_bytes_u8(f);
    fz_geom geom;
    fia_case plain;
    /* a paged cache whose blocknum is B reads as a batched key to
     * fz_geom_of: a token layout takes no page attention (TND-X03) */
    if (g->c->tensors[FIA_SLOT_BLOCK_TABLE].presence == FIA_PRESENT ||
        fz_geom_of(g->c, &geom) != 0 ||
        fz_tnd_work(g->c, &geom) > FZ_NUM_MAX_WORK)
        return; /* paged or a list, or too much for the reference */
    fia_case_init(&plain);
    if (fia_case_copy(&plain, g->c) != FIA_OK) {
        fz_note(g, FIA_ERR_NOMEM);
        return;
    }
    fia_error err;
    fia_status st = fz_tnd_case(&plain, &geom, seed, 0, g->c, &err);
    if (st == FIA_ERR_NOMEM)
        fz_note(g, st);
    fia_case_free(&plain);
}
