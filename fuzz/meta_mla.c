/* mla-zero-rope (metamorphic): an MLA call whose ropes are zero is the
 * plain attention of the same query, key and value (the rope term
 * q_rope.k_rope^T adds nothing: RELEASED-BEHAVIOUR.md, docs/features/
 * mla.md), so the form without query_rope / key_rope gives the same
 * outputs -- fast/'s MLA path (run_mla.c: KV_N 1, up to 128 heads on one
 * key head, the rope widened after D) against its general one on the same
 * paged cache.  The base is an MLA case from fz_numeric_mla with both ropes
 * const(0); the form without them must itself be a valid call (the rules
 * then judge it as plain attention: the GQA ratio of 64, no NBSD output
 * nor NZ cache without rope), otherwise the relation does not apply. */
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_internal.h"

static int zero_const(const fia_case *c, fia_slot s)
{
    const fia_tensor_spec *sp = &c->tensors[s];
    return sp->presence == FIA_PRESENT && sp->count == 1 &&
           sp->gen.kind == FIA_GEN_CONST && sp->gen.a == 0.0;
}

int fz_mla_zero_rope_applies(const fia_case *c)
{
    return zero_const(c, FIA_SLOT_QUERY_ROPE) &&
           zero_const(c, FIA_SLOT_KEY_ROPE) && !c->live_rows;
}

fia_status fz_meta_mla_zero_rope(const fia_case *c, const fz_geom *g,
                                 const char *arg, fia_case *out,
                                 fia_error *err)
{
    (void)g;
    (void)arg;
    if (!fz_mla_zero_rope_applies(c))
        return fia_fail(err, FIA_ERR_BAD_INPUT, "mla-zero-rope: the case "
                        "has no const(0) query_rope and key_rope");
    fia_case_free(out);
    fia_case_init(out);
    if (fia_case_copy(out, c) != FIA_OK)
        return fia_fail(err, FIA_ERR_NOMEM, "no memory to copy the case");
    fz_case_absent(out, FIA_SLOT_QUERY_ROPE);
    fz_case_absent(out, FIA_SLOT_KEY_ROPE);
    return FIA_OK;
}

/* mla-heads-rev (metamorphic): MLA's query heads are independent problems
 * sharing one key head (KV_N 1: D 512, up to 128 heads), so the call with
 * the query's and query_rope's heads in reverse order gives the outputs in
 * reverse head order: head h of the second form is head N - 1 - h of the
 * first (meta.c reads it so).  A kernel that mixes the heads of a G-head
 * tile (a wrong head stride in the query, the rope, the output or the
 * lse) breaks it; the zero-rope relation, which compares two paths over
 * the same heads, need not.  The base is fz_numeric_mla's, its ropes made
 * non-zero by the decoder first (its data of one of the three batched
 * layouts; a token layout's or an *_NBSD output's heads are not read
 * here). */
int fz_mla_heads_rev_applies(const fia_case *c)
{
    fz_geom g;
    const fz_layout l = fz_layout_of(c->attrs.input_layout);
    return c->tensors[FIA_SLOT_QUERY_ROPE].presence == FIA_PRESENT &&
           c->tensors[FIA_SLOT_QUERY_ROPE].count == 1 && !c->live_rows &&
           (l == FZ_BSH || l == FZ_BSND || l == FZ_BNSD) &&
           fz_geom_of_call(c, &g) == 0 && !g.tnd && !g.qpad && g.N > 1;
}

/* The slot's (B, N, Q_S, D) data, heads reversed, as explicit values. */
static fia_status reverse_heads(const fia_case *c, const fz_geom *g,
                                fia_slot s, int64_t D, fia_case *out,
                                fia_error *err)
{
    double *src = NULL;
    int64_t n = 0;
    fia_status st = fz_slot_data(c, s, &src, &n, err);
    if (st != FIA_OK)
        return st;
    if (n != g->B * g->N * g->Q_S * D) {
        free(src);
        return fia_fail(err, FIA_ERR_BAD_INPUT, "mla-heads-rev: %s does "
                        "not have the query's heads", fia_slot_name(s));
    }
    double *dst = malloc((size_t)(n > 0 ? n : 1) * sizeof *dst);
    if (dst == NULL) {
        free(src);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the new %s",
                        fia_slot_name(s));
    }
    for (int64_t b = 0; b < g->B; b++)
        for (int64_t h = 0; h < g->N; h++)
            for (int64_t i = 0; i < g->Q_S; i++)
                for (int64_t d = 0; d < D; d++)
                    dst[fz_index(g->layout, g->B, g->N, g->Q_S, D, b, h, i,
                                 d)] =
                        src[fz_index(g->layout, g->B, g->N, g->Q_S, D, b,
                                     g->N - 1 - h, i, d)];
    free(src);
    fz_case_values(out, s, dst, n);
    return FIA_OK;
}

fia_status fz_meta_mla_heads_rev(const fia_case *c, const fz_geom *g,
                                 const char *arg, fia_case *out,
                                 fia_error *err)
{
    (void)arg;
    if (!fz_mla_heads_rev_applies(c))
        return fia_fail(err, FIA_ERR_BAD_INPUT, "mla-heads-rev: not an MLA "
                        "call of BSH, BSND or BNSD with several heads");
    fia_case_free(out);
    fia_case_init(out);
    if (fia_case_copy(out, c) != FIA_OK)
        return fia_fail(err, FIA_ERR_NOMEM, "no memory to copy the case");
    fia_status st = reverse_heads(c, g, FIA_SLOT_QUERY, g->D, out, err);
    if (st == FIA_OK)
        st = reverse_heads(c, g, FIA_SLOT_QUERY_ROPE, FZ_MLA_ROPE_D, out,
                           err);
    return st;
}
