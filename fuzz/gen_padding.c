/* Left padding in generated cases.
 *
 * fuzz_params: at the end of the list, now and then a left-padding scene
 * (002: a padding tensor with its lengths; query padding counts only when
 * Q_S > 1) together with one of the combinations the documents refuse with
 * it — int4 key/value under an fp16/bf16 query, a shared prefix, key/value
 * antiquant scales, per-channel output quantization — or, as often, the
 * tensor without its lengths (right padding: no scene): the exclusions are
 * decided before anything else of padding (fz_params_padding).  After it
 * (fz_params_padding_scene) valid scenes of every kind the status table of
 * docs/features/padding.md has: query, kv or both on either path, query
 * padding without its lengths or at Q_S = 1 (ignored), kv padding without
 * its lengths, empty padding tensors (absent), other shapes and dtypes now
 * and then; with the token layouts, tensor lists and page tables the
 * fragments before made (not modeled, ignored or rejected by path and
 * profile).
 *
 * fuzz_numeric: at the end of the list, now and then (more often for the
 * reach plans: long key ranges, many rows, a split decode) the case
 * becomes its left-padded form (meta_padding.c): rows right-aligned before
 * the padding, NaN elsewhere; the values written negative now and then
 * (read as 0); the longest batches starting below 0 (prefill: unspecified,
 * decode: zeros); a value far past S (every start below 0: nothing may be
 * read outside the tensors, which the sanitizers see); or a padding tensor
 * the call ignores (no lengths, query padding at Q_S = 1, kv padding with
 * a decode tensor list).
 * Fragment contract: fuzz/gen.h. */
#include <stdlib.h>
#include "fia/check.h"
#include "fuzz/gen.h"

void fz_params_padding(fz_gen *g)
{
    fz_bytes *f = g->f;
    fia_case *c = g->c;
    if (!fz_bytes_rare(f, 8))
        return;
    const int query = fz_bytes_bool(f);
    const fia_slot ps = query ? FIA_SLOT_QUERY_PADDING_SIZE
                              : FIA_SLOT_KV_PADDING_SIZE;
    const fia_array pa = query ? FIA_ARR_ACTUAL_SEQ_LENGTHS
                               : FIA_ARR_ACTUAL_SEQ_LENGTHS_KV;
    int64_t one = 1, len = query ? g->Q_S : g->KV_S;
    fz_note(g, fz_case_tensor(c, ps, FIA_DT_INT64, 1, &one));
    if (fz_bytes_bool(f)) /* with its lengths: a left-padding scene */
        fz_note(g, fz_case_array(c, pa, 1, &len));
    const fia_tensor_spec *k = &c->tensors[FIA_SLOT_KEY];
    switch (fz_bytes_pick(f, 4)) {
    case 0: /* int4 key/value (under the query's dtype) */
        if (k->presence == FIA_PRESENT && k->count == 1 &&
            c->tensors[FIA_SLOT_VALUE].presence == FIA_PRESENT &&
            c->tensors[FIA_SLOT_VALUE].count == 1) {
            k->t[0].dtype = FIA_DT_INT4;
            c->tensors[FIA_SLOT_VALUE].t[0].dtype = FIA_DT_INT4;
        }
        break;
    case 1: /* a shared prefix of the key's shape, batch 1 */
        if (k->presence == FIA_PRESENT && k->count >= 1 &&
            k->t[0].ndim >= 2) {
            int64_t sh[FIA_MAX_RANK];
            for (int i = 0; i < k->t[0].ndim; i++)
                sh[i] = k->t[0].shape[i];
            sh[0] = 1;
            fz_note(g, fz_case_tensor(c, FIA_SLOT_KEY_SHARED_PREFIX, g->kvdt,
                                 k->t[0].ndim, sh));
            fz_note(g, fz_case_tensor(c, FIA_SLOT_VALUE_SHARED_PREFIX, g->kvdt,
                                 k->t[0].ndim, sh));
        }
        break;
    case 2: { /* key/value antiquant scales, per token */
        int64_t sh[2] = {g->B > 0 ? g->B : 1, g->KV_S > 0 ? g->KV_S : 1};
        fz_note(g, fz_case_tensor(c, FIA_SLOT_KEY_ANTIQUANT_SCALE, FIA_DT_FP32, 2,
                             sh));
        fz_note(g, fz_case_tensor(c, FIA_SLOT_VALUE_ANTIQUANT_SCALE, FIA_DT_FP32,
                             2, sh));
        break;
    }
    default: { /* output quantization, per channel or per tensor ([1]) */
        int64_t sh[2] = {g->N > 0 ? g->N : 1, g->D > 0 ? g->D : 1};
        if (fz_bytes_bool(f))
            fz_note(g, fz_case_tensor(c, FIA_SLOT_QUANT_SCALE2, FIA_DT_FP32, 2, sh));
        else
            fz_note(g, fz_case_tensor(c, FIA_SLOT_QUANT_SCALE2, FIA_DT_FP32, 1,
                                 &one));
        break;
    }
    }
}

