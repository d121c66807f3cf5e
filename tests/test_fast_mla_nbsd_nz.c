/* fast/ MLA's *_NBSD outputs (attention_out [N, B, Q_S, D]; 003
 * input_layout) and NZ cache ([blockNum, KV_N, D/16, blockSize, 16], key
 * _rope alike; 003 MLA list): their arithmetic against the naive
 * attention of mla_testlib.h, then each against its twin, the same call
 * and data in the plain form (the output in the query's layout; the
 * cache with its rows contiguous, (blocknum, block_size, D) or (blocknum,
 * 1, block_size, D)): the twins run the same arithmetic on the same
 * floats, so every element must come out bit for bit the same, at every
 * kernel level this CPU has and 1 or 3 threads.  The rules of both:
 * test_fast_mla.c. */
#include "mla_testlib.h"

/* Phase one and two of m (built with data) at the current level and
 * thread count; whether both succeeded. */
static bool run(mla *m, const char *what)
{
    for (int64_t i = 0; i < numel(&m->out); i++)
        m->od[i] = 0x7bcd;
    fast_executor *ex = NULL;
    uint64_t wss = 0;
    fia_status st = phase_one(m, &ex, &wss);
    if (st == FIA_OK)
        st = ftl_phase_two(ex, wss);
    CHECK_MSG(st == FIA_OK, "%s: %d: %s", what, st, fastLastError());
    return st == FIA_OK;
}

/* m and its twin t (t's own output buffer, and cache buffers when
 * given) at every level and 1 or 3 threads: every output element of
 * every row that exists the same bits. */
static void same_bits(mla *m, mla *t, const char *what)
{
    for (int lv = 0; lv < 3; lv++) {
        if (!ftl_level_wanted(levels[lv]))
            continue;
        fastForceKernelLevel(levels[lv]);
        for (int th = 1; th <= 3; th += 2) {
            fastSetThreadCount(th);
            if (!run(m, what) || !run(t, what))
                continue;
            int64_t bad = 0;
            for (int64_t b = 0; b < m->B; b++)
                for (int64_t n = 0; n < m->N; n++)
                    for (int64_t i = 0; i < m->ql[b]; i++) {
                        const uint16_t *x = m->od + o_off(m, b, n, i);
                        const uint16_t *y = t->od + o_off(t, b, n, i);
                        bad += memcmp(x, y, (size_t)m->D * 2) != 0;
                    }
            CHECK_MSG(bad == 0, "%s (%s, %d threads): %lld rows differ "
                      "from the twin's", what, levels[lv], th,
                      (long long)bad);
        }
    }
    fastForceKernelLevel("auto");
    fastSetThreadCount(0);
}

/* An *_NBSD call (built with data) against the same call in its query's
 * layout: the output [B, Q_S, N, D] / [B, N, Q_S, D] / BSH. */
static void nbsd_twin(mla m, const char *what)
{
    build(&m, true);
    mla t = m;
    t.layout = strncmp(m.layout, "BSH", 3) == 0    ? "BSH"
               : strncmp(m.layout, "BSND", 4) == 0 ? "BSND"
                                                   : "BNSD";
    t.nbsd = false;
    t.out = t.q;
    t.od = malloc((size_t)numel(&t.out) * 2);
    t.out.data = t.od;
    same_bits(&m, &t, what);
    free(t.od);
    release(&m);
}

/* An NZ call (built with data) against the same cache with contiguous
 * rows (every block, the ones no batch owns too): rank 4 for a token
 * layout, rank 3 (the same bytes at KV_N 1) for a batched one, which
 * takes no rank-4 cache.  inf_key >= 0: batch 0's value of that key holds
 * an inf (its rows' V blocks then take the portable P.V, which only the
 * blocks holding it may: the finite answer is each row's own). */
static void nz_twin(mla m, int64_t inf_key, const char *what)
{
    m.nz = true;
    build(&m, true);
    if (inf_key >= 0)
        m.vd[k_el(&m, k_off(&m, 0, 0, inf_key, m.D), 5)] =
            m.dt == FIA_DT_FP16 ? 0x7c00 : 0x7f80;
    mla t = m;
    t.nz = false;
    t.cache4d = m.tnd;
    const int64_t kn = numel(&m.k), rn = numel(&m.kr);
    t.kd = malloc((size_t)kn * 2), t.vd = malloc((size_t)kn * 2);
    t.krd = malloc((size_t)rn * 2);
    t.od = malloc((size_t)numel(&m.out) * 2);
    for (int64_t id = 0; id < m.nblk; id++)
        for (int64_t r = 0; r < m.bs; r++) {
            /* KV_N 1: block id's row r at (id * bs + r) * dd in the twin */
            const int64_t zk = id * m.D * m.bs + r * 16;
            const int64_t zr = id * DR * m.bs + r * 16;
            for (int64_t d = 0; d < m.D; d++) {
                t.kd[(id * m.bs + r) * m.D + d] = m.kd[k_el(&m, zk, d)];
                t.vd[(id * m.bs + r) * m.D + d] = m.vd[k_el(&m, zk, d)];
            }
            for (int64_t d = 0; d < DR; d++)
                t.krd[(id * m.bs + r) * DR + d] = m.krd[k_el(&m, zr, d)];
        }
    if (t.cache4d) {
        t.k = tn(m.dt, 4, (int64_t[]){m.nblk, 1, m.bs, m.D}, t.kd);
        t.kr = tn(m.dt, 4, (int64_t[]){m.nblk, 1, m.bs, DR}, t.krd);
    } else {
        t.k = tn(m.dt, 3, (int64_t[]){m.nblk, m.bs, m.D}, t.kd);
        t.kr = tn(m.dt, 3, (int64_t[]){m.nblk, m.bs, DR}, t.krd);
    }
    t.v = t.k;
    t.v.data = t.vd;
    t.out.data = t.od;
    same_bits(&m, &t, what);
    free(t.kd), free(t.vd), free(t.krd), free(t.od);
    release(&m);
}

