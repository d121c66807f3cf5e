/* fuzz_numeric's and fuzz_metamorphic's decoder: bytes -> a case the rules
 * accept, mostly small, regularly shaped past one of fast/'s path
 * thresholds (fz_numeric_layout_reach), with data from distributions that break
 * kernels (gen_tensors_data.c).
 *
 * The decoder is its list of fragments (fuzz/gen.h, one gen_<feature>.c
 * each), applied in the order the bytes are consumed. */
#include <stdio.h>
#include <string.h>
#include "fuzz/gen.h"

static const fz_fragment numeric_fragments[] = {
    {FIA_FEATURE_LAYOUT, fz_numeric_layout},
    {FIA_FEATURE_LAYOUT, fz_numeric_layout_reach},
    {FIA_FEATURE_TENSORS, fz_numeric_tensors_dtype},
    {FIA_FEATURE_LAYOUT, fz_numeric_layout_batch},
    {FIA_FEATURE_GQA, fz_numeric_gqa_heads},
    {FIA_FEATURE_LAYOUT, fz_numeric_layout_dims},
    {FIA_FEATURE_TENSORS, fz_numeric_tensors_qkv},
    {FIA_FEATURE_LAYOUT, fz_numeric_layout_heads},
    {FIA_FEATURE_GQA, fz_numeric_gqa_attr},
    {FIA_FEATURE_SCALE, fz_numeric_scale_default},
    {FIA_FEATURE_SPARSE, fz_numeric_sparse_mode},
    {FIA_FEATURE_PRECISE, fz_numeric_precise},
    {FIA_FEATURE_LSE, fz_numeric_lse},
    {FIA_FEATURE_SEQLEN, fz_numeric_seqlen},
    {FIA_FEATURE_MASK, fz_numeric_mask_shape},
    {FIA_FEATURE_SPARSE, fz_numeric_sparse_tokens},
    {FIA_FEATURE_MASK, fz_numeric_mask_dtype},
    {FIA_FEATURE_TENSORS, fz_numeric_tensors_data_seed},
    {FIA_FEATURE_MASK, fz_numeric_mask_values},
    {FIA_FEATURE_TENSORS, fz_numeric_tensors_data},
    {FIA_FEATURE_SCALE, fz_numeric_scale},
    {FIA_FEATURE_LAYOUT, fz_numeric_layout_run},
    {FIA_FEATURE_PAGED, fz_numeric_paged},
    {FIA_FEATURE_TENSOR_LIST, fz_numeric_tensor_list},
    {FIA_FEATURE_TND, fz_numeric_tnd},
    {FIA_FEATURE_PADDING, fz_numeric_padding},
    {FIA_FEATURE_PREFIX, fz_numeric_prefix},
    {FIA_FEATURE_PSE, fz_numeric_pse},
    {FIA_FEATURE_ANTIQUANT, fz_numeric_antiquant},
    {FIA_FEATURE_INT8_OUT, fz_numeric_int8_out},
    {FIA_FEATURE_INT8_QUANT, fz_numeric_int8_quant},
    {FIA_FEATURE_MLA, fz_numeric_mla},
    {FIA_FEATURE_SINK, fz_numeric_sink},
    {FIA_FEATURE_PRODUCT, fz_numeric_product},
};

/* The focus of fuzz_numeric's decoder (fuzz_numeric_focus). */
static fz_focus numeric_focus = FZ_FOCUS_NONE;

static const struct {
    const char *tag;
    fz_focus f;
} focus_tags[] = {{"int8kv", FZ_FOCUS_INT8KV},
                  {"int4kv", FZ_FOCUS_INT4KV},
                  {"int8out", FZ_FOCUS_INT8OUT},
                  {"int8q", FZ_FOCUS_INT8Q}};

int fuzz_numeric_focus(const char *tag)
{
    numeric_focus = FZ_FOCUS_NONE;
    for (size_t i = 0; tag && i < sizeof focus_tags / sizeof focus_tags[0]; i++)
        if (strcmp(tag, focus_tags[i].tag) == 0) {
            numeric_focus = focus_tags[i].f;
            return 1;
        }
    return 0;
}

const char *fuzz_numeric_focus_tag(void)
{
    for (size_t i = 0; i < sizeof focus_tags / sizeof focus_tags[0]; i++)
        if (focus_tags[i].f == numeric_focus)
            return focus_tags[i].tag;
    return NULL;
}

/* Shared by numeric and metamorphic: a valid small case.  meta: keep
 * row-invalid correction on in prefill (fully masked rows defined), and
 * sequence-length arrays of length 1 more often. */
static fia_status small_case(fz_bytes *f, fia_case *c, int meta, fz_gen *g,
                             fz_focus focus)
{
    fia_case_init(c);
    memset(g, 0, sizeof *g);
    g->focus = focus;
    g->f = f;
    g->c = c;
    g->meta = meta;
    snprintf(c->name, sizeof c->name, meta ? "fuzz_metamorphic" : "fuzz_numeric");
    c->seed = fz_bytes_u8(f);
    g->qs1 = fz_bytes_chance(f, 30);
    fz_gen_apply(g, numeric_fragments, FZ_ARRLEN(numeric_fragments));
    return g->status;
}

