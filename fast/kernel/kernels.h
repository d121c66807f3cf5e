/* fast/'s micro-kernels: the contract of each operation, the table of one
 * instruction-set level that phase two calls through (attention.c), and the
 * run-time choice of a table (dispatch.c).
 *
 * Layout of this folder, BLIS / XNNPACK style: one operation per file per
 * level (<op>_scalar.c, <op>_avx2.c, <op>_avx512.c; only files named
 * *_avx2.c / *_avx512.c get the SIMD flags), one table_<isa>.c assembling a
 * level's table, per-level helpers in simd_<isa>.h (included only by that
 * level's files), and the loops that walk a kernel's range in register
 * tiles written once for every level in loop_<op>.h: a level supplies its
 * tile shape and tile body, the loop its tails.
 *
 * Scores are kept transposed, S^T[c][r] (key c, query row r), so the
 * softmax runs across 16 (or 8) rows per vector.  Row arrays (m, l, alpha,
 * lo, hi) and row strides (ldq of qt, lds) hold at least round_up(mr, 16)
 * entries; a SIMD kernel may compute rows up to there (padding rows of qt
 * are zero, of lo/hi empty).  D for pv/qk_dot/store-free buffers is padded
 * to a multiple of 16 with zero columns. */
#ifndef FIA_FAST_KERNELS_H
#define FIA_FAST_KERNELS_H

#include <stdbool.h>
#include <stdint.h>
#include "fia/dtype.h"

/* The signature of each operation; its contract is at its field of
 * fast_kernels below. */
typedef void fast_qk_t_fn(const float *qt, int64_t ldq, int mr,
                          const float *k, int64_t ldk, int nk, int64_t D,
                          float *st, int64_t lds);
typedef void fast_qk_dot_fn(const float *q, int64_t ldq, int mr,
                            const float *k, int64_t ldk, int nk, int64_t D,
                            float *st, int64_t lds);
typedef void fast_qk_t_max_fn(const float *qt, int64_t ldq, int mr,
                              const float *k, int64_t ldk, int nk, int64_t D,
                              float scale, float *st, int64_t lds,
                              float *bmax);
typedef void fast_softmax_full_fn(float *s, int64_t lds, int mr, int nk,
                                  const float *bmax, int round, float *m,
                                  float *l, float *alpha);
typedef void fast_softmax_fn(float *s, int64_t lds, int mr, int nk,
                             float scale, const int32_t *lo,
                             const int32_t *hi, const uint8_t *excl,
                             int round, float *m, float *l, float *alpha);
typedef void fast_pv_fn(const float *pt, int64_t ldp, int mr, const float *v,
                        int64_t ldv, int nk, int64_t D, const float *alpha,
                        float *acc, int64_t ldacc);
typedef bool fast_widen_fn(fia_dtype dt, const uint16_t *src, float *dst,
                           int64_t n);
typedef bool fast_widen_mla_nz_fn(fia_dtype dt, const uint16_t *src, int64_t ld,
                                  int nrows, float *dst, int64_t ldd,
                                  int64_t n);
typedef bool fast_widen_query_quant_nz_fn(const int8_t *src, int64_t ld,
                                          int nrows, float s, float *dst,
                                          int64_t ldd, int64_t n);
typedef void fast_widen_t_fn(fia_dtype dt, const uint16_t *const *rows,
                             int nrows, int64_t n, float *dst, int64_t ldd);
typedef void fast_store_fn(fia_dtype dt, const float *acc, double l,
                           uint16_t *dst, int64_t n);
typedef void fast_store_int8_out_fn(const float *acc, double l, const float *qs,
                                    const float *qo, int64_t qstride,
                                    int8_t *dst, int64_t n);
typedef void fast_pse_bias_fn(fia_dtype dt, const uint16_t *const *bias, int mr,
                              int nk, float scale, float *st, int64_t lds,
                              float *bmax);
