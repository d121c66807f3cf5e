/* The product a generated case runs on (fia_product; rules_product.c).
 *
 * 001 alone documents a second product, the Atlas inference card, and only
 * a case written through 001's interface (api = incre_flash_attention)
 * can name it.  So now and then the case made so far moves to that
 * interface and onto the card, stripped of what 001 has no parameter for
 * (query lengths, sparse mode and tokens, lse, 003's inputs: dropped or at
 * their defaults):
 * fuzz_params: whatever the fragments before made (a bf16 query, a pse, an
 * int8 output, B or S over the card's limits: gen_layout.c's edges include
 * 256 / 257 and 65536 / 65537, and a quarter of the moved calls are set to
 * one of them), except on a strict input, which moves
 * only a call the card takes.
 * fuzz_numeric: a valid case the card takes (fp16 query, fp16 / int8
 * value, no pse, no output quantization) that 001 expresses as it is (no
 * stripping: dropping a scale could break it), so fast/ computes it there
 * too.
 * Appended last in both lists (fuzz/gen.h: the order is the seeds'
 * format).  Fragment contract: fuzz/gen.h. */
#include "fuzz/gen.h"

static int dtype_is(const fia_tensor_spec *s, fia_dtype a, fia_dtype b)
{
    for (int i = 0; s->presence == FIA_PRESENT && i < s->count; i++)
        if (s->t[i].dtype != a && s->t[i].dtype != b)
            return 0;
    return 1;
}

static int present(const fia_case *c, fia_slot s)
{
    return c->tensors[s].presence == FIA_PRESENT;
}

/* What the card takes of what 001 can express (its own dtypes and
 * inputs; the limits are checked by the rules). */
static int card_takes(const fia_case *c)
{
    const fia_tensor_spec *pse = &c->tensors[FIA_SLOT_PSE_SHIFT];
    return dtype_is(&c->tensors[FIA_SLOT_QUERY], FIA_DT_FP16, FIA_DT_FP16) &&
           dtype_is(&c->tensors[FIA_SLOT_VALUE], FIA_DT_FP16, FIA_DT_INT8) &&
           dtype_is(&c->tensors[FIA_SLOT_ANTIQUANT_SCALE], FIA_DT_FP16,
                    FIA_DT_FP16) &&
           dtype_is(&c->tensors[FIA_SLOT_ANTIQUANT_OFFSET], FIA_DT_FP16,
                    FIA_DT_FP16) &&
           (pse->presence != FIA_PRESENT || fia_tensor_numel(&pse->t[0]) == 0) &&
           !present(c, FIA_SLOT_QUANT_SCALE2) &&
           !present(c, FIA_SLOT_QUANT_OFFSET2);
}

/* What 001's interface has no parameter for, dropped (tensors, arrays) or
 * set to its default (attributes): the call 001 can make nearest to the
 * one made so far. */
static void strip_for_001(fia_case *c)
{
    const fia_api ifa = FIA_API_INCRE_FLASH_ATTENTION;
    for (int s = 0; s < FIA_SLOT_COUNT; s++)
        if (fia_api_param(ifa, fia_slot_name((fia_slot)s)) == NULL)
            fz_case_absent(c, (fia_slot)s);
    for (int a = 0; a < FIA_ARR_COUNT; a++)
        if (fia_api_param(ifa, fia_array_name((fia_array)a)) == NULL)
            fz_case_array_absent(c, (fia_array)a);
    fia_attrs d;
    fia_api_attrs_default(ifa, &d);
    fz_case_attr(c, FIA_ATTR_PRE_TOKENS, d.pre_tokens);
    fz_case_attr(c, FIA_ATTR_NEXT_TOKENS, d.next_tokens);
    fz_case_attr(c, FIA_ATTR_SPARSE_MODE, d.sparse_mode);
    fz_case_attr(c, FIA_ATTR_ANTIQUANT_MODE, d.antiquant_mode);
    fz_case_attr(c, FIA_ATTR_KEY_ANTIQUANT_MODE, d.key_antiquant_mode);
    fz_case_attr(c, FIA_ATTR_VALUE_ANTIQUANT_MODE, d.value_antiquant_mode);
    fz_case_attr(c, FIA_ATTR_QUERY_QUANT_MODE, d.query_quant_mode);
    fz_case_attr(c, FIA_ATTR_OUT_DTYPE, d.out_dtype);
    fz_case_lse_flag(c, d.softmax_lse_flag);
}

