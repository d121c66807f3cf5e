/* Key/value tensor lists in generated cases.
 *
 * fuzz_params: lists of two now and then (a break: two tensors for another
 * B), and at the end of the list calls whose key and value become B
 * tensors of batch 1 with their own S, each rule of the feature broken now
 * and then (a batch of 2, one tensor too many, heads or D off, a value
 * tensor of another shape, B past 256).
 *
 * fuzz_numeric: a valid case turned into lists (meta_tensor_list.c), the
 * tensors of different S now and then.
 * Fragment contract: fuzz/gen.h. */
#include "fuzz/gen.h"

/* Sets kv_count, the length of the key and value lists. */
void fz_params_tensor_list(fz_gen *g) { g->kv_count = fz_odd(g, 1) ? 2 : 1; }

void fz_params_tensor_list_shapes(fz_gen *g)
{
    fz_bytes *f = g->f;
    fia_case *c = g->c;
    if (!fz_bytes_rare(f, 10) || c->tensors[FIA_SLOT_KEY].presence != FIA_PRESENT ||
        c->tensors[FIA_SLOT_BLOCK_TABLE].presence == FIA_PRESENT)
        return;
    int64_t B = g->B;
    if (B < 1 || B > 300)
        return; /* lists of a huge B: the batch rules already break */
    const int n = (int)B + (fz_odd(g, 4) ? 1 : 0);
    const int bad_batch = fz_odd(g, 3) ? (int)fz_bytes_range(f, 0, n - 1) : -1;
    const int bad_heads = fz_odd(g, 3) ? (int)fz_bytes_range(f, 0, n - 1) : -1;
    const int bad_value = fz_odd(g, 2) ? (int)fz_bytes_range(f, 0, n - 1) : -1;
    const int bsx = g->L == FZ_BSH || g->L == FZ_BSND;
    const int sa = bsx ? 1 : 2;
    fz_note(g, fz_case_tensor_list(c, FIA_SLOT_KEY, n, g->kvdt, g->knd, g->ksh));
    fz_note(g, fz_case_tensor_list(c, FIA_SLOT_VALUE, n, g->kvdt, g->knd, g->ksh));
    fia_tensor_spec *k = &c->tensors[FIA_SLOT_KEY], *v = &c->tensors[FIA_SLOT_VALUE];
    if (k->t == NULL || v->t == NULL || k->count != n || v->count != n ||
        g->knd <= sa)
        return;
    for (int i = 0; i < n; i++) {
        fia_tensor *kt = &k->t[i], *vt = &v->t[i];
        kt->shape[0] = i == bad_batch ? 2 : 1;
        kt->shape[sa] = fz_bytes_range(f, 0, g->KV_S > 0 ? g->KV_S : 1);
        if (i == bad_heads)
            kt->shape[kt->ndim - 1] += 1;
        *vt = *kt;
        if (i == bad_value)
            vt->shape[sa] += 1;
    }
}

void fz_numeric_tensor_list(fz_gen *g)
{
    fz_bytes *f = g->f;
    if (!fz_bytes_rare(f, 8) || g->c->live_rows || g->meta || g->B < 2)
        return;
    uint64_t seed = fz_bytes_u32(f);
    fz_geom geom;
    fia_case plain;
    if (fz_geom_of(g->c, &geom) != 0)
        return; /* paged, or not the layout's */
    fia_case_init(&plain);
    if (fia_case_copy(&plain, g->c) != FIA_OK) {
        fz_note(g, FIA_ERR_NOMEM);
        return;
    }
    fia_error err;
    fia_status st = fz_list_case(&plain, &geom, seed, g->c, &err);
    if (st == FIA_ERR_NOMEM)
        fz_note(g, st);
    fia_case_free(&plain);
}
