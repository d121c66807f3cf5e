/* The schedule of phase two: how a plan is cut into tasks, the workspace
 * (one scratch region per thread, then the decode partials), the threads,
 * and the decode merge.
 *
 * Prefill: tasks are (batch, KV head, run of query heads, block of query
 * rows), taken by the threads from a shared counter, longest (latest query
 * rows under a causal mask) first.  Decode (Q_S = 1): every (batch, KV head)
 * is also split along the keys, one split per thread (flash-decoding), and
 * the splits are merged at the end; a shared prefix runs as tasks of its
 * own, once for every batch (schedule_shared).  With kv_pre the threads
 * first widen K/V into the workspace in chunks, then wait for all chunks,
 * then run.
 * Threads: FIA_FAST_THREADS (1..16), default 2; fixed at plan time because the workspace depends on it.
 * A task order (fastSetTaskOrder, a testing aid) keeps that plan but runs
 * every task on one thread in an order its seed picks, the order array in
 * the workspace: what one task leaves in a thread's scratch for the next
 * then shows every time. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "fast_internal.h"

#define ALIGN64(x) (((x) + 63u) & ~(uint64_t)63u)

/* fastSetThreadCount's choice (0: none), process-wide like the kernel
 * level: a run's plan reads it once. */
static _Atomic int forced_threads;
/* fastSetTaskOrder's seed (0: none), read by the plan likewise. */
static _Atomic unsigned long long forced_order;

int fast_thread_count(void)
{
    int f = atomic_load(&forced_threads);
    if (f > 0)
        return f;
    int n = fast_threads_setting();
    return n > 0 ? n : 2;
}

/* Decode with a shared prefix and B > 1: the prefix keys as tasks of
 * their own, once for every batch (prefix.md: "fast/ reads the prefix once
 * for all batches"): per KV head its B x group query rows in tiles of up
 * to FAST_MROWS (one block of prefix keys, widened once, serves a whole
 * tile: a matrix product instead of B streams of the same rows), the
 * prefix split along the keys until every thread has a task; the own keys
 * are split from P on as decode splits.  The tiles of one split are taken
 * in order (a split's keys then come from the cache), spread among the
 * own keys' tasks (attention.c).  Off (the per-batch path, every key read
 * by its batch) when the partial records of every row would pass
 * FAST_SPLIT_MAX_BYTES. */
static void schedule_shared(fast_plan *p, uint64_t rec)
{
    const int64_t rows = p->B * p->group;
    const int64_t pt = rows < FAST_MROWS ? rows : FAST_MROWS;
    const int64_t ntile = (rows + pt - 1) / pt;
    const int64_t per_split = p->KV_N * ntile;
    int64_t want = (p->sched.nthreads + per_split - 1) / per_split;
    const int64_t most = (p->prefix.P + FAST_KBLOCK - 1) / FAST_KBLOCK;
    want = want < 1 ? 1 : want > most ? most : want;
    const int64_t per = (p->prefix.P + want - 1) / want;
    const int64_t chunk = (per + FAST_KBLOCK - 1) / FAST_KBLOCK * FAST_KBLOCK;
    const int64_t npsplit = (p->prefix.P + chunk - 1) / chunk;
    if ((uint64_t)(p->B * p->N) * (uint64_t)(npsplit + p->sched.nsplit) * rec >
        FAST_SPLIT_MAX_BYTES)
        return;
    p->sched.shared = true;
    p->sched.pt_rows = pt, p->sched.n_ptile = ntile;
    p->sched.n_psplit = npsplit, p->sched.p_chunk = chunk;
    const int64_t L = (pt + 15) & ~(int64_t)15;
    p->sched.L = p->sched.L > L ? p->sched.L : L;
}

/* Decode (flash-decoding): keys [base, base + S) of every (batch, KV head)
 * split into one chunk per thread (multiples of FAST_KBLOCK). */
static void schedule_splits(fast_plan *p, int64_t base, int64_t S,
                            uint64_t rec)
{
    p->sched.nsplit = 1;
    p->sched.kv_base = base;
    p->sched.kv_chunk = S > 0 ? S : 1;
    if (p->Q_S == 1 && p->sched.nthreads > 1 && S >= 2 * (int64_t)FAST_KBLOCK &&
        (uint64_t)(p->B * p->N) * (uint64_t)p->sched.nthreads * rec <=
            FAST_SPLIT_MAX_BYTES) {
        int64_t per = (S + p->sched.nthreads - 1) / p->sched.nthreads;
        p->sched.kv_chunk = (per + FAST_KBLOCK - 1) / FAST_KBLOCK * FAST_KBLOCK;
        p->sched.nsplit =
            (int)((S + p->sched.kv_chunk - 1) / p->sched.kv_chunk);
    }
}

