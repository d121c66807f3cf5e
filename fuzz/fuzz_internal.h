/* fuzz/: helpers shared by the decoders, the metamorphic relation and the
 * minimizer (not part of the public fuzz.h). */
#ifndef FIA_FUZZ_INTERNAL_H
#define FIA_FUZZ_INTERNAL_H

#include "fia/error.h"
#include "fuzz/fuzz.h"

/* Case building.  Each setter replaces what the slot held; the fallible
 * ones return FIA_OK or FIA_ERR_NOMEM (the slot is then left absent and the
 * case valid to free). */
fia_status fz_case_tensor(fia_case *c, fia_slot s, fia_dtype dt, int ndim,
                     const int64_t *shape);
fia_status fz_case_tensor_list(fia_case *c, fia_slot s, int count, fia_dtype dt,
                          int ndim, const int64_t *shape);
void fz_case_null(fia_case *c, fia_slot s);
void fz_case_absent(fia_case *c, fia_slot s);
/* Takes ownership of values (n elements). */
void fz_case_values(fia_case *c, fia_slot s, double *values, int64_t n);
void fz_case_gen(fia_case *c, fia_slot s, fia_gen_kind k, double a, double b);
fia_status fz_case_array(fia_case *c, fia_array a, int64_t count,
                    const int64_t *v);
void fz_case_array_null(fia_case *c, fia_array a);
void fz_case_array_absent(fia_case *c, fia_array a);
void fz_case_attr(fia_case *c, fia_attr a, int64_t v);   /* integer attributes */
void fz_case_scale(fia_case *c, double scale);
void fz_case_layout(fia_case *c, const char *layout);
void fz_case_lse_flag(fia_case *c, int on);

/* Logical geometry of a case whose layout is one of the four documented
 * ones and whose query/key/value shapes follow it. */
typedef enum fz_layout { FZ_BSH, FZ_BSND, FZ_BNSD, FZ_BNSD_BSND, FZ_OTHER } fz_layout;
fz_layout fz_layout_of(const char *name);
const char *fz_layout_name(fz_layout l);

typedef struct fz_geom {
    fz_layout layout;
    int64_t B, N, KV_N, Q_S, KV_S, D;
    int paged;          /* fz_geom_of_call: key/value are a paged cache */
    int list;           /* fz_geom_of_call: key/value are tensor lists */
    /* fz_geom_of_call: a token layout (TND, NTD, TND_NTD, NTD_TND): B the
     * lengths' count, Q_S / KV_S the longest batch, D value's head dim,
     * T the query's tokens; batch b's row s is token asl[b - 1] + s of an
     * output [T, N, D] or, o_ntd, [N, T, D] (fz_out_index) */
    int tnd, o_ntd;
    int64_t T;
    /* fz_geom_of_call: the left-padding scenes (docs/features/padding.md)
     * and the padding values read from the case's data, a value below 0 as
     * 0 and one past S as S + 1 (every start < 0): query row s < q_len[b]
     * of batch b is physical row Q_S - p_q - q_len[b] + s (fz_out_index) */
    int qpad, kvpad;
    int64_t p_q, p_kv;
    /* fz_geom_of / fz_geom_of_call: the shared prefix's length P read
     * (docs/features/prefix.md: actual_shared_prefix_len[0] within [0,
     * S_p] when given, else S_p; 0 without both prefix tensors): batch b
     * reads P + kv_len[b] keys, own key j at logical (and pse) column P + j;
     * the outputs do not move */
    int64_t P;
} fz_geom;

/* 0 when the case's query/key/value agree with its layout and attributes
 * (single tensors, key == value shape); -1 otherwise. */
int fz_geom_of(const fia_case *c, fz_geom *g);
/* fz_geom_of, or for a paged call (a block_table: key and value are a
 * cache, not the layout's) or a list call (a tensor per batch) the query's
 * geometry with KV_S the table's reach (columns x block_size) or the
 * longest tensor's S, and paged or list set: enough to read its outputs. */
int fz_geom_of_call(const fia_case *c, fz_geom *g);
/* Shape of a tensor of (b, n, s, d) in layout l (BSH folds N*D). */
int fz_shape(fz_layout l, int64_t B, int64_t N, int64_t S, int64_t D,
             int64_t *shape);
