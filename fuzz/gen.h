/* fuzz/: the generator fragments the decoders are composed of.
 *
 * A decoder (decode_params.c, decode_numeric.c) is a list of fragments
 * applied in order to one fz_gen.  A fragment owns one feature's part of the
 * case (the file gen_<feature>.c, with the feature's name from
 * include/fia/feature.h) and has one contract:
 *
 *   given the path and the geometry chosen so far (the fields of g set by
 *   the fragments before it), consume the bytes it needs from g->f and set
 *   its feature's attributes, arrays and tensors in g->c, and the fields of
 *   g it is documented to set for the fragments after it.
 *
 * A fragment never fails on any input: the bytes decide, an exhausted input
 * reads as zeros and gives the plainest choice.  A case builder that runs
 * out of memory leaves its slot as it was (the case stays valid to free);
 * the fragment records that in g->status (fz_note), which the decoder
 * returns.
 *
 * The order of the list is the order the bytes are consumed in, so it is
 * part of the corpus format: moving, adding or removing a fragment that
 * consumes bytes re-maps every stored seed (corpus/fuzz_*) to another case.
 * A new feature appends its fragment at the end of a list, where a stored
 * seed has mostly run out of bytes: reading a zero as "off" (fz_odd,
 * fz_bytes_rare; not fz_bytes_chance, which reads a zero as "yes") keeps such seeds
 * what they were; tests/test_fuzz_corpus_decode.c tells.  Some features have
 * several fragments, where their bytes were interleaved with others' (the
 * layout's dims around the GQA heads, the mask's shape and dtype around the
 * sparse window). */
#ifndef FIA_FUZZ_GEN_H
#define FIA_FUZZ_GEN_H

#include "fia/feature.h"
#include "fuzz/bytes.h"
#include "fuzz/fuzz_internal.h"

#define FZ_ARRLEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* fuzz_numeric's geometry ranges: its mask-pattern bookkeeping is sized by
 * them.  Most cases are small (B <= 3, KV_S <= 20); the reach plans
 * (fz_numeric_layout_reach) go beyond fast/'s path thresholds, up to these.  The
 * left-padded form (fz_numeric_padding, made last) grows Q_S and KV_S past them
 * by its padding rows. */
#define FZ_NUM_MAX_B 4
#define FZ_NUM_MAX_KV_S 1024
#define FZ_NUM_MAX_D 160
/* The largest reference work of a generated case (rows x keys x 2D,
 * fia_check_reference_work): the escalating reference does it in a few
 * milliseconds in double, the MPFR fallback in a fraction of a second. */
#define FZ_NUM_MAX_WORK 1e6
/* An MLA case's (gen_mla.c): its rows are D + Dr + Dv = 1088 products
 * wide and at least 32 of them share each key, so reaching fast/'s key
 * blocks and split decode takes ~100x a plain case's budget (~50 ms in
 * the reference); they are rare (fz_numeric_mla's gate). */
#define FZ_MLA_MAX_WORK 2e7
/* The budget of generated case c: FZ_MLA_MAX_WORK with rope inputs, else
 * FZ_NUM_MAX_WORK. */
static inline double fz_work_limit(const fia_case *c)
{
    return c->tensors[FIA_SLOT_QUERY_ROPE].presence == FIA_PRESENT
               ? FZ_MLA_MAX_WORK : FZ_NUM_MAX_WORK;
}
/* The most query rows of a case whose scores sit at a mask sentinel
 * (gen_tensors_data.c): the reference escalates each such row. */
#define FZ_SENTINEL_MAX_ROWS 16

/* What a fuzz_numeric case is shaped to reach in fast/ (fast/'s
 * thresholds: fastPathThresholds). */
typedef enum fz_reach {
    FZ_REACH_SMALL = 0,  /* today's small cases: one block, one task */
    FZ_REACH_TAIL,       /* keys past one key block, ragged tails */
    FZ_REACH_ROWS,       /* query rows past the dot form and past one task */
    FZ_REACH_SPLIT,      /* decode keys split across threads and merged */
    FZ_REACH_DTAIL,      /* D not a multiple of the micro-kernel tile */
    FZ_REACH_HUGE,       /* prefill K/V past 2^32 elements, a few live rows
                            (data = live_rows): 64-bit offsets */
    FZ_REACH_COUNT
} fz_reach;

