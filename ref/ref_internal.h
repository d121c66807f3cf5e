/* ref/ internals, shared only between the files of ref/.
 *
 * ref/ is two halves that meet at one row:
 *
 *   the READING (ref_problem.c and one file per feature of fia/feature.h:
 *   read_tensors.c, read_not_modeled.c, read_layout.c, read_gqa.c,
 *   read_output.c, read_scale.c, read_precise.c, read_lse.c, read_seqlen.c,
 *   read_padding.c, read_prefix.c, read_pse.c, read_antiquant.c, read_mla.c,
 *   keys_mask.c, keys_sparse.c; the walk over the rows, ref_rows.c) turns a case into
 *   rows: where each element lives, which keys take part in each row, each
 *   key's positional bias, what the documents say of a row with none;
 *
 *   the MATH CORE (ref_attention.c, ref_double.c, ref_exact.c, ref_round.c)
 *   sees only "a row": its query vector, its key set, their value rows and
 *   biases, the scale, the output format.  It evaluates scores, softmax,
 *   output and lse, refines with Ziv's strategy and rounds correctly; it
 *   knows nothing of layouts, masks, sparse modes or lengths.
 *
 * A new feature is a new reading file and one line in a list of
 * ref_problem.c (the reading steps, the key rules, the correction rules);
 * the math core does not change. */
#ifndef FIA_REF_INTERNAL_H
#define FIA_REF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <mpfr.h>
#include "fia/case.h"
#include "fia/error.h"
#include "fia/ref.h"
#include "fia/status.h"

/* ======================================================================
 * The reading: the case as the reference reads it (docs/semantics.md)
 * ====================================================================== */

typedef enum ref_layout {
    REF_LAYOUT_BSH = 0,
    REF_LAYOUT_BSND,
    REF_LAYOUT_BNSD,
    REF_LAYOUT_BNSD_BSND
} ref_layout;

/* antiquant (read_antiquant.c): what one scale / offset element covers
 * (docs/features/antiquant.md "Modes") */
typedef enum ref_aq_form {
    REF_AQ_TENSOR = 0,   /* [base] */
    REF_AQ_CHANNEL,      /* [base + n D + d] */
    REF_AQ_TOKEN,        /* [base + b cols + s] */
    REF_AQ_HEAD,         /* [base + n] */
    REF_AQ_TOKEN_HEAD,   /* [base + (b KV_N + n) cols + s] */
    REF_AQ_PAGE,         /* [base + id cols + slot] */
    REF_AQ_PAGE_HEAD     /* [base + (id KV_N + n) cols + slot] */
} ref_aq_form;

typedef struct ref_aq {
    const fia_tensor *scale, *offset; /* offset NULL: 0 (symmetric) */
    ref_aq_form form;
    int64_t base;        /* combined set: index 0 key, 1 value */
    int64_t cols;        /* S' (token forms), block_size (page forms) */
} ref_aq;