/* Flat index of element (b, n, s, d) in layout l. */
int64_t fz_index(fz_layout l, int64_t B, int64_t N, int64_t S, int64_t D,
                 int64_t b, int64_t n, int64_t s, int64_t d);
/* Output layout of an input layout (BNSD_BSND -> BSND). */
fz_layout fz_out_layout(fz_layout l);
/* Flat index of element (b, n, s, d) of c's attention_out (geometry g of
 * fz_geom_of_call, a token layout's too): row s of batch b at its physical
 * row under a query left-padding scene; -1 for a row a token layout's
 * batch does not have, or a padded batch's row s >= q_len or of a start
 * < 0 (unspecified). */
int64_t fz_out_index(const fia_case *c, const fz_geom *g, int64_t b,
                     int64_t n, int64_t s, int64_t d);
/* The same for row (b, n, s) of its softmax_lse ([B, N, Q_S, 1], a token
 * layout's (T, N, 1)). */
int64_t fz_lse_index(const fia_case *c, const fz_geom *g, int64_t b,
                     int64_t n, int64_t s);

/* Per-batch effective lengths as docs/features/seqlen.md defines them. */
int64_t fz_q_len(const fia_case *c, const fz_geom *g, int64_t b);
int64_t fz_kv_len(const fia_case *c, const fz_geom *g, int64_t b);

/* The data of a slot as doubles (materialized from the case's generators)
 * into *out (the caller frees it), *n its count.  FIA_ERR_BAD_INPUT when
 * the slot is absent or its data cannot be made (too large), NOMEM. */
fia_status fz_slot_data(const fia_case *c, fia_slot s, double **out,
                        int64_t *n, fia_error *err);

/* ---- metamorphic transforms (meta_<feature>.c, listed in meta.c) -------- */
/* Rewrites the copy *out of c (geometry g) into the equivalent form; arg is
 * the text after the transform's name.  FIA_ERR_BAD_INPUT (err may stay
 * empty) when the transform does not apply to c, NOMEM. */
typedef fia_status (*fz_meta_fn)(const fia_case *c, const fz_geom *g,
                                 const char *arg, fia_case *out,
                                 fia_error *err);
fia_status fz_meta_layout(const fia_case *, const fz_geom *, const char *,
                          fia_case *, fia_error *);
fia_status fz_meta_mha(const fia_case *, const fz_geom *, const char *,
                       fia_case *, fia_error *);
fia_status fz_meta_seqlen_expand(const fia_case *, const fz_geom *,
                                 const char *, fia_case *, fia_error *);
fia_status fz_meta_paged(const fia_case *, const fz_geom *, const char *,
                         fia_case *, fia_error *);
fia_status fz_meta_tensor_list(const fia_case *, const fz_geom *,
                               const char *, fia_case *, fia_error *);
/* *out (a copy of c, geometry g, 2 <= B <= 256) with key and value as lists
 * of B tensors of batch 1, tensor b of S_b = KV_S + 0..3 rows (the extras
 * NaN, beyond the lengths, which are then written out) from seed
 * (meta_tensor_list.c). */
fia_status fz_list_case(const fia_case *c, const fz_geom *g, uint64_t seed,
                        fia_case *out, fia_error *err);
/* *out (a copy of c, geometry g, B <= FZ_NUM_MAX_B) with key and value as a
 * page-attention cache of block_size bs (rank 4 when cache4d and the layout
 * is BNSD, else 3) behind a block table shuffled from seed (share: the last
 * batch's first block is the first batch's), actual_seq_lengths_kv given,
 * the mask widened to the paged KV_S (meta_paged.c). */
fia_status fz_page_case(const fia_case *c, const fz_geom *g, int64_t bs,
                        int cache4d, uint64_t seed, int share, fia_case *out,
                        fia_error *err);
fia_status fz_meta_tnd(const fia_case *, const fz_geom *, const char *,
                       fia_case *, fia_error *);
/* *out (a copy of c, geometry g) as the token layout TND or NTD_TND (seed
 * bit 0), the rows each batch reads packed, the lengths cumulative, D
 * padded to 128 or 192.  exact: only where the form is equivalent (bf16,
 * sparse 0 without mask or 3 with q_len < kv_len); else the mask is dropped
 * and the data rounded to bf16.  FIA_ERR_BAD_INPUT when it has no such
 * form, NOMEM. */