/* A quantization mode fuzz_numeric makes wherever it applies instead of
 * now and then (a survey's --only: many cases of one mode).  The bytes read
 * are the same, only the gate differs, so a focused stream is as
 * reproducible as any. */
typedef enum fz_focus {
    FZ_FOCUS_NONE = 0,
    FZ_FOCUS_INT8KV,    /* antiquant, int8 key/value */
    FZ_FOCUS_INT4KV,    /* antiquant, int4 (or int32-packed) key/value */
    FZ_FOCUS_INT8OUT,   /* an int8 attention_out */
    FZ_FOCUS_INT8Q      /* full int8 */
} fz_focus;

/* The rare gate of a fragment: pct % of the time, always under focus f. */
#define FZ_GATE(g, f, pct) ((g)->focus == (f) ? 100 : (pct))

typedef struct fz_gen {
    fz_bytes *f;             /* the fuzzer's bytes, consumed front to back */
    fia_case *c;        /* the case being built */
    fia_status status;  /* FIA_OK, or the first builder failure (NOMEM) */

    /* the path, set by the decoder before the first fragment */
    int strict;         /* params: no deliberate break (decode_params.c) */
    int meta;           /* numeric: the metamorphic target's base case */
    int qs1;            /* the decode path: Q_S = 1 */
    fz_reach reach;     /* numeric: the path the shapes aim at */
    fz_focus focus;     /* numeric: a mode made always where it applies
                           (fuzz_numeric_focus; FZ_FOCUS_NONE in campaigns) */

    /* geometry: layout, tensors, gqa */
    fz_layout L;        /* the layout the shapes follow (BSH.. for odd names) */
    fia_dtype qdt, kvdt;
    int64_t B, N, KV_N, Q_S, KV_S, D;

    /* params: query/key/value shapes (tensors), key/value list length
     * (tensor_list), before the tensors are made */
    int qnd, knd, vnd, kv_count;
    int64_t qsh[FIA_MAX_RANK], ksh[FIA_MAX_RANK], vsh[FIA_MAX_RANK];

    int64_t sparse;     /* sparse_mode as set (0 when not given) */

    /* numeric: the mask's shape (mnd 0: no mask), whether it has a batch
     * axis, its rows and columns; the keys masked in every row of a batch */
    int mnd, mask_b;
    int64_t mrows, mcols, msh[4];
    uint8_t masked_col[FZ_NUM_MAX_B][FZ_NUM_MAX_KV_S];

    /* numeric: the bulk data's generator and the scale its distribution
     * asks for */
    fuzz_rng rng;
    double scale;
    int vkind;          /* the distribution fz_numeric_tensors_data chose */

    /* params: an int8-output scene was made (fz_params_int8_out_scene), which
     * the full-int8 scene after it leaves alone */
    int out8;
} fz_gen;

typedef void (*fz_fragment_fn)(fz_gen *g);

typedef struct fz_fragment {
    fia_feature feature;   /* the feature whose part this is */
    fz_fragment_fn apply;
} fz_fragment;

/* Applies the fragments in order. */
static inline void fz_gen_apply(fz_gen *g, const fz_fragment *list, int n)
{
    for (int i = 0; i < n; i++)
        list[i].apply(g);
}

/* Records a builder's status (the first failure is kept). */
static inline void fz_note(fz_gen *g, fia_status st)
{
    if (g->status == FIA_OK)
        g->status = st;
}

/* params: a deliberate break with probability pct %, never when strict
 * (the byte is consumed either way, so one input decodes stably). */
static inline int fz_odd(fz_gen *g, int pct)
{
    int r = fz_bytes_rare(g->f, pct);
    return g->strict ? 0 : r;
}

/* params: a weighted choice whose first n_valid options are the valid ones
 * (a strict input folds the others onto them). */
static inline int fz_wpick(fz_gen *g, const int *w, int n, int n_valid)
{
    int r = fz_bytes_weighted(g->f, w, n);
    return g->strict && r >= n_valid ? r % n_valid : r;
}

/* params: a sequence-length array a (present with probability pct %): a
 * length around B, values around S. */
void fz_params_seq_array(fz_gen *g, fia_array a, int pct, int64_t S);