void fast_plan_schedule(fast_plan *p)
{
    p->Dk = p->D + p->rope.D; /* MLA: the rope lengthens Q.K^T only */
    p->sched.Dp = (p->Dk + 15) & ~(int64_t)15;
    p->sched.Dvp = (p->D + 15) & ~(int64_t)15;
    p->sched.hpt = p->group < FAST_MROWS ? p->group : FAST_MROWS;
    p->sched.n_hsub = (p->group + p->sched.hpt - 1) / p->sched.hpt;
    int64_t qb = FAST_MROWS / p->sched.hpt;
    qb = qb < 1 ? 1 : qb > p->Q_S ? p->Q_S : qb;
    p->sched.qb = qb < 1 ? 1 : qb;
    p->sched.n_qblk = (p->Q_S + p->sched.qb - 1) / p->sched.qb;
    p->sched.mrows = p->sched.hpt * p->sched.qb;
    p->sched.L = (p->sched.mrows + 15) & ~(int64_t)15;
    p->sched.nthreads = fast_thread_count();
    p->sched.task_order = (uint64_t)atomic_load(&forced_order);
    uint64_t rec = (uint64_t)(p->sched.Dp + 16) * sizeof(float);
    /* a batch's keys are logical: a shared prefix's P, then its own */
    p->sched.shared = false;
    p->sched.pt_rows = p->sched.n_ptile = p->sched.n_psplit = 0;
    p->sched.p_chunk = 1;
    if (p->Q_S == 1 && p->prefix.P > 0 && p->B > 1) {
        schedule_splits(p, p->prefix.P, p->KV_S, rec);
        schedule_shared(p, rec);
    }
    if (!p->sched.shared)
        schedule_splits(p, 0, p->prefix.P + p->KV_S, rec);
    p->sched.nrec = (int)(p->sched.n_psplit + p->sched.nsplit);
    p->sched.scratch_bytes = ALIGN64(fast_scratch_bytes(p));
    p->sched.partial_offset =
        (uint64_t)p->sched.nthreads * p->sched.scratch_bytes;
    uint64_t partial = p->sched.nrec > 1
                           ? (uint64_t)(p->B * p->N * p->sched.nrec) * rec : 0;
    uint64_t end = ALIGN64(p->sched.partial_offset + partial);
    /* K/V widened once per run (kv_pre) for the register-tiled Q.K^T:
     * each row would otherwise be widened by every task of its KV head
     * (n_hsub x n_qblk of them; ~8 % of the prefill bench).  Also with one
     * task per head, so that small shapes (the tests) take this path too;
     * the dot form (decode) streams K/V once and widens per block.  A
     * shared prefix is widened once for every batch. */
    uint64_t nrows = (uint64_t)p->B * (uint64_t)p->KV_N * (uint64_t)p->KV_S +
                     (uint64_t)p->KV_N * (uint64_t)p->prefix.P;
    uint64_t kvb = nrows * (uint64_t)p->sched.Dp * sizeof(float);
    p->sched.kv_pre = p->Q_S > 1 && p->sched.mrows > FAST_DOT_MAX &&
                      nrows > 0 && 2 * kvb + nrows <= FAST_KVPRE_MAX_BYTES;
    p->sched.kv_offset = p->sched.kv_bytes = p->sched.vbad_offset = 0;
    if (p->sched.kv_pre) {
        p->sched.kv_offset = end;
        p->sched.kv_bytes = kvb;
        p->sched.vbad_offset = end + 2 * kvb;
        end = ALIGN64(p->sched.vbad_offset + nrows);
    }
    p->sched.order_offset = end; /* fastSetTaskOrder: the tasks' order */
    if (p->sched.task_order != 0)
        end = ALIGN64(end + (uint64_t)fast_task_count(p) * sizeof(int64_t));
    p->sched.workspace_size = end + 64; /* + alignment */
}

typedef struct pool {
    const fast_plan *p;
    char *ws;
    float *partials;
    int64_t ntasks, nconv;
    atomic_llong next, conv_next, conv_done;
    const int64_t *perm;     /* task k runs as perm[k]; NULL: as it comes */
} pool;

/* splitmix64: the stream a task order's seed gives */
static uint64_t mix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The tasks in the order the seed picks (Fisher-Yates), in the
 * workspace's order area. */