typedef struct ref_problem {
    /* tensors (read_tensors.c) */
    const fia_tensor *q, *k, *v;
    fia_dtype in_dtype;           /* query dtype */
    /* antiquant (read_tensors.c: the scene; read_antiquant.c: the rest):
     * int8 / int4 / int32-packed key and value read through
     * x = (x_int + offset) * scale, aq[0] the key's, aq[1] the value's;
     * kv_pack 8 for int32 (eight int4 per element), else 1 */
    int aq;
    fia_dtype kv_dtype;
    int kv_pack;
    ref_aq aqp[2];
    int aq_unmodeled;             /* an offset the permitted algorithm's
                                     dtype cannot hold: bounds infinite */
    /* full int8 (read_tensors.c: the scene; read_int8_quant.c: the
     * scales): int8 query, key and value; dequant_scale1, quant_scale1,
     * dequant_scale2 as the values the computation uses */
    int int8_quant;
    double int8_quant_ds1, int8_quant_qs1, int8_quant_ds2;
    /* query_quant (read_tensors.c: the scene; read_query_quant.c: the
     * scales): MLA's full quantization, an int8 query, key and value with
     * bf16 ropes (003 D = 512 "支持全量化场景").  Its rows are read
     * dequantized, exactly in binary64 (an int8 times an fp32 is at most
     * 8 + 24 significant bits): q = q_int8 * dequant_scale_query[token,
     * head] (ref_query_quant_q_scale), k = k_int8 * query_quant_dsk,
     * v = v_int8 * query_quant_dsv; in_dtype is bf16, the dtype P is
     * rounded to (docs/tolerance.md "MLA full quantization");
     * query_quant_unmodeled: a scale the float32 model does not cover
     * (bounds infinite) */
    int query_quant, query_quant_unmodeled;
    const fia_tensor *query_quant_dsq;
    double query_quant_dsk, query_quant_dsv;
    int empty_query;              /* query numel 0: nothing to compute */
    /* layout (read_layout.c): the query's (and key's) layout; o_nbsd, an
     * *_NBSD output (BSH_NBSD, BSND_NBSD, BNSD_NBSD: the query in the
     * layout before '_', attention_out [N, B, Q_S, D]) */
    ref_layout layout;
    int o_nbsd;
    int64_t B, Q_S, KV_S, D;
    /* value's and attention_out's head dim (read_layout.c, read_tnd.c):
     * D everywhere but 003's token layouts, where value may be narrower
     * than query and key (TND 192/128) and attention_out has value's D
     * (003 §返回值说明).  The score still runs over the D (+ Dr) columns of
     * query and key; P.V and the output over Dv. */
    int64_t Dv;
    int decode;                   /* Q_S == 1 (and no rope: read_mla.c) */
    /* mla (read_mla.c): query_rope / key_rope (NULL without), laid out
     * like query / key with head dim Dr (0 without); the score's dot runs
     * over Dk = D + Dr columns, [q | q_rope] . [k | k_rope] */
    const fia_tensor *qr, *kr;
    int64_t Dr;
    /* gqa (read_gqa.c) */
    int64_t N, KV_N, group;       /* group = N / KV_N */
    /* output (read_output.c) */
    const fia_tensor *out_t;      /* the case's attention_out descriptor */
    fia_dtype out_dtype;
    /* int8 output (read_int8_out.c): y = sat(round(x * qs + qo)), qs / qo
     * per-tensor ([0]) or per-channel ([n * D + d]); oq_offset NULL: 0 */
    const fia_tensor *oq_scale, *oq_offset;
    int oq_per_channel;
    /* scale (read_scale.c) */
    double scale;
    /* sparse (keys_sparse.c) */
    int64_t sparse_mode;          /* as given; ignored when decode */
    int64_t pre, next;            /* clamped to +-2^42 */
    /* precise (read_precise.c) */
    int row_invalid;              /* inner_precise bit 1 */
    int round_p;                  /* the permitted algorithm rounds P to the
                                     input dtype before P.V: bf16 always,
                                     fp16 when inner_precise bit 0 is set */
    /* lse (read_lse.c) */
    int has_lse;
    int32_t lse_ndim;
    int64_t lse_shape[FIA_MAX_RANK];
    /* paged (read_paged.c): key and value are caches of blocks of
     * block_size rows, (blocknum, block_size, KV_N*D) or, cache4d,
     * (blocknum, KV_N, block_size, D) or, cachenz, the NZ format
     * (blocknum, KV_N, D/16, block_size, 16); key j of batch b is row j %
     * block_size of block bt[b * bt_cols + j / block_size] */
    int paged, cache4d, cachenz;
    int64_t nz_tile;              /* the NZ key/value tiles' width: 16
                                     (fp16 / bf16), 32 (int8: full
                                     quantization); key_rope's is 16 */
    const int32_t *bt;
    int64_t bt_cols, block_size, blocknum;
    /* tensor_list (read_tensor_list.c): key/value as lists of B tensors
     * [1, S_b, ...] in the layout; batch b's rows in klist[b] / vlist[b],
     * its S list_s[b] (owned); KV_S the largest */
    int kv_list;
    int32_t list_n;
    const fia_tensor *klist, *vlist;
    int64_t *list_s;
    /* tnd (read_tnd.c): a token layout, query [T, N, D] or, q_ntd,
     * [N, T, D] (key/value alike with T_kv), out [T, N, D] or, o_ntd,
     * [N, T, D]; batch b's row i is token q_tok[b] + i, key j token
     * kv_tok[b] + j (owned); rows only for i < q_len[b] */
    int tnd, q_ntd, o_ntd;
    int64_t T, T_kv;
    int64_t *q_tok, *kv_tok;
    /* seqlen (read_seqlen.c; read_tnd.c for a token layout) */
    int64_t *q_len, *kv_len;      /* per batch, owned; kv_len the batch's
                                     own keys (a prefix: ref_kv_len) */
    /* padding (read_padding.c): the left-padding scenes, decided by the
     * tensors' presence; batch b's row i < q_len[b] is physical row
     * q_start[b] + i of query, attention_out and softmax_lse, its key j
     * physical row kv_start[b] + j of key and value (owned; NULL without
     * the scene); start_neg[b]: a start below 0 (owned; NULL without a
     * scene), the batch's starts are then 0 and nothing is computed */
    int q_pad, kv_pad;
    int64_t *q_start, *kv_start;
    uint8_t *start_neg;
    /* prefix (read_prefix.c): key_shared_prefix / value_shared_prefix (NULL
     * without them), S_p rows read like a key of batch 1; P the length
     * used.  Batch b reads kv_len'[b] = P + kv_len[b] logical keys
     * (ref_kv_len): key j < P is prefix row j, key P + j its own key j */
    const fia_tensor *kp, *vp;
    int64_t S_p, P;
    /* mask (keys_mask.c; NULL when absent, empty or not read): element
     * (b, i, j) at b * mask_bstride + i * mask_cols + j */
    const fia_tensor *mask;
    int64_t mask_bstride, mask_cols;
    /* pse (read_pse.c; NULL when absent or empty): the bias of key j in
     * row i of batch b, head n, is element b * pse_bstride + n *
     * pse_nstride + r * pse_cols + c with r, c the physical row and column
     * (ref_load_pse_row); pse_bstride 0 for a pse of batch 1 */
    const fia_tensor *pse;
    int64_t pse_bstride, pse_nstride, pse_cols;
    /* sink (read_sink.c; NULL without): learnable_sink, bf16 [N]; query
     * head n's rows have one virtual key of score sink[n] (not scaled) and
     * value 0 */
    const fia_tensor *sink;
} ref_problem;

