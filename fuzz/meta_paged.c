/* paged (metamorphic, and fuzz_numeric's paged cases): the same keys as a
 * page-attention cache.  Key/value rows of batch b move to the blocks a
 * shuffled block table gives it, in a (blocknum, block_size, KV_N*D) or a
 * (blocknum, KV_N, block_size, D) cache; entries of the table no key
 * reaches hold ids outside the cache (the operator must not read them), and
 * cache rows no key uses hold NaN (a kernel reading the wrong block shows).
 * share (fuzz_numeric) makes the last batch's first block the first
 * batch's: legal block sharing, both read what was written last. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_internal.h"

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The mask's columns widened to cols (new columns masked): a paged call's
 * KV_S is the longest batch's blocks x block_size, which the mask must
 * cover (002 page attention场景). */
static fia_status widen_mask(const fia_case *c, int64_t cols, fia_case *out,
                             fia_error *err)
{
    const fia_tensor_spec *sp = &c->tensors[FIA_SLOT_ATTEN_MASK];
    if (sp->presence != FIA_PRESENT || sp->count != 1 || sp->t[0].ndim < 2)
        return FIA_OK;
    const fia_tensor *t = &sp->t[0];
    const int64_t old = t->shape[t->ndim - 1];
    if (old >= cols || (c->attrs.sparse_mode >= 2 && old == 2048))
        return FIA_OK; /* covers it, or the compressed band of modes 2-4 */
    double *src;
    int64_t n;
    fia_status st = fz_slot_data(c, FIA_SLOT_ATTEN_MASK, &src, &n, err);
    if (st != FIA_OK)
        return st;
    const int64_t rows = old > 0 ? n / old : 0;
    double *dst = malloc((size_t)(rows * cols > 0 ? rows * cols : 1) * sizeof *dst);
    if (dst == NULL) {
        free(src);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the mask");
    }
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < cols; j++)
            dst[r * cols + j] = j < old ? src[r * old + j] : 1.0;
    free(src);
    int64_t sh[FIA_MAX_RANK];
    memcpy(sh, t->shape, sizeof sh);
    sh[t->ndim - 1] = cols;
    if (fz_case_tensor(out, FIA_SLOT_ATTEN_MASK, t->dtype, t->ndim, sh) != FIA_OK) {
        free(dst);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the mask");
    }
    fz_case_values(out, FIA_SLOT_ATTEN_MASK, dst, rows * cols);
    return FIA_OK;
}

static fia_status page(const fia_case *c, const fz_geom *g, int64_t bs,
                       int cache4d, uint64_t seed, int share, fia_case *out,
                       int64_t *kvl, int64_t *nb, int64_t cols, int64_t sum,
                       fia_error *err);

fia_status fz_page_case(const fia_case *c, const fz_geom *g, int64_t bs,
                        int cache4d, uint64_t seed, int share, fia_case *out,
                        fia_error *err)
{
    if (bs <= 0 || bs > 512 || c->live_rows ||
        c->tensors[FIA_SLOT_BLOCK_TABLE].presence == FIA_PRESENT)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "the case cannot be paged");
    if (cache4d && g->layout != FZ_BNSD && g->layout != FZ_BNSD_BSND)
        cache4d = 0; /* the documents allow it with a BNSD query only */
    const int64_t B = g->B;
    int64_t cols = 0, sum = 0;
    if (B <= 0 || B > 65536)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "B %lld to page", (long long)B);
    int64_t *kvl = malloc((size_t)B * 2 * sizeof *kvl), *nb = kvl + B;
    if (kvl == NULL)
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the lengths");
    for (int64_t b = 0; b < B; b++) {
        kvl[b] = fz_kv_len(c, g, b);
        nb[b] = (kvl[b] + bs - 1) / bs;
        cols = nb[b] > cols ? nb[b] : cols;
        sum += nb[b];
    }
    fia_status st = page(c, g, bs, cache4d, seed, share, out, kvl, nb, cols,
                         sum, err);
    free(kvl);
    return st;
}