typedef bool fast_widen_antiquant_fn(const void *src, int int4, const float *sv,
                                     const float *ov, float s, float o,
                                     float *dst, int64_t n);
/* Antiquant's per-key dequantization in the fused decode kernel: per key
 * c of the call (tok) the scalars s[c], o[c], else per channel d the
 * vectors s[d], o[d] (o never NULL: zeros when symmetric). */
typedef struct fast_aq_dec {
    int tok;
    const float *s, *o;
} fast_aq_dec;
/* Keys per block of the fused decode kernels: their K and V come as one
 * pointer per block (decode.k[i], decode.v[i]). */
#define FAST_DEC_KB 16
typedef bool fast_decode_fn(const float *q, int64_t ldq, int mr,
                            const uint16_t *const *k,
                            const uint16_t *const *v, int64_t ldkv,
                            const uint16_t *const *bias,
                            int64_t nk, int64_t D, fia_dtype dt,
                            float scale, int round, float *m, float *l,
                            float *acc, int64_t ldacc);

typedef bool fast_decode_antiquant_fn(const float *q, int64_t ldq, int mr,
                                      const void *const *k,
                                      const void *const *v, int64_t ldkv,
                                      int int4, const fast_aq_dec *ka,
                                      const fast_aq_dec *va,
                                      const uint16_t *const *bias, int64_t nk,
                                      int64_t D, fia_dtype dt, float scale,
                                      int round, float *m, float *l,
                                      float *acc, int64_t ldacc);

typedef void fast_int8_quant_rowmax_fn(float *s, int64_t lds, int mr, int nk,
                                       float scale, const int32_t *lo,
                                       const int32_t *hi, const uint8_t *excl,
                                       float *m);
typedef void fast_int8_quant_pquant_fn(float *s, int64_t lds, int mr, int nk,
                                       float scale, const int32_t *lo,
                                       const int32_t *hi, const uint8_t *excl,
                                       const float *m, float qs, float *l);

/* The operations of a table, named once: the fields of fast_kernels
 * below (which hold each one's contract), the tables table_<isa>.c, the
 * declarations of the per-level functions, the check that a table is
 * complete (tests/test_fast_kernels.c) and `fiacheck bench --kernels`
 * (bench/bench_kernels.c), which prints them in this order.
 *
 * X(op, presence): the field op of type fast_<op>_fn, presence REQUIRED
 * (every level has it) or OPTIONAL (the portable table leaves it NULL;
 * attention.c composes the required ones instead).  A new operation adds
 * its type above, its field and contract in fast_kernels, a line here, a
 * file per level and its calls in the kernel bench (which does not compile
 * without them). */
#define FAST_KERNEL_LIST(X)                                                   \
    X(qk_t, REQUIRED)                                                         \
    X(qk_t_max, OPTIONAL)                                                     \
    X(softmax_full, OPTIONAL)                                                 \
    X(softmax, REQUIRED)                                                      \
    X(pv, REQUIRED)                                                           \
    X(qk_dot, REQUIRED)                                                       \
    X(decode, OPTIONAL)                                                       \
    X(pse_bias, REQUIRED)                                                     \
    X(widen, REQUIRED)                                                        \
    X(widen_t, REQUIRED)                                                      \
    X(widen_mla_nz, REQUIRED)                                                 \
    X(widen_query_quant_nz, REQUIRED)                                         \
    X(store, REQUIRED)                                                        \
    X(store_int8_out, REQUIRED)                                               \
    X(widen_antiquant, REQUIRED)                                              \
    X(decode_antiquant, OPTIONAL)                                             \
    X(int8_quant_rowmax, REQUIRED)                                            \
    X(int8_quant_pquant, REQUIRED)

/* The operations' indices in the list (FAST_KERNEL_qk_t, ...), and their
 * number: the size of fast_kernels is checked against it (dispatch.c), so
 * a field the list lacks does not compile either. */