/* ---- fuzz_params: the scenes ---------------------------------------------- */

/* Padding values for the status-only target: small, negative, past any S. */
static const double PAD_EDGES[] = {0, 1, 3, 17, -1, 2147483648.0,
                                   9223372036854775807.0,
                                   -9223372036854775808.0};

/* A padding tensor: int64 [1] mostly, now and then [2] or rank 0 (one
 * value read either way), empty (numel 0: absent), or (a break) another
 * dtype. */
static void scene_tensor(fz_gen *g, fia_slot s, int empty)
{
    fz_bytes *f = g->f;
    int64_t sh[1] = {empty ? 0 : 1};
    int nd = 1;
    if (!empty && fz_bytes_rare(f, 10)) {
        if (fz_bytes_bool(f))
            sh[0] = 2;
        else
            nd = 0;
    }
    fia_dtype dt = FIA_DT_INT64;
    if (fz_odd(g, 4))
        dt = fz_bytes_bool(f) ? FIA_DT_INT32 : FIA_DT_FP32;
    fz_note(g, fz_case_tensor(g->c, s, dt, nd, sh));
    const int64_t n = nd == 0 ? 1 : sh[0];
    double *v = n > 0 ? malloc((size_t)n * sizeof *v) : NULL;
    const double x = PAD_EDGES[fz_bytes_pick(f, FZ_ARRLEN(PAD_EDGES))];
    for (int64_t i = 0; v != NULL && i < n; i++)
        v[i] = x;
    if (v != NULL && g->c->tensors[s].presence == FIA_PRESENT)
        fz_case_values(g->c, s, v, n);
    else
        free(v);
}

/* The lengths a scene needs, when absent: one for all batches or one per
 * batch, values in [0, S]. */
static void scene_lengths(fz_gen *g, fia_array a, int64_t S)
{
    fz_bytes *f = g->f;
    if (g->c->arrays[a].presence == FIA_PRESENT)
        return;
    enum { MAXN = 64 };
    const int64_t n = fz_bytes_bool(f) || g->B < 1 || g->B > MAXN ? 1 : g->B;
    const int64_t hi = S < 0 ? 0 : S < 4096 ? S : 4096;
    int64_t v[MAXN];
    for (int64_t i = 0; i < n; i++)
        v[i] = fz_bytes_bool(f) ? (S < 0 ? 0 : S) : fz_bytes_range(f, 0, hi);
    fz_note(g, fz_case_array(g->c, a, n, v));
}

void fz_params_padding_scene(fz_gen *g)
{
    fz_bytes *f = g->f;
    if (!fz_bytes_rare(f, 12))
        return;
    /* query, kv, both; padding without its lengths; empty padding tensors */
    static const int w[] = {26, 26, 22, 14, 12};
    const int kind = fz_bytes_weighted(f, w, FZ_ARRLEN(w));
    const int query = kind == 0 || kind == 2 || (kind >= 3 && fz_bytes_bool(f));
    const int kv = kind == 1 || kind == 2 || (kind >= 3 && !query);
    if (query) {
        scene_tensor(g, FIA_SLOT_QUERY_PADDING_SIZE, kind == 4);
        if (kind == 3)
            fz_case_array_absent(g->c, FIA_ARR_ACTUAL_SEQ_LENGTHS);
        else
            scene_lengths(g, FIA_ARR_ACTUAL_SEQ_LENGTHS, g->Q_S);
    }
    if (kv) {
        scene_tensor(g, FIA_SLOT_KV_PADDING_SIZE, kind == 4);
        if (kind == 3)
            fz_case_array_absent(g->c, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV);
        else
            scene_lengths(g, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, g->KV_S);
    }
}