fia_status fuzz_decode_numeric(const uint8_t *data, size_t size, fia_case *c)
{
    fz_bytes f;
    fz_gen g;
    fz_bytes_init(&f, data, size);
    return small_case(&f, c, 0, &g, numeric_focus);
}

/* The transforms that apply to c (at most one per kind); returns how many
 * were written to opts. */
static int applicable_transforms(const fia_case *c, const fz_geom *g, int to,
                                 char opts[][32])
{
    int n = 0;
    for (int k = 0; k < 4; k++) {
        int l = (to + k) % 4;
        if ((fz_layout)l != g->layout && !(l == FZ_BNSD_BSND && g->Q_S == 1)) {
            snprintf(opts[n++], 32, "layout=%s", fz_layout_name((fz_layout)l));
            break;
        }
    }
    if (g->KV_N != g->N)
        snprintf(opts[n++], 32, "mha");
    for (int a = 0; a < 2; a++)
        if (g->B > 1 && c->arrays[a].presence == FIA_PRESENT &&
            c->arrays[a].count == 1) {
            snprintf(opts[n++], 32, "seqlen-expand");
            break;
        }
    int64_t sm = c->attrs.sparse_mode;
    if (g->Q_S > 1 && c->tensors[FIA_SLOT_ATTEN_MASK].presence == FIA_PRESENT &&
        (sm >= 2 || (sm == 0 && c->attr_given[FIA_ATTR_PRE_TOKENS])))
        snprintf(opts[n++], 32, "sparse-to-mask=%d", to & 1);
    /* the same keys behind a block table: block sizes around fast/'s key
     * block (decode takes any multiple of 16, prefill multiples of 128) */
    if (c->tensors[FIA_SLOT_BLOCK_TABLE].presence != FIA_PRESENT) {
        int bs = g->Q_S == 1 ? (int[]){16, 32, 48, 64, 128, 80}[to % 6]
                             : (int[]){128, 128, 128, 256}[to & 3];
        int rank = (g->layout == FZ_BNSD || g->layout == FZ_BNSD_BSND) &&
                   (to & 8) ? 4 : 3;
        snprintf(opts[n++], 32, "paged=%d,%d,%d", bs, rank, to);
    }
    /* the same keys as a tensor per batch */
    if (g->B >= 2 && c->tensors[FIA_SLOT_BLOCK_TABLE].presence != FIA_PRESENT)
        snprintf(opts[n++], 32, "list=%d", to);
    /* the rows packed as a token layout (bf16 only: fz_tnd_case) */
    if (fz_tnd_applies(c, g, 1))
        snprintf(opts[n++], 32, "tnd=%d", to);
    return n;
}

/* The left-padded form's arguments "pad=<p_q>,<p_kv>,<seed>" (meta_padding.c)
 * from 5 bytes: the scenes (both, query, kv; decode: kv), p_q 0..7, p_kv
 * 0..7 or 0..130 (past fast/'s key block), the seed (zeros written
 * negative, extra rows). */
static void pad_transform(fz_bytes *f, const fz_geom *g, char *transform,
                          size_t tlen)
{
    int scene = fz_bytes_pick(f, 3);
    long long p_q = fz_bytes_range(f, 0, 7);
    long long p_kv = fz_bytes_bool(f) ? fz_bytes_range(f, 0, 130) : fz_bytes_range(f, 0, 7);
    unsigned seed = fz_bytes_u8(f);
    if (g->Q_S == 1 || scene == 2)
        p_q = -1;
    if (g->Q_S > 1 && scene == 1)
        p_kv = -1;
    snprintf(transform, tlen, "pad=%lld,%lld,%u", p_q, p_kv, seed);
}

/* The prefix and pse relations (meta_prefix.c, meta_pse.c), the kind
 * from `which` and the next ones when it does not apply: prefix=<P>,<seed>
 * with the base's batches made to share their first P rows, pse-zero=, or
 * pse-mask= with the base's excluded non-finite keys made 0.  0 when none
 * applies (c unchanged). */