typedef enum fast_kernel_op {
#define FAST_KERNEL_ENUM(op, presence) FAST_KERNEL_##op,
    FAST_KERNEL_LIST(FAST_KERNEL_ENUM)
#undef FAST_KERNEL_ENUM
    FAST_KERNEL_COUNT
} fast_kernel_op;

typedef struct fast_kernels {
    const char *name;
    /* st[c*lds + r] = sum_{d<D} k[c*ldk + d] * qt[d*ldq + r], c < nk. */
    fast_qk_t_fn *qk_t;
    /* st[c*lds + r] = sum_{d<D} q[r*ldq + d] * k[c*ldk + d], r < mr, c < nk
     * (D a multiple of 16). */
    fast_qk_dot_fn *qk_dot;
    /* Optional (NULL when a table has none): qk_t with the first pass of
     * the softmax fused in, for a block where every key c < nk takes part
     * in every row r < round_up(mr, 16) without a mask:
     * st[c*lds + r] = fl(sum * scale) (the product rounded on its own)
     * and bmax[r] = the largest of them over c (NaN skipped, -inf if none). */
    fast_qk_t_max_fn *qk_t_max;
    /* Optional, with qk_t_max: the softmax step below on its output (every
     * key in every row r < round_up(mr, 16), s already scaled, block max
     * bmax[r]); the same m, l, alpha and P as softmax. */
    fast_softmax_full_fn *softmax_full;
    /* One online-softmax step over keys c < nk: key c takes part in row r
     * iff lo[r] <= c <= hi[r] and not (excl && excl[c*lds + r]).  Scores
     * are multiplied by scale; for rows with a key taking part, mnew =
     * max(m, block max), alpha = exp(m - mnew) (1 if unchanged), s becomes
     * p = exp(s - mnew) (0 where excluded) rounded to fp16 (round 1) or
     * bf16 (round 2), l = l * alpha + sum of the unrounded p; where mnew
     * is -inf (every score so far -inf) p = exp(s - 0) = 0, not NaN, and
     * l stays 0 (the caller tells such a row from one without a key).
     * Rows with no key: p = 0, alpha = 1, m and l unchanged. */
    fast_softmax_fn *softmax;
    /* acc[r*ldacc + d] = acc[..] * alpha[r] + sum_{c<nk} pt[c*ldp + r] *
     * v[c*ldv + d], r < mr, d < D (D a multiple of 16). */
    fast_pv_fn *pv;
    /* dst[i] = widen(src[i]) for n fp16 or bf16 elements; returns whether
     * all are finite (pv multiplies p = 0 by V; the caller takes the scalar
     * pv, which skips p = 0, for a V block with inf or NaN). */
    fast_widen_fn *widen;
    /* widen of nrows consecutive rows of an NZ cache's block (MLA;
     * fast_internal.h, the plan's nz): row r's n elements (n a multiple of
     * 16) in tiles of 16, tile t of row r at src + t * ld + r * 16:
     * dst[r*ldd + d] = widen(src[(d / 16) * ld + r * 16 + d % 16]); the
     * rows of a tile are read as one contiguous stream.  Returns whether
     * all are finite, as widen. */
    fast_widen_mla_nz_fn *widen_mla_nz;
    /* MLA full quantization's int8 NZ cache ([blockNum, N, D/32,
     * blockSize, 32]; fast_internal.h, the plan's query_quant and nz_w): nrows
     * consecutive rows of a block, row r's n elements (n a multiple of 32)
     * in tiles of 32, tile t of row r at src + t * ld + r * 32, each
     * times the per-tensor scale s in float32:
     *   dst[r*ldd + d] = fl((float)src[(d / 32) * ld + r * 32 + d % 32] * s)
     * (the int8 to float conversion exact, one rounding).  The rows of a
     * tile are read as one contiguous stream.  Returns whether every
     * dst element is finite (an inf / NaN s, or an overflowing product),
     * as widen. */
    fast_widen_query_quant_nz_fn *widen_query_quant_nz;
    /* Widen and transpose 16 query rows into columns of Q^T:
     * dst[d*ldd + r] = widen(rows[r][d]) for r < 16, d < n, with zeros for
     * r >= nrows and for rows[r] == NULL (rows that use no key). */
    fast_widen_t_fn *widen_t;
    /* dst[i] = acc[i] / l in double, rounded once (nearest-even) to dt. */
    fast_store_fn *store;
    /* An int8 output row (docs/features/int8_out.md): x = acc[i] / l in
     * double rounded once to float32, y = x * qs[i * qstride] +
     * qo[i * qstride] in float32 (qo
     * NULL: no offset; qstride 1 per-channel, 0 per-tensor), dst[i] = y
     * clamped to [-128, 127] and rounded half to even; NaN gives 0. */
    fast_store_int8_out_fn *store_int8_out;
    /* The scores plus a bias (pse_shift), after the scale, on S^T as qk_t
     * leaves it: for r < round_up(mr, 16) and c < nk,
     *   st[c*lds + r] = max(fl(fl(st[c*lds + r] * scale) + b), -FLT_MAX)
     * (each operation rounded on its own, a NaN stays NaN), b =
     * widen(bias[r][c]), bias[r] a row of fp16/bf16 (dt) values of the
     * keys (NULL, or r >= mr: b = 0).  The clamp keeps a key of score -inf
     * at weight exactly 0 (exp(-FLT_MAX - m) = 0 for any max m that is not
     * itself -FLT_MAX) without a block whose every score is -inf giving
     * the online softmax a max of -inf (-inf - -inf = NaN): a row whose
     * keys all scored -inf ends with the max -FLT_MAX, which the caller
     * turns into NaN (docs/semantics.md).  bmax (NULL: not computed):
     * bmax[r] = the largest new score over c < nk (NaN skipped, -inf if
     * none), as qk_t_max gives it to softmax_full. */
    fast_pse_bias_fn *pse_bias;
    /* Decode, fused (NULL when a table has none): mr <= FAST_DOT_MAX rows
     * q[r*ldq + d] that all use every key c < nk (no mask), K and V read
     * as fp16/bf16 rows k[c / 16][(c % 16)*ldkv + d], likewise v, d < D (D
     * a multiple of 16): a pointer per FAST_DEC_KB keys, so that keys
     * scattered over the blocks of a paged cache are read in place (the
     * kernel prefetches through the same pointers).  bias: NULL, or mr
     * rows of fp16/bf16 (dt) bias values, bias[r][c] for key c < nk (the
     * pse).  In blocks of keys; per block the same steps as qk_dot, with
     * a bias the pse_bias step then softmax at scale 1 (without, softmax at
     * scale), lo = 0, hi = nb - 1, and pv, with m, l (mr entries) and
     * acc[r*ldacc + d] carried from block to block.  Returns false when
     * m, l or acc came out non-finite (inf or NaN in Q, K, V or the bias;
     * the caller then recomputes with the kernels above, which keep p = 0
     * times a non-finite V out). */
    fast_decode_fn *decode;
    /* Antiquant (docs/features/antiquant.md): a row of n int8 (int4 0) or
     * int4 (int4 1: two per byte, low nibble first, the row starting at a
     * byte) elements to float, dst[d] = (x[d] + o_d) * s_d with the
     * per-channel vectors sv[d], ov[d] (ov never NULL) or, sv NULL, the
     * scalars s, o: the offset added to each element before its product,
     * each operation rounded in float32.  Returns whether every dst[d] is
     * finite.  The prefill's K/V widening (kv_pre, per block) of an
     * int8/int4 cache. */
    fast_widen_antiquant_fn *widen_antiquant;
    /* Optional: decode (above) over int8/int4 K and V (int4 as widen_antiquant,
     * ldkv in elements, k[i] / v[i] at an element of a whole byte),
     * dequantized in registers, no copy: the key's element is (x + o) * s
     * as ka describes it, computed as sum_d (q_d s_d)(x_d + o_d) per
     * channel or s_c sum_d q_d (x_d + o_c) per token (q times the channel
     * scale rounded in float32); the value's per token as p_c s_c (x +
     * o_c), per channel as p_c (x + o_d): acc is then in units of 1 / s_d
     * (the caller multiplies the final acc by va->s[d]).  Else as decode
     * (D a multiple of 16). */
    fast_decode_antiquant_fn *decode_antiquant;
    /* Full int8 quantization (docs/features/int8_quant.md), the first of
     * its two passes over the keys: key c takes part in row r as for
     * softmax (lo[r] <= c <= hi[r], not excl[c*lds + r]); for r < mr, c <
     * nk, s[c*lds + r] = fl(s[c*lds + r] * scale) (scale 1 when a pse_bias
     * step scaled them already), and m[r] = the largest of m[r] and the
     * scores taking part (m unchanged for a row without a key; a NaN
     * score may be skipped). */
    fast_int8_quant_rowmax_fn *int8_quant_rowmax;
    /* The second pass, P quantized against the row's final max m (step
     * 4): s scaled as int8_quant_rowmax; for a key taking part
     * e = exp(s - m[r]) in float32 (within 2 ulp of expf; a result below
     * 2^-126 may flush to 0), l[r] += the e of the block (float32,
     * unquantized), and s becomes P = sat(rint(fl(e * qs))), an integer in
     * [-128, 127] (ties to even) as float; 0 where the key does not take
     * part.  A row without a key: l unchanged, every P 0. */
    fast_int8_quant_pquant_fn *int8_quant_pquant;
} fast_kernels;

