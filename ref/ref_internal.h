/* ref/ internals: the interpreted problem, correct rounding, the MPFR
 * computation.  Shared only between the files of ref/. */
#ifndef FIA_REF_INTERNAL_H
#define FIA_REF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <mpfr.h>
#include "fia/case.h"
#include "fia/ref.h"
#include "fia/status.h"

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

/* ---- ref_problem.c: the case as the reference reads it ------------------ */

typedef enum ref_layout {
    REF_LAYOUT_BSH = 0,
    REF_LAYOUT_BSND,
    REF_LAYOUT_BNSD,
    REF_LAYOUT_BNSD_BSND
} ref_layout;

typedef struct ref_problem {
    ref_layout layout;
    int64_t B, N, KV_N, Q_S, KV_S, D, group; /* group = N / KV_N */
    double scale;
    int64_t sparse_mode;          /* as given; ignored when decode */
    int64_t pre, next;            /* clamped to +-2^40 */
    int row_invalid;              /* inner_precise bit 1 */
    int round_p;                  /* the permitted algorithm rounds P to the
                                     input dtype before P.V: bf16 always,
                                     fp16 when inner_precise bit 0 is set */
    fia_dtype in_dtype;           /* query dtype */
    int decode;                   /* Q_S == 1 */
    int64_t *q_len, *kv_len;      /* per batch, owned */
    const fia_tensor *q, *k, *v;
    /* mask (NULL when absent or empty): element (b, i, j) at
     * b * mask_bstride + i * mask_cols + j */
    const fia_tensor *mask;
    int64_t mask_bstride, mask_cols;
    /* outputs */
    const fia_tensor *out_t;      /* the case's attention_out descriptor */
    fia_dtype out_dtype;
    int has_lse;
    int32_t lse_ndim;
    int64_t lse_shape[FIA_MAX_RANK];
    int empty_query;              /* query numel 0: nothing to compute */
} ref_problem;

/* Reads the case.  FIA_OK, FIA_ERR_NOT_MODELED, FIA_ERR_PARAM_INVALID or
 * FIA_ERR_NOMEM, with a message in err. */
fia_status ref_problem_init(ref_problem *p, const fia_case *c,
                           const fia_case_data *d, char *err, size_t errlen);
void ref_problem_free(ref_problem *p);

/* Flat element indices. */
int64_t ref_q_index(const ref_problem *p, int64_t b, int64_t n, int64_t i,
                    int64_t dd);
int64_t ref_kv_index(const ref_problem *p, int64_t b, int64_t kn, int64_t j,
                     int64_t dd);
int64_t ref_out_index(const ref_problem *p, int64_t b, int64_t n, int64_t i,
                      int64_t dd);
int64_t ref_lse_index(const ref_problem *p, int64_t b, int64_t n, int64_t i);

/* 1 when key j takes part in row i of batch b (assumes i < q_len[b]). */
int ref_key_takes_part(const ref_problem *p, int64_t b, int64_t i, int64_t j);
/* 1 when a fully masked row of batch b gets row-invalid correction. */
int ref_row_corrected(const ref_problem *p, int64_t b);

/* ---- ref_exact.c -------------------------------------------------------- */

/* The keys of a row (exact scores, v column d).  When every class of equal
 * scores has the same mean of v, the output is exactly that mean: returns 1
 * and its correctly rounded bits and binary64 value.  Returns 0 when the
 * output is irrational (never on a rounding boundary), -1 on nomem. */
int ref_rational_mean(mpfr_t *scores, const double *v, int64_t nk, ref_fmt f,
                      long prec0, uint32_t *bits, double *exact);

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

/* One row as the double pass reads it. */
typedef struct ref_row_in {
    const double *q;             /* [D] */
    const double *kbuf, *vbuf;   /* [KV_S][D] */
    const int64_t *keys;         /* ascending */
    int64_t nk, D;
    double scale;
    ref_fmt fmt;                 /* output format */
    int want_lse;
    int round_p;                 /* model: P rounded to the input dtype */
    fia_dtype in_dtype;
} ref_row_in;

typedef struct ref_dbl {
    double *s, *a, *w, *td, *tm;  /* [KV_S] */
} ref_dbl;

int ref_dbl_init(ref_dbl *x, int64_t kv_s);
void ref_dbl_free(ref_dbl *x);

/* Evaluates the row in binary64 with a rigorous error bound: the elements
 * (and lse) whose error interval rounds to one value of the format are
 * marked done with their bits (ro->done must be zeroed by the caller).
 * Always fills ro->bound and ro->lse_bound (the tolerance model, see
 * docs/tolerance.md; INFINITY outside the model).  Returns the number of
 * elements (incl. lse) left undecided. */
int64_t ref_dbl_row(ref_dbl *x, const ref_row_in *in, row_out *ro);

/* ---- ref_attention.c ---------------------------------------------------- */

fia_status ref_attention_run(const ref_problem *p, long prec, int pure_mpfr,
                             fia_ref_result *r, char *err, size_t errlen);

#endif
