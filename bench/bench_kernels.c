/* fiacheck-bench-kernels (`fiacheck bench --kernels [--quick]`): each of
 * fast/'s micro-kernels on its own, on one thread, at every instruction-set
 * level this CPU runs, against the FMA peak of that level measured in the
 * same run (independent FMA chains in registers: the real ceiling of a
 * float32 kernel on this core, which OpenBLAS's sgemm is not here).
 *
 * The peak comes from bench/fma_peak.h.  Blocks are those of the prefill
 * bench (64 keys x 128 query rows, D 128) and of decode (4 rows of a GQA
 * group, D 128).  Each figure is the best of
 * a few timed batches.  Lines look like
 *   avx512 qk_t_max   64x128x128    231.0 GFLOP/s   93% of peak
 * and end with one line per level giving the prefill block's share of the
 * peak (the two matrix kernels and the softmax between them). */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fast/fast_internal.h"
#include "bench_record.h"
#include "fma_peak.h"


static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One core's peak at the level of a table; -1 for portable C, which the
 * compiler vectorizes as it sees fit (no instruction is its ceiling). */
static double peak_of(fast_isa isa)
{
    if (isa == FAST_ISA_AVX512)
        return fma_peak(FMA_PEAK_AVX512, 1);
    if (isa == FAST_ISA_AVX2)
        return fma_peak(FMA_PEAK_AVX2, 1);
    return -1;
}

/* ---- data ---------------------------------------------------------------- */
enum { KB = FAST_KBLOCK, MR = 128, D = 128, DEC_ROWS = 4, DEC_KEYS = 8192 };

typedef struct bufs {
    float *qt, *qrows, *k, *v, *s, *s0, *acc, *bmax, *m, *l, *alpha;
    int32_t *lo, *hi;
    uint16_t *kh, *vh, *out;
    const uint16_t *kblk[DEC_KEYS / FAST_DEC_KB], *vblk[DEC_KEYS / FAST_DEC_KB];
    const uint16_t *prow[MR]; /* pse rows: 128 rows KV_S = 2048 apart */
    const uint16_t *pdec[DEC_ROWS]; /* decode's pse rows */
    /* antiquant: K/V's bytes read as int8 or int4 blocks, per-channel
     * scale and offset */
    const void *k8[DEC_KEYS / FAST_DEC_KB], *v8[DEC_KEYS / FAST_DEC_KB];
    const void *k4[DEC_KEYS / FAST_DEC_KB], *v4[DEC_KEYS / FAST_DEC_KB];
    float aqs[D], aqo[D];
} bufs;

static float frand(uint64_t *st)
{
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((*st >> 40) & 0xffffff) / 16777216.0f - 0.5f;
}

/* fp16 of a float in [-1, 1] (normal range, round toward zero: data only) */
static uint16_t to_half(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t sign = (u >> 16) & 0x8000u, e = (u >> 23) & 0xff;
    if (e < 113)
        return (uint16_t)sign;
    return (uint16_t)(sign | ((e - 112) << 10) | ((u >> 13) & 0x3ff));
}

static void *alloc(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    if (p == NULL) {
        fprintf(stderr, "fiacheck-bench-kernels: out of memory\n");
        exit(2);
    }
    memset(p, 0, bytes);
    return p;
}

