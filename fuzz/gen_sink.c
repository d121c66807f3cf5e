/* 004's learnable_sink in generated cases.
 *
 * fuzz_params: now and then a sink, mostly bf16 [N], now and then of
 * another dtype, rank or length (SINK-001, SINK-002), on whatever call the
 * fragments before made (MLA and its full quantization included, where it
 * is computed; 002's full int8 too, where it is not modeled, NM-015, which
 * the rules and fast/ must both say).
 * fuzz_numeric: now and then a bf16 [N] sink on the valid case made so far,
 * MLA's included (D 512 and 128, its full quantization: N is num_heads as
 * for any call), not on 002's full int8 (an int8 query without rope, where
 * it is not modeled), its values from a range the bytes pick: near the
 * scores, far above them (the sink takes the weight, outputs near 0), far
 * below (it vanishes).  Appended last in both lists (fuzz/gen.h: the order
 * is the seeds' format).
 * Fragment contract: fuzz/gen.h. */
#include "fuzz/gen.h"

static int64_t heads(const fia_case *c)
{
    return c->attrs.num_heads > 0 && c->attrs.num_heads <= 256
               ? c->attrs.num_heads : 1;
}

void fz_params_sink(fz_gen *g)
{
    fz_bytes *f = g->f;
    /* a strict input keeps the call the fragments before made valid (the
     * feature tests read their scenes back; a sink on full int8 is not
     * modeled) */
    if (!fz_bytes_rare(f, 8) || g->strict)
        return;
    fia_case *c = g->c;
    static const fia_dtype dts[] = {FIA_DT_BF16, FIA_DT_FP16, FIA_DT_FP32};
    static const int dw[] = {90, 6, 4};
    const fia_dtype dt = dts[fz_wpick(g, dw, FZ_ARRLEN(dw), 1)];
    int64_t sh[2] = {heads(c), 1};
    int nd = 1;
    if (fz_odd(g, 3))
        sh[0] += fz_bytes_bool(f) ? 1 : -1; /* another length (0 too) */
    if (fz_odd(g, 2))
        nd = 2; /* [N, 1] */
    fz_note(g, fz_case_tensor(c, FIA_SLOT_LEARNABLE_SINK, dt, nd, sh));
}

void fz_numeric_sink(fz_gen *g)
{
    fz_bytes *f = g->f;
    if (!fz_bytes_rare(f, 8) || g->meta)
        return;
    fia_case *c = g->c;
    const fia_tensor_spec *q = &c->tensors[FIA_SLOT_QUERY];
    const int rope = c->tensors[FIA_SLOT_QUERY_ROPE].presence == FIA_PRESENT ||
                     c->tensors[FIA_SLOT_KEY_ROPE].presence == FIA_PRESENT;
    if (!rope && q->presence == FIA_PRESENT && q->t[0].dtype == FIA_DT_INT8)
        return; /* 002's full int8: not modeled there (NM-015) */
    int64_t sh[1] = {heads(c)};
    fz_note(g, fz_case_tensor(c, FIA_SLOT_LEARNABLE_SINK, FIA_DT_BF16, 1, sh));
    /* the scores are O(1) (gen_tensors_data.c scales them; fz_numeric_mla scales
     * by 1 / sqrt(D + Dr), its full quantization's a few times larger):
     * near, far above, far below */
    static const double lo[] = {-3.0, 8.0, -40.0, -1.0};
    static const double hi[] = {3.0, 30.0, -20.0, 1.0};
    const int k = fz_bytes_pick(f, FZ_ARRLEN(lo));
    fz_case_gen(c, FIA_SLOT_LEARNABLE_SINK, FIA_GEN_UNIFORM, lo[k], hi[k]);
}
