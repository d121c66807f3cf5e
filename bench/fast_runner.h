/* The common runner of fiacheck-bench-fast (bench_fast.c, the main run and
 * its baselines) and of its families, one file each (fast_<family>.c,
 * each a comparison in turns that `--only <family>` also runs alone): the
 * shapes and their data, one timed call of fast/ (both phases, the
 * workspace kept out of the timing), the memory bandwidth, and the
 * families' entry points. */
#ifndef FIA_BENCH_FAST_RUNNER_H
#define FIA_BENCH_FAST_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fia/fast.h"

#define THREADS 2

double now(void);

/* ---- shapes -------------------------------------------------------------- */
typedef struct shape {
    const char *name;
    int64_t B, N, KVN, QS, KVS, D;
    int sparse; /* 0 or 3 (causal) */
} shape;

extern const shape PREFILL, CAUSAL, DECODE;

/* Scores that take part (right-down causal when sparse = 3). */
double scores(const shape *s);
/* 4*D flops per score that takes part. */
double flops(const shape *s);
/* Bytes of K and V (fp16). */
double kv_bytes(const shape *s);

/* ---- data ---------------------------------------------------------------- */
/* The bench's one pseudo-random stream. */
uint32_t rnd(void);
/* fp16 values of magnitude [2^(e0-15), 2^(e0-12)), random sign. */
uint16_t *rand_fp16(int64_t n, int e0);

typedef struct data {
    uint16_t *q, *k, *v, *o;
    uint8_t *mask; /* 2048 x 2048 triu(1) */
} data;

data make_data(const shape *s);
void free_data(data *d);

/* ---- fast ---------------------------------------------------------------- */
/* The workspace, kept from call to call of one shape. */
typedef struct runner {
    void *ws;
    uint64_t cap;
} runner;

/* The same keys as a page-attention cache (blocknum, KV_N, block_size, D)
 * read through a block table whose ids are a shuffle: blocks of one batch
 * are scattered over the cache, as a serving system's pages are
 * (fast_paged.c makes them). */
typedef struct paged {
    int64_t bs, cols, blocknum;
    int32_t *bt;
    uint16_t *k, *v;
    int64_t *kv_len;
} paged;

/* Lengths below S (actual_seq_lengths, actual_seq_lengths_kv: one value
 * per batch), the rows right-padded or, left, left-padded by pq / pkv rows
 * (query_padding_size, kv_padding_size). */
typedef struct padcall {
    int64_t q_len[8], kv_len[8];
    int64_t pq, pkv;
    bool left;
} padcall;

/* Best of reps runs of fast/ on shape s (paged through pg, with lengths
 * and padding pd, with pse_shift pse, when not NULL); the workspace is
 * allocated outside the timing and kept in rn. */
double time_fast_pd(const shape *s, const data *d, const paged *pg,
                    const padcall *pd, const fia_tensor *pse, int reps,
                    runner *rn);
/* The same, without lengths, padding or pse (time_fast_in: contiguous). */
double time_fast_pg(const shape *s, const data *d, const paged *pg, int reps,
                    runner *rn);
double time_fast_in(const shape *s, const data *d, int reps, runner *rn);
/* Best of reps contiguous runs with a workspace of their own. */
double time_fast(const shape *s, const data *d, int reps);

/* ---- memory bandwidth (fast_bandwidth.c) --------------------------------- */
#define BW_BYTES ((size_t)1 << 30)

/* GB/s of one read of buf (BW_BYTES, >> LLC) by THREADS threads. */
double bandwidth(const uint64_t *buf);

/* ---- the families, fast_<family>.c: each prints its lines ---------------- */
void bench_paged(int reps);
void bench_padding(int reps);
void bench_pse(int reps);
void bench_prefix(int reps);
void bench_antiquant(int reps);
void bench_int8(int reps);
void bench_mla(int reps);

#endif
