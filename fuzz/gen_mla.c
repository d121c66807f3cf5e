/* MLA (003's query_rope / key_rope) in generated cases.
 *
 * Both targets build an MLA call whole, from a description (mla_spec): the
 * D = 512 scene (32, 64 or 128 query heads over one KV head, a page
 * attention cache of block_size 16 or 128 of rank 3 or 4, Q_S 1 with
 * sparse 0 or Q_S 2..16 with sparse 3 and the optimized mask, in BSH, BSND,
 * BNSD, their *_NBSD outputs (Q_S 2..16, attention_out (N, B, Q_S, D)) or
 * the token layouts TND / TND_NTD with per-batch kv lengths; now and then
 * the NZ cache (blocks, KV_N, D/16, block_size, 16), of block_size 128 and
 * not with a BNSD query) or
 * the D = 128 scene (TND / NTD_TND with cumulative lengths, GQA, sparse 0
 * or 3).  The case the fragments before made is dropped (its run lines
 * kept): MLA excludes most features, so a mix would be refused anyway.
 *
 * fuzz_params: now and then, each of MLA's rules broken now and then (a
 * rope missing, of another dtype or shape, another D, heads, KV heads,
 * Q_S, sparse mode, layout, block size, no page attention, a table short
 * of a column, an exclusion: lse, pse, int8 key/value, output scale; an
 * NBSD output at Q_S 1 or 17 or of the query's shape; an NZ cache with
 * BNSD, of block_size 16, of tiles of 32).
 * Full quantization (003 D = 512 "支持全量化场景", query_quant): now and
 * then the batched D = 512 call in int8 (query, key, value) with bf16 ropes
 * and output, dequant_scale_query of the query's shape without D,
 * per-tensor key/value scales [1], query_quant_mode 3, the int8 NZ cache in
 * tiles of 32; fuzz_params breaks each of its rules now and then (a scale
 * missing, of bf16 or of another shape, query_quant_mode 0, key/value mode
 * 1, an offset, an fp16 output, bf16's NZ tiles of 16, a token layout).
 * fuzz_numeric: now and then a valid one with generated data (ropes now
 * and then large, so that their term decides the scores, or zero), small
 * enough for the reference, long enough now and then for fast/'s key
 * blocks and split decode.  Fragment contract: fuzz/gen.h. */
#include <math.h>
#include <string.h>
#include "fuzz/gen.h"

#define MLA_MAX_B 4

typedef struct mla_spec {
    const char *layout;
    int tnd, ntd, d512;
    fia_dtype dt, qr_dt, kr_dt;
    int64_t B, N, KV_N, D, Dv, Dq_r, Dk_r;
    int64_t q_len[MLA_MAX_B], kv_len[MLA_MAX_B];
    int64_t Q_S;              /* batched layouts: every batch's */
    int64_t bs;               /* 0: no page attention */
    int cache4d;
    int64_t extra_blocks, col_delta;
    int qrope, krope;
    int nbsd, out_plain;      /* an *_NBSD output; of the query's shape */
    int nz;                   /* the NZ cache (rank 5) */
    int64_t tile;             /* its tiles' width: 16, 32 a break */
    int numeric;              /* fuzz_numeric's */
    int64_t sparse;
    int mask;
    int lse, pse, int8kv, post;
    int query_quant;          /* full quantization (int8 query) */
    /* which of its rules to break (query_quant_breaks) */
    int query_quant_break;
} mla_spec;