/* Every dim below 2^40 keeps all index arithmetic far from int64 overflow;
 * pre/next are clamped to 4 times that (a prefix's keys and the own keys:
 * logical keys below 2^41; keys_sparse.c). */
#define REF_DIM_LIMIT ((int64_t)1 << 40)

/* ---- ref_problem.c: the lists ------------------------------------------ */

/* Reads the case by running the reading steps in order (the first that
 * fails names the error).  FIA_OK, FIA_ERR_NOT_MODELED,
 * FIA_ERR_PARAM_INVALID or FIA_ERR_NOMEM, with the message in *err. */
fia_status ref_problem_init(ref_problem *p, const fia_case *c,
                            const fia_case_data *d, fia_error *err);
void ref_problem_free(ref_problem *p);

/* 1 when key j takes part in row i of batch b (i < q_len[b]): every key
 * rule admits it. */
int ref_key_takes_part(const ref_problem *p, int64_t b, int64_t i, int64_t j);
/* The most keys any row can read: the largest kv_len' (the prefix's P
 * included; at least 1).  Per-row
 * buffers are sized by it, not by KV_S: a case may hold GiB of rows no row
 * reads (docs/case-format.md "data = live_rows"). */
int64_t ref_max_kv_len(const ref_problem *p);
/* 1 when a fully masked row of batch b gets row-invalid correction (output
 * 0, lse +inf): some correction rule applies. */
int ref_row_corrected(const ref_problem *p, int64_t b);

/* One reading step: fills its fields of *p.  A step that finds nothing left
 * to read (an empty query) sets p->empty_query: the steps after it are not
 * run. */
typedef fia_status (*ref_read_step)(ref_problem *p, const fia_case *c,
                                    const fia_case_data *d, fia_error *err);
/* One key rule: 1 when it lets key j take part in row i of batch b. */
typedef int (*ref_key_rule)(const ref_problem *p, int64_t b, int64_t i,
                            int64_t j);

/* ---- read_tensors.c ---------------------------------------------------- */

/* The slot's tensor when the call passes one; an empty (numel 0) mask,
 * pse or padding tensor counts as absent. */
int ref_slot_given(const fia_case_data *d, fia_slot s);
fia_status ref_read_tensors_required(ref_problem *p, const fia_case *c,
                                     const fia_case_data *d, fia_error *err);
fia_status ref_read_tensors_empty(ref_problem *p, const fia_case *c,
                                  const fia_case_data *d, fia_error *err);
fia_status ref_read_tensors_dtypes(ref_problem *p, const fia_case *c,
                                   const fia_case_data *d, fia_error *err);
fia_status ref_read_tensors_data(ref_problem *p, const fia_case *c,
                                 const fia_case_data *d, fia_error *err);
typedef struct ref_value_range ref_value_range;

/* ---- read_not_modeled.c ------------------------------------------------ */

fia_status ref_read_not_modeled(ref_problem *p, const fia_case *c,
                                const fia_case_data *d, fia_error *err);

/* ---- read_layout.c: where element (b, n, s, d) lives -------------------- */

fia_status ref_read_layout_name(ref_problem *p, const fia_case *c,
                                const fia_case_data *d, fia_error *err);
fia_status ref_read_layout_dims(ref_problem *p, const fia_case *c,
                                const fia_case_data *d, fia_error *err);
/* 1 when t has rank nd and those dims. */
int ref_shape_is(const fia_tensor *t, int nd, const int64_t *dims);
/* Flat element indices: query / key (value) of head dim D; _w the same
 * layouts for a tensor of head dim W (the rope inputs, Dr). */
int64_t ref_q_index(const ref_problem *p, int64_t b, int64_t n, int64_t i,
                    int64_t dd);
int64_t ref_kv_index(const ref_problem *p, int64_t b, int64_t kn, int64_t j,
                     int64_t dd);
/* value's element: head dim Dv (below D in the token layouts' 192/128) */
int64_t ref_v_index(const ref_problem *p, int64_t b, int64_t kn, int64_t j,
                    int64_t dd);
int64_t ref_q_index_w(const ref_problem *p, int64_t b, int64_t n, int64_t i,
                      int64_t dd, int64_t W);
int64_t ref_kv_index_w(const ref_problem *p, int64_t b, int64_t kn,
                       int64_t j, int64_t dd, int64_t W);
int64_t ref_out_index(const ref_problem *p, int64_t b, int64_t n, int64_t i,
                      int64_t dd);
/* The exact values of query row (b, n, i) into q[D + Dr] (its query_rope
 * row after the D: read_mla.c). */
