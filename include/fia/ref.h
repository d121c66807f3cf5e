/* ref/: the operator's mathematics in MPFR.
 *
 * Each output element is computed from the exact input values at
 * `precision_bits` and correctly rounded (nearest-even) to the output dtype;
 * softmax_lse is correctly rounded to fp32.  ref/ interprets the case on its
 * own (layouts, masks, sparse modes, sequence lengths): it shares no code with
 * fast/.  It assumes the case was accepted by the oracle; what it does not
 * model yet it refuses with FIA_ERR_NOT_MODELED. */
#ifndef FIA_REF_H
#define FIA_REF_H

#include <stddef.h>
#include <stdint.h>
#include "fia/case.h"
#include "fia/error.h"
#include "fia/status.h"

/* Called after each row of B*N*Q_S (rows_done of rows_total); for a
 * progress display of long computations. */
typedef void (*fia_ref_progress_fn)(int64_t rows_done, int64_t rows_total,
                                    void *ctx);

typedef struct fia_ref_options {
    long precision_bits;            /* >= 64; default 128: the first MPFR
                                       precision (doubled until decided) */
    int pure_mpfr;                  /* 1: skip the binary64 first pass and
                                       decide every element in MPFR (same
                                       bits; for comparison and benches) */
    int released_kv_return;         /* 1 (profile cann): a call that reads
                                       no key is answered as the released
                                       code's early return does, zeros and
                                       lse +inf, whatever its later-stage
                                       checks say (ref_kv_return.c) */
    fia_ref_progress_fn progress;   /* NULL: none */
    void *progress_ctx;
} fia_ref_options;

void fia_ref_options_default(fia_ref_options *o);

typedef struct fia_ref_result {
    /* attention_out in the output dtype and shape (owned data). */
    fia_tensor out;
    int64_t out_numel;
    double *out_exact;              /* the exact value rounded to binary64 */
    uint8_t *out_unspecified;       /* 1: the documents leave it undefined,
                                       do not compare (e.g. a fully masked
                                       row without row-invalid correction) */
    double *out_bound;              /* the tolerance (docs/tolerance.md):
                                       bound on |o^ - exact| before the final
                                       rounding for any implementation of the
                                       permitted algorithm; 0 for values the
                                       documents make exact (zero rows);
                                       INFINITY outside the error model */
    /* softmax_lse, fp32 [B,N,Q_S,1], when softmax_lse_flag is set. */
    int has_lse;
    fia_tensor lse;
    int64_t lse_numel;
    double *lse_exact;
    uint8_t *lse_unspecified;
    double *lse_bound;              /* as out_bound, for lse (before its
                                       rounding to fp32) */
    /* Ziv's strategy: elements (outputs and lse) evaluated, and those the
     * binary64 pass left to MPFR. */
    int64_t n_elements, n_escalated;
    /* rows the MPFR loop took past its first precision (a row that needs
     * it is rare: an output on a rounding boundary to thousands of bits) */
    int64_t n_refined;
} fia_ref_result;

/* FIA_OK, FIA_ERR_NOT_MODELED, FIA_ERR_NOMEM, or FIA_ERR_PARAM_INVALID when
 * the case is not one the operator accepts; *err (may be NULL) says why.
 * On failure *r holds nothing (freeing it is harmless). */
fia_status fia_ref_compute(const fia_case *c, const fia_case_data *d,
                           const fia_ref_options *opt, fia_ref_result *r,
                           fia_error *err);
void fia_ref_result_free(fia_ref_result *r);

/* The rows of a case as the reference reads them (layouts, GQA, lengths,
 * masks, sparse modes): for each row (b, n, i) with at least one key taking
 * part, `fn` gets the exact query row, the key and value rows of those keys
 * in ascending order, and the flat indices of the row's D outputs and of
 * its lse element (-1 without lse).  A nonzero return from fn stops the
 * walk and is returned.  Used by oracle/'s plain same-dtype implementation
 * (the flash-attn tolerance profile); no arithmetic is done here. */
typedef struct fia_ref_row {
    int64_t D, nk;             /* D: the output's (value's) columns */
    int64_t Dr;                /* the score columns of q and k past the D
                                  (MLA: the rope; a token layout's value
                                  narrower than the query: the query's and
                                  key's last D_q - D_v; else 0); a score is
                                  scale * (q . k) over all D + Dr columns */
    double scale;
    const double *q;           /* [D + Dr]: query, then query_rope */
    const double *k, *v;       /* [nk][D + Dr] (key, then key_rope),
                                  [nk][D] */
    const double *bias;        /* [nk]: the keys' pse_shift values, added
                                  after the scale; NULL without pse */
    const int64_t *out_index;  /* [D] */
    int64_t lse_index;
    int kv_dequantized;        /* 1: k and v are int8/int4 key/value
                                  dequantized exactly (to the nearest
                                  binary64); a same-dtype implementation
                                  rounds them to the query's dtype
                                  (docs/features/antiquant.md) */
} fia_ref_row;
typedef int (*fia_ref_row_fn)(const fia_ref_row *row, void *ctx);

/* FIA_OK, an error status as fia_ref_compute (FIA_ERR_NOMEM..., with *err
 * filled), or fn's nonzero result (*err untouched). */
fia_status fia_ref_visit_rows(const fia_case *c, const fia_case_data *d,
                              fia_ref_row_fn fn, void *ctx, fia_error *err);

/* The reading alone, without arithmetic (harness/intent.c checks with it
 * what a case exercises): the dims of the problem, and every row (b, n, i)
 * in order b, KV head, n, i with the keys taking part in it. */
typedef struct fia_ref_dims {
    int64_t B, N, KV_N, Q_S, KV_S, D;
    int64_t Dv;                /* value's head dim: D but for a token
                                  layout's narrower value */
    int empty_query;           /* nothing more was read: no rows */
} fia_ref_dims;
typedef struct fia_ref_key_row {
    int64_t b, n, kv_head, i;
    int64_t q_len, kv_len;     /* batch b's effective lengths; kv_len
                                  counts a shared prefix's P keys first
                                  (docs/features/prefix.md) */
    int padding;               /* a row with no value: i >= q_len, or a
                                  batch whose left padding starts before
                                  row 0 (docs/features/padding.md) */
    int lse_inf;               /* no key taking part: the reference's lse
                                  is +inf (else unspecified) */
    int64_t nk;                /* keys taking part, ascending in keys */
    const int64_t *keys;
    const double *q;           /* [D]: the query row, when nk > 0 */
    const double *k, *v;       /* [kv_len][D], [kv_len][Dv]: every key
                                  and value row of the KV head within
                                  kv_len (exact; int
                                  key/value dequantized, to the nearest
                                  binary64); MLA's rope columns are not
                                  handed over here */
} fia_ref_key_row;
typedef int (*fia_ref_key_fn)(const fia_ref_key_row *row, void *ctx);

/* Fills *dims (zeroed on failure) and calls fn for every row.  FIA_OK, an
 * error status as fia_ref_compute with *err filled, or fn's nonzero
 * result. */
fia_status fia_ref_visit_keys(const fia_case *c, const fia_case_data *d,
                              fia_ref_dims *dims, fia_ref_key_fn fn,
                              void *ctx, fia_error *err);

#endif