/* ---- fuzz_params' fragments (bytes -> any call, biased to edges) -------- */
void fz_params_layout(fz_gen *g);           /* layout name; L */
void fz_params_tensors_dtype(fz_gen *g);    /* qdt, kvdt */
void fz_params_layout_dims(fz_gen *g);      /* B, N, D */
void fz_params_gqa_heads(fz_gen *g);        /* KV_N (and N at the edges) */
void fz_params_layout_seq(fz_gen *g);       /* Q_S, KV_S */
void fz_params_tensors_shapes(fz_gen *g);   /* qsh, ksh, vsh, off by one now and then */
void fz_params_tensor_list(fz_gen *g);      /* kv_count */
void fz_params_tensors_qkv(fz_gen *g);      /* query, key, value */
void fz_params_layout_heads(fz_gen *g);     /* num_heads */
void fz_params_gqa_attr(fz_gen *g);         /* num_key_value_heads */
void fz_params_sparse_mode(fz_gen *g);      /* sparse_mode; sparse */
void fz_params_sparse_tokens(fz_gen *g);    /* pre_tokens, next_tokens */
void fz_params_precise(fz_gen *g);          /* inner_precise */
void fz_params_scale(fz_gen *g);            /* scale */
void fz_params_paged(fz_gen *g);            /* block_size */
void fz_params_antiquant(fz_gen *g);        /* (key_/value_)antiquant_mode */
void fz_params_query_quant(fz_gen *g);      /* query_quant_mode */
void fz_params_mask(fz_gen *g);             /* atten_mask */
void fz_params_seqlen(fz_gen *g);           /* actual_seq_lengths(_kv) */
void fz_params_prefix(fz_gen *g);           /* actual_shared_prefix_len */
void fz_params_lse(fz_gen *g);              /* softmax_lse_flag, softmax_lse */
void fz_params_output(fz_gen *g);           /* attention_out */
void fz_params_tensors_optional(fz_gen *g); /* one not-modeled optional tensor */
void fz_params_paged_cache(fz_gen *g);      /* key/value as a paged cache, block_table */
void fz_params_tensor_list_shapes(fz_gen *g); /* key/value as B tensors of batch 1 */
void fz_params_tnd(fz_gen *g);              /* a token-layout call, now and then */
void fz_params_padding(fz_gen *g);          /* a left-padding scene and an exclusion */
void fz_params_padding_scene(fz_gen *g);    /* valid scenes, ignored and empty padding */
void fz_params_pse(fz_gen *g);              /* pse_shift for the path, a rule broken */
void fz_params_prefix_tensors(fz_gen *g);   /* prefix tensors like the key, a rule broken */
void fz_params_antiquant_scene(fz_gen *g);  /* an antiquant scene, a rule broken */
void fz_params_int8_out_scene(fz_gen *g);   /* an int8 output, an OQ rule broken */
void fz_params_int8_quant_scene(fz_gen *g); /* full int8, a Q8 rule broken */
void fz_params_mla(fz_gen *g);              /* an MLA call, now and then, a rule broken */
void fz_params_sink(fz_gen *g);             /* a learnable_sink, a rule broken now and then */
void fz_params_product(fz_gen *g);          /* the call on 001's inference card, now and then */