fia_status fz_tnd_case(const fia_case *c, const fz_geom *g, uint64_t seed,
                       int exact, fia_case *out, fia_error *err);
/* 1 when fz_tnd_case(c, g, ., exact) applies. */
int fz_tnd_applies(const fia_case *c, const fz_geom *g, int exact);
/* The reference's work of that form (as fia_check_reference_work counts). */
double fz_tnd_work(const fia_case *c, const fz_geom *g);
/* *out (a copy of c, geometry g: one of the four layouts, contiguous,
 * not live_rows, no other optional input but the mask) as its left-padded
 * equivalent (meta_padding.c): query_padding_size p_q (Q_S > 1 only) and
 * kv_padding_size p_kv, each not given when below 0, with the lengths they
 * need; Q_S and KV_S grown so the rows fit right-aligned before p rows
 * (plus extra rows, and 0..3 more key rows from the seed); the rows moved
 * there, every other row NaN; the mask moved likewise (per batch; mode 0's
 * pre/next band folded in).  extra < 0: the scene's axes are |extra| rows
 * short, so the batches of the longest length start below 0 (their rows
 * not placed).  seed bits 0 / 1: a zero p_q / p_kv written as a negative
 * value (bits 2-3: -1, -2..-256, INT64_MIN, -(S + 1)).  FIA_ERR_BAD_INPUT
 * when c has no such form or no scene is asked for, NOMEM. */
fia_status fz_pad_case(const fia_case *c, const fz_geom *g, int64_t p_q,
                       int64_t p_kv, int64_t extra, uint64_t seed,
                       fia_case *out, fia_error *err);
/* 1 when fz_pad_case applies to c (geometry g of fz_geom_of). */
int fz_pad_applies(const fia_case *c, const fz_geom *g);
fia_status fz_meta_padding(const fia_case *, const fz_geom *, const char *,
                           fia_case *, fia_error *);
/* ---- the shared prefix (meta_prefix.c) ---- */
/* 1 when fz_prefix_case(c, g, P, ...) applies: one of the four layouts,
 * contiguous, no padding, page table, prefix or input but the mask, pse
 * and outputs; every batch with at least P keys; at Q_S = 1 no mask. */
int fz_prefix_applies(const fia_case *c, const fz_geom *g, int64_t P);
/* *out (a copy of c, geometry g of fz_geom_of) with the first P key/value
 * rows of batch src in key_shared_prefix / value_shared_prefix of S_p = P
 * + 0..3 rows (the extras NaN; actual_shared_prefix_len [P] given then),
 * every batch's own rows shifted by P (KV_S' = KV_S - P + 0..3 rows, the
 * extras NaN), actual_seq_lengths_kv - P, the mask's and pse's columns
 * unchanged (column j' = j; widened, masked / NaN, to P + KV_S').  seed:
 * bit 0 the length given even when S_p, bits 1-2 S_p's extra rows, bits
 * 3-4 the own extra rows, bit 5 the lengths written out, bits 8.. src
 * (when not same).  same: src 0 and every batch's first P rows must equal
 * batch 0's (the relation), else FIA_ERR_BAD_INPUT. */
fia_status fz_prefix_case(const fia_case *c, const fz_geom *g, int64_t P,
                          uint64_t seed, int same, fia_case *out,
                          fia_error *err);
/* c's batches' first P key/value rows made batch 0's (in place), so that
 * the prefix= relation applies; FIA_OK, NOMEM or BAD_INPUT. */
fia_status fz_prefix_share(fia_case *c, const fz_geom *g, int64_t P);
fia_status fz_meta_prefix(const fia_case *, const fz_geom *, const char *,
                          fia_case *, fia_error *);

/* ---- pse_shift (meta_pse.c) ---- */
/* A pse value for batch b, head n, logical query row i, logical key j (a
 * prefix's keys first). */
typedef double (*fz_pse_fn)(void *ctx, int64_t b, int64_t n, int64_t i,
                            int64_t j);
/* Batch b's rows and keys in a call of geometry g (fz_geom_of_call): ql
 * query rows from physical row qst, kl = P + kv_len logical keys from
 * physical column kst (a list's tensor S when it has no lengths); qst or
 * kst -1 when the batch starts below 0 (left padding). */