void ref_load_q_row(const ref_problem *p, int64_t b, int64_t n, int64_t i,
                    double *q);
/* The exact key and value rows of logical keys j < nkeys (the prefix's
 * then the batch's own, read_prefix.c) of KV head kn of batch b into
 * k[j][D + Dr] (key_rope's row after the D: read_mla.c), v[j][D].  A
 * dequantized element (antiquant) may need more than
 * 53 bits: its value is k + klo exactly (k the nearest binary64); klo /
 * vlo (NULL without antiquant) get the rest.  Returns 1 when some rest is
 * nonzero. */
int ref_load_kv_rows(const ref_problem *p, int64_t b, int64_t kn,
                     int64_t nkeys, double *k, double *v, double *klo,
                     double *vlo);
/* The key tensor's head dim from its last dim (x8 for int32 packing). */
int64_t ref_kv_last_dim(const ref_problem *p, const fia_tensor *t);

/* ---- read_gqa.c -------------------------------------------------------- */

fia_status ref_read_gqa(ref_problem *p, const fia_case *c,
                        const fia_case_data *d, fia_error *err);
/* The KV head query head n reads. */
int64_t ref_kv_head(const ref_problem *p, int64_t n);

/* ---- read_output.c ----------------------------------------------------- */

fia_status ref_read_output_dtype(ref_problem *p, const fia_case *c,
                                 const fia_case_data *d, fia_error *err);
fia_status ref_read_output_shape(ref_problem *p, const fia_case *c,
                                 const fia_case_data *d, fia_error *err);

/* ---- read_int8_out.c --------------------------------------------------- */

fia_status ref_read_int8_out(ref_problem *p, const fia_case *c,
                             const fia_case_data *d, fia_error *err);
/* The int8 output of column (n, d) for the exact x and its bound b
 * (docs/features/int8_out.md): *bits the int8 (round half to even,
 * saturated), *exact y = x * qs + qo, *bound its bound before rounding to
 * an integer (> 0: ties may round either way); 1 when y is unspecified
 * (x NaN). */
int ref_int8_out(const ref_problem *p, int64_t n, int64_t d, double x,
                 double b, uint32_t *bits, double *exact, double *bound);

/* ---- read_int8_quant.c ------------------------------------------------- */

fia_status ref_read_int8_quant(ref_problem *p, const fia_case *c,
                               const fia_case_data *d, fia_error *err);

/* ---- read_query_quant.c ------------------------------------------------- */

/* MLA full quantization (p->query_quant): dequant_scale_query, the per-tensor
 * key and value scales, the modes; refuses what the reading cannot read. */
fia_status ref_read_query_quant(ref_problem *p, const fia_case *c,
                                const fia_case_data *d, fia_error *err);
/* The scale of query row (b, n, i) (the token (b, i), head n). */
double ref_query_quant_q_scale(const ref_problem *p, int64_t b, int64_t n,
                               int64_t i);

/* ---- read_scale.c ------------------------------------------------------ */

fia_status ref_read_scale(ref_problem *p, const fia_case *c,
                          const fia_case_data *d, fia_error *err);

/* ---- keys_sparse.c ----------------------------------------------------- */

fia_status ref_read_sparse(ref_problem *p, const fia_case *c,
                           const fia_case_data *d, fia_error *err);
int ref_sparse_admits(const ref_problem *p, int64_t b, int64_t i, int64_t j);
/* Sparse mode 3 with q_len > kv_len': the operator corrects by itself. */
int ref_sparse_corrects(const ref_problem *p, int64_t b);

/* ---- read_precise.c ---------------------------------------------------- */

fia_status ref_read_precise(ref_problem *p, const fia_case *c,
                            const fia_case_data *d, fia_error *err);
/* inner_precise bit 1: row-invalid correction asked for. */
int ref_precise_corrects(const ref_problem *p, int64_t b);

/* ---- read_lse.c -------------------------------------------------------- */

fia_status ref_read_lse(ref_problem *p, const fia_case *c,
                        const fia_case_data *d, fia_error *err);
int64_t ref_lse_index(const ref_problem *p, int64_t b, int64_t n, int64_t i);

/* ---- read_paged.c -------------------------------------------------------- */

/* Before the layout's dims: a block_table makes the call paged (the cache's
 * rank, block_size, the table). */
fia_status ref_read_paged(ref_problem *p, const fia_case *c,
                          const fia_case_data *d, fia_error *err);
/* For ref_read_layout_dims: the cache's head dim into *kd (checked against
 * KV_N), blocknum, and KV_S as the table's reach (cols x block_size) until
 * the lengths are read. */
fia_status ref_paged_key_dims(ref_problem *p, int64_t *kd, fia_error *err);
/* After the lengths: KV_S = the longest batch's blocks x block_size, the
 * table's rows and every id a batch reads checked (an id outside the cache
 * makes the result unspecified: FIA_ERR_PARAM_INVALID, nothing computed). */