/* ---- fuzz_numeric ------------------------------------------------------- */

/* Values far from any S, and the int64 edges: as a padding value, every
 * start below 0 (the negative ones read as 0). */
static const double ABSURD[] = {9223372036854775807.0, 2147483647.0,
                                4294967296.0, 1099511627776.0,
                                -9223372036854775808.0, -2147483648.0};

/* The padding value of slot s (int64 [1] of explicit values) set to v. */
static void set_value(fia_case *c, fia_slot s, double v)
{
    fia_tensor_spec *sp = &c->tensors[s];
    if (sp->presence == FIA_PRESENT && sp->gen.kind == FIA_GEN_VALUES &&
        sp->gen.n_values >= 1)
        sp->gen.values[0] = v;
}

/* A padding tensor the call ignores (002: no scene, or one the path does
 * not take): query padding at Q_S = 1 or without actual_seq_lengths, kv
 * padding without actual_seq_lengths_kv or with a decode tensor list. */
static void ignored_padding(fz_gen *g)
{
    fz_bytes *f = g->f;
    fia_case *c = g->c;
    const int pick = fz_bytes_pick(f, 2);
    const double v = fz_bytes_bool(f) ? ABSURD[fz_bytes_pick(f, FZ_ARRLEN(ABSURD))]
                                 : (double)fz_bytes_range(f, -3, 40);
    const int list = c->tensors[FIA_SLOT_KEY].count > 1;
    /* not with a page table (its exclusion differs by profile) or a token
     * layout (not modeled) */
    if (c->tensors[FIA_SLOT_BLOCK_TABLE].presence == FIA_PRESENT ||
        fia_layout_is_tnd(c->attrs.input_layout))
        return;
    const int q_ok = g->qs1 ||
                     c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS].presence != FIA_PRESENT;
    const int kv_ok = (g->qs1 && list) ||
                      c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV].presence != FIA_PRESENT;
    fia_slot s;
    if (q_ok && (pick == 0 || !kv_ok))
        s = FIA_SLOT_QUERY_PADDING_SIZE;
    else if (kv_ok)
        s = FIA_SLOT_KV_PADDING_SIZE;
    else
        return;
    int64_t one = 1;
    double *val = malloc(sizeof *val);
    if (val == NULL || fz_case_tensor(c, s, FIA_DT_INT64, 1, &one) != FIA_OK) {
        free(val);
        fz_note(g, FIA_ERR_NOMEM);
        return;
    }
    *val = v;
    fz_case_values(c, s, val, 1);
}

enum { PV_PLAIN, PV_NEGATIVE, PV_SHORT, PV_ABSURD, PV_IGNORED, PV_COUNT };

/* The case as its padded form with these values (within the reference's
 * budget: the query axis unpadded when it would not be). */
static void pad_to(fz_gen *g, int64_t p_q, int64_t p_kv, int64_t extra,
                   uint64_t seed)
{
    fz_geom geom;
    fia_case plain;
    if (fz_geom_of(g->c, &geom) != 0 || !fz_pad_applies(g->c, &geom))
        return;
    fia_case_init(&plain);
    if (fia_case_copy(&plain, g->c) != FIA_OK) {
        fz_note(g, FIA_ERR_NOMEM);
        return;
    }
    fia_error err;
    fia_status st = fz_pad_case(&plain, &geom, p_q, p_kv, extra, seed, g->c,
                                &err);
    if (st == FIA_OK && fia_check_reference_work(g->c) > FZ_NUM_MAX_WORK &&
        p_q >= 0) {
        /* p_q 0 and no extra rows: Q_S' = Q_S, the work the case had */
        fia_case_free(g->c);
        fia_case_init(g->c);
        st = fia_case_copy(g->c, &plain) == FIA_OK
                 ? fz_pad_case(&plain, &geom, 0, p_kv, extra < 0 ? extra : 0,
                               seed, g->c, &err)
                 : FIA_ERR_NOMEM;
    }
    if (st != FIA_OK) { /* the case as it was */
        fia_case_free(g->c);
        fia_case_init(g->c);
        if (fia_case_copy(g->c, &plain) != FIA_OK || st == FIA_ERR_NOMEM)
            fz_note(g, FIA_ERR_NOMEM);
    }
    fia_case_free(&plain);
}