void fz_batch_place(const fia_case *c, const fz_geom *g, int64_t b,
                    int64_t *ql, int64_t *kl, int64_t *qst, int64_t *kst);
/* The values of a pse of shape sh (batch 1 or B) for c: every position a
 * row reads (batch b, head n, row i < ql at physical row qst + i, or 0 at
 * Q_S = 1, logical key j < kl at column kst + j) fn's value, every other
 * position `unread`.  *out (sh's element count) the caller frees; NOMEM. */
fia_status fz_pse_values(const fia_case *c, const fz_geom *g,
                         const int64_t sh[4], fz_pse_fn fn, void *ctx,
                         double unread, double **out);
/* Which logical keys c's full mask (sparse 0 / 1 at Q_S > 1, any at Q_S =
 * 1; read at the physical positions) and mode 0's pre/next band exclude:
 * [B][rows][g->P + g->KV_S], rows Q_S (1 at Q_S = 1), 1 excluded.  *out
 * NULL (FIA_OK) when c has no full mask; NOMEM, BAD_INPUT. */
fia_status fz_excluded_keys(const fia_case *c, const fz_geom *g,
                            uint8_t **out);
fia_status fz_meta_pse_zero(const fia_case *, const fz_geom *, const char *,
                            fia_case *, fia_error *);
fia_status fz_meta_pse_mask(const fia_case *, const fz_geom *, const char *,
                            fia_case *, fia_error *);
/* 1 when pse-zero= (mask 0) or pse-mask= (mask 1) applies to c. */
int fz_pse_applies(const fia_case *c, const fz_geom *g, int mask);
/* pse-mask=: the rows of c (geometry g) whose two forms the documents let
 * differ marked in unspec (BNSD elements) and lunspec ((b, n, i), logical
 * row i < q_len at stride g->Q_S): rows
 * with no key the mask admits (corrected 0 against NaN), and rows with a
 * key the mask excludes holding a non-finite key or value (never read
 * against read with weight 0).  FIA_OK or NOMEM. */
fia_status fz_pse_mask_unspecified(const fia_case *c, const fz_geom *g,
                                   uint8_t *unspec, uint8_t *lunspec);
/* c's keys that its mask excludes from some row and that hold a non-finite
 * key or value set to 0 (in place), so that pse-mask= compares them;
 * FIA_OK, NOMEM or BAD_INPUT. */
fia_status fz_pse_mask_clean(fia_case *c, const fz_geom *g);

fia_status fz_meta_sparse_to_mask(const fia_case *, const fz_geom *,
                                  const char *, fia_case *, fia_error *);
/* q/k/v of c permuted into layout l2, K/V heads repeated when mha. */
fia_status fz_meta_relayout(const fia_case *c, const fz_geom *g,
                            fz_layout l2, int mha, fia_case *out,
                            fia_error *err);

/* ---- antiquant (gen_antiquant.c, meta_antiquant.c) ---- */
/* What one scale element covers (docs/features/antiquant.md's table):
 * per-tensor, per-channel, per-token, per-head (separate mode 2),
 * per-token per-head (3), page-managed per-token (4) and per head (5). */
typedef enum fz_aq_form {
    FZ_AQ_TENSOR, FZ_AQ_CHANNEL, FZ_AQ_TOKEN, FZ_AQ_HEAD, FZ_AQ_TOKEN_HEAD,
    FZ_AQ_PAGE_TOKEN, FZ_AQ_PAGE_TOKEN_HEAD, FZ_AQ_FORM_COUNT
} fz_aq_form;
/* The shape of a scale of form f into sh (rank returned): lead 2 for the
 * combined set, 1 for the separate one at Q_S = 1, 0 at Q_S > 1 (no
 * leading dim: (N,1,D), (N,D), (H), (B,S), and 003's forms with it); var
 * picks among the per-channel shapes (3 with a lead, 6 without); S the
 * per-token S'; blocknum and bs the cache's (page forms). */
int fz_aq_shape(fz_aq_form f, int lead, int var, int64_t B, int64_t N,
                int64_t D, int64_t S, int64_t blocknum, int64_t bs,
                int64_t *sh);