static void make_bufs(bufs *b)
{
    uint64_t st = 42;
    b->qt = alloc(sizeof(float) * D * MR);
    b->qrows = alloc(sizeof(float) * MR * D);
    b->k = alloc(sizeof(float) * KB * D);
    b->v = alloc(sizeof(float) * KB * D);
    b->s = alloc(sizeof(float) * KB * MR);
    b->s0 = alloc(sizeof(float) * KB * MR);
    b->acc = alloc(sizeof(float) * MR * D);
    b->bmax = alloc(sizeof(float) * MR);
    b->m = alloc(sizeof(float) * MR);
    b->l = alloc(sizeof(float) * MR);
    b->alpha = alloc(sizeof(float) * MR);
    b->lo = alloc(sizeof(int32_t) * MR);
    b->hi = alloc(sizeof(int32_t) * MR);
    b->kh = alloc(sizeof(uint16_t) * DEC_KEYS * D);
    b->vh = alloc(sizeof(uint16_t) * DEC_KEYS * D);
    b->out = alloc(sizeof(uint16_t) * D);
    for (int i = 0; i < D * MR; i++)
        b->qt[i] = b->qrows[i] = frand(&st);
    for (int i = 0; i < KB * D; i++)
        b->k[i] = frand(&st), b->v[i] = frand(&st);
    for (int r = 0; r < MR; r++)
        b->bmax[r] = -INFINITY;
    for (int i = 0; i < KB * MR; i++) { /* row i % MR of S^T */
        b->s0[i] = 4.0f * frand(&st);
        if (b->s0[i] > b->bmax[i % MR])
            b->bmax[i % MR] = b->s0[i];
    }
    for (int i = 0; i < DEC_KEYS * D; i++)
        b->kh[i] = to_half(frand(&st)), b->vh[i] = to_half(frand(&st));
    for (int i = 0; i < DEC_KEYS / FAST_DEC_KB; i++) /* contiguous keys */
        b->kblk[i] = b->kh + i * FAST_DEC_KB * D,
        b->vblk[i] = b->vh + i * FAST_DEC_KB * D;
    for (int i = 0; i < DEC_KEYS / FAST_DEC_KB; i++) {
        b->k8[i] = (const int8_t *)b->kh + i * FAST_DEC_KB * D;
        b->v8[i] = (const int8_t *)b->vh + i * FAST_DEC_KB * D;
        b->k4[i] = (const int8_t *)b->kh + i * FAST_DEC_KB * D / 2;
        b->v4[i] = (const int8_t *)b->vh + i * FAST_DEC_KB * D / 2;
    }
    for (int d = 0; d < D; d++)
        b->aqs[d] = 1.0f / 64, b->aqo[d] = (float)(d % 7) - 3;
    for (int r = 0; r < MR; r++)
        b->lo[r] = 0, b->hi[r] = KB - 1, b->alpha[r] = 1.0f;
    /* the pse of a prefill block read from K's fp16 buffer: rows 2048
     * apart as in a (N, 2048, 2048) pse; decode's of 8192 keys */
    for (int r = 0; r < MR; r++)
        b->prow[r] = b->kh + r * 2048;
    for (int r = 0; r < DEC_ROWS; r++)
        b->pdec[r] = b->vh + r * (DEC_KEYS * D / DEC_ROWS);
}

static void reset_rows(bufs *b)
{
    for (int r = 0; r < MR; r++)
        b->m[r] = -INFINITY, b->l[r] = 0.0f;
}

/* ---- the kernels, one call each ------------------------------------------ */
/* Each run_* calls one kernel of a table once on the blocks above; it
 * returns false when the table has no such kernel (an optional one). */
static bool run_qk_t(const fast_kernels *t, bufs *b)
{
    t->qk_t(b->qt, MR, MR, b->k, D, KB, D, b->s, MR);
    return true;
}

/* its block max in a buffer of its own: softmax_full reads that of s0 */
static bool run_qk_t_max(const fast_kernels *t, bufs *b)
{
    if (t->qk_t_max == NULL)
        return false;
    t->qk_t_max(b->qt, MR, MR, b->k, D, KB, D, 0.088f, b->s, MR, b->alpha);
    for (int r = 0; r < MR; r++)
        b->alpha[r] = 1.0f;
    return true;
}

static bool run_softmax_full(const fast_kernels *t, bufs *b)
{
    if (t->softmax_full == NULL)
        return false;
    /* the block max of the scores in s (as qk_t_max leaves them); the row
     * state is reset so every call does the same work */
    reset_rows(b);
    t->softmax_full(b->s, MR, MR, KB, b->bmax, 1, b->m, b->l, b->alpha);
    return true;
}

static bool run_softmax(const fast_kernels *t, bufs *b)
{
    reset_rows(b);
    t->softmax(b->s, MR, MR, KB, 0.088f, b->lo, b->hi, NULL, 1, b->m, b->l,
               b->alpha);
    return true;
}