static void arithmetic(void)
{
    mla m;
    /* the *_NBSD outputs: Q_S 2..16 (sparse 3 with the mask) */
    m = base(), m.layout = "BSND_NBSD", m.QS = 4, m.sparse = 3;
    m.mask = true, m.kl[0] = 300, m.kl[1] = 150;
    numeric(m, "BSND_NBSD Q_S 4 bf16 N32 bs128");
    m = base(), m.layout = "BNSD_NBSD", m.dt = FIA_DT_FP16, m.N = 64;
    m.B = 3, m.QS = 2, m.sparse = 3, m.mask = true, m.kl[0] = 200;
    m.kl[1] = 17, m.kl[2] = 64, m.bs = 16, m.cache4d = true;
    numeric(m, "BNSD_NBSD Q_S 2 fp16 N64 bs16 4-D");
    m = base(), m.layout = "BSH_NBSD", m.B = 1, m.QS = 16;
    m.sparse = 3, m.mask = true, m.kl[0] = 140;
    numeric(m, "BSH_NBSD Q_S 16 bf16 N32 bs128");
    /* the NZ cache: decode (split by thread), Q_S > 1, a token layout,
     * an NBSD output */
    m = base(), m.nz = true, m.kl[0] = 500, m.kl[1] = 133;
    numeric(m, "NZ decode BSND bf16 N32");
    m = base(), m.nz = true, m.layout = "BSH", m.dt = FIA_DT_FP16;
    m.N = 64, m.QS = 3, m.sparse = 3, m.mask = true, m.kl[0] = 260;
    m.kl[1] = 129;
    numeric(m, "NZ Q_S 3 BSH fp16 N64");
    m = base(), m.nz = true, m.layout = "TND", m.B = 3, m.ql[0] = 1;
    m.ql[1] = 3, m.ql[2] = 2, m.kl[0] = 400, m.kl[1] = 1, m.kl[2] = 50;
    numeric(m, "NZ TND bf16 N32");
    m = base(), m.nz = true, m.layout = "BSND_NBSD", m.dt = FIA_DT_FP16;
    m.QS = 5, m.sparse = 3, m.mask = true, m.kl[0] = 250, m.kl[1] = 90;
    numeric(m, "NZ BSND_NBSD Q_S 5 fp16 N32");
}

static void twins(void)
{
    mla m;
    m = base(), m.layout = "BSND_NBSD", m.QS = 3, m.sparse = 3;
    m.mask = true, m.kl[0] = 300, m.kl[1] = 77;
    nbsd_twin(m, "BSND_NBSD / BSND");
    m = base(), m.layout = "BSH_NBSD", m.dt = FIA_DT_FP16, m.N = 64;
    m.QS = 16, m.sparse = 3, m.mask = true, m.kl[0] = 40, m.kl[1] = 200;
    m.bs = 16;
    nbsd_twin(m, "BSH_NBSD / BSH");
    m = base(), m.layout = "BNSD_NBSD", m.B = 3, m.QS = 2, m.sparse = 3;
    m.mask = true, m.kl[0] = 2, m.kl[1] = 129, m.kl[2] = 500;
    m.cache4d = true;
    nbsd_twin(m, "BNSD_NBSD / BNSD");
    m = base(), m.kl[0] = 1000, m.kl[1] = 129;
    nz_twin(m, -1, "NZ / rank 3, decode BSND bf16");
    m = base(), m.layout = "BSH", m.dt = FIA_DT_FP16, m.N = 128, m.QS = 4;
    m.sparse = 3, m.mask = true, m.kl[0] = 300, m.kl[1] = 5;
    nz_twin(m, -1, "NZ / rank 3, Q_S 4 BSH fp16");
    m = base(), m.layout = "TND_NTD", m.B = 2, m.ql[0] = 2, m.ql[1] = 1;
    m.kl[0] = 260, m.kl[1] = 31;
    nz_twin(m, -1, "NZ / rank 4, TND_NTD bf16");
    m = base(), m.layout = "BSH_NBSD", m.QS = 2, m.sparse = 3;
    m.mask = true, m.kl[0] = 128, m.kl[1] = 256;
    nz_twin(m, -1, "NZ / rank 3, BSH_NBSD bf16");
    /* an inf in V at key 120 of a batch of 125 keys: query rows 0..10 of
     * 16 (causal) do not reach it, and their keys 0..63 (the same cache
     * block, K/V widened once: kv_pre) keep the SIMD P.V, whose fused
     * float32 sums of unrounded P (fp16 high precision; a rounded P times
     * V is exact either way) show through fp16 */
    m = base(), m.dt = FIA_DT_FP16, m.inner = 0, m.N = 64, m.QS = 16;
    m.sparse = 3, m.mask = true, m.kl[0] = 125, m.kl[1] = 40;
    nz_twin(m, 120, "NZ / rank 3, Q_S 16 BSND fp16, an inf in V");
}

int main(void)
{
    arithmetic();
    twins();
    return check_summary();
}