/* The six tensors of the two sets, in fz_aq_slot's order. */
enum { FZ_AQ_COMB_SCALE, FZ_AQ_COMB_OFF, FZ_AQ_KEY_SCALE, FZ_AQ_KEY_OFF,
       FZ_AQ_VAL_SCALE, FZ_AQ_VAL_OFF, FZ_AQ_NT };
extern const fia_slot fz_aq_slot[FZ_AQ_NT];
/* A scale or offset tensor to write (on: present). */
typedef struct fz_aq_tensor {
    int on;
    fia_dtype dt;
    int nd;
    int64_t sh[4];
} fz_aq_tensor;
/* The dtype of form f's scale under a query of dtype qdt. */
fia_dtype fz_aq_scale_dtype(fz_aq_form f, fia_dtype qdt);
/* 1 for int4 and its int32 packing. */
int fz_aq_int4(fia_dtype dt);
/* Every tensor of slot s (a list's too) to dtype dt; int32 packs eight
 * int4: its last dim / 8 (times 8 back from int32). */
void fz_aq_set_kv_dtype(fia_case *c, fia_slot s, fia_dtype dt);
/* The key S a per-token scale must cover (ANTI-023): a page table's
 * columns x block_size, a list's longest tensor, else kv_s. */
int64_t fz_aq_token_s(const fia_case *c, int64_t kv_s);
/* The break the last fz_params_antiquant_scene made, -1 for a valid scene (the
 * tests read it). */
extern int fz_aq_params_break;
/* The rule break brk breaks and the profile whose catalogue fires it;
 * NULL past the table. */
const char *fz_aq_break_rule(int brk, fia_profile *profile);
/* The rule MLA full quantization's break brk (1.., gen_mla.c) breaks;
 * NULL for none or past its table. */
const char *fz_mla_query_quant_break_rule(int brk);
/* The form of separate mode m (-1 when none); per_tensor: mode 0's scale
 * has one element. */
int fz_aq_form_of_mode(int64_t m, int per_tensor);
/* 1 when c is the antiquant scene: a single int8 / int4 / int32 key and
 * an fp16 / bf16 query. */
int fz_antiquant_in_use(const fia_case *c);
/* 1 when antiquant= applies to c (geometry g): the scene, contiguous
 * (no block table, list or padding), no mode 4 / 5. */
int fz_antiquant_applies(const fia_case *c, const fz_geom *g);
fia_status fz_meta_antiquant(const fia_case *, const fz_geom *, const char *,
                             fia_case *, fia_error *);
/* ---- interfaces (meta_api.c): "api=<name>", the call written through
 * another interface's names and read back ---- */
/* meta_mla.c: an MLA base with const(0) ropes (fz_numeric_mla under the
 * metamorphic target) and its relation to the call without them. */
/* mla-heads-rev: an MLA call of BSH / BSND / BNSD whose heads the
 * transform reverses (query and query_rope, rope D FZ_MLA_ROPE_D). */
#define FZ_MLA_ROPE_D 64
int fz_mla_heads_rev_applies(const fia_case *c);
fia_status fz_meta_mla_heads_rev(const fia_case *, const fz_geom *,
                                 const char *, fia_case *, fia_error *);
int fz_mla_zero_rope_applies(const fia_case *c);
fia_status fz_meta_mla_zero_rope(const fia_case *, const fz_geom *,
                                 const char *, fia_case *, fia_error *);
fia_status fz_meta_api(const fia_case *, const fz_geom *, const char *,
                       fia_case *, fia_error *);

/* ---- the engine's guidance by rule outcomes (guide.c) ---- */
typedef enum fz_outcome {
    FZ_OUTCOME_FIRED,  /* broken (a NORMALIZE row: it applies) */
    FZ_OUTCOME_ALONE,  /* the one rule deciding the call (fia_oracle_sole_rule) */
    FZ_OUTCOME_OBEYED, /* applies and holds */
    FZ_N_OUTCOMES
} fz_outcome;
/* Marks the outcomes of verdict v (profile p) in the engine's extra
 * counters, which the engine clears before each input. */
void fz_guide_verdict(const fia_oracle_verdict *v, fia_profile p);
/* 1 when outcome o of rule r in profile p is marked (tests). */
int fz_guide_marked(fia_profile p, const fia_rule *r, fz_outcome o);
/* Clears every mark, as the engine does before an input (tests). */
void fz_guide_clear(void);

#endif