fia_status ref_read_paged_blocks(ref_problem *p, const fia_case *c,
                                 const fia_case_data *d, fia_error *err);
/* Flat index of element (b, kn, j, dd) in a cache of head dim W (ids
 * checked): D for key / value, Dr for key_rope; an NZ cache's tiles are
 * `tile` wide (p->nz_tile for key / value, 16 for key_rope). */
int64_t ref_paged_kv_index(const ref_problem *p, int64_t b, int64_t kn,
                           int64_t j, int64_t dd, int64_t W, int64_t tile);

/* ---- read_tensor_list.c -------------------------------------------------- */

/* Before the layout's dims: lists of several tensors make a list call. */
fia_status ref_read_tensor_list(ref_problem *p, const fia_case *c,
                                const fia_case_data *d, fia_error *err);
/* For ref_read_layout_dims: every tensor's shape (batch 1, KV_N, D into
 * *kd), its S, and KV_S the largest. */
fia_status ref_list_key_dims(ref_problem *p, int64_t *kd, fia_error *err);
/* After the lengths: batch b's kv length defaults to its own S and is at
 * most it. */
fia_status ref_read_tensor_list_lengths(ref_problem *p, const fia_case *c,
                                        const fia_case_data *d,
                                        fia_error *err);
/* The tensors batch b's key and value rows are read from. */
const fia_tensor *ref_k_tensor(const ref_problem *p, int64_t b);
const fia_tensor *ref_v_tensor(const ref_problem *p, int64_t b);

/* ---- read_tnd.c ---------------------------------------------------------- */

/* FIA_OK and the token layout's flags when layout is one (no message). */
fia_status ref_read_tnd_name(ref_problem *p, const char *layout);
/* For ref_read_layout_dims: T, T_kv, D, and from the cumulative length
 * arrays B, q_len / kv_len, q_tok / kv_tok, Q_S and KV_S. */
fia_status ref_read_tnd_dims(ref_problem *p, const fia_case *c,
                             const fia_case_data *d, fia_error *err);
/* Head dim W: D, or Dr for the rope inputs. */
int64_t ref_tnd_q_index(const ref_problem *p, int64_t b, int64_t n,
                        int64_t i, int64_t dd, int64_t W);
int64_t ref_tnd_kv_index(const ref_problem *p, int64_t b, int64_t kn,
                         int64_t j, int64_t dd, int64_t W);
int64_t ref_tnd_out_index(const ref_problem *p, int64_t b, int64_t n,
                          int64_t i, int64_t dd);

/* ---- read_seqlen.c ----------------------------------------------------- */

fia_status ref_read_seqlen(ref_problem *p, const fia_case *c,
                           const fia_case_data *d, fia_error *err);
/* Logical key j lies within batch b's kv_len' (prefix included). */
int ref_seqlen_admits(const ref_problem *p, int64_t b, int64_t i, int64_t j);

/* ---- read_mla.c --------------------------------------------------------- */

/* After the layout's dims: query_rope / key_rope, Dr, their shapes checked
 * against the query's / key's (FIA_ERR_PARAM_INVALID), the combinations
 * not modeled refused (FIA_ERR_NOT_MODELED); a rope call is never the
 * decode path's. */
fia_status ref_read_mla(ref_problem *p, const fia_case *c,
                        const fia_case_data *d, fia_error *err);

/* ---- read_sink.c -------------------------------------------------------- */

/* After read_mla: learnable_sink, bf16 [N] (else FIA_ERR_PARAM_INVALID),
 * refused as not modeled with 002's full int8 (an int8 query without rope);
 * with MLA and its full quantization it is read like any call's. */
fia_status ref_read_sink(ref_problem *p, const fia_case *c,
                         const fia_case_data *d, fia_error *err);
/* Query head n's sink value (exact: bf16 in binary64). */
double ref_sink_value(const ref_problem *p, int64_t n);

/* ---- read_padding.c ---------------------------------------------------- */

/* After the layout's dims: which left-padding scenes the call is (query,
 * kv), refusing the one not modeled (a kv scene with a key/value list at
 * Q_S > 1) and page attention with a scene at Q_S > 1. */
fia_status ref_read_padding_scene(ref_problem *p, const fia_case *c,
                                  const fia_case_data *d, fia_error *err);
/* After the lengths: the padding values, q_start / kv_start / start_neg. */
fia_status ref_read_padding(ref_problem *p, const fia_case *c,
                            const fia_case_data *d, fia_error *err);
/* 1 in a left-padding scene (query or kv), whatever the values. */
int ref_pad_scene(const ref_problem *p);
/* The physical S row of batch b's row i (any i < Q_S): q_start[b] + i for
 * i < q_len[b], the rows outside that segment for the others (each
 * physical row exactly once). */
int64_t ref_pad_q_row(const ref_problem *p, int64_t b, int64_t i);
/* The physical S row of batch b's key j < kv_len[b]. */
int64_t ref_pad_kv_row(const ref_problem *p, int64_t b, int64_t j);
/* 1 when batch b's query or kv start is below 0. */
int ref_pad_start_neg(const ref_problem *p, int64_t b);