static int64_t max_of(const int64_t *v, int64_t n)
{
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

/* A batched tensor of heads H, rows S, head dim D in the spec's layout. */
static fia_status batched(fia_case *c, fia_slot s, fia_dtype dt,
                          const char *layout, int64_t B, int64_t H,
                          int64_t S, int64_t D)
{
    if (strncmp(layout, "BSH", 3) == 0) {
        int64_t sh[3] = {B, S, H * D};
        return fz_case_tensor(c, s, dt, 3, sh);
    }
    if (strncmp(layout, "BSND", 4) == 0) {
        int64_t sh[4] = {B, S, H, D};
        return fz_case_tensor(c, s, dt, 4, sh);
    }
    int64_t sh[4] = {B, H, S, D};
    return fz_case_tensor(c, s, dt, 4, sh);
}

/* A token tensor [T, H, D] or [H, T, D]. */
static fia_status tokens(fia_case *c, fia_slot s, fia_dtype dt, int ntd,
                         int64_t T, int64_t H, int64_t D)
{
    int64_t sh[3] = {ntd ? H : T, ntd ? T : H, D};
    return fz_case_tensor(c, s, dt, 3, sh);
}

/* A page-attention cache of nblk blocks of bs rows, H heads of D; NZ
 * (tile > 0): (nblk, H, D/tile, bs, tile). */
static fia_status cache(fia_case *c, fia_slot s, fia_dtype dt, int rank4,
                        int64_t tile, int64_t nblk, int64_t bs, int64_t H,
                        int64_t D)
{
    if (tile > 0) {
        int64_t sh[5] = {nblk, H, D / tile, bs, tile};
        return fz_case_tensor(c, s, dt, 5, sh);
    }
    if (rank4) {
        int64_t sh[4] = {nblk, H, bs, D};
        return fz_case_tensor(c, s, dt, 4, sh);
    }
    int64_t sh[3] = {nblk, bs, H * D};
    return fz_case_tensor(c, s, dt, 3, sh);
}

/* Full quantization's breaks: m->query_quant_break names one
 * (QUERY_QUANT_BREAK_NONE: a valid call), query_quant_breaks says the rule it
 * breaks and how. */
enum {
    QUERY_QUANT_BREAK_NONE,
    QUERY_QUANT_BREAK_QQ_MODE,
    QUERY_QUANT_BREAK_QSCALE_SHAPE,
    QUERY_QUANT_BREAK_NO_VSCALE,
    QUERY_QUANT_BREAK_KSCALE_DT,
    QUERY_QUANT_BREAK_KV_MODE,
    QUERY_QUANT_BREAK_KSCALE_SHAPE,
    QUERY_QUANT_BREAK_OUT_DT,
    QUERY_QUANT_BREAK_KOFFSET,
    QUERY_QUANT_BREAK_KV_DT,
    QUERY_QUANT_BREAK_COUNT
};
static const struct {
    const char *rule, *how;
} query_quant_breaks[QUERY_QUANT_BREAK_COUNT] = {
    [QUERY_QUANT_BREAK_QQ_MODE] = {"QQ-002", "query_quant_mode 0"},
    [QUERY_QUANT_BREAK_QSCALE_SHAPE] = {"QQ-003",
                                        "dequant_scale_query's (B, N, S) or "
                                        "(B, S, N) with N and S swapped"},
    [QUERY_QUANT_BREAK_NO_VSCALE] = {"MLA-052", "no value_antiquant_scale"},
    [QUERY_QUANT_BREAK_KSCALE_DT] = {"MLA-053", "a bf16 key_antiquant_scale"},
    [QUERY_QUANT_BREAK_KV_MODE] = {"MLA-054",
                                   "key and value antiquant modes 1"},
    [QUERY_QUANT_BREAK_KSCALE_SHAPE] = {"MLA-055",
                                        "a key_antiquant_scale [1, 1]"},
    [QUERY_QUANT_BREAK_OUT_DT] = {"MLA-051",
                                  "an fp16 attention_out (mla_build)"},
    [QUERY_QUANT_BREAK_KOFFSET] = {"MLA-X03", "a key_antiquant_offset"},
    [QUERY_QUANT_BREAK_KV_DT] = {"MLA-050", "bf16 key and value (mla_build)"},
};

const char *fz_mla_query_quant_break_rule(int brk)
{
    return brk > QUERY_QUANT_BREAK_NONE && brk < QUERY_QUANT_BREAK_COUNT
               ? query_quant_breaks[brk].rule
               : NULL;
}

/* Full quantization's scales and modes, m->query_quant_break's break made. */
static void query_quant_build(fz_gen *g, const mla_spec *m)
{
    fia_case *c = g->c;
    const int bnsd = strncmp(m->layout, "BNSD", 4) == 0;
    int64_t qsh[3] = {m->B, bnsd ? m->N : m->Q_S, bnsd ? m->Q_S : m->N};
    if (m->query_quant_break == QUERY_QUANT_BREAK_QSCALE_SHAPE) {
        const int64_t t = qsh[1];
        qsh[1] = qsh[2], qsh[2] = t;
    }
    int64_t one[2] = {1, 1};
    if (m->tnd) { /* TND-X05's: a shape of its own */
        int64_t tsh[3] = {m->q_len[0], m->N, 1};
        fz_note(g, fz_case_tensor(c, FIA_SLOT_DEQUANT_SCALE_QUERY, FIA_DT_FP32, 3,
                             tsh));
    } else {
        fz_note(g, fz_case_tensor(c, FIA_SLOT_DEQUANT_SCALE_QUERY, FIA_DT_FP32, 3,
                             qsh));
    }
    fz_note(g,
            fz_case_tensor(
                c, FIA_SLOT_KEY_ANTIQUANT_SCALE,
                m->query_quant_break == QUERY_QUANT_BREAK_KSCALE_DT
                    ? FIA_DT_BF16
                    : FIA_DT_FP32,
                m->query_quant_break == QUERY_QUANT_BREAK_KSCALE_SHAPE ? 2 : 1,
                one));
    if (m->query_quant_break != QUERY_QUANT_BREAK_NO_VSCALE)
        fz_note(g, fz_case_tensor(c, FIA_SLOT_VALUE_ANTIQUANT_SCALE, FIA_DT_FP32,
                             1, one));
    if (m->query_quant_break == QUERY_QUANT_BREAK_KOFFSET)
        fz_note(g, fz_case_tensor(c, FIA_SLOT_KEY_ANTIQUANT_OFFSET, FIA_DT_FP32, 1,
                             one));
    fz_case_attr(c, FIA_ATTR_QUERY_QUANT_MODE,
                 m->query_quant_break == QUERY_QUANT_BREAK_QQ_MODE ? 0 : 3);
    if (m->query_quant_break == QUERY_QUANT_BREAK_KV_MODE) {
        fz_case_attr(c, FIA_ATTR_KEY_ANTIQUANT_MODE, 1);
        fz_case_attr(c, FIA_ATTR_VALUE_ANTIQUANT_MODE, 1);
    }
}

/* The whole call of the spec into g->c (its run lines and seed kept). */
static void mla_build(fz_gen *g, const mla_spec *m)
{
    fia_case *c = g->c;
    const int32_t threads = c->threads;
    const uint64_t seed = c->seed, order = c->task_order;
    const fia_kernel_level level = c->kernel_level;
    fia_case_free(c);
    fia_case_init(c);
    c->threads = threads, c->seed = seed, c->task_order = order;
    c->kernel_level = level;
    fz_case_layout(c, m->layout);
    fz_case_attr(c, FIA_ATTR_NUM_HEADS, m->N);
    fz_case_attr(c, FIA_ATTR_NUM_KEY_VALUE_HEADS, m->KV_N);
    fz_case_attr(c, FIA_ATTR_SPARSE_MODE, m->sparse);
    const int64_t B = m->B;
    int64_t cq[MLA_MAX_B], ckv[MLA_MAX_B], T = 0, T_kv = 0;
    for (int64_t b = 0; b < B; b++)
        cq[b] = T += m->q_len[b], ckv[b] = T_kv += m->kv_len[b];
    /* query and query_rope (full quantization: an int8 query) */
    const fia_dtype qdt = m->query_quant ? FIA_DT_INT8 : m->dt;
    if (m->tnd) {
        fz_note(g, tokens(c, FIA_SLOT_QUERY, qdt, m->ntd, T, m->N, m->D));
        if (m->qrope)
            fz_note(g, tokens(c, FIA_SLOT_QUERY_ROPE, m->qr_dt, m->ntd, T,
                              m->N, m->Dq_r));
        fz_note(g, fz_case_array(c, FIA_ARR_ACTUAL_SEQ_LENGTHS, B, cq));
    } else {
        fz_note(g, batched(c, FIA_SLOT_QUERY, qdt, m->layout, B, m->N,
                           m->Q_S, m->D));
        if (m->qrope)
            fz_note(g, batched(c, FIA_SLOT_QUERY_ROPE, m->qr_dt, m->layout, B,
                               m->N, m->Q_S, m->Dq_r));
    }
    /* key, value, key_rope: a cache, tokens or batched */
    const fia_dtype kdt =
        (m->int8kv || m->query_quant) &&
                m->query_quant_break != QUERY_QUANT_BREAK_KV_DT
            ? FIA_DT_INT8
            : m->dt;
    if (m->bs > 0) {
        int64_t nb = 0, most = 0;
        for (int64_t b = 0; b < B; b++) {
            const int64_t k = (m->kv_len[b] + m->bs - 1) / m->bs;
            nb += k, most = k > most ? k : most;
        }
        const int64_t nblk = nb + m->extra_blocks > 0 ? nb + m->extra_blocks
                                                      : 1;
        int64_t cols = most + m->col_delta;
        cols = cols < 1 ? 1 : cols;
        const int64_t tile = m->nz ? m->tile : 0;
        fz_note(g, cache(c, FIA_SLOT_KEY, kdt, m->cache4d, tile, nblk, m->bs,
                         m->KV_N, m->D));
        fz_note(g, cache(c, FIA_SLOT_VALUE, kdt, m->cache4d, tile, nblk,
                         m->bs, m->KV_N, m->Dv));
        if (m->krope) /* the rope's NZ tiles are 16 wide (a float) */
            fz_note(g, cache(c, FIA_SLOT_KEY_ROPE, m->kr_dt, m->cache4d,
                             m->nz ? 16 : 0, nblk, m->bs, m->KV_N,
                             m->Dk_r));
        int64_t tsh[2] = {B, cols};
        fz_note(g, fz_case_tensor(c, FIA_SLOT_BLOCK_TABLE, FIA_DT_INT32, 2, tsh));
        fz_case_attr(c, FIA_ATTR_BLOCK_SIZE, m->bs);
        fz_note(g, fz_case_array(c, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, B, m->kv_len));
    } else if (m->tnd) {
        fz_note(g, tokens(c, FIA_SLOT_KEY, kdt, m->ntd, T_kv, m->KV_N, m->D));
        fz_note(g, tokens(c, FIA_SLOT_VALUE, kdt, m->ntd, T_kv, m->KV_N,
                          m->Dv));
        if (m->krope)
            fz_note(g, tokens(c, FIA_SLOT_KEY_ROPE, m->kr_dt, m->ntd, T_kv,
                              m->KV_N, m->Dk_r));
        fz_note(g, fz_case_array(c, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, B, ckv));
    } else {
        const int64_t S = max_of(m->kv_len, B) > 0 ? max_of(m->kv_len, B) : 1;
        fz_note(g, batched(c, FIA_SLOT_KEY, kdt, m->layout, B, m->KV_N, S,
                           m->D));
        fz_note(g, batched(c, FIA_SLOT_VALUE, kdt, m->layout, B, m->KV_N, S,
                           m->Dv));
        if (m->krope)
            fz_note(g, batched(c, FIA_SLOT_KEY_ROPE, m->kr_dt, m->layout, B,
                               m->KV_N, S, m->Dk_r));
        fz_note(g, fz_case_array(c, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, B, m->kv_len));
    }
    /* full quantization outputs bf16 (the case model derives int8 from an
     * int8 query): attention_out always written */
    const fia_dtype odt = !m->query_quant ? m->dt
                          : m->query_quant_break == QUERY_QUANT_BREAK_OUT_DT
                              ? FIA_DT_FP16
                              : FIA_DT_BF16;
    if (m->nbsd && !m->out_plain) { /* (N, B, Q_S, D) */
        int64_t osh[4] = {m->N, B, m->Q_S, m->Dv};
        fz_note(g, fz_case_tensor(c, FIA_SLOT_ATTENTION_OUT, odt, 4, osh));
    } else if (m->query_quant && m->tnd) {
        fz_note(g, tokens(c, FIA_SLOT_ATTENTION_OUT, odt, 0, T, m->N, m->Dv));
    } else if (m->query_quant) {
        fz_note(g, batched(c, FIA_SLOT_ATTENTION_OUT, odt, m->layout, B,
                           m->N, m->Q_S, m->Dv));
    }
    if (m->query_quant)
        query_quant_build(g, m);
    if (m->mask) {
        int64_t msh[2] = {2048, 2048};
        fz_note(g, fz_case_tensor(c, FIA_SLOT_ATTEN_MASK, FIA_DT_BOOL, 2, msh));
    }
    /* exclusions */
    if (m->lse)
        fz_case_lse_flag(c, 1);
    if (m->pse) {
        int64_t psh[4] = {B, m->N, m->tnd ? 16 : m->Q_S,
                          max_of(m->kv_len, B) + 1};
        fz_note(g, fz_case_tensor(c, FIA_SLOT_PSE_SHIFT, m->dt, 4, psh));
    }
    if (m->post) {
        int64_t one[1] = {1};
        fz_note(g, fz_case_tensor(c, FIA_SLOT_QUANT_SCALE2, FIA_DT_FP32, 1, one));
    }
}

/* Kv lengths of B batches, each in [lo, hi], some zero now and then. */
static void kv_lengths(fz_gen *g, mla_spec *m, int64_t lo, int64_t hi)
{
    for (int64_t b = 0; b < m->B; b++)
        m->kv_len[b] = fz_bytes_rare(g->f, 8) ? 0 : fz_bytes_range(g->f, lo, hi);
}

/* The D = 512 scene's *_NBSD outputs and NZ cache, drawn after the rest
 * of it (a seed that has run out of bytes reads "off": the calls seeds
 * made before them stay what they were).  li: the query's layout, BSH,
 * BSND or BNSD (0..2) taking an NBSD output. */
static void nbsd_nz(fz_gen *g, mla_spec *m, int li)
{
    static const char *const nbsd[] = {"BSH_NBSD", "BSND_NBSD", "BNSD_NBSD"};
    fz_bytes *f = g->f;
    if (g->meta) /* no NBSD output nor NZ cache without rope */
        return;
    if (li <= 2 && fz_bytes_rare(f, 25)) {
        m->nbsd = 1;
        m->layout = nbsd[li];
        /* 1 < Q_S <= 16: a decode call becomes Q_S 2..16, its sparse mode
         * and mask the other path's (an odd one stays odd) */
        if (m->Q_S == 1 && !fz_odd(g, 3)) {
            m->Q_S = fz_bytes_range(f, 2, 16);
            m->sparse = 3 - m->sparse;
            m->mask = !m->mask;
            for (int64_t b = 0; b < m->B; b++)
                m->q_len[b] = m->Q_S;
        }
        if (fz_odd(g, 3))
            m->out_plain = 1; /* attention_out of the query's shape */
    }
    /* the NZ cache: block_size 128, not with a BNSD query (MLA-041, 042) */
    m->nz = m->bs == 128 && li != 2 && fz_bytes_rare(f, 30);
    if (m->bs > 0 && fz_odd(g, 3))
        m->nz = 1;
    /* full quantization: int8's tiles of 32 (16 a break) */
    m->tile = (fz_odd(g, 3) ? 32 : 16) ^ (m->query_quant ? 48 : 0);
    m->cache4d = m->cache4d && !m->nz;
}

/* The D = 512 scene; odd: whether to break its rules now and then. */
static void spec512(fz_gen *g, mla_spec *m, int64_t max_kv)
{
    fz_bytes *f = g->f;
    static const char *const lay[] = {"BSH", "BSND", "BNSD", "TND",
                                      "TND_NTD", "BNSD_BSND", "NTD_TND"};
    static const int lw[] = {25, 20, 20, 15, 10, 3, 3};
    const int li = fz_wpick(g, lw, FZ_ARRLEN(lw), 5);
    m->layout = lay[li];
    m->tnd = li == 3 || li == 4 || li == 6;
    m->ntd = li == 6;
    m->d512 = 1;
    m->dt = fz_bytes_chance(f, 60) ? FIA_DT_BF16 : FIA_DT_FP16;
    /* full quantization: the batched layouts (a token layout refuses it,
     * TND-X05); not the metamorphic base (no valid call without rope) */
    m->query_quant =
        !g->meta && (!m->tnd || fz_odd(g, 20)) && fz_bytes_rare(f, 35);
    if (m->query_quant) {
        m->dt = FIA_DT_BF16;
        if (fz_odd(g, 30))
            m->query_quant_break =
                (int)fz_bytes_range(f, 1, QUERY_QUANT_BREAK_COUNT - 1);
    }
    static const int64_t heads[] = {32, 64, 128, 16, 48};
    static const int hw[] = {70, 15, 10, 3, 2};
    m->N = heads[fz_wpick(g, hw, FZ_ARRLEN(hw), 3)];
    m->KV_N = fz_odd(g, 3) ? 2 : 1;
    m->D = m->Dv = fz_odd(g, 2) ? 256 : 512;
    m->Dq_r = m->Dk_r = 64;
    m->B = fz_bytes_range(f, 1, m->tnd ? 3 : 2);
    const int decode = fz_bytes_chance(f, 60);
    m->Q_S = decode ? 1 : fz_bytes_range(f, 2, 16);
    if (fz_odd(g, 3))
        m->Q_S = 17;
    for (int64_t b = 0; b < m->B; b++)
        m->q_len[b] = m->tnd ? fz_bytes_range(f, 1, decode ? 1 : 16) : m->Q_S;
    if (m->tnd && fz_odd(g, 3))
        m->q_len[0] = 17;
    kv_lengths(g, m, 1, max_kv);
    m->bs = fz_bytes_chance(f, 50) ? 16 : 128;
    /* the metamorphic target's base (meta_mla.c): one whose call without
     * rope is valid too -- block_size 128 (the general rules' at Q_S > 1,
     * PAGED-005), at most 64 heads on the key head (GQA-003) */
    if (g->meta) {
        m->bs = 128;
        m->N = m->N > 64 ? 64 : m->N;
    }
    if (fz_odd(g, 3))
        m->bs = fz_bytes_bool(f) ? 32 : 64;
    if (fz_odd(g, 3))
        m->bs = 0; /* no page attention */
    /* a rank-4 cache goes with a BNSD query or a token layout (PAGED-011) */
    m->cache4d = (li == 2 || m->tnd) && fz_bytes_chance(f, 50);
    m->sparse = m->Q_S == 1 && !m->tnd ? 0 : 3;
    m->mask = m->sparse == 3;
    if (m->tnd && fz_bytes_chance(f, 40))
        m->sparse = 0, m->mask = 0;
    /* a token layout's sparse 3 wants every query shorter than its keys
     * (TND-022) */
    for (int64_t b = 0; m->tnd && m->sparse == 3 && b < m->B; b++)
        if (m->kv_len[b] <= m->q_len[b])
            m->kv_len[b] = m->q_len[b] + 1;
    if (fz_odd(g, 3)) /* the other mode */
        m->sparse = 3 - m->sparse;
    if (fz_odd(g, 2))
        m->mask = !m->mask;
    nbsd_nz(g, m, li);
}

/* The D = 128 scene: a token layout with cumulative lengths. */
static void spec128(fz_gen *g, mla_spec *m)
{
    fz_bytes *f = g->f;
    static const char *const lay[] = {"TND", "NTD_TND", "BNSD", "TND_NTD"};
    static const int lw[] = {60, 30, 5, 5};
    const int li = fz_wpick(g, lw, FZ_ARRLEN(lw), 2);
    m->layout = lay[li];
    m->tnd = li != 2;
    m->ntd = li == 1;
    m->dt = fz_odd(g, 3) ? FIA_DT_FP16 : FIA_DT_BF16;
    m->KV_N = fz_bytes_range(f, 1, 2);
    m->N = m->KV_N * fz_bytes_range(f, 1, 3);
    m->D = m->Dv = 128;
    if (fz_odd(g, 3))
        m->Dv = 64;
    m->Dq_r = m->Dk_r = 64;
    m->B = fz_bytes_range(f, 1, 3);
    m->sparse = fz_bytes_chance(f, 40) ? 3 : 0;
    m->mask = m->sparse == 3;
    for (int64_t b = 0; b < m->B; b++) {
        m->q_len[b] = fz_bytes_range(f, 0, 12);
        /* sparse 3 wants every query shorter than its keys */
        m->kv_len[b] = m->q_len[b] + fz_bytes_range(f, m->sparse == 3, 30);
    }
    m->Q_S = max_of(m->q_len, m->B);
    if (fz_odd(g, 3))
        m->bs = 128;
}

/* The dtypes and presence of the ropes, the exclusions (params' breaks). */
static void spec_common(fz_gen *g, mla_spec *m)
{
    m->qr_dt = m->kr_dt = m->dt; /* full quantization: bf16 (m->dt) */
    m->qrope = m->krope = 1;
    if (fz_odd(g, 2))
        *(fz_bytes_bool(g->f) ? &m->qrope : &m->krope) = 0;
    if (m->nbsd && fz_odd(g, 3)) /* an NBSD output without rope */
        m->qrope = m->krope = 0;
    if (fz_odd(g, 2))
        m->qr_dt = m->dt == FIA_DT_BF16 ? FIA_DT_FP16 : FIA_DT_BF16;
    if (fz_odd(g, 2))
        *(fz_bytes_bool(g->f) ? &m->Dq_r : &m->Dk_r) = 32;
    if (fz_odd(g, 2))
        m->col_delta = -1;
    if (fz_odd(g, 2))
        m->lse = 1;
    if (fz_odd(g, 2))
        m->pse = 1;
    if (fz_odd(g, 2))
        m->int8kv = 1;
    if (fz_odd(g, 2))
        m->post = 1;
    if (fz_odd(g, 2))
        m->D = m->Dv = 64; /* a D MLA does not take */
}

void fz_params_mla(fz_gen *g)
{
    /* a strict input keeps the scenes the fragments before made (the
     * feature tests read them back); MLA's valid calls come from the
     * others, whose breaks are each rare */
    if (!fz_bytes_rare(g->f, 10) || g->strict)
        return;
    mla_spec m;
    memset(&m, 0, sizeof m);
    if (fz_bytes_chance(g->f, 75))
        spec512(g, &m, 300);
    else
        spec128(g, &m);
    spec_common(g, &m);
    mla_build(g, &m);
}

/* fuzz_numeric: the harness's estimate of the reference's work
 * (fia_check_reference_work: 2 x attention_out's elements x the longest
 * batch's keys), which the tests hold the case to. */
static double mla_work(const mla_spec *m)
{
    double rows = 0.0;
    for (int64_t b = 0; b < m->B; b++)
        rows += (double)(m->tnd ? m->q_len[b] : m->Q_S);
    const double kv = (double)(max_of(m->kv_len, m->B) > 1
                                   ? max_of(m->kv_len, m->B) : 1);
    return 2.0 * rows * (double)m->N * (double)m->Dv * kv;
}

/* Down to FZ_MLA_MAX_WORK: fewer heads, then query rows, then keys. */
static void mla_shrink(mla_spec *m)
{
    while (mla_work(m) > FZ_MLA_MAX_WORK) {
        if (m->d512 && m->N > 32) {
            m->N = 32;
            continue;
        }
        if (m->Q_S > 2 || max_of(m->q_len, m->B) > 2) {
            for (int64_t b = 0; b < m->B; b++)
                m->q_len[b] = m->q_len[b] > 2 ? 2 : m->q_len[b];
            m->Q_S = m->Q_S > 2 ? 2 : m->Q_S;
            continue;
        }
        for (int64_t b = 0; b < m->B; b++) {
            m->kv_len[b] /= 2;
            /* a token layout's sparse 3: queries shorter than keys */
            if (m->tnd && m->sparse == 3 && m->kv_len[b] <= m->q_len[b])
                m->kv_len[b] = m->q_len[b] + 1;
        }
    }
}

void fz_numeric_mla(fz_gen *g)
{
    fz_bytes *f = g->f;
    if (!fz_bytes_rare(f, 2) || g->c->live_rows)
        return;
    mla_spec m;
    memset(&m, 0, sizeof m);
    const int strict = g->strict;
    g->strict = 1; /* a valid call: no deliberate break */
    m.numeric = 1;
    const int s512 = fz_bytes_chance(f, 75);
    /* long rows now and then: past a key block, past a split */
    const int64_t max_kv = fz_bytes_chance(f, 30) ? 300 : 40;
    if (s512)
        spec512(g, &m, max_kv);
    else
        spec128(g, &m);
    m.qr_dt = m.kr_dt = m.dt;
    m.qrope = m.krope = 1;
    mla_shrink(&m);
    g->strict = strict;
    mla_build(g, &m);
    /* data: the scores' scale from the dims, the ropes now and then
     * large (their term decides) or zero; full quantization: int8 over
     * its range, positive scales of moderate dequantized values (q ~ 127 /
     * 64 .. 127 / 8, k and v ~ 1 .. 8: the scores stay moderate) */
    fia_case *c = g->c;
    const double sd = fz_bytes_chance(f, 20) ? 4.0 : 1.0;
    if (m.query_quant) {
        fz_case_gen(c, FIA_SLOT_QUERY, FIA_GEN_UNIFORM, -127.0, 127.0);
        fz_case_gen(c, FIA_SLOT_KEY, FIA_GEN_UNIFORM, -127.0, 127.0);
        fz_case_gen(c, FIA_SLOT_VALUE, FIA_GEN_UNIFORM, -127.0, 127.0);
        fz_case_gen(c, FIA_SLOT_DEQUANT_SCALE_QUERY, FIA_GEN_UNIFORM, 1.0 / 64,
               1.0 / 8);
        fz_case_gen(c, FIA_SLOT_KEY_ANTIQUANT_SCALE, FIA_GEN_UNIFORM, 1.0 / 127,
               1.0 / 16);
        fz_case_gen(c, FIA_SLOT_VALUE_ANTIQUANT_SCALE, FIA_GEN_UNIFORM, 1.0 / 127,
               1.0 / 16);
    } else {
        fz_case_gen(c, FIA_SLOT_QUERY, FIA_GEN_NORMAL, 0.0, sd);
        fz_case_gen(c, FIA_SLOT_KEY, FIA_GEN_NORMAL, 0.0, 1.0);
        fz_case_gen(c, FIA_SLOT_VALUE, FIA_GEN_UNIFORM, -2.0, 2.0);
    }
    static const double rope_sd[] = {1.0, 8.0, 0.0};
    /* the metamorphic target's base: zero ropes (meta_mla.c) */
    const int pick = fz_bytes_pick(f, 3);
    const double rs = g->meta ? 0.0 : rope_sd[pick];
    if (rs == 0.0) {
        fz_case_gen(c, FIA_SLOT_QUERY_ROPE, FIA_GEN_CONST, 0.0, 0.0);
        fz_case_gen(c, FIA_SLOT_KEY_ROPE, FIA_GEN_CONST, 0.0, 0.0);
    } else {
        fz_case_gen(c, FIA_SLOT_QUERY_ROPE, FIA_GEN_NORMAL, 0.0, rs);
        fz_case_gen(c, FIA_SLOT_KEY_ROPE, FIA_GEN_NORMAL, 0.0, 1.0);
    }
    fz_case_scale(c, 1.0 / sqrt((double)(m.D + m.Dq_r)));
    c->seed = fz_bytes_u64(f);
}