static int prefix_pse_transform(fia_case *c, const fz_geom *g, int which,
                                unsigned seed, int64_t plen,
                                char *transform, size_t tlen,
                                fia_status *st)
{
    int64_t most = g->KV_S; /* the fewest keys of a batch */
    for (int64_t b = 0; b < g->B; b++) {
        int64_t kl = fz_kv_len(c, g, b);
        most = kl < most ? kl : most;
    }
    for (int k = 0; k < 3; k++) {
        switch ((which + k) % 3) {
        case 0: {
            const int64_t P = most >= 1 ? 1 + plen % most : 0;
            if (P < 1 || !fz_prefix_applies(c, g, P))
                break;
            fia_status s = fz_prefix_share(c, g, P);
            if (s != FIA_OK) {
                *st = *st == FIA_OK && s == FIA_ERR_NOMEM ? s : *st;
                break;
            }
            snprintf(transform, tlen, "prefix=%lld,%u", (long long)P, seed);
            return 1;
        }
        case 1:
            if (!fz_pse_applies(c, g, 0))
                break;
            snprintf(transform, tlen, "pse-zero=%u", seed);
            return 1;
        default:
            if (!fz_pse_applies(c, g, 1))
                break;
            fia_status s = fz_pse_mask_clean(c, g);
            if (s != FIA_OK) {
                *st = *st == FIA_OK && s == FIA_ERR_NOMEM ? s : *st;
                break;
            }
            snprintf(transform, tlen, "pse-mask=%u", seed);
            return 1;
        }
    }
    return 0;
}

/* The transform of the base c (st its decoder's status), from the bytes
 * after the case's. */
static fia_status transform_of(fz_bytes *f, fia_case *c, int pick, int to,
                               fia_status st, char *transform, size_t tlen)
{
    fz_geom g;
    char opts[8][32];
    int n;
    /* the left-padded form, from bytes after the case's: a zero byte (a
     * stored seed run out) keeps the pick below, so stored seeds keep
     * their transform */
    const int pad = fz_bytes_rare(f, 20);
    /* a live-rows case's data follows its layout's offsets: a transform
     * would give the second form other data (and copy GiB) */
    /* an MLA base (fz_numeric_mla: paged, zero ropes) has its own relations:
     * zero ropes against the call without them, or (a byte after the
     * pad's: a zero keeps stored seeds on zero-rope) its heads reversed
     * with ropes made non-zero in both forms */
    if (fz_mla_zero_rope_applies(c)) {
        if (fz_bytes_rare(f, 40) && fz_mla_heads_rev_applies(c)) {
            fz_case_gen(c, FIA_SLOT_QUERY_ROPE, FIA_GEN_UNIFORM, -1.0, 1.0);
            fz_case_gen(c, FIA_SLOT_KEY_ROPE, FIA_GEN_UNIFORM, -1.0, 1.0);
            snprintf(transform, tlen, "mla-heads-rev");
            return st;
        }
        snprintf(transform, tlen, "mla-zero-rope");
        return st;
    }
    if (c->live_rows || fz_geom_of(c, &g) != 0) {
        snprintf(transform, tlen, "none");
        return st;
    }
    if (pad && fz_pad_applies(c, &g)) {
        pad_transform(f, &g, transform, tlen);
        return st;
    }
    /* the prefix and pse relations, from the bytes after those: a zero
     * byte keeps the pick below */
    const int pp = fz_bytes_rare(f, 30);
    const int which = fz_bytes_pick(f, 3);
    const unsigned seed = fz_bytes_u8(f);
    const int64_t plen = fz_bytes_range(f, 0, 255);
    if (pp && prefix_pse_transform(c, &g, which, seed, plen, transform, tlen,
                                   &st))
        return st;
    if ((n = applicable_transforms(c, &g, to, opts)) == 0) {
        snprintf(transform, tlen, "none");
        return st;
    }
    snprintf(transform, tlen, "%s", opts[pick % n]);
    return st;
}

fia_status fuzz_decode_metamorphic(const uint8_t *data, size_t size,
                                   fia_case *c, char *transform, size_t tlen)
{
    fz_bytes f;
    fz_gen g;
    fz_bytes_init(&f, data, size);
    int pick = fz_bytes_u8(&f), to = fz_bytes_u8(&f);
    fia_status st = small_case(&f, c, 1, &g, FZ_FOCUS_NONE);
    st = transform_of(&f, c, pick, to, st, transform, tlen);
    /* the base quantized (fz_numeric_antiquant_meta), from bytes after all those
     * (a stored seed run out keeps its transform): it takes the antiquant
     * relation only, the others would have to carry its scales along */
    fz_numeric_antiquant_meta(&g);
    st = st == FIA_OK ? g.status : st;
    if (fz_antiquant_in_use(c)) {
        fz_geom geom;
        if (fz_geom_of(c, &geom) == 0 && fz_antiquant_applies(c, &geom))
            snprintf(transform, tlen, "antiquant=%d", to);
        else
            snprintf(transform, tlen, "none");
    }
    /* now and then the call written through another interface instead
     * (meta_api.c), from bytes after all those: a stored seed run out
     * keeps its transform */
    if (fz_bytes_rare(&f, 10)) {
        fia_api a = (fia_api)(1 + fz_bytes_pick(&f, FIA_API_COUNT - 1));
        if (st == FIA_OK && !c->live_rows &&
            fia_case_expressible(c, a, NULL, 0))
            snprintf(transform, tlen, "api=%s", fia_api_name(a));
    }
    return st;
}