/* ---- read_antiquant.c --------------------------------------------------- */

/* After the padding starts: the scale / offset tensors of key and value,
 * their forms, and the refusals (inconsistent shapes: FIA_ERR_PARAM_INVALID;
 * what docs/features/antiquant.md leaves not modeled: FIA_ERR_NOT_MODELED). */
fia_status ref_read_antiquant(ref_problem *p, const fia_case *c,
                              const fia_case_data *d, fia_error *err);
/* Element (b, kn, j, dd) of key (which 0) or value (1), j the batch's own
 * key j < kv_len[b], dequantized: *hi + *lo exactly, *hi the nearest
 * binary64 (non-finite scale or offset: the IEEE value, *lo 0). */
void ref_aq_load(const ref_problem *p, int which, int64_t b, int64_t kn,
                 int64_t j, int64_t dd, double *hi, double *lo);
/* The integer element idx of an int8 / int4 / int32-packed tensor. */
int ref_aq_int(fia_dtype dt, const void *data, int64_t idx);

/* ---- read_prefix.c ----------------------------------------------------- */

/* After the values: the prefix tensors, P, and the refusal of a prefix with
 * a mask at Q_S = 1. */
fia_status ref_read_prefix(ref_problem *p, const fia_case *c,
                           const fia_case_data *d, fia_error *err);
/* kv_len'[b]: the logical keys batch b reads, the prefix's P then its own
 * kv_len[b].  Every key rule and the walk read this, not kv_len. */
int64_t ref_kv_len(const ref_problem *p, int64_t b);
/* Flat index of element (kn, j, dd) (j < S_p) of a prefix tensor. */
int64_t ref_prefix_index(const ref_problem *p, int64_t kn, int64_t j,
                         int64_t dd);

/* ---- keys_mask.c ------------------------------------------------------- */

fia_status ref_read_mask(ref_problem *p, const fia_case *c,
                         const fia_case_data *d, fia_error *err);
/* The mask (when read) does not exclude key j from row i of batch b. */
int ref_mask_admits(const ref_problem *p, int64_t b, int64_t i, int64_t j);

/* ---- read_pse.c -------------------------------------------------------- */

/* After the padding starts and inner_precise: the pse tensor and its
 * strides, refusing one the rows cannot be read from (FIA_ERR_PARAM_INVALID);
 * an fp16 query with pse runs in high precision (round_p 0). */
fia_status ref_read_pse(ref_problem *p, const fia_case *c,
                        const fia_case_data *d, fia_error *err);
/* The exact biases of row i of batch b, head n, for its keys j = keys[t],
 * t < nk, into bias[j] (the other entries are not written); no pse:
 * nothing is written (the caller passes no bias). */
void ref_load_pse_row(const ref_problem *p, int64_t b, int64_t n, int64_t i,
                      const int64_t *keys, int64_t nk, double *bias);
/* Adds to *r every pse value a computed row may read (rows i < q_len[b],
 * keys j < kv_len[b]); nothing without pse. */
void ref_pse_range(const ref_problem *p, ref_value_range *r);

/* ---- ref_rows.c: the walk over the rows -------------------------------- */

/* One row (b, n, i) as the reading hands it over.  A computed row has at
 * least one key: keys[0..nk) ascending index kbuf / vbuf ([kv_len'][D +
 * Dr] and [kv_len'][D], the logical key and value rows of the row's KV
 * head, key_rope's columns after the key's) and bias
 * ([kv_len'], the keys' pse values; NULL without pse).  A row with no
 * value to compute (padding row, no key taking part) has computed 0 and
 * what the documents say of it: output zero, out_unspec 1 when
 * unspecified; lse +inf when lse_inf, unspecified otherwise. */
typedef struct ref_row_view {
    int64_t b, n, i;
    int computed;
    int out_unspec, lse_inf;
    const double *q;             /* [D + Dr] */
    const double *kbuf, *vbuf;
    const double *klo, *vlo;     /* the rests of dequantized elements
                                    (ref_load_kv_rows), or NULL: none */
    const double *bias;          /* [kv_len], set at keys[], or NULL */
    const int64_t *keys;
    int64_t nk;
} ref_row_view;
typedef fia_status (*ref_row_fn)(const ref_row_view *row, void *ctx,
                                 fia_error *err);

/* Every row of p (not empty_query) in order b, n, i; stops at fn's first
 * nonzero status and returns it.  FIA_ERR_NOMEM with a message. */
fia_status ref_rows_walk(const ref_problem *p, ref_row_fn fn, void *ctx,
                         fia_error *err);

/* ======================================================================
 * The math core: one row (no layouts, masks, sparse modes, lengths)
 * ====================================================================== */

/* ---- ref_round.c: correctly rounded narrowing and bit encoding ---------- */

typedef enum ref_fmt {
    REF_FMT_FP16 = 0,
    REF_FMT_BF16,
    REF_FMT_FP32
} ref_fmt;

/* Precision (significand bits incl. the implicit one) of a format. */
int ref_fmt_prec(ref_fmt f);