static bool run_pv(const fast_kernels *t, bufs *b)
{
    t->pv(b->s, MR, MR, b->v, D, KB, D, b->alpha, b->acc, D);
    return true;
}

static bool run_qk_dot(const fast_kernels *t, bufs *b)
{
    t->qk_dot(b->qrows, D, DEC_ROWS, b->k, D, KB, D, b->s, MR);
    return true;
}

static bool run_decode(const fast_kernels *t, bufs *b)
{
    if (t->decode == NULL)
        return false;
    reset_rows(b);
    t->decode(b->qrows, D, DEC_ROWS, b->kblk, b->vblk, D, NULL, DEC_KEYS, D,
              FIA_DT_FP16, 0.088f, 1, b->m, b->l, b->acc, D);
    return true;
}

/* decode with a pse row per query row */
static bool run_decode_pse(const fast_kernels *t, bufs *b)
{
    if (t->decode == NULL)
        return false;
    reset_rows(b);
    t->decode(b->qrows, D, DEC_ROWS, b->kblk, b->vblk, D, b->pdec, DEC_KEYS,
              D, FIA_DT_FP16, 0.088f, 0, b->m, b->l, b->acc, D);
    return true;
}

/* the scores of qk_t plus the pse, with the block max */
static bool run_pse_bias(const fast_kernels *t, bufs *b)
{
    t->pse_bias(FIA_DT_FP16, b->prow, MR, KB, 0.088f, b->s, MR, b->bmax);
    return true;
}

static bool run_widen(const fast_kernels *t, bufs *b)
{
    t->widen(FIA_DT_FP16, b->kh, b->qrows, MR * D);
    return true;
}

/* Q^T of a task: 128 rows, 16 at a time */
static bool run_widen_t(const fast_kernels *t, bufs *b)
{
    for (int r0 = 0; r0 < MR; r0 += 16) {
        const uint16_t *rows[16];
        for (int r = 0; r < 16; r++)
            rows[r] = b->kh + (r0 + r) * D;
        t->widen_t(FIA_DT_FP16, rows, 16, D, b->qt + r0, MR);
    }
    return true;
}

/* one NZ cache block of 128 rows: D / 16 tiles of (128, 16), each one
 * contiguous stream */
static bool run_widen_mla_nz(const fast_kernels *t, bufs *b)
{
    if (t->widen_mla_nz == NULL)
        return false;
    t->widen_mla_nz(FIA_DT_FP16, b->kh, MR * 16, MR, b->qrows, D, D);
    return true;
}

/* one int8 NZ cache block of 128 rows (MLA full quantization): D / 32
 * tiles of (128, 32), times a per-tensor scale */
static bool run_widen_query_quant_nz(const fast_kernels *t, bufs *b)
{
    if (t->widen_query_quant_nz == NULL)
        return false;
    t->widen_query_quant_nz((const int8_t *)b->kh, MR * 32, MR, 1.0f / 64,
                            b->qrows, D, D);
    return true;
}

static bool run_store(const fast_kernels *t, bufs *b)
{
    t->store(FIA_DT_FP16, b->acc, 3.0, b->out, D);
    return true;
}

/* an int8 output row, per-channel with offsets */
static bool run_store_int8_out(const fast_kernels *t, bufs *b)
{
    t->store_int8_out(b->acc, 3.0, b->aqs, b->aqo, 1, (int8_t *)b->out, D);
    return true;
}

/* antiquant: 128 per-channel rows of int8 (int4 0) or int4 */
static void widen_antiquant_rows(const fast_kernels *t, bufs *b, int int4)
{
    for (int r = 0; r < MR; r++)
        t->widen_antiquant(int4 ? b->k4[0] : b->k8[0], int4, b->aqs, b->aqo, 0,
                           0, b->qrows + r * D, D);
}

static bool run_widen_antiquant8(const fast_kernels *t, bufs *b)
{
    widen_antiquant_rows(t, b, 0);
    return true;
}