/* Instruction-set levels, lowest first. */
typedef enum fast_isa {
    FAST_ISA_SCALAR = 0,
    FAST_ISA_AVX2,   /* AVX2 + FMA + F16C */
    FAST_ISA_AVX512, /* AVX-512 F/BW/VL/DQ + FMA + F16C */
    FAST_ISA_COUNT
} fast_isa;

extern const fast_kernels fast_kernels_scalar;
#if defined(__x86_64__)
extern const fast_kernels fast_kernels_avx2;
extern const fast_kernels fast_kernels_avx512;
#endif
/* The table of a level, NULL when not built in or not supported here. */
const fast_kernels *fast_kernels_for(fast_isa isa);
/* The table in use: the level forced by fast_force_isa() or by the
 * environment FIA_FAST_ISA=scalar|avx2|avx512 (an unsupported level falls
 * back to the best supported one below it), else the best one. */
const fast_kernels *fast_kernels_select(void);
/* Forces a level for the whole process; returns false (and changes
 * nothing) when the level is not supported.  FAST_ISA_COUNT = automatic. */
bool fast_force_isa(fast_isa isa);
const char *fast_isa_name(fast_isa isa);

/* The operations of each level, one file each (<op>_<isa>.c): every
 * operation at AVX2 and AVX-512, the required ones also in portable C (a
 * level without an optional operation leaves its field NULL).  The
 * portable widen, store and widen_t are also the tails of the SIMD ones and
 * are called directly by attention.c. */
#define FAST_KERNEL_DECLARE_SCALAR_REQUIRED(op)                               \
    fast_##op##_fn fast_##op##_scalar;
#define FAST_KERNEL_DECLARE_SCALAR_OPTIONAL(op)
#define FAST_KERNEL_DECLARE(op, presence)                                     \
    FAST_KERNEL_DECLARE_SCALAR_##presence(op)                                 \
    fast_##op##_fn fast_##op##_avx2, fast_##op##_avx512;
FAST_KERNEL_LIST(FAST_KERNEL_DECLARE)
#undef FAST_KERNEL_DECLARE
#undef FAST_KERNEL_DECLARE_SCALAR_OPTIONAL
#undef FAST_KERNEL_DECLARE_SCALAR_REQUIRED

#endif