/* Rounds x (any precision, any exponent) to the nearest value of format f,
 * ties to even, with gradual underflow and overflow to +-inf.  y must have
 * been initialized with precision ref_fmt_prec(f).  NaN stays NaN.  Returns
 * the ternary value (sign of y - x). */
int ref_round_fmt(mpfr_t y, const mpfr_t x, ref_fmt f);

/* Bits of a value of format f (y as produced by ref_round_fmt): 16 bits for
 * fp16 / bf16, 32 for fp32.  NaN encodes as the quiet NaN with sign 0. */
uint32_t ref_encode_fmt(const mpfr_t y, ref_fmt f);

/* Convenience for tests: round a binary64 value, return the bits. */
uint32_t ref_round_double_bits(double x, ref_fmt f);

/* The same correct rounding of a binary64 value in plain double arithmetic
 * (no MPFR): used by the double-precision first pass (ref_double.c). */
uint32_t ref_round_double_fmt(double x, ref_fmt f);
/* That rounding's value as a binary64 (exact: every value of the formats
 * is one), +-inf past the format's range; NaN, +-inf, +-0 as given. */
double ref_round_double_value(double x, ref_fmt f);


/* ---- ref_exact.c -------------------------------------------------------- */

/* The keys of a row (exact scores, v column d: v[t] + vlo[t] exactly,
 * vlo NULL when all 0).  When every class of equal
 * scores has the same mean of v, the output is exactly that mean: sets
 * *decided to 1 with its correctly rounded bits and binary64 value.
 * *decided 0: the output is irrational (never on a rounding boundary).
 * FIA_OK or FIA_ERR_NOMEM. */
fia_status ref_rational_mean(mpfr_t *scores, const double *v,
                             const double *vlo, int64_t nk,
                             ref_fmt f, long prec0, int *decided,
                             uint32_t *bits, double *exact);

/* ---- ref_double.c: first pass in binary64, and the tolerance bound ----- */

/* The results of one row (filled by the double pass, completed by MPFR). */
typedef struct row_out {
    uint32_t *bits;      /* [D] */
    double *exact;       /* [D] */
    uint8_t *done;       /* [D] */
    double *bound;       /* [D]: error bound of the permitted algorithm */
    uint32_t lse_bits;
    double lse_exact;
    int lse_done;
    double lse_bound;
} row_out;

/* One row: everything the math sees.  The scores are dot products of
 * Dk = D + Dr columns (Dr 0 but with MLA's rope: the rope columns after the
 * D, read_mla.c); value rows and the output have D columns. */
typedef struct ref_row_in {
    const double *q;             /* [D + Dr] */
    const double *kbuf, *vbuf;   /* [>= max keys][D + Dr], [..][D] */
    const double *klo, *vlo;     /* NULL, or like kbuf / vbuf: the exact
                                    value is kbuf + klo (antiquant) */
    const int64_t *keys;         /* [nk], ascending rows of kbuf / vbuf */
    const double *bias;          /* NULL, or [>= max keys] indexed like the
                                    rows of kbuf: key j's score is
                                    scale * (q . k_j) + bias[j] */
    int64_t nk, D, Dr;
    double scale;
    ref_fmt fmt;                 /* output format */
    int want_lse;
    int round_p;                 /* model: P rounded to the input dtype */
    fia_dtype in_dtype;
    /* sink (read_sink.c): one more virtual key of score `sink` exactly (not
     * scaled, no bias) and value 0: in the max and the denominator only.
     * The workspaces hold max keys + 1 scores / weights for it (index nk). */
    int has_sink;
    double sink;
    /* antiquant (docs/tolerance.md "Antiquant"): the model rounds k and v
     * to the input dtype, x(1 + d) + e, |d| <= u_kv, |e| <= eta_kv; no
     * model when some |x| > kv_lim.  u_kv 0: k and v are used as given. */
    double u_kv, eta_kv, kv_lim;
} ref_row_in;

typedef struct ref_dbl {
    double *s, *a, *w, *td, *tm;  /* [max keys] */
    int64_t *fk;                  /* [max keys]: the keys with a finite
                                     score (non-finite inputs) */
    /* [D] each: the output columns' sums over the keys (ref_double.c's
     * row_value_sums, row_error_sums) */
    double *num, *spv, *vmax, *small, *o, *std_, *stm;
    int64_t d_cap;                /* their length */
} ref_dbl;

/* For rows of up to kv_s keys and d output columns: FIA_OK or
 * FIA_ERR_NOMEM. */
fia_status ref_dbl_init(ref_dbl *x, int64_t kv_s, int64_t d);
void ref_dbl_free(ref_dbl *x);

/* 1 with the bits when every value within b of v rounds to the same value
 * of f.  The interval is widened by v's own binary64 error and the rounding
 * of v -+ b. */
int ref_decide_double(double v, double b, ref_fmt f, uint32_t *bits);

/* ---- ref_mean_exact.c --------------------------------------------------- */