static bool run_widen_antiquant4(const fast_kernels *t, bufs *b)
{
    widen_antiquant_rows(t, b, 1);
    return true;
}

/* decode over int8 (int4 0) or int4 K/V, per-channel */
static bool decode_antiquant_keys(const fast_kernels *t, bufs *b, int int4)
{
    if (t->decode_antiquant == NULL)
        return false;
    const fast_aq_dec ch = {0, b->aqs, b->aqo};
    reset_rows(b);
    t->decode_antiquant(b->qrows, D, DEC_ROWS, int4 ? b->k4 : b->k8,
                        int4 ? b->v4 : b->v8, D, int4, &ch, &ch, NULL, DEC_KEYS,
                        D, FIA_DT_FP16, 0.088f, 1, b->m, b->l, b->acc, D);
    return true;
}

static bool run_decode_antiquant8(const fast_kernels *t, bufs *b)
{
    return decode_antiquant_keys(t, b, 0);
}

static bool run_decode_antiquant4(const fast_kernels *t, bufs *b)
{
    return decode_antiquant_keys(t, b, 1);
}

/* full int8: the row max of a block (pass 1) */
static bool run_int8_quant_rowmax(const fast_kernels *t, bufs *b)
{
    reset_rows(b);
    t->int8_quant_rowmax(b->s, MR, MR, KB, 0.088f, b->lo, b->hi, NULL, b->m);
    return true;
}

/* P quantized against that max (pass 2) */
static bool run_int8_quant_pquant(const fast_kernels *t, bufs *b)
{
    for (int r = 0; r < MR; r++)
        b->m[r] = 8.0f, b->l[r] = 0.0f;
    t->int8_quant_pquant(b->s, MR, MR, KB, 0.088f, b->lo, b->hi, NULL, b->m,
                         127.0f, b->l);
    return true;
}

/* The work of one call, which its figure divides by the time. */
typedef enum work_kind {
    W_PREFILL, /* flops of a prefill block's matrix product */
    W_SCORES,  /* scores of a prefill block, overwritten by the call */
    W_DOT,     /* flops of the dot form on decode's rows */
    W_DECODE,  /* flops of decode's rows over all its keys */
    W_BLOCK,   /* elements of a 128-row block */
    W_ROW      /* elements of one output row */
} work_kind;

/* One line of the bench: a call of one kernel.  NAME_W: the width of the
 * printed name column, the longest name's. */
#define NAME_W 21
typedef struct bench_call {
    const char *name; /* printed, and the figure <level>/<name> */
    work_kind work;
    bool (*run)(const fast_kernels *t, bufs *b);
} bench_call;

/* The calls of each operation, ended by {NULL}: one each, but decode
 * without and with a pse and the antiquant kernels over int8 and int4. */
static const bench_call calls_qk_t[] = {{"qk_t", W_PREFILL, run_qk_t}, {0}};
static const bench_call calls_qk_t_max[] = {
    {"qk_t_max", W_PREFILL, run_qk_t_max}, {0}};
static const bench_call calls_softmax_full[] = {
    {"softmax_full", W_SCORES, run_softmax_full}, {0}};
static const bench_call calls_softmax[] = {
    {"softmax", W_SCORES, run_softmax}, {0}};
static const bench_call calls_pv[] = {{"pv", W_PREFILL, run_pv}, {0}};
static const bench_call calls_qk_dot[] = {
    {"qk_dot", W_DOT, run_qk_dot}, {0}};
static const bench_call calls_decode[] = {
    {"decode", W_DECODE, run_decode},
    {"decode+pse", W_DECODE, run_decode_pse}, {0}};
static const bench_call calls_pse_bias[] = {
    {"pse_bias", W_SCORES, run_pse_bias}, {0}};
static const bench_call calls_widen[] = {{"widen", W_BLOCK, run_widen}, {0}};
static const bench_call calls_widen_t[] = {
    {"widen_t", W_BLOCK, run_widen_t}, {0}};
static const bench_call calls_widen_mla_nz[] = {
    {"widen_mla_nz", W_BLOCK, run_widen_mla_nz}, {0}};
