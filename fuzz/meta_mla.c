/* mla-zero-rope (metamorphic): an MLA call whose ropes are zero is the
 * plain attention of the same query, key and value (the rope term
 * q_rope.k_rope^T adds nothing: RELEASED-BEHAVIOUR.md, docs/features/
 * mla.md), so the form without query_rope / key_rope gives the same
 * outputs -- fast/'s MLA path (run_mla.c: KV_N 1, up to 128 heads on one
 * key head, the rope widened after D) against its general one on the same
 * paged cache.  The base is an MLA case from fzn_mla with both ropes
 * const(0); the form without them must itself be a valid call (the rules
 * then judge it as plain attention: the GQA ratio of 64, no NBSD output
 * nor NZ cache without rope), otherwise the relation does not apply. */
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
    fb_absent(out, FIA_SLOT_QUERY_ROPE);
    fb_absent(out, FIA_SLOT_KEY_ROPE);
    return FIA_OK;
}