/* A row whose keys provably share one exact score (its products and sums
 * checked exact in binary64): its undecided outputs are the plain means of
 * v, rounded exactly here (ties included).  Returns how many it decided;
 * 0 when the row is not such a row or nothing could be proved. */
int64_t ref_dbl_one_class(const ref_row_in *in, row_out *ro);

/* Evaluates the row in binary64 with a rigorous error bound: the elements
 * (and lse) whose error interval rounds to one value of the format are
 * marked done with their bits (ro->done must be zeroed by the caller).
 * Always fills ro->bound and ro->lse_bound (the tolerance model, see
 * docs/tolerance.md; INFINITY outside the model).  Non-finite inputs
 * (docs/semantics.md "Non-finite inputs"): the NaN / infinite elements
 * their IEEE propagation gives are decided here with bound 0 (compared
 * exactly), INFINITY where the float32 pipeline may give another one.
 * Returns the number of elements (incl. lse) left undecided. */
int64_t ref_dbl_row(ref_dbl *x, const ref_row_in *in, row_out *ro);

/* ---- ref_attention.c: one row, correctly rounded ------------------------ */

/* The binary exponent range of a set of values: every finite nonzero x is
 * a multiple of 2^lmin below 2^emax in magnitude (any 0: no such x). */
struct ref_value_range {
    long emax, lmin;
    int any;
};

void ref_value_range_add(ref_value_range *r, double x);
/* Precision holding every score scale * q.k + bias and every difference of
 * two scores exactly, for query values in q, key values in k, dot length
 * D, bias values in bias (none: bias->any 0). */
mpfr_prec_t ref_score_precision(const ref_value_range *q,
                                const ref_value_range *k, int64_t D,
                                double scale, const ref_value_range *bias);

typedef struct ref_core ref_core;

/* The precision holding every score of every row exactly (e.g.
 * ref_score_precision over all the values the rows may read).  Asked once,
 * on the first row the binary64 pass leaves to MPFR: it may cost a pass
 * over the inputs, which most cases never need. */
typedef mpfr_prec_t (*ref_score_prec_fn)(void *ctx);

/* A workspace for rows of D output columns, scores over D + Dr columns, at
 * most max_keys keys, output format fmt, first MPFR precision prec, exact
 * scores at score_prec(ctx) bits.  pure_mpfr: every element by MPFR (the
 * binary64 pass only gives bounds). */
fia_status ref_core_new(ref_core **w, int64_t D, int64_t Dr,
                        int64_t max_keys, ref_fmt fmt, long prec,
                        ref_score_prec_fn score_prec, void *score_prec_ctx,
                        int pure_mpfr, fia_error *err);
void ref_core_free(ref_core *w);
/* Rows w evaluated past its first MPFR precision so far. */
int64_t ref_core_refined(const ref_core *w);

/* FIA_OK or FIA_ERR_NOMEM. */
fia_status ref_row_out_init(row_out *ro, int64_t D);
void ref_row_out_free(row_out *ro);

/* Evaluates one row (in->nk >= 1) into *ro: every element decided, correctly
 * rounded, with its bound.  Adds the row's elements and those left to MPFR
 * to *n_elements, *n_escalated.  FIA_OK or FIA_ERR_NOMEM. */
fia_status ref_core_row(ref_core *w, const ref_row_in *in, row_out *ro,
                        int64_t *n_elements, int64_t *n_escalated,
                        fia_error *err);

/* ---- ref_int8_quant.c: full int8, one row ------------------------------ */

/* The scales of full int8 as the computation uses them (read_int8_quant.c). */
typedef struct ref_int8_quant_scales {
    double ds1, qs1, ds2;
} ref_int8_quant_scales;

typedef struct ref_int8_quant ref_int8_quant;

/* A workspace for rows of D columns and at most max_keys keys, output
 * format fmt (fp16; an int8 output is quantized from the exact value),
 * first MPFR precision prec; pure_mpfr: no binary64 first pass.  FIA_OK
 * or FIA_ERR_NOMEM. */
fia_status ref_int8_quant_new(ref_int8_quant **w, int64_t D, int64_t max_keys,
                              ref_fmt fmt, long prec, int pure_mpfr,
                              fia_error *err);
void ref_int8_quant_free(ref_int8_quant *w);

/* One row of full int8 (in: the int8 values as binary64, in->nk >= 1) into
 * *ro: every element decided, correctly rounded, with its bound
 * (int8_quant.md); outside the model, NaN with bound +inf.  Adds to
 * *n_elements and, per escalation, *n_escalated. */
void ref_int8_quant_row(ref_int8_quant *w, const ref_row_in *in,
                        const ref_int8_quant_scales *sc, row_out *ro,
                        int64_t *n_elements, int64_t *n_escalated);

/* ref_kv_return.c: a call in which no batch reads a key (the reference's
 * own reading), and the released code's answer to it (zeros, lse +inf),
 * for profile cann (fia_ref_options.released_kv_return). */
int ref_reads_no_key(const fia_case *c);
fia_status ref_kv_return_result(const fia_case *c, fia_ref_result *r,
                                fia_error *err);

#endif