static const bench_call calls_widen_query_quant_nz[] = {
    {"widen_query_quant_nz", W_BLOCK, run_widen_query_quant_nz}, {0}};
static const bench_call calls_store[] = {{"store", W_ROW, run_store}, {0}};
static const bench_call calls_store_int8_out[] = {
    {"store_int8_out", W_ROW, run_store_int8_out}, {0}};
static const bench_call calls_widen_antiquant[] = {
    {"widen_antiquant int8", W_BLOCK, run_widen_antiquant8},
    {"widen_antiquant int4", W_BLOCK, run_widen_antiquant4}, {0}};
static const bench_call calls_decode_antiquant[] = {
    {"decode_antiquant int8", W_DECODE, run_decode_antiquant8},
    {"decode_antiquant int4", W_DECODE, run_decode_antiquant4}, {0}};
static const bench_call calls_int8_quant_rowmax[] = {
    {"int8_quant_rowmax", W_SCORES, run_int8_quant_rowmax}, {0}};
static const bench_call calls_int8_quant_pquant[] = {
    {"int8_quant_pquant", W_SCORES, run_int8_quant_pquant}, {0}};

/* Every operation of a table, in FAST_KERNEL_LIST's order (an operation
 * without its calls above does not compile). */
#define OP_CALLS(op, presence) [FAST_KERNEL_##op] = calls_##op,
static const bench_call *const CALLS[FAST_KERNEL_COUNT] = {
    FAST_KERNEL_LIST(OP_CALLS)};
#undef OP_CALLS

/* Work of one call: flops (matrix kernels, decode), scores (softmax) or
 * elements (conversions), and the unit printed. */
static double work(work_kind kind, const char **unit, const char **shape)
{
    switch (kind) {
    case W_PREFILL:
        *unit = "GFLOP/s", *shape = "64x128x128";
        return 2.0 * KB * MR * D;
    case W_SCORES:
        *unit = "Gscore/s", *shape = "64x128";
        return (double)KB * MR;
    case W_DOT:
        *unit = "GFLOP/s", *shape = "64x4x128";
        return 2.0 * KB * DEC_ROWS * D;
    case W_DECODE:
        *unit = "GFLOP/s", *shape = "8192x4x128";
        return 4.0 * DEC_KEYS * DEC_ROWS * D;
    case W_BLOCK:
        *unit = "Gelem/s", *shape = "16384";
        return (double)MR * D;
    default:
        *unit = "Gelem/s", *shape = "128";
        return (double)D;
    }
}

/* Seconds per call: calls batched to ~budget seconds, best batch. */
static double time_kernel(const fast_kernels *t, const bench_call *c,
                          bufs *b, double budget, int batches)
{
    /* the score kernels overwrite their scores: restore them in every call
     * of both the timed and the calibration runs (its cost is measured
     * and taken off) */
    const bool restore = c->work == W_SCORES;
    long n = 1;
    for (;;) { /* calibrate */
        double t0 = now();
        for (long i = 0; i < n; i++) {
            if (restore)
                memcpy(b->s, b->s0, sizeof(float) * KB * MR);
            c->run(t, b);
        }
        double dt = now() - t0;
        if (dt > budget / 4 || n > (1L << 24))
            break;
        n *= 2;
    }
    double best = INFINITY, copy = 0;
    if (restore) {
        double cbest = INFINITY;
        for (int k = 0; k < batches; k++) {
            double t0 = now();
            for (long i = 0; i < n; i++) {
                memcpy(b->s, b->s0, sizeof(float) * KB * MR);
                __asm__ volatile("" ::"r"(b->s) : "memory");
            }
            double dt = (now() - t0) / (double)n;
            cbest = dt < cbest ? dt : cbest;
        }
        copy = cbest;
    }
    for (int k = 0; k < batches; k++) {
        double t0 = now();
        for (long i = 0; i < n; i++) {
            if (restore)
                memcpy(b->s, b->s0, sizeof(float) * KB * MR);
            c->run(t, b);
        }
        double dt = (now() - t0) / (double)n - copy;
        best = dt < best ? dt : best;
    }
    return best;
}

