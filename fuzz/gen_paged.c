/* Page attention in generated cases.
 *
 * fuzz_params: a block_size now and then (ignored without a block_table,
 * PAGED-N01), and, at the end of the list, calls turned into paged ones:
 * key and value become a cache (blocknum, block_size, KV_N*D) or (blocknum,
 * KV_N, block_size, D) behind a block_table, block_size valid for the path
 * or at its edges, the table's columns and the cache's blocks around what
 * the lengths need, each rule of the feature broken now and then.
 *
 * fuzz_numeric: a valid case turned paged, the same keys in a shuffled
 * cache (meta_paged.c), block sizes around fast/'s key block, blocks shared
 * between batches now and then.
 * Fragment contract: fuzz/gen.h. */
#include "fuzz/gen.h"

void fz_params_paged(fz_gen *g)
{
    if (fz_odd(g, 2))
        fz_case_attr(g->c, FIA_ATTR_BLOCK_SIZE,
                (int64_t[]){0, 16, 128, -1, 512}[fz_bytes_pick(g->f, 5)]);
}

/* block_size for the path: the first n_valid of each list are valid (fp16 /
 * bf16 key and value; int8 takes multiples of 32 at Q_S = 1). */
static int64_t pick_block_size(fz_gen *g)
{
    static const int wdec[] = {6, 3, 2, 4, 2, 2, 1, 1, 1, 1, 1};
    static const int64_t dec[] = {16, 32, 48, 128, 256, 512, 0, 8, 24, 528, -16};
    static const int wpre[] = {6, 2, 2, 2, 1, 1, 1, 1};
    static const int64_t pre[] = {128, 256, 384, 512, 64, 192, 640, 0};
    if (g->qs1)
        return dec[fz_wpick(g, wdec, FZ_ARRLEN(wdec), 6)];
    return pre[fz_wpick(g, wpre, FZ_ARRLEN(wpre), 4)];
}

/* The blocks batch b needs: ceil(kv_len / bs) of its effective length (the
 * length array's, or KV_S when it has none usable). */
static int64_t blocks_of(const fia_case *c, int64_t b, int64_t S, int64_t bs)
{
    const fia_int_array_spec *a = &c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    int64_t len = S;
    if (a->presence == FIA_PRESENT && a->count >= 1)
        len = a->values[a->count == 1 ? 0 : (b < a->count ? b : 0)];
    if (len <= 0 || bs <= 0)
        return 0;
    return len / bs + (len % bs != 0);
}

void fz_params_paged_cache(fz_gen *g)
{
    fz_bytes *f = g->f;
    fia_case *c = g->c;
    if (!fz_bytes_rare(f, 15))
        return;
    int64_t bs = pick_block_size(g);
    fz_case_attr(c, FIA_ATTR_BLOCK_SIZE, bs);
    /* the lengths are required: given unless a break leaves them out */
    if (c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV].presence != FIA_PRESENT &&
        !fz_odd(g, 5)) {
        int64_t len = g->KV_S;
        fz_note(g, fz_case_array(c, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, 1, &len));
    }
    const int64_t B = g->B > 0 && g->B <= 65536 ? g->B : 1;
    int64_t most = 0, sum = 0;
    for (int64_t b = 0; b < B; b++) {
        int64_t nb = blocks_of(c, b, g->KV_S, bs);
        most = nb > most ? nb : most;
        sum += nb;
    }
    int64_t cols = most + fz_bytes_range(f, 0, 1) - (fz_odd(g, 4) && most > 0);
    int64_t blocknum = sum + fz_bytes_range(f, 0, 2) - (fz_odd(g, 4) && sum > 0);
    int bnsd = g->L == FZ_BNSD || g->L == FZ_BNSD_BSND;
    int rank = (bnsd && fz_bytes_bool(f)) || fz_odd(g, 2) ? 4 : 3;
    int64_t H = g->KV_N, D = g->D, hd = fz_odd(g, 2) ? 1 : 0;
    int64_t sh[5] = {0};
    if (rank == 4) {
        sh[0] = blocknum, sh[1] = H + hd, sh[2] = bs, sh[3] = D;
    } else {
        sh[0] = blocknum, sh[1] = bs, sh[2] = H * D + hd, sh[3] = 0;
    }
    if (fz_odd(g, 2)) /* a cache of neither rank: 2 or 5 */
        rank = fz_bytes_bool(f) ? 2 : 5, sh[4] = 1;
    if (fz_odd(g, 2))
        sh[1] += 16; /* the cache's block dim against block_size */
    int count = g->kv_count > 1 ? g->kv_count : 1;
    fz_note(g, fz_case_tensor_list(c, FIA_SLOT_KEY, count, g->kvdt, rank, sh));
    fz_note(g, fz_case_tensor_list(c, FIA_SLOT_VALUE, count, g->kvdt, rank, sh));
    int64_t tsh[2] = {B + (fz_odd(g, 2) ? 1 : 0), cols};
    fia_dtype tdt = fz_odd(g, 2) ? FIA_DT_INT64 : FIA_DT_INT32;
    fz_note(g, fz_case_tensor(c, FIA_SLOT_BLOCK_TABLE, tdt, fz_odd(g, 2) ? 1 : 2,
                         tsh));
}