/* fz_page_case with the lengths, blocks per batch, most and total blocks. */
static fia_status page(const fia_case *c, const fz_geom *g, int64_t bs,
                       int cache4d, uint64_t seed, int share, fia_case *out,
                       int64_t *kvl, int64_t *nb, int64_t cols, int64_t sum,
                       fia_error *err)
{
    const int64_t B = g->B, H = g->KV_N, D = g->D;
    share = share && B > 1 && nb[0] > 0 && nb[B - 1] > 0;
    const int64_t extra = (int64_t)(mix(&seed) % 3);
    const int64_t blocknum = sum + extra > 0 ? sum + extra : 1;
    const int64_t tcols = cols + (int64_t)(mix(&seed) % 2);
    /* the ids: a shuffle of the cache's blocks */
    int64_t *perm = malloc((size_t)blocknum * sizeof *perm);
    double *tab = malloc((size_t)(B * (tcols ? tcols : 1)) * sizeof *tab);
    if (perm == NULL || tab == NULL) {
        free(perm), free(tab);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for a block table");
    }
    for (int64_t i = 0; i < blocknum; i++)
        perm[i] = i;
    for (int64_t i = blocknum - 1; i > 0; i--) {
        int64_t j = (int64_t)(mix(&seed) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    int64_t next = 0;
    for (int64_t b = 0; b < B; b++)
        for (int64_t m = 0; m < tcols; m++)
            tab[b * tcols + m] = m < nb[b] ? (double)perm[next++]
                                 : (mix(&seed) & 1) ? -1.0
                                                    : (double)(blocknum + m);
    if (share)
        tab[(B - 1) * tcols] = tab[0];
    free(perm);

    /* the cache: every row NaN but the keys' */
    const int64_t ncache = blocknum * bs * H * D;
    static const fia_slot slots[2] = {FIA_SLOT_KEY, FIA_SLOT_VALUE};
    for (int t = 0; t < 2; t++) {
        double *src;
        int64_t n;
        fia_status st = fz_slot_data(c, slots[t], &src, &n, err);
        if (st != FIA_OK) {
            free(tab);
            return st;
        }
        double *dst = malloc((size_t)ncache * sizeof *dst);
        if (dst == NULL) {
            free(src), free(tab);
            return fia_fail(err, FIA_ERR_NOMEM, "no memory for the cache");
        }
        for (int64_t i = 0; i < ncache; i++)
            dst[i] = NAN;
        fz_layout l = g->layout == FZ_BNSD_BSND ? FZ_BNSD : g->layout;
        /* batch by batch: a shared block ends with the last batch's rows */
        for (int64_t b = 0; b < B; b++)
            for (int64_t h = 0; h < H; h++)
                for (int64_t j = 0; j < kvl[b]; j++) {
                    int64_t id = (int64_t)tab[b * tcols + j / bs], o = j % bs;
                    int64_t row = cache4d ? ((id * H + h) * bs + o) * D
                                          : ((id * bs + o) * H + h) * D;
                    for (int64_t d = 0; d < D; d++)
                        dst[row + d] = src[fz_index(l, B, H, g->KV_S, D, b, h,
                                                    j, d)];
                }
        free(src);
        int64_t sh[4] = {blocknum, cache4d ? H : bs, cache4d ? bs : H * D, D};
        fia_dtype dt = c->tensors[slots[t]].t[0].dtype;
        if (fz_case_tensor(out, slots[t], dt, cache4d ? 4 : 3, sh) != FIA_OK) {
            free(dst), free(tab);
            return fia_fail(err, FIA_ERR_NOMEM, "no memory for the cache");
        }
        fz_case_values(out, slots[t], dst, ncache);
    }
    int64_t tsh[2] = {B, tcols};
    if (fz_case_tensor(out, FIA_SLOT_BLOCK_TABLE, FIA_DT_INT32, 2, tsh) != FIA_OK) {
        free(tab);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for a block table");
    }
    fz_case_values(out, FIA_SLOT_BLOCK_TABLE, tab, B * tcols);
    fz_case_attr(out, FIA_ATTR_BLOCK_SIZE, bs);
    /* page attention needs actual_seq_lengths_kv (002) */
    if (c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV].presence != FIA_PRESENT &&
        fz_case_array(out, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, B, kvl) != FIA_OK)
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the lengths");
    return widen_mask(c, cols * bs, out, err);
}

/* "paged=<block_size>,<3|4>,<seed>": *out (a copy of c) becomes the paged
 * form of the same keys.  No block sharing here: a shared block holds one
 * batch's rows, which the plain form does not repeat (fuzz_numeric's paged
 * cases share blocks; the reference reads through the table). */
fia_status fz_meta_paged(const fia_case *c, const fz_geom *g, const char *arg,
                         fia_case *out, fia_error *err)
{
    long long bs = 0, seed = 0;
    int rank = 3;
    if (sscanf(arg, "%lld,%d,%lld", &bs, &rank, &seed) != 3 ||
        (rank != 3 && rank != 4) || bs <= 0 || bs > 512)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "paged=%s: want "
                        "<block_size>,<3|4>,<seed>", arg);
    return fz_page_case(c, g, bs, rank == 4, (uint64_t)seed, 0, out, err);
}