static const int64_t *order_of(const fast_plan *p, char *ws, int64_t n)
{
    int64_t *perm = (int64_t *)(void *)(ws + p->sched.order_offset);
    uint64_t x = p->sched.task_order;
    for (int64_t k = 0; k < n; k++)
        perm[k] = k;
    for (int64_t k = n - 1; k > 0; k--) {
        const int64_t j = (int64_t)(mix64(&x) % (uint64_t)(k + 1));
        const int64_t t = perm[k];
        perm[k] = perm[j], perm[j] = t;
    }
    return perm;
}

static int64_t task_at(const pool *pl, long long k)
{
    return pl->perm != NULL ? pl->perm[k] : (int64_t)k;
}

typedef struct worker_arg {
    pool *pl;
    int index;
} worker_arg;

static void *worker(void *arg)
{
    const worker_arg *a = arg;
    pool *pl = a->pl;
    char *scr = pl->ws + (uint64_t)a->index * pl->p->sched.scratch_bytes;
    /* Zero once: the padding columns of the K/V buffers stay zero. */
    memset(scr, 0, pl->p->sched.scratch_bytes);
    if (pl->nconv > 0) {
        /* K/V conversion first; a task may need any chunk, so wait until
         * every chunk taken is done (a thread that failed to start takes
         * none, so this cannot hang). */
        for (;;) {
            long long c = atomic_fetch_add(&pl->conv_next, 1);
            if (c >= pl->nconv)
                break;
            fast_kvpre_chunk(pl->p, pl->ws, (int64_t)c);
            atomic_fetch_add(&pl->conv_done, 1);
        }
        while (atomic_load(&pl->conv_done) < pl->nconv)
            sched_yield();
    }
    for (;;) {
        long long t = atomic_fetch_add(&pl->next, 1);
        if (t >= pl->ntasks)
            break;
        fast_run_task(pl->p, pl->ws, scr, pl->partials, task_at(pl, t));
    }
    return NULL;
}

void fast_attention_run(const fast_plan *p, void *ws)
{
    pool pl = {.p = p, .ws = ws, .ntasks = fast_task_count(p)};
    pl.partials = (float *)(void *)((char *)ws + p->sched.partial_offset);
    atomic_init(&pl.next, 0);
    pl.nconv = p->sched.kv_pre ? fast_kvpre_chunks(p) : 0;
    atomic_init(&pl.conv_next, 0);
    atomic_init(&pl.conv_done, 0);
    int nt = p->sched.nthreads < pl.ntasks ? p->sched.nthreads : (int)pl.ntasks;
    pl.perm = NULL;
    if (p->sched.task_order != 0) {
        pl.perm = order_of(p, ws, pl.ntasks);
        nt = 1; /* one scratch, every task after another: what one task
                   leaves for the next shows */
    }
    pthread_t tid[FAST_MAX_THREADS];
    worker_arg args[FAST_MAX_THREADS];
    bool started[FAST_MAX_THREADS] = {false};
    for (int i = 1; i < nt; i++) {
        args[i] = (worker_arg){&pl, i};
        started[i] = pthread_create(&tid[i], NULL, worker, &args[i]) == 0;
    }
    args[0] = (worker_arg){&pl, 0};
    worker(&args[0]); /* a thread that failed to start leaves its share */
    for (int i = 1; i < nt; i++)
        if (started[i])
            pthread_join(tid[i], NULL);
    if (p->sched.nrec > 1)
        fast_merge_splits(p, pl.partials, ws);
}

int fastThreadCount(void)
{
    return fast_thread_count();
}

int fastSetThreadCount(int n)
{
    if (n < 0 || n > FAST_MAX_THREADS)
        return -1;
    atomic_store(&forced_threads, n);
    return 0;
}

void fastSetTaskOrder(unsigned long long seed)
{
    atomic_store(&forced_order, seed);
}

unsigned long long fastTaskOrder(void)
{
    return atomic_load(&forced_order);
}

void fastPathThresholds(fast_path_thresholds *t)
{
    t->key_block = FAST_KBLOCK;
    t->d_tile = 16; /* fast_plan_schedule: Dp = D rounded up to 16 */
    t->dot_max_rows = FAST_DOT_MAX;
    t->rows_per_task = FAST_MROWS;
    t->split_min_keys = 2 * FAST_KBLOCK;
    t->kvpre_rows = FAST_KVPRE_ROWS;
    t->max_threads = FAST_MAX_THREADS;
}