void fz_numeric_padding(fz_gen *g)
{
    fz_bytes *f = g->f;
    fia_case *c = g->c;
    const int reach = g->reach == FZ_REACH_TAIL ||
                      g->reach == FZ_REACH_ROWS || g->reach == FZ_REACH_SPLIT;
    /* the metamorphic target pads its second form (pad=...) instead */
    if (!fz_bytes_rare(f, reach ? 35 : 12) || g->meta || c->live_rows)
        return;
    static const int vw[PV_COUNT] = {46, 14, 14, 12, 14};
    const int variant = fz_bytes_weighted(f, vw, PV_COUNT);
    const int scene = fz_bytes_pick(f, 3); /* both, query, kv (decode: kv) */
    const int wide = fz_bytes_bool(f);
    int64_t p_q = fz_bytes_range(f, 0, 7);
    /* the reach plans: kv offsets past fast/'s key block now and then */
    int64_t p_kv = reach && wide ? fz_bytes_range(f, 0, 150) : fz_bytes_range(f, 0, 9);
    int64_t extra = fz_bytes_range(f, 0, 3);
    uint64_t seed = fz_bytes_u32(f);
    if (variant == PV_IGNORED) {
        ignored_padding(g);
        return;
    }
    if (g->qs1 || scene == 2)
        p_q = -1;
    if (!g->qs1 && scene == 1)
        p_kv = -1;
    double absurd = 0;
    fia_slot spoil = p_kv >= 0 ? FIA_SLOT_KV_PADDING_SIZE
                               : FIA_SLOT_QUERY_PADDING_SIZE;
    switch (variant) {
    case PV_NEGATIVE: /* zeros written as negative values */
        p_q = p_q > 0 ? 0 : p_q, p_kv = p_kv > 0 ? 0 : p_kv;
        seed |= 3;
        break;
    case PV_SHORT: /* the longest batches start below 0 */
        p_q = p_q == 0 ? 1 : p_q, p_kv = p_kv == 0 ? 1 : p_kv;
        extra = -1 - extra;
        break;
    case PV_ABSURD:
        absurd = ABSURD[fz_bytes_pick(f, FZ_ARRLEN(ABSURD))];
        if (p_q >= 0 && p_kv >= 0 && fz_bytes_bool(f))
            spoil = FIA_SLOT_QUERY_PADDING_SIZE;
        /* a negative value reads as 0: the rows placed for 0 */
        if (absurd < 0)
            *(spoil == FIA_SLOT_KV_PADDING_SIZE ? &p_kv : &p_q) = 0;
        break;
    default:
        break;
    }
    pad_to(g, p_q, p_kv, extra, seed);
    if (variant == PV_ABSURD)
        set_value(c, spoil, absurd);
    /* mode 0 with a mask in a scene ignores pre/next (its band is in the
     * mask): other tokens must change nothing */
    if (!g->qs1 && c->attrs.sparse_mode == 0 &&
        c->tensors[FIA_SLOT_ATTEN_MASK].presence == FIA_PRESENT &&
        (c->tensors[FIA_SLOT_QUERY_PADDING_SIZE].presence == FIA_PRESENT ||
         c->tensors[FIA_SLOT_KV_PADDING_SIZE].presence == FIA_PRESENT) &&
        fz_bytes_rare(f, 40)) {
        fz_case_attr(c, FIA_ATTR_PRE_TOKENS, fz_bytes_range(f, -2, 6));
        fz_case_attr(c, FIA_ATTR_NEXT_TOKENS, fz_bytes_range(f, -2, 6));
    }
}