/* Moves the case to 001 and the card (stripped first when strip); 0 when
 * 001 cannot express it. */
static int to_card(fia_case *c, int strip)
{
    if (strip)
        strip_for_001(c);
    if (fia_case_set_api(c, FIA_API_INCRE_FLASH_ATTENTION, NULL, 0) != FIA_OK)
        return 0;
    c->product = FIA_PRODUCT_INFERENCE_CARD;
    return 1;
}

/* The card's limits, at and one past: B 256 / 257 on the query, key,
 * value and output, or the key/value S 65536 / 65537 (a status-only call:
 * no data).  Only for a contiguous single key/value of the three batched
 * layouts; 0 when the case has another form. */
static int card_edge(fia_case *c, int which)
{
    const fz_layout l = fz_layout_of(c->attrs.input_layout);
    if ((l != FZ_BSH && l != FZ_BSND && l != FZ_BNSD) ||
        c->tensors[FIA_SLOT_BLOCK_TABLE].presence == FIA_PRESENT)
        return 0;
    static const fia_slot qkvo[] = {FIA_SLOT_QUERY, FIA_SLOT_KEY,
                                    FIA_SLOT_VALUE, FIA_SLOT_ATTENTION_OUT};
    for (int k = 0; k < 4; k++) {
        const fia_tensor_spec *sp = &c->tensors[qkvo[k]];
        if (sp->presence == FIA_PRESENT &&
            (sp->count != 1 || sp->t[0].ndim != (l == FZ_BSH ? 3 : 4)))
            return 0;
    }
    const int64_t v = (int64_t[]){256, 257, 65536, 65537}[which];
    const int s_axis = l == FZ_BNSD ? 2 : 1;
    for (int k = 0; k < 4; k++) {
        fia_tensor_spec *sp = &c->tensors[qkvo[k]];
        if (sp->presence != FIA_PRESENT)
            continue;
        if (which < 2)
            sp->t[0].shape[0] = v;                 /* B */
        else if (k == 1 || k == 2)
            sp->t[0].shape[s_axis] = v;            /* the key/value's S */
    }
    return 1;
}

void fz_params_product(fz_gen *g)
{
    if (!fz_bytes_rare(g->f, 6))
        return;
    /* a strict input moves only a call the card takes that 001 expresses
     * as it is (stripping a scale or a length could break it) */
    if (g->strict &&
        (!card_takes(g->c) ||
         !fia_case_expressible(g->c, FIA_API_INCRE_FLASH_ATTENTION, NULL, 0)))
        return;
    if (to_card(g->c, !g->strict) && fz_odd(g, 25))
        card_edge(g->c, fz_bytes_pick(g->f, 4));
}

/* fuzz_numeric's geometry within the card's limits (the reach plans go
 * beyond them: a live-rows key of millions of rows). */
static int within_card(const fz_gen *g)
{
    return g->B <= 256 && g->Q_S <= 65536 && g->KV_S <= 65536;
}

void fz_numeric_product(fz_gen *g)
{
    /* the metamorphic target's base consumes nothing here: its transform
     * reads the bytes after the case */
    if (g->meta || !fz_bytes_rare(g->f, 6) || !card_takes(g->c) || !within_card(g))
        return;
    to_card(g->c, 0); /* a valid case 001 can express as it is, or none */
}