/* One entry batch 0 reads gets an id outside the cache (blocknum + v, or
 * -1 - v): the result is unspecified (the harness compares nothing), but
 * an implementation must not read outside the cache for it, which the
 * sanitizers of the fuzz build see. */
static void spoil_block_id(fia_case *c, const fz_geom *geom, int64_t bs,
                           int64_t at, int64_t v)
{
    fia_tensor_spec *t = &c->tensors[FIA_SLOT_BLOCK_TABLE];
    const int64_t len = fz_kv_len(c, geom, 0);
    const int64_t nb = len / bs + (len % bs != 0);
    if (nb == 0 || t->gen.kind != FIA_GEN_VALUES || t->gen.values == NULL)
        return;
    const int64_t blocknum = c->tensors[FIA_SLOT_KEY].t[0].shape[0];
    t->gen.values[at % nb] = (v & 1) ? (double)(blocknum + v / 2)
                                     : (double)(-1 - v / 2);
}

void fz_numeric_paged(fz_gen *g)
{
    fz_bytes *f = g->f;
    int reach = g->reach == FZ_REACH_TAIL || g->reach == FZ_REACH_SPLIT ||
                g->reach == FZ_REACH_ROWS;
    /* the metamorphic target pages its second form (paged=...) instead:
     * its base cases stay contiguous, so every relation applies */
    if (!fz_bytes_rare(f, reach ? 50 : 12) || g->c->live_rows || g->meta)
        return;
    static const int64_t dec[] = {16, 32, 48, 64, 128, 256, 512, 80};
    /* prefill: 128 mostly, so that its keys (640 at most) span blocks */
    static const int64_t pre[] = {128, 128, 128, 256, 512};
    int64_t bs = g->qs1 ? dec[fz_bytes_pick(f, FZ_ARRLEN(dec))]
                        : pre[fz_bytes_pick(f, FZ_ARRLEN(pre))];
    int cache4d = fz_bytes_bool(f), share = fz_bytes_chance(f, 30);
    uint64_t seed = fz_bytes_u32(f);
    int bad_id = fz_bytes_rare(f, 6); /* an id read outside the cache */
    int64_t bad_at = fz_bytes_u8(f), bad_val = fz_bytes_range(f, 0, 3);
    fz_geom geom;
    fia_case plain;
    if (fz_geom_of(g->c, &geom) != 0)
        return;
    fia_case_init(&plain);
    if (fia_case_copy(&plain, g->c) != FIA_OK) {
        fz_note(g, FIA_ERR_NOMEM);
        return;
    }
    fia_error err;
    fia_status st = fz_page_case(&plain, &geom, bs, cache4d, seed, share, g->c,
                                 &err);
    if (st == FIA_ERR_NOMEM)
        fz_note(g, st);
    fia_case_free(&plain);
    if (st == FIA_OK && bad_id)
        spoil_block_id(g->c, &geom, bs, bad_at, bad_val);
}