/* Times one call at the level of t, prints and records its line; returns
 * its seconds, -1 when the table has no such kernel. */
static double bench_call_line(const fast_kernels *t, const bench_call *c,
                              double peak, bufs *b, double budget,
                              int batches)
{
    const char *unit, *shape;
    double w = work(c->work, &unit, &shape);
    if (!c->run(t, b)) { /* also the warm-up */
        printf("%-7s %-*s (none at this level)\n", t->name, NAME_W, c->name);
        return -1;
    }
    double sec = time_kernel(t, c, b, budget, batches);
    printf("%-7s %-*s %-11s %8.2f %s", t->name, NAME_W, c->name, shape,
           w / sec * 1e-9, unit);
    char fig[64];
    snprintf(fig, sizeof fig, "%s/%s", t->name, c->name);
    const int flop = strcmp(unit, "GFLOP/s") == 0;
    bench_record(fig, w / sec * 1e-9, unit,
                 peak > 0 && flop ? w / sec * 1e-9 / peak : NAN,
                 peak > 0 && flop ? "fma-peak" : "");
    if (peak > 0 && flop)
        printf("  %3.0f%% of peak", 100.0 * w / sec * 1e-9 / peak);
    printf("\n");
    return sec;
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    if (argc > 1 && !quick) {
        fprintf(stderr, "usage: fiacheck bench --kernels [--quick]\n");
        return 2;
    }
    const double budget = quick ? 0.02 : 0.1;
    const int batches = quick ? 2 : 5;
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("fiacheck bench --kernels: one thread, best of %d batches\n",
           batches);
    /* static: the buffers live until exit, and LeakSanitizer (the ASan
     * build, fiacheck bench --kernels --db in tests) sees them reachable */
    static bufs b;
    make_bufs(&b);
    for (int isa = FAST_ISA_COUNT - 1; isa >= 0; isa--) {
        const fast_kernels *t = fast_kernels_for((fast_isa)isa);
        if (t == NULL) {
            printf("%-7s not supported on this CPU (or not built)\n",
                   fast_isa_name((fast_isa)isa));
            continue;
        }
        double peak = peak_of((fast_isa)isa);
        if (peak > 0)
            printf("%-7s %-*s %8.1f GFLOP/s\n", t->name, NAME_W, "fma peak",
                   peak);
        else
            printf("%-7s %-*s (none: portable C)\n", t->name, NAME_W,
                   "fma peak");
        /* per operation, the seconds of its first call */
        double sec[FAST_KERNEL_COUNT];
        for (int op = 0; op < FAST_KERNEL_COUNT; op++)
            for (const bench_call *c = CALLS[op]; c->name != NULL; c++) {
                double s = bench_call_line(t, c, peak, &b, budget, batches);
                if (c == CALLS[op])
                    sec[op] = s;
            }
        /* the prefill block: Q.K^T (+ max), softmax, P.V */
        double qk = sec[FAST_KERNEL_qk_t_max] > 0 ? sec[FAST_KERNEL_qk_t_max]
                                                  : sec[FAST_KERNEL_qk_t];
        double sm = sec[FAST_KERNEL_softmax_full] > 0
                        ? sec[FAST_KERNEL_softmax_full]
                        : sec[FAST_KERNEL_softmax];
        double blk = qk + sm + sec[FAST_KERNEL_pv];
        double g = 4.0 * KB * MR * D / blk * 1e-9;
        printf("%-7s prefill block %.1f GFLOP/s", t->name, g);
        char fig[64];
        snprintf(fig, sizeof fig, "%s/prefill block", t->name);
        bench_record(fig, g, "GFLOP/s", peak > 0 ? g / peak : NAN,
                     peak > 0 ? "fma-peak" : "");
        if (peak > 0)
            printf(" = %.0f%% of peak", 100.0 * g / peak);
        printf(" (softmax %.0f%% of the block's time)\n", 100.0 * sm / blk);
    }
    return 0;
}