/* ---- fuzz_numeric's fragments (a small case the rules accept) ----------- */
void fz_numeric_layout(fz_gen *g);           /* layout; L */
void fz_numeric_layout_reach(fz_gen *g);     /* reach */
void fz_numeric_tensors_dtype(fz_gen *g);    /* qdt = kvdt */
void fz_numeric_layout_batch(fz_gen *g);     /* B */
void fz_numeric_gqa_heads(fz_gen *g);        /* KV_N, N */
void fz_numeric_layout_dims(fz_gen *g);      /* D, Q_S, KV_S */
void fz_numeric_tensors_qkv(fz_gen *g);      /* query, key, value (shapes only) */
void fz_numeric_layout_heads(fz_gen *g);     /* num_heads */
void fz_numeric_gqa_attr(fz_gen *g);         /* num_key_value_heads */
void fz_numeric_scale_default(fz_gen *g);    /* scale = 1/sqrt(D) */
void fz_numeric_sparse_mode(fz_gen *g);      /* sparse_mode; sparse */
void fz_numeric_precise(fz_gen *g);          /* inner_precise */
void fz_numeric_lse(fz_gen *g);              /* softmax_lse_flag */
void fz_numeric_seqlen(fz_gen *g);           /* actual_seq_lengths(_kv) */
void fz_numeric_mask_shape(fz_gen *g);       /* mnd, msh, mask_b, mrows, mcols */
void fz_numeric_sparse_tokens(fz_gen *g);    /* pre_tokens, next_tokens */
void fz_numeric_mask_dtype(fz_gen *g);       /* atten_mask */
void fz_numeric_tensors_data_seed(fz_gen *g);/* rng */
void fz_numeric_mask_values(fz_gen *g);      /* atten_mask data; masked_col */
void fz_numeric_tensors_data(fz_gen *g);     /* query, key, value data; scale */
void fz_numeric_scale(fz_gen *g);            /* scale, as the data asks, or odd */
void fz_numeric_layout_run(fz_gen *g);       /* threads, kernel_level (reach) */
void fz_numeric_paged(fz_gen *g);            /* the keys as a paged cache, now and then */
void fz_numeric_tensor_list(fz_gen *g);      /* the keys as a tensor per batch, now and then */
void fz_numeric_tnd(fz_gen *g);              /* the case packed as TND / NTD_TND, now and then */
void fz_numeric_padding(fz_gen *g);          /* the case left-padded, now and then */
void fz_numeric_prefix(fz_gen *g);           /* a shared prefix, now and then */
void fz_numeric_pse(fz_gen *g);              /* a pse_shift, now and then */
void fz_numeric_antiquant(fz_gen *g);        /* key/value quantized, now and then */
void fz_numeric_int8_out(fz_gen *g);         /* the output quantized, now and then */
void fz_numeric_int8_quant(fz_gen *g);       /* query, key, value int8, now and then */
void fz_numeric_mla(fz_gen *g);              /* an MLA call instead, now and then */
void fz_numeric_sink(fz_gen *g);             /* a learnable_sink, now and then */
void fz_numeric_product(fz_gen *g);          /* the call on 001's inference card, now and then */
/* fuzz_metamorphic: its base quantized now and then (the decoder calls
 * it after the transform's bytes, exact dequantized values). */
void fz_numeric_antiquant_meta(fz_gen *g);

/* fuzz_numeric: key (role 1) or value (role 2) values [B, H, S, D] in the
 * layout g->L from the distribution g->vkind with the generator g->rng
 * (gen_tensors_data.c); NULL out of memory. */
double *fz_numeric_data_values(fz_gen *g, int role, int64_t B, int64_t H,
                        int64_t S);

/* ---- the int8 output and full int8 (gen_int8_out.c, gen_int8_quant.c) -- */
/* quant_scale2's forms: per-tensor [1], per-channel [H], [1,1,H], [N,D],
 * [1,N,1,D], [1,1,N,D] (H = N * D). */
enum { FZ_OQ_TENSOR, FZ_OQ_H, FZ_OQ_11H, FZ_OQ_ND, FZ_OQ_1N1D, FZ_OQ_11ND,
       FZ_OQ_FORM_COUNT };
/* The shape of form `form` into sh (rank returned). */
int fz_oq_shape(int form, int64_t N, int64_t D, int64_t *sh);
/* quant_scale2 / quant_offset2 to write: present, form and dtype. */
typedef struct fz_oq_scene {
    int scale, offset;
    int form, oform;
    fia_dtype dt, odt;
    int64_t N, D;
} fz_oq_scene;
/* Writes s's quant_scale2 and quant_offset2 (absent when not present). */
void fz_oq_write(fz_gen *g, const fz_oq_scene *s);
/* The values of s's quant_scale2 and quant_offset2 (written by
 * fz_oq_write): scales sized so that outputs of magnitude up to mag cross
 * the int8 range and some saturate; offsets of kind okind (0 none, 1 small
 * integers, 2 eighths, 3 odd halves: ties on exact rows). */
#define FZ_OQ_OFFSET_KINDS 4
fia_status fz_oq_fill(fz_gen *g, const fz_oq_scene *s, int okind,
                      fuzz_rng *r, double mag);
/* 1 when c (geometry g) leaves rows uncomputed that a quant_offset2 would
 * still fill at Q_S > 1 (OQ-009's conditions). */
int fz_oq_uncomputed(const fia_case *c, const fz_geom *g);
/* The rule the last fz_params_int8_out_scene broke (OQ-(k + 1)) and the last
 * fz_params_int8_quant_scene (Q8-(k + 1), 8: ANTI-027), -1 for a valid scene
 * (the tests read them). */
extern int fz_oq_params_break, fz_int8_quant_params_break;

#endif
